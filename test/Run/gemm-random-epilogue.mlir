// kgen.gemm on the CPU reference against reference.py (float64 numpy from
// the semantics in KgenOps.td) on random inputs exact in the operand type:
// epilogues and the f16 accumulator.
// Tolerances (relative Frobenius) follow the result type: f32 1e-5, f16 and
// bf16 1e-2 (a few results one ulp off where f32 and float64 sums round
// differently), f8E4M3FN 1e-1.
//
// RUN: rm -rf %t
// RUN: %python %S/Inputs/reference.py gen gemm --dir %t/epi_gelu --seed 15 --dtype bf16 --out bf16 --m 8 --n 16 --k 32 --bias --residual --alpha 1.5 --beta 0.5 --act gelu
// RUN: kgen-run %s --entry=epi_gelu --input=%t/epi_gelu/a.npy,%t/epi_gelu/b.npy,%t/epi_gelu/bias.npy,%t/epi_gelu/c.npy \
// RUN:   --compare-file=0:%t/epi_gelu/expected0.npy --tolerance=1e-2 | FileCheck %s
// RUN: %python %S/Inputs/reference.py gen gemm --dir %t/epi_silu --seed 16 --dtype f32 --out f32 --m 8 --n 16 --k 32 --bias --act silu
// RUN: kgen-run %s --entry=epi_silu --input=%t/epi_silu/a.npy,%t/epi_silu/b.npy,%t/epi_silu/bias.npy \
// RUN:   --compare-file=0:%t/epi_silu/expected0.npy --tolerance=1e-5 | FileCheck %s
// RUN: %python %S/Inputs/reference.py gen gemm --dir %t/epi_relu --seed 17 --dtype f16 --out f16 --m 8 --n 16 --k 32 --residual --act relu
// RUN: kgen-run %s --entry=epi_relu --input=%t/epi_relu/a.npy,%t/epi_relu/b.npy,%t/epi_relu/c.npy \
// RUN:   --compare-file=0:%t/epi_relu/expected0.npy --tolerance=1e-2 | FileCheck %s
// RUN: %python %S/Inputs/reference.py gen gemm --dir %t/epi_batch --seed 18 --dtype f32 --out f32 --m 4 --n 8 --k 16 --batch 2 --broadcast-b --bias --residual --beta -2.0 --act gelu
// RUN: kgen-run %s --entry=epi_batch --input=%t/epi_batch/a.npy,%t/epi_batch/b.npy,%t/epi_batch/bias.npy,%t/epi_batch/c.npy \
// RUN:   --compare-file=0:%t/epi_batch/expected0.npy --tolerance=1e-5 | FileCheck %s
// RUN: %python %S/Inputs/reference.py gen gemm --dir %t/epi_f32_into_bf16 --seed 19 --dtype bf16 --out bf16 --m 8 --n 16 --k 32 --bias --residual --beta 0.25 --act silu --epi f32
// RUN: kgen-run %s --entry=epi_f32_into_bf16 --input=%t/epi_f32_into_bf16/a.npy,%t/epi_f32_into_bf16/b.npy,%t/epi_f32_into_bf16/bias.npy,%t/epi_f32_into_bf16/c.npy \
// RUN:   --compare-file=0:%t/epi_f32_into_bf16/expected0.npy --tolerance=1e-2 | FileCheck %s
// RUN: %python %S/Inputs/reference.py gen gemm --dir %t/acc_f16 --seed 20 --dtype f16 --out f16 --m 8 --n 16 --k 64 --acc f16
// RUN: kgen-run %s --entry=acc_f16 --input=%t/acc_f16/a.npy,%t/acc_f16/b.npy \
// RUN:   --compare-file=0:%t/acc_f16/expected0.npy --tolerance=2e-4 | FileCheck %s

// CHECK: compare 0:{{.*}}: OK

// epilogues: bias, residual with alpha and beta, activations.
func.func @epi_gelu(%a: tensor<8x32xbf16>,
    %b: tensor<32x16xbf16>,
    %bias: tensor<16xbf16>,
    %c: tensor<8x16xbf16>)
    -> tensor<8x16xbf16> {
  %d = kgen.gemm %a, %b bias(%bias : tensor<16xbf16>) residual(%c : tensor<8x16xbf16>)
      {alpha = 1.5 : f32, beta = 0.5 : f32, activation = #kgen.activation<gelu>}
      : tensor<8x32xbf16>, tensor<32x16xbf16> -> tensor<8x16xbf16>
  return %d : tensor<8x16xbf16>
}

func.func @epi_silu(%a: tensor<8x32xf32>,
    %b: tensor<32x16xf32>,
    %bias: tensor<16xf32>)
    -> tensor<8x16xf32> {
  %d = kgen.gemm %a, %b bias(%bias : tensor<16xf32>)
      {activation = #kgen.activation<silu>}
      : tensor<8x32xf32>, tensor<32x16xf32> -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}

func.func @epi_relu(%a: tensor<8x32xf16>,
    %b: tensor<32x16xf16>,
    %c: tensor<8x16xf16>)
    -> tensor<8x16xf16> {
  %d = kgen.gemm %a, %b residual(%c : tensor<8x16xf16>)
      {activation = #kgen.activation<relu>}
      : tensor<8x32xf16>, tensor<32x16xf16> -> tensor<8x16xf16>
  return %d : tensor<8x16xf16>
}

func.func @epi_batch(%a: tensor<2x4x16xf32>,
    %b: tensor<16x8xf32>,
    %bias: tensor<8xf32>,
    %c: tensor<2x4x8xf32>)
    -> tensor<2x4x8xf32> {
  %d = kgen.gemm %a, %b bias(%bias : tensor<8xf32>) residual(%c : tensor<2x4x8xf32>)
      {beta = -2.0 : f32, activation = #kgen.activation<gelu>}
      : tensor<2x4x16xf32>, tensor<16x8xf32> -> tensor<2x4x8xf32>
  return %d : tensor<2x4x8xf32>
}

// f32 bias and residual, bf16 result.
func.func @epi_f32_into_bf16(%a: tensor<8x32xbf16>,
    %b: tensor<32x16xbf16>,
    %bias: tensor<16xf32>,
    %c: tensor<8x16xf32>)
    -> tensor<8x16xbf16> {
  %d = kgen.gemm %a, %b bias(%bias : tensor<16xf32>) residual(%c : tensor<8x16xf32>)
      {beta = 0.25 : f32, activation = #kgen.activation<silu>}
      : tensor<8x32xbf16>, tensor<32x16xbf16> -> tensor<8x16xbf16>
  return %d : tensor<8x16xbf16>
}

// acc_type = f16: reference.py rounds the running sum to f16 after every
// step, in k order, from exact products; the f32 accumulator differs from it
// by ~1e-3 here, so the tolerance is tighter than for f16 elsewhere.
func.func @acc_f16(%a: tensor<8x64xf16>, %b: tensor<64x16xf16>)
    -> tensor<8x16xf16> {
  %d = kgen.gemm %a, %b {acc_type = f16}
      : tensor<8x64xf16>, tensor<64x16xf16> -> tensor<8x16xf16>
  return %d : tensor<8x16xf16>
}
