//===- AttentionJson.cpp - JSON forms of attention signatures and configs -===//

#include "dialect/AttentionJson.h"

using namespace mlir;
using namespace mlir::kgen;

DictionaryAttr mlir::kgen::attentionSignature(AttentionOp op) {
  Builder b(op.getContext());
  auto typeName = [&](Value v) -> Attribute {
    std::string s;
    llvm::raw_string_ostream(s)
        << cast<RankedTensorType>(v.getType()).getElementType();
    return b.getStringAttr(s);
  };
  Attribute unit = b.getUnitAttr(); // absent: null in JSON
  std::optional<int64_t> window = op.getSlidingWindow();
  std::optional<float> cap = op.getSoftcapValue();
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("kind", b.getStringAttr("attention")),
      b.getNamedAttr("batch", b.getI64IntegerAttr(op.getBatch())),
      b.getNamedAttr("q_heads", b.getI64IntegerAttr(op.getQueryHeads())),
      b.getNamedAttr("kv_heads", b.getI64IntegerAttr(op.getKvHeads())),
      b.getNamedAttr("seq_q", b.getI64IntegerAttr(op.getSeqQ())),
      b.getNamedAttr("seq_kv", b.getI64IntegerAttr(op.getSeqKv())),
      b.getNamedAttr("head_dim", b.getI64IntegerAttr(op.getHeadDim())),
      b.getNamedAttr("dtype", typeName(op.getQ())),
      b.getNamedAttr("dtype_out", typeName(op.getOut())),
      b.getNamedAttr("kv_lens", b.getBoolAttr(bool(op.getKvLens()))),
      b.getNamedAttr("lse", b.getBoolAttr(bool(op.getLse()))),
      b.getNamedAttr("scale", b.getF32FloatAttr(op.getScaleValue())),
      b.getNamedAttr("causal", b.getBoolAttr(op.getCausal())),
      b.getNamedAttr("sliding_window",
                     window ? Attribute(b.getI64IntegerAttr(*window)) : unit),
      b.getNamedAttr("softcap",
                     cap ? Attribute(b.getF32FloatAttr(*cap)) : unit)};
  return b.getDictionaryAttr(fields);
}

nlohmann::json mlir::kgen::toJson(AttentionConfigAttr c) {
  std::string text;
  llvm::raw_string_ostream(text) << c;
  return {{"target", stringifyTarget(c.getTarget()).str()},
          {"instruction", stringifyInstructionFamily(c.getInstruction()).str()},
          {"block_m", c.getBlockM()},
          {"block_n", c.getBlockN()},
          {"warps_m", c.getWarpsM()},
          {"stages", c.getStages()},
          {"consumer_warpgroups", c.getConsumerWarpgroups()},
          {"ping_pong", c.getPingPong()},
          {"overlap_softmax", c.getOverlapSoftmax()},
          {"pack_gqa", c.getPackGqa()},
          {"split_kv", c.getSplitKv()},
          {"source", stringifyConfigSource(c.getSource()).str()},
          {"entry", c.getEntry().str()},
          {"attribute", text},
          {"emitter_version", kEmitterVersion}};
}
