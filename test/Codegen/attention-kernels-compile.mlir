// Every attention kernel shape the legality admits at its edges compiles
// with nvcc for sm_80 and sm_90a with no stack frame and no spills
// (dialect/AttentionLegality.cpp's register rules: Dp + block_n <= 288,
// and per thread and K tile at most 16 copies up to Dp 128 and 12 beyond),
// with every mask and ALiBi, 2 to 4 stages, both 16-bit types, padded head
// dims, split-KV's combine kernel, paged caches (kgen.tile.load_paged, HND
// and NHD pages) and variable-length batches (kgen.tile.sequence_tile's
// prologue: a sweep of them at every warp count, stage count and head dim
// found no spill on sm_80, up to 255 registers), also over NHD pages.
// REQUIRES: nvcc
// RUN: kgen-opt %s --kgen-lower-attention-to-tiles | kgen-translate --kgen-emit-cuda -o %t.cu
// RUN: %nvcc -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90a,code=sm_90a -Xptxas -v -c %t.cu -o %t.o 2>&1 | FileCheck %s
// CHECK-NOT: warning
// CHECK-NOT: {{[1-9][0-9]*}} bytes stack frame
// CHECK-NOT: {{[1-9][0-9]*}} bytes spill
// CHECK: Compiling entry function 'kgen_attention_{{.*}}' for 'sm_80'
// CHECK-NOT: {{[1-9][0-9]*}} bytes stack frame
// CHECK-NOT: {{[1-9][0-9]*}} bytes spill
// CHECK: Compiling entry function 'kgen_attention_{{.*}}' for 'sm_90a'
// CHECK-NOT: {{[1-9][0-9]*}} bytes stack frame
// CHECK-NOT: {{[1-9][0-9]*}} bytes spill

// At the register rule's edge: Dp + block_n = 256, block_n * Dp = 4096 * warps; every mask.
func.func @d128_bn128_all_masks(%q: tensor<1x8x300x128xbf16>, %k: tensor<1x2x300x128xbf16>, %v: tensor<1x2x300x128xbf16>)
    -> (tensor<1x8x300x128xbf16>, tensor<1x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 128, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x8x300x128xbf16>, tensor<1x2x300x128xbf16>, tensor<1x2x300x128xbf16> -> tensor<1x8x300x128xbf16>, tensor<1x8x300xf32>
  return %o, %lse : tensor<1x8x300x128xbf16>, tensor<1x8x300xf32>
}

// Head dim 256 at Dp + block_n = 288, every mask.
func.func @d256_bn32_all_masks(%q: tensor<1x8x300x256xbf16>, %k: tensor<1x2x300x256xbf16>, %v: tensor<1x2x300x256xbf16>)
    -> (tensor<1x8x300x256xbf16>, tensor<1x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 32, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x8x300x256xbf16>, tensor<1x2x300x256xbf16>, tensor<1x2x300x256xbf16> -> tensor<1x8x300x256xbf16>, tensor<1x8x300xf32>
  return %o, %lse : tensor<1x8x300x256xbf16>, tensor<1x8x300xf32>
}

// Head dim 64, 128 keys per step, 4 stages.
func.func @d64_bn128_4_stages(%q: tensor<1x8x300x64xbf16>, %k: tensor<1x2x300x64xbf16>, %v: tensor<1x2x300x64xbf16>)
    -> (tensor<1x8x300x64xbf16>, tensor<1x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 128, warps_m = 4, stages = 4, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x8x300x64xbf16>, tensor<1x2x300x64xbf16>, tensor<1x2x300x64xbf16> -> tensor<1x8x300x64xbf16>, tensor<1x8x300xf32>
  return %o, %lse : tensor<1x8x300x64xbf16>, tensor<1x8x300xf32>
}

// 8 warps, 128 keys per step.
func.func @warps8_d128_bn128(%q: tensor<1x8x300x128xbf16>, %k: tensor<1x2x300x128xbf16>, %v: tensor<1x2x300x128xbf16>)
    -> (tensor<1x8x300x128xbf16>, tensor<1x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, warps_m = 8, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x8x300x128xbf16>, tensor<1x2x300x128xbf16>, tensor<1x2x300x128xbf16> -> tensor<1x8x300x128xbf16>, tensor<1x8x300xf32>
  return %o, %lse : tensor<1x8x300x128xbf16>, tensor<1x8x300xf32>
}

