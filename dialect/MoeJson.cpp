//===- MoeJson.cpp - JSON forms of MoE signatures and configs -------------===//

#include "dialect/MoeJson.h"

using namespace mlir;
using namespace mlir::kgen;

namespace {
StringAttr elementName(Builder &b, Value v) {
  std::string s;
  llvm::raw_string_ostream(s)
      << cast<RankedTensorType>(v.getType()).getElementType();
  return b.getStringAttr(s);
}
} // namespace

DictionaryAttr mlir::kgen::moeSignature(MoeOp op) {
  Builder b(op.getContext());
  auto x = cast<RankedTensorType>(op.getX().getType());
  auto wg = cast<RankedTensorType>(op.getWGate().getType());
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("kind", b.getStringAttr("moe")),
      b.getNamedAttr("tokens", b.getI64IntegerAttr(x.getDimSize(0))),
      b.getNamedAttr("hidden", b.getI64IntegerAttr(x.getDimSize(1))),
      b.getNamedAttr("inter", b.getI64IntegerAttr(wg.getDimSize(2))),
      b.getNamedAttr("experts", b.getI64IntegerAttr(wg.getDimSize(0))),
      b.getNamedAttr("top_k", b.getI64IntegerAttr(int64_t(op.getTopK()))),
      b.getNamedAttr("renormalize", b.getBoolAttr(op.getRenormalize())),
      b.getNamedAttr("activation", b.getStringAttr(stringifyActivation(
                                       op.getActivation()))),
      b.getNamedAttr("dtype", elementName(b, op.getX())),
      b.getNamedAttr("logits_dtype", elementName(b, op.getRouterLogits())),
      b.getNamedAttr("dtype_out", elementName(b, op.getY()))};
  // The DeepSeek extensions, only when used: plain layers keep the fields
  // (and manifests) they had.
  RouteParams p = op.getRouteParams();
  if (p.scoring != Scoring::softmax)
    fields.push_back(b.getNamedAttr(
        "scoring", b.getStringAttr(stringifyScoring(p.scoring))));
  if (p.correctionBias)
    fields.push_back(b.getNamedAttr("correction_bias", b.getBoolAttr(true)));
  if (p.nGroup != 1 || p.topkGroup != 1) {
    fields.push_back(b.getNamedAttr("n_group", b.getI64IntegerAttr(p.nGroup)));
    fields.push_back(
        b.getNamedAttr("topk_group", b.getI64IntegerAttr(p.topkGroup)));
  }
  if (p.routedScalingFactor != 1.0f)
    fields.push_back(b.getNamedAttr("routed_scaling_factor",
                                    b.getF32FloatAttr(p.routedScalingFactor)));
  if (Value sg = op.getSharedGate())
    fields.push_back(b.getNamedAttr(
        "shared_inter", b.getI64IntegerAttr(cast<RankedTensorType>(sg.getType())
                                                .getDimSize(1))));
  if (!op.getScales().empty()) {
    fields.push_back(
        b.getNamedAttr("weight_dtype", elementName(b, op.getWGate())));
    fields.push_back(b.getNamedAttr("block_scales", b.getBoolAttr(true)));
  }
  return b.getDictionaryAttr(fields);
}

DictionaryAttr mlir::kgen::groupedGemmSignature(GroupedGemmOp op) {
  Builder b(op.getContext());
  auto a = cast<RankedTensorType>(op.getA().getType());
  auto w = cast<RankedTensorType>(op.getB().getType());
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("kind", b.getStringAttr("grouped_gemm")),
      b.getNamedAttr("rows", b.getI64IntegerAttr(a.getDimSize(0))),
      b.getNamedAttr("k", b.getI64IntegerAttr(a.getDimSize(1))),
      b.getNamedAttr("n", b.getI64IntegerAttr(w.getDimSize(2))),
      b.getNamedAttr("experts", b.getI64IntegerAttr(w.getDimSize(0))),
      b.getNamedAttr("gated", b.getBoolAttr(bool(op.getBUp()))),
      b.getNamedAttr("activation", b.getStringAttr(stringifyActivation(
                                       op.getActivation()))),
      b.getNamedAttr("dtype", elementName(b, op.getA())),
      b.getNamedAttr("dtype_out", elementName(b, op.getD()))};
  if (!op.getScales().empty()) {
    fields.push_back(b.getNamedAttr("weight_dtype", elementName(b, op.getB())));
    fields.push_back(b.getNamedAttr("block_scales", b.getBoolAttr(true)));
  }
  return b.getDictionaryAttr(fields);
}

nlohmann::json mlir::kgen::toJson(GroupedGemmConfigAttr c) {
  std::string text;
  llvm::raw_string_ostream(text) << c;
  return {{"target", stringifyTarget(c.getTarget()).str()},
          {"instruction", stringifyInstructionFamily(c.getInstruction()).str()},
          {"block_m", c.getBlockM()},
          {"block_n", c.getBlockN()},
          {"block_k", c.getBlockK()},
          {"warps_m", c.getWarpsM()},
          {"warps_n", c.getWarpsN()},
          {"stages", c.getStages()},
          {"source", stringifyConfigSource(c.getSource()).str()},
          {"entry", c.getEntry().str()},
          {"attribute", text},
          {"emitter_version", kEmitterVersion}};
}

std::optional<GroupedGemmConfigFields>
mlir::kgen::groupedGemmFieldsFromJson(const nlohmann::json &j,
                                      GroupedGemmLegalityError &refusal) {
  if (!j.is_object()) {
    refusal = {"", "expected an object, got " + j.dump()};
    return std::nullopt;
  }
  GroupedGemmConfigFields f;
  auto text = [&](const char *key) -> std::optional<std::string> {
    auto it = j.find(key);
    if (it == j.end())
      refusal = {key, "missing"};
    else if (!it->is_string())
      refusal = {key, "unknown value " + it->dump()};
    else
      return it->get<std::string>();
    return std::nullopt;
  };
  std::optional<std::string> target = text("target");
  if (!target)
    return std::nullopt;
  std::optional<Target> t = symbolizeTarget(*target);
  if (!t) {
    refusal = {"target", "unknown value \"" + *target + "\""};
    return std::nullopt;
  }
  f.target = *t;
  std::optional<std::string> family = text("instruction");
  if (!family)
    return std::nullopt;
  std::optional<InstructionFamily> i = symbolizeInstructionFamily(*family);
  if (!i) {
    refusal = {"instruction", "unknown value \"" + *family + "\""};
    return std::nullopt;
  }
  f.instruction = *i;
  const std::pair<const char *, int64_t *> sizes[] = {
      {"block_m", &f.blockM}, {"block_n", &f.blockN}, {"block_k", &f.blockK},
      {"warps_m", &f.warpsM}, {"warps_n", &f.warpsN}, {"stages", &f.stages}};
  for (auto [key, out] : sizes) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer()) {
      refusal = {key, it == j.end() ? std::string("missing")
                                    : "expected an integer, got " + it->dump()};
      return std::nullopt;
    }
    *out = it->get<int64_t>();
  }
  return f;
}
