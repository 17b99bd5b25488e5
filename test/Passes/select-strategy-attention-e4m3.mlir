// kgen-select-strategy on e4m3 attention: on sm_90a an e4m3 cache under
// bf16 queries takes FA2's tiles (mma_sync, the e4m3 tiles widened in
// shared memory), an all-e4m3 prefill FA3's FP8 path (wgmma), by the
// heuristic and by the cost model; on sm_80, which cannot widen
// e4m3 (cvt.rn.f16x2.e4m3x2 is sm_89+), no config and a remark. Every
// chosen config lowers (the LOWER run).
// RUN: kgen-opt %s --split-input-file --kgen-select-strategy=target=sm_90a | FileCheck %s --check-prefix=SM90
// RUN: kgen-opt %s --split-input-file --kgen-select-strategy="target=sm_90a model=%S/Inputs/synthetic-cost-model.json" | FileCheck %s --check-prefix=MODEL
// RUN: kgen-opt %s --split-input-file --kgen-select-strategy=target=sm_90a --kgen-lower-attention-to-tiles | FileCheck %s --check-prefix=LOWER
// RUN: kgen-opt %s --split-input-file --verify-diagnostics --kgen-select-strategy=target=sm_80 | FileCheck %s --check-prefix=SM80

// Llama-3-8B decode from an e4m3 cache (64 sequences, 8k keys): packed GQA
// 16-row tiles, split over the key range.
// SM90-LABEL: func.func @decode_kv_e4m3
// SM90: instruction = mma_sync, block_m = 16, {{.*}} pack_gqa = true, split_kv = {{[0-9]+}}, source = default
// MODEL-LABEL: func.func @decode_kv_e4m3
// MODEL: instruction = mma_sync, {{.*}} source = model
// LOWER: kgen.kernel @kgen_attention_bf16_kvf8E4M3FN_b64_h32x8_q1_kv8192_d128
// LOWER: kgen.tile.widen
// SM80-LABEL: func.func @decode_kv_e4m3
// SM80-NOT: config
func.func @decode_kv_e4m3(%q: tensor<64x32x1x128xbf16>, %k: tensor<64x8x8192x128xf8E4M3FN>, %v: tensor<64x8x8192x128xf8E4M3FN>, %dk: tensor<1xf32>, %dv: tensor<1xf32>) -> tensor<64x32x1x128xbf16> {
  // expected-remark @+1 {{no kernel family lowers this attention on sm_80 (attention_config 'instruction': e4m3 operands are widened by cvt.rn.f16x2.e4m3x2 (sm_89 and later): target sm_90a)}}
  %o = kgen.attention %q, %k, %v k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) : tensor<64x32x1x128xbf16>, tensor<64x8x8192x128xf8E4M3FN>, tensor<64x8x8192x128xf8E4M3FN> -> tensor<64x32x1x128xbf16>
  return %o : tensor<64x32x1x128xbf16>
}

// -----

// An all-e4m3 causal prefill (FA3's FP8 inputs): FA3's FP8 schedule on
// wgmma (two consumer warpgroups of 64 rows, 128-key tiles, k32 wgmmas, no
// widening), by the heuristic and by the cost model (FP8 at twice the
// 16-bit rate).
// SM90-LABEL: func.func @prefill_e4m3
// SM90: instruction = wgmma, block_m = 128, block_n = 128, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = true, overlap_softmax = true, {{.*}} source = default
// MODEL-LABEL: func.func @prefill_e4m3
// MODEL: instruction = wgmma, {{.*}} source = model
// LOWER: kgen.kernel @kgen_attention_f8E4M3FN_h32x8_q2048_kv2048_d128_causal
// LOWER-NOT: kgen.tile.widen
// LOWER: kgen.tile.qk {{.*}} : memref<1x128x128xf8E4M3FN, 3>, memref<2x128x128xf8E4M3FN, 3>
// LOWER: kgen.tile.pv {{.*}} : memref<128x128xf32, 5>, memref<2x128x128xf8E4M3FN, 3>
// SM80-LABEL: func.func @prefill_e4m3
// SM80-NOT: config
func.func @prefill_e4m3(%q: tensor<1x32x2048x128xf8E4M3FN>, %k: tensor<1x8x2048x128xf8E4M3FN>, %v: tensor<1x8x2048x128xf8E4M3FN>, %dq: tensor<1xf32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>) -> tensor<1x32x2048x128xbf16> {
  // expected-remark @+1 {{no kernel family lowers this attention on sm_80}}
  %o = kgen.attention %q, %k, %v q_descale(%dq : tensor<1xf32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {causal} : tensor<1x32x2048x128xf8E4M3FN>, tensor<1x8x2048x128xf8E4M3FN>, tensor<1x8x2048x128xf8E4M3FN> -> tensor<1x32x2048x128xbf16>
  return %o : tensor<1x32x2048x128xbf16>
}
