//===- AttentionStrategy.cpp - attention_configs: heuristic, search space -===//
//
// The heuristic takes FlashAttention-2's choices for the shapes it was tuned
// on (A100 / H100, head dims 64 to 256, bf16): Llama-3-8B prefill (B 1,
// Hq 32, Hkv 8, Sq = Skv = 4096, D 128) on 64 x 64 tiles of 4 warps; head
// dim 256 on 64 x 32; a decode step (Sq 1, Skv 8192, G 4) packs the 4 query
// heads of a K/V head into one 16-row tile of one warp and splits the keys
// until the SMs are busy (flash-decoding). On sm_90a a prefill takes
// FlashAttention-3's tiles and schedule (wgmma, fa3AttentionFields); a
// decode step keeps FA2's packed 16-row tiles (a wgmma warpgroup's 64 rows
// would mostly be padding). Every choice is checked against
// dialect/AttentionLegality.h.
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

/// An mma_sync (FA2) config: `warps` warps of 16 rows.
AttentionConfigFields mmaSyncFields(Target target, int64_t warps, int64_t bn,
                                    int64_t stages) {
  AttentionConfigFields f;
  f.target = target;
  f.instruction = InstructionFamily::mma_sync;
  f.blockM = 16 * warps;
  f.warpsM = warps;
  f.blockN = bn;
  f.stages = stages;
  return f;
}

/// A wgmma (FA3) config on sm_90a: `groups` consumer warpgroups of 64 rows.
AttentionConfigFields wgmmaFields(int64_t groups, bool pingPong, int64_t bn,
                                  int64_t stages) {
  AttentionConfigFields f;
  f.target = Target::sm_90a;
  f.instruction = InstructionFamily::wgmma;
  f.consumerWarpgroups = groups;
  f.pingPong = pingPong;
  f.blockM = 64 * groups;
  f.warpsM = 4 * groups;
  f.blockN = bn;
  f.stages = stages;
  return f;
}
} // namespace

bool mlir::kgen::isDecodeAttention(const AttentionProblem &p) {
  return p.groups() * p.seqQ <= kDecodeRows;
}

