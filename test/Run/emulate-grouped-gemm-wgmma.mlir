// Grouped GEMMs on sm_90a's wgmma pipeline (kgen/block/GemmSm90.cuh: a TMA
// producer warpgroup, wgmma consumer warpgroups; A's box at the tile's first
// row of its expert, B a 3-D tensor map whose batch coordinate is the
// expert), standalone and as a kgen.moe's down GEMM beside an mma_sync
// gate-up GEMM, on the emulated device against the runtime's host reference.
// A's box runs into the next expert's rows, which are computed and not
// stored; a tile of rows in no group runs no K tile and stores zeros. The
// schedules on the CPU, exactly: the same module through check_tiled.py.
// RUN: rm -rf %t && mkdir -p %t && kgen-opt %s --kgen-pipeline="target=sm_90a output-dir=%t" -o /dev/null
// RUN: kgen-emulate %t/* | FileCheck %s
// CHECK-DAG: kgen_grouped_gemm_bf16_r150_e3_k192_n160 wgmma emulated ok
// CHECK-DAG: kgen_grouped_gemm_f16_r70_e5_k128_n256 wgmma emulated ok
// CHECK-DAG: kgen_moe_bf16_t40_e8_k2_h128_i192 mma_sync emulated ok
// RUN: %python %S/Inputs/check_tiled.py %s %t/tiled --pipeline=--kgen-lower-moe-to-tiles | FileCheck %s --check-prefix=TILED
// TILED-DAG: grouped_wgmma: OK
// TILED-DAG: grouped_wgmma_two_warpgroups_f16: OK
// TILED-DAG: moe_down_wgmma: OK
// TILED-NOT: MISMATCH
//
// Mutation that must be caught: every block reading expert 0's weights.
// RUN: sed 's|acc.v, tile.expert);|acc.v, 0);|' %t/kgen_grouped_gemm_bf16_r150_e3_k192_n160/kernel.cu > %t/expert0.cu
// RUN: not cmp -s %t/expert0.cu %t/kgen_grouped_gemm_bf16_r150_e3_k192_n160/kernel.cu
// RUN: not kgen-emulate %t/kgen_grouped_gemm_bf16_r150_e3_k192_n160 --source %t/expert0.cu 2>&1 | FileCheck %s --check-prefix=WRONG
// WRONG: emulated WRONG

// 64-row tiles, one consumer warpgroup; N = 160 leaves a partial N tile;
// rows before the first and after the last group, an empty expert (the
// kernels need non-decreasing offsets: constants here, drawn so by the
// runtime when emulated)
func.func @grouped_wgmma(%a: tensor<150x192xbf16>, %b: tensor<3x192x160xbf16>) -> tensor<150x160xbf16> {
  %off = arith.constant dense<[5, 70, 70, 141]> : tensor<4xi32>
  %d = kgen.grouped_gemm %a, %b, %off {config = #kgen.grouped_gemm_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 64, block_k = 64, warps_m = 4, warps_n = 1, stages = 3, source = user>}
      : tensor<150x192xbf16>, tensor<3x192x160xbf16>, tensor<4xi32> -> tensor<150x160xbf16>
  return %d : tensor<150x160xbf16>
}

// 128-row tiles over two consumer warpgroups, 256-wide N tiles, f16 with a
// relu epilogue and f32 output
func.func @grouped_wgmma_two_warpgroups_f16(%a: tensor<70x128xf16>, %b: tensor<5x128x256xf16>) -> tensor<70x256xf32> {
  %off = arith.constant dense<[0, 3, 40, 41, 41, 70]> : tensor<6xi32>
  %d = kgen.grouped_gemm %a, %b, %off {activation = #kgen.activation<relu>, config = #kgen.grouped_gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 2, source = user>}
      : tensor<70x128xf16>, tensor<5x128x256xf16>, tensor<6xi32> -> tensor<70x256xf32>
  return %d : tensor<70x256xf32>
}

// a layer whose down GEMM runs wgmma and gate-up mma_sync (the gated form)
func.func @moe_down_wgmma(%x: tensor<40x128xbf16>, %l: tensor<40x8xf32>, %wg: tensor<8x128x192xbf16>, %wu: tensor<8x128x192xbf16>, %wd: tensor<8x192x128xbf16>) -> tensor<40x128xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {renormalize, top_k = 2, gate_up_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 64, block_k = 32, warps_m = 1, warps_n = 4, stages = 3, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 128, block_k = 64, warps_m = 4, warps_n = 1, stages = 2, source = user>}
      : tensor<40x128xbf16>, tensor<40x8xf32>, tensor<8x128x192xbf16>, tensor<8x128x192xbf16>, tensor<8x192x128xbf16> -> tensor<40x128xbf16>
  return %y : tensor<40x128xbf16>
}
