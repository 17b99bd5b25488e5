// kgen.gemm on the CPU reference against reference.py (float64 numpy from
// the semantics in KgenOps.td) on random inputs exact in the operand type:
// every operand type.
// Tolerances (relative Frobenius) follow the result type: f32 1e-5, f16 and
// bf16 1e-2 (a few results one ulp off where f32 and float64 sums round
// differently), f8E4M3FN 1e-1.
//
// RUN: rm -rf %t
// RUN: %python %S/Inputs/reference.py gen gemm --dir %t/f32_nn --seed 1 --dtype f32 --out f32 --m 16 --n 12 --k 20
// RUN: kgen-run %s --entry=f32_nn --input=%t/f32_nn/a.npy,%t/f32_nn/b.npy \
// RUN:   --compare-file=0:%t/f32_nn/expected0.npy --tolerance=1e-5 | FileCheck %s
// RUN: %python %S/Inputs/reference.py gen gemm --dir %t/f16_tn --seed 2 --dtype f16 --out f16 --m 8 --n 16 --k 32 --ta
// RUN: kgen-run %s --entry=f16_tn --input=%t/f16_tn/a.npy,%t/f16_tn/b.npy \
// RUN:   --compare-file=0:%t/f16_tn/expected0.npy --tolerance=1e-2 | FileCheck %s
// RUN: %python %S/Inputs/reference.py gen gemm --dir %t/bf16_nt --seed 3 --dtype bf16 --out bf16 --m 16 --n 8 --k 32 --tb
// RUN: kgen-run %s --entry=bf16_nt --input=%t/bf16_nt/a.npy,%t/bf16_nt/b.npy \
// RUN:   --compare-file=0:%t/bf16_nt/expected0.npy --tolerance=1e-2 | FileCheck %s
// RUN: %python %S/Inputs/reference.py gen gemm --dir %t/f8_tt --seed 4 --dtype f8E4M3FN --out f32 --m 8 --n 8 --k 16 --ta --tb
// RUN: kgen-run %s --entry=f8_tt --input=%t/f8_tt/a.npy,%t/f8_tt/b.npy \
// RUN:   --compare-file=0:%t/f8_tt/expected0.npy --tolerance=1e-5 | FileCheck %s
// RUN: %python %S/Inputs/reference.py gen gemm --dir %t/f8_nn --seed 5 --dtype f8E4M3FN --out f8E4M3FN --m 8 --n 8 --k 16
// RUN: kgen-run %s --entry=f8_nn --input=%t/f8_nn/a.npy,%t/f8_nn/b.npy \
// RUN:   --compare-file=0:%t/f8_nn/expected0.npy --tolerance=1e-1 | FileCheck %s

// CHECK: compare 0:{{.*}}: OK

// f32, no transpose.
func.func @f32_nn(%a: tensor<16x20xf32>, %b: tensor<20x12xf32>)
    -> tensor<16x12xf32> {
  %d = kgen.gemm %a, %b
      : tensor<16x20xf32>, tensor<20x12xf32> -> tensor<16x12xf32>
  return %d : tensor<16x12xf32>
}

// f16, transpose_a.
func.func @f16_tn(%a: tensor<32x8xf16>, %b: tensor<32x16xf16>)
    -> tensor<8x16xf16> {
  %d = kgen.gemm %a, %b {transpose_a}
      : tensor<32x8xf16>, tensor<32x16xf16> -> tensor<8x16xf16>
  return %d : tensor<8x16xf16>
}

// bf16, transpose_b.
func.func @bf16_nt(%a: tensor<16x32xbf16>, %b: tensor<8x32xbf16>)
    -> tensor<16x8xbf16> {
  %d = kgen.gemm %a, %b {transpose_b}
      : tensor<16x32xbf16>, tensor<8x32xbf16> -> tensor<16x8xbf16>
  return %d : tensor<16x8xbf16>
}

// f8E4M3FN into f32 (exact products), both transposed.
func.func @f8_tt(%a: tensor<16x8xf8E4M3FN>, %b: tensor<8x16xf8E4M3FN>)
    -> tensor<8x8xf32> {
  %d = kgen.gemm %a, %b {transpose_a, transpose_b}
      : tensor<16x8xf8E4M3FN>, tensor<8x16xf8E4M3FN> -> tensor<8x8xf32>
  return %d : tensor<8x8xf32>
}

// f8E4M3FN into f8E4M3FN.
func.func @f8_nn(%a: tensor<8x16xf8E4M3FN>, %b: tensor<16x8xf8E4M3FN>)
    -> tensor<8x8xf8E4M3FN> {
  %d = kgen.gemm %a, %b
      : tensor<8x16xf8E4M3FN>, tensor<16x8xf8E4M3FN> -> tensor<8x8xf8E4M3FN>
  return %d : tensor<8x8xf8E4M3FN>
}
