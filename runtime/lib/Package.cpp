//===- Package.cpp - kernel packages (manifest.json + .cu) ----------------===//
//
// Format: docs/kernel-package.md. Every message names the manifest (or the
// source file) and the field, on one line.
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/Package.h"

#include "JsonRead.h"
#include "kgen/runtime/Attention.h"
#include "kgen/runtime/GroupedGemm.h"
#include "kgen/runtime/Moe.h"
#include "kgen/runtime/FileUtil.h"
#include "kgen/runtime/JsonLimits.h"
#include "kgen/runtime/Names.h"
#include "kgen/runtime/Sha256.h"

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <set>

#include <fcntl.h>
#include <unistd.h>

namespace kgen::rt {
namespace {

using namespace jsonread;

constexpr const char *kPackageSchema = "kgen.kernel-package";
constexpr const char *kManifestName = "manifest.json";

// CUDA launch limits (CUDA C Programming Guide, compute capability >= 8.0).
constexpr int64_t kMaxGridX = (int64_t{1} << 31) - 1;
constexpr int64_t kMaxGridYZ = 65535;
constexpr int64_t kMaxBlockXY = 1024, kMaxBlockZ = 64, kMaxBlockThreads = 1024;
constexpr int64_t kMaxClusterBlocks = 16; // non-portable maximum (sm_90)
constexpr int64_t kMaxDynamicSmemBytes = 227 * 1024; // sm_90/sm_100 opt-in
constexpr size_t kMaxRank = 8;
constexpr size_t kMaxTmaRank = 5;      // cuTensorMapEncodeTiled
constexpr int64_t kMaxTmaBoxDim = 256; // cuTensorMapEncodeTiled
constexpr int kMaxRegisters = 255;
constexpr int64_t kMaxResourceBytes = int64_t{1} << 40;
constexpr size_t kMaxKernels = 16;
// A CUDA kernel's parameters take at most 32764 bytes (CUDA 12.1+), at
// least 4 each.
constexpr size_t kMaxParams = 1024;

//===----------------------------------------------------------------------===//
// Names and enums
//===----------------------------------------------------------------------===//

const char *const kTensorDtypes[] = {"f32", "f16", "bf16", "f8E4M3FN",
                                     "i32", "i64", "i8"};
const char *const kScalarDtypes[] = {"f32", "i32", "i64"};

template <size_t N>
bool contains(const char *const (&names)[N], const std::string &name) {
  return std::any_of(std::begin(names), std::end(names),
                     [&](const char *n) { return name == n; });
}

template <size_t N> std::string joinNames(const char *const (&names)[N]) {
  std::string out;
  for (const char *n : names)
    out += (out.empty() ? "" : " ") + std::string(n);
  return out;
}

const char *kindName(ParamKind kind) {
  switch (kind) {
  case ParamKind::Tensor:
    return "tensor";
  case ParamKind::Scalar:
    return "scalar";
  case ParamKind::TmaDescriptor:
    return "tma_descriptor";
  }
  return "?";
}

bool isSha256Hex(const std::string &s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c)) ||
                  (c >= 'a' && c <= 'f');
         });
}

/// Why `text` cannot be a package's name (printed in tables and stored in
/// results), or "" when it can: 1 to kMaxPackageNameLength bytes, none of
/// them a control character.
std::string packageNameProblem(const std::string &text) {
  if (text.empty())
    return "is empty";
  if (text.size() > kMaxPackageNameLength)
    return "is longer than " + std::to_string(kMaxPackageNameLength) +
           " bytes";
  for (unsigned char c : text)
    if (c < 0x20 || c == 0x7f)
      return "has a control character (a newline or an escape sequence)";
  return "";
}

//===----------------------------------------------------------------------===//
// Reading the manifest (messages start with the field path)
//===----------------------------------------------------------------------===//

/// Reads the string member `key` of `obj` (at `path`) into `out`.
bool readStringField(const json &obj, const std::string &path,
                     const char *key, std::string &out, std::string &err) {
  const json *j = require(obj, path, key, err);
  return j && readString(*j, fieldPath(path, key), out, err);
}

/// A string field that must be one of `names`.
template <size_t N>
bool readNameField(const json &obj, const std::string &path, const char *key,
                   const char *const (&names)[N], std::string &out,
                   std::string &err) {
  if (!readStringField(obj, path, key, out, err))
    return false;
  if (contains(names, out))
    return true;
  return fieldError(fieldPath(path, key),
                    "unknown value " + describe(json(out)) + " (expected " +
                        joinNames(names) + ")",
                    err);
}

/// launch.<key>: three dimensions, the first in [1, maxX], the others in
/// [1, maxYZ].
bool readDims(const json &launch, const std::string &launchPath,
              const char *key, int64_t maxX, int64_t maxYZ,
              std::array<uint32_t, 3> &out, std::string &err) {
  const std::string path = fieldPath(launchPath, key);
  const json *j = require(launch, launchPath, key, err);
  std::vector<int64_t> dims;
  if (!j || !readIntArray(*j, path, 3, 3, 1, maxX, dims, err))
    return false;
  for (size_t i = 1; i < 3; ++i)
    if (dims[i] > maxYZ)
      return fieldError(indexPath(path, i),
                        "expected an integer in [1, " + std::to_string(maxYZ) +
                            "], got " + std::to_string(dims[i]),
                        err);
  for (size_t i = 0; i < 3; ++i)
    out[i] = static_cast<uint32_t>(dims[i]);
  return true;
}

