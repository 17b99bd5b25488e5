// The attention family's sm_90a kernel (FlashAttention-3's schedule,
// kgen/block/AttentionSm90.cuh: a TMA producer warpgroup, wgmma consumer
// warpgroups of 64 rows, P from registers, ping-pong turns through named
// barriers) on the emulated device, each compared there with the runtime's
// double-precision reference and then with the op's reference semantics
// (kgen-run) on the same inputs, within bf16's tolerance: one to three
// consumer warpgroups, one and two stages, every mask, kv_lens, ALiBi,
// packed GQA with split-KV, f16 with f32 output, head dims 64 to 256
// (72 in tiles of 128), each with and without overlap_softmax (a key
// tile's softmax under the previous tile's P V). Mutations that must be
// caught follow.
// RUN: rm -rf %t && %python %S/Inputs/check_emulated.py %s %t --tolerance=1e-2 --jobs=2 | FileCheck %s
// CHECK-DAG: prefill_causal_pingpong: wgmma emulated ok, reference OK
// CHECK-DAG: d128_one_stage: wgmma emulated ok, reference OK
// CHECK-DAG: three_groups_masks: wgmma emulated ok, reference OK
// CHECK-DAG: kv_lens_f16_f32_out: wgmma emulated ok, reference OK
// CHECK-DAG: decode_split_packed: wgmma emulated ok, reference OK
// CHECK-DAG: d256_local_alibi: wgmma emulated ok, reference OK
// CHECK-DAG: prefill_causal_pingpong_overlap: wgmma emulated ok, reference OK
// CHECK-DAG: three_groups_masks_overlap: wgmma emulated ok, reference OK
// CHECK-DAG: d256_local_alibi_overlap: wgmma emulated ok, reference OK
//
// Mutations of prefill_causal_pingpong's kernel, as the check above emitted
// it: P V issued before V's TMA load completed (a hazard), the ping-pong
// ring's first turn never handed out (a deadlock), P packed from the wrong
// accumulators (a wrong result); and of its overlap_softmax twin's.
// RUN: rm -rf %t.m && mkdir -p %t.m
// RUN: sed 's|wait_pv_operand(st, phase);||' %t/prefill_causal_pingpong/pkg/kgen_attention_bf16_h4x2_q37_kv150_d64_causal/kernel.cu > %t.m/nov.cu
// RUN: not grep -q 'wait_pv_operand(st, phase)' %t.m/nov.cu
// RUN: not kgen-emulate %t/prefill_causal_pingpong/pkg/kgen_attention_bf16_h4x2_q37_kv150_d64_causal --source %t.m/nov.cu 2>&1 | FileCheck %s --check-prefix=NOWAIT
// NOWAIT: wgmma.mma_async reads shared byte {{[0-9]+}} while the TMA load into it has not completed
// RUN: sed 's|kgen::cuda::named_barrier_arrive(turn_barrier(0), 256);||' %t/prefill_causal_pingpong/pkg/kgen_attention_bf16_h4x2_q37_kv150_d64_causal/kernel.cu > %t.m/noturn.cu
// RUN: not kgen-emulate %t/prefill_causal_pingpong/pkg/kgen_attention_bf16_h4x2_q37_kv150_d64_causal --source %t.m/noturn.cu 2>&1 | FileCheck %s --check-prefix=NOTURN
// NOTURN: deadlock in kernel kgen_attention_bf16_h4x2_q37_kv150_d64_causal
// NOTURN: threads 128..255: at bar.sync (named barrier)
// RUN: sed 's|&v\[(mt \* kNTiles + 2 \* kk + q / 2) \* 4 + 2 \* (q % 2)\]|\&v[(mt * kNTiles + 2 * kk + q % 2) * 4 + 2 * (q / 2)]|' %t/prefill_causal_pingpong/pkg/kgen_attention_bf16_h4x2_q37_kv150_d64_causal/kernel.cu > %t.m/badp.cu
// RUN: grep -q 'q % 2) \* 4 + 2 \* (q / 2)' %t.m/badp.cu
// RUN: not kgen-emulate %t/prefill_causal_pingpong/pkg/kgen_attention_bf16_h4x2_q37_kv150_d64_causal --source %t.m/badp.cu 2>&1 | FileCheck %s --check-prefix=WRONG
// WRONG: wgmma emulated WRONG
// overlap_softmax: the stage of the previous tile's P V freed (and refilled)
// before that P V was waited for.
// RUN: sed 's|kgen::cuda::wgmma_wait<0>(); // the previous P V is done||' %t/prefill_causal_pingpong_overlap/pkg/kgen_attention_bf16_h4x2_q37_kv150_d64_causal/kernel.cu > %t.m/nowaitpv.cu
// RUN: not kgen-emulate %t/prefill_causal_pingpong_overlap/pkg/kgen_attention_bf16_h4x2_q37_kv150_d64_causal --source %t.m/nowaitpv.cu 2>&1 | FileCheck %s --check-prefix=NOWAITPV
// NOWAITPV: wgmma.mma_async: shared byte {{[0-9]+}} it reads changed between the instruction's issue and the wgmma.wait_group that completes it

