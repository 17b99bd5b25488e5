// The attention family's emitted CUDA (kgen/block/Attention.cuh) on the
// emulated device, each compared there with the runtime's double-precision
// reference and then with the op's reference semantics (kgen-run) on the
// same inputs, within bf16's tolerance (exp2, the online rescaling and P
// rounded to the operand type change the last bits): every feature at small
// shapes, both kernels of split-KV packages. Mutations that must be caught
// follow.
// RUN: rm -rf %t && %python %S/Inputs/check_emulated.py %s %t --tolerance=1e-2 --jobs=2 | FileCheck %s
// CHECK-DAG: prefill_causal: mma_sync emulated ok, reference OK
// CHECK-DAG: prefill_d128_packed: mma_sync emulated ok, reference OK
// CHECK-DAG: prefill_8_warps: mma_sync emulated ok, reference OK
// CHECK-DAG: d256: mma_sync emulated ok, reference OK
// CHECK-DAG: f16_d40_f32_out: mma_sync emulated ok, reference OK
// CHECK-DAG: softcap_window: mma_sync emulated ok, reference OK
// CHECK-DAG: kv_lens_causal: mma_sync emulated ok, reference OK
// CHECK-DAG: decode_split: mma_sync emulated ok, reference OK
// CHECK-DAG: local_window: mma_sync emulated ok, reference OK
// CHECK-DAG: alibi_decode_split: mma_sync emulated ok, reference OK
// CHECK-DAG: split_no_lse: mma_sync emulated ok, reference OK
//
// Mutations of the emitted kernel (proof that this check can fail):
// a dropped causal mask gives a wrong result; a missing barrier before a
// stage is refilled is a race. The package is prefill_causal's, as the
// check above emitted it.
// RUN: rm -rf %t.m && mkdir -p %t.m
// RUN: sed 's|__syncthreads(); // the stage may be refilled next||' %t/prefill_causal/pkg/kgen_attention_bf16_h4x2_q37_kv150_d64_causal/kernel.cu > %t.m/nosync.cu
// RUN: not kgen-emulate %t/prefill_causal/pkg/kgen_attention_bf16_h4x2_q37_kv150_d64_causal --source %t.m/nosync.cu 2>&1 | FileCheck %s --check-prefix=NOSYNC
// NOSYNC: race: cp.async.cg.shared.global 16 by thread {{[0-9]+}} writes shared byte {{[0-9]+}} that {{other threads|another thread}} read with no barrier between them
// RUN: sed 's|online_softmax<true, false, false, false, false>|online_softmax<false, false, false, false, false>|' %t/prefill_causal/pkg/kgen_attention_bf16_h4x2_q37_kv150_d64_causal/kernel.cu > %t.m/nocausal.cu
// RUN: grep -q 'online_softmax<false, false, false, false, false>' %t.m/nocausal.cu
// RUN: not kgen-emulate %t/prefill_causal/pkg/kgen_attention_bf16_h4x2_q37_kv150_d64_causal --source %t.m/nocausal.cu 2>&1 | FileCheck %s --check-prefix=WRONG
// WRONG: mma_sync emulated WRONG

// Prefill, causal, GQA, Sq != Skv: 4 warps, the 64 x 64 tiles of head dim 64.
func.func @prefill_causal(%q: tensor<1x4x37x64xbf16>, %k: tensor<1x2x150x64xbf16>, %v: tensor<1x2x150x64xbf16>)
    -> (tensor<1x4x37x64xbf16>, tensor<1x4x37xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x4x37x64xbf16>, tensor<1x2x150x64xbf16>, tensor<1x2x150x64xbf16> -> tensor<1x4x37x64xbf16>, tensor<1x4x37xf32>
  return %o, %lse : tensor<1x4x37x64xbf16>, tensor<1x4x37xf32>
}

// Head dim 128, packed GQA (tiles span query heads).
func.func @prefill_d128_packed(%q: tensor<1x8x20x128xbf16>, %k: tensor<1x2x90x128xbf16>, %v: tensor<1x2x90x128xbf16>)
    -> (tensor<1x8x20x128xbf16>, tensor<1x8x20xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x8x20x128xbf16>, tensor<1x2x90x128xbf16>, tensor<1x2x90x128xbf16> -> tensor<1x8x20x128xbf16>, tensor<1x8x20xf32>
  return %o, %lse : tensor<1x8x20x128xbf16>, tensor<1x8x20xf32>
}

// 128 rows over 8 warps, 3 stages.
func.func @prefill_8_warps(%q: tensor<1x1x130x128xbf16>, %k: tensor<1x1x70x128xbf16>, %v: tensor<1x1x70x128xbf16>)
    -> (tensor<1x1x130x128xbf16>, tensor<1x1x130xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 64, warps_m = 8, stages = 3, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x1x130x128xbf16>, tensor<1x1x70x128xbf16>, tensor<1x1x70x128xbf16> -> tensor<1x1x130x128xbf16>, tensor<1x1x130xf32>
  return %o, %lse : tensor<1x1x130x128xbf16>, tensor<1x1x130xf32>
}

