//===- EmitPackages.cpp - write kernel packages ---------------------------===//
//
// Precondition: kgen.kernel ops from kgen-lower-gemm-to-tiles. Writes one
// package folder per kernel; the module is left as it is.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "codegen/emit/EmitCuda.h"

#include "llvm/Support/Path.h"

namespace mlir::kgen {
#define GEN_PASS_DEF_KGENEMITPACKAGES
#include "passes/Passes.h.inc"
} // namespace mlir::kgen

using namespace mlir;
using namespace mlir::kgen;

namespace {
struct KgenEmitPackagesPass
    : mlir::kgen::impl::KgenEmitPackagesBase<KgenEmitPackagesPass> {
  using KgenEmitPackagesBase::KgenEmitPackagesBase;

  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>()) {
      // A split-K gemm is two kernels (partials, then the reduction); a
      // package holds one. Said, and skipped, until the format holds both.
      if (GemmConfigAttr config = kernel.getConfigAttr();
          config && config.getSplitK() > 1) {
        if (!kernel.getSymName().ends_with("_splitk_reduce"))
          kernel.emitWarning("not packaged: split-K gemms need two kernels "
                             "in one package, which packages cannot hold "
                             "yet (kgen-translate prints both)");
        continue;
      }
      llvm::SmallString<256> dir(outputDir);
      llvm::sys::path::append(dir, kernel.getSymName());
      if (failed(emitPackage(kernel, dir)))
        return signalPassFailure();
    }
    markAllAnalysesPreserved();
  }
};
} // namespace
