// kgen-select-strategy on kgen.attention: FlashAttention-2's tiles by
// default (passes/AttentionStrategy.h), the cost model's choice with a
// model or databases (databases hold gemm keys only: attention is never
// measured), a hand-written config kept, f32 left to the reference path
// with a remark. Every chosen config lowers (the LOWER runs).
// RUN: kgen-opt %s --split-input-file --verify-diagnostics --kgen-select-strategy=target=sm_90a | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: kgen-opt %s --split-input-file --verify-diagnostics --kgen-select-strategy=target=sm_80 | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: kgen-opt %s --split-input-file --verify-diagnostics --kgen-select-strategy="target=sm_90a model=%S/Inputs/synthetic-cost-model.json" | FileCheck %s --check-prefixes=CHECK,MODEL
// RUN: kgen-opt %s --split-input-file --verify-diagnostics --kgen-select-strategy="target=sm_90a db=%S/Inputs/synthetic-tuning-db.json" | FileCheck %s --check-prefixes=CHECK,DB
// RUN: kgen-opt %s --split-input-file --verify-diagnostics --kgen-select-strategy=target=sm_90a --kgen-lower-attention-to-tiles | FileCheck %s --check-prefix=LOWER
// RUN: kgen-opt %s --split-input-file --verify-diagnostics --kgen-select-strategy=target=sm_80 --kgen-lower-attention-to-tiles -o /dev/null
// RUN: kgen-opt %s --split-input-file --verify-diagnostics --kgen-select-strategy="target=sm_90a model=%S/Inputs/synthetic-cost-model.json" --kgen-lower-attention-to-tiles -o /dev/null

// Llama-3-8B prefill (Hq 32, Hkv 8, 4k tokens, causal): on sm_90a
// FlashAttention-3's 128 x 128 tiles on two ping-pong consumer warpgroups
// (wgmma), each key tile's softmax under the previous tile's P V; on sm_80 FA2's 64 x 64 tiles on 4
// warps, 2 stages; the row tiles x 32 heads fill the SMs: no split. The
// model takes the wgmma 128 x 128 tiles too (half the K/V tile traffic of
// 64-row tiles, ping-pong overlapping the softmax).
// CHECK-LABEL: func.func @llama3_8b_prefill
// SM90: config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 128, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = true, overlap_softmax = true, pack_gqa = false, split_kv = 1, source = default>
// SM80: config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = default>
// MODEL: config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 128, warps_m = 8, stages = 2, {{.*}} split_kv = 1, source = model, entry = "cost model {{.*}}synthetic-cost-model.json: {{[0-9.]+}} ms predicted">
// DB: block_m = 128, block_n = 128, warps_m = 8, {{.*}} source = model, entry = "cost model: {{[0-9.]+}} ms predicted">
// LOWER-LABEL: kgen.kernel @kgen_attention_bf16_h32x8_q4096_kv4096_d128_causal grid [1024, 1, 1] threads 384 smem 164920
// LOWER-LABEL: func.func @llama3_8b_prefill
// LOWER: kgen.launch @kgen_attention_bf16_h32x8_q4096_kv4096_d128_causal
func.func @llama3_8b_prefill(%q: tensor<1x32x4096x128xbf16>, %k: tensor<1x8x4096x128xbf16>,
                             %v: tensor<1x8x4096x128xbf16>) -> tensor<1x32x4096x128xbf16> {
  %o = kgen.attention %q, %k, %v {causal}
      : tensor<1x32x4096x128xbf16>, tensor<1x8x4096x128xbf16>, tensor<1x8x4096x128xbf16>
        -> tensor<1x32x4096x128xbf16>
  return %o : tensor<1x32x4096x128xbf16>
}

// -----

// Head dim 256: FA3's 128 x 80 on sm_90a; on sm_80 32 keys per step
// (Dp + block_n <= 288 accumulators).
// CHECK-LABEL: func.func @head_dim_256
// SM90: instruction = wgmma, block_m = 128, block_n = 80, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = true, overlap_softmax = true, pack_gqa = false, split_kv = 1, source = default>
// SM80: block_m = 64, block_n = 32, warps_m = 4, stages = 2, {{.*}} pack_gqa = false, split_kv = 1, source = default>
// MODEL: instruction = wgmma, block_m = 128, block_n = 64, {{.*}} source = model
// LOWER-LABEL: kgen.kernel @kgen_attention_bf16_h32x8_q4096_kv4096_d256_causal grid [1024, 1, 1] threads 384 smem 230456
func.func @head_dim_256(%q: tensor<1x32x4096x256xbf16>, %k: tensor<1x8x4096x256xbf16>,
                        %v: tensor<1x8x4096x256xbf16>) -> tensor<1x32x4096x256xbf16> {
  %o = kgen.attention %q, %k, %v {causal}
      : tensor<1x32x4096x256xbf16>, tensor<1x8x4096x256xbf16>, tensor<1x8x4096x256xbf16>
        -> tensor<1x32x4096x256xbf16>
  return %o : tensor<1x32x4096x256xbf16>
}

