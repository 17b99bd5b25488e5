//===- GemmModule.h - modules the JSON-driven MLIR harnesses lower -*- C++ -*-===//
//
// GEMMs without configs, so that kgen-select-strategy chooses each from the
// fuzzed database or cost model. Few on purpose: a gemm no measurement
// covers is ranked by the cost model over its whole search space, which
// takes tens of milliseconds in an instrumented build.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_FUZZ_GEMMMODULE_H
#define KGEN_FUZZ_GEMMMODULE_H

namespace kgen::fuzz {

/// The shapes of test/Passes/Inputs' synthetic tuning databases, for sm_90a:
/// one with an exact entry (4096^3, bf16, B transposed) and one that only
/// has a nearest shape (M = 2500).
inline constexpr const char *kDbGemms = R"mlir(
func.func @exact(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  %d = kgen.gemm %a, %b {transpose_b} : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xbf16>
  return %d : tensor<4096x4096xbf16>
}
func.func @nearest(%a: tensor<2500x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<2500x4096xbf16> {
  %d = kgen.gemm %a, %b {transpose_b} : tensor<2500x4096xbf16>, tensor<4096x4096xbf16> -> tensor<2500x4096xbf16>
  return %d : tensor<2500x4096xbf16>
}
)mlir";

/// One gemm per target for the cost model: bf16 with a bias and an
/// activation on sm_90a (wgmma, mma_sync and simt compete), f32 with a
/// residual on sm_80.
inline constexpr const char *kModelGemmSm90a = R"mlir(
func.func @bf16(%a: tensor<37x64xbf16>, %b: tensor<48x64xbf16>, %bias: tensor<48xf32>) -> tensor<37x48xbf16> {
  %d = kgen.gemm %a, %b bias(%bias : tensor<48xf32>) {transpose_b, activation = #kgen.activation<gelu>} : tensor<37x64xbf16>, tensor<48x64xbf16> -> tensor<37x48xbf16>
  return %d : tensor<37x48xbf16>
}
)mlir";
inline constexpr const char *kModelGemmSm80 = R"mlir(
func.func @f32(%p: tensor<33x20xf32>, %q: tensor<20x17xf32>, %c: tensor<33x17xf32>) -> tensor<33x17xf32> {
  %f = kgen.gemm %p, %q residual(%c : tensor<33x17xf32>) {beta = 0.5 : f32} : tensor<33x20xf32>, tensor<20x17xf32> -> tensor<33x17xf32>
  return %f : tensor<33x17xf32>
}
)mlir";

} // namespace kgen::fuzz

#endif // KGEN_FUZZ_GEMMMODULE_H
