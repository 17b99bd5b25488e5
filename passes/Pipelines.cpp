//===- Pipelines.cpp - named kgen pass pipelines --------------------------===//

#include "passes/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

// kgen ops -> loops -> bufferized -> LLVM dialect. Steps:
//  1. kgen-lower-tiles-to-loops: tile-level kernels run block by block;
//     kgen-lower-to-loops: the reference semantics as scf loops on memrefs,
//     and elementwise arith/math on static tensors (user IR) outside loops
//     as loops too, consecutive ones fused in one nest and written in
//     place where an operand dies (so compile time stays linear in the
//     number of ops: through linalg, one-shot bufferization's in-place
//     analysis of a chain of n ops is cubic); elementwise ops inside loops
//     become linalg;
//  2. one-shot bufferization of whatever tensor code surrounds them, with
//     plain (identity-layout) memrefs at function boundaries, and results
//     turned into caller-allocated out-parameters;
//  3. linalg on buffers (from user IR) to loops; narrow-float arithmetic
//     emulated in f32; every narrow conversion expanded to exact bit code;
//  4. the standard conversions to the LLVM dialect.
static constexpr const char *kReferencePipeline =
    "kgen-lower-tiles-to-loops,kgen-lower-to-loops,convert-elementwise-to-linalg,"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map "
    "unknown-type-conversion=identity-layout-map},"
    "buffer-results-to-out-params{modify-public-functions},"
    "func.func(convert-linalg-to-loops),"
    "arith-emulate-unsupported-floats{source-types=bf16,f16,f8E4M3FN "
    "target-type=f32},"
    "kgen-expand-float-conversions,"
    "expand-strided-metadata,lower-affine,convert-scf-to-cf,"
    "finalize-memref-to-llvm,convert-math-to-llvm,convert-math-to-libm,"
    "convert-arith-to-llvm,convert-index-to-llvm,convert-func-to-llvm,"
    "convert-cf-to-llvm,reconcile-unrealized-casts";

LogicalResult mlir::kgen::buildReferencePipeline(OpPassManager &pm) {
  return parsePassPipeline(kReferencePipeline, pm, llvm::errs());
}

void mlir::kgen::registerKgenPipelines() {
  PassPipelineRegistration<>(
      "kgen-reference-pipeline",
      "Lower kgen ops and the surrounding tensor code to the LLVM dialect "
      "through the CPU reference loops (what kgen-run executes)",
      [](OpPassManager &pm) { (void)buildReferencePipeline(pm); });
}