// Prefill, causal, GQA, Sq != Skv: two consumer warpgroups taking turns.
func.func @prefill_causal_pingpong(%q: tensor<1x4x37x64xbf16>, %k: tensor<1x2x150x64xbf16>, %v: tensor<1x2x150x64xbf16>)
    -> (tensor<1x4x37x64xbf16>, tensor<1x4x37xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 64, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = true, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x4x37x64xbf16>, tensor<1x2x150x64xbf16>, tensor<1x2x150x64xbf16> -> tensor<1x4x37x64xbf16>, tensor<1x4x37xf32>
  return %o, %lse : tensor<1x4x37x64xbf16>, tensor<1x4x37xf32>
}

// Head dim 128, one consumer warpgroup, one stage (the ring wraps every tile).
func.func @d128_one_stage(%q: tensor<1x1x70x128xbf16>, %k: tensor<1x1x100x128xbf16>, %v: tensor<1x1x100x128xbf16>)
    -> (tensor<1x1x70x128xbf16>, tensor<1x1x70xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 64, warps_m = 4, stages = 1, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x1x70x128xbf16>, tensor<1x1x100x128xbf16>, tensor<1x1x100x128xbf16> -> tensor<1x1x70x128xbf16>, tensor<1x1x70xf32>
  return %o, %lse : tensor<1x1x70x128xbf16>, tensor<1x1x70xf32>
}

// Three consumer warpgroups in a ring, softcap, scale, sliding window, head dim 72 (tiles of 128).
func.func @three_groups_masks(%q: tensor<2x2x33x72xbf16>, %k: tensor<2x1x60x72xbf16>, %v: tensor<2x1x60x72xbf16>)
    -> (tensor<2x2x33x72xbf16>, tensor<2x2x33xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, sliding_window = 19, softcap = 2.0 : f32, scale = 0.5 : f32, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 192, block_n = 32, warps_m = 12, stages = 2, consumer_warpgroups = 3, ping_pong = true, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<2x2x33x72xbf16>, tensor<2x1x60x72xbf16>, tensor<2x1x60x72xbf16> -> tensor<2x2x33x72xbf16>, tensor<2x2x33xf32>
  return %o, %lse : tensor<2x2x33x72xbf16>, tensor<2x2x33xf32>
}

// kv_lens (empty, short, full), f16 with f32 output, rows with no visible key.
func.func @kv_lens_f16_f32_out(%q: tensor<3x2x12x64xf16>, %k: tensor<3x2x40x64xf16>, %v: tensor<3x2x40x64xf16>, %lens: tensor<3xi32>)
    -> (tensor<3x2x12x64xf32>, tensor<3x2x12xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<3xi32>) {causal, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 16, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<3x2x12x64xf16>, tensor<3x2x40x64xf16>, tensor<3x2x40x64xf16> -> tensor<3x2x12x64xf32>, tensor<3x2x12xf32>
  return %o, %lse : tensor<3x2x12x64xf32>, tensor<3x2x12xf32>
}

