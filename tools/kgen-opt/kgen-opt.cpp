//===- kgen-opt.cpp - the kgen compiler driver ----------------------------===//
//
// mlir-opt with the kgen dialect and passes registered. It reads its input
// through readToolInput (tools/Register.h): only regular files or stdin,
// within a size and a bracket-nesting limit. Exit codes: 0 success, 1 a
// refused input or a failed pass, 2 a command line the option parser
// refuses, 70 an internal error.
//
//===----------------------------------------------------------------------===//

#include "tools/Register.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cstdio>

namespace cl = llvm::cl;

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input file>"),
                                          cl::init("-"));
static cl::opt<std::string> outputFilename("o", cl::desc("Output filename"),
                                           cl::value_desc("filename"),
                                           cl::init("-"));

int main(int argc, char **argv) {
  mlir::kgen::containCrashes("kgen-opt");
  llvm::InitLLVM init(argc, argv);
  mlir::kgen::printOpsOnDiagnosticsOnlyWhenAsked();
  mlir::DialectRegistry registry;
  mlir::kgen::registerKgenDialects(registry);
  mlir::kgen::registerAllKgenPasses();
  std::string helpHeader =
      mlir::registerCLIOptions("kgen compiler driver\n", registry);
  // With an error stream the parser returns instead of exiting with 1: a
  // bad command line is a usage error, exit 2.
  if (!cl::ParseCommandLineOptions(argc, argv, helpHeader, &llvm::errs()))
    return 2;
  if (outputFilename.getNumOccurrences() > 1) { // the last would win silently
    llvm::errs() << "kgen-opt: error: -o is given "
                 << outputFilename.getNumOccurrences()
                 << " times; give it once\n";
    return 2;
  }
  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(mlir::MlirOptMain(
        llvm::outs(), llvm::MemoryBuffer::getMemBuffer(""), registry, config));

  if (inputFilename == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                    "interrupt)\n";
  std::string err;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::kgen::readToolInput(inputFilename, err);
  if (!input) {
    llvm::errs() << "kgen-opt: error: " << err << "\n";
    return 1;
  }
  // Written whole or not at all: a failed run leaves -o's file as it was
  // (kgen-opt x.mlir -o x.mlir with an error keeps x.mlir).
  std::unique_ptr<mlir::kgen::AtomicOutputFile> output =
      mlir::kgen::AtomicOutputFile::open(outputFilename, err);
  if (!output) {
    llvm::errs() << "kgen-opt: error: " << err << "\n";
    return 1;
  }
  if (failed(mlir::MlirOptMain(output->os(), std::move(input), registry,
                               config)))
    return 1;
  if (!output->commit(err)) {
    llvm::errs() << "kgen-opt: error: " << err << "\n";
    return 1;
  }
  return 0;
}
