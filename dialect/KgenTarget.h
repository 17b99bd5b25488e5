//===- KgenTarget.h - facts about kgen's GPU targets ------------*- C++ -*-===//
#ifndef KGEN_DIALECT_KGENTARGET_H
#define KGEN_DIALECT_KGENTARGET_H

#include "dialect/KgenDialect.h"

namespace mlir::kgen {
/// Limits of a target's reference chip (sm_80: A100; sm_90a: H100/H200).
struct TargetInfo {
  llvm::StringLiteral name;
  int smCount;                    // streaming multiprocessors
  int64_t maxSharedBytesPerBlock; // opt-in dynamic shared memory per block
  int maxClusterSize;             // portable thread-block cluster size (1: none)
};

const TargetInfo &getTargetInfo(Target target);

/// Parses "sm_80" / "sm_90a".
std::optional<Target> parseTarget(llvm::StringRef name);
} // namespace mlir::kgen

#endif // KGEN_DIALECT_KGENTARGET_H
