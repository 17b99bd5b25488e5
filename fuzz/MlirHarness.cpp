//===- MlirHarness.cpp - kgen's GEMM path on one fuzz input ---------------===//

#include "MlirHarness.h"

#include "dialect/KgenDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

/// libMLIR.so is Debian's, not built with ASan, while kgen's code inlines
/// LLVM's BumpPtrAllocator from the headers with ASan on: a slab our code
/// starts is poisoned whole, and libMLIR's own (uninstrumented) allocations
/// from it are never unpoisoned, so every later access to them reads as
/// use-after-poison. Manual poisoning is turned off; ASan's own redzones
/// still catch overflows of heap and stack objects.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

namespace kgen::fuzz {

std::unique_ptr<MLIRContext> makeContext() {
  DialectRegistry registry;
  registry.insert<mlir::kgen::KgenDialect, func::FuncDialect, arith::ArithDialect,
                  tensor::TensorDialect, memref::MemRefDialect, scf::SCFDialect,
                  linalg::LinalgDialect, cf::ControlFlowDialect,
                  math::MathDialect, bufferization::BufferizationDialect,
                  LLVM::LLVMDialect>();
  auto context = std::make_unique<MLIRContext>(registry,
                                               MLIRContext::Threading::DISABLED);
  // Never printed: a fuzz run would drown in them. Errors end the run
  // through the LogicalResults anyway.
  context->getDiagEngine().registerHandler([](Diagnostic &) { return success(); });
  return context;
}

OwningOpRef<ModuleOp> parseModule(MLIRContext &context, llvm::StringRef text) {
  ParserConfig config(&context, /*verifyAfterParse=*/true);
  return parseSourceString<ModuleOp>(text, config, "fuzz-input");
}

bool runGemmPath(ModuleOp module, const GemmPath &path) {
  PassManager pm(module.getContext());
  pm.enableVerifier(true);
  if (path.fuse)
    pm.addPass(mlir::kgen::createKgenFuseEpilogue());
  mlir::kgen::KgenSelectStrategyOptions select;
  select.target = path.target;
  select.databases.assign(path.databases.begin(), path.databases.end());
  select.model = path.model;
  pm.addPass(mlir::kgen::createKgenSelectStrategy(select));
  pm.addPass(mlir::kgen::createKgenLowerGemmToTiles());
  return succeeded(pm.run(module));
}

} // namespace kgen::fuzz
