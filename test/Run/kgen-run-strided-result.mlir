// kgen-run runs an entry function that returns a strided slice of a tensor
// (as a test comparing part of a result may well do).
//
// RUN: kgen-run %s --print-values | FileCheck %s --check-prefix=STRIDED

// [[1, 2], [3, 4]] times [[1, 0, 1, 0], [0, 1, 0, 1]] is
// [[1, 2, 1, 2], [3, 4, 3, 4]]; columns 1 and 2 of it (a slice with row
// stride 4) are [[2, 1], [4, 3]].
// STRIDED:      result 0: tensor<2x2xf32>
// STRIDED-NEXT: {{^}} 2 1{{$}}
// STRIDED-NEXT: {{^}} 4 3{{$}}
func.func @strided_slice() -> tensor<2x2xf32> {
  %a = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = arith.constant dense<[[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]]>
      : tensor<2x4xf32>
  %d = kgen.gemm %a, %b : tensor<2x2xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
  %s = tensor.extract_slice %d[0, 1] [2, 2] [1, 1]
      : tensor<2x4xf32> to tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}
