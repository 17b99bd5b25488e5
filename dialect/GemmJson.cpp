//===- GemmJson.cpp - JSON forms of gemm signatures and configs -----------===//

#include "dialect/GemmJson.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::kgen;

DictionaryAttr mlir::kgen::gemmSignature(GemmOp op) {
  Builder b(op.getContext());
  auto typeName = [&](Value v) -> Attribute {
    if (!v)
      return b.getUnitAttr(); // absent: null in JSON
    std::string s;
    llvm::raw_string_ostream(s)
        << cast<RankedTensorType>(v.getType()).getElementType();
    return b.getStringAttr(s);
  };
  bool batchedB = op.getB().getType().getRank() == 3;
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("kind", b.getStringAttr("gemm")),
      b.getNamedAttr("batch", b.getI64IntegerAttr(op.getBatch())),
      b.getNamedAttr("m", b.getI64IntegerAttr(op.getM())),
      b.getNamedAttr("n", b.getI64IntegerAttr(op.getN())),
      b.getNamedAttr("k", b.getI64IntegerAttr(op.getK())),
      b.getNamedAttr("transpose_a", b.getBoolAttr(op.getTransposeA())),
      b.getNamedAttr("transpose_b", b.getBoolAttr(op.getTransposeB())),
      b.getNamedAttr("batched_b", b.getBoolAttr(batchedB)),
      b.getNamedAttr("dtype_a", typeName(op.getA())),
      b.getNamedAttr("dtype_b", typeName(op.getB())),
      b.getNamedAttr("dtype_d", typeName(op.getD())),
      b.getNamedAttr("dtype_bias", typeName(op.getBias())),
      b.getNamedAttr("dtype_c", typeName(op.getC())),
      b.getNamedAttr("alpha", op.getAlphaAttr()),
      b.getNamedAttr("beta", b.getF32FloatAttr(op.getBetaValue())),
      b.getNamedAttr("activation",
                     b.getStringAttr(stringifyActivation(op.getActivation())))};
  return b.getDictionaryAttr(fields);
}

nlohmann::json mlir::kgen::toJson(DictionaryAttr dict) {
  nlohmann::json out = nlohmann::json::object();
  for (NamedAttribute field : dict) {
    Attribute v = field.getValue();
    nlohmann::json &slot = out[field.getName().str()];
    if (auto s = dyn_cast<StringAttr>(v))
      slot = s.str();
    else if (auto b = dyn_cast<BoolAttr>(v))
      slot = b.getValue();
    else if (auto i = dyn_cast<IntegerAttr>(v))
      slot = i.getInt();
    else if (auto f = dyn_cast<FloatAttr>(v))
      slot = f.getValueAsDouble();
    else
      slot = nullptr; // unit: an absent operand
  }
  return out;
}

nlohmann::json mlir::kgen::toJson(GemmConfigAttr c) {
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
          {"tma", c.getTma()},
          {"warp_specialized", c.getWarpSpecialized()},
          {"cluster_m", c.getClusterM()},
          {"cluster_n", c.getClusterN()},
          {"split_k", c.getSplitK()},
          {"raster_group", c.getRasterGroup()},
          {"epilogue_vector", c.getEpilogueVector()},
          {"source", stringifyConfigSource(c.getSource()).str()},
          {"entry", c.getEntry().str()},
          {"attribute", text},
          // What printed the kernel: tuning database keys carry it, so
          // measurements of another emitter's kernels count as stale.
          {"emitter_version", kEmitterVersion}};
}

GemmConfigAttr mlir::kgen::configFromJson(const nlohmann::json &j,
                                          MLIRContext *ctx,
                                          ConfigSource source,
                                          StringRef entry) {
  if (!j.is_object())
    return {};
  auto str = [&](const char *key) -> std::optional<std::string> {
    auto it = j.find(key);
    if (it == j.end() || !it->is_string())
      return std::nullopt;
    return it->get<std::string>();
  };
  auto num = [&](const char *key) -> std::optional<int64_t> {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer())
      return std::nullopt;
    return it->get<int64_t>();
  };
  auto flag = [&](const char *key) -> std::optional<bool> {
    auto it = j.find(key);
    if (it == j.end() || !it->is_boolean())
      return std::nullopt;
    return it->get<bool>();
  };
  std::optional<std::string> target = str("target"), family = str("instruction");
  std::optional<Target> t = target ? symbolizeTarget(*target) : std::nullopt;
  std::optional<InstructionFamily> f =
      family ? symbolizeInstructionFamily(*family) : std::nullopt;
  std::optional<int64_t> bm = num("block_m"), bn = num("block_n"),
                         bk = num("block_k"), wm = num("warps_m"),
                         wn = num("warps_n"), stages = num("stages"),
                         cm = num("cluster_m"), cn = num("cluster_n"),
                         split = num("split_k"), group = num("raster_group"),
                         vec = num("epilogue_vector");
  std::optional<bool> tma = flag("tma"), ws = flag("warp_specialized");
  if (!t || !f || !bm || !bn || !bk || !wm || !wn || !stages || !cm || !cn ||
      !split || !group || !vec || !tma || !ws)
    return {};
  return GemmConfigAttr::getChecked(
      [&] { return emitError(UnknownLoc::get(ctx)); }, ctx, *t, *f, *bm, *bn,
      *bk, *wm, *wn, *stages, *tma, *ws, *cm, *cn, *split, *group, *vec,
      source, entry);
}
