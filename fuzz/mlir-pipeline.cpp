//===- mlir-pipeline.cpp - fuzz kgen-opt's GEMM path on MLIR text ---------===//
//
// The input is a module's text: parsed, verified, then kgen-fuse-epilogue,
// kgen-select-strategy and kgen-lower-gemm-to-tiles with the verifier after
// each, as `kgen-opt --kgen-fuse-epilogue --kgen-select-strategy
// --kgen-lower-gemm-to-tiles` runs them. The target is sm_80 when the text
// mentions "sm_80", else sm_90a. Inputs larger than kMaxBytes are skipped:
// the tools' own input limits (issue 16 item 3) are not what this explores.
// Any outcome but a crash, a sanitizer report or a hang is fine.
//
//===----------------------------------------------------------------------===//

#include "MlirHarness.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace {
constexpr size_t kMaxBytes = 16 * 1024;

/// Inputs that crash MLIR 22 itself (libMLIR.so), whatever kgen does; each
/// has a reproducer in fuzz/crashes/ and an XFAIL test in test/Tools/.
/// Skipping them keeps the fuzzer on kgen's code.
///
/// linalg.broadcast's `dimensions = ` and linalg.transpose's
/// `permutation = ` are parsed by parseDenseI64ArrayAttr (LinalgOps.cpp),
/// which stores the result of DenseI64ArrayAttr::parse without checking it:
/// anything but a well-formed i64 list there stores a null attribute, and
/// NamedAttrList::set dereferences it (fuzz/crashes/
/// upstream-linalg-broadcast-dimensions.mlir). Only lists of up to 18-digit
/// decimal integers are let through.
bool knownUpstreamCrash(llvm::StringRef text) {
  for (llvm::StringRef keyword : {"dimensions", "permutation"}) {
    for (size_t at = text.find(keyword); at != llvm::StringRef::npos;
         at = text.find(keyword, at + 1)) {
      llvm::StringRef rest = text.drop_front(at + keyword.size()).ltrim();
      if (!rest.consume_front("="))
        continue;
      rest = rest.ltrim();
      if (!rest.consume_front("["))
        return true;
      for (bool first = true;; first = false) {
        rest = rest.ltrim();
        if (rest.consume_front("]"))
          break;
        if (!first && !rest.consume_front(","))
          return true;
        rest = rest.ltrim();
        rest.consume_front("-");
        const size_t digits = rest.find_first_not_of("0123456789");
        if (digits == 0 || digits > 18 || digits == llvm::StringRef::npos)
          return true;
        rest = rest.drop_front(digits);
      }
    }
  }
  return false;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxBytes)
    return -1; // not added to the corpus
  // MLIR's lexer reads the NUL that ends every buffer kgen-opt reads (a
  // file's MemoryBuffer); libFuzzer's data has none.
  const std::string owned(reinterpret_cast<const char *>(data), size);
  const llvm::StringRef text(owned);
  if (knownUpstreamCrash(text))
    return -1;
  auto context = kgen::fuzz::makeContext();
  auto module = kgen::fuzz::parseModule(*context, text);
  if (!module)
    return 0;
  kgen::fuzz::GemmPath path;
  if (text.contains("sm_80"))
    path.target = "sm_80";
  (void)kgen::fuzz::runGemmPath(*module, path);
  return 0;
}
