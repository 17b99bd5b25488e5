// An op the kgen dialect does not define is a parse error in both forms,
// for both tools.
// RUN: not kgen-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefixes=CUSTOM,GENERIC
// RUN: not kgen-run %s 2>&1 | FileCheck %s --check-prefixes=CUSTOM,RUNERR
// CUSTOM:      unknown-op.mlir:[[# @LINE + 9]]:8: error: custom op 'kgen.frobnicate' is unknown
// CUSTOM-NOT:  internal error
// GENERIC:     unknown-op.mlir:[[# @LINE + 14]]:8: error: unregistered operation 'kgen.frobnicate' found in dialect ('kgen') that does not allow unknown operations
// GENERIC-NOT: internal error
// RUNERR:      kgen-run: error: could not parse {{.*}}unknown-op.mlir
// RUNERR-NOT:  internal error

func.func @main(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %d = kgen.gemm %a, %b : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  %e = kgen.frobnicate %d : tensor<16x8xf32>
  return %e : tensor<16x8xf32>
}

// -----

func.func @generic(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "kgen.frobnicate"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
