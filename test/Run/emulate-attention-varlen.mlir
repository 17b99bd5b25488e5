// Variable-length batches (kgen.attention's cu_seqlens) on the emulated
// device: each block finds its sequence (kgen.tile.sequence_tile,
// Attention.cuh's sequence_tile) and reads and writes token-major [T, H,
// D] rows, the LSE head-major [Hq, Tq]; against the runtime's double-
// precision reference (its seeded offsets: uneven lengths, an empty
// sequence or a long one) and then the op's reference semantics (kgen-run,
// on the same offsets). Causal prefill with GQA and the LSE, windows with
// ALiBi and softcap on f16, an e4m3 cache on sm_90a; over a paged cache
// (a block table, cu_seqlens_k counting keys: vLLM's chunked prefill), bf16
// and an e4m3 cache. Mutations that must be caught follow.
// RUN: rm -rf %t && %python %S/Inputs/check_emulated.py %s %t --tolerance=1e-2 --jobs=2 | FileCheck %s
// CHECK-DAG: varlen_causal_lse: mma_sync emulated ok, reference OK
// CHECK-DAG: varlen_window_alibi: mma_sync emulated ok, reference OK
// CHECK-DAG: varlen_e4m3_cache: mma_sync emulated ok, reference OK
// CHECK-DAG: varlen_paged_causal: mma_sync emulated ok, reference OK
// CHECK-DAG: varlen_paged_e4m3: mma_sync emulated ok, reference OK
//
// Mutations of varlen_causal_lse's kernel: every block takes sequence 0
// (a wrong result); the keys read from the queries' offsets (a wrong
// result).
// RUN: rm -rf %t.m && mkdir -p %t.m
// RUN: cp -r %t/varlen_causal_lse/pkg/kgen_attention_bf16_varlen_b3_h8x2_q77_kv90_d64_causal %t.m/pkg
// RUN: sed -E 's|cu_seqlens_k\[seq_tile.seq\]|cu_seqlens_q[seq_tile.seq]|' %t.m/pkg/kernel.cu > %t.m/koffset.cu
// RUN: not diff -q %t.m/pkg/kernel.cu %t.m/koffset.cu
// RUN: not kgen-emulate %t.m/pkg --source %t.m/koffset.cu 2>&1 | FileCheck %s --check-prefix=WRONG
// WRONG: mma_sync emulated WRONG
// RUN: sed -E 's|return \{b, \(tile - first\) \* BlockM, 1\};|return {0, (tile - first) * BlockM, 1};|' %t.m/pkg/kernel.cu > %t.m/seq0.cu
// RUN: not diff -q %t.m/pkg/kernel.cu %t.m/seq0.cu
// RUN: not kgen-emulate %t.m/pkg --source %t.m/seq0.cu 2>&1 | FileCheck %s --check-prefix=WRONG
// Over pages: every sequence reading the first sequence's row of the block
// table (a wrong result; under seed 4, whose draw gives two sequences
// queries and keys: the default seed's gives them to sequence 0 alone).
// RUN: cp -r %t/varlen_paged_causal/pkg/kgen_attention_bf16_varlen_b3_h8x2_q77_kv64_d64_causal_page16 %t.m/paged
// RUN: sed -E 's|block_table \+ seq_tile.seq \* 4|block_table|' %t.m/paged/kernel.cu > %t.m/table0.cu
// RUN: not diff -q %t.m/paged/kernel.cu %t.m/table0.cu
// RUN: not kgen-emulate --seed 4 %t.m/paged --source %t.m/table0.cu 2>&1 | FileCheck %s --check-prefix=WRONG

// Three sequences of 77 query and 90 key tokens, causal, GQA 4, the LSE.
func.func @varlen_causal_lse(%q: tensor<77x8x64xbf16>, %k: tensor<90x2x64xbf16>, %v: tensor<90x2x64xbf16>, %cq: tensor<4xi32>, %ck: tensor<4xi32>)
    -> (tensor<77x8x64xbf16>, tensor<8x77xf32>) {
  %o, %lse = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<4xi32>, tensor<4xi32>) {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<77x8x64xbf16>, tensor<90x2x64xbf16>, tensor<90x2x64xbf16> -> tensor<77x8x64xbf16>, tensor<8x77xf32>
  return %o, %lse : tensor<77x8x64xbf16>, tensor<8x77xf32>
}

// Five sequences, f16, a local window, softcap and ALiBi, 32-row tiles on two warps, 3 stages.
func.func @varlen_window_alibi(%q: tensor<60x4x48xf16>, %k: tensor<70x4x48xf16>, %v: tensor<70x4x48xf16>, %cq: tensor<6xi32>, %ck: tensor<6xi32>, %slopes: tensor<4xf32>)
    -> tensor<60x4x48xf16> {
  %o = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<6xi32>, tensor<6xi32>) alibi(%slopes : tensor<4xf32>) {window_left = 7, window_right = 3, softcap = 20.0 : f32, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 3, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<60x4x48xf16>, tensor<70x4x48xf16>, tensor<70x4x48xf16> -> tensor<60x4x48xf16>
  return %o : tensor<60x4x48xf16>
}

// bf16 queries, an e4m3 cache with descales, causal, sm_90a.
func.func @varlen_e4m3_cache(%q: tensor<30x4x64xbf16>, %k: tensor<64x1x64xf8E4M3FN>, %v: tensor<64x1x64xf8E4M3FN>, %cq: tensor<3xi32>, %ck: tensor<3xi32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>)
    -> tensor<30x4x64xbf16> {
  %o = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<3xi32>, tensor<3xi32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {causal, config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 32, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<30x4x64xbf16>, tensor<64x1x64xf8E4M3FN>, tensor<64x1x64xf8E4M3FN> -> tensor<30x4x64xbf16>
  return %o : tensor<30x4x64xbf16>
}

// Three sequences of 77 query tokens over a paged cache (pages of 16 keys,
// 4 per sequence: up to 64 keys each), causal, GQA 4, the LSE.
func.func @varlen_paged_causal(%q: tensor<77x8x64xbf16>, %k: tensor<12x2x16x64xbf16>, %v: tensor<12x2x16x64xbf16>, %cq: tensor<4xi32>, %ck: tensor<4xi32>, %bt: tensor<3x4xi32>)
    -> (tensor<77x8x64xbf16>, tensor<8x77xf32>) {
  %o, %lse = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<4xi32>, tensor<4xi32>) block_table(%bt : tensor<3x4xi32>) {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<77x8x64xbf16>, tensor<12x2x16x64xbf16>, tensor<12x2x16x64xbf16> -> tensor<77x8x64xbf16>, tensor<8x77xf32>
  return %o, %lse : tensor<77x8x64xbf16>, tensor<8x77xf32>
}

// bf16 queries over an e4m3 paged cache (pages of 8 keys: key tiles of 32
// span pages) with descales, a local window, sm_90a.
func.func @varlen_paged_e4m3(%q: tensor<50x4x64xbf16>, %k: tensor<24x1x8x64xf8E4M3FN>, %v: tensor<24x1x8x64xf8E4M3FN>, %cq: tensor<5xi32>, %ck: tensor<5xi32>, %bt: tensor<4x6xi32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>)
    -> tensor<50x4x64xbf16> {
  %o = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<5xi32>, tensor<5xi32>) block_table(%bt : tensor<4x6xi32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {window_left = 9, window_right = 4, config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 32, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<50x4x64xbf16>, tensor<24x1x8x64xf8E4M3FN>, tensor<24x1x8x64xf8E4M3FN> -> tensor<50x4x64xbf16>
  return %o : tensor<50x4x64xbf16>
}
