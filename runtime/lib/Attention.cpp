//===- Attention.cpp - the attention op: signature, tolerances, host mirror ===//

#include "kgen/runtime/Attention.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <tuple>

namespace kgen::rt {

namespace {

using json = nlohmann::json;

constexpr int64_t kMaxDim = int64_t{1} << 31;
constexpr double kTolF32 = 1e-4;
constexpr double kTol16Bit = 1e-2;
/// e4m3's unit roundoff (2^-4, 3 mantissa bits): an all-e4m3 attention's
/// wgmma kernels (FlashAttention-3's FP8 path) read P rounded to e4m3 for
/// P V, which moves the output by about 2.5e-2 relative.
constexpr double kTolE4m3P = 0.0625;
constexpr double kLseTolF32 = 1e-4;
constexpr double kLseTol16Bit = 1e-3;

bool fail(std::string &err, const std::string &message) {
  err = "attention op: " + message;
  return false;
}

bool present(const json &op, const char *key) {
  return op.contains(key) && !op[key].is_null();
}

/// An integer in [lo, kMaxDim] (the parser holds non-negative integers as
/// unsigned).
bool readInt(const json &op, const char *key, int64_t lo, int64_t &out,
             std::string &err) {
  const std::string range = "[" + std::to_string(lo) + ", " +
                            std::to_string(kMaxDim) + "]";
  if (!present(op, key))
    return fail(err, std::string("missing '") + key + "' (an integer in " +
                         range + ")");
  const json &v = op[key];
  bool ok = false;
  if (v.is_number_unsigned())
    ok = v.get<uint64_t>() <= static_cast<uint64_t>(kMaxDim) &&
         static_cast<int64_t>(v.get<uint64_t>()) >= lo;
  else if (v.is_number_integer())
    ok = v.get<int64_t>() >= lo && v.get<int64_t>() <= kMaxDim;
  if (!ok)
    return fail(err, std::string("'") + key + "' must be an integer in " +
                         range + ", got " + v.dump());
  out = v.get<int64_t>();
  return true;
}

bool readBool(const json &op, const char *key, bool &out, std::string &err) {
  out = false;
  if (!present(op, key))
    return true;
  if (!op[key].is_boolean())
    return fail(err, std::string("'") + key + "' must be true or false, got " +
                         op[key].dump());
  out = op[key].get<bool>();
  return true;
}

/// A number, rounded to f32 (what the op's attribute holds).
bool readF32(const json &op, const char *key, double &out, std::string &err) {
  if (!op[key].is_number())
    return fail(err, std::string("'") + key + "' must be a number, got " +
                         op[key].dump());
  out = static_cast<double>(static_cast<float>(op[key].get<double>()));
  return true;
}

constexpr const char *kOutTypes = "\"bf16\", \"f16\" or \"f32\"";
constexpr const char *kInputTypes =
    "\"bf16\", \"f16\", \"f32\" or \"f8E4M3FN\"";

/// An element type of `out` (bf16, f16, f32), or with `input` also of q,
/// k and v (f8E4M3FN as well).
bool isAttentionType(ElemType t, bool input) {
  return t == ElemType::BF16 || t == ElemType::F16 || t == ElemType::F32 ||
         (input && t == ElemType::F8E4M3FN);
}

bool readType(const json &op, const char *key, bool input,
              std::optional<ElemType> &out, std::string &err) {
  out.reset();
  if (!present(op, key))
    return true;
  const std::optional<ElemType> t =
      op[key].is_string() ? parseElemType(op[key].get<std::string>())
                          : std::nullopt;
  if (!t || !isAttentionType(*t, input))
    return fail(err, std::string("'") + key + "' must be " +
                         (input ? kInputTypes : kOutTypes) + ", got " +
                         op[key].dump());
  out = t;
  return true;
}

bool readSizes(const json &op, AttentionSpec &spec, std::string &err) {
  if (!readInt(op, "batch", 1, spec.batch, err) ||
      !readInt(op, "q_heads", 1, spec.qHeads, err) ||
      !readInt(op, "kv_heads", 1, spec.kvHeads, err) ||
      !readInt(op, "seq_q", 1, spec.seqQ, err) ||
      !readInt(op, "seq_kv", 1, spec.seqKv, err) ||
      !readInt(op, "head_dim", 1, spec.headDim, err))
    return false;
  if (spec.headDim < 32 || spec.headDim > 256 || spec.headDim % 8 != 0)
    return fail(err, "'head_dim' is " + std::to_string(spec.headDim) +
                         "; expected a multiple of 8 in [32, 256]");
  if (spec.qHeads % spec.kvHeads != 0)
    return fail(err, "'q_heads' (" + std::to_string(spec.qHeads) +
                         ") must be a multiple of 'kv_heads' (" +
                         std::to_string(spec.kvHeads) + ")");
  return true;
}

/// dtype, dtype_kv (dtype, or e4m3 under a bf16, f16 or e4m3 Q) and
/// dtype_out (dtype's by default, which an e4m3 Q has not).
bool readTypes(const json &op, AttentionSpec &spec, std::string &err) {
  std::optional<ElemType> dtype, kv, out;
  if (!present(op, "dtype"))
    return fail(err, std::string("missing 'dtype' (") + kInputTypes + ")");
  if (!readType(op, "dtype", true, dtype, err) ||
      !readType(op, "dtype_kv", true, kv, err) ||
      !readType(op, "dtype_out", false, out, err))
    return false;
  spec.dtype = *dtype;
  spec.kvDtype.reset();
  if (kv && *kv != *dtype) {
    if (*kv != ElemType::F8E4M3FN || *dtype == ElemType::F32)
      return fail(err, std::string("'dtype_kv' is ") + elemTypeName(*kv) +
                           "; expected 'dtype' (" + elemTypeName(*dtype) + ")" +
                           (*dtype == ElemType::F32
                                ? ": an f8E4M3FN K and V need a bf16, f16 "
                                  "or f8E4M3FN 'dtype'"
                            : *dtype == ElemType::F8E4M3FN ? ""
                                                           : " or f8E4M3FN"));
    spec.kvDtype = kv;
  }
  if (!out && spec.dtype == ElemType::F8E4M3FN)
    return fail(err, std::string("missing 'dtype_out' (") + kOutTypes +
                         "): an f8E4M3FN 'dtype' is no output type");
  spec.out = out.value_or(*dtype);
  return true;
}

/// q_descale, k_descale, v_descale: each only with its operand in e4m3.
bool readDescales(const json &op, AttentionSpec &spec, std::string &err) {
  const struct {
    const char *key;
    bool *slot;
    ElemType type;
    const char *operand, *typeField;
  } descales[] = {
      {"q_descale", &spec.qDescale, spec.dtype, "Q", "dtype"},
      {"k_descale", &spec.kDescale, attentionKvType(spec), "K", "dtype_kv"},
      {"v_descale", &spec.vDescale, attentionKvType(spec), "V", "dtype_kv"}};
  for (const auto &d : descales) {
    if (!readBool(op, d.key, *d.slot, err))
      return false;
    if (*d.slot && d.type != ElemType::F8E4M3FN)
      return fail(err, std::string("'") + d.key + "' needs '" + d.typeField +
                           "' f8E4M3FN (" + d.operand + " is " +
                           elemTypeName(d.type) +
                           ": only an e4m3 operand has a descale)");
  }
  return true;
}

bool readMask(const json &op, AttentionSpec &spec, std::string &err) {
  spec.scale = static_cast<double>(
      1.0f / std::sqrt(static_cast<float>(spec.headDim)));
  if (present(op, "scale")) {
    if (!readF32(op, "scale", spec.scale, err))
      return false;
    if (!std::isfinite(spec.scale) || spec.scale == 0)
      return fail(err, "'scale' must be finite and non-zero as an f32, got " +
                           op["scale"].dump());
  }
  if (!readBool(op, "causal", spec.causal, err) ||
      !readBool(op, "kv_lens", spec.kvLens, err) ||
      !readBool(op, "lse", spec.lse, err))
    return false;
  spec.window.reset();
  if (present(op, "sliding_window")) {
    int64_t w = 0;
    if (!readInt(op, "sliding_window", 1, w, err))
      return false;
    if (!spec.causal)
      return fail(err, "'sliding_window' needs 'causal'");
    spec.window = w;
  }
  spec.windowLeft.reset();
  spec.windowRight.reset();
  for (auto [key, slot] : {std::pair{"window_left", &spec.windowLeft},
                           std::pair{"window_right", &spec.windowRight}})
    if (present(op, key)) {
      int64_t w = 0;
      if (!readInt(op, key, 0, w, err))
        return false;
      *slot = w;
    }
  if (spec.window && spec.windowLeft)
    return fail(err, "'sliding_window' is 'window_left' + 1 with 'causal': "
                     "give one of them");
  if (!readBool(op, "alibi", spec.alibi, err))
    return false;
  spec.softcap.reset();
  if (present(op, "softcap")) {
    double cap = 0;
    if (!readF32(op, "softcap", cap, err))
      return false;
    if (!std::isfinite(cap) || !(cap > 0))
      return fail(err, "'softcap' must be finite and > 0 as an f32, got " +
                           op["softcap"].dump());
    spec.softcap = cap;
  }
  return true;
}

constexpr int64_t kMaxPageSize = 256;

/// paged, page_size and num_pages: all three or none (paged false);
/// pages_nhd (the pages' order) only with them.
bool readPaging(const json &op, AttentionSpec &spec, std::string &err) {
  if (!readBool(op, "paged", spec.paged, err) ||
      !readBool(op, "pages_nhd", spec.pagesNhd, err))
    return false;
  spec.pageSize = spec.numPages = 0;
  if (!spec.paged) {
    for (const char *key : {"page_size", "num_pages"})
      if (present(op, key))
        return fail(err, std::string("'") + key + "' needs 'paged'");
    if (spec.pagesNhd)
      return fail(err, "'pages_nhd' needs 'paged' (it orders the pages of a "
                       "paged cache: [N, P, Hkv, D])");
    return true;
  }
  if (!readInt(op, "page_size", 1, spec.pageSize, err) ||
      !readInt(op, "num_pages", 1, spec.numPages, err))
    return false;
  if (spec.pageSize > kMaxPageSize)
    return fail(err, "'page_size' is " + std::to_string(spec.pageSize) +
                         "; expected an integer in [1, 256]");
  if (spec.seqKv % spec.pageSize != 0)
    return fail(err, "'seq_kv' (" + std::to_string(spec.seqKv) +
                         ") must be a multiple of 'page_size' (" +
                         std::to_string(spec.pageSize) +
                         "): with 'paged' it is the pages per sequence "
                         "times the page size");
  return true;
}

/// varlen: packed sequences, whose lengths cu_seqlens gives (not kv_lens;
/// over a paged cache, cu_seqlens_k counts each sequence's keys).
/// Precondition: readMask ran.
bool readVarlen(const json &op, AttentionSpec &spec, std::string &err) {
  if (!readBool(op, "varlen", spec.varlen, err))
    return false;
  if (spec.varlen && spec.kvLens)
    return fail(err, "'varlen' with 'kv_lens': cu_seqlens gives each "
                     "sequence its lengths (no kv_lens)");
  return true;
}

double count(const std::vector<int64_t> &shape) {
  double n = 1;
  for (int64_t d : shape)
    n *= static_cast<double>(d);
  return n;
}

/// bf16, f16 or e4m3: the types whose rounding sets the 16-bit tolerances.
bool isLowPrecision(ElemType t) {
  return t == ElemType::BF16 || t == ElemType::F16 || t == ElemType::F8E4M3FN;
}

/// The shape of a descale input.
const std::vector<int64_t> kDescaleShape = {1};

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

std::string shapesText(const std::vector<std::vector<int64_t>> &shapes) {
  std::string text;
  for (const std::vector<int64_t> &s : shapes)
    text += (text.empty() ? "" : " or ") + formatShape(s);
  return text;
}

/// The tensor parameter `name`, of `type`, `role` and one of `shapes`.
const KernelParam *checkTensor(const KernelPackage &pkg, const char *name,
                               ElemType type, ParamRole role,
                               const std::vector<std::vector<int64_t>> &shapes,
                               std::string &err) {
  const std::optional<size_t> index = pkg.findParam(name);
  const std::string where = "package " + pkg.name + ": attention ";
  if (!index || pkg.params[*index].kind != ParamKind::Tensor) {
    err = where + "needs a tensor parameter '" + name + "'";
    return nullptr;
  }
  const KernelParam &p = pkg.params[*index];
  if (p.dtype != type ||
      std::find(shapes.begin(), shapes.end(), p.shape) == shapes.end()) {
    err = where + "parameter '" + name + "' is " + elemTypeName(p.dtype) + " " +
          formatShape(p.shape) + ", the op says " + elemTypeName(type) + " " +
          shapesText(shapes);
    return nullptr;
  }
  if (p.role != role) {
    err = where + "parameter '" + name + "' has role " + paramRoleName(p.role) +
          ", expected " + paramRoleName(role);
    return nullptr;
  }
  return &p;
}

bool hasTensor(const KernelPackage &pkg, const char *name) {
  const std::optional<size_t> index = pkg.findParam(name);
  return index && pkg.params[*index].kind == ParamKind::Tensor;
}

/// A tensor the op may have: checked as checkTensor does when it has it
/// (`present`), refused when it does not; `lacking` says what the op lacks
/// ("has no kv_lens").
bool checkOptionalTensor(const KernelPackage &pkg, const char *name,
                         bool present, ElemType type, ParamRole role,
                         const std::vector<std::vector<int64_t>> &shapes,
                         const char *lacking, std::string &err) {
  if (present)
    return checkTensor(pkg, name, type, role, shapes, err) != nullptr;
  if (!hasTensor(pkg, name))
    return true;
  err = "package " + pkg.name + ": attention has a tensor parameter '" +
        name + "' but the op " + lacking;
  return false;
}

/// Split-KV workspaces: both or neither, with one split count.
bool checkWorkspaces(const KernelPackage &pkg, const AttentionSpec &spec,
                     std::string &err) {
  const bool o = hasTensor(pkg, "o_partial"), l = hasTensor(pkg, "lse_partial");
  if (!o && !l)
    return true;
  const std::string where = "package " + pkg.name + ": attention ";
  if (spec.varlen) {
    err = where + "has a tensor parameter '" +
          (o ? "o_partial" : "lse_partial") +
          "' but the op is varlen (no split-KV over packed sequences)";
    return false;
  }
  if (o != l) {
    err = where + "has '" + (o ? "o_partial" : "lse_partial") +
          "' without '" + (o ? "lse_partial" : "o_partial") +
          "' (split-KV needs both workspaces)";
    return false;
  }
  const KernelParam &partial = pkg.params[*pkg.findParam("o_partial")];
  const int64_t splits = partial.shape.empty() ? 0 : partial.shape.front();
  const int64_t rows = attentionGroup(spec) * spec.seqQ;
  std::vector<int64_t> oShape = {splits, spec.batch, spec.kvHeads, rows,
                                 spec.headDim};
  if (splits < 1)
    oShape.front() = 1; // in the message: S >= 1
  return checkTensor(pkg, "o_partial", ElemType::F32, ParamRole::Workspace,
                     {oShape}, err) &&
         checkTensor(pkg, "lse_partial", ElemType::F32, ParamRole::Workspace,
                     {{splits, spec.batch, spec.kvHeads, rows}}, err);
}

/// What a message about a wrong `name` ("q", "k", "v", "out", "lse",
/// "block_table") adds about the op's layout: the paged cache's sizes, the
/// packed tokens of a varlen op, the block table's pages per sequence
/// (empty when the shapes say it all).
std::string layoutNote(const AttentionSpec &spec, const std::string &name) {
  if ((name == "k" || name == "v") && spec.paged)
    return std::string(" (a paged cache ") +
           (spec.pagesNhd ? "[N, P, Hkv, D] (NHD pages)" : "[N, Hkv, P, D]") +
           ": num_pages " + std::to_string(spec.numPages) + ", page_size " +
           std::to_string(spec.pageSize) +
           (spec.varlen ? "; varlen over pages: cu_seqlens_k counts each "
                          "sequence's keys, it indexes no rows of k)"
                        : ")");
  if ((name == "k" || name == "v") && spec.varlen)
    return " (varlen: the key tokens packed, [Tk, Hkv, D])";
  if ((name == "q" || name == "out") && spec.varlen)
    return " (varlen: the query tokens packed, [Tq, Hq, D])";
  if (name == "lse" && spec.varlen)
    return " (varlen: head-major, [Hq, Tq])";
  if (name == "block_table" && spec.paged)
    return " ([B, M]: M = seq_kv / page_size = " +
           std::to_string(attentionPagesPerSequence(spec)) +
           " pages per sequence" +
           (spec.varlen ? ", each sequence's key capacity M * P = " +
                              std::to_string(spec.seqKv) + ")"
                        : ")");
  return "";
}

} // namespace

bool parseAttentionOp(const json &op, AttentionSpec &spec, std::string &err) {
  if (!op.is_object() || !op.contains("kind") || op["kind"] != "attention") {
    err = "op: not an object of kind \"attention\"";
    return false;
  }
  AttentionSpec s;
  if (!readSizes(op, s, err) || !readTypes(op, s, err) ||
      !readDescales(op, s, err) || !readMask(op, s, err) ||
      !readPaging(op, s, err) || !readVarlen(op, s, err))
    return false;
  spec = s;
  return true;
}

json attentionOpJson(const AttentionSpec &spec) {
  json op{
      {"kind", "attention"},
      {"batch", spec.batch},
      {"q_heads", spec.qHeads},
      {"kv_heads", spec.kvHeads},
      {"seq_q", spec.seqQ},
      {"seq_kv", spec.seqKv},
      {"head_dim", spec.headDim},
      {"dtype", elemTypeName(spec.dtype)},
      {"dtype_out", elemTypeName(spec.out)},
      {"kv_lens", spec.kvLens},
      {"lse", spec.lse},
      {"scale", spec.scale},
      {"causal", spec.causal},
      {"sliding_window", spec.window ? json(*spec.window) : json(nullptr)},
      {"window_left",
       spec.windowLeft ? json(*spec.windowLeft) : json(nullptr)},
      {"window_right",
       spec.windowRight ? json(*spec.windowRight) : json(nullptr)},
      {"alibi", spec.alibi},
      {"softcap", spec.softcap ? json(*spec.softcap) : json(nullptr)}};
  if (spec.paged) {
    op["paged"] = true;
    op["page_size"] = spec.pageSize;
    op["num_pages"] = spec.numPages;
  }
  if (spec.pagesNhd)
    op["pages_nhd"] = true;
  if (spec.varlen)
    op["varlen"] = true;
  if (attentionKvType(spec) != spec.dtype)
    op["dtype_kv"] = elemTypeName(attentionKvType(spec));
  for (auto [key, has] : {std::pair{"q_descale", spec.qDescale},
                          std::pair{"k_descale", spec.kDescale},
                          std::pair{"v_descale", spec.vDescale}})
    if (has)
      op[key] = true;
  return op;
}

ElemType attentionKvType(const AttentionSpec &spec) {
  return spec.kvDtype.value_or(spec.dtype);
}

int64_t attentionGroup(const AttentionSpec &spec) {
  return spec.qHeads / spec.kvHeads;
}

std::vector<int64_t> attentionShapeQ(const AttentionSpec &spec) {
  if (spec.varlen)
    return {spec.seqQ, spec.qHeads, spec.headDim};
  return {spec.batch, spec.qHeads, spec.seqQ, spec.headDim};
}
std::vector<int64_t> attentionShapeKv(const AttentionSpec &spec) {
  if (spec.paged && spec.pagesNhd) // varlen or not: pages
    return {spec.numPages, spec.pageSize, spec.kvHeads, spec.headDim};
  if (spec.paged)
    return {spec.numPages, spec.kvHeads, spec.pageSize, spec.headDim};
  if (spec.varlen)
    return {spec.seqKv, spec.kvHeads, spec.headDim};
  return {spec.batch, spec.kvHeads, spec.seqKv, spec.headDim};
}
std::vector<int64_t> attentionShapeBlockTable(const AttentionSpec &spec) {
  return {spec.batch, attentionPagesPerSequence(spec)};
}
int64_t attentionPagesPerSequence(const AttentionSpec &spec) {
  return spec.paged && spec.pageSize > 0 ? spec.seqKv / spec.pageSize : 0;
}
std::vector<int64_t> attentionShapeLse(const AttentionSpec &spec) {
  if (spec.varlen)
    return {spec.qHeads, spec.seqQ};
  return {spec.batch, spec.qHeads, spec.seqQ};
}
std::vector<int64_t> attentionShapeKvLens(const AttentionSpec &spec) {
  return {spec.batch};
}
std::vector<int64_t> attentionShapeCuSeqlens(const AttentionSpec &spec) {
  return {spec.batch + 1};
}
std::vector<int64_t> attentionPackedShapeQ(const AttentionSpec &spec) {
  if (spec.varlen)
    return attentionShapeQ(spec);
  return {spec.batch, spec.kvHeads, attentionGroup(spec) * spec.seqQ,
          spec.headDim};
}
std::vector<int64_t> attentionPackedShapeLse(const AttentionSpec &spec) {
  if (spec.varlen)
    return attentionShapeLse(spec);
  return {spec.batch, spec.kvHeads, attentionGroup(spec) * spec.seqQ};
}

double attentionFlops(const AttentionSpec &spec) {
  const auto d = [](int64_t x) { return static_cast<double>(x); };
  // Varlen: as B sequences of Tq / B queries and Tk / B keys each; over a
  // paged cache, of Tq / B queries and Skv = M * P keys each.
  const double heads = 4.0 * d(spec.qHeads) * d(spec.headDim);
  const double full =
      !spec.varlen ? 4.0 * d(spec.batch) * d(spec.qHeads) * d(spec.seqQ) *
                         d(spec.seqKv) * d(spec.headDim)
      : spec.paged ? heads * d(spec.seqQ) * d(spec.seqKv)
                   : heads * d(spec.seqQ) * d(spec.seqKv) / d(spec.batch);
  return spec.causal ? full / 2 : full;
}

double attentionBytes(const AttentionSpec &spec) {
  const double in = static_cast<double>(elemTypeBytes(spec.dtype));
  const double kvIn = static_cast<double>(elemTypeBytes(attentionKvType(spec)));
  // The keys the B sequences name: B * Hkv * Skv * D elements of k and of
  // v, contiguous or in B * M pages of P keys (varlen or not); Tk * Hkv * D
  // packed.
  const double kv = spec.varlen && !spec.paged
                        ? count(attentionShapeKv(spec))
                        : static_cast<double>(spec.batch) *
                              static_cast<double>(spec.kvHeads) *
                              static_cast<double>(spec.seqKv) *
                              static_cast<double>(spec.headDim);
  double bytes = count(attentionShapeQ(spec)) * in + 2 * kv * kvIn +
                 count(attentionShapeQ(spec)) *
                     static_cast<double>(elemTypeBytes(spec.out));
  if (spec.lse)
    bytes += count(attentionShapeLse(spec)) * 4;
  if (spec.kvLens)
    bytes += count(attentionShapeKvLens(spec)) * 4;
  if (spec.paged)
    bytes += count(attentionShapeBlockTable(spec)) * 4;
  if (spec.varlen)
    bytes += 2 * count(attentionShapeCuSeqlens(spec)) * 4;
  for (bool has : {spec.qDescale, spec.kDescale, spec.vDescale})
    bytes += has ? count(kDescaleShape) * 4 : 0;
  return bytes;
}

double attentionTolerance(const AttentionSpec &spec, const json &config) {
  // Only the wgmma kernels round P to e4m3; mma_sync keeps it in f16.
  const bool wgmma = config.is_object() && config.contains("instruction") &&
                     config["instruction"] == "wgmma";
  if (spec.dtype == ElemType::F8E4M3FN &&
      attentionKvType(spec) == ElemType::F8E4M3FN && wgmma)
    return kTolE4m3P;
  return isLowPrecision(spec.dtype) || isLowPrecision(attentionKvType(spec)) ||
                 isLowPrecision(spec.out)
             ? kTol16Bit
             : kTolF32;
}

double attentionLseTolerance(const AttentionSpec &spec) {
  return isLowPrecision(spec.dtype) || isLowPrecision(attentionKvType(spec))
             ? kLseTol16Bit
             : kLseTolF32;
}

bool checkAttentionParams(const KernelPackage &pkg, const AttentionSpec &spec,
                          std::string &err) {
  std::vector<std::vector<int64_t>> qShapes = {attentionShapeQ(spec)};
  std::vector<std::vector<int64_t>> lseShapes = {attentionShapeLse(spec)};
  if (!spec.varlen) { // the packed-GQA view; a varlen op has none
    qShapes.push_back(attentionPackedShapeQ(spec));
    lseShapes.push_back(attentionPackedShapeLse(spec));
  }
  const std::string where = "package " + pkg.name + ": attention ";
  // A parameter of a wrong type or shape: the message says the layout.
  const auto layoutSaid = [&](bool ok, const std::string &name) {
    if (!ok && err.find(", the op says ") != std::string::npos)
      err += layoutNote(spec, name);
    return ok;
  };
  if (!layoutSaid(checkTensor(pkg, "q", spec.dtype, ParamRole::Input, qShapes,
                              err) != nullptr,
                  "q"))
    return false;
  for (const char *name : {"k", "v"})
    if (!layoutSaid(checkTensor(pkg, name, attentionKvType(spec),
                                ParamRole::Input, {attentionShapeKv(spec)},
                                err) != nullptr,
                    name))
      return false;
  for (const char *name : {"cu_seqlens_q", "cu_seqlens_k"})
    if (!checkOptionalTensor(pkg, name, spec.varlen, ElemType::I32,
                             ParamRole::Input, {attentionShapeCuSeqlens(spec)},
                             "is not varlen", err)) {
      if (spec.varlen && !hasTensor(pkg, name))
        err += " (a varlen op reads its sequences' token offsets from i32 "
               "[B + 1] cu_seqlens_q and cu_seqlens_k)";
      return false;
    }
  if (!layoutSaid(checkTensor(pkg, "out", spec.out, ParamRole::Output, qShapes,
                              err) != nullptr,
                  "out"))
    return false;
  if (!checkOptionalTensor(pkg, "kv_lens", spec.kvLens, ElemType::I32,
                           ParamRole::Input, {attentionShapeKvLens(spec)},
                           "has no kv_lens", err))
    return false;
  if (!layoutSaid(checkOptionalTensor(pkg, "block_table", spec.paged,
                                      ElemType::I32, ParamRole::Input,
                                      {attentionShapeBlockTable(spec)},
                                      "is not paged", err),
                  "block_table")) {
    if (spec.paged && !hasTensor(pkg, "block_table"))
      err += " (a paged op reads k and v through an i32 [B, M] block table)";
    return false;
  }
  if (!checkOptionalTensor(pkg, "alibi_slopes", spec.alibi, ElemType::F32,
                           ParamRole::Input, {{spec.qHeads}}, "has no alibi",
                           err) ||
      !layoutSaid(checkOptionalTensor(pkg, "lse", spec.lse, ElemType::F32,
                                      ParamRole::Output, lseShapes,
                                      "has no lse", err),
                  "lse"))
    return false;
  for (auto [name, has, lacking] :
       {std::tuple{"q_descale", spec.qDescale, "has no q_descale"},
        std::tuple{"k_descale", spec.kDescale, "has no k_descale"},
        std::tuple{"v_descale", spec.vDescale, "has no v_descale"}})
    if (!checkOptionalTensor(pkg, name, has, ElemType::F32, ParamRole::Input,
                             {kDescaleShape}, lacking, err))
      return false;
  if (!checkWorkspaces(pkg, spec, err))
    return false;
  for (const KernelParam &p : pkg.params) {
    static const char *const kNames[] = {
        "q",           "k",            "v",
        "kv_lens",     "block_table",  "alibi_slopes",
        "q_descale",   "k_descale",    "v_descale",
        "out",         "lse",          "o_partial",
        "lse_partial", "cu_seqlens_q", "cu_seqlens_k"};
    if (p.kind == ParamKind::Tensor &&
        std::none_of(std::begin(kNames), std::end(kNames),
                     [&](const char *n) { return p.name == n; })) {
      err = where + "has a tensor parameter '" + p.name + "', not one of";
      for (const char *n : kNames)
        err += std::string(" ") + n;
      return false;
    }
  }
  return true;
}

HostTensor attentionKvLens(const AttentionSpec &spec, uint64_t seed) {
  HostTensor lens = makeZeros(ElemType::I32, attentionShapeKvLens(spec));
  uint64_t draws = 0;
  auto next = [&] { return mixSeed(seed, draws++); };
  const auto skv = static_cast<uint64_t>(spec.seqKv);
  for (int64_t b = 0; b < spec.batch; ++b) {
    const uint64_t kind = next() % 8;
    uint64_t len = skv; // kinds 0-3: full
    if (kind >= 4 && kind < 7)
      len = 1 + next() % skv;
    else if (kind == 7)
      len = next() % (std::min<uint64_t>(skv, 8) + 1);
    lens.setFromDouble(b, static_cast<double>(len));
  }
  return lens;
}

namespace {

/// A seeded permutation of the pages [0, N) (Fisher-Yates).
std::vector<int64_t> shuffledPages(int64_t N, uint64_t seed) {
  std::vector<int64_t> pages(static_cast<size_t>(N));
  for (int64_t n = 0; n < N; ++n)
    pages[n] = n;
  for (int64_t n = N - 1; n > 0; --n)
    std::swap(pages[n], pages[mixSeed(seed, static_cast<uint64_t>(n)) %
                              static_cast<uint64_t>(n + 1)]);
  return pages;
}

} // namespace

HostTensor attentionBlockTable(const AttentionSpec &spec, uint64_t seed,
                               const HostTensor *kvLens) {
  const int64_t M = attentionPagesPerSequence(spec);
  HostTensor table = makeZeros(ElemType::I32, attentionShapeBlockTable(spec));
  const int64_t N = spec.numPages;
  if (M == 0 || N < 1)
    return table;
  const std::vector<int64_t> pages = shuffledPages(N, seed);
  for (int64_t b = 0; b < spec.batch; ++b) {
    int64_t used = M; // the pages that hold keys a kernel reads
    if (kvLens != nullptr) {
      const int64_t L = std::clamp<int64_t>(
          static_cast<int64_t>(kvLens->getAsDouble(b)), 0, spec.seqKv);
      used = (L + spec.pageSize - 1) / spec.pageSize;
    }
    for (int64_t m = 0; m < M; ++m)
      table.setFromDouble(b * M + m,
                          m < used ? static_cast<double>(pages[(b * M + m) % N])
                                   : -1.0);
  }
  return table;
}

int64_t attentionPagedKeyCount(const AttentionSpec &spec,
                               const HostTensor &cuSeqlensK, int64_t b) {
  const double start = std::max(cuSeqlensK.getAsDouble(b), 0.0);
  const double end = std::max(cuSeqlensK.getAsDouble(b + 1), start);
  return static_cast<int64_t>(
      std::min(end - start, static_cast<double>(spec.seqKv)));
}

HostTensor attentionPagedCuSeqlensK(const AttentionSpec &spec, uint64_t seed) {
  const int64_t B = spec.batch, capacity = spec.seqKv, P = spec.pageSize;
  uint64_t draws = 0;
  auto next = [&] { return mixSeed(seed, draws++); };
  auto below = [&](uint64_t n) { return next() % n; }; // uniform in [0, n)
  const uint64_t shape = next();
  std::vector<int64_t> len(static_cast<size_t>(B));
  for (int64_t &l : len)
    l = static_cast<int64_t>(below(static_cast<uint64_t>(capacity) + 1));
  int64_t full = -1;
  if (B >= 2 || (shape & 1)) {
    full = static_cast<int64_t>(below(static_cast<uint64_t>(B)));
    len[full] = capacity;
  }
  if (B >= 3 || (B == 2 && (shape & 2))) {
    auto e = static_cast<int64_t>(below(static_cast<uint64_t>(B)));
    if (e == full)
      e = (e + 1) % B;
    len[e] = 0;
  }
  // Within the pool (every key read on a page of its own) and i32.
  int64_t pagesLeft = spec.numPages;
  int64_t tokensLeft = std::numeric_limits<int32_t>::max();
  HostTensor cu = makeZeros(ElemType::I32, attentionShapeCuSeqlens(spec));
  int64_t end = 0;
  for (int64_t b = 0; b < B; ++b) {
    int64_t &l = len[b];
    l = std::min({l, pagesLeft * P, tokensLeft});
    pagesLeft -= P > 0 ? (l + P - 1) / P : 0;
    tokensLeft -= l;
    end += l;
    cu.setFromDouble(b + 1, static_cast<double>(end));
  }
  return cu;
}

HostTensor attentionVarlenBlockTable(const AttentionSpec &spec, uint64_t seed,
                                     const HostTensor &cuSeqlensK) {
  const int64_t M = attentionPagesPerSequence(spec);
  HostTensor table = makeZeros(ElemType::I32, attentionShapeBlockTable(spec));
  const int64_t N = spec.numPages;
  if (M == 0 || N < 1 || cuSeqlensK.numElements() <= spec.batch)
    return table;
  const std::vector<int64_t> pages = shuffledPages(N, seed);
  int64_t taken = 0; // the pages handed out so far
  for (int64_t b = 0; b < spec.batch; ++b) {
    const int64_t L = attentionPagedKeyCount(spec, cuSeqlensK, b);
    const int64_t used = (L + spec.pageSize - 1) / spec.pageSize;
    for (int64_t m = 0; m < M; ++m)
      table.setFromDouble(
          b * M + m, m < used ? static_cast<double>(pages[taken++ % N]) : -1.0);
  }
  return table;
}

HostTensor attentionDescale(uint64_t seed) {
  HostTensor t = makeZeros(ElemType::F32, kDescaleShape);
  // 53 random bits: u uniform in [0, 1).
  const double u = std::ldexp(static_cast<double>(mixSeed(seed, 0) >> 11), -53);
  t.setFromDouble(0, 0.5 + 1.5 * u);
  return t;
}

HostTensor attentionCuSeqlens(const AttentionSpec &spec, uint64_t seed,
                              int64_t total) {
  const int64_t B = spec.batch;
  const auto T = static_cast<uint64_t>(std::max<int64_t>(total, 0));
  uint64_t draws = 0;
  auto next = [&] { return mixSeed(seed, draws++); };
  auto below = [&](uint64_t n) { return next() % n; }; // uniform in [0, n)
  const uint64_t shape = next();
  std::vector<uint64_t> len(static_cast<size_t>(B), 0);
  int64_t longOne = -1; // the sequence given a long length, if any
  if (B > 1 && (shape & 1)) {
    longOne = static_cast<int64_t>(below(static_cast<uint64_t>(B)));
    len[longOne] = T - T / 2 + below(T / 2 + 1); // [ceil(T / 2), T]
  }
  // The others share the rest, cut at sorted uniform points.
  const uint64_t rest = T - (longOne >= 0 ? len[longOne] : 0);
  std::vector<uint64_t> cuts;
  for (int64_t c = longOne >= 0 ? 2 : 1; c < B; ++c)
    cuts.push_back(below(rest + 1));
  std::sort(cuts.begin(), cuts.end());
  cuts.push_back(rest);
  uint64_t from = 0;
  auto cut = cuts.begin();
  for (int64_t b = 0; b < B; ++b)
    if (b != longOne) {
      len[b] = *cut - from;
      from = *cut++;
    }
  if (B > 1 && (shape & 2)) { // one sequence emptied into the next
    auto e = static_cast<int64_t>(below(static_cast<uint64_t>(B)));
    if (e == longOne)
      e = (e + 1) % B;
    len[(e + 1) % B] += len[e];
    len[e] = 0;
  }
  HostTensor cu = makeZeros(ElemType::I32, attentionShapeCuSeqlens(spec));
  uint64_t end = 0;
  for (int64_t b = 0; b < B; ++b) {
    end += len[b];
    cu.setFromDouble(b + 1, static_cast<double>(end));
  }
  return cu;
}

std::optional<HostTensor> attentionInput(const AttentionSpec &spec,
                                         const KernelParam &param,
                                         uint64_t runSeed) {
  const uint64_t seed = packageInputSeed(runSeed, param.name);
  if (param.name == "kv_lens")
    return attentionKvLens(spec, seed);
  // A varlen package's sequences: queries and keys drawn independently.
  if (spec.varlen && param.name == "cu_seqlens_q")
    return attentionCuSeqlens(spec, seed, spec.seqQ);
  if (spec.varlen && param.name == "cu_seqlens_k")
    return spec.paged ? attentionPagedCuSeqlensK(spec, seed)
                      : attentionCuSeqlens(spec, seed, spec.seqKv);
  // A varlen paged package's table: the pages of the key counts its
  // cu_seqlens_k holds in this run (the same draw: the cu_seqlens_k seed).
  if (param.name == "block_table" && spec.paged && spec.varlen)
    return attentionVarlenBlockTable(
        spec, seed,
        attentionPagedCuSeqlensK(spec,
                                 packageInputSeed(runSeed, "cu_seqlens_k")));
  // A paged package's table, padded with -1 past the pages of the lengths
  // its kv_lens input holds in this run (the same draw: the kv_lens seed).
  if (param.name == "block_table" && spec.paged) {
    if (!spec.kvLens)
      return attentionBlockTable(spec, seed, nullptr);
    const HostTensor lens =
        attentionKvLens(spec, packageInputSeed(runSeed, "kv_lens"));
    return attentionBlockTable(spec, seed, &lens);
  }
  if (param.name == "q_descale" || param.name == "k_descale" ||
      param.name == "v_descale")
    return attentionDescale(seed);
  return std::nullopt;
}

AttentionExtras attentionExtras(
    const std::function<const HostTensor *(const std::string &)> &find) {
  AttentionExtras e;
  e.kvLens = find("kv_lens");
  e.alibi = find("alibi_slopes");
  e.blockTable = find("block_table");
  e.qDescale = find("q_descale");
  e.kDescale = find("k_descale");
  e.vDescale = find("v_descale");
  e.cuSeqlensQ = find("cu_seqlens_q");
  e.cuSeqlensK = find("cu_seqlens_k");
  return e;
}

AttentionTokens attentionSequenceTokens(const HostTensor &cuSeqlens,
                                        int64_t total, int64_t b) {
  const auto clamped = [&](int64_t index, int64_t lo) {
    return static_cast<int64_t>(std::clamp(cuSeqlens.getAsDouble(index),
                                           static_cast<double>(lo),
                                           static_cast<double>(total)));
  };
  AttentionTokens t;
  t.begin = clamped(b, 0);
  t.end = clamped(b + 1, t.begin);
  return t;
}

int64_t attentionRowCount(const AttentionSpec &spec) {
  return spec.varlen ? spec.seqQ * spec.qHeads
                     : spec.batch * spec.qHeads * spec.seqQ;
}

std::vector<int64_t> attentionLseElements(const AttentionSpec &spec,
                                          const std::vector<int64_t> &rows) {
  if (!spec.varlen)
    return rows;
  std::vector<int64_t> elements(rows.size());
  for (size_t r = 0; r < rows.size(); ++r) // row t * Hq + h: lse [h, t]
    elements[r] = rows[r] % spec.qHeads * spec.seqQ + rows[r] / spec.qHeads;
  return elements;
}

namespace {

/// A row no kernel's output matches: NaN out and lse.
AttentionRow nanRow(int64_t D) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  AttentionRow row;
  row.out.assign(static_cast<size_t>(D), nan);
  row.lse = nan;
  return row;
}

/// A row that sees no key: zeros, lse -inf.
AttentionRow emptyRow(int64_t D) {
  AttentionRow row;
  row.out.assign(static_cast<size_t>(D), 0.0);
  row.lse = -std::numeric_limits<double>::infinity();
  return row;
}

/// Both cu_seqlens of a varlen op, each with B + 1 elements at least.
bool hasCuSeqlens(const AttentionSpec &spec, const AttentionExtras &extras) {
  for (const HostTensor *cu : {extras.cuSeqlensQ, extras.cuSeqlensK})
    if (cu == nullptr || cu->numElements() <= spec.batch)
      return false;
  return true;
}

/// Query token t of a varlen op: the last sequence whose queries hold it
/// and its index there, or b = -1 when none does. Precondition:
/// hasCuSeqlens.
struct QueryToken {
  int64_t b = -1, i = 0;
};
QueryToken queryToken(const AttentionSpec &spec, const HostTensor &cuSeqlensQ,
                      int64_t t) {
  for (int64_t b = spec.batch - 1; b >= 0; --b) {
    const AttentionTokens s = attentionSequenceTokens(cuSeqlensQ, spec.seqQ, b);
    if (t >= s.begin && t < s.end)
      return {b, t - s.begin};
  }
  return {};
}

/// The descale factor: 1 when the op has none, else element 0 of `t`
/// (NaN when `t` is missing or empty).
double descale(bool has, const HostTensor *t) {
  if (!has)
    return 1.0;
  return t != nullptr && t->numElements() >= 1
             ? t->getAsDouble(0)
             : std::numeric_limits<double>::quiet_NaN();
}

} // namespace

