//===- OpSignature.h - what the host-mirrored ops share ---------*- C++ -*-===//
//
// Private to the runtime library: the reads of an op object's fields, the
// check of a package's tensor parameters against the op, and the roundings
// of the host references, shared by the ops whose signature lives beside
// their host mirror (Moe.cpp, GroupedGemm.cpp). Messages name the op
// ("moe op: 'experts' must be ...", "package p: moe parameter 'x' is ...").
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_LIB_OPSIGNATURE_H
#define KGEN_RUNTIME_LIB_OPSIGNATURE_H

#include "kgen/runtime/Float.h"
#include "kgen/runtime/HostTensor.h"
#include "kgen/runtime/Package.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace kgen::rt::opsig {

using nlohmann::json;

/// Reads the fields of one op object; every failure is "<op> op: <what>".
struct OpReader {
  const json &op;
  const char *opName; // "moe", "grouped_gemm"
  std::string &err;

  bool fail(const std::string &message) const {
    err = std::string(opName) + " op: " + message;
    return false;
  }

  bool present(const char *key) const {
    return op.contains(key) && !op[key].is_null();
  }

  /// An integer in [lo, hi] (the parser holds non-negative integers as
  /// unsigned).
  bool readInt(const char *key, int64_t lo, int64_t hi, int64_t &out) const {
    const std::string range =
        "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    if (!present(key))
      return fail(std::string("missing '") + key + "' (an integer in " +
                  range + ")");
    const json &v = op[key];
    bool ok = false;
    if (v.is_number_unsigned())
      ok = v.get<uint64_t>() <= static_cast<uint64_t>(hi) &&
           static_cast<int64_t>(v.get<uint64_t>()) >= lo;
    else if (v.is_number_integer())
      ok = v.get<int64_t>() >= lo && v.get<int64_t>() <= hi;
    if (!ok)
      return fail(std::string("'") + key + "' must be an integer in " + range +
                  ", got " + v.dump());
    out = v.get<int64_t>();
    return true;
  }

  /// true or false; `fallback` when absent.
  bool readBool(const char *key, bool fallback, bool &out) const {
    out = fallback;
    if (!present(key))
      return true;
    if (!op[key].is_boolean())
      return fail(std::string("'") + key + "' must be true or false, got " +
                  op[key].dump());
    out = op[key].get<bool>();
    return true;
  }

  /// An element type among `allowed`; `fallback` when absent (nullopt:
  /// required).
  bool readType(const char *key, const std::vector<ElemType> &allowed,
                std::optional<ElemType> fallback, ElemType &out) const {
    std::string names;
    for (ElemType t : allowed)
      names += std::string(names.empty() ? "" : ", ") + "\"" +
               elemTypeName(t) + "\"";
    if (!present(key)) {
      if (!fallback)
        return fail(std::string("missing '") + key + "' (one of " + names +
                    ")");
      out = *fallback;
      return true;
    }
    const std::optional<ElemType> t =
        op[key].is_string() ? parseElemType(op[key].get<std::string>())
                            : std::nullopt;
    if (!t || std::find(allowed.begin(), allowed.end(), *t) == allowed.end())
      return fail(std::string("'") + key + "' must be one of " + names +
                  ", got " + op[key].dump());
    out = *t;
    return true;
  }
};

/// The tensor parameter `name` of `pkg`, of `type`, `role` and `shape`;
/// otherwise "package <p>: <op> ..." in `err`.
inline bool checkTensor(const KernelPackage &pkg, const char *opName,
                        const char *name, ElemType type, ParamRole role,
                        const std::vector<int64_t> &shape, std::string &err) {
  const std::optional<size_t> index = pkg.findParam(name);
  const std::string where = "package " + pkg.name + ": " + opName + " ";
  if (!index || pkg.params[*index].kind != ParamKind::Tensor) {
    err = where + "needs a tensor parameter '" + name + "'";
    return false;
  }
  const KernelParam &p = pkg.params[*index];
  if (p.dtype != type || p.shape != shape) {
    err = where + "parameter '" + name + "' is " + elemTypeName(p.dtype) + " " +
          formatShape(p.shape) + ", the op says " + elemTypeName(type) + " " +
          formatShape(shape);
    return false;
  }
  if (p.role != role) {
    err = where + "parameter '" + name + "' has role " + paramRoleName(p.role) +
          ", expected " + paramRoleName(role);
    return false;
  }
  return true;
}

/// No tensor but the workspaces and `operands` (the op's inputs and
/// outputs); otherwise "package <p>: <op> has a tensor ..." in `err`.
inline bool onlyOperands(const KernelPackage &pkg, const char *opName,
                         const std::vector<const char *> &operands,
                         std::string &err) {
  for (const KernelParam &p : pkg.params) {
    if (p.kind != ParamKind::Tensor || p.role == ParamRole::Workspace ||
        std::any_of(operands.begin(), operands.end(),
                    [&](const char *n) { return p.name == n; }))
      continue;
    std::string names;
    for (const char *n : operands)
      names += std::string(names.empty() ? "" : " ") + n;
    err = "package " + pkg.name + ": " + opName + " has a tensor '" + p.name +
          "' (" + paramRoleName(p.role) + "), not one of " + names;
    return false;
  }
  return true;
}

/// The product of `shape`, as a double (byte counts of huge tensors).
inline double count(const std::vector<int64_t> &shape) {
  double n = 1;
  for (int64_t d : shape)
    n *= static_cast<double>(d);
  return n;
}

/// The unit roundoff of a float type (half its spacing at 1).
inline double unitRoundoff(ElemType t) {
  switch (t) {
  case ElemType::BF16:
    return std::ldexp(1.0, -8);
  case ElemType::F16:
    return std::ldexp(1.0, -11);
  default:
    return std::ldexp(1.0, -24);
  }
}

/// `v` rounded to `t` (bf16, f16 or f32), to nearest even.
inline double roundTo(ElemType t, double v) {
  switch (t) {
  case ElemType::BF16:
    return bf16ToF32(f64ToBf16(v));
  case ElemType::F16:
    return f16ToF32(f64ToF16(v));
  default:
    return static_cast<double>(static_cast<float>(v));
  }
}

/// Elements [offset, offset + n) of `t` into `out`, decoded with one type
/// switch (the references read every weight of an expert per row).
inline void readRow(const HostTensor &t, int64_t offset, int64_t n,
                    double *out) {
  const uint8_t *p = t.data.data() + offset * elemTypeBytes(t.type);
  switch (t.type) {
  case ElemType::BF16:
  case ElemType::F16:
    for (int64_t i = 0; i < n; ++i) {
      uint16_t bits;
      std::memcpy(&bits, p + 2 * i, 2);
      out[i] = t.type == ElemType::BF16 ? bf16ToF32(bits) : f16ToF32(bits);
    }
    return;
  case ElemType::F32:
    for (int64_t i = 0; i < n; ++i) {
      float v;
      std::memcpy(&v, p + 4 * i, 4);
      out[i] = v;
    }
    return;
  default:
    for (int64_t i = 0; i < n; ++i)
      out[i] = t.getAsDouble(offset + i);
  }
}

} // namespace kgen::rt::opsig

#endif // KGEN_RUNTIME_LIB_OPSIGNATURE_H
