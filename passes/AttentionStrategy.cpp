//===- AttentionStrategy.cpp - attention_configs: heuristic, search space -===//
//
// The heuristic takes FlashAttention-2's choices for the shapes it was tuned
// on (A100 / H100, head dims 64 to 256, bf16): Llama-3-8B prefill (B 1,
// Hq 32, Hkv 8, Sq = Skv = 4096, D 128) on 64 x 64 tiles of 4 warps; head
// dim 256 on 64 x 32; a decode step (Sq 1, Skv 8192, G 4) packs the 4 query
// heads of a K/V head into one 16-row tile of one warp and splits the keys
// until the SMs are busy (flash-decoding). Every choice is checked against
// dialect/AttentionLegality.h; only mma_sync is lowered (wgmma attention is
// refused there), on sm_80 and sm_90a alike.
//
//===----------------------------------------------------------------------===//

#include "passes/AttentionStrategy.h"

#include "dialect/KgenTarget.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::kgen;

namespace {
/// Rows of a plane that make a whole tile of the largest decode block.
constexpr int64_t kDecodeRows = 64;
/// The largest split the legality takes.
constexpr int64_t kMaxSplitKv = 128;
} // namespace

bool mlir::kgen::isDecodeAttention(const AttentionProblem &p) {
  return p.groups() * p.seqQ <= kDecodeRows;
}

AttentionTileChoice mlir::kgen::chooseAttentionTile(const AttentionProblem &p) {
  AttentionTileChoice t;
  if (isDecodeAttention(p)) {
    int64_t rows = std::clamp<int64_t>(p.groups() * p.seqQ, 1, kDecodeRows);
    t.blockM = 16 * llvm::divideCeil(rows, 16);
    t.warpsM = t.blockM / 16;
    t.blockNs = {64, 32, 16};
    t.packGqa = true;
    return t;
  }
  t.blockM = 64;
  t.warpsM = 4;
  if (attentionTileHeadDim(p.headDim) <= 128)
    t.blockNs = {64, 32, 16};
  else
    t.blockNs = {32, 16};
  t.packGqa = p.seqQ < t.blockM && p.groups() > 1;
  return t;
}

int64_t mlir::kgen::chooseSplitKv(int64_t blocks, int64_t keyTiles,
                                  int64_t slots) {
  if (blocks <= 0 || slots <= 0 || double(blocks) >= 0.8 * double(slots))
    return 1;
  int64_t most = std::min({kMaxSplitKv, keyTiles / 2, slots});
  if (most <= 1)
    return 1;
  auto eligible = [&](int64_t s) {
    return s == 1 ||
           llvm::divideCeil(keyTiles, s) != llvm::divideCeil(keyTiles, s - 1);
  };
  auto efficiency = [&](int64_t s) {
    double waves = double(blocks * s) / double(slots);
    return waves / std::ceil(waves);
  };
  double best = 0;
  for (int64_t s = 1; s <= most; ++s)
    if (eligible(s))
      best = std::max(best, efficiency(s));
  for (int64_t s = 1; s <= most; ++s)
    if (eligible(s) && efficiency(s) >= 0.85 * best)
      return s;
  return 1;
}

std::optional<AttentionConfigFields>
mlir::kgen::defaultAttentionFields(const AttentionProblem &p, Target target,
                                   AttentionLegalityError *refusal) {
  AttentionTileChoice tile = chooseAttentionTile(p);
  AttentionOperands operands = p.operands();
  std::optional<AttentionLegalityError> firstError;
  // More warps only where the tile's do not fit (one warp holding a row
  // block of head dim 208 and more spills at any block_n).
  for (int64_t warps = tile.warpsM; warps <= 8; warps *= 2)
  for (int64_t bn : tile.blockNs)
    for (int64_t stages : {2, 1}) { // 1 only where 2 do not fit
      AttentionConfigFields f;
      f.target = target;
      f.instruction = InstructionFamily::mma_sync;
      f.blockM = 16 * warps;
      f.warpsM = warps;
      f.blockN = bn;
      f.stages = stages;
      f.packGqa = tile.packGqa;
      if (std::optional<AttentionLegalityError> e =
              checkAttentionLegality(f, &operands)) {
        if (!firstError)
          firstError = e;
        continue;
      }
      AttentionGrid g = attentionGrid(p, f.blockM, f.blockN, f.packGqa);
      int64_t slots =
          getTargetInfo(target).smCount * attentionBlocksPerSm(f, p);
      f.splitKv = chooseSplitKv(g.planes * g.rowTiles, g.keyTiles, slots);
      return f;
    }
  if (refusal && firstError)
    *refusal = *firstError;
  return std::nullopt;
}

AttentionConfigAttr
mlir::kgen::attentionConfigAttr(MLIRContext *ctx,
                                const AttentionConfigFields &f,
                                ConfigSource source, StringRef entry) {
  return AttentionConfigAttr::get(
      ctx, f.target, f.instruction, f.blockM, f.blockN, f.warpsM, f.stages,
      f.consumerWarpgroups, f.pingPong, f.overlapSoftmax, f.packGqa, f.splitKv,
      source, entry);
}

AttentionConfigAttr
mlir::kgen::defaultAttentionConfig(AttentionOp op, Target target,
                                   AttentionLegalityError *refusal) {
  std::optional<AttentionConfigFields> f =
      defaultAttentionFields(AttentionProblem::of(op), target, refusal);
  if (!f)
    return {};
  return attentionConfigAttr(op.getContext(), *f, ConfigSource::default_,
                             /*entry=*/"");
}

SmallVector<AttentionConfigFields>
mlir::kgen::enumerateAttentionConfigs(const AttentionProblem &p,
                                      Target target) {
  AttentionOperands operands = p.operands();
  SmallVector<AttentionConfigFields> out;
  for (int64_t warps : {1, 2, 4, 8})
    for (int64_t bn : {16, 32, 64, 128}) {
      int64_t keyTiles = llvm::divideCeil(p.seqKv, bn);
      for (int64_t stages : {1, 2, 3})
        for (bool pack : {false, true})
          for (int64_t split : {1, 2, 4, 8, 16, 32, 64}) {
            if (split > 1 && split > keyTiles)
              continue; // blocks with no key tile
            AttentionConfigFields f;
            f.target = target;
            f.instruction = InstructionFamily::mma_sync;
            f.blockM = 16 * warps;
            f.warpsM = warps;
            f.blockN = bn;
            f.stages = stages;
            f.packGqa = pack;
            f.splitKv = split;
            if (!checkAttentionLegality(f, &operands))
              out.push_back(f);
          }
    }
  return out;
}
