// RUN: kgen-opt %s --split-input-file --kgen-fuse-epilogue | FileCheck %s

// gemm -> + broadcast bias -> relu: one gemm with bias and relu.
// CHECK-LABEL: func.func @bias_relu
// CHECK-SAME: (%[[A:.+]]: tensor<64x32xbf16>, %[[B:.+]]: tensor<32x48xbf16>, %[[BIAS:.+]]: tensor<48xbf16>)
// CHECK-NOT: arith.
// CHECK-NOT: linalg.
// CHECK: %[[D:.+]] = kgen.gemm %[[A]], %[[B]] bias(%[[BIAS]] : tensor<48xbf16>) {activation = #kgen.activation<relu>}
// CHECK-NEXT: return %[[D]]
func.func @bias_relu(%a: tensor<64x32xbf16>, %b: tensor<32x48xbf16>, %bias: tensor<48xbf16>) -> tensor<64x48xbf16> {
  %d = kgen.gemm %a, %b : tensor<64x32xbf16>, tensor<32x48xbf16> -> tensor<64x48xbf16>
  %init = tensor.empty() : tensor<64x48xbf16>
  %bb = linalg.broadcast ins(%bias : tensor<48xbf16>) outs(%init : tensor<64x48xbf16>) dimensions = [0]
  %s = arith.addf %bb, %d : tensor<64x48xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x48xbf16>
  %r = arith.maximumf %s, %zero : tensor<64x48xbf16>
  return %r : tensor<64x48xbf16>
}

// -----

// Residual then bias keeps the epilogue's order (C before bias): both fold.
// CHECK-LABEL: func.func @residual_then_bias
// CHECK: kgen.gemm %{{.+}}, %{{.+}} bias(%{{.+}} : tensor<48xf32>) residual(%{{.+}} : tensor<64x48xf32>) {alpha = 2.000000e+00 : f32}
// CHECK-NOT: arith.addf
func.func @residual_then_bias(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>, %bias: tensor<48xf32>) -> tensor<64x48xf32> {
  %d = kgen.gemm %a, %b {alpha = 2.0 : f32} : tensor<64x32xf32>, tensor<32x48xf32> -> tensor<64x48xf32>
  %s = arith.addf %d, %c : tensor<64x48xf32>
  %init = tensor.empty() : tensor<64x48xf32>
  %bb = linalg.broadcast ins(%bias : tensor<48xf32>) outs(%init : tensor<64x48xf32>) dimensions = [0]
  %t = arith.addf %s, %bb : tensor<64x48xf32>
  return %t : tensor<64x48xf32>
}

// -----

// Bias then residual would sum in another order than the epilogue: the
// residual add stays.
// CHECK-LABEL: func.func @bias_then_residual
// CHECK: %[[G:.+]] = kgen.gemm %{{.+}}, %{{.+}} bias(
// CHECK-NOT: residual(
// CHECK: arith.addf %[[G]], %{{.+}} : tensor<64x48xf32>
func.func @bias_then_residual(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>, %bias: tensor<48xf32>) -> tensor<64x48xf32> {
  %d = kgen.gemm %a, %b : tensor<64x32xf32>, tensor<32x48xf32> -> tensor<64x48xf32>
  %init = tensor.empty() : tensor<64x48xf32>
  %bb = linalg.broadcast ins(%bias : tensor<48xf32>) outs(%init : tensor<64x48xf32>) dimensions = [0]
  %s = arith.addf %d, %bb : tensor<64x48xf32>
  %t = arith.addf %s, %c : tensor<64x48xf32>
  return %t : tensor<64x48xf32>
}

// -----