/// The member "launch" of `parent` (at `parentPath`).
bool readLaunch(const json &parent, const std::string &parentPath,
                LaunchConfig &launch, std::string &err) {
  const std::string path = fieldPath(parentPath, "launch");
  const json *j = require(parent, parentPath, "launch", err);
  if (!j)
    return false;
  if (!j->is_object())
    return typeError(path, "an object", *j, err);
  int64_t smem = 0;
  const json *smemField = require(*j, path, "dynamic_smem_bytes", err);
  if (!readDims(*j, path, "grid", kMaxGridX, kMaxGridYZ, launch.grid, err) ||
      !readDims(*j, path, "block", kMaxBlockXY, kMaxBlockXY, launch.block,
                err) ||
      !readDims(*j, path, "cluster", kMaxClusterBlocks, kMaxClusterBlocks,
                launch.cluster, err) ||
      !smemField ||
      !readInt(*smemField, fieldPath(path, "dynamic_smem_bytes"), 0,
               kMaxDynamicSmemBytes, smem, err))
    return false;
  launch.dynamicSmemBytes = static_cast<uint32_t>(smem);
  const auto &b = launch.block;
  if (b[2] > kMaxBlockZ ||
      int64_t{b[0]} * b[1] * b[2] > kMaxBlockThreads)
    return fieldError(fieldPath(path, "block"),
                      "more than 1024 threads or a z dimension above 64", err);
  const auto &c = launch.cluster;
  if (int64_t{c[0]} * c[1] * c[2] > kMaxClusterBlocks)
    return fieldError(fieldPath(path, "cluster"),
                      "more than 16 blocks in a cluster", err);
  for (size_t i = 0; i < 3; ++i)
    if (launch.grid[i] % c[i] != 0)
      return fieldError(fieldPath(path, "grid"),
                        "dimension " + std::to_string(i) +
                            " is not a multiple of the cluster's",
                        err);
  return true;
}

bool readTensorParam(const json &j, const std::string &path, KernelParam &p,
                     int64_t maxElements, std::string &err) {
  std::string dtype, role;
  const json *shape = require(j, path, "shape", err);
  if (!readNameField(j, path, "dtype", kTensorDtypes, dtype, err) || !shape ||
      !readIntArray(*shape, fieldPath(path, "shape"), 0, kMaxRank,
                    std::numeric_limits<int64_t>::min(),
                    std::numeric_limits<int64_t>::max(), p.shape, err))
    return false;
  int64_t count;
  if (!checkedNumElements(p.shape, maxElements, count, err))
    return fieldError(fieldPath(path, "shape"), err, err);
  const char *const roles[] = {"input", "output", "inout", "workspace"};
  if (!readNameField(j, path, "role", roles, role, err))
    return false;
  p.dtype = *parseElemType(dtype);
  p.role = role == "input"    ? ParamRole::Input
           : role == "output" ? ParamRole::Output
           : role == "inout"  ? ParamRole::InOut
                              : ParamRole::Workspace;
  return true;
}

bool readScalarParam(const json &j, const std::string &path, KernelParam &p,
                     std::string &err) {
  std::string dtype;
  if (!readNameField(j, path, "dtype", kScalarDtypes, dtype, err))
    return false;
  p.dtype = *parseElemType(dtype);
  const json *value = require(j, path, "value", err);
  if (!value)
    return false;
  const std::string valuePath = fieldPath(path, "value");
  if (p.dtype == ElemType::F32) {
    if (!readNumber(*value, valuePath, p.value, err))
      return false;
    if (std::fabs(p.value) > FLT_MAX)
      return fieldError(valuePath, "out of the range of f32", err);
    return true;
  }
  const bool is32 = p.dtype == ElemType::I32;
  int64_t v;
  if (!readInt(*value, valuePath,
               is32 ? INT32_MIN : std::numeric_limits<int64_t>::min(),
               is32 ? INT32_MAX : std::numeric_limits<int64_t>::max(), v, err))
    return false;
  p.value = static_cast<double>(v); // exact up to 2^53
  return true;
}

bool readTmaParam(const json &j, const std::string &path, KernelParam &p,
                  std::string &err) {
  const json *box = require(j, path, "box", err);
  const json *swizzle = require(j, path, "swizzle_bytes", err);
  if (!readStringField(j, path, "tensor", p.tmaTensor, err) || !box ||
      !readIntArray(*box, fieldPath(path, "box"), 1, kMaxTmaRank, 1,
                    kMaxTmaBoxDim, p.tmaBox, err) ||
      !swizzle ||
      !readIntAs(*swizzle, fieldPath(path, "swizzle_bytes"), 0, 128,
                 p.tmaSwizzleBytes, err))
    return false;
  const int s = p.tmaSwizzleBytes;
  if (s != 0 && s != 32 && s != 64 && s != 128)
    return fieldError(fieldPath(path, "swizzle_bytes"),
                      "expected 0, 32, 64 or 128, got " + std::to_string(s),
                      err);
  return true;
}

