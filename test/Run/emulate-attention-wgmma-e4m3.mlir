// FlashAttention-3's FP8 path on the emulated device: e4m3 Q, K and V on
// the sm_90a wgmma kernel (kgen/block/AttentionSm90.cuh with
// __nv_fp8_e4m3): k32 wgmmas for QK^T from 64-byte-swizzled TMA tiles, V
// transposed in shared memory by the producer warpgroup's other warps
// (e4m3 wgmma reads K-major operands only), P rounded to e4m3 and packed
// into the A fragments in V^T's key order. Each package runs against the
// runtime's double-precision reference (within e4m3's unit roundoff: P is
// rounded to e4m3), then against the tile-level form on the CPU, which
// rounds P where the kernel does (kgen.tile.pv on e4m3 V), within 1e-3:
// two and three consumer warpgroups, ping-pong, overlap_softmax, one and
// two stages, head dims 64 to 256 (48 in tiles of 64), every descale,
// kv_lens, masks, packed GQA with split-KV. Mutations that must be caught
// follow.
// RUN: rm -rf %t && %python %S/Inputs/check_emulated.py %s %t --tolerance=1e-3 --jobs=2 --against=--kgen-lower-attention-to-tiles | FileCheck %s
// CHECK-DAG: fp8_causal_pingpong_overlap: wgmma emulated ok, tile form OK
// CHECK-DAG: fp8_d64_three_groups_lens: wgmma emulated ok, tile form OK
// CHECK-DAG: fp8_d256_local_softcap_alibi: wgmma emulated ok, tile form OK
// CHECK-DAG: fp8_d48_wide_keys: wgmma emulated ok, tile form OK
// CHECK-DAG: fp8_decode_split_packed: wgmma emulated ok, tile form OK
//
// Mutations of fp8_causal_pingpong_overlap's kernel: the transposer's
// writes not fenced for the async proxy (wgmma would read stale bytes); the
// transposers never arriving on the stage's vt_full (P V waits forever);
// V^T filled from the keys in plain order (2q .. 2q + 3 for 2q, 2q + 1,
// 2q + 8, 2q + 9: a wrong result); P V waiting for V's TMA load instead
// of its transpose (a race: with seed 3 the emulated schedule has a
// transposer store into V^T between a wgmma's issue and its wait, which
// the emulator reports; other seeds finish the transpose first, and an
// mbarrier-ordered race is not tracked: docs/emulated-device.md).
// RUN: rm -rf %t.m && mkdir -p %t.m
// RUN: cp -r %t/fp8_causal_pingpong_overlap/pkg/kgen_attention_f8E4M3FN_h4x2_q150_kv300_d128_causal %t.m/pkg
// RUN: sed 's|kgen::cuda::fence_proxy_async(); // the writes, for wgmma.s reads||' %t.m/pkg/kernel.cu > %t.m/nofence.cu
// RUN: not diff -q %t.m/pkg/kernel.cu %t.m/nofence.cu
// RUN: not kgen-emulate %t.m/pkg --source %t.m/nofence.cu 2>&1 | FileCheck %s --check-prefix=NOFENCE
// NOFENCE: wgmma.mma_async reads shared byte {{[0-9]+}} that thread {{[0-9]+}} stored through the generic proxy with no fence.proxy.async
// RUN: sed 's|kgen::cuda::mbar_arrive(&vt_full\[st\]);||' %t.m/pkg/kernel.cu > %t.m/noarrive.cu
// RUN: not diff -q %t.m/pkg/kernel.cu %t.m/noarrive.cu
// RUN: not kgen-emulate %t.m/pkg --source %t.m/noarrive.cu 2>&1 | FileCheck %s --check-prefix=NOARRIVE
// NOARRIVE: deadlock in kernel kgen_attention_f8E4M3FN_h4x2_q150_kv300_d128_causal
// RUN: sed 's|fp8_slice_key(pos + m)|pos + m|' %t.m/pkg/kernel.cu > %t.m/plainkeys.cu
// RUN: not diff -q %t.m/pkg/kernel.cu %t.m/plainkeys.cu
// RUN: not kgen-emulate %t.m/pkg --source %t.m/plainkeys.cu 2>&1 | FileCheck %s --check-prefix=WRONG
// WRONG: wgmma emulated WRONG
// RUN: sed 's|kFp8 ? &vt_full\[st\] : &v_full\[st\]|\&v_full[st]|' %t.m/pkg/kernel.cu > %t.m/novt.cu
// RUN: not diff -q %t.m/pkg/kernel.cu %t.m/novt.cu
// RUN: not kgen-emulate --seed 3 %t.m/pkg --source %t.m/novt.cu 2>&1 | FileCheck %s --check-prefix=NOVT
// NOVT: wgmma.mma_async: shared byte {{[0-9]+}} it reads changed between the instruction's issue and the wgmma.wait_group that completes it

