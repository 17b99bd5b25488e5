// Variable-length batches (kgen.attention's cu_seqlens: token-major Q [Tq,
// Hq, D], K and V [Tk, Hkv, D], the LSE [Hq, Tq]) as tile-level schedules
// on the CPU (kgen.tile.sequence_tile finding each block's sequence), against
// the reference semantics: an empty sequence, one-token sequences beside a
// long one, a sequence with no key, causal bottom-right per sequence, local
// windows with softcap and ALiBi, GQA, an e4m3 cache, and row tiles that
// straddle no sequence boundary. The offsets are constants of each function
// (kgen-run's random integers would not be offsets).
// RUN: %python %S/Inputs/check_tiled.py %s %t --pipeline=--kgen-lower-attention-to-tiles --tolerance=1e-2 | FileCheck %s
// CHECK-DAG: varlen_causal_lse: OK
// CHECK-DAG: varlen_window_alibi: OK
// CHECK-DAG: varlen_e4m3_cache: OK
// CHECK-DAG: varlen_one_sequence: OK

// Three sequences (13, 0 and 27 queries; 20, 7 and 23 keys), causal, GQA 4, the LSE.
func.func @varlen_causal_lse(%q: tensor<40x8x64xbf16>, %k: tensor<50x2x64xbf16>, %v: tensor<50x2x64xbf16>)
    -> (tensor<40x8x64xbf16>, tensor<8x40xf32>) {
  %cq = arith.constant dense<[0, 13, 13, 40]> : tensor<4xi32>
  %ck = arith.constant dense<[0, 20, 27, 50]> : tensor<4xi32>
  %o, %lse = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<4xi32>, tensor<4xi32>) {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<40x8x64xbf16>, tensor<50x2x64xbf16>, tensor<50x2x64xbf16> -> tensor<40x8x64xbf16>, tensor<8x40xf32>
  return %o, %lse : tensor<40x8x64xbf16>, tensor<8x40xf32>
}

// Decode-like one-token sequences beside a long one, a sequence with no
// key; a local window, softcap and ALiBi; f16, 32-row tiles on two warps.
func.func @varlen_window_alibi(%q: tensor<33x4x48xf16>, %k: tensor<29x4x48xf16>, %v: tensor<29x4x48xf16>, %slopes: tensor<4xf32>)
    -> tensor<33x4x48xf16> {
  %cq = arith.constant dense<[0, 1, 2, 33]> : tensor<4xi32>
  %ck = arith.constant dense<[0, 10, 10, 29]> : tensor<4xi32>
  %o = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<4xi32>, tensor<4xi32>) alibi(%slopes : tensor<4xf32>) {window_left = 5, window_right = 2, softcap = 20.0 : f32, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 3, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<33x4x48xf16>, tensor<29x4x48xf16>, tensor<29x4x48xf16> -> tensor<33x4x48xf16>
  return %o : tensor<33x4x48xf16>
}

// bf16 queries reading an e4m3 cache with descales, causal, sm_90a.
func.func @varlen_e4m3_cache(%q: tensor<21x4x64xbf16>, %k: tensor<45x1x64xf8E4M3FN>, %v: tensor<45x1x64xf8E4M3FN>, %dk: tensor<1xf32>, %dv: tensor<1xf32>)
    -> tensor<21x4x64xbf16> {
  %cq = arith.constant dense<[0, 4, 21]> : tensor<3xi32>
  %ck = arith.constant dense<[0, 30, 45]> : tensor<3xi32>
  %o = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<3xi32>, tensor<3xi32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {causal, config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 32, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<21x4x64xbf16>, tensor<45x1x64xf8E4M3FN>, tensor<45x1x64xf8E4M3FN> -> tensor<21x4x64xbf16>
  return %o : tensor<21x4x64xbf16>
}

// One sequence: the padded layout's attention, token-major.
func.func @varlen_one_sequence(%q: tensor<37x2x128xbf16>, %k: tensor<37x2x128xbf16>, %v: tensor<37x2x128xbf16>)
    -> (tensor<37x2x128xbf16>, tensor<2x37xf32>) {
  %cq = arith.constant dense<[0, 37]> : tensor<2xi32>
  %ck = arith.constant dense<[0, 37]> : tensor<2xi32>
  %o, %lse = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<2xi32>, tensor<2xi32>) {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 32, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<37x2x128xbf16>, tensor<37x2x128xbf16>, tensor<37x2x128xbf16> -> tensor<37x2x128xbf16>, tensor<2x37xf32>
  return %o, %lse : tensor<37x2x128xbf16>, tensor<2x37xf32>
}
