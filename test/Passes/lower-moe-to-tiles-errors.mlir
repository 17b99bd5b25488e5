// kgen-lower-moe-to-tiles refuses, with an error naming why, what it cannot
// lower: a kgen.moe with configs whose extensions have no kernels (the
// DeepSeek routing over more than 256 experts), and
// a kgen.moe with only one of its two expert GEMM configs.
// RUN: kgen-opt %s --split-input-file --kgen-lower-moe-to-tiles --verify-diagnostics

func.func @deepseek_routing_512_experts(%x: tensor<8x32xbf16>, %l: tensor<8x512xf32>, %wg: tensor<512x32x32xbf16>, %wu: tensor<512x32x32xbf16>, %wd: tensor<512x32x32xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{has configs, but the DeepSeek routing kernel (sigmoid, correction bias, expert groups or scaling) takes at most 256 experts; got 512: drop the configs to run it on the reference path}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2, scoring = #kgen.scoring<sigmoid>, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = user>}
      : tensor<8x32xbf16>, tensor<8x512xf32>, tensor<512x32x32xbf16>, tensor<512x32x32xbf16>, tensor<512x32x32xbf16> -> tensor<8x32xbf16>
  return %y : tensor<8x32xbf16>
}

// -----

func.func @one_config(%x: tensor<8x32xbf16>, %l: tensor<8x4xf32>, %wg: tensor<4x32x48xbf16>, %wu: tensor<4x32x48xbf16>, %wd: tensor<4x48x32xbf16>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{needs both gate_up_config and down_config to be lowered (kgen-select-strategy writes both); it has one}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = user>}
      : tensor<8x32xbf16>, tensor<8x4xf32>, tensor<4x32x48xbf16>, tensor<4x32x48xbf16>, tensor<4x48x32xbf16> -> tensor<8x32xbf16>
  return %y : tensor<8x32xbf16>
}
