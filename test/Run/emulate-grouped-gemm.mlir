// Standalone kgen.grouped_gemm packages (kgen-lower-moe-to-tiles, one
// kernel each) on the emulated device, judged by the runtime's grouped_gemm
// verification (runtime/include/kgen/runtime/GroupedGemm.h): D against the
// host reference at every row, every row in no group zero. The inputs are
// the runtime's fill, so the groups come from the seed (groupedGemmOffsets:
// E + 1 sorted draws in [0, R]; a head, rows before the first group, or a
// tail, rows after the last, on some seeds; an emptied expert on some). The
// seeds below give:
//   plain_none_e1   seed 1: offsets [5, 40], a head of 5 rows
//   gated_silu_e8   seed 1: [16, 16, 59, ..., 96], a head, expert 0 empty
//   gated_gelu_e40  seed 6: 40 groups over 70 rows, 6 empty, a tail of 2
//   gated_relu_e3   seed 6: [0, 28, 29, 48], a tail; f16 in, f32 out
// Then a mutation that must be found wrong: the gated epilogue's relu
// swapped for silu.
// RUN: rm -rf %t && kgen-opt %s --kgen-lower-moe-to-tiles --kgen-emit-packages="output-dir=%t" -o %t.mlir
// RUN: echo 1 kgen_grouped_gemm_bf16_r40_e1_k64_n64 1 kgen_grouped_gemm_bf16_r96_e8_k64_n96 6 kgen_grouped_gemm_f16_r70_e40_k32_n64 6 kgen_grouped_gemm_f16_r50_e3_k32_n48 \
// RUN:   | xargs -n 2 -P 2 sh -c 'kgen-emulate --seed "$0" "%t/$1"' | FileCheck %s
// CHECK-DAG: kgen_grouped_gemm_bf16_r40_e1_k64_n64 mma_sync emulated ok
// CHECK-DAG: kgen_grouped_gemm_bf16_r96_e8_k64_n96 mma_sync emulated ok
// CHECK-DAG: kgen_grouped_gemm_f16_r70_e40_k32_n64 mma_sync emulated ok
// CHECK-DAG: kgen_grouped_gemm_f16_r50_e3_k32_n48 mma_sync emulated ok
// RUN: sed 's/Act::Relu>(acc_up/Act::Silu>(acc_up/' %t/kgen_grouped_gemm_f16_r50_e3_k32_n48/kernel.cu > %t/silu.cu
// RUN: not kgen-emulate --seed 6 --source %t/silu.cu %t/kgen_grouped_gemm_f16_r50_e3_k32_n48 2>&1 | FileCheck %s --check-prefix=SILU
// SILU: kgen_grouped_gemm_f16_r50_e3_k32_n48 mma_sync emulated WRONG
// SILU: wrong result over 50 of 50 rows: D: relative error

// One expert, no activation, block_m 16.
func.func @plain_none_e1(%a: tensor<40x64xbf16>, %b: tensor<1x64x64xbf16>, %off: tensor<2xi32>) -> tensor<40x64xbf16> {
  %d = kgen.grouped_gemm %a, %b, %off {config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = user>}
      : tensor<40x64xbf16>, tensor<1x64x64xbf16>, tensor<2xi32> -> tensor<40x64xbf16>
  return %d : tensor<40x64xbf16>
}

// Gated silu (an MoE expert's first layer), 8 experts, block_m 32.
func.func @gated_silu_e8(%a: tensor<96x64xbf16>, %b: tensor<8x64x96xbf16>, %bu: tensor<8x64x96xbf16>, %off: tensor<9xi32>) -> tensor<96x96xbf16> {
  %d = kgen.grouped_gemm %a, %b, %off gated(%bu : tensor<8x64x96xbf16>) {activation = #kgen.activation<silu>, config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = user>}
      : tensor<96x64xbf16>, tensor<8x64x96xbf16>, tensor<9xi32> -> tensor<96x96xbf16>
  return %d : tensor<96x96xbf16>
}

// Gated gelu in f16, 40 experts over 70 rows, block_m 64.
func.func @gated_gelu_e40(%a: tensor<70x32xf16>, %b: tensor<40x32x64xf16>, %bu: tensor<40x32x64xf16>, %off: tensor<41xi32>) -> tensor<70x64xf16> {
  %d = kgen.grouped_gemm %a, %b, %off gated(%bu : tensor<40x32x64xf16>) {activation = #kgen.activation<gelu>, config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, block_k = 16, warps_m = 2, warps_n = 2, stages = 4, source = user>}
      : tensor<70x32xf16>, tensor<40x32x64xf16>, tensor<41xi32> -> tensor<70x64xf16>
  return %d : tensor<70x64xf16>
}

// Gated relu, f16 in and f32 out (the tolerance is f32's: one rounding).
func.func @gated_relu_e3(%a: tensor<50x32xf16>, %b: tensor<3x32x48xf16>, %bu: tensor<3x32x48xf16>, %off: tensor<4xi32>) -> tensor<50x48xf32> {
  %d = kgen.grouped_gemm %a, %b, %off gated(%bu : tensor<3x32x48xf16>) {activation = #kgen.activation<relu>, config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = user>}
      : tensor<50x32xf16>, tensor<3x32x48xf16>, tensor<4xi32> -> tensor<50x48xf32>
  return %d : tensor<50x48xf32>
}
