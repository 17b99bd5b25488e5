//===- kgen-translate.cpp - kgen kernels to CUDA C++ ----------------------===//
//
// mlir-translate for kgen: --kgen-emit-cuda prints the CUDA C++ of the
// module's kgen.kernel ops (all, or the one named by --kgen-kernel).
//
//===----------------------------------------------------------------------===//

#include "tools/Register.h"

#include "codegen/emit/EmitCuda.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"

using namespace mlir;

static llvm::cl::opt<std::string>
    kernelName("kgen-kernel",
               llvm::cl::desc("With --kgen-emit-cuda: print only this kernel"));

int main(int argc, char **argv) {
  mlir::kgen::containCrashes("kgen-translate");
  mlir::kgen::printOpsOnDiagnosticsOnlyWhenAsked();
  TranslateFromMLIRRegistration emitCuda(
      "kgen-emit-cuda", "Print the CUDA C++ of kgen.kernel ops",
      [](Operation *op, llvm::raw_ostream &os) -> LogicalResult {
        mlir::kgen::applyPrintOpOnDiagnostic(op->getContext());
        auto module = dyn_cast<ModuleOp>(op);
        if (!module)
          return op->emitError("expected a module");
        bool found = false;
        for (auto kernel : module.getOps<mlir::kgen::KernelOp>()) {
          if (!kernelName.empty() && kernel.getSymName() != kernelName)
            continue;
          found = true;
          if (failed(mlir::kgen::emitCuda(kernel, os)))
            return failure();
        }
        if (!found)
          return module.emitError()
                 << (kernelName.empty() ? std::string("no kgen.kernel in the "
                                                      "module (run "
                                                      "kgen-lower-gemm-to-tiles)")
                                        : "no kgen.kernel @" + kernelName);
        return success();
      },
      [](DialectRegistry &registry) { mlir::kgen::registerKgenDialects(registry); });
  return failed(mlirTranslateMain(argc, argv, "kgen translation driver"));
}