AttentionRow attentionRow(const AttentionSpec &spec, const HostTensor &q,
                          const HostTensor &k, const HostTensor &v,
                          const AttentionExtras &extras, int64_t b, int64_t h,
                          int64_t i) {
  const int64_t D = spec.headDim, Skv = spec.seqKv;
  const int64_t hk = h / attentionGroup(spec);
  const double dq = descale(spec.qDescale, extras.qDescale);
  const double dk = descale(spec.kDescale, extras.kDescale);
  const double dv = descale(spec.vDescale, extras.vDescale);
  if (std::isnan(dq) || std::isnan(dk) || std::isnan(dv))
    return nanRow(D);
  const HostTensor *kvLens = extras.kvLens, *alibi = extras.alibi;
  const HostTensor *blockTable = extras.blockTable;
  // The row's sequence: Sq queries, the row at qRow of q viewed as rows of
  // D, L keys, key j (contiguous or packed) at row keyRow0 + j * keyStride
  // of k and v.
  int64_t Sq = spec.seqQ, L = Skv;
  int64_t qRow = (b * spec.qHeads + h) * spec.seqQ + i;
  int64_t keyRow0 = (b * spec.kvHeads + hk) * Skv, keyStride = 1;
  if (spec.varlen) {
    if (!hasCuSeqlens(spec, extras) || b < 0 || b >= spec.batch)
      return nanRow(D);
    const AttentionTokens qs =
        attentionSequenceTokens(*extras.cuSeqlensQ, spec.seqQ, b);
    Sq = qs.end - qs.begin;
    if (i < 0 || i >= Sq)
      return nanRow(D);
    qRow = (qs.begin + i) * spec.qHeads + h;
    if (spec.paged) { // key counts only; the keys through the table
      L = attentionPagedKeyCount(spec, *extras.cuSeqlensK, b);
    } else {
      const AttentionTokens ks =
          attentionSequenceTokens(*extras.cuSeqlensK, Skv, b);
      L = ks.end - ks.begin;
      keyRow0 = ks.begin * spec.kvHeads + hk;
      keyStride = spec.kvHeads;
    }
  } else if (kvLens != nullptr) {
    L = std::clamp<int64_t>(static_cast<int64_t>(kvLens->getAsDouble(b)), 0,
                            Skv);
  }
  const int64_t p = i + L - Sq;         // bottom-right position
  int64_t end = L;                      // keys [begin, end) are visible
  int64_t begin = 0;
  if (spec.causal)
    end = std::clamp<int64_t>(p + 1, 0, L);
  if (spec.window)
    begin = std::clamp<int64_t>(p - *spec.window + 1, 0, end);
  if (spec.windowLeft)
    begin = std::clamp<int64_t>(p - *spec.windowLeft, 0, end);
  if (spec.windowRight)
    end = std::clamp<int64_t>(p + *spec.windowRight + 1, 0, end);
  begin = std::min(begin, end);
  const double slope = spec.alibi && alibi != nullptr ? alibi->getAsDouble(h) : 0.0;

  AttentionRow row = emptyRow(D);
  if (begin >= end)
    return row;
  std::vector<double> qValues(static_cast<size_t>(D));
  for (int64_t d = 0; d < D; ++d)
    qValues[d] = q.getAsDouble(qRow * D + d);
  // The offset of key j's row of K and V: contiguous, or through the table.
  std::vector<int64_t> keyBase(static_cast<size_t>(end - begin));
  for (int64_t j = begin; j < end; ++j) {
    if (!spec.paged) {
      keyBase[j - begin] = (keyRow0 + j * keyStride) * D;
      continue;
    }
    const int64_t M = attentionPagesPerSequence(spec);
    const double page = blockTable != nullptr
                            ? blockTable->getAsDouble(b * M + j / spec.pageSize)
                            : -1.0;
    if (!(page >= 0 && page < static_cast<double>(spec.numPages)))
      return nanRow(D);
    // Row (n, hk, slot) of [N, Hkv, P, D], or (n, slot, hk) of NHD pages.
    const auto n = static_cast<int64_t>(page);
    const int64_t slot = j % spec.pageSize;
    const int64_t keyRow = spec.pagesNhd
                               ? (n * spec.pageSize + slot) * spec.kvHeads + hk
                               : (n * spec.kvHeads + hk) * spec.pageSize + slot;
    keyBase[j - begin] = keyRow * D;
  }
  std::vector<double> t(static_cast<size_t>(end - begin));
  double mx = -std::numeric_limits<double>::infinity();
  const double logitScale = spec.scale * dq * dk; // spec.scale when 1, 1
  for (int64_t j = begin; j < end; ++j) {
    double dot = 0;
    for (int64_t d = 0; d < D; ++d)
      dot += qValues[d] * k.getAsDouble(keyBase[j - begin] + d);
    double s = logitScale * dot;
    if (spec.softcap)
      s = *spec.softcap * std::tanh(s / *spec.softcap);
    s -= slope * static_cast<double>(std::abs(p - j)); // ALiBi
    t[j - begin] = s;
    mx = std::max(mx, s);
  }
  double sum = 0;
  for (int64_t j = begin; j < end; ++j) {
    const double w = std::exp(t[j - begin] - mx);
    sum += w;
    for (int64_t d = 0; d < D; ++d)
      row.out[d] += w * v.getAsDouble(keyBase[j - begin] + d);
  }
  for (double &o : row.out)
    o = o / sum * dv;           // dv = 1: o / sum exactly
  row.lse = mx + std::log(sum); // not dv's
  return row;
}

