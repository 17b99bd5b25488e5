//===- MoeStrategy.cpp - grouped GEMM heuristic, search space, model ------===//

#include "passes/MoeStrategy.h"

#include <cmath>
#include <tuple>

using namespace mlir;
using namespace mlir::kgen;

GroupedGemmProblem GroupedGemmProblem::gateUp(MoeOp op) {
  auto x = cast<RankedTensorType>(op.getX().getType());
  auto wg = cast<RankedTensorType>(op.getWGate().getType());
  GroupedGemmProblem p;
  p.rows = x.getDimSize(0) * int64_t(op.getTopK());
  p.k = x.getDimSize(1);
  p.n = wg.getDimSize(2);
  p.experts = wg.getDimSize(0);
  p.gated = true;
  p.elem = p.out = x.getElementType();
  // Block-scaled e4m3 weights: the kernels' A is the quantised e4m3 rows.
  if (!op.getScales().empty()) {
    p.elem = wg.getElementType();
    p.blockScaled = true;
    p.aElem = x.getElementType();
  }
  return p;
}

GroupedGemmProblem GroupedGemmProblem::down(MoeOp op) {
  GroupedGemmProblem p = gateUp(op);
  std::swap(p.k, p.n);
  p.gated = false;
  return p;
}

GroupedGemmProblem GroupedGemmProblem::of(GroupedGemmOp op) {
  auto a = cast<RankedTensorType>(op.getA().getType());
  auto b = cast<RankedTensorType>(op.getB().getType());
  GroupedGemmProblem p;
  p.rows = a.getDimSize(0);
  p.k = a.getDimSize(1);
  p.n = b.getDimSize(2);
  p.experts = b.getDimSize(0);
  p.gated = bool(op.getBUp());
  p.elem = a.getElementType();
  p.out = cast<RankedTensorType>(op.getD().getType()).getElementType();
  if (!op.getScales().empty()) {
    p.elem = b.getElementType();
    p.blockScaled = true;
    p.aElem = a.getElementType();
  }
  return p;
}

namespace {
GroupedGemmConfigFields fieldsOf(Target target, int64_t bm, int64_t bn,
                                 int64_t bk, int64_t wm, int64_t wn,
                                 int64_t stages) {
  GroupedGemmConfigFields f;
  f.target = target;
  f.instruction = InstructionFamily::mma_sync;
  f.blockM = bm;
  f.blockN = bn;
  f.blockK = bk;
  f.warpsM = wm;
  f.warpsN = wn;
  f.stages = stages;
  return f;
}
} // namespace

std::optional<GroupedGemmConfigFields>
mlir::kgen::defaultGroupedGemmFields(const GroupedGemmProblem &problem,
                                     Target target,
                                     GroupedGemmLegalityError *refusal) {
  double perExpert = problem.rowsPerExpert();
  int64_t bm = perExpert <= 16 ? 16 : perExpert <= 32 ? 32
               : perExpert <= 64 ? 64 : 128;
  // (warps_m, warps_n, block_n, block_k, stages), preferred first.
  using Tile = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t>;
  SmallVector<Tile> tiles;
  switch (bm) {
  case 16:
    tiles = {{1, 4, 128, 32, 4}, {1, 4, 64, 32, 4}, {1, 4, 128, 16, 4},
             {1, 4, 64, 16, 4},  {1, 2, 64, 32, 3}, {1, 2, 32, 32, 2}};
    break;
  case 32:
    tiles = {{2, 2, 128, 32, 3}, {2, 2, 64, 32, 3}, {2, 2, 64, 16, 3},
             {1, 2, 64, 32, 2}};
    break;
  case 64:
    tiles = {{2, 2, 128, 32, 3}, {2, 2, 64, 32, 3}, {2, 2, 64, 16, 3}};
    break;
  default:
    tiles = {{2, 4, 128, 32, 3}, {4, 2, 128, 32, 3}, {2, 2, 128, 32, 3},
             {2, 2, 64, 32, 3}};
    break;
  }
  // Block-scaled e4m3 weights: N and K tiles inside one 128-wide scale
  // block, and two accumulators a product (gated: four), so the tiles a
  // warp holds are half as large.
  // At most 64 accumulators a thread (GemmLegality.h,
  // checkWidenedE4m3MainLoop): the gated form's four take warp tiles half
  // as wide as the down GEMM's two, which the first tile of each list
  // holds.
  if (problem.blockScaled) {
    switch (bm) {
    case 16:
      tiles = {{1, 4, 64, 64, 4}, {1, 4, 64, 32, 4}, {1, 2, 32, 64, 3},
               {1, 2, 32, 32, 2}};
      break;
    case 32:
      tiles = {{2, 4, 128, 32, 3}, {2, 4, 64, 64, 3}, {2, 2, 64, 32, 3},
               {1, 2, 32, 32, 2}};
      break;
    case 64:
      tiles = {{2, 4, 128, 32, 3}, {2, 4, 64, 32, 3}, {2, 2, 32, 32, 3}};
      break;
    default:
      tiles = {{4, 2, 64, 32, 3}, {4, 2, 32, 32, 3}, {4, 4, 64, 16, 3}};
      break;
    }
  }
  GroupedGemmOperands operands = problem.operands();
  std::optional<GroupedGemmLegalityError> first;
  for (auto [wm, wn, bn, bk, stages] : tiles) {
    GroupedGemmConfigFields f = fieldsOf(target, bm, bn, bk, wm, wn, stages);
    std::optional<GroupedGemmLegalityError> e =
        checkGroupedGemmLegality(f, &operands);
    if (!e)
      return f;
    if (!first)
      first = e;
  }
  if (refusal && first)
    *refusal = *first;
  return std::nullopt;
}

