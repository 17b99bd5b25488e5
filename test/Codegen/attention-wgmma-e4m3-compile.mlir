// Every e4m3 wgmma attention kernel (FlashAttention-3's FP8 path:
// kgen/block/AttentionSm90.cuh with __nv_fp8_e4m3) at the legality's
// register edges compiles with nvcc for sm_90a with no stack frame and no
// spills (dialect/AttentionLegality.cpp: 3 block_n / 4 + Dp / 2 <= 200 with
// one or two consumer warpgroups, <= 120 with three, block_n in 64s), with
// every mask, ALiBi, kv_lens and all three descales. A ptxas sweep of 30
// legal edge configs (1 to 4 stages, overlap_softmax) spilled nothing; the
// rule's first refusals did (Dp 64 block_n 256: 460 bytes; Dp 128 block_n
// 192: 60, even on one warpgroup's 232 registers).
// REQUIRES: nvcc
// RUN: kgen-opt %s --kgen-lower-attention-to-tiles | kgen-translate --kgen-emit-cuda -o %t.cu
// RUN: %nvcc -gencode arch=compute_90a,code=sm_90a -Xptxas -v -c %t.cu -o %t.o 2>&1 | FileCheck %s
// CHECK: Compiling entry function 'kgen_attention_f8E4M3FN_{{.*}}' for 'sm_90a'
// CHECK-NEXT: Function properties for
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK: Compiling entry function 'kgen_attention_f8E4M3FN_{{.*}}' for 'sm_90a'
// CHECK-NEXT: Function properties for
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK: Compiling entry function 'kgen_attention_f8E4M3FN_{{.*}}' for 'sm_90a'
// CHECK-NEXT: Function properties for
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK: Compiling entry function 'kgen_attention_f8E4M3FN_{{.*}}' for 'sm_90a'
// CHECK-NEXT: Function properties for
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK: Compiling entry function 'kgen_attention_f8E4M3FN_{{.*}}' for 'sm_90a'
// CHECK-NEXT: Function properties for
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK: Compiling entry function 'kgen_attention_f8E4M3FN_{{.*}}' for 'sm_90a'
// CHECK-NEXT: Function properties for
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: warning

// Head dim 64 at the edge (3 block_n / 4 + Dp / 2 = 176; 256 keys spill), two warpgroups in ping-pong, overlap_softmax.
func.func @g2_d64_bn192_s2_ov(%q: tensor<1x4x301x64xf8E4M3FN>, %k: tensor<1x2x300x64xf8E4M3FN>, %v: tensor<1x2x300x64xf8E4M3FN>, %s: tensor<4xf32>, %dq: tensor<1xf32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>, %lens: tensor<1xi32>)
    -> (tensor<1x4x301x64xbf16>, tensor<1x4x301xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<1xi32>) alibi(%s : tensor<4xf32>) q_descale(%dq : tensor<1xf32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 192, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = true, overlap_softmax = true, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x4x301x64xf8E4M3FN>, tensor<1x2x300x64xf8E4M3FN>, tensor<1x2x300x64xf8E4M3FN> -> tensor<1x4x301x64xbf16>, tensor<1x4x301xf32>
  return %o, %lse : tensor<1x4x301x64xbf16>, tensor<1x4x301xf32>
}

// Head dim 128 (FlashAttention-3's FP8 Llama shape; 192 keys spill), overlap_softmax.
func.func @g2_d128_bn128_s2_ov(%q: tensor<1x4x305x128xf8E4M3FN>, %k: tensor<1x2x300x128xf8E4M3FN>, %v: tensor<1x2x300x128xf8E4M3FN>, %s: tensor<4xf32>, %dq: tensor<1xf32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>, %lens: tensor<1xi32>)
    -> (tensor<1x4x305x128xbf16>, tensor<1x4x305xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<1xi32>) alibi(%s : tensor<4xf32>) q_descale(%dq : tensor<1xf32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 128, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = true, overlap_softmax = true, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x4x305x128xf8E4M3FN>, tensor<1x2x300x128xf8E4M3FN>, tensor<1x2x300x128xf8E4M3FN> -> tensor<1x4x305x128xbf16>, tensor<1x4x305xf32>
  return %o, %lse : tensor<1x4x305x128xbf16>, tensor<1x4x305xf32>
}

