//===- MlirHarness.h - kgen's GEMM path on one fuzz input --------*- C++ -*-===//
//
// What the MLIR harnesses share: a fresh context per input (no state carried
// from one input to the next, so a saved crash reproduces alone), with the
// dialects the tests' inputs use, multithreading off and every diagnostic
// swallowed; and kgen-opt's GEMM path as one pass pipeline.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_FUZZ_MLIRHARNESS_H
#define KGEN_FUZZ_MLIRHARNESS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>
#include <vector>

namespace kgen::fuzz {

/// A context with kgen's dialects and those of the tests' inputs loaded on
/// demand; diagnostics are dropped.
std::unique_ptr<mlir::MLIRContext> makeContext();

/// Parses and verifies `text` as a module; null when it does not parse or
/// verify.
mlir::OwningOpRef<mlir::ModuleOp> parseModule(mlir::MLIRContext &context,
                                              llvm::StringRef text);

/// kgen-opt's GEMM path: kgen-fuse-epilogue (when `fuse`),
/// kgen-select-strategy with these options, kgen-lower-gemm-to-tiles, the
/// verifier after each pass. True when every pass succeeded.
struct GemmPath {
  bool fuse = true;
  std::string target = "sm_90a";
  std::vector<std::string> databases;
  std::string model;
};
bool runGemmPath(mlir::ModuleOp module, const GemmPath &path);

} // namespace kgen::fuzz

#endif // KGEN_FUZZ_MLIRHARNESS_H
