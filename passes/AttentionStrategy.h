//===- AttentionStrategy.h - attention heuristic, search space -*- C++ -*-===//
//
// How kgen-select-strategy picks a #kgen.attention_config when no
// measurement decides: the built-in heuristic (source = default) and the
// configs the cost model (passes/CostModel.h) ranks (source = model). Both
// answer to dialect/AttentionLegality.h: the heuristic's choice and every
// candidate pass it. Kept apart from the pass so that selection, tuning and
// tests share them.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_PASSES_ATTENTIONSTRATEGY_H
#define KGEN_PASSES_ATTENTIONSTRATEGY_H

#include "passes/CostModel.h"

namespace mlir::kgen {

/// Decode-shaped: a (b, kv head) plane's G * Sq rows fit one 64-row tile
/// (a decode step, Sq = 1; speculative decoding's few queries).
bool isDecodeAttention(const AttentionProblem &problem);

/// The tile the heuristic starts from; the legality picks among blockNs
/// (the first it accepts).
struct AttentionTileChoice {
  int64_t blockM = 64, warpsM = 4;
  SmallVector<int64_t, 3> blockNs; // preferred first
  bool packGqa = false;
};

/// FlashAttention-2's tiles (mma_sync, 16 rows per warp):
/// - prefill (G * Sq > 64): 64 rows on 4 warps; 64 keys per step up to
///   head dim 128 (tiles of Dp <= 128), 32 past it (Dp + block_n <= 288
///   and block_n * Dp <= 4096 * warps_m: Attention.cuh's registers);
///   pack_gqa only when it fills tiles a head alone leaves partly empty
///   (Sq < 64 and G > 1);
/// - decode (G * Sq <= 64): the plane's rows packed (pack_gqa) into one
///   tile of 16 * ceil(G * Sq / 16) rows, 16 per warp; the widest of 64,
///   32 and 16 keys per step (a one-warp block takes 32 at Dp 128, 16 at
///   Dp 256).
AttentionTileChoice chooseAttentionTile(const AttentionProblem &problem);

/// FlashAttention's num_splits heuristic over `slots` resident blocks:
/// none when the `blocks` fill 80% of the slots; else, of the splits that
/// leave each block at least 2 of the `keyTiles` (at most 128), the
/// smallest whose last wave is at least 85% as full as the fullest any
/// split reaches (splits that do not change the key tiles per split are
/// skipped: they only add blocks).
int64_t chooseSplitKv(int64_t blocks, int64_t keyTiles, int64_t slots);

/// The heuristic's config for `problem` on `target` (mma_sync on sm_80 and
/// sm_90a; 2 stages, at which Attention.cuh's registers were measured),
/// split-KV filling the SMs' resident blocks (attentionBlocksPerSm: 2
/// waves of 4-warp blocks); the first rule the legality refuses in
/// `refusal` when no config is legal (f32 operands).
std::optional<AttentionConfigFields>
defaultAttentionFields(const AttentionProblem &problem, Target target,
                       AttentionLegalityError *refusal = nullptr);

/// defaultAttentionFields of `op` as an attribute (source = default); null
/// when no config lowers the op.
AttentionConfigAttr
defaultAttentionConfig(AttentionOp op, Target target,
                       AttentionLegalityError *refusal = nullptr);

/// FlashAttention-3's choice for a prefill on sm_90a (wgmma, 64 rows per
/// consumer warpgroup, ping-pong with two, the softmax overlapped with the
/// previous P V with two stages): the first legal of its tiles
/// for the head dim, split_kv 1; nullopt for a decode step or when none is
/// legal.
std::optional<AttentionConfigFields>
fa3AttentionFields(const AttentionProblem &problem);

/// Every config of the attention search space the legality accepts for
/// `problem` on `target`: mma_sync, block_m / warps_m 16/1, 32/2, 64/4,
/// 128/8, block_n 16 to 128, 1 to 3 stages, pack_gqa or not, split_kv
/// 1 to 64 in powers of two (no more splits than key tiles); on sm_90a
/// also wgmma with one to three consumer warpgroups (ping-pong or not,
/// overlap_softmax or not), block_n 32 to 176, 1 or 2 stages, pack_gqa or
/// not, the same splits.
SmallVector<AttentionConfigFields>
enumerateAttentionConfigs(const AttentionProblem &problem, Target target);

/// The attribute of `fields`.
AttentionConfigAttr attentionConfigAttr(MLIRContext *ctx,
                                        const AttentionConfigFields &fields,
                                        ConfigSource source, StringRef entry);
} // namespace mlir::kgen

#endif // KGEN_PASSES_ATTENTIONSTRATEGY_H
