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
      if (GemmConfigAttr config = kernel.getConfigAttr();
          config && config.getSplitK() > 1) {
        kernel.emitOpError("split-K gemms need two kernels in one package; "
                           "packages hold one kernel for now (use split_k = 1)");
        return signalPassFailure();
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
