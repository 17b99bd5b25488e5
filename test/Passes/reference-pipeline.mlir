// --kgen-reference-pipeline takes kgen ops and the tensor code around them
// all the way to the LLVM dialect: no kgen, tensor, memref, scf, arith,
// math, cf or func op is left, results become out-parameters, the scratch
// buffers become malloc/free, and narrow-float conversions are integer code
// (no fpext/fptrunc).
// RUN: kgen-opt %s --split-input-file --kgen-reference-pipeline | FileCheck %s

// CHECK-NOT:   kgen.
// CHECK-NOT:   memref.
// CHECK-NOT:   scf.
// CHECK-NOT:   func.func
// CHECK-NOT:   bufferization.
// CHECK:       llvm.func @main(
// CHECK-NOT:   {{(kgen|memref|scf|arith|math|cf|func|bufferization|tensor|linalg)\.}}
// CHECK-NOT:   unrealized_conversion_cast
// CHECK-NOT:   llvm.fpext
// CHECK-NOT:   llvm.fptrunc
// CHECK:       llvm.intr.tanh
// CHECK-NOT:   {{(kgen|memref|scf|arith|math|cf|func|bufferization|tensor|linalg)\.}}
// CHECK:       llvm.call @malloc
// CHECK-NOT:   {{(kgen|memref|scf|arith|math|cf|func|bufferization|tensor|linalg)\.}}
// CHECK:       llvm.intr.exp
// CHECK-NOT:   {{(kgen|memref|scf|arith|math|cf|func|bufferization|tensor|linalg)\.}}
// CHECK:       llvm.call @free
// CHECK:       llvm.return{{$}}
// CHECK-NOT:   {{(kgen|memref|scf|arith|math|cf|func|bufferization|tensor|linalg)\.}}
// CHECK-NOT:   llvm.fpext
// CHECK-NOT:   llvm.fptrunc
func.func @main(%a: tensor<16x32xbf16>, %b: tensor<32x8xbf16>, %q: tensor<1x2x4x32xf16>, %k: tensor<1x1x8x32xf16>, %v: tensor<1x1x8x32xf16>) -> (tensor<16x8xbf16>, tensor<1x2x4x32xf16>) {
  %d = kgen.gemm %a, %b {activation = #kgen.activation<gelu>} : tensor<16x32xbf16>, tensor<32x8xbf16> -> tensor<16x8xbf16>
  %o = kgen.attention %q, %k, %v {causal} : tensor<1x2x4x32xf16>, tensor<1x1x8x32xf16>, tensor<1x1x8x32xf16> -> tensor<1x2x4x32xf16>
  return %d, %o : tensor<16x8xbf16>, tensor<1x2x4x32xf16>
}

// -----

// A fused moe followed by elementwise bf16 tensor arithmetic (user IR that
// goes through linalg and float emulation).
// CHECK-NOT:   kgen.
// CHECK-NOT:   memref.
// CHECK-NOT:   scf.
// CHECK:       llvm.func @main(
// CHECK-NOT:   {{(kgen|memref|scf|arith|math|cf|func|bufferization|tensor|linalg)\.}}
// CHECK-NOT:   unrealized_conversion_cast
// CHECK-NOT:   llvm.fpext
// CHECK-NOT:   llvm.fptrunc
// CHECK:       llvm.return{{$}}
// CHECK-NOT:   {{(kgen|memref|scf|arith|math|cf|func|bufferization|tensor|linalg)\.}}
func.func @main(%x: tensor<4x32xbf16>, %logits: tensor<4x4xf32>, %wg: tensor<4x32x16xbf16>, %wu: tensor<4x32x16xbf16>, %wd: tensor<4x16x32xbf16>) -> tensor<4x32xbf16> {
  %y = kgen.moe %x, %logits, %wg, %wu, %wd {top_k = 2} : tensor<4x32xbf16>, tensor<4x4xf32>, tensor<4x32x16xbf16>, tensor<4x32x16xbf16>, tensor<4x16x32xbf16> -> tensor<4x32xbf16>
  %s = arith.addf %y, %x : tensor<4x32xbf16>
  return %s : tensor<4x32xbf16>
}