// -----

// Head dim 64, not causal, 2 sequences: FA3's 192 x 128 on three consumer
// warpgroups on sm_90a.
// CHECK-LABEL: func.func @head_dim_64
// SM90: instruction = wgmma, block_m = 192, block_n = 128, warps_m = 12, stages = 2, consumer_warpgroups = 3, ping_pong = false, overlap_softmax = true, pack_gqa = false, split_kv = 1, source = default>
// SM80: block_m = 64, block_n = 64, warps_m = 4, stages = 2, {{.*}} pack_gqa = false, split_kv = 1, source = default>
// MODEL: source = model
// LOWER-LABEL: kgen.kernel @kgen_attention_bf16_b2_h32x8_q4096_kv4096_d64 grid [1408, 1, 1] threads 512 smem 91192
func.func @head_dim_64(%q: tensor<2x32x4096x64xbf16>, %k: tensor<2x8x4096x64xbf16>,
                       %v: tensor<2x8x4096x64xbf16>) -> tensor<2x32x4096x64xbf16> {
  %o = kgen.attention %q, %k, %v
      : tensor<2x32x4096x64xbf16>, tensor<2x8x4096x64xbf16>, tensor<2x8x4096x64xbf16>
        -> tensor<2x32x4096x64xbf16>
  return %o : tensor<2x32x4096x64xbf16>
}

// -----

// Decode, batch 1 (Sq 1, 8k keys, kv_lens): the 4 query heads of a K/V
// head packed into one 16-row tile of one warp, 32 keys per step (one warp
// at Dp 128), and 8 blocks split over the keys until the resident blocks
// (6 per SM on sm_90a, 4 on sm_80: shared memory) are 85% busy.
// CHECK-LABEL: func.func @decode_b1
// SM90: block_m = 16, block_n = 32, warps_m = 1, stages = 2, {{.*}} pack_gqa = true, split_kv = 86, source = default>
// SM80: block_m = 16, block_n = 32, warps_m = 1, stages = 2, {{.*}} pack_gqa = true, split_kv = 52, source = default>
// MODEL: pack_gqa = true, split_kv = {{[0-9]+}}, source = model
// LOWER-LABEL: kgen.kernel @kgen_attention_bf16_h32x8_q1_kv8192_d128_causal grid [8, 1, 86] threads 32 smem 36864
// LOWER-SAME: param_names = ["q", "k", "v", "kv_lens", "o_partial", "lse_partial"]
// LOWER-LABEL: kgen.kernel @kgen_attention_bf16_h32x8_q1_kv8192_d128_causal_combine grid [8, 1, 1] threads 128
func.func @decode_b1(%q: tensor<1x32x1x128xbf16>, %k: tensor<1x8x8192x128xbf16>,
                     %v: tensor<1x8x8192x128xbf16>, %lens: tensor<1xi32>)
    -> (tensor<1x32x1x128xbf16>, tensor<1x32x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<1xi32>) {causal}
      : tensor<1x32x1x128xbf16>, tensor<1x8x8192x128xbf16>, tensor<1x8x8192x128xbf16>
        -> tensor<1x32x1x128xbf16>, tensor<1x32x1xf32>
  return %o, %lse : tensor<1x32x1x128xbf16>, tensor<1x32x1xf32>
}

// -----

// Decode, batch 64: 512 blocks; 3 splits fill the 792 resident blocks of
// sm_90a to 97%; on sm_80 (432) they are full already.
// CHECK-LABEL: func.func @decode_b64
// SM90: block_m = 16, block_n = 32, warps_m = 1, stages = 2, {{.*}} pack_gqa = true, split_kv = 3, source = default>
// SM80: block_m = 16, block_n = 32, warps_m = 1, stages = 2, {{.*}} pack_gqa = true, split_kv = 1, source = default>
// MODEL: pack_gqa = true, {{.*}} source = model
// LOWER-LABEL: kgen.kernel @kgen_attention_bf16_b64_h32x8_q1_kv8192_d128_causal grid [512, 1, 3] threads 32 smem 36864
// LOWER-LABEL: kgen.kernel @kgen_attention_bf16_b64_h32x8_q1_kv8192_d128_causal_combine grid [512, 1, 1]
func.func @decode_b64(%q: tensor<64x32x1x128xbf16>, %k: tensor<64x8x8192x128xbf16>,
                      %v: tensor<64x8x8192x128xbf16>, %lens: tensor<64xi32>) -> tensor<64x32x1x128xbf16> {
  %o = kgen.attention %q, %k, %v kv_lens(%lens : tensor<64xi32>) {causal}
      : tensor<64x32x1x128xbf16>, tensor<64x8x8192x128xbf16>, tensor<64x8x8192x128xbf16>
        -> tensor<64x32x1x128xbf16>
  return %o : tensor<64x32x1x128xbf16>
}

