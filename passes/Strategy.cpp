//===- Strategy.cpp - default lowering strategies -------------------------===//
//
// Rules of thumb, by target and element type:
//   sm_90a, 16-bit or fp8 operands: wgmma + TMA, warp-specialised (one
//     producer warpgroup, two consumer warpgroups), 128x256 tiles, no
//     cluster (the emitter prints TMA multicast clusters, which kgen-tune
//     measures; the default waits until a GPU run has validated them);
//     decode shapes (M <= 64) take one consumer warpgroup on 64x128 tiles
//     with a deeper pipeline;
//   sm_80, 16-bit operands: mma.sync with cp.async, 128x128x32 tiles, 2x2
//     warps, 4 stages (64x64 tiles for decode shapes);
//   f32 operands, and fp8 on sm_80: SIMT FMAs (f32 keeps full precision by
//     default; tf32 is a config choice).
// Operands whose rows are not a multiple of 16 bytes cannot use TMA, nor fp8
// operands that are not both K-major: they take the sm_80 tiling (cp.async,
// with its element path) on any target. Every choice is checked against the
// family's legality (dialect/GemmLegality.h); a gemm no family lowers (an
// f16 accumulator) gets an error naming the rule.
// Narrow outputs (N below the tile's N: a MoE router's N = 8 experts) take
// the narrowest tile N the family's legality allows that covers N (16 per
// warp along N, so that split-K stays open; MN-major wgmma B needs
// multiples of 64), rather than MMAs on columns that do not exist.
// Split-K fills the machine when the output has too few tiles: up to the
// SMs' worth of blocks, keeping at least 4 K tiles per split.
//
//===----------------------------------------------------------------------===//

#include "passes/Strategy.h"
#include "dialect/GemmLegality.h"
#include "dialect/KgenTarget.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::kgen;

namespace {
struct Tile {
  InstructionFamily instruction;
  int64_t bm, bn, bk, warpsM, warpsN, stages;
  bool tma, warpSpecialized;
  int64_t clusterM;
};

Tile chooseTile(Type elem, int64_t m, Target target) {
  bool fp8 = isa<Float8E4M3FNType>(elem);
  bool decode = m <= 64;
  if (elem.isF32() || (fp8 && target == Target::sm_80))
    return {InstructionFamily::simt, 64, 64, 16, 2, 4, 2, false, false, 1};
  int64_t kScale = fp8 ? 2 : 1; // the same bytes per stage: twice the K
  if (target == Target::sm_90a) {
    if (decode)
      return {InstructionFamily::wgmma, 64, 128, 64 * kScale, 4, 1, 6,
              true, true, 1};
    return {InstructionFamily::wgmma, 128, 256, 64 * kScale, 8, 1, 4,
            true, true, /*clusterM=*/1};
  }
  if (decode)
    return {InstructionFamily::mma_sync, 64, 64, 64, 2, 2, 4, false, false, 1};
  return {InstructionFamily::mma_sync, 128, 128, 32, 2, 2, 4, false, false, 1};
}

/// The tile Ns to try for an output N columns wide, narrowest first, the
/// tile's own last: for the tensor-core families, when N is below the
/// tile's, N rounded up to 16 per warp along N (the split-K reduction's and
/// ldmatrix's granule; wgmma alone would take 8), then to 64 (MN-major wgmma
/// operands), each only if narrower than the tile. The legality has the
/// last word: a refused width falls through to the next.
SmallVector<int64_t, 3> narrowTileNs(const Tile &t, int64_t n) {
  SmallVector<int64_t, 3> bns;
  if (t.instruction != InstructionFamily::simt && n < t.bn)
    for (int64_t granule : {16 * t.warpsN, int64_t(64)}) {
      int64_t bn = llvm::alignTo(n, granule);
      if (bn < t.bn && (bns.empty() || bns.back() != bn))
        bns.push_back(bn);
    }
  bns.push_back(t.bn);
  return bns;
}

/// Power-of-two split of K that brings the block count towards the SM count.
int64_t chooseSplitK(int64_t tiles, int64_t k, int64_t bk, int smCount) {
  int64_t split = 1;
  while (tiles * split * 2 <= smCount && k / (bk * split * 2) >= 4 &&
         split < 16)
    split *= 2;
  return split;
}
} // namespace

FailureOr<GemmConfigAttr> mlir::kgen::defaultGemmConfig(GemmOp op,
                                                       Target target) {
  Type elem = op.getA().getType().getElementType();
  Type out = op.getD().getType().getElementType();
  // The target's tiling first; the sm_80 tiling (cp.async, which has an
  // element path for any pitch) where the family's legality refuses it:
  // TMA rows that are not a multiple of 16 bytes, fp8 operands that are not
  // both K-major.
  // Each tiling with its narrower tile Ns first (narrowTileNs).
  SmallVector<Tile, 6> candidates;
  for (const Tile &tiling : {chooseTile(elem, op.getM(), target),
                             chooseTile(elem, op.getM(), Target::sm_80)})
    for (int64_t bn : narrowTileNs(tiling, op.getN())) {
      candidates.push_back(tiling);
      candidates.back().bn = bn;
    }
  GemmOperands operands = GemmOperands::of(op);
  const TargetInfo &info = getTargetInfo(target);
  std::optional<GemmLegalityError> firstError;
  for (const Tile &t : candidates) {
    int64_t tiles = op.getBatch() * llvm::divideCeil(op.getM(), t.bm) *
                    llvm::divideCeil(op.getN(), t.bn);
    GemmConfigFields f;
    f.target = target;
    f.instruction = t.instruction;
    f.blockM = t.bm;
    f.blockN = t.bn;
    f.blockK = t.bk;
    f.warpsM = t.warpsM;
    f.warpsN = t.warpsN;
    f.stages = t.stages;
    f.tma = t.tma;
    f.warpSpecialized = t.warpSpecialized;
    // Clusters pair blocks along M that share B tiles (TMA multicast); only
    // with enough rows (the tiles' clusterM is 1 for now, see above).
    f.clusterM = op.getM() >= t.bm * t.clusterM ? t.clusterM : 1;
    f.rasterGroup = 8;
    // 16-byte epilogue stores.
    f.epilogueVector =
        16 / std::max<int64_t>(1, out.getIntOrFloatBitWidth() / 8);
    // The split that fills the machine, else the largest smaller one the
    // legality takes (the reduction kernel holds a whole tile per block).
    for (f.splitK = chooseSplitK(tiles, op.getK(), t.bk, info.smCount);
         f.splitK >= 1; f.splitK /= 2) {
      std::optional<GemmLegalityError> e = checkGemmLegality(f, &operands);
      if (!e)
        return GemmConfigAttr::get(
            op.getContext(), target, f.instruction, f.blockM, f.blockN,
            f.blockK, f.warpsM, f.warpsN, f.stages, f.tma, f.warpSpecialized,
            f.clusterM, f.clusterN, f.splitK, f.rasterGroup,
            f.epilogueVector, ConfigSource::default_, /*entry=*/"");
      if (!firstError)
        firstError = e;
    }
  }
  return op.emitOpError() << "no kernel family lowers this gemm on "
                          << stringifyTarget(target) << ": "
                          << firstError->str();
}
