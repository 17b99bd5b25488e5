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

namespace mlir::kgen {
/// How kgen.moe_route (and kgen.moe's routing) chooses and weighs experts:
/// the attributes of either op with their defaults (KgenOps.td).
struct RouteParams {
  int64_t topK = 1;
  bool renormalize = false;
  Scoring scoring = Scoring::softmax;
  /// The `[E]` f32 correction bias; null when absent.
  Value correctionBias;
  /// Groups of experts and how many are kept; 1 and 1 when not limited.
  int64_t nGroup = 1, topkGroup = 1;
  float routedScalingFactor = 1.0f;

  /// Softmax over all experts, unscaled, without a bias: the plain
  /// (Mixtral-style) routing.
  bool isPlainSoftmax() const {
    return scoring == Scoring::softmax && !correctionBias && nGroup == 1 &&
           topkGroup == 1 && routedScalingFactor == 1.0f;
  }
};
} // namespace mlir::kgen

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

/// The block of the e4m3 weight scales (DeepGEMM's 128 x 128 blocks, its
/// 1 x 128 activation groups): kgen.moe's and kgen.grouped_gemm's `scales`.
inline constexpr int64_t kScaleBlock = 128;
/// ceil(n / kScaleBlock): the scale blocks along a dimension of n.
int64_t scaleBlocks(int64_t n);

/// Floating-point operations a kgen op performs (2 per multiply-add), from
/// its static shapes; std::nullopt for ops that do no arithmetic worth
/// counting. Data-dependent ops count their worst case.
std::optional<double> estimateFlops(Operation *op);
} // namespace mlir::kgen

#endif // KGEN_DIALECT_KGENOPS_H
