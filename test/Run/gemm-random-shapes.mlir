// kgen.gemm on the CPU reference against reference.py (float64 numpy from
// the semantics in KgenOps.td) on random inputs exact in the operand type:
// edge shapes and batches.
// Tolerances (relative Frobenius) follow the result type: f32 1e-5, f16 and
// bf16 1e-2 (a few results one ulp off where f32 and float64 sums round
// differently), f8E4M3FN 1e-1.
//
// RUN: rm -rf %t
// RUN: %python %S/Inputs/reference.py gen gemm --dir %t/edge_f32 --seed 10 --dtype f32 --out f32 --m 1 --n 3 --k 7
// RUN: kgen-run %s --entry=edge_f32 --input=%t/edge_f32/a.npy,%t/edge_f32/b.npy \
// RUN:   --compare-file=0:%t/edge_f32/expected0.npy --tolerance=1e-5 | FileCheck %s
// RUN: %python %S/Inputs/reference.py gen gemm --dir %t/edge_bf16_tt --seed 11 --dtype bf16 --out bf16 --m 1 --n 3 --k 7 --ta --tb
// RUN: kgen-run %s --entry=edge_bf16_tt --input=%t/edge_bf16_tt/a.npy,%t/edge_bf16_tt/b.npy \
// RUN:   --compare-file=0:%t/edge_bf16_tt/expected0.npy --tolerance=1e-2 | FileCheck %s
// RUN: %python %S/Inputs/reference.py gen gemm --dir %t/batch_bcast --seed 12 --dtype bf16 --out f32 --m 4 --n 8 --k 16 --batch 3 --broadcast-b
// RUN: kgen-run %s --entry=batch_bcast --input=%t/batch_bcast/a.npy,%t/batch_bcast/b.npy \
// RUN:   --compare-file=0:%t/batch_bcast/expected0.npy --tolerance=1e-5 | FileCheck %s
// RUN: %python %S/Inputs/reference.py gen gemm --dir %t/batch_bcast_tn --seed 13 --dtype f16 --out f16 --m 4 --n 8 --k 16 --batch 2 --ta --broadcast-b
// RUN: kgen-run %s --entry=batch_bcast_tn --input=%t/batch_bcast_tn/a.npy,%t/batch_bcast_tn/b.npy \
// RUN:   --compare-file=0:%t/batch_bcast_tn/expected0.npy --tolerance=1e-2 | FileCheck %s
// RUN: %python %S/Inputs/reference.py gen gemm --dir %t/batch_nt --seed 14 --dtype f32 --out f32 --m 5 --n 6 --k 7 --batch 2 --tb
// RUN: kgen-run %s --entry=batch_nt --input=%t/batch_nt/a.npy,%t/batch_nt/b.npy \
// RUN:   --compare-file=0:%t/batch_nt/expected0.npy --tolerance=1e-5 | FileCheck %s

// CHECK: compare 0:{{.*}}: OK

// edge shapes M = 1, N = 3, K = 7.
func.func @edge_f32(%a: tensor<1x7xf32>, %b: tensor<7x3xf32>)
    -> tensor<1x3xf32> {
  %d = kgen.gemm %a, %b
      : tensor<1x7xf32>, tensor<7x3xf32> -> tensor<1x3xf32>
  return %d : tensor<1x3xf32>
}

func.func @edge_bf16_tt(%a: tensor<7x1xbf16>, %b: tensor<3x7xbf16>)
    -> tensor<1x3xbf16> {
  %d = kgen.gemm %a, %b {transpose_a, transpose_b}
      : tensor<7x1xbf16>, tensor<3x7xbf16> -> tensor<1x3xbf16>
  return %d : tensor<1x3xbf16>
}

// batched, B broadcast over the batch.
func.func @batch_bcast(%a: tensor<3x4x16xbf16>, %b: tensor<16x8xbf16>)
    -> tensor<3x4x8xf32> {
  %d = kgen.gemm %a, %b
      : tensor<3x4x16xbf16>, tensor<16x8xbf16> -> tensor<3x4x8xf32>
  return %d : tensor<3x4x8xf32>
}

func.func @batch_bcast_tn(%a: tensor<2x16x4xf16>, %b: tensor<16x8xf16>)
    -> tensor<2x4x8xf16> {
  %d = kgen.gemm %a, %b {transpose_a}
      : tensor<2x16x4xf16>, tensor<16x8xf16> -> tensor<2x4x8xf16>
  return %d : tensor<2x4x8xf16>
}

// batched with a batched B.
func.func @batch_nt(%a: tensor<2x5x7xf32>, %b: tensor<2x6x7xf32>)
    -> tensor<2x5x6xf32> {
  %d = kgen.gemm %a, %b {transpose_b}
      : tensor<2x5x7xf32>, tensor<2x6x7xf32> -> tensor<2x5x6xf32>
  return %d : tensor<2x5x6xf32>
}