bool readParam(const json &j, const std::string &path, KernelParam &p,
               int64_t maxElements, std::string &err) {
  if (!j.is_object())
    return typeError(path, "an object", j, err);
  std::string kind;
  const char *const kinds[] = {"tensor", "scalar", "tma_descriptor"};
  if (!readStringField(j, path, "name", p.name, err) ||
      !readNameField(j, path, "kind", kinds, kind, err))
    return false;
  if (const std::string why = identifierProblem(p.name); !why.empty())
    return fieldError(fieldPath(path, "name"),
                      "expected a C identifier, got " + describe(json(p.name)) +
                          ", which " + why,
                      err);
  if (kind == "tensor") {
    p.kind = ParamKind::Tensor;
    return readTensorParam(j, path, p, maxElements, err);
  }
  if (kind == "scalar") {
    p.kind = ParamKind::Scalar;
    return readScalarParam(j, path, p, err);
  }
  p.kind = ParamKind::TmaDescriptor;
  return readTmaParam(j, path, p, err);
}

/// Checks a TMA descriptor against the tensor it names (cuTensorMapEncodeTiled
/// rules for non-interleaved layouts).
bool checkTmaAgainstTensor(const KernelPackage &pkg, const KernelParam &p,
                           const std::string &path, std::string &err) {
  const std::optional<size_t> t = pkg.findParam(p.tmaTensor);
  if (!t || pkg.params[*t].kind != ParamKind::Tensor)
    return fieldError(fieldPath(path, "tensor"),
                      "names no tensor parameter: " +
                          describe(json(p.tmaTensor)),
                      err);
  const KernelParam &tensor = pkg.params[*t];
  if (tensor.shape.size() != p.tmaBox.size())
    return fieldError(fieldPath(path, "box"),
                      "has " + std::to_string(p.tmaBox.size()) +
                          " dimensions but tensor " + tensor.name + " has " +
                          std::to_string(tensor.shape.size()),
                      err);
  const int64_t innerBytes =
      p.tmaBox.back() * static_cast<int64_t>(elemTypeBytes(tensor.dtype));
  if (innerBytes % 16 != 0)
    return fieldError(fieldPath(path, "box"),
                      "innermost extent is " + std::to_string(innerBytes) +
                          " bytes, not a multiple of 16",
                      err);
  if (p.tmaSwizzleBytes != 0 && innerBytes > p.tmaSwizzleBytes)
    return fieldError(fieldPath(path, "box"),
                      "innermost extent of " + std::to_string(innerBytes) +
                          " bytes exceeds swizzle_bytes",
                      err);
  return true;
}

