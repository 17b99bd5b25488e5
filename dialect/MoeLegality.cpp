//===- MoeLegality.cpp - which kgen.moe layers the MoE kernels lower ------===//

#include "dialect/MoeLegality.h"

using namespace mlir;
using namespace mlir::kgen;

std::optional<std::string> mlir::kgen::moeKernelsRefuse(MoeOp op) {
  if (!op.isPlainSoftmaxMoe())
    return std::string("the kernels of this layer's extensions (sigmoid or "
                       "group-limited routing, a shared expert, e4m3 "
                       "weights) are not lowered yet");
  return std::nullopt;
}
