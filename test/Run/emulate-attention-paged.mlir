// The paged KV cache (kgen.attention's block_table; kgen.tile.load_paged,
// kgen/block/Attention.cuh's load_paged_box) on the emulated device,
// against the runtime's double-precision reference (which reads K and V
// through the same table) and then the op's reference semantics (kgen-run):
// decode with split-KV and prefill, pages of 1, 4 and 16 keys, and NHD
// pages (pages_nhd: [N, P, Hkv, D], FlashInfer's default, vLLM's). The
// runtime's block tables name distinct pages shuffled across the sequences
// and pad the entries of keys past kv_lens with -1, as a serving engine
// does. Mutations that must be caught follow.
// RUN: rm -rf %t && %python %S/Inputs/check_emulated.py %s %t --tolerance=1e-2 --jobs=2 | FileCheck %s
// CHECK-DAG: decode_page4_split: mma_sync emulated ok, reference OK
// CHECK-DAG: prefill_page16_causal: mma_sync emulated ok, reference OK
// CHECK-DAG: sm90a_page1_window: mma_sync emulated ok, reference OK
// CHECK-DAG: nhd_decode_page8_split: mma_sync emulated ok, reference OK
// CHECK-DAG: nhd_prefill_page16_causal: mma_sync emulated ok, reference OK
//
// Mutations of decode_page4_split's main kernel: every sequence reads the
// first sequence's pages (a wrong result); keys past kv_len loaded through
// their -1 padding entries (an out-of-bounds read).
// RUN: rm -rf %t.m && mkdir -p %t.m
// RUN: sed 's|block_table + b \* 10|block_table|g' %t/decode_page4_split/pkg/kgen_attention_bf16_b3_h8x2_q1_kv40_d64_page4/kernel.cu > %t.m/onetable.cu
// RUN: grep -q 'hk, block_table, ' %t.m/onetable.cu
// RUN: not kgen-emulate %t/decode_page4_split/pkg/kgen_attention_bf16_b3_h8x2_q1_kv40_d64_page4 --source %t.m/onetable.cu 2>&1 | FileCheck %s --check-prefix=WRONG
// WRONG: mma_sync emulated WRONG
// RUN: sed 's|const int n = j < rows ?|const int n = j < rows + 8 ?|' %t/decode_page4_split/pkg/kgen_attention_bf16_b3_h8x2_q1_kv40_d64_page4/kernel.cu > %t.m/padding.cu
// RUN: grep -q 'j < rows + 8' %t.m/padding.cu
// RUN: not kgen-emulate %t/decode_page4_split/pkg/kgen_attention_bf16_b3_h8x2_q1_kv40_d64_page4 --source %t.m/padding.cu 2>&1 | FileCheck %s --check-prefix=PADDING
// PADDING: global access {{.*}} outside every tensor of the launch
// NHD pages read in the HND order (a wrong result).
// RUN: sed 's|load_paged_box<16, 64, 32, true>|load_paged_box<16, 64, 32>|g' %t/nhd_decode_page8_split/pkg/kgen_attention_bf16_b3_h8x2_q1_kv80_d64_page8_nhd/kernel.cu > %t.m/hnd.cu
// RUN: not diff -q %t/nhd_decode_page8_split/pkg/kgen_attention_bf16_b3_h8x2_q1_kv80_d64_page8_nhd/kernel.cu %t.m/hnd.cu
// RUN: not kgen-emulate %t/nhd_decode_page8_split/pkg/kgen_attention_bf16_b3_h8x2_q1_kv80_d64_page8_nhd --source %t.m/hnd.cu 2>&1 | FileCheck %s --check-prefix=WRONG

