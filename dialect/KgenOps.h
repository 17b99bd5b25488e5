//===- KgenOps.h - kgen operations ------------------------------*- C++ -*-===//
#ifndef KGEN_DIALECT_KGENOPS_H
#define KGEN_DIALECT_KGENOPS_H

#include "dialect/KgenDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

#include "mlir/IR/SymbolTable.h"

#define GET_OP_CLASSES
#include "dialect/KgenOps.h.inc"

#define GET_OP_CLASSES
#include "dialect/KgenTileOps.h.inc"

namespace mlir::kgen {
/// True for the element types kgen's compute ops take as operands:
/// f16, bf16, f32 and f8E4M3FN.
bool isSupportedFloatType(Type type);

/// The family's legality of `config` for `op`'s operands
/// (dialect/GemmLegality.h), as a diagnostic on `op` naming the rule. Part
/// of GemmOp's verifier.
LogicalResult verifyGemmConfig(GemmOp op, GemmConfigAttr config);

/// Floating-point operations a kgen op performs (2 per multiply-add), from
/// its static shapes; std::nullopt for ops that do no arithmetic worth
/// counting. Data-dependent ops count their worst case.
std::optional<double> estimateFlops(Operation *op);
} // namespace mlir::kgen

#endif // KGEN_DIALECT_KGENOPS_H
