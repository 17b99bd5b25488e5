// The paged KV cache (kgen.attention's block_table: K and V as [N, Hkv, P,
// D] pages, sequence b's key j in page block_table[b, j / P]) as tile-level
// schedules on the CPU (kgen.tile.load_paged), against the reference
// semantics: pages of 1, 4, 8 and 16 keys, key tiles spanning pages and
// pages wider than a key tile, kv_lens, decode with packed GQA and split-KV,
// causal prefill, windows and softcap; the NHD pages (pages_nhd: [N, P,
// Hkv, D], FlashInfer's default and vLLM's layout) with split-KV, causal
// prefill and a varlen batch. Integer inputs (kv_lens, the block table) are
// drawn in [0, 16): every table entry names one of the 16 pages.
// RUN: %python %S/Inputs/check_tiled.py %s %t --pipeline=--kgen-lower-attention-to-tiles --tolerance=1e-2 | FileCheck %s
// CHECK-DAG: decode_page4_split: OK
// CHECK-DAG: prefill_page8_causal: OK
// CHECK-DAG: page1_no_lens: OK
// CHECK-DAG: page16_window: OK
// CHECK-DAG: nhd_decode_page4_split: OK
// CHECK-DAG: nhd_prefill_page8_causal: OK
// CHECK-DAG: nhd_varlen_page2: OK

// Decode: pages of 4 keys, packed GQA, split-KV, kv_lens (up to 4 of the 6 pages).
func.func @decode_page4_split(%q: tensor<2x8x1x64xbf16>, %k: tensor<16x2x4x64xbf16>, %v: tensor<16x2x4x64xbf16>, %lens: tensor<2xi32>, %bt: tensor<2x6xi32>)
    -> (tensor<2x8x1x64xbf16>, tensor<2x8x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) block_table(%bt : tensor<2x6xi32>) {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 2, source = user>}
      : tensor<2x8x1x64xbf16>, tensor<16x2x4x64xbf16>, tensor<16x2x4x64xbf16> -> tensor<2x8x1x64xbf16>, tensor<2x8x1xf32>
  return %o, %lse : tensor<2x8x1x64xbf16>, tensor<2x8x1xf32>
}

// Prefill, causal, pages of 8 keys, kv_lens: key tiles of 16 span two pages.
func.func @prefill_page8_causal(%q: tensor<2x2x13x32xbf16>, %k: tensor<16x1x8x32xbf16>, %v: tensor<16x1x8x32xbf16>, %lens: tensor<2xi32>, %bt: tensor<2x3xi32>)
    -> (tensor<2x2x13x32xbf16>, tensor<2x2x13xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) block_table(%bt : tensor<2x3xi32>) {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<2x2x13x32xbf16>, tensor<16x1x8x32xbf16>, tensor<16x1x8x32xbf16> -> tensor<2x2x13x32xbf16>, tensor<2x2x13xf32>
  return %o, %lse : tensor<2x2x13x32xbf16>, tensor<2x2x13xf32>
}

// Pages of one key (every key its own page), no kv_lens: every entry read.
func.func @page1_no_lens(%q: tensor<1x4x9x64xbf16>, %k: tensor<16x2x1x64xbf16>, %v: tensor<16x2x1x64xbf16>, %bt: tensor<1x20xi32>)
    -> (tensor<1x4x9x64xbf16>, tensor<1x4x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v block_table(%bt : tensor<1x20xi32>) {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 32, warps_m = 2, stages = 3, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x4x9x64xbf16>, tensor<16x2x1x64xbf16>, tensor<16x2x1x64xbf16> -> tensor<1x4x9x64xbf16>, tensor<1x4x9xf32>
  return %o, %lse : tensor<1x4x9x64xbf16>, tensor<1x4x9xf32>
}

// Pages of 16 keys, wider than the key tile (16 keys), a sliding window and softcap.
func.func @page16_window(%q: tensor<2x2x20x64xbf16>, %k: tensor<16x2x16x64xbf16>, %v: tensor<16x2x16x64xbf16>, %bt: tensor<2x2xi32>)
    -> (tensor<2x2x20x64xbf16>, tensor<2x2x20xf32>) {
  %o, %lse = kgen.attention %q, %k, %v block_table(%bt : tensor<2x2xi32>) {causal, sliding_window = 9, softcap = 5.0 : f32, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 1, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<2x2x20x64xbf16>, tensor<16x2x16x64xbf16>, tensor<16x2x16x64xbf16> -> tensor<2x2x20x64xbf16>, tensor<2x2x20xf32>
  return %o, %lse : tensor<2x2x20x64xbf16>, tensor<2x2x20xf32>
}

// NHD pages ([N, P, Hkv, D]): the decode above.
func.func @nhd_decode_page4_split(%q: tensor<2x8x1x64xbf16>, %k: tensor<16x4x2x64xbf16>, %v: tensor<16x4x2x64xbf16>, %lens: tensor<2xi32>, %bt: tensor<2x6xi32>)
    -> (tensor<2x8x1x64xbf16>, tensor<2x8x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) block_table(%bt : tensor<2x6xi32>) {pages_nhd, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 2, source = user>}
      : tensor<2x8x1x64xbf16>, tensor<16x4x2x64xbf16>, tensor<16x4x2x64xbf16> -> tensor<2x8x1x64xbf16>, tensor<2x8x1xf32>
  return %o, %lse : tensor<2x8x1x64xbf16>, tensor<2x8x1xf32>
}

// NHD pages of 8 keys, three K/V heads, causal prefill with kv_lens.
func.func @nhd_prefill_page8_causal(%q: tensor<2x6x13x32xf16>, %k: tensor<16x8x3x32xf16>, %v: tensor<16x8x3x32xf16>, %lens: tensor<2xi32>, %bt: tensor<2x3xi32>)
    -> (tensor<2x6x13x32xf16>, tensor<2x6x13xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) block_table(%bt : tensor<2x3xi32>) {causal, pages_nhd, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<2x6x13x32xf16>, tensor<16x8x3x32xf16>, tensor<16x8x3x32xf16> -> tensor<2x6x13x32xf16>, tensor<2x6x13xf32>
  return %o, %lse : tensor<2x6x13x32xf16>, tensor<2x6x13xf32>
}

// A varlen batch over NHD pages of 2 keys (the offsets constants).
func.func @nhd_varlen_page2(%q: tensor<19x4x64xbf16>, %k: tensor<16x2x2x64xbf16>, %v: tensor<16x2x2x64xbf16>, %bt: tensor<2x8xi32>)
    -> tensor<19x4x64xbf16> {
  %cq = arith.constant dense<[0, 12, 19]> : tensor<3xi32>
  %ck = arith.constant dense<[0, 15, 23]> : tensor<3xi32>
  %o = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<3xi32>, tensor<3xi32>) block_table(%bt : tensor<2x8xi32>) {causal, pages_nhd, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<19x4x64xbf16>, tensor<16x2x2x64xbf16>, tensor<16x2x2x64xbf16> -> tensor<19x4x64xbf16>
  return %o : tensor<19x4x64xbf16>
}