AttentionExpected attentionExpected(const AttentionSpec &spec,
                                    const HostTensor &q, const HostTensor &k,
                                    const HostTensor &v,
                                    const AttentionExtras &extras,
                                    const std::vector<int64_t> &rows) {
  const auto n = static_cast<int64_t>(rows.size());
  AttentionExpected e{makeZeros(spec.out, {n, spec.headDim}),
                      makeZeros(ElemType::F32, {n})};
  for (int64_t r = 0; r < n; ++r) {
    const int64_t flat = rows[static_cast<size_t>(r)];
    AttentionRow row;
    if (!spec.varlen) {
      const int64_t i = flat % spec.seqQ;
      const int64_t h = (flat / spec.seqQ) % spec.qHeads;
      const int64_t b = flat / (spec.seqQ * spec.qHeads);
      row = attentionRow(spec, q, k, v, extras, b, h, i);
    } else if (!hasCuSeqlens(spec, extras)) {
      row = nanRow(spec.headDim);
    } else { // row t * Hq + h
      const int64_t h = flat % spec.qHeads;
      const QueryToken token =
          queryToken(spec, *extras.cuSeqlensQ, flat / spec.qHeads);
      row = token.b < 0
                ? emptyRow(spec.headDim)
                : attentionRow(spec, q, k, v, extras, token.b, h, token.i);
    }
    for (int64_t d = 0; d < spec.headDim; ++d)
      e.out.setFromDouble(r * spec.headDim + d, row.out[d]);
    e.lse.setFromDouble(r, row.lse);
  }
  return e;
}

