//===- TuningDb.cpp - the tuning database: measured configs per op --------===//
//
// Format: docs/tuning-db.md. Keys are compared by their canonical text:
// nlohmann::json's compact dump (its objects are std::maps, so keys come out
// sorted) after every floating-point number with an integral value has been
// replaced by that integer, so that alpha 1 and 1.0 name the same op.
// Nothing here throws: every JSON type is checked before it is read, and
// dumps replace invalid UTF-8 instead of throwing about it.
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/TuningDb.h"

#include "JsonRead.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace kgen::rt {
namespace {

using namespace jsonread;

constexpr int64_t kMaxInt = std::numeric_limits<int>::max();

//===----------------------------------------------------------------------===//
// Canonical text
//===----------------------------------------------------------------------===//

/// `j` with every floating-point number whose value is an integer that
/// int64 holds (1.0, -0.0, 4096.0) replaced by that integer, recursively.
/// Other numbers (2.5, 1e300, NaN) are left as they are.
json normalizeNumbers(const json &j) {
  switch (j.type()) {
  case json::value_t::object: {
    json out = json::object();
    for (auto it = j.begin(); it != j.end(); ++it)
      out[it.key()] = normalizeNumbers(it.value());
    return out;
  }
  case json::value_t::array: {
    json out = json::array();
    for (const json &element : j)
      out.push_back(normalizeNumbers(element));
    return out;
  }
  case json::value_t::number_float: {
    const double v = j.get<double>();
    constexpr double kTwoTo63 = 9223372036854775808.0;
    if (std::isfinite(v) && std::trunc(v) == v && v >= -kTwoTo63 && v < kTwoTo63)
      return static_cast<int64_t>(v);
    return j;
  }
  default:
    return j;
  }
}

/// One line, sorted keys, integral numbers as integers: equal values, equal
/// text.
std::string canonicalText(const json &j) {
  return dumpOneLine(normalizeNumbers(j));
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

/// The largest size a key may hold (as kernel package manifests).
constexpr int64_t kMaxOpSize = int64_t{1} << 31;

const char *const kElementTypes[] = {"f64", "f32", "f16", "bf16", "f8E4M3FN"};
/// An attention's out; and its q, k and v, which may also be e4m3.
const char *const kAttentionTypes[] = {"f32", "f16", "bf16"};
const char *const kAttentionInputTypes[] = {"f32", "f16", "bf16", "f8E4M3FN"};
const char *const kActivations[] = {"none", "relu", "gelu", "silu"};
/// The op kinds a key may hold, each with its signature below.
const char *const kOpKinds[] = {"gemm", "attention", "grouped_gemm"};
/// What a grouped GEMM key is: one of a kgen.moe's two expert GEMMs, or a
/// kgen.grouped_gemm of its own.
const char *const kGroupedGemmRoles[] = {"gate_up", "down", "grouped"};

/// What a field of an op signature holds.
enum class SignatureValue {
  Kind,                // one of kOpKinds (checked first, by checkOp)
  Size,                // an integer in [1, kMaxOpSize]
  OptionalSize,        // null (absent) or a Size
  OptionalCount,       // null (absent) or an integer >= 0
  Flag,                // true or false
  ElementType,         // one of kElementTypes
  OptionalElementType, // null (no such operand) or one of kElementTypes
  AttentionType,       // one of kAttentionTypes
  AttentionInputType,  // one of kAttentionInputTypes
  Scalar,              // a finite number
  OptionalScalar,      // null (absent) or a finite number
  Activation,          // one of kActivations
  Role,                // one of kGroupedGemmRoles
  Bucket,              // a power of two in [1, kMaxOpSize] (tokensBucket)
};

struct SignatureField {
  const char *name;
  SignatureValue value;
  bool optional = false; // may be absent (a field newer than old keys)
};

/// Every field of a gemm signature, as dialect/GemmJson.cpp's gemmSignature
/// writes it: a key's op has all of them and no other.
const SignatureField kGemmSignature[] = {
    {"kind", SignatureValue::Kind},
    {"batch", SignatureValue::Size},
    {"m", SignatureValue::Size},
    {"n", SignatureValue::Size},
    {"k", SignatureValue::Size},
    {"transpose_a", SignatureValue::Flag},
    {"transpose_b", SignatureValue::Flag},
    {"batched_b", SignatureValue::Flag},
    {"dtype_a", SignatureValue::ElementType},
    {"dtype_b", SignatureValue::ElementType},
    {"dtype_d", SignatureValue::ElementType},
    {"dtype_bias", SignatureValue::OptionalElementType},
    {"dtype_c", SignatureValue::OptionalElementType},
    {"alpha", SignatureValue::Scalar},
    {"beta", SignatureValue::Scalar},
    {"activation", SignatureValue::Activation},
};

/// Every field of an attention signature, as dialect/AttentionJson.cpp's
/// attentionSignature writes it (and runtime/lib/Attention.cpp's
/// attentionOpJson): a key's op has all of them and no other, but paged,
/// page_size and num_pages, which only a paged cache's signature has,
/// pages_nhd, which only a signature with NHD pages has, varlen, which only a signature with cu_seqlens has, dtype_kv, which only a
/// signature whose K and V are not of dtype has, and q_descale, k_descale and
/// v_descale, each only in a signature with that input (old databases, and ops
/// without them: absent).
const SignatureField kAttentionSignature[] = {
    {"kind", SignatureValue::Kind},
    {"batch", SignatureValue::Size},
    {"q_heads", SignatureValue::Size},
    {"kv_heads", SignatureValue::Size},
    {"seq_q", SignatureValue::Size},
    {"seq_kv", SignatureValue::Size},
    {"head_dim", SignatureValue::Size},
    {"dtype", SignatureValue::AttentionInputType},
    {"dtype_kv", SignatureValue::AttentionInputType, true},
    {"dtype_out", SignatureValue::AttentionType},
    {"kv_lens", SignatureValue::Flag},
    {"lse", SignatureValue::Flag},
    {"scale", SignatureValue::Scalar},
    {"causal", SignatureValue::Flag},
    {"sliding_window", SignatureValue::OptionalSize},
    {"window_left", SignatureValue::OptionalCount},
    {"window_right", SignatureValue::OptionalCount},
    {"alibi", SignatureValue::Flag},
    {"softcap", SignatureValue::OptionalScalar},
    {"paged", SignatureValue::Flag, true},
    {"page_size", SignatureValue::Size, true},
    {"num_pages", SignatureValue::Size, true},
    {"pages_nhd", SignatureValue::Flag, true},
    {"q_descale", SignatureValue::Flag, true},
    {"k_descale", SignatureValue::Flag, true},
    {"v_descale", SignatureValue::Flag, true},
    {"varlen", SignatureValue::Flag, true},
};

/// Every field of a grouped GEMM key (groupedGemmKeyOp writes them): a
/// key's op has all of them and no other.
const SignatureField kGroupedGemmSignature[] = {
    {"kind", SignatureValue::Kind},
    {"role", SignatureValue::Role},
    {"experts", SignatureValue::Size},
    {"top_k", SignatureValue::Size},
    {"k", SignatureValue::Size},
    {"n", SignatureValue::Size},
    {"gated", SignatureValue::Flag},
    {"activation", SignatureValue::Activation},
    {"dtype", SignatureValue::ElementType},
    {"dtype_out", SignatureValue::ElementType},
    {"tokens_bucket", SignatureValue::Bucket},
};

template <size_t N>
std::string joinNames(const char *const (&names)[N]) {
  std::string joined;
  for (const char *name : names)
    joined += (joined.empty() ? "" : " ") + std::string(name);
  return joined;
}

template <size_t N>
std::string joinNames(const SignatureField (&fields)[N]) {
  std::string joined;
  for (const SignatureField &field : fields)
    joined += (joined.empty() ? "" : " ") + std::string(field.name);
  return joined;
}

/// `j` is a string among `names`.
template <size_t N>
bool checkName(const json &j, const std::string &path,
               const char *const (&names)[N], std::string &err) {
  if (!j.is_string())
    return typeError(path, "a string", j, err);
  for (const char *name : names)
    if (j.get_ref<const std::string &>() == name)
      return true;
  return fieldError(path,
                    "unknown value " + describe(j) + " (expected " +
                        joinNames(names) + ")",
                    err);
}

bool checkSignatureValue(const json &j, const std::string &path,
                         SignatureValue value, std::string &err) {
  switch (value) {
  case SignatureValue::Kind:
    return true; // checkOp read it to pick the signature
  case SignatureValue::Size: {
    int64_t unused;
    return readInt(j, path, 1, kMaxOpSize, unused, err);
  }
  case SignatureValue::OptionalSize: {
    int64_t unused;
    return j.is_null() || readInt(j, path, 1, kMaxOpSize, unused, err);
  }
  case SignatureValue::OptionalCount: {
    int64_t unused;
    return j.is_null() || readInt(j, path, 0, kMaxOpSize, unused, err);
  }
  case SignatureValue::Flag: {
    bool unused;
    return readBool(j, path, unused, err);
  }
  case SignatureValue::ElementType:
    return checkName(j, path, kElementTypes, err);
  case SignatureValue::OptionalElementType:
    return j.is_null() || checkName(j, path, kElementTypes, err);
  case SignatureValue::AttentionType:
    return checkName(j, path, kAttentionTypes, err);
  case SignatureValue::AttentionInputType:
    return checkName(j, path, kAttentionInputTypes, err);
  case SignatureValue::Scalar:
    if (j.is_number() && std::isfinite(j.get<double>()))
      return true;
    return typeError(path, "a finite number", j, err);
  case SignatureValue::OptionalScalar:
    if (j.is_null() || (j.is_number() && std::isfinite(j.get<double>())))
      return true;
    return typeError(path, "a finite number or null", j, err);
  case SignatureValue::Activation:
    return checkName(j, path, kActivations, err);
  case SignatureValue::Role:
    return checkName(j, path, kGroupedGemmRoles, err);
  case SignatureValue::Bucket: {
    int64_t v;
    if (!readInt(j, path, 1, kMaxOpSize, v, err))
      return false;
    if ((v & (v - 1)) != 0)
      return fieldError(path,
                        "expected a power of two (a tokens bucket), got " +
                            std::to_string(v),
                        err);
    return true;
  }
  }
  return true;
}

/// `op` has every field of `signature` (the optional ones when present),
/// each valid, and no other (so it holds no nested values either).
template <size_t N>
bool checkSignature(const json &op, const std::string &path,
                    const char *kind, const SignatureField (&signature)[N],
                    std::string &err) {
  size_t seen = 0;
  for (const SignatureField &field : signature) {
    if (field.optional && !op.contains(field.name))
      continue;
    ++seen;
    const json *value = require(op, path, field.name, err);
    if (!value || !checkSignatureValue(*value, fieldPath(path, field.name),
                                       field.value, err))
      return false;
  }
  if (op.size() == seen)
    return true;
  for (auto it = op.begin(); it != op.end(); ++it) {
    bool known = false;
    for (const SignatureField &field : signature)
      known = known || it.key() == field.name;
    if (!known)
      return fieldError(path,
                        "unknown field " + describe(json(it.key())) + " (" +
                            (kind[0] == 'a' ? "an " : "a ") + kind +
                            " signature has exactly: " + joinNames(signature) +
                            ")",
                        err);
  }
  return true;
}

/// The element types of an attention signature: K and V (dtype_kv) of
/// dtype, or e4m3 under a bf16, f16 or e4m3 Q; each descale only with its
/// operand in e4m3. Precondition: checkSignature accepted `op`.
bool checkAttentionTypes(const json &op, const std::string &path,
                         std::string &err) {
  const std::string &q = op["dtype"].get_ref<const std::string &>();
  const std::string kv =
      op.contains("dtype_kv") ? op["dtype_kv"].get<std::string>() : q;
  if (kv != q && (kv != "f8E4M3FN" || q == "f32"))
    return fieldError(
        fieldPath(path, "dtype_kv"),
        "expected dtype (" + q + ")" +
            (q == "f32" || q == "f8E4M3FN" ? "" : " or f8E4M3FN") + ", got " +
            describe(json(kv)),
        err);
  const std::pair<const char *, const std::string *> descales[] = {
      {"q_descale", &q}, {"k_descale", &kv}, {"v_descale", &kv}};
  for (const auto &[key, type] : descales)
    if (op.contains(key) && op[key].get<bool>() && *type != "f8E4M3FN")
      return fieldError(fieldPath(path, key),
                        std::string("expected false or absent: its operand "
                                    "is ") +
                            *type + ", a descale needs f8E4M3FN",
                        err);
  return true;
}

/// What an attention signature's fields must satisfy together (the rules
/// of kgen.attention's verifier that runtime/lib/Attention.cpp's
/// parseAttentionOp states again), each naming the field it is about.
/// Precondition: checkSignature accepted `op`.
bool checkAttentionValues(const json &op, const std::string &path,
                          std::string &err) {
  const int64_t headDim = op["head_dim"].get<int64_t>();
  if (headDim < 32 || headDim > 256 || headDim % 8 != 0)
    return fieldError(fieldPath(path, "head_dim"),
                      "expected a multiple of 8 in [32, 256], got " +
                          std::to_string(headDim),
                      err);
  const int64_t qHeads = op["q_heads"].get<int64_t>();
  const int64_t kvHeads = op["kv_heads"].get<int64_t>();
  if (qHeads % kvHeads != 0)
    return fieldError(fieldPath(path, "q_heads"),
                      "expected a multiple of kv_heads (" +
                          std::to_string(kvHeads) + "), got " +
                          std::to_string(qHeads),
                      err);
  if (op["scale"].get<double>() == 0)
    return fieldError(fieldPath(path, "scale"), "expected a non-zero number",
                      err);
  if (!op["sliding_window"].is_null() && !op["causal"].get<bool>())
    return fieldError(fieldPath(path, "sliding_window"),
                      "a sliding window needs causal true", err);
  const json &cap = op["softcap"];
  if (!cap.is_null() && !(cap.get<double>() > 0))
    return fieldError(fieldPath(path, "softcap"),
                      "expected null or a number > 0, got " + describe(cap),
                      err);
  // A paged cache: paged true with page_size (<= 256, dividing seq_kv) and
  // num_pages; none of them without one, and no NHD pages.
  const bool paged = op.contains("paged") && op["paged"].get<bool>();
  for (const char *key : {"page_size", "num_pages"})
    if (op.contains(key) != paged)
      return fieldError(fieldPath(path, paged ? key : "paged"),
                        paged ? std::string("a paged signature needs it")
                              : std::string("expected true with ") + key,
                        err);
  if (!paged && op.contains("pages_nhd") && op["pages_nhd"].get<bool>())
    return fieldError(fieldPath(path, "pages_nhd"),
                      "expected false or absent without paged (it orders "
                      "the pages of a paged cache)",
                      err);
  if (paged) {
    const int64_t pageSize = op["page_size"].get<int64_t>();
    if (pageSize > 256)
      return fieldError(fieldPath(path, "page_size"),
                        "expected an integer in [1, 256], got " +
                            std::to_string(pageSize),
                        err);
    if (op["seq_kv"].get<int64_t>() % pageSize != 0)
      return fieldError(fieldPath(path, "seq_kv"),
                        "expected a multiple of page_size (" +
                            std::to_string(pageSize) + ")",
                        err);
  }
  // Packed sequences (cu_seqlens): no kv_lens (over a paged cache too:
  // cu_seqlens_k counts each sequence's keys).
  if (op.contains("varlen") && op["varlen"].get<bool>() &&
      op["kv_lens"].get<bool>())
    return fieldError(fieldPath(path, "kv_lens"),
                      "expected false with varlen (cu_seqlens gives each "
                      "sequence its lengths)",
                      err);
  return checkAttentionTypes(op, path, err);
}

/// What a grouped GEMM key's fields must satisfy together: the gated GEMM
/// of a kgen.moe is its gate_up, the other its down; a kgen.grouped_gemm
/// of its own routes each row once (top_k 1); top_k <= experts.
/// Precondition: checkSignature accepted `op`.
bool checkGroupedGemmValues(const json &op, const std::string &path,
                            std::string &err) {
  const std::string &role = op["role"].get_ref<const std::string &>();
  const bool gated = op["gated"].get<bool>();
  if ((role == "gate_up" && !gated) || (role == "down" && gated))
    return fieldError(fieldPath(path, "gated"),
                      "expected " + std::string(gated ? "false" : "true") +
                          " for role \"" + role + "\"",
                      err);
  const int64_t topK = op["top_k"].get<int64_t>();
  if (role == "grouped" && topK != 1)
    return fieldError(fieldPath(path, "top_k"),
                      "expected 1 for role \"grouped\", got " +
                          std::to_string(topK),
                      err);
  if (topK > op["experts"].get<int64_t>())
    return fieldError(fieldPath(path, "top_k"),
                      "expected at most experts (" +
                          std::to_string(op["experts"].get<int64_t>()) +
                          "), got " + std::to_string(topK),
                      err);
  return true;
}

/// `op` is a complete gemm, attention or grouped GEMM signature and
/// nothing else.
bool checkOp(const json &op, const std::string &path, std::string &err) {
  if (!op.is_object())
    return typeError(path, "an object", op, err);
  const json *kind = require(op, path, "kind", err);
  if (!kind)
    return false;
  if (*kind == "gemm")
    return checkSignature(op, path, "gemm", kGemmSignature, err);
  if (*kind == "attention")
    return checkSignature(op, path, "attention", kAttentionSignature, err) &&
           checkAttentionValues(op, path, err);
  if (*kind == "grouped_gemm")
    return checkSignature(op, path, "grouped_gemm", kGroupedGemmSignature,
                          err) &&
           checkGroupedGemmValues(op, path, err);
  return fieldError(fieldPath(path, "kind"),
                    "expected one of " + joinNames(kOpKinds) +
                        " (the op kinds a tuning database holds), got " +
                        describe(*kind),
                    err);
}

/// "sm_" and two or three digits, then an optional "a": "sm_80", "sm_90a".
bool checkArch(const std::string &arch, const std::string &path,
               std::string &err) {
  size_t digits = 0;
  while (3 + digits < arch.size() && arch[3 + digits] >= '0' &&
         arch[3 + digits] <= '9')
    ++digits;
  const size_t end = 3 + digits;
  if (arch.rfind("sm_", 0) == 0 && digits >= 2 && digits <= 3 &&
      (end == arch.size() || (end + 1 == arch.size() && arch[end] == 'a')))
    return true;
  return fieldError(path,
                    "expected an arch like \"sm_80\" or \"sm_90a\", got " +
                        describe(json(arch)),
                    err);
}

/// A config: null or an object of plain values (no nesting).
bool checkConfig(const json &config, const std::string &path,
                 std::string &err) {
  if (config.is_null())
    return true;
  if (!config.is_object())
    return typeError(path, "an object or null", config, err);
  for (auto it = config.begin(); it != config.end(); ++it)
    if (it->is_structured())
      return typeError(fieldPath(path, it.key()),
                       "a string, number, true, false or null", *it, err);
  return true;
}

/// A number as a message shows it, non-finite ones included.
std::string numberText(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  return dumpOneLine(json(v));
}

bool checkTimeAt(const SampleStats &t, const std::string &path,
                 std::string &err) {
  if (t.samples < 1)
    return fieldError(fieldPath(path, "samples"),
                      "expected at least one sample, got " +
                          std::to_string(t.samples),
                      err);
  // The median and the upper statistics are times; the lower ones may be
  // 0 (a sample below the timer's resolution).
  const std::pair<const char *, double> stats[] = {
      {"min_ms", t.minMs},       {"q1_ms", t.q1Ms}, {"median_ms", t.medianMs},
      {"q3_ms", t.q3Ms},         {"max_ms", t.maxMs}};
  for (size_t i = 0; i < std::size(stats); ++i) {
    const auto &[name, v] = stats[i];
    const bool lower = i < 2;
    if (!std::isfinite(v) || (lower ? v < 0 : !(v > 0)))
      return fieldError(fieldPath(path, name),
                        std::string(lower ? "expected a finite time >= 0 in ms"
                                          : "expected a positive, finite "
                                            "time in ms") +
                            ", got " + numberText(v),
                        err);
  }
  for (size_t i = 1; i < std::size(stats); ++i)
    if (stats[i].second < stats[i - 1].second)
      return fieldError(path,
                        std::string("expected min_ms <= q1_ms <= median_ms <= "
                                    "q3_ms <= max_ms, but ") +
                            stats[i].first + " " + numberText(stats[i].second) +
                            " < " + stats[i - 1].first + " " +
                            numberText(stats[i - 1].second),
                        err);
  return true;
}

bool checkKeyAt(const TuningKey &k, const std::string &path,
                std::string &err) {
  const std::string target = fieldPath(path, "target");
  if (!checkOp(k.op, fieldPath(path, "op"), err) ||
      !checkArch(k.arch, fieldPath(target, "arch"), err))
    return false;
  if (k.smCount < 0 || k.smCount > kMaxSmCount)
    return fieldError(fieldPath(target, "sm_count"),
                      "expected an integer in [0, " +
                          std::to_string(kMaxSmCount) + "], got " +
                          std::to_string(k.smCount),
                      err);
  if (k.emitterVersion < 0)
    return fieldError(fieldPath(fieldPath(path, "toolchain"), "emitter"),
                      "expected a non-negative integer, got " +
                          std::to_string(k.emitterVersion),
                      err);
  return true;
}

bool checkCandidateAt(const TuningCandidate &c, const std::string &path,
                      std::string &err) {
  return checkConfig(c.config, fieldPath(path, "config"), err) &&
         checkConfig(c.provenance, fieldPath(path, "provenance"), err) &&
         (!c.time || checkTimeAt(*c.time, fieldPath(path, "time"), err));
}

//===----------------------------------------------------------------------===//
// JSON forms
//===----------------------------------------------------------------------===//

json keyToJson(const TuningKey &k, json op) {
  return {{"op", std::move(op)},
          {"target",
           {{"arch", k.arch}, {"sm_count", k.smCount}, {"device", k.device}}},
          {"toolchain",
           {{"cuda", k.cudaVersion}, {"emitter", k.emitterVersion}}}};
}

json candidateToJson(const TuningCandidate &c) {
  json j = {{"config", c.config},
            {"status", runStatusName(c.status)},
            {"correct", c.correct},
            {"time", c.time ? toJson(*c.time) : json()},
            {"measured_at", c.measuredAt},
            {"host", c.host}};
  if (!c.provenance.is_null()) // older files have none: written only when known
    j["provenance"] = c.provenance;
  return j;
}


/// The member `key` of `obj` (named `path`), which must be an object.
const json *requireObject(const json &obj, const std::string &path,
                          const char *key, std::string &err) {
  const json *j = require(obj, path, key, err);
  if (j && !j->is_object()) {
    typeError(fieldPath(path, key), "an object", *j, err);
    return nullptr;
  }
  return j;
}

bool readStringField(const json &obj, const std::string &path, const char *key,
                     std::string &out, std::string &err) {
  const json *j = require(obj, path, key, err);
  return j && readString(*j, fieldPath(path, key), out, err);
}

/// A string that may be absent or null (read as "").
bool readOptionalStringField(const json &obj, const std::string &path,
                             const char *key, std::string &out,
                             std::string &err) {
  out.clear();
  return isAbsent(obj, key) ||
         readString(*member(obj, key), fieldPath(path, key), out, err);
}

bool readCountField(const json &obj, const std::string &path, const char *key,
                    int &out, std::string &err) {
  const json *j = require(obj, path, key, err);
  return j && readIntAs(*j, fieldPath(path, key), 0, kMaxInt, out, err);
}

bool keyFromJson(const json &j, const std::string &path, TuningKey &k,
                 std::string &err) {
  if (!j.is_object())
    return typeError(path, "an object", j, err);
  // Checked before it is copied: a complete signature holds no nesting.
  const json *op = require(j, path, "op", err);
  if (!op || !checkOp(*op, fieldPath(path, "op"), err))
    return false;
  k.op = *op;

  const std::string targetPath = fieldPath(path, "target");
  const json *target = requireObject(j, path, "target", err);
  if (!target || !readStringField(*target, targetPath, "arch", k.arch, err) ||
      !checkArch(k.arch, fieldPath(targetPath, "arch"), err))
    return false;
  k.smCount = 0; // absent or null: unknown
  if (!isAbsent(*target, "sm_count")) {
    const json *sms = member(*target, "sm_count");
    if (!readIntAs(*sms, fieldPath(targetPath, "sm_count"), 0, kMaxSmCount,
                   k.smCount, err))
      return false;
  }
  if (!readOptionalStringField(*target, targetPath, "device", k.device, err))
    return false;

  const std::string toolchainPath = fieldPath(path, "toolchain");
  const json *toolchain = requireObject(j, path, "toolchain", err);
  return toolchain &&
         readStringField(*toolchain, toolchainPath, "cuda", k.cudaVersion,
                         err) &&
         readCountField(*toolchain, toolchainPath, "emitter", k.emitterVersion,
                        err);
}

/// "ok wrong compile_failed ...": the names parseRunStatus accepts.
std::string knownStatusNames() {
  std::string known;
  for (int i = 0; i < 64; ++i) {
    const std::string name = runStatusName(static_cast<RunStatus>(i));
    if (name == "unknown")
      break;
    known += (known.empty() ? "" : " ") + name;
  }
  return known;
}

bool candidateFromJson(const json &j, const std::string &path,
                       TuningCandidate &c, std::string &err) {
  if (!j.is_object())
    return typeError(path, "an object", j, err);
  // Checked before it is copied: a config holds no nesting.
  const json *config = isAbsent(j, "config") ? nullptr : member(j, "config");
  if (config && !checkConfig(*config, fieldPath(path, "config"), err))
    return false;
  c.config = config ? *config : json();

  std::string status;
  if (!readStringField(j, path, "status", status, err))
    return false;
  const std::optional<RunStatus> parsed = parseRunStatus(status);
  if (!parsed)
    return fieldError(fieldPath(path, "status"),
                      "unknown status " + describe(json(status)) +
                          " (expected " + knownStatusNames() + ")",
                      err);
  c.status = *parsed;

  const json *correct = require(j, path, "correct", err);
  if (!correct || !readBool(*correct, fieldPath(path, "correct"), c.correct, err))
    return false;

  c.time.reset();
  if (!isAbsent(j, "time")) {
    SampleStats stats;
    if (!fromJson(*member(j, "time"), stats, err)) {
      err = path + "." + err; // err starts with "time"
      return false;
    }
    if (!checkTimeAt(stats, fieldPath(path, "time"), err))
      return false;
    c.time = stats;
  }
  c.origin = path;
  c.provenance = isAbsent(j, "provenance") ? json() : *member(j, "provenance");
  return readOptionalStringField(j, path, "measured_at", c.measuredAt, err) &&
         readOptionalStringField(j, path, "host", c.host, err) &&
         checkConfig(c.provenance, fieldPath(path, "provenance"), err);
}

bool entryFromJson(const json &j, const std::string &path, TuningEntry &e,
                   std::string &err) {
  if (!j.is_object())
    return typeError(path, "an object", j, err);
  const json *key = require(j, path, "key", err);
  if (!key || !keyFromJson(*key, fieldPath(path, "key"), e.key, err))
    return false;
  const std::string candidatesPath = fieldPath(path, "candidates");
  const json *list = require(j, path, "candidates", err);
  if (!list)
    return false;
  if (!list->is_array())
    return typeError(candidatesPath, "an array", *list, err);
  e.candidates.assign(list->size(), TuningCandidate());
  for (size_t i = 0; i < list->size(); ++i)
    if (!candidateFromJson((*list)[i], indexPath(candidatesPath, i),
                           e.candidates[i], err))
      return false;
  return true;
}

bool headerFromJson(const json &j, std::string &err) {
  std::string schema;
  if (!readStringField(j, "", "schema", schema, err))
    return false;
  if (schema != kTuningDbSchema)
    return fieldError("schema",
                      "expected \"" + std::string(kTuningDbSchema) +
                          "\", got " + describe(json(schema)),
                      err);
  const json *version = require(j, "", "version", err);
  if (!version)
    return false;
  if (!version->is_number_integer())
    return typeError("version", "an integer", *version, err);
  if (*version != kTuningDbVersion)
    return fieldError("version",
                      "the database has version " + describe(*version) +
                          ", this reader understands only version " +
                          std::to_string(kTuningDbVersion) + ": skipped",
                      err);
  return true;
}

//===----------------------------------------------------------------------===//
// Merging
//===----------------------------------------------------------------------===//

/// Adds `additions` to `entries` as TuningDb::merge describes. Precondition:
/// `additions` is not `entries`.
void mergeEntries(std::vector<TuningEntry> &entries,
                  const std::vector<TuningEntry> &additions) {
  std::unordered_map<std::string, size_t> index; // canonical key -> entry
  for (size_t i = 0; i < entries.size(); ++i)
    index.emplace(entries[i].key.canonical(), i); // the first one, as find
  // The candidate identities of the entries merged into, built on first use.
  std::unordered_map<size_t, std::unordered_set<std::string>> present;
  for (const TuningEntry &addition : additions) {
    const auto [slot, isNew] =
        index.emplace(addition.key.canonical(), entries.size());
    if (isNew) {
      entries.push_back(addition);
      continue;
    }
    TuningEntry &entry = entries[slot->second];
    const auto [ids, firstUse] = present.try_emplace(slot->second);
    if (firstUse)
      for (const TuningCandidate &c : entry.candidates)
        ids->second.insert(c.identity());
    for (const TuningCandidate &c : addition.candidates)
      if (ids->second.insert(c.identity()).second)
        entry.candidates.push_back(c);
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// TuningKey, TuningEntry, TuningDb
//===----------------------------------------------------------------------===//

std::string TuningCandidate::identity() const {
  return dumpOneLine(json::array({normalizeNumbers(config), measuredAt, host}));
}

std::string TuningKey::canonical() const {
  return dumpOneLine(keyToJson(*this, normalizeNumbers(op)));
}

bool TuningKey::sameOpAndTarget(const TuningKey &other) const {
  return arch == other.arch &&
         (smCount == 0 || other.smCount == 0 || smCount == other.smCount) &&
         (device.empty() || other.device.empty() || device == other.device) &&
         canonicalText(op) == canonicalText(other.op);
}

bool TuningKey::sameToolchain(const TuningKey &other) const {
  return cudaVersion == other.cudaVersion &&
         emitterVersion == other.emitterVersion;
}

std::vector<const TuningCandidate *> TuningEntry::ranked() const {
  std::vector<const TuningCandidate *> timed;
  for (const TuningCandidate &c : candidates) {
    std::string invalid;
    if (c.status == RunStatus::Ok && c.correct && c.time &&
        checkTime(*c.time, invalid))
      timed.push_back(&c);
  }
  std::stable_sort(timed.begin(), timed.end(),
                   [](const TuningCandidate *a, const TuningCandidate *b) {
                     return a->time->medianMs < b->time->medianMs;
                   });
  return timed;
}

const TuningCandidate *TuningEntry::best() const {
  const std::vector<const TuningCandidate *> timed = ranked();
  return timed.empty() ? nullptr : timed.front();
}

const TuningEntry *TuningDb::find(const TuningKey &key) const {
  const std::string wanted = key.canonical();
  for (const TuningEntry &e : entries)
    if (e.key.canonical() == wanted)
      return &e;
  return nullptr;
}

void TuningDb::merge(const TuningDb &other) {
  if (&other == this) {
    const TuningDb copy = other;
    mergeEntries(entries, copy.entries);
    return;
  }
  mergeEntries(entries, other.entries);
}

void TuningDb::add(const TuningKey &key, const TuningCandidate &candidate) {
  const std::string wanted = key.canonical();
  for (TuningEntry &e : entries)
    if (e.key.canonical() == wanted) {
      e.candidates.push_back(candidate);
      return;
    }
  entries.push_back(TuningEntry{key, {candidate}});
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

bool checkKey(const TuningKey &key, std::string &err) {
  return checkKeyAt(key, "", err);
}

bool checkCandidate(const TuningCandidate &candidate, std::string &err) {
  return checkCandidateAt(candidate, "", err);
}

bool checkTime(const SampleStats &time, std::string &err) {
  return checkTimeAt(time, "time", err);
}

//===----------------------------------------------------------------------===//
// Grouped GEMM keys
//===----------------------------------------------------------------------===//

int64_t tokensBucket(int64_t tokens) {
  int64_t bucket = 1;
  while (bucket < tokens && bucket < kMaxOpSize)
    bucket *= 2;
  return bucket;
}

bool groupedGemmKeyOp(const json &op, const std::string &role, json &keyOp,
                      std::string &err) {
  if (!op.is_object())
    return typeError("op", "an object", op, err);
  const json *kind = require(op, "op", "kind", err);
  if (!kind)
    return false;
  const bool moe = *kind == "moe";
  if (!moe && *kind != "grouped_gemm")
    return fieldError("op.kind",
                      "expected \"moe\" or \"grouped_gemm\", got " +
                          describe(*kind),
                      err);
  if (moe ? role != "gate_up" && role != "down" : role != "grouped")
    return fieldError("role",
                      "expected " +
                          std::string(moe ? "gate_up or down" : "grouped") +
                          " for a " + kind->get<std::string>() + ", got " +
                          describe(json(role)),
                      err);
  auto size = [&](const char *key, int64_t &out) {
    const json *j = require(op, "op", key, err);
    return j && readInt(*j, fieldPath("op", key), 1, kMaxOpSize, out, err);
  };
  auto copy = [&](const char *from, const char *to) {
    const json *j = require(op, "op", from, err);
    if (j)
      keyOp[to] = *j;
    return j != nullptr;
  };
  keyOp = json::object();
  keyOp["kind"] = "grouped_gemm";
  keyOp["role"] = role;
  int64_t experts = 0, tokens = 0, topK = 1, k = 0, n = 0;
  if (!size("experts", experts) || !copy("activation", "activation") ||
      !copy("dtype", "dtype") || !copy("dtype_out", "dtype_out"))
    return false;
  if (moe) {
    int64_t hidden = 0, inter = 0;
    if (!size("tokens", tokens) || !size("top_k", topK) ||
        !size("hidden", hidden) || !size("inter", inter))
      return false;
    k = role == "gate_up" ? hidden : inter;
    n = role == "gate_up" ? inter : hidden;
  } else {
    if (!size("rows", tokens) || !size("k", k) || !size("n", n))
      return false;
  }
  keyOp["experts"] = experts;
  keyOp["top_k"] = topK;
  keyOp["k"] = k;
  keyOp["n"] = n;
  if (moe) {
    keyOp["gated"] = role == "gate_up";
  } else if (!copy("gated", "gated")) {
    return false;
  }
  keyOp["tokens_bucket"] = tokensBucket(tokens);
  return true;
}

bool tuningRecordOf(const json &op, const json &config, json &keyOp,
                    json &keyConfig, std::string &err) {
  const json *kind = op.is_object() ? member(op, "kind") : nullptr;
  if (!kind || (*kind != "moe" && *kind != "grouped_gemm")) {
    keyOp = op;
    keyConfig = config;
    return true;
  }
  if (*kind == "grouped_gemm") {
    keyConfig = config;
    return groupedGemmKeyOp(op, "grouped", keyOp, err);
  }
  if (!config.is_object())
    return typeError("config", "an object", config, err);
  std::string role;
  if (!readStringField(config, "config", "tuned_role", role, err))
    return false;
  if (role != "gate_up" && role != "down")
    return fieldError("config.tuned_role",
                      "expected gate_up or down, got " + describe(json(role)),
                      err);
  const std::string other = role == "gate_up" ? "down" : "gate_up";
  const json *mine = requireObject(config, "config", role.c_str(), err);
  const json *paired = requireObject(config, "config", other.c_str(), err);
  if (!mine || !paired)
    return false;
  keyConfig = *mine;
  auto text = paired->find("attribute");
  keyConfig["paired_with"] =
      text != paired->end() && text->is_string() ? *text : json();
  auto predicted = paired->find("predicted_ms");
  keyConfig["paired_predicted_ms"] =
      predicted != paired->end() && predicted->is_number() ? *predicted
                                                           : json();
  return groupedGemmKeyOp(op, role, keyOp, err);
}

//===----------------------------------------------------------------------===//
// JSON and files
//===----------------------------------------------------------------------===//

nlohmann::json toJson(const TuningDb &db) {
  json entries = json::array();
  for (const TuningEntry &e : db.entries) {
    json candidates = json::array();
    for (const TuningCandidate &c : e.candidates)
      candidates.push_back(candidateToJson(c));
    entries.push_back(
        {{"key", keyToJson(e.key, e.key.op)}, {"candidates", candidates}});
  }
  return {{"schema", kTuningDbSchema},
          {"version", kTuningDbVersion},
          {"entries", std::move(entries)}};
}

bool fromJson(const nlohmann::json &j, TuningDb &db, std::string &err) {
  if (!j.is_object())
    return typeError("(top level)", "an object", j, err);
  if (!headerFromJson(j, err))
    return false;
  const json *list = require(j, "", "entries", err);
  if (!list)
    return false;
  if (!list->is_array())
    return typeError("entries", "an array", *list, err);
  std::vector<TuningEntry> parsed(list->size());
  for (size_t i = 0; i < list->size(); ++i)
    if (!entryFromJson((*list)[i], indexPath("entries", i), parsed[i], err))
      return false;
  // Entries with equal keys (a hand-merged file) are merged into the first.
  TuningDb result;
  mergeEntries(result.entries, parsed);
  db = std::move(result);
  return true;
}

bool readTuningDb(const std::string &path, TuningDb &db, std::string &err) {
  json j;
  if (!readJson(path, j, err)) // names the file
    return false;
  if (fromJson(j, db, err))
    return true;
  err = path + ": " + err;
  return false;
}

bool writeTuningDb(const std::string &path, const TuningDb &db,
                   std::string &err) {
  const json j = toJson(db);
  // Never write what readTuningDb would refuse (an op that is not an object,
  // a negative SM count, ...): every later reader would skip the file.
  TuningDb check;
  std::string why;
  if (!fromJson(j, check, why)) {
    err = path + ": not written, the database is invalid: " + why;
    return false;
  }
  return writeJsonAtomic(path, j, err);
}

} // namespace kgen::rt
