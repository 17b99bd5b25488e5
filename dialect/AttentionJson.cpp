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
  std::optional<uint64_t> windowLeft = op.getWindowLeft(),
                          windowRight = op.getWindowRight();
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
      b.getNamedAttr("window_left", windowLeft
                                        ? Attribute(b.getI64IntegerAttr(
                                              int64_t(*windowLeft)))
                                        : unit),
      b.getNamedAttr("window_right", windowRight
                                         ? Attribute(b.getI64IntegerAttr(
                                               int64_t(*windowRight)))
                                         : unit),
      b.getNamedAttr("alibi", b.getBoolAttr(bool(op.getAlibiSlopes()))),
      b.getNamedAttr("softcap",
                     cap ? Attribute(b.getF32FloatAttr(*cap)) : unit)};
  // An e4m3 cache read by 16-bit queries, and the descale factors of e4m3
  // operands; absent: K and V of Q's type, no factors.
  if (op.getK().getType().getElementType() !=
      op.getQ().getType().getElementType())
    fields.push_back(b.getNamedAttr("dtype_kv", typeName(op.getK())));
  for (auto [name, value] : {std::pair{"q_descale", op.getQDescale()},
                             std::pair{"k_descale", op.getKDescale()},
                             std::pair{"v_descale", op.getVDescale()}})
    if (value)
      fields.push_back(b.getNamedAttr(name, b.getBoolAttr(true)));
  if (op.isVarlen()) // packed tokens: batch, seq_q and seq_kv are B, Tq, Tk
                     // (over pages, seq_kv is each sequence's M * P)
    fields.push_back(b.getNamedAttr("varlen", b.getBoolAttr(true)));
  if (op.getBlockTable()) // a paged cache; absent: contiguous K and V
    fields.append({b.getNamedAttr("paged", b.getBoolAttr(true)),
                   b.getNamedAttr("page_size",
                                  b.getI64IntegerAttr(op.getPageSize())),
                   b.getNamedAttr("num_pages",
                                  b.getI64IntegerAttr(op.getNumPages()))});
  if (op.getPagesNhd()) // pages [N, P, Hkv, D]; absent: [N, Hkv, P, D]
    fields.push_back(b.getNamedAttr("pages_nhd", b.getBoolAttr(true)));
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

namespace {
/// Reads typed fields of a stored config; the first refusal is kept.
struct StoredConfig {
  const nlohmann::json &json;
  AttentionLegalityError &refusal;

  const nlohmann::json *field(const char *key) {
    auto it = json.find(key);
    if (it != json.end())
      return &*it;
    refusal = {key, "missing"};
    return nullptr;
  }
  bool integer(const char *key, int64_t &out) {
    const nlohmann::json *j = field(key);
    if (j && !j->is_number_integer())
      refusal = {key, "expected an integer, got " + j->dump()};
    if (!j || !j->is_number_integer())
      return false;
    out = j->get<int64_t>();
    return true;
  }
  bool flag(const char *key, bool &out) {
    const nlohmann::json *j = field(key);
    if (j && !j->is_boolean())
      refusal = {key, "expected true or false, got " + j->dump()};
    if (!j || !j->is_boolean())
      return false;
    out = j->get<bool>();
    return true;
  }
  /// A string `symbolize` knows.
  template <typename E, typename F>
  bool name(const char *key, F symbolize, E &out) {
    const nlohmann::json *j = field(key);
    if (!j)
      return false;
    std::optional<E> e =
        j->is_string() ? symbolize(j->get<std::string>()) : std::nullopt;
    if (!e) {
      refusal = {key, "unknown value " + j->dump()};
      return false;
    }
    out = *e;
    return true;
  }
};
} // namespace

std::optional<AttentionConfigFields>
mlir::kgen::attentionFieldsFromJson(const nlohmann::json &j,
                                    AttentionLegalityError &refusal) {
  if (!j.is_object()) {
    refusal = {"", "expected an object, got " + j.dump()};
    return std::nullopt;
  }
  StoredConfig c{j, refusal};
  AttentionConfigFields f;
  auto target = [](StringRef s) { return symbolizeTarget(s); };
  auto family = [](StringRef s) { return symbolizeInstructionFamily(s); };
  if (!c.name("target", target, f.target) ||
      !c.name("instruction", family, f.instruction) ||
      !c.integer("block_m", f.blockM) || !c.integer("block_n", f.blockN) ||
      !c.integer("warps_m", f.warpsM) || !c.integer("stages", f.stages) ||
      !c.integer("consumer_warpgroups", f.consumerWarpgroups) ||
      !c.flag("ping_pong", f.pingPong) ||
      !c.flag("overlap_softmax", f.overlapSoftmax) ||
      !c.flag("pack_gqa", f.packGqa) || !c.integer("split_kv", f.splitKv))
    return std::nullopt;
  return f;
}

AttentionConfigAttr mlir::kgen::attentionConfigFromJson(
    const nlohmann::json &j, MLIRContext *ctx, ConfigSource source,
    StringRef entry, AttentionLegalityError &refusal) {
  std::optional<AttentionConfigFields> f = attentionFieldsFromJson(j, refusal);
  if (!f)
    return {};
  if (std::optional<AttentionLegalityError> e = checkAttentionLegality(*f)) {
    refusal = *e;
    return {};
  }
  return AttentionConfigAttr::get(
      ctx, f->target, f->instruction, f->blockM, f->blockN, f->warpsM,
      f->stages, f->consumerWarpgroups, f->pingPong, f->overlapSoftmax,
      f->packGqa, f->splitKv, source, entry);
}
