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
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
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

void mlir::kgen::registerAllKgenPasses() {
  registerAllPasses();
  registerKgenPasses(); // generated from passes/Passes.td
  registerKgenPipelines();
  registerKgenPipeline(); // codegen/emit: ends in the emitter
}

//===----------------------------------------------------------------------===//
// The .mlir input of every tool
//===----------------------------------------------------------------------===//

llvm::cl::OptionCategory &mlir::kgen::inputLimitsCategory() {
  static llvm::cl::OptionCategory category("kgen input limits");
  return category;
}

namespace {
llvm::cl::opt<unsigned> maxInputMiB(
    "max-input-mib",
    llvm::cl::desc("Largest .mlir input to read, in MiB (0: no limit)"),
    llvm::cl::init(mlir::kgen::kDefaultMaxInputMiB),
    llvm::cl::cat(mlir::kgen::inputLimitsCategory()));
llvm::cl::opt<unsigned> maxNestingDepth(
    "max-nesting-depth",
    llvm::cl::desc("Deepest nesting of brackets in the .mlir input (0: no "
                   "limit; MLIR's parser recurses once per level)"),
    llvm::cl::init(mlir::kgen::kDefaultMaxNestingDepth),
    llvm::cl::cat(mlir::kgen::inputLimitsCategory()));

/// What a file that is not a regular one is, for the message.
const char *fileKind(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

/// Reads `fd` to its end, or fails (ENOSPC in `readError`) once more than
/// `limit` bytes (0: no limit) have come: stdin may be endless.
bool readAll(int fd, uint64_t limit, llvm::SmallVectorImpl<char> &data,
             int &readError) {
  char chunk[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      readError = errno;
      return false;
    }
    if (n == 0)
      return true;
    data.append(chunk, chunk + n);
    if (limit && data.size() > limit) {
      readError = ENOSPC;
      return false;
    }
  }
}
} // namespace

std::unique_ptr<llvm::MemoryBuffer>
mlir::kgen::readToolInput(llvm::StringRef path, std::string &err) {
  const uint64_t limit = uint64_t(maxInputMiB) << 20;
  auto tooLarge = [&](const llvm::Twine &what) {
    err = (what + " more than the limit of " + llvm::Twine(maxInputMiB) +
           " MiB (--max-input-mib)")
              .str();
    return nullptr;
  };
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  if (path == "-") {
    llvm::SmallString<0> data;
    int readError = 0;
    if (!readAll(STDIN_FILENO, limit, data, readError)) {
      if (readError == ENOSPC)
        return tooLarge("cannot read stdin: it holds");
      err = std::string("cannot read stdin: ") + strerror(readError);
      return nullptr;
    }
    buffer = llvm::MemoryBuffer::getMemBufferCopy(data, "<stdin>");
  } else {
    // O_NONBLOCK: opening a FIFO with no writer returns at once instead of
    // waiting for one; fstat then refuses it. A regular file ignores it.
    int fd = ::open(path.str().c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      err = ("cannot open input file '" + path + "': " + strerror(errno))
                .str();
      return nullptr;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
      err = ("cannot open input file '" + path + "': " + strerror(errno))
                .str();
      ::close(fd);
      return nullptr;
    }
    if (!S_ISREG(st.st_mode)) {
      ::close(fd);
      // A directory keeps the message the tools gave before.
      err = ("cannot open input file '" + path + "': " +
             (S_ISDIR(st.st_mode)
                  ? llvm::Twine(strerror(EISDIR))
                  : llvm::Twine(fileKind(st.st_mode)) + ", not a regular file"))
                .str();
      return nullptr;
    }
    if (limit && uint64_t(st.st_size) > limit) {
      ::close(fd);
      return tooLarge("cannot open input file '" + path + "': it holds " +
                      llvm::Twine(uint64_t(st.st_size) >> 20) + " MiB,");
    }
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
        llvm::MemoryBuffer::getOpenFile(fd, path, uint64_t(st.st_size));
    ::close(fd);
    if (!file) {
      err = ("cannot read input file '" + path + "': " +
             file.getError().message())
                .str();
      return nullptr;
    }
    buffer = std::move(*file);
  }
  if (!checkNestingDepth(*buffer, maxNestingDepth, err))
    return nullptr;
  return buffer;
}