// 2 warps, head dim 160: 10 copies per thread and tile.
func.func @warps2_d160_bn32(%q: tensor<1x8x300x160xbf16>, %k: tensor<1x2x300x160xbf16>, %v: tensor<1x2x300x160xbf16>)
    -> (tensor<1x8x300x160xbf16>, tensor<1x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 32, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x8x300x160xbf16>, tensor<1x2x300x160xbf16>, tensor<1x2x300x160xbf16> -> tensor<1x8x300x160xbf16>, tensor<1x8x300xf32>
  return %o, %lse : tensor<1x8x300x160xbf16>, tensor<1x8x300xf32>
}

// 2 warps, head dim 256: 8 copies.
func.func @warps2_d256_bn16(%q: tensor<1x8x300x256xbf16>, %k: tensor<1x2x300x256xbf16>, %v: tensor<1x2x300x256xbf16>)
    -> (tensor<1x8x300x256xbf16>, tensor<1x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x8x300x256xbf16>, tensor<1x2x300x256xbf16>, tensor<1x2x300x256xbf16> -> tensor<1x8x300x256xbf16>, tensor<1x8x300xf32>
  return %o, %lse : tensor<1x8x300x256xbf16>, tensor<1x8x300xf32>
}

// One warp, head dim 192 at 12 copies.
func.func @warps1_d192_bn16(%q: tensor<4x16x1x192xbf16>, %k: tensor<4x2x4000x192xbf16>, %v: tensor<4x2x4000x192xbf16>, %lens: tensor<4xi32>)
    -> (tensor<4x16x1x192xbf16>, tensor<4x16x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<4xi32>) {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 4, source = user>}
      : tensor<4x16x1x192xbf16>, tensor<4x2x4000x192xbf16>, tensor<4x2x4000x192xbf16> -> tensor<4x16x1x192xbf16>, tensor<4x16x1xf32>
  return %o, %lse : tensor<4x16x1x192xbf16>, tensor<4x16x1xf32>
}

// One warp, head dim 128 at 8 copies, 4 stages.
func.func @warps1_d128_bn16_4_stages(%q: tensor<4x16x1x128xbf16>, %k: tensor<4x2x4000x128xbf16>, %v: tensor<4x2x4000x128xbf16>, %lens: tensor<4xi32>)
    -> (tensor<4x16x1x128xbf16>, tensor<4x16x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<4xi32>) {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 4, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<4x16x1x128xbf16>, tensor<4x2x4000x128xbf16>, tensor<4x2x4000x128xbf16> -> tensor<4x16x1x128xbf16>, tensor<4x16x1xf32>
  return %o, %lse : tensor<4x16x1x128xbf16>, tensor<4x16x1xf32>
}

// 4 warps, head dim 128 at 8 copies, 3 stages.
func.func @warps4_d128_bn64_3_stages(%q: tensor<1x8x300x128xbf16>, %k: tensor<1x2x300x128xbf16>, %v: tensor<1x2x300x128xbf16>)
    -> (tensor<1x8x300x128xbf16>, tensor<1x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, warps_m = 4, stages = 3, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x8x300x128xbf16>, tensor<1x2x300x128xbf16>, tensor<1x2x300x128xbf16> -> tensor<1x8x300x128xbf16>, tensor<1x8x300xf32>
  return %o, %lse : tensor<1x8x300x128xbf16>, tensor<1x8x300xf32>
}

// 4 warps, head dim 240 at 11 copies.
func.func @warps4_d240_bn48_2_stages(%q: tensor<1x8x300x240xbf16>, %k: tensor<1x2x300x240xbf16>, %v: tensor<1x2x300x240xbf16>)
    -> (tensor<1x8x300x240xbf16>, tensor<1x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 48, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x8x300x240xbf16>, tensor<1x2x300x240xbf16>, tensor<1x2x300x240xbf16> -> tensor<1x8x300x240xbf16>, tensor<1x8x300xf32>
  return %o, %lse : tensor<1x8x300x240xbf16>, tensor<1x8x300xf32>
}

