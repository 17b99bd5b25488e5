//===- Passes.h - kgen passes -----------------------------------*- C++ -*-===//
#ifndef KGEN_PASSES_PASSES_H
#define KGEN_PASSES_PASSES_H

#include "dialect/KgenOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::kgen {
#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// The CPU reference pipeline: kgen ops -> loops -> bufferized LLVM dialect,
/// every function returning its results through out-parameters and carrying
/// `llvm.emit_c_interface`. What kgen-run JIT-compiles.
/// Precondition: the passes are registered (registerAllKgenPasses in
/// tools/Register.h); fails, printing why, otherwise.
LogicalResult buildReferencePipeline(OpPassManager &pm);

/// Registers `kgen-reference-pipeline` (buildReferencePipeline);
/// `kgen-pipeline`, which ends in the emitter, is codegen's
/// (codegen/emit/KgenPipeline.h).
void registerKgenPipelines();
} // namespace mlir::kgen

#endif // KGEN_PASSES_PASSES_H
