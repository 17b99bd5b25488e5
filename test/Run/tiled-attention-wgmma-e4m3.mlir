// FlashAttention-3's FP8 schedules checked on the CPU: all-e4m3 attention
// lowered with a wgmma config (kgen-lower-attention-to-tiles: no widening;
// kgen.tile.qk on the e4m3 tiles, kgen.tile.pv rounding P to e4m3 as the
// kernel's P V does) and run block by block, against the reference
// semantics, which keeps P in f32: the comparison has e4m3's unit
// roundoff (2^-4, relative Frobenius; the log-sum-exp, which P's rounding
// does not touch, is held to the same bound by the script). Odd lengths
// (113 x 203), causal rows with no visible key (kv_lens), a local window
// with both extents, packed GQA with split-KV, one to three warpgroups,
// head dims 48 (tiles of 64) to 256. The emulated kernels are compared
// with these same tile forms at 1e-3 (emulate-attention-wgmma-e4m3.mlir).
// RUN: %python %S/Inputs/check_tiled.py %s %t --pipeline=--kgen-lower-attention-to-tiles --tolerance=6.25e-2 | FileCheck %s
// CHECK-DAG: fp8_odd_causal_lens: OK
// CHECK-DAG: fp8_local_window_d256: OK
// CHECK-DAG: fp8_decode_split_packed: OK
// CHECK-DAG: fp8_three_groups_d48: OK

func.func @fp8_odd_causal_lens(%q: tensor<2x4x113x128xf8E4M3FN>, %k: tensor<2x2x203x128xf8E4M3FN>, %v: tensor<2x2x203x128xf8E4M3FN>, %lens: tensor<2xi32>, %dq: tensor<1xf32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>)
    -> (tensor<2x4x113x128xbf16>, tensor<2x4x113xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) q_descale(%dq : tensor<1xf32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {causal, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 128, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = true, overlap_softmax = true, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<2x4x113x128xf8E4M3FN>, tensor<2x2x203x128xf8E4M3FN>, tensor<2x2x203x128xf8E4M3FN> -> tensor<2x4x113x128xbf16>, tensor<2x4x113xf32>
  return %o, %lse : tensor<2x4x113x128xbf16>, tensor<2x4x113xf32>
}

func.func @fp8_local_window_d256(%q: tensor<1x2x77x256xf8E4M3FN>, %k: tensor<1x1x150x256xf8E4M3FN>, %v: tensor<1x1x150x256xf8E4M3FN>)
    -> (tensor<1x2x77x256xf32>, tensor<1x2x77xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {window_left = 20, window_right = 5, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 64, warps_m = 4, stages = 1, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x2x77x256xf8E4M3FN>, tensor<1x1x150x256xf8E4M3FN>, tensor<1x1x150x256xf8E4M3FN> -> tensor<1x2x77x256xf32>, tensor<1x2x77xf32>
  return %o, %lse : tensor<1x2x77x256xf32>, tensor<1x2x77xf32>
}

func.func @fp8_decode_split_packed(%q: tensor<3x8x1x64xf8E4M3FN>, %k: tensor<3x2x300x64xf8E4M3FN>, %v: tensor<3x2x300x64xf8E4M3FN>, %lens: tensor<3xi32>)
    -> (tensor<3x8x1x64xbf16>, tensor<3x8x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<3xi32>) {config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = true, pack_gqa = true, split_kv = 4, source = user>}
      : tensor<3x8x1x64xf8E4M3FN>, tensor<3x2x300x64xf8E4M3FN>, tensor<3x2x300x64xf8E4M3FN> -> tensor<3x8x1x64xbf16>, tensor<3x8x1xf32>
  return %o, %lse : tensor<3x8x1x64xbf16>, tensor<3x8x1xf32>
}

func.func @fp8_three_groups_d48(%q: tensor<1x2x200x48xf8E4M3FN>, %k: tensor<1x2x180x48xf8E4M3FN>, %v: tensor<1x2x180x48xf8E4M3FN>)
    -> (tensor<1x2x200x48xf16>, tensor<1x2x200xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, softcap = 20.0 : f32, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 192, block_n = 64, warps_m = 12, stages = 2, consumer_warpgroups = 3, ping_pong = true, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x2x200x48xf8E4M3FN>, tensor<1x2x180x48xf8E4M3FN>, tensor<1x2x180x48xf8E4M3FN> -> tensor<1x2x200x48xf16>, tensor<1x2x200xf32>
  return %o, %lse : tensor<1x2x200x48xf16>, tensor<1x2x200xf32>
}
