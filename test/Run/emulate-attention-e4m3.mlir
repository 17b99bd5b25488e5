// e4m3 attention on the emulated device (mma_sync, sm_90a; kgen.tile.widen,
// Attention.cuh's widen_tile), against the runtime's double-precision
// reference (which reads the e4m3 elements exactly and applies the
// descale factors) and then the op's reference semantics (kgen-run): an
// e4m3 KV cache read by bf16 queries in a split-KV decode, e4m3 Q, K and V
// in a causal prefill with all three descales, a paged e4m3 cache read by
// f16 queries with a window and softcap, and a head dim whose e4m3 rows
// are not 16-byte chunks. Mutations that must be caught follow.
// RUN: rm -rf %t && %python %S/Inputs/check_emulated.py %s %t --tolerance=1e-2 --jobs=2 | FileCheck %s
// CHECK-DAG: decode_kv_e4m3_split: mma_sync emulated ok, reference OK
// CHECK-DAG: prefill_all_e4m3_causal: mma_sync emulated ok, reference OK
// CHECK-DAG: paged_kv_e4m3_f16_window: mma_sync emulated ok, reference OK
// CHECK-DAG: kv_e4m3_d40: mma_sync emulated ok, reference OK
//
// Mutations of prefill_all_e4m3_causal's kernel: K widened from stage 0
// whatever the key tile (a wrong result); v_descale not applied (a wrong
// result); the e4m3 Q tile widened before its copy landed (the emulated
// cp.async lands only when waited for: widen_tile's ld.shared is reported).
// RUN: rm -rf %t.m && mkdir -p %t.m
// RUN: cp -r %t/prefill_all_e4m3_causal/pkg/kgen_attention_f8E4M3FN_h4x2_q37_kv45_d64_causal %t.m/pkg
// RUN: sed -E 's|(widen_tile<32, 64, 64>\(sk \+ 0 \* 2048, sk_e4m3) \+ stage \* 2048|\1|' %t.m/pkg/kernel.cu > %t.m/stage0.cu
// RUN: not diff -q %t.m/pkg/kernel.cu %t.m/stage0.cu
// RUN: not kgen-emulate %t.m/pkg --source %t.m/stage0.cu 2>&1 | FileCheck %s --check-prefix=WRONG
// WRONG: mma_sync emulated WRONG
// RUN: sed -E 's|^(  acc\.store\(.*), v[0-9]+\);$|\1);|' %t.m/pkg/kernel.cu > %t.m/nodv.cu
// RUN: not diff -q %t.m/pkg/kernel.cu %t.m/nodv.cu
// RUN: not kgen-emulate %t.m/pkg --source %t.m/nodv.cu 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: grep -v 'wait_stage<0>(); // the e4m3 tile has landed' %t.m/pkg/kernel.cu > %t.m/nowait.cu
// RUN: not diff -q %t.m/pkg/kernel.cu %t.m/nowait.cu
// RUN: not kgen-emulate %t.m/pkg --source %t.m/nowait.cu 2>&1 | FileCheck %s --check-prefix=NOWAIT
// NOWAIT: ld.shared by thread {{[0-9]+}} reads shared byte {{[0-9]+}} while a cp.async of thread {{[0-9]+}} into it has not completed

// Decode: bf16 queries, e4m3 cache, packed GQA, split-KV, kv_lens, k and v descales.
func.func @decode_kv_e4m3_split(%q: tensor<3x8x1x64xbf16>, %k: tensor<3x2x70x64xf8E4M3FN>, %v: tensor<3x2x70x64xf8E4M3FN>, %lens: tensor<3xi32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>)
    -> (tensor<3x8x1x64xbf16>, tensor<3x8x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<3xi32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 3, source = user>}
      : tensor<3x8x1x64xbf16>, tensor<3x2x70x64xf8E4M3FN>, tensor<3x2x70x64xf8E4M3FN> -> tensor<3x8x1x64xbf16>, tensor<3x8x1xf32>
  return %o, %lse : tensor<3x8x1x64xbf16>, tensor<3x8x1xf32>
}

// Prefill: e4m3 Q, K and V (f16 MMAs), causal, all three descales, f32 output.
func.func @prefill_all_e4m3_causal(%q: tensor<1x4x37x64xf8E4M3FN>, %k: tensor<1x2x45x64xf8E4M3FN>, %v: tensor<1x2x45x64xf8E4M3FN>, %dq: tensor<1xf32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>)
    -> (tensor<1x4x37x64xf32>, tensor<1x4x37xf32>) {
  %o, %lse = kgen.attention %q, %k, %v q_descale(%dq : tensor<1xf32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {causal, config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 32, block_n = 32, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x4x37x64xf8E4M3FN>, tensor<1x2x45x64xf8E4M3FN>, tensor<1x2x45x64xf8E4M3FN> -> tensor<1x4x37x64xf32>, tensor<1x4x37xf32>
  return %o, %lse : tensor<1x4x37x64xf32>, tensor<1x4x37xf32>
}

// f16 queries, a paged e4m3 cache (pages of 8), kv_lens, a local window and softcap.
func.func @paged_kv_e4m3_f16_window(%q: tensor<2x4x9x32xf16>, %k: tensor<12x1x8x32xf8E4M3FN>, %v: tensor<12x1x8x32xf8E4M3FN>, %lens: tensor<2xi32>, %bt: tensor<2x5xi32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>)
    -> tensor<2x4x9x32xf16> {
  %o = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) block_table(%bt : tensor<2x5xi32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {window_left = 11, window_right = 2, softcap = 15.0 : f32, config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 3, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<2x4x9x32xf16>, tensor<12x1x8x32xf8E4M3FN>, tensor<12x1x8x32xf8E4M3FN> -> tensor<2x4x9x32xf16>
  return %o : tensor<2x4x9x32xf16>
}

// Head dim 40: 40-byte e4m3 rows (element copies), no descales.
func.func @kv_e4m3_d40(%q: tensor<1x2x5x40xbf16>, %k: tensor<1x1x29x40xf8E4M3FN>, %v: tensor<1x1x29x40xf8E4M3FN>)
    -> tensor<1x2x5x40xbf16> {
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x5x40xbf16>, tensor<1x1x29x40xf8E4M3FN>, tensor<1x1x29x40xf8E4M3FN> -> tensor<1x2x5x40xbf16>
  return %o : tensor<1x2x5x40xbf16>
}