// Decode: packed GQA rows, split-KV and its combine kernel, kv_lens.
func.func @decode_split_packed(%q: tensor<2x8x1x128xbf16>, %k: tensor<2x2x300x128xbf16>, %v: tensor<2x2x300x128xbf16>, %lens: tensor<2xi32>)
    -> (tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) {config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 3, source = user>}
      : tensor<2x8x1x128xbf16>, tensor<2x2x300x128xbf16>, tensor<2x2x300x128xbf16> -> tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>
  return %o, %lse : tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>
}

// Head dim 256, a local window (not causal), ALiBi slopes.
func.func @d256_local_alibi(%q: tensor<1x2x40x256xbf16>, %k: tensor<1x1x90x256xbf16>, %v: tensor<1x1x90x256xbf16>, %slopes: tensor<2xf32>)
    -> (tensor<1x2x40x256xbf16>, tensor<1x2x40xf32>) {
  %o, %lse = kgen.attention %q, %k, %v alibi(%slopes : tensor<2xf32>) {window_left = 9, window_right = 20, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 32, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x2x40x256xbf16>, tensor<1x1x90x256xbf16>, tensor<1x1x90x256xbf16> -> tensor<1x2x40x256xbf16>, tensor<1x2x40xf32>
  return %o, %lse : tensor<1x2x40x256xbf16>, tensor<1x2x40xf32>
}

// Prefill, causal, GQA: two warpgroups in ping-pong, each key tile's softmax under the previous tile's P V (overlap_softmax).
func.func @prefill_causal_pingpong_overlap(%q: tensor<1x4x37x64xbf16>, %k: tensor<1x2x150x64xbf16>, %v: tensor<1x2x150x64xbf16>)
    -> (tensor<1x4x37x64xbf16>, tensor<1x4x37xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 64, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = true, overlap_softmax = true, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x4x37x64xbf16>, tensor<1x2x150x64xbf16>, tensor<1x2x150x64xbf16> -> tensor<1x4x37x64xbf16>, tensor<1x4x37xf32>
  return %o, %lse : tensor<1x4x37x64xbf16>, tensor<1x4x37xf32>
}

// Three warpgroups in a ring with overlap_softmax, softcap, scale, sliding window, head dim 72.
func.func @three_groups_masks_overlap(%q: tensor<2x2x33x72xbf16>, %k: tensor<2x1x60x72xbf16>, %v: tensor<2x1x60x72xbf16>)
    -> (tensor<2x2x33x72xbf16>, tensor<2x2x33xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, sliding_window = 19, softcap = 2.0 : f32, scale = 0.5 : f32, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 192, block_n = 32, warps_m = 12, stages = 2, consumer_warpgroups = 3, ping_pong = true, overlap_softmax = true, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<2x2x33x72xbf16>, tensor<2x1x60x72xbf16>, tensor<2x1x60x72xbf16> -> tensor<2x2x33x72xbf16>, tensor<2x2x33xf32>
  return %o, %lse : tensor<2x2x33x72xbf16>, tensor<2x2x33xf32>
}

// Head dim 256 with overlap_softmax, a local window, ALiBi.
func.func @d256_local_alibi_overlap(%q: tensor<1x2x40x256xbf16>, %k: tensor<1x1x90x256xbf16>, %v: tensor<1x1x90x256xbf16>, %slopes: tensor<2xf32>)
    -> (tensor<1x2x40x256xbf16>, tensor<1x2x40xf32>) {
  %o, %lse = kgen.attention %q, %k, %v alibi(%slopes : tensor<2xf32>) {window_left = 9, window_right = 20, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 32, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = false, overlap_softmax = true, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x2x40x256xbf16>, tensor<1x1x90x256xbf16>, tensor<1x1x90x256xbf16> -> tensor<1x2x40x256xbf16>, tensor<1x2x40xf32>
  return %o, %lse : tensor<1x2x40x256xbf16>, tensor<1x2x40xf32>
}