SmallVector<GroupedGemmConfigFields>
mlir::kgen::enumerateGroupedGemmConfigs(const GroupedGemmProblem &problem,
                                        Target target) {
  SmallVector<GroupedGemmConfigFields> out;
  GroupedGemmOperands operands = problem.operands();
  // Block-scaled: block_k 128 too (one K tile a scale block).
  SmallVector<int64_t> blockKs = {16, 32, 64};
  if (problem.blockScaled)
    blockKs.push_back(128);
  for (int64_t bm : {16, 32, 64, 128})
    for (int64_t bn : {32, 64, 128, 256})
      for (int64_t bk : blockKs)
        for (int64_t wm : {1, 2, 4})
          for (int64_t wn : {1, 2, 4})
            for (int64_t stages : {2, 3, 4}) {
              GroupedGemmConfigFields f =
                  fieldsOf(target, bm, bn, bk, wm, wn, stages);
              if (!checkGroupedGemmLegality(f, &operands))
                out.push_back(f);
            }
  // wgmma (sm_90a, ungated, not block-scaled): a warpgroup per 64 rows,
  // 128-byte K rows; the legality keeps what fits.
  for (int64_t bm : {64, 128})
    for (int64_t bn : {64, 128, 192, 256})
      for (int64_t stages : {2, 3, 4, 5}) {
        GroupedGemmConfigFields f =
            fieldsOf(target, bm, bn, 128 / (problem.elem.getIntOrFloatBitWidth() / 8),
                     bm / 16, 1, stages);
        f.instruction = InstructionFamily::wgmma;
        if (!checkGroupedGemmLegality(f, &operands))
          out.push_back(f);
      }
  return out;
}

double mlir::kgen::predictGroupedGemmMs(const GroupedGemmProblem &p,
                                        const GroupedGemmConfigFields &c,
                                        const MachineModel &machine,
                                        MLIRContext *ctx) {
  GemmProblem g;
  g.batch = double(p.expertsHit());
  g.m = std::max(1.0, std::ceil(p.rowsPerExpert()));
  g.n = double(p.gated ? 2 * p.n : p.n);
  g.k = double(p.k);
  g.aBytes = p.elem.getIntOrFloatBitWidth() / 8.0;
  g.dBytes = p.out.getIntOrFloatBitWidth() / 8.0;
  g.activation = true;
  GemmConfigFields e = c.asGemm(p.gated);
  auto attr = GemmConfigAttr::get(
      ctx, e.target, e.instruction, e.blockM, e.blockN, e.blockK, e.warpsM,
      e.warpsN, e.stages, false, false, 1, 1, 1, 1, 1, ConfigSource::model,
      "");
  return predictGemmCost(g, attr, machine).ms;
}

GroupedGemmConfigAttr
mlir::kgen::groupedGemmConfigAttr(MLIRContext *ctx,
                                  const GroupedGemmConfigFields &f,
                                  ConfigSource source, StringRef entry) {
  return GroupedGemmConfigAttr::get(ctx, f.target, f.instruction, f.blockM,
                                    f.blockN, f.blockK, f.warpsM, f.warpsN,
                                    f.stages, source, entry);
}
