//===- Register.cpp - one registration for every kgen tool ----------------===//
//
// The only file that includes InitAll*.h (the heaviest includes of MLIR).
//
//===----------------------------------------------------------------------===//

#include "tools/Register.h"

#include "dialect/KgenDialect.h"
#include "passes/Passes.h"
#include "codegen/emit/KgenPipeline.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <unistd.h>

static const char *crashingTool = "kgen";

void mlir::kgen::ensureSignalStack() {
  stack_t current;
  if (sigaltstack(nullptr, &current) == 0 &&
      !(current.ss_flags & SS_DISABLE) && current.ss_size >= kSignalStackSize)
    return;
  // Never freed: the stack stays registered for the thread's life.
  stack_t stack = {};
  stack.ss_sp = new char[kSignalStackSize];
  stack.ss_size = kSignalStackSize;
  sigaltstack(&stack, nullptr);
}

void mlir::kgen::containCrashes(const char *toolName) {
  crashingTool = toolName;
  // LLVM installs its handlers with SA_ONSTACK and keeps a signal stack it
  // finds that is at least as large as its own.
  ensureSignalStack();
  llvm::sys::AddSignalHandler(
      [](void *) {
        llvm::errs() << crashingTool
                     << ": internal error: the process hit a crash signal; "
                        "this is a bug, please report it with the input. "
                        "Stack trace:\n";
        llvm::sys::PrintStackTrace(llvm::errs());
        llvm::errs().flush();
        _exit(kInternalErrorExitCode);
      },
      nullptr);
}

void mlir::kgen::registerKgenDialects(DialectRegistry &registry) {
  registry.insert<KgenDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}

namespace {
/// MLIR's --mlir-print-op-on-diagnostic, once registered.
llvm::cl::opt<bool> *printOpOption() {
  mlir::registerMLIRContextCLOptions(); // idempotent: the *Main functions call it too
  auto &options = llvm::cl::getRegisteredOptions();
  auto it = options.find("mlir-print-op-on-diagnostic");
  return it == options.end() ? nullptr
                             : static_cast<llvm::cl::opt<bool> *>(it->second);
}
} // namespace

void mlir::kgen::printOpsOnDiagnosticsOnlyWhenAsked() {
  if (llvm::cl::opt<bool> *option = printOpOption())
    option->setInitialValue(false);
}

void mlir::kgen::applyPrintOpOnDiagnostic(MLIRContext *context) {
  llvm::cl::opt<bool> *option = printOpOption();
  context->printOpOnDiagnostic(option && *option);
}

void mlir::kgen::registerAllKgenPasses() {
  registerAllPasses();
  registerKgenPasses(); // generated from passes/Passes.td
  registerKgenPipelines();
  registerKgenPipeline(); // codegen/emit: ends in the emitter
}