bool readParams(const json &manifest, KernelPackage &pkg, int64_t maxElements,
                std::string &err) {
  const json *j = require(manifest, "", "params", err);
  if (!j)
    return false;
  if (!j->is_array())
    return typeError("params", "an array", *j, err);
  if (j->size() > kMaxParams)
    return fieldError("params",
                      "has " + std::to_string(j->size()) +
                          " parameters, more than the limit of " +
                          std::to_string(kMaxParams),
                      err);
  std::set<std::string> names;
  pkg.params.assign(j->size(), KernelParam());
  for (size_t i = 0; i < j->size(); ++i) {
    const std::string path = indexPath("params", i);
    if (!readParam((*j)[i], path, pkg.params[i], maxElements, err))
      return false;
    if (!names.insert(pkg.params[i].name).second)
      return fieldError(fieldPath(path, "name"),
                        "duplicate parameter name " + pkg.params[i].name, err);
  }
  for (size_t i = 0; i < pkg.params.size(); ++i)
    if (pkg.params[i].kind == ParamKind::TmaDescriptor &&
        !checkTmaAgainstTensor(pkg, pkg.params[i], indexPath("params", i),
                               err))
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// The op signature
//===----------------------------------------------------------------------===//

using ShapeList = std::vector<std::vector<int64_t>>;

/// The tensor parameter `name`, which must exist with `dtype` and one of the
/// shapes `allowed`.
bool checkOperand(const KernelPackage &pkg, const std::string &name,
                  const std::string &dtype,
                  const ShapeList &allowed,
                  std::string &err) {
  const std::optional<size_t> i = pkg.findParam(name);
  if (!i || pkg.params[*i].kind != ParamKind::Tensor)
    return fieldError("params", "op.kind gemm needs a tensor parameter " + name,
                      err);
  const KernelParam &p = pkg.params[*i];
  const std::string path = indexPath("params", *i);
  if (elemTypeName(p.dtype) != dtype)
    return fieldError(fieldPath(path, "dtype"),
                      std::string(elemTypeName(p.dtype)) +
                          " differs from the op's " + dtype,
                      err);
  if (std::find(allowed.begin(), allowed.end(), p.shape) == allowed.end())
    return fieldError(fieldPath(path, "shape"),
                      formatShape(p.shape) + " does not match the op (expected " +
                          formatShape(allowed.front()) + ")",
                      err);
  return true;
}

/// The fields of a gemm signature, as docs/kernel-package.md lists them.
struct GemmSignature {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  bool transposeA = false, transposeB = false, batchedB = false;
  std::string dtypeA, dtypeB, dtypeD, dtypeBias, dtypeC; // "" for null
};

/// An optional dtype field: absent or null (giving ""), or one of
/// kTensorDtypes.
bool readOptionalDtype(const json &op, const char *key, std::string &out,
                       std::string &err) {
  out.clear();
  return isAbsent(op, key) ||
         readNameField(op, "op", key, kTensorDtypes, out, err);
}

bool readGemmSignature(const json &op, GemmSignature &g, std::string &err) {
  const int64_t maxDim = int64_t{1} << 31;
  auto readDim = [&](const char *key, int64_t &out) {
    const json *j = require(op, "op", key, err);
    return j && readInt(*j, fieldPath("op", key), 1, maxDim, out, err);
  };
  auto readFlag = [&](const char *key, bool &out) {
    const json *j = require(op, "op", key, err);
    return j && readBool(*j, fieldPath("op", key), out, err);
  };
  auto readNumberField = [&](const char *key) {
    double unused;
    const json *j = require(op, "op", key, err);
    return j && readNumber(*j, fieldPath("op", key), unused, err);
  };
  std::string activation;
  const char *const activations[] = {"none", "relu", "gelu", "silu"};
  return readDim("batch", g.batch) && readDim("m", g.m) && readDim("n", g.n) &&
         readDim("k", g.k) && readFlag("transpose_a", g.transposeA) &&
         readFlag("transpose_b", g.transposeB) &&
         readFlag("batched_b", g.batchedB) &&
         readNameField(op, "op", "dtype_a", kTensorDtypes, g.dtypeA, err) &&
         readNameField(op, "op", "dtype_b", kTensorDtypes, g.dtypeB, err) &&
         readNameField(op, "op", "dtype_d", kTensorDtypes, g.dtypeD, err) &&
         readOptionalDtype(op, "dtype_bias", g.dtypeBias, err) &&
         readOptionalDtype(op, "dtype_c", g.dtypeC, err) &&
         readNumberField("alpha") && readNumberField("beta") &&
         readNameField(op, "op", "activation", activations, activation, err);
}

/// The shapes a `rows` x `cols` operand may have in a gemm of `batch`
/// problems: [batch, rows, cols], and also [rows, cols] when batch is 1.
ShapeList batchedShapes(int64_t batch, int64_t rows, int64_t cols) {
  if (batch == 1)
    return {{rows, cols}, {1, rows, cols}};
  return {{batch, rows, cols}};
}

/// Checks that A, B, D (and bias, C when the op has them) are tensor
/// parameters whose dtypes and shapes match the gemm signature (shapes as
/// kgen.gemm in docs/Dialect.md defines them).
bool checkGemm(const KernelPackage &pkg, const json &op, std::string &err) {
  GemmSignature g;
  if (!readGemmSignature(op, g, err))
    return false;
  const ShapeList a = g.transposeA ? batchedShapes(g.batch, g.k, g.m)
                                   : batchedShapes(g.batch, g.m, g.k);
  const int64_t bRows = g.transposeB ? g.n : g.k;
  const int64_t bCols = g.transposeB ? g.k : g.n;
  // An unbatched B is broadcast over the batch.
  const ShapeList b = g.batchedB ? batchedShapes(g.batch, bRows, bCols)
                                 : ShapeList{{bRows, bCols}};
  const ShapeList d = batchedShapes(g.batch, g.m, g.n);
  if (!checkOperand(pkg, "A", g.dtypeA, a, err) ||
      !checkOperand(pkg, "B", g.dtypeB, b, err) ||
      !checkOperand(pkg, "D", g.dtypeD, d, err))
    return false;
  if (!g.dtypeBias.empty() &&
      !checkOperand(pkg, "bias", g.dtypeBias, ShapeList{{g.n}}, err))
    return false;
  return g.dtypeC.empty() || checkOperand(pkg, "C", g.dtypeC, d, err);
}

/// Reads the attention signature (Attention.h) and checks the tensor
/// parameters against it: "op: 'head_dim' is 100; ..." or "params: ...".
bool checkAttention(const KernelPackage &pkg, const json &op,
                    std::string &err) {
  AttentionSpec spec;
  if (!parseAttentionOp(op, spec, err)) {
    const std::string prefix = "attention op: ";
    if (err.rfind(prefix, 0) == 0)
      err = "op: " + err.substr(prefix.size());
    return false;
  }
  if (!checkAttentionParams(pkg, spec, err))
    return fieldError("params", err, err);
  return true;
}

/// Reads the grouped_gemm signature (GroupedGemm.h) and checks the tensor
/// parameters against it: "op: 'rows' must be ..." or "params: ...".
bool checkGroupedGemm(const KernelPackage &pkg, const json &op,
                      std::string &err) {
  GroupedGemmSpec spec;
  if (!parseGroupedGemmOp(op, spec, err)) {
    const std::string prefix = "grouped_gemm op: ";
    if (err.rfind(prefix, 0) == 0)
      err = "op: " + err.substr(prefix.size());
    return false;
  }
  if (!checkGroupedGemmParams(pkg, spec, err))
    return fieldError("params", err, err);
  return true;
}

bool readOp(const json &manifest, KernelPackage &pkg, std::string &err) {
  const json *op = require(manifest, "", "op", err);
  if (!op)
    return false;
  if (!op->is_object())
    return typeError("op", "an object", *op, err);
  std::string kind;
  const char *const kinds[] = {"gemm", "attention", "moe", "grouped_gemm"};
  if (!readNameField(*op, "op", "kind", kinds, kind, err))
    return false;
  // A moe op is checked when it is run (parseMoeOp, checkMoeParams).
  if (kind == "gemm" && !checkGemm(pkg, *op, err))
    return false;
  if (kind == "attention" && !checkAttention(pkg, *op, err))
    return false;
  if (kind == "grouped_gemm" && !checkGroupedGemm(pkg, *op, err))
    return false;
  pkg.op = *op;
  return true;
}

//===----------------------------------------------------------------------===//
// The whole manifest
//===----------------------------------------------------------------------===//

bool readHeaderFields(const json &m, KernelPackage &pkg, int64_t &version,
                      std::string &err) {
  std::string schema;
  if (!readStringField(m, "", "schema", schema, err))
    return false;
  if (schema != kPackageSchema)
    return fieldError("schema",
                      "expected \"" + std::string(kPackageSchema) + "\", got " +
                          describe(json(schema)),
                      err);
  const json *versionField = require(m, "", "version", err);
  if (!versionField || !readInt(*versionField, "version", 0,
                                std::numeric_limits<int64_t>::max(), version,
                                err))
    return false;
  if (version != 1 && version != kPackageVersion)
    return fieldError("version",
                      "expected 1 or " + std::to_string(kPackageVersion) +
                          " (what this reader understands), got " +
                          std::to_string(version),
                      err);
  if (!readStringField(m, "", "name", pkg.name, err) ||
      !readStringField(m, "", "source", pkg.sourceFile, err) ||
      !readStringField(m, "", "source_sha256", pkg.sourceSha256, err) ||
      !readStringField(m, "", "target", pkg.target, err))
    return false;
  if (const std::string why = packageNameProblem(pkg.name); !why.empty())
    return fieldError("name", why, err);
  if (const std::string why = fileNameProblem(pkg.sourceFile); !why.empty())
    return fieldError("source",
                      "expected a file name inside the package folder, got " +
                          describe(json(pkg.sourceFile)) + ", which " + why,
                      err);
  if (!isSha256Hex(pkg.sourceSha256))
    return fieldError("source_sha256", "expected 64 lowercase hex digits",
                      err);
  if (!isTargetName(pkg.target))
    return fieldError("target",
                      "expected a real architecture such as sm_80 or sm_90a, "
                      "got " + describe(json(pkg.target)),
                      err);
  return true;
}

bool readWorkFields(const json &m, KernelPackage &pkg, std::string &err) {
  for (auto [key, out] : {std::pair<const char *, double *>{"flops", &pkg.flops},
                          {"bytes", &pkg.bytes}}) {
    const json *j = require(m, "", key, err);
    if (!j || !readNumber(*j, key, *out, err))
      return false;
    if (*out < 0)
      return fieldError(key, "is negative", err);
  }
  pkg.config = isAbsent(m, "config") ? json() : *member(m, "config");
  if (!pkg.config.is_null() && !pkg.config.is_object())
    return typeError("config", "an object or null", pkg.config, err);
  return true;
}

/// The entry, launch and optional resources of one kernel: the members of
/// `obj` (at `path`, "" for a version 1 manifest's top level).
bool readKernelFields(const json &obj, const std::string &path,
                      PackageKernel &kernel, std::string &err) {
  if (!readStringField(obj, path, "entry", kernel.entry, err) ||
      !readLaunch(obj, path, kernel.launch, err))
    return false;
  if (const std::string why = identifierProblem(kernel.entry); !why.empty())
    return fieldError(fieldPath(path, "entry"),
                      "expected a C identifier, got " +
                          describe(json(kernel.entry)) + ", which " + why,
                      err);
  kernel.resources.reset();
  if (isAbsent(obj, "resources"))
    return true;
  ResourceUsage usage;
  if (!fromJson(*member(obj, "resources"), usage, err)) {
    // fromJson's messages start with "resources".
    err = path.empty() ? err : path + "." + err;
    return false;
  }
  kernel.resources = usage;
  return true;
}

/// Version 1: one kernel at the top level taking every parameter in order.
/// Version 2: "kernels", each naming its arguments; every parameter is some
/// kernel's argument and no kernel names one twice.
bool readKernels(const json &m, int64_t version, KernelPackage &pkg,
                 std::string &err) {
  pkg.kernels.clear();
  if (version == 1) {
    PackageKernel kernel;
    if (!readKernelFields(m, "", kernel, err))
      return false;
    for (size_t i = 0; i < pkg.params.size(); ++i)
      kernel.args.push_back(i);
    pkg.kernels.push_back(std::move(kernel));
    return true;
  }
  const json *j = require(m, "", "kernels", err);
  if (!j)
    return false;
  if (!j->is_array() || j->empty() || j->size() > kMaxKernels)
    return typeError("kernels", "an array of 1 to 16 kernels", *j, err);
  std::set<std::string> entries;
  std::vector<bool> used(pkg.params.size(), false);
  for (size_t k = 0; k < j->size(); ++k) {
    const std::string path = indexPath("kernels", k);
    const json &obj = (*j)[k];
    if (!obj.is_object())
      return typeError(path, "an object", obj, err);
    PackageKernel kernel;
    if (!readKernelFields(obj, path, kernel, err))
      return false;
    if (!entries.insert(kernel.entry).second)
      return fieldError(fieldPath(path, "entry"),
                        "duplicate entry " + kernel.entry, err);
    const json *args = require(obj, path, "args", err);
    if (!args)
      return false;
    const std::string argsPath = fieldPath(path, "args");
    if (!args->is_array())
      return typeError(argsPath, "an array of parameter names", *args, err);
    std::set<size_t> seen;
    for (size_t a = 0; a < args->size(); ++a) {
      std::string name;
      if (!readString((*args)[a], indexPath(argsPath, a), name, err))
        return false;
      const std::optional<size_t> index = pkg.findParam(name);
      if (!index)
        return fieldError(indexPath(argsPath, a),
                          "names no parameter: " + describe(json(name)), err);
      if (!seen.insert(*index).second)
        return fieldError(indexPath(argsPath, a),
                          "passes " + name + " twice", err);
      kernel.args.push_back(*index);
      used[*index] = true;
    }
    pkg.kernels.push_back(std::move(kernel));
  }
  for (size_t i = 0; i < used.size(); ++i)
    if (!used[i])
      return fieldError(indexPath("params", i),
                        pkg.params[i].name + " is no kernel's argument", err);
  return true;
}

/// Fills everything but dir and source from a parsed manifest.
bool readManifest(const json &m, KernelPackage &pkg, int64_t maxElements,
                  std::string &err) {
  if (!m.is_object())
    return typeError("(top level)", "an object", m, err);
  int64_t version = 0;
  return readHeaderFields(m, pkg, version, err) &&
         readParams(m, pkg, maxElements, err) &&
         readKernels(m, version, pkg, err) && readOp(m, pkg, err) &&
         readWorkFields(m, pkg, err);
}

std::string joinFile(const std::string &dir, const std::string &name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

json paramToJson(const KernelParam &p) {
  json j = {{"name", p.name}, {"kind", kindName(p.kind)}};
  switch (p.kind) {
  case ParamKind::Tensor:
    j["dtype"] = elemTypeName(p.dtype);
    j["shape"] = p.shape;
    j["role"] = paramRoleName(p.role);
    break;
  case ParamKind::Scalar:
    j["dtype"] = elemTypeName(p.dtype);
    if (p.dtype == ElemType::F32)
      j["value"] = p.value;
    else
      j["value"] = static_cast<int64_t>(p.value);
    break;
  case ParamKind::TmaDescriptor:
    j["tensor"] = p.tmaTensor;
    j["box"] = p.tmaBox;
    j["swizzle_bytes"] = p.tmaSwizzleBytes;
    break;
  }
  return j;
}

json kernelToJson(const KernelPackage &pkg, const PackageKernel &kernel) {
  const LaunchConfig &l = kernel.launch;
  json args = json::array();
  for (size_t i : kernel.args)
    args.push_back(i < pkg.params.size() ? pkg.params[i].name : "?");
  json j = {{"entry", kernel.entry},
            {"launch",
             {{"grid", l.grid},
              {"block", l.block},
              {"cluster", l.cluster},
              {"dynamic_smem_bytes", l.dynamicSmemBytes}}},
            {"args", std::move(args)}};
  if (kernel.resources)
    j["resources"] = toJson(*kernel.resources);
  return j;
}

json manifestToJson(const KernelPackage &pkg, const std::string &sha256) {
  json params = json::array();
  for (const KernelParam &p : pkg.params)
    params.push_back(paramToJson(p));
  json kernels = json::array();
  for (const PackageKernel &kernel : pkg.kernels)
    kernels.push_back(kernelToJson(pkg, kernel));
  json m = {
      {"schema", kPackageSchema},
      {"version", kPackageVersion},
      {"name", pkg.name},
      {"source", pkg.sourceFile},
      {"source_sha256", sha256},
      {"target", pkg.target},
      {"kernels", std::move(kernels)},
      {"params", std::move(params)},
      {"op", pkg.op},
      {"config", pkg.config},
      {"flops", pkg.flops},
      {"bytes", pkg.bytes},
  };
  return m;
}

} // namespace

bool isTargetName(const std::string &s) {
  if (s.rfind("sm_", 0) != 0)
    return false;
  size_t end = s.size();
  if (s.back() == 'a' || s.back() == 'f')
    --end;
  const size_t digits = end > 3 ? end - 3 : 0;
  return digits >= 2 && digits <= 3 &&
         std::all_of(s.begin() + 3, s.begin() + end, [](char c) {
           return c >= '0' && c <= '9';
         });
}

const char *paramRoleName(ParamRole role) {
  switch (role) {
  case ParamRole::Input:
    return "input";
  case ParamRole::Output:
    return "output";
  case ParamRole::InOut:
    return "inout";
  case ParamRole::Workspace:
    return "workspace";
  }
  return "?";
}

std::optional<size_t> KernelPackage::findParam(const std::string &name) const {
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].name == name)
      return i;
  return std::nullopt;
}