bool mlir::kgen::checkNestingDepth(const llvm::MemoryBuffer &buffer,
                                   unsigned maxDepth, std::string &err) {
  if (maxDepth == 0)
    return true;
  llvm::StringRef text = buffer.getBuffer();
  unsigned depth = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    char next = i + 1 < e ? text[i + 1] : '\0';
    switch (c) {
    case '"': // a string literal, with \" escapes, ends at " or the line
      for (++i; i < e && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      break;
    case '/':
      if (next == '/')
        while (i < e && text[i] != '\n')
          ++i;
      break;
    case '-':
      if (next == '>')
        ++i; // the arrow of function types and maps
      break;
    case '<':
      if (next == '=')
        break;
      [[fallthrough]];
    case '(':
    case '[':
    case '{':
      if (++depth > maxDepth) {
        size_t lineStart = text.rfind('\n', i);
        lineStart = lineStart == llvm::StringRef::npos ? 0 : lineStart + 1;
        size_t line = text.take_front(i).count('\n') + 1;
        err = (buffer.getBufferIdentifier() + ":" + llvm::Twine(line) + ":" +
               llvm::Twine(i - lineStart + 1) +
               ": brackets nest deeper than " + llvm::Twine(maxDepth) +
               " levels, more than the tools parse safely "
               "(--max-nesting-depth)")
                  .str();
        return false;
      }
      break;
    case '>':
      if (next == '=')
        break;
      [[fallthrough]];
    case ')':
    case ']':
    case '}':
      if (depth)
        --depth;
      break;
    default:
      break;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// AtomicOutputFile
//===----------------------------------------------------------------------===//

namespace {
/// Removes PATH.kgen-tmp.<pid> files whose process is gone: what a run
/// killed before its cleanup could run (SIGKILL) left behind.
void removeStaleTemporaries(llvm::StringRef path) {
  llvm::SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  std::string prefix = (llvm::sys::path::filename(path) + ".kgen-tmp.").str();
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    if (!name.consume_front(prefix))
      continue;
    int pid = 0;
    if (name.getAsInteger(10, pid) || pid <= 0)
      continue;
    if (::kill(pid, 0) != 0 && errno == ESRCH)
      llvm::sys::fs::remove(it->path());
  }
}
} // namespace

std::unique_ptr<mlir::kgen::AtomicOutputFile>
mlir::kgen::AtomicOutputFile::open(llvm::StringRef path, std::string &err) {
  std::unique_ptr<AtomicOutputFile> out(new AtomicOutputFile());
  out->path = path.str();
  // A device or a pipe (/dev/null, a FIFO) has no contents to keep and must
  // not be replaced by a renamed file: written directly, like stdout.
  llvm::sys::fs::file_status status;
  bool special = path == "-" ||
                 (!llvm::sys::fs::status(path, status) &&
                  llvm::sys::fs::exists(status) &&
                  status.type() != llvm::sys::fs::file_type::regular_file);
  if (!special) {
    removeStaleTemporaries(path);
    out->temporary = (path + ".kgen-tmp." + llvm::Twine(::getpid())).str();
  }
  std::error_code ec;
  out->file = std::make_unique<llvm::ToolOutputFile>(
      special ? out->path : out->temporary, ec, llvm::sys::fs::OF_None);
  if (ec) {
    err = "cannot write " + out->path + ": " + ec.message();
    return nullptr;
  }
  return out;
}

llvm::raw_ostream &mlir::kgen::AtomicOutputFile::os() { return file->os(); }

bool mlir::kgen::AtomicOutputFile::commit(std::string &err) {
  if (temporary.empty()) { // stdout, a device or a pipe
    file->keep();
    return true;
  }
  file->os().close();
  if (file->os().has_error()) {
    err = "cannot write " + path + ": " + file->os().error().message();
    file->os().clear_error();
    return false; // the ToolOutputFile removes the temporary
  }
  if (std::error_code ec = llvm::sys::fs::rename(temporary, path)) {
    err = "cannot write " + path + ": " + ec.message();
    return false;
  }
  file->keep(); // renamed: nothing left to remove
  return true;
}

mlir::kgen::AtomicOutputFile::~AtomicOutputFile() = default;