// Decode: one warp at block_n * Dp = 4096, split-KV and its combine kernel.
func.func @decode_d128_bn32_split(%q: tensor<16x32x1x128xbf16>, %k: tensor<16x8x4000x128xbf16>, %v: tensor<16x8x4000x128xbf16>, %lens: tensor<16xi32>)
    -> (tensor<16x32x1x128xbf16>, tensor<16x32x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<16xi32>) {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 8, source = user>}
      : tensor<16x32x1x128xbf16>, tensor<16x8x4000x128xbf16>, tensor<16x8x4000x128xbf16> -> tensor<16x32x1x128xbf16>, tensor<16x32x1xf32>
  return %o, %lse : tensor<16x32x1x128xbf16>, tensor<16x32x1xf32>
}

// Decode, head dim 64, 2 warps.
func.func @decode_d64_bn64(%q: tensor<16x32x1x64xbf16>, %k: tensor<16x8x4000x64xbf16>, %v: tensor<16x8x4000x64xbf16>, %lens: tensor<16xi32>)
    -> (tensor<16x32x1x64xbf16>, tensor<16x32x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<16xi32>) {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 64, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 4, source = user>}
      : tensor<16x32x1x64xbf16>, tensor<16x8x4000x64xbf16>, tensor<16x8x4000x64xbf16> -> tensor<16x32x1x64xbf16>, tensor<16x32x1xf32>
  return %o, %lse : tensor<16x32x1x64xbf16>, tensor<16x32x1xf32>
}

// Decode, head dim 256: two warps (one would spill), 16 keys per step.
func.func @decode_d256_bn16(%q: tensor<4x16x1x256xbf16>, %k: tensor<4x1x4000x256xbf16>, %v: tensor<4x1x4000x256xbf16>, %lens: tensor<4xi32>)
    -> (tensor<4x16x1x256xbf16>, tensor<4x16x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<4xi32>) {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 16, source = user>}
      : tensor<4x16x1x256xbf16>, tensor<4x1x4000x256xbf16>, tensor<4x1x4000x256xbf16> -> tensor<4x16x1x256xbf16>, tensor<4x16x1xf32>
  return %o, %lse : tensor<4x16x1x256xbf16>, tensor<4x16x1xf32>
}

// f16 at head dim 40 (tiles of 48), f32 output, window.
func.func @f16_d40_f32_out(%q: tensor<1x4x100x40xf16>, %k: tensor<1x4x100x40xf16>, %v: tensor<1x4x100x40xf16>)
    -> (tensor<1x4x100x40xf32>, tensor<1x4x100xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, sliding_window = 7, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x4x100x40xf16>, tensor<1x4x100x40xf16>, tensor<1x4x100x40xf16> -> tensor<1x4x100x40xf32>, tensor<1x4x100xf32>
  return %o, %lse : tensor<1x4x100x40xf32>, tensor<1x4x100xf32>
}

// Head dim 72 (tiles of 80), window.
func.func @d72_window(%q: tensor<2x4x200x72xbf16>, %k: tensor<2x1x200x72xbf16>, %v: tensor<2x1x200x72xbf16>)
    -> (tensor<2x4x200x72xbf16>, tensor<2x4x200xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, sliding_window = 64, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<2x4x200x72xbf16>, tensor<2x1x200x72xbf16>, tensor<2x1x200x72xbf16> -> tensor<2x4x200x72xbf16>, tensor<2x4x200xf32>
  return %o, %lse : tensor<2x4x200x72xbf16>, tensor<2x4x200xf32>
}

