// kgen-run runs an entry function that returns the same tensor twice (as a
// test comparing two results may well do).
//
// RUN: kgen-run %s --print-values --compare=0:1 | FileCheck %s --check-prefix=TWICE

// [[1, 2], [3, 4]] times the identity, returned twice.
// TWICE:      result 0: tensor<2x2xf32>
// TWICE-NEXT: {{^}} 1 2{{$}}
// TWICE-NEXT: {{^}} 3 4{{$}}
// TWICE-NEXT: result 1: tensor<2x2xf32>
// TWICE-NEXT: {{^}} 1 2{{$}}
// TWICE-NEXT: {{^}} 3 4{{$}}
// TWICE:      compare 0:1: OK
func.func @same_twice() -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %a = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %i = arith.constant dense<[[1.0, 0.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %d = kgen.gemm %a, %i : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  return %d, %d : tensor<2x2xf32>, tensor<2x2xf32>
}
