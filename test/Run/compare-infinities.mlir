// --compare-file with infinities in the reference: a finite error next to
// a matching infinity is still an error. Here the result is [inf, 2, -inf]
// and the reference [inf, 1, -inf]: element 1 is off by 1 (relative
// Frobenius error 1 on the finite part), which no tolerance below 1 allows.
// The matching infinities must not make the reference norm infinite and
// turn that error into 0. (kgen-run exits 2 on a mismatch; `|| true`
// because a leading `not` is not substituted by this lit configuration.)
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/ref.npy', np.array([np.inf, 1, -np.inf], np.float32))"
// RUN: kgen-run %s --compare-file=0:%t/ref.npy --tolerance=0.5 > %t/out.txt || true
// RUN: FileCheck %s --input-file=%t/out.txt
// CHECK: compare 0:{{.*}}ref.npy: MISMATCH
func.func @main() -> tensor<3xf32> {
  %c = arith.constant dense<[0x7F800000, 2.0, 0xFF800000]> : tensor<3xf32>
  return %c : tensor<3xf32>
}