bool loadPackage(const std::string &dir, KernelPackage &out, std::string &err,
                 int64_t maxElements) {
  const std::string manifestPath = joinFile(dir, kManifestName);
  std::string text;
  json manifest;
  KernelPackage pkg;
  // Neither file may be a symbolic link: a package is data from anywhere,
  // and a link would make NVRTC compile (and its log, the cache and the
  // results quote) a file outside it.
  if (!readWholeFile(manifestPath, text, err, kMaxManifestBytes,
                     Symlinks::Refuse) ||
      !parseJsonText(text, manifest, err) ||
      !readManifest(manifest, pkg, maxElements, err)) {
    err = manifestPath + ": " + err;
    return false;
  }
  const std::string sourcePath = joinFile(dir, pkg.sourceFile);
  if (!readWholeFile(sourcePath, pkg.source, err, kMaxSourceBytes,
                     Symlinks::Refuse)) {
    err = sourcePath + ": " + err + " (the manifest's \"source\")";
    return false;
  }
  if (const size_t nul = pkg.source.find('\0'); nul != std::string::npos) {
    err = sourcePath + ": has a NUL byte at offset " + std::to_string(nul) +
          " (NVRTC would compile only the text before it)";
    return false;
  }
  const std::string actual = sha256Hex(pkg.source);
  if (actual != pkg.sourceSha256) {
    err = manifestPath + ": source_sha256: " + pkg.sourceFile + " hashes to " +
          actual + ", not " + pkg.sourceSha256 + " (stale or edited package)";
    return false;
  }
  pkg.dir = dir;
  out = std::move(pkg);
  return true;
}

