//===- Register.h - one registration for every kgen tool --------*- C++ -*-===//
#ifndef KGEN_TOOLS_REGISTER_H
#define KGEN_TOOLS_REGISTER_H

namespace mlir {
class DialectRegistry;
class MLIRContext;
} // namespace mlir

namespace mlir::kgen {
/// The kgen dialect, the upstream dialects kgen lowers through, and their
/// interface extensions (bufferization, LLVM translation, ...).
void registerKgenDialects(DialectRegistry &registry);

/// Exit code of a tool whose process hit a crash signal (a bug: in kgen, or
/// in an upstream MLIR component it links, such as a dialect's parser).
constexpr int kInternalErrorExitCode = 70; // EX_SOFTWARE

/// Turns a crash signal (SIGSEGV, SIGABRT, ...) into a one-line "internal
/// error" message, a stack trace and exit code kInternalErrorExitCode, so a
/// tool never dies by a signal. Call first thing in main. The handler runs on
/// an alternate signal stack (ensureSignalStack), so a stack overflow ends
/// the same way.
void containCrashes(const char *toolName);

/// Bytes of the alternate signal stack ensureSignalStack provides.
constexpr unsigned long kSignalStackSize = 256 * 1024;

/// Gives the calling thread an alternate signal stack of at least
/// kSignalStackSize bytes (kept for the rest of the process) unless it has
/// one that large. A handler installed with SA_ONSTACK then runs even when
/// the fault was a stack overflow, which leaves no stack to run it on.
void ensureSignalStack();

/// Makes --mlir-print-op-on-diagnostic default to false (call before
/// MlirOptMain / mlirTranslateMain parse the command line): a diagnostic
/// names the op and its location in one line instead of printing the op,
/// which for a kernel or a module is the whole IR. The flag still turns it
/// back on.
void printOpsOnDiagnosticsOnlyWhenAsked();

/// Applies that flag's value to `context` (mlirTranslateMain turns op
/// printing on for its contexts whatever the flag says).
void applyPrintOpOnDiagnostic(MLIRContext *context);

/// The kgen passes (generated registerKgenPasses) and pipelines, and the
/// upstream passes kgen uses.
void registerAllKgenPasses();
} // namespace mlir::kgen

#endif // KGEN_TOOLS_REGISTER_H
