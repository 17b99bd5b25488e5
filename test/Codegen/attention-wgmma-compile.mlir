// Every wgmma attention kernel shape the legality admits at its register
// edges compiles with nvcc for sm_90a with no stack frame and no spills
// (dialect/AttentionLegality.cpp: 3 block_n / 4 + Dp / 2 <= 200 with one or
// two consumer warpgroups, <= 132 with three), with every mask, ALiBi,
// kv_lens, 1 to 4 stages, ping-pong and overlap_softmax (FlashAttention-3's
// defaults: the first three).
// REQUIRES: nvcc
// RUN: kgen-opt %s --kgen-lower-attention-to-tiles | kgen-translate --kgen-emit-cuda -o %t.cu
// RUN: %nvcc -gencode arch=compute_90a,code=sm_90a -Xptxas -v -c %t.cu -o %t.o 2>&1 | FileCheck %s
// CHECK: Compiling entry function 'kgen_attention_{{.*}}' for 'sm_90a'
// CHECK-NEXT: Function properties for
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK: Compiling entry function 'kgen_attention_{{.*}}' for 'sm_90a'
// CHECK-NEXT: Function properties for
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK: Compiling entry function 'kgen_attention_{{.*}}' for 'sm_90a'
// CHECK-NEXT: Function properties for
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK: Compiling entry function 'kgen_attention_{{.*}}' for 'sm_90a'
// CHECK-NEXT: Function properties for
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK: Compiling entry function 'kgen_attention_{{.*}}' for 'sm_90a'
// CHECK-NEXT: Function properties for
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK: Compiling entry function 'kgen_attention_{{.*}}' for 'sm_90a'
// CHECK-NEXT: Function properties for
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: warning

// Head dim 64 at the rule's edge (3 block_n / 4 + Dp / 2 = 200), two warpgroups in ping-pong, every mask.
func.func @d64_bn224_pingpong(%q: tensor<1x8x300x64xbf16>, %k: tensor<1x2x300x64xbf16>, %v: tensor<1x2x300x64xbf16>)
    -> (tensor<1x8x300x64xbf16>, tensor<1x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 224, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = true, overlap_softmax = true, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x8x300x64xbf16>, tensor<1x2x300x64xbf16>, tensor<1x2x300x64xbf16> -> tensor<1x8x300x64xbf16>, tensor<1x8x300xf32>
  return %o, %lse : tensor<1x8x300x64xbf16>, tensor<1x8x300xf32>
}

// Head dim 128 at 196 (FlashAttention-3's Llama shape), every mask.
func.func @d128_bn176_pingpong(%q: tensor<1x8x300x128xbf16>, %k: tensor<1x2x300x128xbf16>, %v: tensor<1x2x300x128xbf16>)
    -> (tensor<1x8x300x128xbf16>, tensor<1x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 176, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = true, overlap_softmax = true, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x8x300x128xbf16>, tensor<1x2x300x128xbf16>, tensor<1x2x300x128xbf16> -> tensor<1x8x300x128xbf16>, tensor<1x8x300xf32>
  return %o, %lse : tensor<1x8x300x128xbf16>, tensor<1x8x300xf32>
}

// Head dim 256 at 188, a local window and ALiBi.
func.func @d256_bn80_alibi(%q: tensor<1x8x300x256xbf16>, %k: tensor<1x2x300x256xbf16>, %v: tensor<1x2x300x256xbf16>, %slopes: tensor<8xf32>)
    -> (tensor<1x8x300x256xbf16>, tensor<1x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v alibi(%slopes : tensor<8xf32>) {window_left = 50, window_right = 7, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 80, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = false, overlap_softmax = true, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x8x300x256xbf16>, tensor<1x2x300x256xbf16>, tensor<1x2x300x256xbf16> -> tensor<1x8x300x256xbf16>, tensor<1x8x300xf32>
  return %o, %lse : tensor<1x8x300x256xbf16>, tensor<1x8x300xf32>
}

// One consumer warpgroup at 200: head dim 256, block_n 96, kv_lens.
func.func @d256_bn96_one_group(%q: tensor<1x8x300x256xbf16>, %k: tensor<1x2x300x256xbf16>, %v: tensor<1x2x300x256xbf16>, %lens: tensor<1xi32>)
    -> (tensor<1x8x300x256xbf16>, tensor<1x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<1xi32>) {causal, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 96, warps_m = 4, stages = 1, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x8x300x256xbf16>, tensor<1x2x300x256xbf16>, tensor<1x2x300x256xbf16> -> tensor<1x8x300x256xbf16>, tensor<1x8x300xf32>
  return %o, %lse : tensor<1x8x300x256xbf16>, tensor<1x8x300xf32>
}

// Three consumer warpgroups at their edge (128 of 132), 4 stages, every mask,
// overlap_softmax.
func.func @d64_bn128_three_groups(%q: tensor<1x8x300x64xbf16>, %k: tensor<1x2x300x64xbf16>, %v: tensor<1x2x300x64xbf16>)
    -> (tensor<1x8x300x64xbf16>, tensor<1x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 192, block_n = 128, warps_m = 12, stages = 4, consumer_warpgroups = 3, ping_pong = true, overlap_softmax = true, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x8x300x64xbf16>, tensor<1x2x300x64xbf16>, tensor<1x2x300x64xbf16> -> tensor<1x8x300x64xbf16>, tensor<1x8x300xf32>
  return %o, %lse : tensor<1x8x300x64xbf16>, tensor<1x8x300xf32>
}

// Three consumer warpgroups, head dim 192 at 132.
func.func @d192_bn48_three_groups(%q: tensor<1x8x300x192xbf16>, %k: tensor<1x2x300x192xbf16>, %v: tensor<1x2x300x192xbf16>)
    -> (tensor<1x8x300x192xbf16>, tensor<1x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 192, block_n = 48, warps_m = 12, stages = 2, consumer_warpgroups = 3, ping_pong = true, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x8x300x192xbf16>, tensor<1x2x300x192xbf16>, tensor<1x2x300x192xbf16> -> tensor<1x8x300x192xbf16>, tensor<1x8x300xf32>
  return %o, %lse : tensor<1x8x300x192xbf16>, tensor<1x8x300xf32>
}
