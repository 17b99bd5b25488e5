//===- EmitPackages.cpp - write kernel packages ---------------------------===//
//
// Precondition: kgen.kernel ops from kgen-lower-gemm-to-tiles. Writes one
// package folder per op: its kernel and the kernels that continue it (the
// split-K reduction), named after the first; the module is left as it is.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "codegen/emit/EmitCuda.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"

namespace mlir::kgen {
#define GEN_PASS_DEF_KGENEMITPACKAGES
#include "passes/Passes.h.inc"
} // namespace mlir::kgen

using namespace mlir;
using namespace mlir::kgen;

namespace {
/// The kernels of one package, starting at `first`: then every kernel
/// that has no op signature of its own (a continuation of the same op: a
/// split-K reduction, a split-KV combine, the later steps of an MoE layer)
/// and whose launch reads a result of a launch of the package, in the
/// order of their launches.
SmallVector<KernelOp> packageKernels(
    KernelOp first, SymbolTable &symbols,
    const llvm::StringMap<LaunchOp> &launchOf) {
  SmallVector<KernelOp> kernels = {first};
  for (size_t i = 0; i < kernels.size(); ++i) {
    auto it = launchOf.find(kernels[i].getSymName());
    if (it == launchOf.end())
      continue;
    for (Operation *user : it->second->getUsers()) {
      auto launch = dyn_cast<LaunchOp>(user);
      auto kernel = launch ? symbols.lookup<KernelOp>(launch.getKernel())
                           : KernelOp();
      if (kernel && !kernel.getSignatureAttr() &&
          !llvm::is_contained(kernels, kernel))
        kernels.push_back(kernel);
    }
  }
  auto launchedBefore = [&](KernelOp a, KernelOp b) {
    Operation *la = launchOf.lookup(a.getSymName());
    Operation *lb = launchOf.lookup(b.getSymName());
    return la->getBlock() == lb->getBlock() && la->isBeforeInBlock(lb);
  };
  std::stable_sort(kernels.begin() + 1, kernels.end(), launchedBefore);
  return kernels;
}

struct KgenEmitPackagesPass
    : mlir::kgen::impl::KgenEmitPackagesBase<KgenEmitPackagesPass> {
  using KgenEmitPackagesBase::KgenEmitPackagesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    llvm::StringMap<LaunchOp> launchOf;
    module.walk([&](LaunchOp launch) {
      launchOf.try_emplace(launch.getKernel(), launch);
    });
    // Kernels of ops first (they take their continuations along), then any
    // kernel left, alone.
    SmallVector<KernelOp> order;
    for (KernelOp kernel : module.getOps<KernelOp>())
      if (kernel.getSignatureAttr())
        order.push_back(kernel);
    for (KernelOp kernel : module.getOps<KernelOp>())
      if (!kernel.getSignatureAttr())
        order.push_back(kernel);
    llvm::DenseSet<Operation *> packaged;
    for (KernelOp kernel : order) {
      if (packaged.contains(kernel))
        continue;
      SmallVector<KernelOp> kernels =
          packageKernels(kernel, symbols, launchOf);
      for (KernelOp k : kernels)
        packaged.insert(k);
      llvm::SmallString<256> dir(outputDir);
      llvm::sys::path::append(dir, kernel.getSymName());
      if (failed(emitPackage(kernels, dir, compile)))
        return signalPassFailure();
    }
    markAllAnalysesPreserved();
  }
};
} // namespace
