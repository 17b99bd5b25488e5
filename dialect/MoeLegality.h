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
/// The most experts of a layer whose routing is not plain softmax (sigmoid
/// scoring, a correction bias, expert groups or a scaling factor): the
/// DeepSeek routing kernel keeps a token's scores in a warp's registers and
/// shared memory, 8 per lane.
inline constexpr int64_t kMoeExtendedRouteMaxExperts = 256;

/// Nullopt when the MoE kernels lower `op`; else what of it they do not.
/// Lowered: bf16 or f16 layers (the configs' legality) with plain softmax
/// routing, or the DeepSeek routing (sigmoid scoring, correction bias,
/// n_group / topk_group, routed_scaling_factor) over at most
/// kMoeExtendedRouteMaxExperts experts, with or without a shared expert
/// (whose GEMMs run on the layer's configs, when it has them: they must be
/// legal for its shapes too), and e4m3 weights with block scales (their
/// GEMMs' configs then answer to the block-scaled rules of
/// dialect/GroupedGemmLegality.h).
std::optional<std::string> moeKernelsRefuse(MoeOp op);
} // namespace mlir::kgen

#endif // KGEN_DIALECT_MOELEGALITY_H
