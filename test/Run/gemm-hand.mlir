// kgen.gemm on the CPU reference against values worked out by hand.
//
// RUN: kgen-run %s --entry=transposes --print-values | FileCheck %s --check-prefix=TRANS
// RUN: kgen-run %s --entry=epilogue --print-values | FileCheck %s --check-prefix=EPI
// RUN: kgen-run %s --entry=batched --print-values | FileCheck %s --check-prefix=BATCH
// RUN: kgen-run %s --entry=bf16_rounding --print-values | FileCheck %s --check-prefix=BF16
// RUN: kgen-run %s --entry=f16_accumulator --print-values | FileCheck %s --check-prefix=ACC16

// The same product four ways. op(A) = [[1, 2, 3], [4, 5, 6]] and
// op(B) = [[1, 0], [0, 1], [1, 1]], so op(A) op(B) = [[1+3, 2+3], [4+6, 5+6]]
// = [[4, 5], [10, 11]]. With transpose_a, A is stored [K, M] = op(A)^T, with
// transpose_b, B is stored [N, K] = op(B)^T; a lowering that ignored the
// flag would read the same buffer row-major and get other numbers.
// TRANS:      result 0: tensor<2x2xf32>
// TRANS-NEXT: {{^}} 4 5{{$}}
// TRANS-NEXT: {{^}} 10 11{{$}}
// TRANS-NEXT: result 1: tensor<2x2xf32>
// TRANS-NEXT: {{^}} 4 5{{$}}
// TRANS-NEXT: {{^}} 10 11{{$}}
// TRANS-NEXT: result 2: tensor<2x2xf32>
// TRANS-NEXT: {{^}} 4 5{{$}}
// TRANS-NEXT: {{^}} 10 11{{$}}
// TRANS-NEXT: result 3: tensor<2x2xf32>
// TRANS-NEXT: {{^}} 4 5{{$}}
// TRANS-NEXT: {{^}} 10 11{{$}}
func.func @transposes() -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>,
                            tensor<2x2xf32>) {
  %a = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %at = arith.constant dense<[[1.0, 4.0], [2.0, 5.0], [3.0, 6.0]]> : tensor<3x2xf32>
  %b = arith.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
  %bt = arith.constant dense<[[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]> : tensor<2x3xf32>
  %nn = kgen.gemm %a, %b : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  %tn = kgen.gemm %at, %b {transpose_a}
      : tensor<3x2xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  %nt = kgen.gemm %a, %bt {transpose_b}
      : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x2xf32>
  %tt = kgen.gemm %at, %bt {transpose_a, transpose_b}
      : tensor<3x2xf32>, tensor<2x3xf32> -> tensor<2x2xf32>
  return %nn, %tn, %nt, %tt
      : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// With A B = [[4, 5], [10, 11]] as above:
// result 0, relu(2 A B + 0.5 C + bias) with C = [[2, 4], [-2, 6]] and
//   bias = [1, -20]: 2 A B = [[8, 10], [20, 22]], + 0.5 C = [[9, 12],
//   [19, 25]], + bias = [[10, -8], [20, 5]], relu = [[10, 0], [20, 5]];
// result 1, A B + C (beta defaults to 1 with a residual) = [[6, 9], [8, 17]];
// result 2, A B + bias, no activation = [[5, -15], [11, -9]].
// EPI:      result 0: tensor<2x2xf32>
// EPI-NEXT: {{^}} 10 0{{$}}
// EPI-NEXT: {{^}} 20 5{{$}}
// EPI-NEXT: result 1: tensor<2x2xf32>
// EPI-NEXT: {{^}} 6 9{{$}}
// EPI-NEXT: {{^}} 8 17{{$}}
// EPI-NEXT: result 2: tensor<2x2xf32>
// EPI-NEXT: {{^}} 5 -15{{$}}
// EPI-NEXT: {{^}} 11 -9{{$}}
func.func @epilogue() -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %a = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %b = arith.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]> : tensor<3x2xf32>
  %c = arith.constant dense<[[2.0, 4.0], [-2.0, 6.0]]> : tensor<2x2xf32>
  %bias = arith.constant dense<[1.0, -20.0]> : tensor<2xf32>
  %full = kgen.gemm %a, %b bias(%bias : tensor<2xf32>) residual(%c : tensor<2x2xf32>)
      {alpha = 2.0 : f32, beta = 0.5 : f32, activation = #kgen.activation<relu>}
      : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  %res = kgen.gemm %a, %b residual(%c : tensor<2x2xf32>)
      : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  %biased = kgen.gemm %a, %b bias(%bias : tensor<2xf32>)
      : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  return %full, %res, %biased : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// A = [[[1, 2]], [[3, 4]]] (batch 2, M 1, K 2).
// result 0, B = [[1, 0], [0, -1]] broadcast over the batch: [[1, -2]] and
//   [[3, -4]];
// result 1, B = [I, 2 I] per batch: [[1, 2]] and [[6, 8]].
// BATCH:      result 0: tensor<2x1x2xf32>
// BATCH-NEXT: {{^}} 1 -2{{$}}
// BATCH-NEXT: {{^}} 3 -4{{$}}
// BATCH-NEXT: result 1: tensor<2x1x2xf32>
// BATCH-NEXT: {{^}} 1 2{{$}}
// BATCH-NEXT: {{^}} 6 8{{$}}
func.func @batched() -> (tensor<2x1x2xf32>, tensor<2x1x2xf32>) {
  %a = arith.constant dense<[[[1.0, 2.0]], [[3.0, 4.0]]]> : tensor<2x1x2xf32>
  %b = arith.constant dense<[[1.0, 0.0], [0.0, -1.0]]> : tensor<2x2xf32>
  %bb = arith.constant dense<[[[1.0, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 2.0]]]>
      : tensor<2x2x2xf32>
  %bc = kgen.gemm %a, %b : tensor<2x1x2xf32>, tensor<2x2xf32> -> tensor<2x1x2xf32>
  %per = kgen.gemm %a, %bb
      : tensor<2x1x2xf32>, tensor<2x2x2xf32> -> tensor<2x1x2xf32>
  return %bc, %per : tensor<2x1x2xf32>, tensor<2x1x2xf32>
}

// One rounding of the f32 result to bf16 (8 significant bits: the ulp of
// [1, 2) is 2^-7 = 0.0078125). D[i] = a[i][0] + a[i][1], exact in f32:
//   1 + 2^-8          = 1.00390625, a tie: to the even 1.0;
//   1 + 3 * 2^-8      = 1.01171875, a tie between 1.0078125 (odd) and
//                       1.015625 (even): 1.015625;
//   1 + 2^-8 + 2^-20  just above the first tie: 1.0078125;
//   -(1 + 2^-8)       = -1.00390625: -1.0;
//   1 - 2^-8          = 0.99609375, exact in bf16 (ulp 2^-8 below 1).
// BF16:      result 0: tensor<5x1xbf16>
// BF16-NEXT: {{^}} 1{{$}}
// BF16-NEXT: {{^}} 1.015625{{$}}
// BF16-NEXT: {{^}} 1.0078125{{$}}
// BF16-NEXT: {{^}} -1{{$}}
// BF16-NEXT: {{^}} 0.99609375{{$}}
func.func @bf16_rounding() -> tensor<5x1xbf16> {
  %a = arith.constant dense<[[1.0, 0.00390625], [1.0, 0.01171875],
                             [1.0, 0.0039072036743164062], [-1.0, -0.00390625],
                             [1.0, -0.00390625]]> : tensor<5x2xf32>
  %b = arith.constant dense<[[1.0], [1.0]]> : tensor<2x1xf32>
  %d = kgen.gemm %a, %b : tensor<5x2xf32>, tensor<2x1xf32> -> tensor<5x1xbf16>
  return %d : tensor<5x1xbf16>
}

// acc_type = f16 rounds the running sum after every step, in k order. f16
// has 11 significant bits: 1 + 2^-11 is a tie that goes to the even 1.0.
// Row 0, [1, 2^-11, 2^-11] . [1, 1, 1]:
//   f16 accumulator: 1 -> 1 + 2^-11 = 1.0 -> 1.0;  f32: 1 + 2^-10 = 1.0009765625.
// Row 1, [2^-11, 2^-11, 1] . [1, 1, 1]: 2^-11 -> 2^-10 -> 1 + 2^-10, exact
//   either way: 1.0009765625.
// (--print-values writes 9 significant digits: 1.00097656.)
// ACC16:      result 0: tensor<2x1xf16>
// ACC16-NEXT: {{^}} 1{{$}}
// ACC16-NEXT: {{^}} 1.00097656{{$}}
// ACC16-NEXT: result 1: tensor<2x1xf16>
// ACC16-NEXT: {{^}} 1.00097656{{$}}
// ACC16-NEXT: {{^}} 1.00097656{{$}}
func.func @f16_accumulator() -> (tensor<2x1xf16>, tensor<2x1xf16>) {
  %a = arith.constant dense<[[1.0, 4.8828125e-04, 4.8828125e-04],
                             [4.8828125e-04, 4.8828125e-04, 1.0]]> : tensor<2x3xf16>
  %b = arith.constant dense<1.0> : tensor<3x1xf16>
  %acc16 = kgen.gemm %a, %b {acc_type = f16}
      : tensor<2x3xf16>, tensor<3x1xf16> -> tensor<2x1xf16>
  %acc32 = kgen.gemm %a, %b : tensor<2x3xf16>, tensor<3x1xf16> -> tensor<2x1xf16>
  return %acc16, %acc32 : tensor<2x1xf16>, tensor<2x1xf16>
}
