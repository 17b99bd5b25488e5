// The fused epilogue computes what the separate ops compute, up to the
// rounding it saves: in f32 the two agree to 1e-6.
// RUN: kgen-opt %s --kgen-fuse-epilogue -o %t.fused.mlir
// RUN: FileCheck %s --check-prefix=FUSED < %t.fused.mlir
// RUN: kgen-run %s --seed 4 --output-dir %t.ref
// RUN: kgen-run %t.fused.mlir --seed 4 --tolerance 1e-6 --compare-file 0:%t.ref/result0.npy | FileCheck %s
// FUSED: kgen.gemm {{.*}} bias({{.*}}) residual({{.*}}) {activation = #kgen.activation<relu>}
// FUSED-NOT: arith.addf
// CHECK: compare 0:{{.*}}: OK
func.func @main(%a: tensor<33x20xf32>, %b: tensor<20x17xf32>, %c: tensor<33x17xf32>, %bias: tensor<17xf32>) -> tensor<33x17xf32> {
  %d = kgen.gemm %a, %b : tensor<33x20xf32>, tensor<20x17xf32> -> tensor<33x17xf32>
  %s = arith.addf %d, %c : tensor<33x17xf32>
  %init = tensor.empty() : tensor<33x17xf32>
  %bb = linalg.broadcast ins(%bias : tensor<17xf32>) outs(%init : tensor<33x17xf32>) dimensions = [0]
  %t = arith.addf %s, %bb : tensor<33x17xf32>
  %zero = arith.constant dense<0.0> : tensor<33x17xf32>
  %r = arith.maximumf %t, %zero : tensor<33x17xf32>
  return %r : tensor<33x17xf32>
}