// Decode: pages of 4 keys, packed GQA, split-KV, kv_lens.
func.func @decode_page4_split(%q: tensor<3x8x1x64xbf16>, %k: tensor<40x2x4x64xbf16>, %v: tensor<40x2x4x64xbf16>, %lens: tensor<3xi32>, %bt: tensor<3x10xi32>)
    -> (tensor<3x8x1x64xbf16>, tensor<3x8x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<3xi32>) block_table(%bt : tensor<3x10xi32>) {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 3, source = user>}
      : tensor<3x8x1x64xbf16>, tensor<40x2x4x64xbf16>, tensor<40x2x4x64xbf16> -> tensor<3x8x1x64xbf16>, tensor<3x8x1xf32>
  return %o, %lse : tensor<3x8x1x64xbf16>, tensor<3x8x1xf32>
}

// Prefill, causal, head dim 128, pages of 16 keys (a key tile of 32 spans two), kv_lens.
func.func @prefill_page16_causal(%q: tensor<2x4x21x128xbf16>, %k: tensor<8x2x16x128xbf16>, %v: tensor<8x2x16x128xbf16>, %lens: tensor<2xi32>, %bt: tensor<2x3xi32>)
    -> (tensor<2x4x21x128xbf16>, tensor<2x4x21xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) block_table(%bt : tensor<2x3xi32>) {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 32, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<2x4x21x128xbf16>, tensor<8x2x16x128xbf16>, tensor<8x2x16x128xbf16> -> tensor<2x4x21x128xbf16>, tensor<2x4x21xf32>
  return %o, %lse : tensor<2x4x21x128xbf16>, tensor<2x4x21xf32>
}

// sm_90a (mma_sync: wgmma takes no paged cache), pages of one key, a sliding window, softcap, no kv_lens.
func.func @sm90a_page1_window(%q: tensor<1x4x17x64xbf16>, %k: tensor<70x1x1x64xbf16>, %v: tensor<70x1x1x64xbf16>, %bt: tensor<1x30xi32>)
    -> (tensor<1x4x17x64xbf16>, tensor<1x4x17xf32>) {
  %o, %lse = kgen.attention %q, %k, %v block_table(%bt : tensor<1x30xi32>) {causal, sliding_window = 12, softcap = 8.0 : f32, config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 3, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x4x17x64xbf16>, tensor<70x1x1x64xbf16>, tensor<70x1x1x64xbf16> -> tensor<1x4x17x64xbf16>, tensor<1x4x17xf32>
  return %o, %lse : tensor<1x4x17x64xbf16>, tensor<1x4x17xf32>
}

// NHD pages ([N, P, Hkv, D]) of 8 keys: decode, packed GQA, split-KV, kv_lens.
func.func @nhd_decode_page8_split(%q: tensor<3x8x1x64xbf16>, %k: tensor<30x8x2x64xbf16>, %v: tensor<30x8x2x64xbf16>, %lens: tensor<3xi32>, %bt: tensor<3x10xi32>)
    -> (tensor<3x8x1x64xbf16>, tensor<3x8x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<3xi32>) block_table(%bt : tensor<3x10xi32>) {pages_nhd, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 3, source = user>}
      : tensor<3x8x1x64xbf16>, tensor<30x8x2x64xbf16>, tensor<30x8x2x64xbf16> -> tensor<3x8x1x64xbf16>, tensor<3x8x1xf32>
  return %o, %lse : tensor<3x8x1x64xbf16>, tensor<3x8x1xf32>
}

// NHD pages of 16 keys, causal prefill, f16, sm_90a.
func.func @nhd_prefill_page16_causal(%q: tensor<2x4x21x128xf16>, %k: tensor<8x16x2x128xf16>, %v: tensor<8x16x2x128xf16>, %lens: tensor<2xi32>, %bt: tensor<2x3xi32>)
    -> (tensor<2x4x21x128xf16>, tensor<2x4x21xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) block_table(%bt : tensor<2x3xi32>) {causal, pages_nhd, config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 32, block_n = 32, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<2x4x21x128xf16>, tensor<8x16x2x128xf16>, tensor<8x16x2x128xf16> -> tensor<2x4x21x128xf16>, tensor<2x4x21xf32>
  return %o, %lse : tensor<2x4x21x128xf16>, tensor<2x4x21xf32>
}
