// e4m3 attention kernels (mma_sync, sm_90a: the e4m3 tiles widened in
// shared memory by cvt.rn.f16x2.e4m3x2) at the register rules' edges
// compile with nvcc for sm_90a with no stack frame and no spills: a sweep
// over head dims 64 to 256, 1 to 8 warps, 1 to 4 stages at the largest
// block_n the legality admits (an e4m3 cache's copies count its bytes:
// half a 16-bit cache's), every mask, found none; the highest register
// counts are here (255, 254 and 241), with a paged e4m3 decode, one warp's
// decode tile, f16 queries and a head dim whose e4m3 rows are not 16-byte
// chunks.
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
// CHECK: Compiling entry function 'kgen_attention_{{.*}}' for 'sm_90a'
// CHECK-NEXT: Function properties for
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK: Compiling entry function 'kgen_attention_{{.*}}' for 'sm_90a'
// CHECK-NEXT: Function properties for
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK: Compiling entry function 'kgen_attention_{{.*}}' for 'sm_90a'
// CHECK-NEXT: Function properties for
// CHECK-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK-NOT: Compiling entry function

// e4m3 Q, K and V at the register edge (254 registers): head dim 128, 128 keys, 4 warps; every mask, all descales.
func.func @e4m3_d128_bn128_all_masks(%q: tensor<1x8x300x128xf8E4M3FN>, %k: tensor<1x2x300x128xf8E4M3FN>, %v: tensor<1x2x300x128xf8E4M3FN>, %dq: tensor<1xf32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>)
    -> (tensor<1x8x300x128xbf16>, tensor<1x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v q_descale(%dq : tensor<1xf32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 64, block_n = 128, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x8x300x128xf8E4M3FN>, tensor<1x2x300x128xf8E4M3FN>, tensor<1x2x300x128xf8E4M3FN> -> tensor<1x8x300x128xbf16>, tensor<1x8x300xf32>
  return %o, %lse : tensor<1x8x300x128xbf16>, tensor<1x8x300xf32>
}

// bf16 queries, e4m3 cache, head dim 256 (241 registers), one stage; every mask.
func.func @kv_e4m3_d256_bn32_all_masks(%q: tensor<1x8x300x256xbf16>, %k: tensor<1x2x300x256xf8E4M3FN>, %v: tensor<1x2x300x256xf8E4M3FN>, %dk: tensor<1xf32>, %dv: tensor<1xf32>)
    -> (tensor<1x8x300x256xbf16>, tensor<1x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 64, block_n = 32, warps_m = 4, stages = 1, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x8x300x256xbf16>, tensor<1x2x300x256xf8E4M3FN>, tensor<1x2x300x256xf8E4M3FN> -> tensor<1x8x300x256xbf16>, tensor<1x8x300xf32>
  return %o, %lse : tensor<1x8x300x256xbf16>, tensor<1x8x300xf32>
}

// f16 queries, e4m3 cache, 8 warps, 4 stages, f32 output.
func.func @kv_e4m3_f16_d64_bn128_4_stages(%q: tensor<1x8x300x64xf16>, %k: tensor<1x2x300x64xf8E4M3FN>, %v: tensor<1x2x300x64xf8E4M3FN>, %dk: tensor<1xf32>, %dv: tensor<1xf32>)
    -> (tensor<1x8x300x64xf32>, tensor<1x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 128, block_n = 128, warps_m = 8, stages = 4, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x8x300x64xf16>, tensor<1x2x300x64xf8E4M3FN>, tensor<1x2x300x64xf8E4M3FN> -> tensor<1x8x300x64xf32>, tensor<1x8x300xf32>
  return %o, %lse : tensor<1x8x300x64xf32>, tensor<1x8x300xf32>
}

// Decode from a paged e4m3 cache: one warp, packed GQA, split-KV, kv_lens, ALiBi, pages of 16.
func.func @kv_e4m3_paged_decode(%q: tensor<4x8x1x128xbf16>, %k: tensor<256x2x16x128xf8E4M3FN>, %v: tensor<256x2x16x128xf8E4M3FN>, %lens: tensor<4xi32>, %bt: tensor<4x64xi32>, %al: tensor<8xf32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>)
    -> (tensor<4x8x1x128xbf16>, tensor<4x8x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<4xi32>) block_table(%bt : tensor<4x64xi32>) alibi(%al : tensor<8xf32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 32, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 4, source = user>}
      : tensor<4x8x1x128xbf16>, tensor<256x2x16x128xf8E4M3FN>, tensor<256x2x16x128xf8E4M3FN> -> tensor<4x8x1x128xbf16>, tensor<4x8x1xf32>
  return %o, %lse : tensor<4x8x1x128xbf16>, tensor<4x8x1xf32>
}

// Head dim 40: 40-byte e4m3 rows, copied element by element (no 16-byte cp.async).
func.func @e4m3_d40(%q: tensor<1x8x300x40xf8E4M3FN>, %k: tensor<1x2x300x40xf8E4M3FN>, %v: tensor<1x2x300x40xf8E4M3FN>, %dq: tensor<1xf32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>)
    -> (tensor<1x8x300x40xbf16>, tensor<1x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v q_descale(%dq : tensor<1xf32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 32, block_n = 64, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x8x300x40xf8E4M3FN>, tensor<1x2x300x40xf8E4M3FN>, tensor<1x2x300x40xf8E4M3FN> -> tensor<1x8x300x40xbf16>, tensor<1x8x300xf32>
  return %o, %lse : tensor<1x8x300x40xbf16>, tensor<1x8x300xf32>
}

// e4m3 Q, K and V, 4 stages of 128 keys (8 copies a thread: e4m3 rows are half the bytes), every mask: 255 registers.
func.func @e4m3_d128_bn128_4_stages(%q: tensor<1x8x300x128xf8E4M3FN>, %k: tensor<1x2x300x128xf8E4M3FN>, %v: tensor<1x2x300x128xf8E4M3FN>, %dq: tensor<1xf32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>)
    -> (tensor<1x8x300x128xbf16>, tensor<1x8x300xf32>) {
  %o, %lse = kgen.attention %q, %k, %v q_descale(%dq : tensor<1xf32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {causal, sliding_window = 100, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 64, block_n = 128, warps_m = 4, stages = 4, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x8x300x128xf8E4M3FN>, tensor<1x2x300x128xf8E4M3FN>, tensor<1x2x300x128xf8E4M3FN> -> tensor<1x8x300x128xbf16>, tensor<1x8x300xf32>
  return %o, %lse : tensor<1x8x300x128xbf16>, tensor<1x8x300xf32>
}

// One warp, e4m3 cache, head dim 128 and 64 keys (16 e4m3 copies a thread), kv_lens, split-KV: the decode tile.
func.func @kv_e4m3_one_warp_d128_bn64(%q: tensor<1x8x1x128xbf16>, %k: tensor<1x2x300x128xf8E4M3FN>, %v: tensor<1x2x300x128xf8E4M3FN>, %lens: tensor<1xi32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>)
    -> (tensor<1x8x1x128xbf16>, tensor<1x8x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<1xi32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 64, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 2, source = user>}
      : tensor<1x8x1x128xbf16>, tensor<1x2x300x128xf8E4M3FN>, tensor<1x2x300x128xf8E4M3FN> -> tensor<1x8x1x128xbf16>, tensor<1x8x1xf32>
  return %o, %lse : tensor<1x8x1x128xbf16>, tensor<1x8x1xf32>
}