namespace {

/// Writes `text` to the new file `name` in the temporary folder `tmp`
/// (registered with it, so that an interrupt removes it) and syncs it.
bool writeNewFile(Temporary &tmp, const std::string &name,
                  std::string_view text, std::string &err) {
  const std::string path = joinFile(tmp.path(), name);
  UniqueFd fd(::open(path.c_str(),
                     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                     0644));
  if (fd.get() >= 0)
    tmp.adoptFile(path);
  if (fd.get() < 0 || !writeFully(fd.get(), text.data(), text.size()) ||
      ::fsync(fd.get()) != 0 || !fd.close()) {
    err = "cannot write " + path + ": " + errnoText();
    return false;
  }
  return true;
}

/// True when `dir` holds nothing but a package's files (manifest.json and
/// `sourceFile`) and temporaries: then a new package may replace the whole
/// folder. Anything else in it (other files, folders) would be lost.
bool holdsOnlyPackageFiles(const std::string &dir,
                           const std::string &sourceFile) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name != kManifestName && name != sourceFile &&
        name.find(".tmp.") == std::string::npos)
      return false;
  }
  return !ec;
}

/// Writes the package's two files, each atomically, into the existing
/// folder `dir` (source first, so a manifest never names a missing source;
/// an interruption between them leaves a package whose hash check fails).
bool writeInPlace(const std::string &dir, const KernelPackage &pkg,
                  std::string_view manifestText, std::string &err) {
  const std::string sourcePath = joinFile(dir, pkg.sourceFile);
  if (!writeFileAtomic(sourcePath, {pkg.source}, err)) {
    err = sourcePath + ": " + err;
    return false;
  }
  const std::string manifestPath = joinFile(dir, kManifestName);
  if (!writeFileAtomic(manifestPath, {manifestText}, err)) {
    err = manifestPath + ": " + err;
    return false;
  }
  return true;
}

} // namespace

