// e4m3 operands as tile-level schedules on the CPU, against the reference
// semantics: an e4m3 KV cache read by bf16 and f16 queries (vLLM's fp8 KV
// cache) and e4m3 Q, K and V (widened to f16), each with its per-tensor
// descale factors (the logits' scale * dq * dk, the output's dv). The
// e4m3 stages are widened tile by tile (kgen.tile.widen) before the 16-bit
// MMAs: decode with packed GQA, split-KV and a paged cache, causal prefill,
// a window with softcap and ALiBi, a head dim whose e4m3 rows are not whole
// 16-byte chunks (40), and descales left out (1).
// RUN: %python %S/Inputs/check_tiled.py %s %t --pipeline=--kgen-lower-attention-to-tiles --tolerance=1e-2 | FileCheck %s
// CHECK-DAG: decode_kv_e4m3_split: OK
// CHECK-DAG: decode_kv_e4m3_paged: OK
// CHECK-DAG: prefill_all_e4m3_causal: OK
// CHECK-DAG: f16_kv_e4m3_window: OK
// CHECK-DAG: kv_e4m3_d40_no_descale: OK

// Decode: bf16 queries, e4m3 cache, packed GQA, split-KV, kv_lens.
func.func @decode_kv_e4m3_split(%q: tensor<2x8x1x64xbf16>, %k: tensor<2x2x70x64xf8E4M3FN>, %v: tensor<2x2x70x64xf8E4M3FN>, %lens: tensor<2xi32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>)
    -> (tensor<2x8x1x64xbf16>, tensor<2x8x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 3, source = user>}
      : tensor<2x8x1x64xbf16>, tensor<2x2x70x64xf8E4M3FN>, tensor<2x2x70x64xf8E4M3FN> -> tensor<2x8x1x64xbf16>, tensor<2x8x1xf32>
  return %o, %lse : tensor<2x8x1x64xbf16>, tensor<2x8x1xf32>
}

// Decode from a paged e4m3 cache (pages of 4 keys, tiles of 16 span four).
func.func @decode_kv_e4m3_paged(%q: tensor<2x4x1x32xbf16>, %k: tensor<16x1x4x32xf8E4M3FN>, %v: tensor<16x1x4x32xf8E4M3FN>, %lens: tensor<2xi32>, %bt: tensor<2x6xi32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>)
    -> tensor<2x4x1x32xbf16> {
  %o = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) block_table(%bt : tensor<2x6xi32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<2x4x1x32xbf16>, tensor<16x1x4x32xf8E4M3FN>, tensor<16x1x4x32xf8E4M3FN> -> tensor<2x4x1x32xbf16>
  return %o : tensor<2x4x1x32xbf16>
}

// Prefill: e4m3 Q, K and V (f16 MMAs), causal, all three descales, f32 out.
func.func @prefill_all_e4m3_causal(%q: tensor<1x2x37x64xf8E4M3FN>, %k: tensor<1x2x45x64xf8E4M3FN>, %v: tensor<1x2x45x64xf8E4M3FN>, %dq: tensor<1xf32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>)
    -> (tensor<1x2x37x64xf32>, tensor<1x2x37xf32>) {
  %o, %lse = kgen.attention %q, %k, %v q_descale(%dq : tensor<1xf32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {causal, config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 3, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x2x37x64xf8E4M3FN>, tensor<1x2x45x64xf8E4M3FN>, tensor<1x2x45x64xf8E4M3FN> -> tensor<1x2x37x64xf32>, tensor<1x2x37xf32>
  return %o, %lse : tensor<1x2x37x64xf32>, tensor<1x2x37xf32>
}

// f16 queries, e4m3 cache, a local window, softcap and ALiBi.
func.func @f16_kv_e4m3_window(%q: tensor<1x4x19x48xf16>, %k: tensor<1x2x33x48xf8E4M3FN>, %v: tensor<1x2x33x48xf8E4M3FN>, %slopes: tensor<4xf32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>)
    -> tensor<1x4x19x48xf16> {
  %o = kgen.attention %q, %k, %v alibi(%slopes : tensor<4xf32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {window_left = 6, window_right = 3, softcap = 20.0 : f32, config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 32, warps_m = 1, stages = 1, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x4x19x48xf16>, tensor<1x2x33x48xf8E4M3FN>, tensor<1x2x33x48xf8E4M3FN> -> tensor<1x4x19x48xf16>
  return %o : tensor<1x4x19x48xf16>
}

// Head dim 40: 40-byte e4m3 rows (tiles of 48 columns); no descales.
func.func @kv_e4m3_d40_no_descale(%q: tensor<1x2x5x40xbf16>, %k: tensor<1x1x29x40xf8E4M3FN>, %v: tensor<1x1x29x40xf8E4M3FN>)
    -> tensor<1x2x5x40xbf16> {
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x5x40xbf16>, tensor<1x1x29x40xf8E4M3FN>, tensor<1x1x29x40xf8E4M3FN> -> tensor<1x2x5x40xbf16>
  return %o : tensor<1x2x5x40xbf16>
}
