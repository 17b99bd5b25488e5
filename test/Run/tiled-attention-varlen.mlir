// Variable-length batches (kgen.attention's cu_seqlens: token-major Q [Tq,
// Hq, D], K and V [Tk, Hkv, D], the LSE [Hq, Tq]) as tile-level schedules
// on the CPU (kgen.tile.sequence_tile finding each block's sequence), against
// the reference semantics: an empty sequence, one-token sequences beside a
// long one, a sequence with no key, causal bottom-right per sequence, local
// windows with softcap and ALiBi, GQA, an e4m3 cache, and row tiles that
// straddle no sequence boundary; over a paged cache (a block table: K and
// V pages, cu_seqlens_k counting keys only; vLLM's chunked prefill with
// prefill and decode sequences in one batch, shuffled pages, -1 padding
// past each sequence's pages, a last page partly used). The offsets and
// tables are constants of each function (kgen-run's random integers would
// not be offsets).
// RUN: %python %S/Inputs/check_tiled.py %s %t --pipeline=--kgen-lower-attention-to-tiles --tolerance=1e-2 | FileCheck %s
// CHECK-DAG: varlen_causal_lse: OK
// CHECK-DAG: varlen_window_alibi: OK
// CHECK-DAG: varlen_e4m3_cache: OK
// CHECK-DAG: varlen_one_sequence: OK
// CHECK-DAG: varlen_paged_chunked_prefill: OK
// CHECK-DAG: varlen_paged_e4m3_window: OK

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

// A chunked-prefill batch over a paged cache (pages of 8 keys, 5 per
// sequence at most): a 20-token prefill chunk over 35 keys, two decode
// tokens over 9 and 40 keys (a full table), a sequence with no query;
// cu_seqlens_k's values index no K rows (its differences count keys).
func.func @varlen_paged_chunked_prefill(%q: tensor<22x8x64xbf16>, %k: tensor<16x2x8x64xbf16>, %v: tensor<16x2x8x64xbf16>)
    -> (tensor<22x8x64xbf16>, tensor<8x22xf32>) {
  %cq = arith.constant dense<[0, 20, 21, 22, 22]> : tensor<5xi32>
  %ck = arith.constant dense<[0, 35, 44, 84, 90]> : tensor<5xi32>
  %bt = arith.constant dense<[[7, 2, 11, 0, 5], [9, 14, -1, -1, -1], [1, 3, 4, 6, 8], [10, -1, -1, -1, -1]]> : tensor<4x5xi32>
  %o, %lse = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<5xi32>, tensor<5xi32>) block_table(%bt : tensor<4x5xi32>) {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<22x8x64xbf16>, tensor<16x2x8x64xbf16>, tensor<16x2x8x64xbf16> -> tensor<22x8x64xbf16>, tensor<8x22xf32>
  return %o, %lse : tensor<22x8x64xbf16>, tensor<8x22xf32>
}

// bf16 queries over an e4m3 paged cache with descales (pages of 3 keys: a
// key tile spans pages), a local window, sm_90a, 32-row tiles.
func.func @varlen_paged_e4m3_window(%q: tensor<41x4x64xbf16>, %k: tensor<12x1x3x64xf8E4M3FN>, %v: tensor<12x1x3x64xf8E4M3FN>, %dk: tensor<1xf32>, %dv: tensor<1xf32>)
    -> tensor<41x4x64xbf16> {
  %cq = arith.constant dense<[0, 33, 41]> : tensor<3xi32>
  %ck = arith.constant dense<[0, 17, 35]> : tensor<3xi32>
  %bt = arith.constant dense<[[4, 9, 0, 11, 2, 7], [1, 10, 5, 3, 8, 6]]> : tensor<2x6xi32>
  %o = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<3xi32>, tensor<3xi32>) block_table(%bt : tensor<2x6xi32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {window_left = 6, window_right = 3, config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<41x4x64xbf16>, tensor<12x1x3x64xf8E4M3FN>, tensor<12x1x3x64xf8E4M3FN> -> tensor<41x4x64xbf16>
  return %o : tensor<41x4x64xbf16>
}