// Causal prefill, GQA, Sq != Skv, all three descales, f16 output: FA3's
// FP8 schedule (two consumer warpgroups taking turns, each key tile's
// softmax under the previous tile's P V).
func.func @fp8_causal_pingpong_overlap(%q: tensor<1x4x150x128xf8E4M3FN>, %k: tensor<1x2x300x128xf8E4M3FN>, %v: tensor<1x2x300x128xf8E4M3FN>, %dq: tensor<1xf32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>)
    -> (tensor<1x4x150x128xf16>, tensor<1x4x150xf32>) {
  %o, %lse = kgen.attention %q, %k, %v q_descale(%dq : tensor<1xf32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {causal, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 128, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = true, overlap_softmax = true, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x4x150x128xf8E4M3FN>, tensor<1x2x300x128xf8E4M3FN>, tensor<1x2x300x128xf8E4M3FN> -> tensor<1x4x150x128xf16>, tensor<1x4x150xf32>
  return %o, %lse : tensor<1x4x150x128xf16>, tensor<1x4x150xf32>
}

// Head dim 64 (one 64-byte swizzle block), three warpgroups, one stage (the
// ring wraps every tile: the transposers wait on the same barrier phase
// by phase), kv_lens, bf16 output, no descale.
func.func @fp8_d64_three_groups_lens(%q: tensor<2x2x70x64xf8E4M3FN>, %k: tensor<2x2x200x64xf8E4M3FN>, %v: tensor<2x2x200x64xf8E4M3FN>, %lens: tensor<2xi32>)
    -> (tensor<2x2x70x64xbf16>, tensor<2x2x70xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) {causal, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 192, block_n = 64, warps_m = 12, stages = 1, consumer_warpgroups = 3, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<2x2x70x64xf8E4M3FN>, tensor<2x2x200x64xf8E4M3FN>, tensor<2x2x200x64xf8E4M3FN> -> tensor<2x2x70x64xbf16>, tensor<2x2x70xf32>
  return %o, %lse : tensor<2x2x70x64xbf16>, tensor<2x2x70xf32>
}

// Head dim 256 (P V's N = 256), a local window with both extents, softcap,
// ALiBi, f32 output, the v descale only.
func.func @fp8_d256_local_softcap_alibi(%q: tensor<1x2x90x256xf8E4M3FN>, %k: tensor<1x1x130x256xf8E4M3FN>, %v: tensor<1x1x130x256xf8E4M3FN>, %slopes: tensor<2xf32>, %dv: tensor<1xf32>)
    -> (tensor<1x2x90x256xf32>, tensor<1x2x90xf32>) {
  %o, %lse = kgen.attention %q, %k, %v alibi(%slopes : tensor<2xf32>) v_descale(%dv : tensor<1xf32>) {window_left = 40, window_right = 7, softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = true, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x2x90x256xf8E4M3FN>, tensor<1x1x130x256xf8E4M3FN>, tensor<1x1x130x256xf8E4M3FN> -> tensor<1x2x90x256xf32>, tensor<1x2x90xf32>
  return %o, %lse : tensor<1x2x90x256xf32>, tensor<1x2x90xf32>
}

// Head dim 48 in tiles of 64 (TMA zero-fills the padding columns), key
// tiles of 192 (three 64-key blocks of V^T), not causal.
func.func @fp8_d48_wide_keys(%q: tensor<1x2x100x48xf8E4M3FN>, %k: tensor<1x2x450x48xf8E4M3FN>, %v: tensor<1x2x450x48xf8E4M3FN>, %dq: tensor<1xf32>, %dk: tensor<1xf32>)
    -> (tensor<1x2x100x48xbf16>, tensor<1x2x100xf32>) {
  %o, %lse = kgen.attention %q, %k, %v q_descale(%dq : tensor<1xf32>) k_descale(%dk : tensor<1xf32>) {config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 192, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = true, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x2x100x48xf8E4M3FN>, tensor<1x2x450x48xf8E4M3FN>, tensor<1x2x450x48xf8E4M3FN> -> tensor<1x2x100x48xbf16>, tensor<1x2x100xf32>
  return %o, %lse : tensor<1x2x100x48xbf16>, tensor<1x2x100xf32>
}

// A short query block over a long cache: the query heads of a KV head
// packed into M, the keys split three ways (partials, then the combine).
func.func @fp8_decode_split_packed(%q: tensor<2x8x3x64xf8E4M3FN>, %k: tensor<2x2x500x64xf8E4M3FN>, %v: tensor<2x2x500x64xf8E4M3FN>, %lens: tensor<2xi32>)
    -> (tensor<2x8x3x64xbf16>, tensor<2x8x3xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) {causal, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 128, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 3, source = user>}
      : tensor<2x8x3x64xf8E4M3FN>, tensor<2x2x500x64xf8E4M3FN>, tensor<2x2x500x64xf8E4M3FN> -> tensor<2x8x3x64xbf16>, tensor<2x8x3xf32>
  return %o, %lse : tensor<2x8x3x64xbf16>, tensor<2x8x3xf32>
}
