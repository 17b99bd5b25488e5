//===- SearchSpace.cpp - the gemm_configs kgen-tune searches --------------===//

#include "passes/SearchSpace.h"

#include "dialect/GemmLegality.h"

using namespace mlir;
using namespace mlir::kgen;

namespace {
struct Shape {
  int64_t bm, bn, warpsM, warpsN;
};

/// Block tiles and warp grids per family (warps_m counts warps; wgmma's in
/// whole warpgroups of 4 along M, one per 64 rows).
SmallVector<Shape> tilesFor(InstructionFamily family) {
  switch (family) {
  case InstructionFamily::simt:
    return {{64, 64, 2, 4}, {128, 64, 4, 4}, {32, 64, 2, 2}};
  case InstructionFamily::mma_sync:
    return {{128, 128, 2, 2}, {64, 128, 2, 2}, {128, 64, 2, 2},
            {64, 64, 2, 2}, {128, 256, 2, 4}};
  case InstructionFamily::wgmma: {
    SmallVector<Shape> tiles;
    for (int64_t bn : {64, 128, 192, 256})
      tiles.push_back({64, bn, 4, 1});
    for (int64_t bn : {64, 96, 128, 160, 192, 224, 256})
      tiles.push_back({128, bn, 8, 1});
    for (int64_t bn : {96, 128, 192})
      tiles.push_back({192, bn, 12, 1});
    return tiles;
  }
  }
  return {};
}

/// The K tile per family and element type: 128-byte rows for wgmma, the
/// instruction's K multiples otherwise.
SmallVector<int64_t> blockKsFor(InstructionFamily family, Type elem) {
  int64_t bytes = elem.getIntOrFloatBitWidth() / 8;
  if (family == InstructionFamily::wgmma)
    return {128 / bytes};
  if (family == InstructionFamily::simt)
    return {8, 16};
  return {32 / bytes, 64 / bytes};
}
} // namespace

SmallVector<GemmConfigAttr> mlir::kgen::enumerateGemmConfigs(GemmOp op,
                                                             Target target) {
  MLIRContext *ctx = op.getContext();
  SmallVector<InstructionFamily> families = {InstructionFamily::simt,
                                             InstructionFamily::mma_sync};
  if (target == Target::sm_90a)
    families.push_back(InstructionFamily::wgmma);
  Type elem = op.getA().getType().getElementType();
  GemmOperands operands = GemmOperands::of(op);

  SmallVector<GemmConfigAttr> out;
  for (InstructionFamily family : families) {
    bool hopper = family == InstructionFamily::wgmma;
    for (Shape t : tilesFor(family))
      for (int64_t bk : blockKsFor(family, elem))
        for (int64_t stages : {2, 3, 4, 5, 6})
          for (int64_t split : {1, 2, 4})
            for (int64_t group : {1, 8})
              for (int64_t cluster : {1, 2}) {
                GemmConfigFields f;
                f.target = target;
                f.instruction = family;
                f.blockM = t.bm;
                f.blockN = t.bn;
                f.blockK = bk;
                f.warpsM = t.warpsM;
                f.warpsN = t.warpsN;
                f.stages = stages;
                f.tma = f.warpSpecialized = hopper;
                f.clusterM = cluster;
                f.splitK = split;
                f.rasterGroup = group;
                f.epilogueVector = 8;
                if (checkGemmLegality(f, &operands))
                  continue;
                out.push_back(GemmConfigAttr::get(
                    ctx, target, family, t.bm, t.bn, bk, t.warpsM, t.warpsN,
                    stages, hopper, hopper, cluster, /*cluster_n=*/1, split,
                    group, /*epilogue_vector=*/8, ConfigSource::model, ""));
              }
  }
  return out;
}