bool writePackage(const std::string &dir, const KernelPackage &pkg,
                  std::string &err) {
  const std::string manifestPath = joinFile(dir, kManifestName);
  const json manifest = manifestToJson(pkg, sha256Hex(pkg.source));
  KernelPackage check;
  if (!readManifest(manifest, check, std::numeric_limits<int64_t>::max(),
                    err)) {
    err = manifestPath + ": refusing to write an invalid manifest: " + err;
    return false;
  }
  if (pkg.source.find('\0') != std::string::npos) {
    err = joinFile(dir, pkg.sourceFile) +
          ": refusing to write a source with a NUL byte";
    return false;
  }
  const std::string text = manifest.dump(2, ' ', false,
                                         json::error_handler_t::replace) + "\n";
  // The folder without trailing slashes: the name the temporary folder is
  // a sibling of.
  std::string target = dir;
  while (target.size() > 1 && target.back() == '/')
    target.pop_back();
  std::error_code ec;
  const std::filesystem::path parent =
      std::filesystem::path(target).parent_path();
  if (!parent.empty())
    std::filesystem::create_directories(parent, ec);
  if (ec) {
    err = dir + ": cannot create the package folder: " + ec.message();
    return false;
  }
  const std::filesystem::file_status status =
      std::filesystem::symlink_status(target, ec);
  if (std::filesystem::exists(status)) {
    if (!std::filesystem::is_directory(status)) {
      err = dir + ": exists and is not a folder (a symbolic link or a file)";
      return false;
    }
    if (!holdsOnlyPackageFiles(target, pkg.sourceFile))
      return writeInPlace(target, pkg, text, err);
  }
  // A whole new folder, renamed into place (or exchanged with the old
  // package's): readers, and an interruption, see the old package or the
  // new one.
  Temporary tmp;
  if (!tmp.createDirectory(target, err)) {
    err = dir + ": " + err;
    return false;
  }
  if (!writeNewFile(tmp, pkg.sourceFile, pkg.source, err) ||
      !writeNewFile(tmp, kManifestName, text, err) ||
      !tmp.commit(target, err)) {
    err = dir + ": " + err;
    return false;
  }
  return true;
}

