//===- kgen-translate.cpp - kgen kernels to CUDA C++ ----------------------===//
//
// mlir-translate for kgen: --kgen-emit-cuda prints the CUDA C++ of the
// module's kgen.kernel ops (all, or the one named by --kgen-kernel).
//
// The driver is mlirTranslateMain's, with the input read through
// readToolInput (tools/Register.h): only regular files or stdin, within a
// size and a bracket-nesting limit. Exit codes: 0 success, 1 a refused
// input or a failed translation, 2 a command line the option parser
// refuses, 70 an internal error.
//
//===----------------------------------------------------------------------===//

#include "tools/Register.h"

#include "codegen/emit/EmitCuda.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Support/ToolUtilities.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string>
    kernelName("kgen-kernel",
               cl::desc("With --kgen-emit-cuda: print only this kernel"));

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input file>"),
                                          cl::init("-"));
static cl::opt<std::string> outputFilename("o", cl::desc("Output filename"),
                                           cl::value_desc("filename"),
                                           cl::init("-"));
static cl::opt<bool> allowUnregisteredDialects(
    "allow-unregistered-dialect",
    cl::desc("Allow operation with no registered dialects (discouraged: "
             "testing only!)"),
    cl::init(false));
static cl::opt<std::string> inputSplitMarker{
    "split-input-file", cl::ValueOptional,
    cl::callback([](const std::string &str) {
      // Implicit value: the default marker when the flag has no value.
      if (str.empty())
        inputSplitMarker.setValue(kDefaultSplitMarker);
    }),
    cl::desc("Split the input file into chunks using the given or default "
             "marker and process each chunk independently"),
    cl::init("")};
static cl::opt<std::string>
    outputSplitMarker("output-split-marker",
                      cl::desc("Split marker to use for merging the output"),
                      cl::init(""));
static cl::opt<SourceMgrDiagnosticVerifierHandler::Level> verifyDiagnostics{
    "verify-diagnostics", cl::ValueOptional,
    cl::desc("Check that emitted diagnostics match expected-* lines on the "
             "corresponding line"),
    cl::values(
        clEnumValN(SourceMgrDiagnosticVerifierHandler::Level::All, "all",
                   "Check all diagnostics (expected, unexpected, "
                   "near-misses)"),
        // The implicit value, of a bare --verify-diagnostics.
        clEnumValN(SourceMgrDiagnosticVerifierHandler::Level::All, "",
                   "Check all diagnostics (expected, unexpected, "
                   "near-misses)"),
        clEnumValN(SourceMgrDiagnosticVerifierHandler::Level::OnlyExpected,
                   "only-expected", "Check only expected diagnostics"))};
static cl::opt<bool> errorDiagnosticsOnly(
    "error-diagnostics-only",
    cl::desc("Filter all non-error diagnostics (discouraged: testing only!)"),
    cl::init(false));

static LogicalResult emitCuda(Operation *op, llvm::raw_ostream &os) {
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
           << (kernelName.empty()
                   ? std::string("no kgen.kernel in the module (run "
                                 "kgen-lower-gemm-to-tiles)")
                   : "no kgen.kernel @" + kernelName);
  return success();
}

int main(int argc, char **argv) {
  mlir::kgen::containCrashes("kgen-translate");
  llvm::InitLLVM init(argc, argv);
  mlir::kgen::printOpsOnDiagnosticsOnlyWhenAsked();
  TranslateFromMLIRRegistration registration(
      "kgen-emit-cuda", "Print the CUDA C++ of kgen.kernel ops", emitCuda,
      [](DialectRegistry &registry) {
        mlir::kgen::registerKgenDialects(registry);
      });
  // Constructed after the registration: its parser lists the translations.
  cl::list<const Translation *, bool, TranslationParser> translations(
      "", cl::desc("Translation to perform"), cl::Required);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerTranslationCLOptions();
  registerDefaultTimingManagerCLOptions();
  // With an error stream the parser returns instead of exiting with 1: a
  // bad command line is a usage error, exit 2.
  if (!cl::ParseCommandLineOptions(argc, argv, "kgen translation driver\n",
                                   &llvm::errs()))
    return 2;
  for (cl::Option *option : {static_cast<cl::Option *>(&outputFilename),
                             static_cast<cl::Option *>(&kernelName)})
    if (option->getNumOccurrences() > 1) { // the last would win silently
      llvm::errs() << "kgen-translate: error: "
                   << (option->ArgStr.size() == 1 ? "-" : "--")
                   << option->ArgStr << " is given "
                   << option->getNumOccurrences() << " times; give it once\n";
      return 2;
    }
  if (translations.size() != 1) {
    llvm::errs() << "kgen-translate: error: give one translation, once "
                    "(--kgen-emit-cuda)\n";
    return 2;
  }
  const Translation &translation = *translations.front();

  DefaultTimingManager tm;
  applyDefaultTimingManagerCLOptions(tm);
  TimingScope timing = tm.getRootScope();

  std::string err;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::kgen::readToolInput(inputFilename, err);
  if (!input) {
    llvm::errs() << "kgen-translate: error: " << err << "\n";
    return 1;
  }
  // Written whole or not at all: a failed run leaves -o's file as it was.
  std::unique_ptr<mlir::kgen::AtomicOutputFile> output =
      mlir::kgen::AtomicOutputFile::open(outputFilename, err);
  if (!output) {
    llvm::errs() << "kgen-translate: error: " << err << "\n";
    return 1;
  }

  // Each chunk (the whole input without --split-input-file) in a context of
  // its own.
  auto processBuffer = [&](std::unique_ptr<llvm::MemoryBuffer> buffer,
                           llvm::raw_ostream &os) -> LogicalResult {
    // Translations expect a null-terminated buffer; a chunk may not be.
    if (!buffer->getBuffer().ends_with('\0'))
      buffer = llvm::MemoryBuffer::getMemBufferCopy(
          buffer->getBuffer(), buffer->getBufferIdentifier());
    TimingScope translationTiming = timing.nest(translation.getDescription());
    MLIRContext context;
    context.allowUnregisteredDialects(allowUnregisteredDialects);
    // The context took --mlir-print-op-on-diagnostic (default false here);
    // the diagnostics checked by --verify-diagnostics never print ops.
    if (verifyDiagnostics.getNumOccurrences())
      context.printOpOnDiagnostic(false);
    auto sourceMgr = std::make_shared<llvm::SourceMgr>();
    sourceMgr->AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
    if (verifyDiagnostics.getNumOccurrences()) {
      // Whether the translation fails does not matter, only whether the
      // diagnostics are the expected ones.
      SourceMgrDiagnosticVerifierHandler handler(*sourceMgr, &context,
                                                 verifyDiagnostics);
      (void)translation(sourceMgr, os, &context);
      return handler.verify();
    }
    SourceMgrDiagnosticHandler handler(*sourceMgr, &context);
    if (!errorDiagnosticsOnly)
      return translation(sourceMgr, os, &context);
    ScopedDiagnosticHandler errorsOnly(&context, [](Diagnostic &diag) {
      // Handled (dropped) unless an error, which goes on to `handler`.
      return success(diag.getSeverity() != DiagnosticSeverity::Error);
    });
    return translation(sourceMgr, os, &context);
  };
  if (failed(splitAndProcessBuffer(std::move(input), processBuffer,
                                   output->os(), inputSplitMarker,
                                   outputSplitMarker)))
    return 1;
  if (!output->commit(err)) {
    llvm::errs() << "kgen-translate: error: " << err << "\n";
    return 1;
  }
  return 0;
}