// Head dim 192 at 192, one stage.
func.func @g2_d192_bn128_s1(%q: tensor<1x4x310x192xf8E4M3FN>, %k: tensor<1x2x300x192xf8E4M3FN>, %v: tensor<1x2x300x192xf8E4M3FN>, %s: tensor<4xf32>, %dq: tensor<1xf32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>, %lens: tensor<1xi32>)
    -> (tensor<1x4x310x192xbf16>, tensor<1x4x310xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<1xi32>) alibi(%s : tensor<4xf32>) q_descale(%dq : tensor<1xf32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 128, warps_m = 8, stages = 1, consumer_warpgroups = 2, ping_pong = true, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x4x310x192xf8E4M3FN>, tensor<1x2x300x192xf8E4M3FN>, tensor<1x2x300x192xf8E4M3FN> -> tensor<1x4x310x192xbf16>, tensor<1x4x310xf32>
  return %o, %lse : tensor<1x4x310x192xbf16>, tensor<1x4x310xf32>
}

// Head dim 256 (P V N = 256) at 160, four stages.
func.func @g2_d256_bn64_s4(%q: tensor<1x4x314x256xf8E4M3FN>, %k: tensor<1x2x300x256xf8E4M3FN>, %v: tensor<1x2x300x256xf8E4M3FN>, %s: tensor<4xf32>, %dq: tensor<1xf32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>, %lens: tensor<1xi32>)
    -> (tensor<1x4x314x256xbf16>, tensor<1x4x314xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<1xi32>) alibi(%s : tensor<4xf32>) q_descale(%dq : tensor<1xf32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 64, warps_m = 8, stages = 4, consumer_warpgroups = 2, ping_pong = true, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x4x314x256xf8E4M3FN>, tensor<1x2x300x256xf8E4M3FN>, tensor<1x2x300x256xf8E4M3FN> -> tensor<1x4x314x256xbf16>, tensor<1x4x314xf32>
  return %o, %lse : tensor<1x4x314x256xbf16>, tensor<1x4x314xf32>
}

// Three warpgroups (128 registers) at 112, three stages, overlap_softmax.
func.func @g3_d128_bn64_s3_ov(%q: tensor<1x4x321x128xf8E4M3FN>, %k: tensor<1x2x300x128xf8E4M3FN>, %v: tensor<1x2x300x128xf8E4M3FN>, %s: tensor<4xf32>, %dq: tensor<1xf32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>, %lens: tensor<1xi32>)
    -> (tensor<1x4x321x128xbf16>, tensor<1x4x321xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<1xi32>) alibi(%s : tensor<4xf32>) q_descale(%dq : tensor<1xf32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 192, block_n = 64, warps_m = 12, stages = 3, consumer_warpgroups = 3, ping_pong = true, overlap_softmax = true, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x4x321x128xf8E4M3FN>, tensor<1x2x300x128xf8E4M3FN>, tensor<1x2x300x128xf8E4M3FN> -> tensor<1x4x321x128xbf16>, tensor<1x4x321xf32>
  return %o, %lse : tensor<1x4x321x128xbf16>, tensor<1x4x321xf32>
}

// One warpgroup, one stage.
func.func @g1_d128_bn128_s1(%q: tensor<1x4x328x128xf8E4M3FN>, %k: tensor<1x2x300x128xf8E4M3FN>, %v: tensor<1x2x300x128xf8E4M3FN>, %s: tensor<4xf32>, %dq: tensor<1xf32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>, %lens: tensor<1xi32>)
    -> (tensor<1x4x328x128xbf16>, tensor<1x4x328xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<1xi32>) alibi(%s : tensor<4xf32>) q_descale(%dq : tensor<1xf32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 128, warps_m = 4, stages = 1, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x4x328x128xf8E4M3FN>, tensor<1x2x300x128xf8E4M3FN>, tensor<1x2x300x128xf8E4M3FN> -> tensor<1x4x328x128xbf16>, tensor<1x4x328xf32>
  return %o, %lse : tensor<1x4x328x128xbf16>, tensor<1x4x328xf32>
}