// Head dim 256: block_n 32.
func.func @d256(%q: tensor<1x1x40x256xbf16>, %k: tensor<1x1x50x256xbf16>, %v: tensor<1x1x50x256xbf16>)
    -> (tensor<1x1x40x256xbf16>, tensor<1x1x40xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 32, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x1x40x256xbf16>, tensor<1x1x50x256xbf16>, tensor<1x1x50x256xbf16> -> tensor<1x1x40x256xbf16>, tensor<1x1x40xf32>
  return %o, %lse : tensor<1x1x40x256xbf16>, tensor<1x1x40xf32>
}

// f16, head dim 40 (tiles of 48), f32 output, one stage.
func.func @f16_d40_f32_out(%q: tensor<1x2x30x40xf16>, %k: tensor<1x2x45x40xf16>, %v: tensor<1x2x45x40xf16>)
    -> (tensor<1x2x30x40xf32>, tensor<1x2x30xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 1, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x2x30x40xf16>, tensor<1x2x45x40xf16>, tensor<1x2x45x40xf16> -> tensor<1x2x30x40xf32>, tensor<1x2x30xf32>
  return %o, %lse : tensor<1x2x30x40xf32>, tensor<1x2x30xf32>
}

// Softcap, scale, sliding window, head dim 72.
func.func @softcap_window(%q: tensor<2x2x33x72xbf16>, %k: tensor<2x1x60x72xbf16>, %v: tensor<2x1x60x72xbf16>)
    -> (tensor<2x2x33x72xbf16>, tensor<2x2x33xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, sliding_window = 19, softcap = 2.0 : f32, scale = 0.5 : f32, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 32, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<2x2x33x72xbf16>, tensor<2x1x60x72xbf16>, tensor<2x1x60x72xbf16> -> tensor<2x2x33x72xbf16>, tensor<2x2x33xf32>
  return %o, %lse : tensor<2x2x33x72xbf16>, tensor<2x2x33xf32>
}

// kv_lens: empty, short and full sequences; rows with no visible key.
func.func @kv_lens_causal(%q: tensor<3x2x12x64xbf16>, %k: tensor<3x2x40x64xbf16>, %v: tensor<3x2x40x64xbf16>, %lens: tensor<3xi32>)
    -> (tensor<3x2x12x64xbf16>, tensor<3x2x12xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<3xi32>) {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<3x2x12x64xbf16>, tensor<3x2x40x64xbf16>, tensor<3x2x40x64xbf16> -> tensor<3x2x12x64xbf16>, tensor<3x2x12xf32>
  return %o, %lse : tensor<3x2x12x64xbf16>, tensor<3x2x12xf32>
}

// Decode: 4 heads per KV head packed, split-KV and the combine kernel.
func.func @decode_split(%q: tensor<2x8x1x128xbf16>, %k: tensor<2x2x300x128xbf16>, %v: tensor<2x2x300x128xbf16>, %lens: tensor<2xi32>)
    -> (tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 4, source = user>}
      : tensor<2x8x1x128xbf16>, tensor<2x2x300x128xbf16>, tensor<2x2x300x128xbf16> -> tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>
  return %o, %lse : tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>
}

// A local window (9 keys before, 20 after), not causal, kv_lens.
func.func @local_window(%q: tensor<2x2x40x64xbf16>, %k: tensor<2x1x90x64xbf16>, %v: tensor<2x1x90x64xbf16>, %lens: tensor<2xi32>)
    -> (tensor<2x2x40x64xbf16>, tensor<2x2x40xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) {window_left = 9, window_right = 20, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<2x2x40x64xbf16>, tensor<2x1x90x64xbf16>, tensor<2x1x90x64xbf16> -> tensor<2x2x40x64xbf16>, tensor<2x2x40xf32>
  return %o, %lse : tensor<2x2x40x64xbf16>, tensor<2x2x40xf32>
}

// ALiBi slopes per query head, packed decode rows of 4 heads, split-KV.
func.func @alibi_decode_split(%q: tensor<2x8x1x128xbf16>, %k: tensor<2x2x200x128xbf16>, %v: tensor<2x2x200x128xbf16>, %slopes: tensor<8xf32>)
    -> (tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v alibi(%slopes : tensor<8xf32>) {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 3, source = user>}
      : tensor<2x8x1x128xbf16>, tensor<2x2x200x128xbf16>, tensor<2x2x200x128xbf16> -> tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>
  return %o, %lse : tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>
}

// Split-KV without an LSE result, more splits than needed.
func.func @split_no_lse(%q: tensor<1x2x4x64xbf16>, %k: tensor<1x1x100x64xbf16>, %v: tensor<1x1x100x64xbf16>)
    -> (tensor<1x2x4x64xbf16>) {
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 3, source = user>}
      : tensor<1x2x4x64xbf16>, tensor<1x1x100x64xbf16>, tensor<1x1x100x64xbf16> -> tensor<1x2x4x64xbf16>
  return %o : tensor<1x2x4x64xbf16>
}

