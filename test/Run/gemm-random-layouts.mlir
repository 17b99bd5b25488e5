// kgen.gemm on the CPU reference against reference.py (float64 numpy from
// the semantics in KgenOps.td) on random inputs exact in the operand type:
// the four layouts.
// Tolerances (relative Frobenius) follow the result type: f32 1e-5, f16 and
// bf16 1e-2 (a few results one ulp off where f32 and float64 sums round
// differently), f8E4M3FN 1e-1.
//
// RUN: rm -rf %t
// RUN: %python %S/Inputs/reference.py gen gemm --dir %t/bf16_f32_nn --seed 6 --dtype bf16 --out f32 --m 6 --n 10 --k 24
// RUN: kgen-run %s --entry=bf16_f32_nn --input=%t/bf16_f32_nn/a.npy,%t/bf16_f32_nn/b.npy \
// RUN:   --compare-file=0:%t/bf16_f32_nn/expected0.npy --tolerance=1e-5 | FileCheck %s
// RUN: %python %S/Inputs/reference.py gen gemm --dir %t/bf16_f32_tn --seed 7 --dtype bf16 --out f32 --m 6 --n 10 --k 24 --ta
// RUN: kgen-run %s --entry=bf16_f32_tn --input=%t/bf16_f32_tn/a.npy,%t/bf16_f32_tn/b.npy \
// RUN:   --compare-file=0:%t/bf16_f32_tn/expected0.npy --tolerance=1e-5 | FileCheck %s
// RUN: %python %S/Inputs/reference.py gen gemm --dir %t/bf16_f32_nt --seed 8 --dtype bf16 --out f32 --m 6 --n 10 --k 24 --tb
// RUN: kgen-run %s --entry=bf16_f32_nt --input=%t/bf16_f32_nt/a.npy,%t/bf16_f32_nt/b.npy \
// RUN:   --compare-file=0:%t/bf16_f32_nt/expected0.npy --tolerance=1e-5 | FileCheck %s
// RUN: %python %S/Inputs/reference.py gen gemm --dir %t/bf16_f32_tt --seed 9 --dtype bf16 --out f32 --m 6 --n 10 --k 24 --ta --tb
// RUN: kgen-run %s --entry=bf16_f32_tt --input=%t/bf16_f32_tt/a.npy,%t/bf16_f32_tt/b.npy \
// RUN:   --compare-file=0:%t/bf16_f32_tt/expected0.npy --tolerance=1e-5 | FileCheck %s

// CHECK: compare 0:{{.*}}: OK

// bf16 into f32: the four layouts.
func.func @bf16_f32_nn(%a: tensor<6x24xbf16>, %b: tensor<24x10xbf16>)
    -> tensor<6x10xf32> {
  %d = kgen.gemm %a, %b
      : tensor<6x24xbf16>, tensor<24x10xbf16> -> tensor<6x10xf32>
  return %d : tensor<6x10xf32>
}

func.func @bf16_f32_tn(%a: tensor<24x6xbf16>, %b: tensor<24x10xbf16>)
    -> tensor<6x10xf32> {
  %d = kgen.gemm %a, %b {transpose_a}
      : tensor<24x6xbf16>, tensor<24x10xbf16> -> tensor<6x10xf32>
  return %d : tensor<6x10xf32>
}

func.func @bf16_f32_nt(%a: tensor<6x24xbf16>, %b: tensor<10x24xbf16>)
    -> tensor<6x10xf32> {
  %d = kgen.gemm %a, %b {transpose_b}
      : tensor<6x24xbf16>, tensor<10x24xbf16> -> tensor<6x10xf32>
  return %d : tensor<6x10xf32>
}

func.func @bf16_f32_tt(%a: tensor<24x6xbf16>, %b: tensor<10x24xbf16>)
    -> tensor<6x10xf32> {
  %d = kgen.gemm %a, %b {transpose_a, transpose_b}
      : tensor<24x6xbf16>, tensor<10x24xbf16> -> tensor<6x10xf32>
  return %d : tensor<6x10xf32>
}
