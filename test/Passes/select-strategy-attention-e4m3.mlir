// kgen-select-strategy on e4m3 attention: on sm_90a FA2's tiles (mma_sync,
// the e4m3 tiles widened in shared memory; wgmma refuses e4m3 operands),
// by the heuristic and by the cost model; on sm_80, which cannot widen
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

// An all-e4m3 causal prefill (FA3's FP8 inputs): not FA3's wgmma tiles,
// FA2's on mma_sync.
// SM90-LABEL: func.func @prefill_e4m3
// SM90: instruction = mma_sync, {{.*}} consumer_warpgroups = 1, {{.*}} source = default
// MODEL-LABEL: func.func @prefill_e4m3
// MODEL: instruction = mma_sync, {{.*}} source = model
// LOWER: kgen.kernel @kgen_attention_f8E4M3FN_h32x8_q2048_kv2048_d128_causal
// SM80-LABEL: func.func @prefill_e4m3
// SM80-NOT: config
func.func @prefill_e4m3(%q: tensor<1x32x2048x128xf8E4M3FN>, %k: tensor<1x8x2048x128xf8E4M3FN>, %v: tensor<1x8x2048x128xf8E4M3FN>, %dq: tensor<1xf32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>) -> tensor<1x32x2048x128xbf16> {
  // expected-remark @+1 {{no kernel family lowers this attention on sm_80}}
  %o = kgen.attention %q, %k, %v q_descale(%dq : tensor<1xf32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {causal} : tensor<1x32x2048x128xf8E4M3FN>, tensor<1x8x2048x128xf8E4M3FN>, tensor<1x8x2048x128xf8E4M3FN> -> tensor<1x32x2048x128xbf16>
  return %o : tensor<1x32x2048x128xbf16>
}