HostTensor gatherRows(const HostTensor &t, const std::vector<int64_t> &rows,
                      int64_t rowElements) {
  HostTensor out =
      makeZeros(t.type, {static_cast<int64_t>(rows.size()), rowElements});
  const size_t rowBytes =
      static_cast<size_t>(rowElements) * elemTypeBytes(t.type);
  for (size_t r = 0; r < rows.size(); ++r)
    std::memcpy(&out.data[r * rowBytes],
                &t.data[static_cast<size_t>(rows[r]) * rowBytes], rowBytes);
  return out;
}

bool checkLse(const HostTensor &got, const HostTensor &expected,
              double tolerance, double &maxAbsErr, std::string &why) {
  maxAbsErr = 0;
  const int64_t n = std::min(got.numElements(), expected.numElements());
  int64_t nans = 0, infMismatch = 0, over = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double g = got.getAsDouble(i), e = expected.getAsDouble(i);
    if (std::isnan(g)) {
      ++nans;
    } else if (std::isinf(g) || std::isinf(e)) {
      infMismatch += g != e;
    } else {
      const double err = std::fabs(g - e);
      maxAbsErr = std::max(maxAbsErr, err);
      over += err > tolerance;
    }
  }
  if (nans == 0 && infMismatch == 0 && over == 0 &&
      got.numElements() == expected.numElements())
    return true;
  char text[256];
  std::snprintf(text, sizeof text,
                "lse: %lld of %lld rows NaN, %lld infinite where the reference "
                "differs, %lld off by more than %.3g (max abs error %.3g)",
                static_cast<long long>(nans), static_cast<long long>(n),
                static_cast<long long>(infMismatch),
                static_cast<long long>(over), tolerance, maxAbsErr);
  why = text;
  if (got.numElements() != expected.numElements())
    why = "lse: " + std::to_string(got.numElements()) + " elements, the "
          "reference has " + std::to_string(expected.numElements());
  return false;
}

} // namespace kgen::rt
