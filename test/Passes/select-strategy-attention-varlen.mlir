// kgen-select-strategy on variable-length batches (cu_seqlens): FA2's
// tiles on mma_sync without the packed-GQA view or split-KV (one block per
// sequence row tile and query head), on both targets (wgmma refuses them),
// by the heuristic and by the cost model, which sees B sequences of the mean
// lengths (over a paged cache: of the mean queries over M * P keys). Every
// chosen config lowers (the LOWER runs).
// RUN: kgen-opt %s --split-input-file --kgen-select-strategy=target=sm_90a | FileCheck %s
// RUN: kgen-opt %s --split-input-file --kgen-select-strategy=target=sm_80 | FileCheck %s
// RUN: kgen-opt %s --split-input-file --kgen-select-strategy="target=sm_90a model=%S/Inputs/synthetic-cost-model.json" | FileCheck %s --check-prefix=MODEL
// RUN: kgen-opt %s --split-input-file --kgen-select-strategy=target=sm_90a --kgen-lower-attention-to-tiles | FileCheck %s --check-prefix=LOWER
// RUN: kgen-opt %s --split-input-file --kgen-select-strategy=target=sm_80 --kgen-lower-attention-to-tiles -o /dev/null

// A packed prefill batch of Llama-3-8B: 16 sequences, 16k tokens.
// CHECK-LABEL: func.func @prefill_varlen
// CHECK: instruction = mma_sync, block_m = 64, {{.*}} warps_m = 4, {{.*}} pack_gqa = false, split_kv = 1, source = default
// MODEL-LABEL: func.func @prefill_varlen
// MODEL: instruction = mma_sync, {{.*}} pack_gqa = false, split_kv = 1, source = model
// LOWER: kgen.kernel @kgen_attention_bf16_varlen_b16_h32x8_q16384_kv16384_d128_causal grid [8704, 1, 1] threads 128
// LOWER: kgen.tile.sequence_tile
func.func @prefill_varlen(%q: tensor<16384x32x128xbf16>, %k: tensor<16384x8x128xbf16>, %v: tensor<16384x8x128xbf16>, %cq: tensor<17xi32>, %ck: tensor<17xi32>) -> tensor<16384x32x128xbf16> {
  %o = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<17xi32>, tensor<17xi32>) {causal} : tensor<16384x32x128xbf16>, tensor<16384x8x128xbf16>, tensor<16384x8x128xbf16> -> tensor<16384x32x128xbf16>
  return %o : tensor<16384x32x128xbf16>
}

// -----

// A decode step over 64 sequences (one query each, 8k keys on average):
// 16-row tiles of one query head (no packed view).
// CHECK-LABEL: func.func @decode_varlen
// CHECK: instruction = mma_sync, block_m = 16, {{.*}} warps_m = 1, {{.*}} pack_gqa = false, split_kv = 1, source = default
// MODEL-LABEL: func.func @decode_varlen
// MODEL: instruction = mma_sync, {{.*}} pack_gqa = false, split_kv = 1, source = model
// LOWER: kgen.kernel @kgen_attention_bf16_varlen_b64_h32x8_q64_kv524288_d128
func.func @decode_varlen(%q: tensor<64x32x128xbf16>, %k: tensor<524288x8x128xbf16>, %v: tensor<524288x8x128xbf16>, %cq: tensor<65xi32>, %ck: tensor<65xi32>) -> tensor<64x32x128xbf16> {
  %o = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<65xi32>, tensor<65xi32>) : tensor<64x32x128xbf16>, tensor<524288x8x128xbf16>, tensor<524288x8x128xbf16> -> tensor<64x32x128xbf16>
  return %o : tensor<64x32x128xbf16>
}

// -----

// vLLM's chunked prefill over a paged cache (pages of 16, 512 a sequence:
// up to 8k keys each): 16 sequences, 2k query tokens in all; the cost
// model sees 128 queries over 8k keys a sequence (seq_kv is M * P, not a
// token total).
// CHECK-LABEL: func.func @chunked_prefill_paged
// CHECK: instruction = mma_sync, {{.*}} pack_gqa = false, split_kv = 1, source = default
// MODEL-LABEL: func.func @chunked_prefill_paged
// MODEL: instruction = mma_sync, {{.*}} pack_gqa = false, split_kv = 1, source = model
// LOWER: kgen.kernel @kgen_attention_bf16_varlen_b16_h32x8_q2048_kv8192_d128_causal_page16
// LOWER: kgen.tile.sequence_tile
// LOWER: kgen.tile.load_paged
func.func @chunked_prefill_paged(%q: tensor<2048x32x128xbf16>, %k: tensor<8192x8x16x128xbf16>, %v: tensor<8192x8x16x128xbf16>, %cq: tensor<17xi32>, %ck: tensor<17xi32>, %bt: tensor<16x512xi32>) -> tensor<2048x32x128xbf16> {
  %o = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<17xi32>, tensor<17xi32>) block_table(%bt : tensor<16x512xi32>) {causal} : tensor<2048x32x128xbf16>, tensor<8192x8x16x128xbf16>, tensor<8192x8x16x128xbf16> -> tensor<2048x32x128xbf16>
  return %o : tensor<2048x32x128xbf16>
}