AttentionTileChoice mlir::kgen::chooseAttentionTile(const AttentionProblem &p) {
  AttentionTileChoice t;
  if (isDecodeAttention(p)) {
    // Variable-length sequences have no packed-GQA view: a block holds
    // one query head's rows of one sequence.
    int64_t rows = std::clamp<int64_t>(p.varlen ? p.seqQ : p.groups() * p.seqQ,
                                       1, kDecodeRows);
    t.blockM = 16 * llvm::divideCeil(rows, 16);
    t.warpsM = t.blockM / 16;
    t.blockNs = {64, 32, 16};
    t.packGqa = !p.varlen;
    return t;
  }
  t.blockM = 64;
  t.warpsM = 4;
  if (attentionTileHeadDim(p.headDim) <= 128)
    t.blockNs = {64, 32, 16};
  else
    t.blockNs = {32, 16};
  t.packGqa = !p.varlen && p.seqQ < t.blockM && p.groups() > 1;
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
mlir::kgen::fa3AttentionFields(const AttentionProblem &p) {
  if (isDecodeAttention(p))
    return std::nullopt;
  AttentionOperands operands = p.operands();
  int64_t dp = attentionTileHeadDim(p.headDim, InstructionFamily::wgmma);
  // FlashAttention-3's tiles (hopper/tile_size.h): 192 x 128 on three
  // warpgroups up to head dim 64; 128 rows on two, taking turns, with 176
  // keys (128 causal) up to 128, 112 up to 192, 80 beyond; each key tile's
  // softmax under the previous tile's P V (two stages). FP8 (all e4m3)
  // is not FA3's FP8 tiles (192 x 160 on three warpgroups up to head dim
  // 64, 128 x 224 up to 128, 128 x 128 at 256): kgen's register rule
  // (AttentionLegality.cpp) takes two warpgroups at every head dim and key
  // tiles in the 64s its V^T takes: 192 up to 64, 128 up to 192, 64 at 256.
  int64_t groups = dp <= 64 && !operands.allE4m3() ? 3 : 2;
  SmallVector<int64_t, 4> blockNs;
  if (operands.allE4m3()) // FP8: V^T in 64-key blocks
    blockNs = dp <= 64 ? SmallVector<int64_t, 4>{192, 128, 64}
                       : SmallVector<int64_t, 4>{128, 64};
  else if (dp <= 64)
    blockNs = {128, 96, 64};
  else if (dp <= 128)
    blockNs = p.causal ? SmallVector<int64_t, 4>{128, 96, 64}
                       : SmallVector<int64_t, 4>{176, 128, 64};
  else if (dp <= 192)
    blockNs = {112, 96, 64};
  else
    blockNs = {80, 64, 48};
  for (int64_t bn : blockNs)
    for (int64_t stages : {2, 1}) {
      AttentionConfigFields f = wgmmaFields(groups, groups == 2, bn, stages);
      f.overlapSoftmax = stages >= 2; // FA3's intra-warpgroup overlap
      f.packGqa = p.seqQ < f.blockM && p.groups() > 1;
      if (!checkAttentionLegality(f, &operands))
        return f;
    }
  return std::nullopt;
}

std::optional<AttentionConfigFields>
mlir::kgen::defaultAttentionFields(const AttentionProblem &p, Target target,
                                   AttentionLegalityError *refusal) {
  AttentionTileChoice tile = chooseAttentionTile(p);
  AttentionOperands operands = p.operands();
  // The chosen tile with the split that fills the SMs (flash-decoding).
  auto withSplit = [&](AttentionConfigFields f) {
    AttentionGrid g = attentionGrid(p, f.blockM, f.blockN, f.packGqa);
    int64_t slots = getTargetInfo(target).smCount * attentionBlocksPerSm(f, p);
    // (cu_seqlens: one block per sequence row tile and head, no split)
    f.splitKv = p.varlen ? 1
                         : chooseSplitKv(g.planes * g.rowTiles, g.keyTiles,
                                         slots);
    return f;
  };
  if (target == Target::sm_90a)
    if (std::optional<AttentionConfigFields> f = fa3AttentionFields(p))
      return withSplit(*f);
  std::optional<AttentionLegalityError> firstError;
  // More warps only where the tile's do not fit (one warp holding a row
  // block of head dim 208 and more spills at any block_n).
  for (int64_t warps = tile.warpsM; warps <= 8; warps *= 2)
  for (int64_t bn : tile.blockNs)
    for (int64_t stages : {2, 1}) { // 1 only where 2 do not fit
      AttentionConfigFields f = mmaSyncFields(target, warps, bn, stages);
      f.packGqa = tile.packGqa;
      if (std::optional<AttentionLegalityError> e =
              checkAttentionLegality(f, &operands)) {
        if (!firstError)
          firstError = e;
        continue;
      }
      return withSplit(f);
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
  // `f` with and without pack_gqa at every split the legality accepts (no
  // more splits than key tiles: blocks with none).
  auto addSplits = [&](AttentionConfigFields f) {
    int64_t keyTiles = llvm::divideCeil(p.seqKv, f.blockN);
    for (bool pack : {false, true})
      for (int64_t split : {1, 2, 4, 8, 16, 32, 64}) {
        if (split > 1 && split > keyTiles)
          continue;
        f.packGqa = pack;
        f.splitKv = split;
        if (!checkAttentionLegality(f, &operands))
          out.push_back(f);
      }
  };
  for (int64_t warps : {1, 2, 4, 8})
    for (int64_t bn : {16, 32, 64, 128})
      for (int64_t stages : {1, 2, 3})
        addSplits(mmaSyncFields(target, warps, bn, stages));
  if (target != Target::sm_90a)
    return out;
  // FlashAttention-3's schedule: one to three consumer warpgroups, with and
  // without ping-pong turns (FP8 also at 192 keys).
  SmallVector<int64_t, 9> blockNs = {32, 48, 64, 80, 96, 128, 176};
  if (operands.allE4m3())
    blockNs.push_back(192);
  for (int64_t groups : {1, 2, 3})
    for (bool pingPong : {false, true})
      for (int64_t bn : blockNs)
        for (int64_t stages : {1, 2}) {
          if (pingPong && groups < 2)
            continue;
          for (bool overlap : {false, true}) {
            AttentionConfigFields f = wgmmaFields(groups, pingPong, bn, stages);
            f.overlapSoftmax = overlap;
            addSplits(f);
          }
        }
  return out;
}