// ALiBi with every mask at the register edge of head dim 128.
func.func @alibi_d128_bn128(%q: tensor<1x8x300x128xbf16>, %k: tensor<1x2x300x128xbf16>, %v: tensor<1x2x300x128xbf16>, %slopes: tensor<8xf32>)
    -> (tensor<1x8x300x128xbf16>, tensor<1x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v alibi(%slopes : tensor<8xf32>) {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 128, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x8x300x128xbf16>, tensor<1x2x300x128xbf16>, tensor<1x2x300x128xbf16> -> tensor<1x8x300x128xbf16>, tensor<1x8x300xf32>
  return %o, %lse : tensor<1x8x300x128xbf16>, tensor<1x8x300xf32>
}

// ALiBi with every mask at head dim 256.
func.func @alibi_d256_bn32(%q: tensor<1x8x300x256xbf16>, %k: tensor<1x2x300x256xbf16>, %v: tensor<1x2x300x256xbf16>, %slopes: tensor<8xf32>)
    -> (tensor<1x8x300x256xbf16>, tensor<1x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v alibi(%slopes : tensor<8xf32>) {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 32, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x8x300x256xbf16>, tensor<1x2x300x256xbf16>, tensor<1x2x300x256xbf16> -> tensor<1x8x300x256xbf16>, tensor<1x8x300xf32>
  return %o, %lse : tensor<1x8x300x256xbf16>, tensor<1x8x300xf32>
}

// ALiBi and a local window, one warp at 16 copies.
func.func @alibi_decode_d128_bn32(%q: tensor<4x16x1x128xbf16>, %k: tensor<4x2x4000x128xbf16>, %v: tensor<4x2x4000x128xbf16>, %slopes: tensor<16xf32>)
    -> (tensor<4x16x1x128xbf16>, tensor<4x16x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v alibi(%slopes : tensor<16xf32>) {window_left = 100, window_right = 4, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 4, source = user>}
      : tensor<4x16x1x128xbf16>, tensor<4x2x4000x128xbf16>, tensor<4x2x4000x128xbf16> -> tensor<4x16x1x128xbf16>, tensor<4x16x1xf32>
  return %o, %lse : tensor<4x16x1x128xbf16>, tensor<4x16x1xf32>
}

// ALiBi, one warp at head dim 192 (12 copies).
func.func @alibi_decode_d192_bn16(%q: tensor<4x16x1x192xbf16>, %k: tensor<4x2x4000x192xbf16>, %v: tensor<4x2x4000x192xbf16>, %slopes: tensor<16xf32>)
    -> (tensor<4x16x1x192xbf16>, tensor<4x16x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v alibi(%slopes : tensor<16xf32>) {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 4, source = user>}
      : tensor<4x16x1x192xbf16>, tensor<4x2x4000x192xbf16>, tensor<4x2x4000x192xbf16> -> tensor<4x16x1x192xbf16>, tensor<4x16x1xf32>
  return %o, %lse : tensor<4x16x1x192xbf16>, tensor<4x16x1xf32>
}

// At the register rule's edge, paged: Dp + block_n = 256, 16 copies per thread per K tile; every mask.
func.func @paged_d128_bn128_all_masks(%q: tensor<2x8x300x128xbf16>, %k: tensor<64x2x16x128xbf16>, %v: tensor<64x2x16x128xbf16>, %lens: tensor<2xi32>, %bt: tensor<2x20xi32>)
    -> (tensor<2x8x300x128xbf16>, tensor<2x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) block_table(%bt : tensor<2x20xi32>) {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 128, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<2x8x300x128xbf16>, tensor<64x2x16x128xbf16>, tensor<64x2x16x128xbf16> -> tensor<2x8x300x128xbf16>, tensor<2x8x300xf32>
  return %o, %lse : tensor<2x8x300x128xbf16>, tensor<2x8x300xf32>
}

// Head dim 256, paged (pages of 1 key), Dp + block_n = 288, every mask.
func.func @paged_d256_bn32_all_masks(%q: tensor<1x8x300x256xbf16>, %k: tensor<400x2x1x256xbf16>, %v: tensor<400x2x1x256xbf16>, %bt: tensor<1x300xi32>)
    -> (tensor<1x8x300x256xbf16>, tensor<1x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v block_table(%bt : tensor<1x300xi32>) {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 32, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x8x300x256xbf16>, tensor<400x2x1x256xbf16>, tensor<400x2x1x256xbf16> -> tensor<1x8x300x256xbf16>, tensor<1x8x300xf32>
  return %o, %lse : tensor<1x8x300x256xbf16>, tensor<1x8x300xf32>
}

// One warp at 16 copies (block_n 32, Dp 128), 3 stages at 8 (Dp 128, two warps), paged decode.
func.func @paged_decode_one_warp(%q: tensor<4x32x1x128xbf16>, %k: tensor<300x8x16x128xbf16>, %v: tensor<300x8x16x128xbf16>, %lens: tensor<4xi32>, %bt: tensor<4x64xi32>)
    -> (tensor<4x32x1x128xbf16>, tensor<4x32x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<4xi32>) block_table(%bt : tensor<4x64xi32>) {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 4, source = user>}
      : tensor<4x32x1x128xbf16>, tensor<300x8x16x128xbf16>, tensor<300x8x16x128xbf16> -> tensor<4x32x1x128xbf16>, tensor<4x32x1xf32>
  return %o, %lse : tensor<4x32x1x128xbf16>, tensor<4x32x1xf32>
}

// Variable-length sequences (cu_seqlens) at the register edge: head dim 128, 128 keys, 4 warps, every mask and ALiBi.
func.func @varlen_d128_bn128_all_masks(%q: tensor<600x8x128xbf16>, %k: tensor<700x2x128xbf16>, %v: tensor<700x2x128xbf16>, %cq: tensor<5xi32>, %ck: tensor<5xi32>, %al: tensor<8xf32>)
    -> (tensor<600x8x128xbf16>, tensor<8x600xf32>) {
  %o, %lse = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<5xi32>, tensor<5xi32>) alibi(%al : tensor<8xf32>) {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 128, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<600x8x128xbf16>, tensor<700x2x128xbf16>, tensor<700x2x128xbf16> -> tensor<600x8x128xbf16>, tensor<8x600xf32>
  return %o, %lse : tensor<600x8x128xbf16>, tensor<8x600xf32>
}

// Variable-length sequences, head dim 256, every mask.
func.func @varlen_d256_bn32_all_masks(%q: tensor<600x8x256xbf16>, %k: tensor<700x2x256xbf16>, %v: tensor<700x2x256xbf16>, %cq: tensor<5xi32>, %ck: tensor<5xi32>)
    -> (tensor<600x8x256xbf16>, tensor<8x600xf32>) {
  %o, %lse = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<5xi32>, tensor<5xi32>) {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 32, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<600x8x256xbf16>, tensor<700x2x256xbf16>, tensor<700x2x256xbf16> -> tensor<600x8x256xbf16>, tensor<8x600xf32>
  return %o, %lse : tensor<600x8x256xbf16>, tensor<8x600xf32>
}

// Variable-length sequences, one warp at 16 copies per K tile (head dim 128, 32 keys).
func.func @varlen_one_warp_d128(%q: tensor<600x8x128xbf16>, %k: tensor<700x2x128xbf16>, %v: tensor<700x2x128xbf16>, %cq: tensor<5xi32>, %ck: tensor<5xi32>)
    -> (tensor<600x8x128xbf16>, tensor<8x600xf32>) {
  %o, %lse = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<5xi32>, tensor<5xi32>) {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<600x8x128xbf16>, tensor<700x2x128xbf16>, tensor<700x2x128xbf16> -> tensor<600x8x128xbf16>, tensor<8x600xf32>
  return %o, %lse : tensor<600x8x128xbf16>, tensor<8x600xf32>
}


// NHD pages ([N, P, Hkv, D]) at the register edge, every mask.
func.func @paged_nhd_d128_bn128_all_masks(%q: tensor<2x8x300x128xbf16>, %k: tensor<64x16x2x128xbf16>, %v: tensor<64x16x2x128xbf16>, %lens: tensor<2xi32>, %bt: tensor<2x20xi32>)
    -> (tensor<2x8x300x128xbf16>, tensor<2x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) block_table(%bt : tensor<2x20xi32>) {causal, pages_nhd, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 128, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<2x8x300x128xbf16>, tensor<64x16x2x128xbf16>, tensor<64x16x2x128xbf16> -> tensor<2x8x300x128xbf16>, tensor<2x8x300xf32>
  return %o, %lse : tensor<2x8x300x128xbf16>, tensor<2x8x300xf32>
}

// A varlen batch over NHD pages (vLLM's chunked prefill) at the register edge, every mask and ALiBi.
func.func @varlen_paged_nhd_d128_bn128(%q: tensor<600x8x128xbf16>, %k: tensor<80x16x2x128xbf16>, %v: tensor<80x16x2x128xbf16>, %cq: tensor<5xi32>, %ck: tensor<5xi32>, %bt: tensor<4x20xi32>, %al: tensor<8xf32>)
    -> (tensor<600x8x128xbf16>, tensor<8x600xf32>) {
  %o, %lse = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<5xi32>, tensor<5xi32>) block_table(%bt : tensor<4x20xi32>) alibi(%al : tensor<8xf32>) {causal, pages_nhd, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 128, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<600x8x128xbf16>, tensor<80x16x2x128xbf16>, tensor<80x16x2x128xbf16> -> tensor<600x8x128xbf16>, tensor<8x600xf32>
  return %o, %lse : tensor<600x8x128xbf16>, tensor<8x600xf32>
}
