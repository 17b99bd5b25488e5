//===- Invoke.h - JIT-run a function through the reference pipeline -*- C++ -*-===//
#ifndef KGEN_TOOLS_KGEN_RUN_INVOKE_H
#define KGEN_TOOLS_KGEN_RUN_INVOKE_H

#include "kgen/runtime/HostTensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace mlir::kgen {
namespace rt = ::kgen::rt;

/// The runtime element type for an MLIR element type, if kgen-run can pass it.
std::optional<rt::ElemType> toElemType(mlir::Type type);

/// Lowers `module` with the reference pipeline (kgen-reference-pipeline),
/// JIT-compiles it and calls `entry`.
///
/// Preconditions: `entry` is a function of `module` whose arguments and
/// results are static ranked tensors; `inputs` match the arguments and
/// `outputs` are allocated with the result shapes and types. On success the
/// outputs hold the results. On failure `err` says why and the outputs are
/// unspecified. `module` is lowered in place.
///
/// The call is guarded: a fault in the generated code (SIGSEGV, SIGBUS,
/// SIGFPE, SIGILL; a stack overflow included, reported as such) or a run
/// longer than `timeoutSeconds` (0: no limit) is reported as a failure
/// instead of killing the process. After such a
/// failure the process state is suspect: report and exit.
///
/// `onPhase`, if given, is told each step as it starts (a string literal:
/// lowering, JIT compilation, the call), e.g. for a caller's time-out
/// message.
bool runReference(mlir::ModuleOp module, llvm::StringRef entry,
                  std::vector<rt::HostTensor> &inputs,
                  std::vector<rt::HostTensor> &outputs, std::string &err,
                  unsigned timeoutSeconds = 0,
                  void (*onPhase)(const char *) = nullptr);
} // namespace mlir::kgen

#endif // KGEN_TOOLS_KGEN_RUN_INVOKE_H
