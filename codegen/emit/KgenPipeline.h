//===- KgenPipeline.h - kgen-pipeline: gemm ops to kernel packages -*- C++ -*-===//
#ifndef KGEN_CODEGEN_EMIT_KGENPIPELINE_H
#define KGEN_CODEGEN_EMIT_KGENPIPELINE_H

#include "mlir/Pass/PassManager.h"

#include <string>

namespace mlir::kgen {
/// fuse-epilogue -> select-strategy{target db} -> lower-gemm-to-tiles ->
/// emit-packages{output-dir}.
void buildKgenPipeline(OpPassManager &pm, StringRef target,
                       StringRef outputDir,
                       ArrayRef<std::string> databases = {});

/// Registers `kgen-pipeline` (buildKgenPipeline).
void registerKgenPipeline();
} // namespace mlir::kgen

#endif // KGEN_CODEGEN_EMIT_KGENPIPELINE_H