// -----

// A few queries per head (speculative decoding: Sq 7, G 8): 56 rows packed
// into one 64-row tile of 4 warps.
// CHECK-LABEL: func.func @decode_sq7
// SM90: block_m = 64, block_n = 64, warps_m = 4, stages = 2, {{.*}} pack_gqa = true, split_kv = {{[0-9]+}}, source = default>
func.func @decode_sq7(%q: tensor<1x64x7x128xf16>, %k: tensor<1x8x2048x128xf16>,
                      %v: tensor<1x8x2048x128xf16>) -> tensor<1x64x7x128xf16> {
  %o = kgen.attention %q, %k, %v {causal}
      : tensor<1x64x7x128xf16>, tensor<1x8x2048x128xf16>, tensor<1x8x2048x128xf16>
        -> tensor<1x64x7x128xf16>
  return %o : tensor<1x64x7x128xf16>
}

// -----

// f32 operands: no tensor-core family takes them; the op stays without a
// config (the reference path runs it) and the pass succeeds.
// CHECK-LABEL: func.func @f32
// CHECK-NOT: attention_config
// CHECK: return
// LOWER-LABEL: func.func @f32
// LOWER: kgen.attention
func.func @f32(%q: tensor<1x4x128x64xf32>, %k: tensor<1x4x128x64xf32>,
               %v: tensor<1x4x128x64xf32>) -> tensor<1x4x128x64xf32> {
  // expected-remark @+1 {{no kernel family lowers this attention on}}
  %o = kgen.attention %q, %k, %v
      : tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>
        -> tensor<1x4x128x64xf32>
  return %o : tensor<1x4x128x64xf32>
}

// -----

// A config written by hand is kept, with any option.
// CHECK-LABEL: func.func @hand_written
// CHECK: config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 3, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 2, source = user>
// LOWER-LABEL: kgen.kernel @kgen_attention_bf16_h8x2_q100_kv100_d64 grid [26, 1, 2] threads 64
func.func @hand_written(%q: tensor<1x8x100x64xbf16>, %k: tensor<1x2x100x64xbf16>,
                        %v: tensor<1x2x100x64xbf16>) -> tensor<1x8x100x64xbf16> {
  %o = kgen.attention %q, %k, %v {
      config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 3, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 2, source = user>}
      : tensor<1x8x100x64xbf16>, tensor<1x2x100x64xbf16>, tensor<1x2x100x64xbf16>
        -> tensor<1x8x100x64xbf16>
  return %o : tensor<1x8x100x64xbf16>
}

// -----

// A paged cache (pages of 16 keys): FA2's tiles on sm_90a too (wgmma's TMA
// boxes cannot gather a block table's pages), and the model keeps to
// mma_sync.
// CHECK-LABEL: func.func @paged_prefill
// SM90: instruction = mma_sync, block_m = 64, block_n = 64, warps_m = 4, stages = 2, {{.*}} source = default>
// MODEL: instruction = mma_sync, {{.*}} source = model
// LOWER-LABEL: kgen.kernel @kgen_attention_bf16_h32x8_q2048_kv2048_d128_causal_page16 grid [1024, 1, 1] threads 128
// LOWER: kgen.tile.load_paged
func.func @paged_prefill(%q: tensor<1x32x2048x128xbf16>, %k: tensor<200x8x16x128xbf16>,
                         %v: tensor<200x8x16x128xbf16>, %bt: tensor<1x128xi32>) -> tensor<1x32x2048x128xbf16> {
  %o = kgen.attention %q, %k, %v block_table(%bt : tensor<1x128xi32>) {causal}
      : tensor<1x32x2048x128xbf16>, tensor<200x8x16x128xbf16>, tensor<200x8x16x128xbf16>
        -> tensor<1x32x2048x128xbf16>
  return %o : tensor<1x32x2048x128xbf16>
}