// Not folded: a second use of the gemm result.
// CHECK-LABEL: func.func @two_uses
// CHECK: %[[D:.+]] = kgen.gemm %{{.+}}, %{{.+}} : tensor<48x32xf32>
// CHECK: %[[S:.+]] = arith.addf %[[D]], %{{.+}}
// CHECK: return %[[S]], %[[D]]
func.func @two_uses(%a: tensor<48x32xf32>, %b: tensor<32x48xf32>, %v: tensor<48xf32>) -> (tensor<48x48xf32>, tensor<48x48xf32>) {
  %init = tensor.empty() : tensor<48x48xf32>
  %rows = linalg.broadcast ins(%v : tensor<48xf32>) outs(%init : tensor<48x48xf32>) dimensions = [0]
  %d = kgen.gemm %a, %b : tensor<48x32xf32>, tensor<32x48xf32> -> tensor<48x48xf32>
  %s = arith.addf %d, %rows : tensor<48x48xf32>
  return %s, %d : tensor<48x48xf32>, tensor<48x48xf32>
}

// -----

// Not folded: an add after the activation.
// CHECK-LABEL: func.func @after_activation
// CHECK: %[[D:.+]] = kgen.gemm %{{.+}}, %{{.+}} {activation = #kgen.activation<silu>}
// CHECK: arith.addf %[[D]], %{{.+}}
func.func @after_activation(%a: tensor<48x32xf32>, %b: tensor<32x48xf32>, %v: tensor<48xf32>) -> tensor<48x48xf32> {
  %init = tensor.empty() : tensor<48x48xf32>
  %rows = linalg.broadcast ins(%v : tensor<48xf32>) outs(%init : tensor<48x48xf32>) dimensions = [0]
  %d = kgen.gemm %a, %b {activation = #kgen.activation<silu>} : tensor<48x32xf32>, tensor<32x48xf32> -> tensor<48x48xf32>
  %s = arith.addf %d, %rows : tensor<48x48xf32>
  return %s : tensor<48x48xf32>
}

// -----

// A vector broadcast along the columns is a per-row term, not a bias: it
// folds as a whole residual tensor. max against 1 is not relu: not folded.
// CHECK-LABEL: func.func @not_an_epilogue
// CHECK: %[[COLS:.+]] = linalg.broadcast {{.*}} dimensions = [1]
// CHECK: kgen.gemm %{{.+}}, %{{.+}} residual(%[[COLS]] : tensor<48x48xf32>) :
// CHECK-NOT: activation
// CHECK: arith.maximumf
func.func @not_an_epilogue(%a: tensor<48x32xf32>, %b: tensor<32x48xf32>, %v: tensor<48xf32>) -> (tensor<48x48xf32>, tensor<48x48xf32>) {
  %init = tensor.empty() : tensor<48x48xf32>
  %cols = linalg.broadcast ins(%v : tensor<48xf32>) outs(%init : tensor<48x48xf32>) dimensions = [1]
  %d0 = kgen.gemm %a, %b : tensor<48x32xf32>, tensor<32x48xf32> -> tensor<48x48xf32>
  %s0 = arith.addf %d0, %cols : tensor<48x48xf32>
  %d1 = kgen.gemm %a, %b : tensor<48x32xf32>, tensor<32x48xf32> -> tensor<48x48xf32>
  %one = arith.constant dense<1.0> : tensor<48x48xf32>
  %m1 = arith.maximumf %d1, %one : tensor<48x48xf32>
  return %s0, %m1 : tensor<48x48xf32>, tensor<48x48xf32>
}

// -----

// Batched: the bias broadcasts over batch and rows.
// CHECK-LABEL: func.func @batched
// CHECK: kgen.gemm %{{.+}}, %{{.+}} bias(%{{.+}} : tensor<16xf32>) : tensor<2x8x4xf32>, tensor<4x16xf32> -> tensor<2x8x16xf32>
func.func @batched(%a: tensor<2x8x4xf32>, %b: tensor<4x16xf32>, %bias: tensor<16xf32>) -> tensor<2x8x16xf32> {
  %d = kgen.gemm %a, %b : tensor<2x8x4xf32>, tensor<4x16xf32> -> tensor<2x8x16xf32>
  %init = tensor.empty() : tensor<2x8x16xf32>
  %bb = linalg.broadcast ins(%bias : tensor<16xf32>) outs(%init : tensor<2x8x16xf32>) dimensions = [0, 1]
  %s = arith.addf %d, %bb : tensor<2x8x16xf32>
  return %s : tensor<2x8x16xf32>
}