HostTensor makePackageInput(const KernelPackage &pkg, const KernelParam &param,
                            uint64_t runSeed) {
  const uint64_t seed = packageInputSeed(runSeed, param.name);
  AttentionSpec spec;
  MoeSpec moe;
  std::string err;
  const std::string kind =
      pkg.op.is_object() ? pkg.op.value("kind", std::string()) : "";
  if (kind == "attention" && parseAttentionOp(pkg.op, spec, err))
    if (std::optional<HostTensor> t = attentionInput(spec, param, runSeed))
      return *t;
  if (kind == "moe" && parseMoeOp(pkg.op, moe, err))
    if (std::optional<HostTensor> t = moeInput(moe, param, seed))
      return *t;
  GroupedGemmSpec grouped;
  if (kind == "grouped_gemm" && parseGroupedGemmOp(pkg.op, grouped, err))
    if (std::optional<HostTensor> t = groupedGemmInput(grouped, param, seed))
      return *t;
  return makeRandom(param.dtype, param.shape, seed);
}

ResourceUsage worstOf(const std::vector<ResourceUsage> &usages) {
  ResourceUsage w;
  for (const ResourceUsage &u : usages) {
    w.registers = std::max(w.registers, u.registers);
    w.sharedBytes = std::max(w.sharedBytes, u.sharedBytes);
    w.stackBytes = std::max(w.stackBytes, u.stackBytes);
    w.constantBytes = std::max(w.constantBytes, u.constantBytes);
    w.spillStoreBytes += u.spillStoreBytes;
    w.spillLoadBytes += u.spillLoadBytes;
  }
  return w;
}

json toJson(const ResourceUsage &usage) {
  return {{"registers", usage.registers},
          {"shared_bytes", usage.sharedBytes},
          {"stack_bytes", usage.stackBytes},
          {"spill_store_bytes", usage.spillStoreBytes},
          {"spill_load_bytes", usage.spillLoadBytes},
          {"constant_bytes", usage.constantBytes}};
}

bool fromJson(const json &j, ResourceUsage &usage, std::string &err) {
  // Messages name the fields under "resources", the key this object has in
  // manifests and results.
  const std::string path = "resources";
  if (!j.is_object())
    return typeError(path, "an object", j, err);
  ResourceUsage u;
  const std::pair<const char *, int64_t *> bytes[] = {
      {"shared_bytes", &u.sharedBytes},
      {"stack_bytes", &u.stackBytes},
      {"spill_store_bytes", &u.spillStoreBytes},
      {"spill_load_bytes", &u.spillLoadBytes}};
  const json *registers = require(j, path, "registers", err);
  if (!registers || !readIntAs(*registers, fieldPath(path, "registers"), 0,
                               kMaxRegisters, u.registers, err))
    return false;
  for (const auto &[key, out] : bytes) {
    const json *field = require(j, path, key, err);
    if (!field || !readInt(*field, fieldPath(path, key), 0, kMaxResourceBytes,
                           *out, err))
      return false;
  }
  // Optional: the documented manifest example leaves it out.
  if (!isAbsent(j, "constant_bytes") &&
      !readInt(*member(j, "constant_bytes"), fieldPath(path, "constant_bytes"),
               0, kMaxResourceBytes, u.constantBytes, err))
    return false;
  usage = u;
  return true;
}

} // namespace kgen::rt
