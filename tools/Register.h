//===- Register.h - one registration for every kgen tool --------*- C++ -*-===//
#ifndef KGEN_TOOLS_REGISTER_H
#define KGEN_TOOLS_REGISTER_H

#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>

namespace llvm {
class MemoryBuffer;
class ToolOutputFile;
class raw_ostream;
namespace cl {
class OptionCategory;
} // namespace cl
} // namespace llvm

namespace mlir {
class DialectRegistry;
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

/// Makes --mlir-print-op-on-diagnostic default to false (call before the
/// command line is parsed; an MLIRContext made after takes it): a diagnostic
/// names the op and its location in one line instead of printing the op,
/// which for a kernel or a module is the whole IR. The flag still turns it
/// back on.
void printOpsOnDiagnosticsOnlyWhenAsked();

/// The kgen passes (generated registerKgenPasses) and pipelines, and the
/// upstream passes kgen uses.
void registerAllKgenPasses();

//===--- the .mlir input of every tool ------------------------------------===//

/// Default of --max-input-mib: the largest .mlir input a tool reads.
constexpr unsigned kDefaultMaxInputMiB = 256;
/// Default of --max-nesting-depth: how deep brackets may nest in a .mlir
/// input. MLIR's parser (and the printer and verifier after it) recurse once
/// or twice per level; 1000 levels take about 3 MB of stack, well within
/// the usual 8 MB, while 3000-8000 overflow it. Real IR nests a few dozen.
constexpr unsigned kDefaultMaxNestingDepth = 1000;

/// The category of --max-input-mib and --max-nesting-depth (a tool that
/// hides unrelated options keeps it).
llvm::cl::OptionCategory &inputLimitsCategory();

/// Reads the .mlir input of a tool. `path` is "-" (stdin, whatever it is,
/// read up to the size limit) or names a regular file: a directory, FIFO,
/// device (/dev/zero) or socket is refused without reading from it, so no
/// input exhausts memory or blocks the tool. A file larger than
/// --max-input-mib is refused before it is read, one whose brackets nest
/// deeper than --max-nesting-depth once read (checkNestingDepth). Returns
/// null on refusal, with `err` one line naming the file (no tool prefix).
std::unique_ptr<llvm::MemoryBuffer> readToolInput(llvm::StringRef path,
                                                  std::string &err);

/// Whether the brackets of `buffer` nest at most `maxDepth` levels deep
/// (0: no limit). Counts (, [, { and < against their closers, outside
/// string literals and // comments; the arrow -> and the comparisons <=,
/// >= are not brackets. Otherwise `err` is "NAME:LINE:COL: ..." at the
/// bracket that went too deep.
bool checkNestingDepth(const llvm::MemoryBuffer &buffer, unsigned maxDepth,
                       std::string &err);

/// A tool's -o file that appears whole or not at all: the output goes to a
/// temporary beside PATH (PATH.kgen-tmp.<pid>, removed if the tool fails,
/// is interrupted, or forgets to commit: llvm::ToolOutputFile's cleanup)
/// and commit() renames it onto PATH. A failed run leaves PATH as it was,
/// even when PATH is the input. "-" (stdout) and a PATH that is not a
/// regular file (/dev/null, a FIFO) are written directly. Opening PATH
/// removes temporaries of PATH that killed runs left behind.
class AtomicOutputFile {
public:
  static std::unique_ptr<AtomicOutputFile> open(llvm::StringRef path,
                                                std::string &err);
  llvm::raw_ostream &os();
  /// Closes the temporary and renames it onto the path; false, with `err`,
  /// when that fails (the temporary is then removed).
  bool commit(std::string &err);
  ~AtomicOutputFile();

private:
  AtomicOutputFile() = default;
  std::string path, temporary;
  std::unique_ptr<llvm::ToolOutputFile> file;
};
} // namespace mlir::kgen

#endif // KGEN_TOOLS_REGISTER_H
