//===- MoeLegality.h - which kgen.moe layers the MoE kernels lower -*- C++ -*-===//
//
// The forms of kgen.moe that kgen-lower-moe-to-tiles has kernels for; the
// expert GEMMs' configs answer to dialect/GroupedGemmLegality.h. Selection
// (kgen-select-strategy) configures only these layers, and the lowering
// refuses a configured layer outside them, both with this reason.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_DIALECT_MOELEGALITY_H
#define KGEN_DIALECT_MOELEGALITY_H

#include "dialect/KgenOps.h"

#include <optional>
#include <string>

namespace mlir::kgen {
/// Nullopt when the MoE kernels lower `op`; else what of it they do not
/// ("the kernels of ... are not lowered yet").
std::optional<std::string> moeKernelsRefuse(MoeOp op);
} // namespace mlir::kgen

#endif // KGEN_DIALECT_MOELEGALITY_H
