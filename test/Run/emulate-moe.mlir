// The MoE package's emitted CUDA (kgen/block/Moe.cuh and the grouped
// GEMM main loop of kgen/block/Gemm.cuh, six kernels) on the emulated
// device: each compared there with the runtime's double-precision host
// reference (y at every token, expert_ids exactly), then with the op's
// reference semantics (kgen-run) on the same inputs within bf16's
// tolerance (the tensor cores sum in another order, so the rounding of the
// gated activation may differ in the last bit). Mutations that must be
// caught follow.
// RUN: rm -rf %t && %python %S/Inputs/check_emulated.py %s %t --tolerance=1e-2 | FileCheck %s
// CHECK-DAG: decode_mixtral_like: mma_sync emulated ok, reference OK
// CHECK-DAG: prefill_32_rows: mma_sync emulated ok, reference OK
// CHECK-DAG: f16_gelu: mma_sync emulated ok, reference OK
//
// Mutations of the emitted package (proof that this check can fail): the
// routing without its renormalisation gives wrong weights; a missing barrier
// before a stage of the grouped GEMM is refilled is a race.
// RUN: rm -rf %t.m && mkdir -p %t.m && kgen-opt %s --kgen-pipeline="target=sm_80 output-dir=%t.m" -o /dev/null
// RUN: sed 's|moe_route<128, 4, 2, true>|moe_route<128, 4, 2, false>|' %t.m/kgen_moe_bf16_t2_e8_k2_h64_i128/kernel.cu > %t.m/norenorm.cu
// RUN: grep -q 'moe_route<128, 4, 2, false>' %t.m/norenorm.cu
// RUN: not kgen-emulate %t.m/kgen_moe_bf16_t2_e8_k2_h64_i128 --source %t.m/norenorm.cu 2>&1 | FileCheck %s --check-prefix=WRONG
// WRONG: emulated WRONG
// RUN: sed 's|__syncthreads(); // the stage may be refilled next||' %t.m/kgen_moe_bf16_t37_e4_k2_h96_i64/kernel.cu > %t.m/nosync.cu
// RUN: not kgen-emulate %t.m/kgen_moe_bf16_t37_e4_k2_h96_i64 --source %t.m/nosync.cu 2>&1 | FileCheck %s --check-prefix=NOSYNC
// NOSYNC: race:

// decode: 2 tokens, top-2 of 8, 16-row tiles (most rows masked)
func.func @decode_mixtral_like(%x: tensor<2x64xbf16>, %l: tensor<2x8xf32>, %wg: tensor<8x64x128xbf16>, %wu: tensor<8x64x128xbf16>, %wd: tensor<8x128x64xbf16>) -> tensor<2x64xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {renormalize, top_k = 2, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 64, block_k = 32, warps_m = 1, warps_n = 4, stages = 4, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = user>}
      : tensor<2x64xbf16>, tensor<2x8xf32>, tensor<8x64x128xbf16>, tensor<8x64x128xbf16>, tensor<8x128x64xbf16> -> tensor<2x64xbf16>
  return %y : tensor<2x64xbf16>
}

// 37 tokens over 4 experts: 32-row and 64-row tiles (sm_90a config, mma_sync)
func.func @prefill_32_rows(%x: tensor<37x96xbf16>, %l: tensor<37x4xf32>, %wg: tensor<4x96x64xbf16>, %wu: tensor<4x96x64xbf16>, %wd: tensor<4x64x96xbf16>) -> tensor<37x96xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {renormalize, top_k = 2, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 64, block_k = 32, warps_m = 1, warps_n = 4, stages = 4, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 64, block_n = 64, block_k = 16, warps_m = 2, warps_n = 2, stages = 2, source = user>}
      : tensor<37x96xbf16>, tensor<37x4xf32>, tensor<4x96x64xbf16>, tensor<4x96x64xbf16>, tensor<4x64x96xbf16> -> tensor<37x96xbf16>
  return %y : tensor<37x96xbf16>
}


// f16, gelu, top_k = E, H and I not multiples of the tiles
func.func @f16_gelu(%x: tensor<20x40xf16>, %l: tensor<20x3xf32>, %wg: tensor<3x40x56xf16>, %wu: tensor<3x40x56xf16>, %wd: tensor<3x56x40xf16>) -> tensor<20x40xf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {renormalize, activation = #kgen.activation<gelu>, top_k = 3, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 64, block_k = 32, warps_m = 1, warps_n = 4, stages = 4, source = user>}
      : tensor<20x40xf16>, tensor<20x3xf32>, tensor<3x40x56xf16>, tensor<3x40x56xf16>, tensor<3x56x40xf16> -> tensor<20x40xf16>
  return %y : tensor<20x40xf16>
}

