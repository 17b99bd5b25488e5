//===- MoeLegality.cpp - which kgen.moe layers the MoE kernels lower ------===//

#include "dialect/MoeLegality.h"

#include "dialect/GroupedGemmLegality.h"

using namespace mlir;
using namespace mlir::kgen;

std::optional<std::string> mlir::kgen::moeKernelsRefuse(MoeOp op) {
  auto wg = cast<RankedTensorType>(op.getWGate().getType());
  int64_t experts = wg.getDimSize(0);
  if (!op.getRouteParams().isPlainSoftmax() &&
      experts > kMoeExtendedRouteMaxExperts)
    return "the DeepSeek routing kernel (sigmoid, correction bias, expert "
           "groups or scaling) takes at most " +
           std::to_string(kMoeExtendedRouteMaxExperts) + " experts; got " +
           std::to_string(experts);
  // The shared expert's GEMMs run on the layer's configs: [T, H] x
  // [1, H, Is] gated on gate_up_config, [T, Is] x [1, Is, H] on down_config.
  Value sg = op.getSharedGate();
  if (!sg)
    return std::nullopt;
  auto x = cast<RankedTensorType>(op.getX().getType());
  int64_t hidden = x.getDimSize(1);
  int64_t sInter = cast<RankedTensorType>(sg.getType()).getDimSize(1);
  Type elem = x.getElementType();
  bool scaled = !op.getScales().empty();
  Type gemmElem = scaled ? cast<RankedTensorType>(sg.getType()).getElementType()
                         : elem;
  Type aElem = scaled ? elem : Type();
  GroupedGemmOperands gateUp{gemmElem, elem, hidden, sInter, /*gated=*/true,
                             scaled, aElem};
  GroupedGemmOperands down{gemmElem, elem, sInter, hidden, /*gated=*/false,
                           scaled, aElem};
  for (auto [name, config, operands] :
       {std::tuple<StringRef, GroupedGemmConfigAttr, GroupedGemmOperands>{
            "gate_up_config", op.getGateUpConfigAttr(), gateUp},
        {"down_config", op.getDownConfigAttr(), down}})
    if (config)
      if (std::optional<GroupedGemmLegalityError> e = checkGroupedGemmLegality(
              GroupedGemmConfigFields::of(config), &operands))
        return "the shared expert's GEMMs run on the layer's " + name.str() +
               ", which does not lower them (" + e->str() + ")";
  return std::nullopt;
}
