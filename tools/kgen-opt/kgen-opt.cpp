//===- kgen-opt.cpp - the kgen compiler driver ----------------------------===//
//
// mlir-opt with the kgen dialect and passes registered.
//
//===----------------------------------------------------------------------===//

#include "tools/Register.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::kgen::containCrashes("kgen-opt");
  mlir::kgen::printOpsOnDiagnosticsOnlyWhenAsked();
  mlir::DialectRegistry registry;
  mlir::kgen::registerKgenDialects(registry);
  mlir::kgen::registerAllKgenPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "kgen compiler driver\n", registry));
}
