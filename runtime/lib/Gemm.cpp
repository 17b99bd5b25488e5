//===- Gemm.cpp - the gemm op: signature, tolerances, host mirror ---------===//

#include "kgen/runtime/Gemm.h"

#include "kgen/runtime/Float.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <cmath>
#include <set>

namespace kgen::rt {

namespace {

using json = nlohmann::json;

constexpr double kTolF32 = 1e-4;
constexpr double kTolTf32 = 3e-3;
constexpr double kTol16Bit = 1e-2;
constexpr double kTolFp8 = 5e-2;
constexpr double kTolF16Acc = 5e-2;

bool isGemmOperandType(ElemType t) {
  return t == ElemType::F32 || t == ElemType::F16 || t == ElemType::BF16 ||
         t == ElemType::F8E4M3FN;
}

bool isEpilogueInputType(ElemType t) {
  return t == ElemType::F32 || t == ElemType::F16 || t == ElemType::BF16;
}

bool readInt(const json &op, const char *key, bool required, int64_t &out,
             std::string &err) {
  if (!op.contains(key)) {
    if (required)
      err = std::string("gemm op: missing '") + key + "'";
    return !required;
  }
  const json &v = op[key];
  if (!v.is_number_integer() || v.get<int64_t>() < 1) {
    err = std::string("gemm op: '") + key + "' must be an integer >= 1";
    return false;
  }
  out = v.get<int64_t>();
  return true;
}

bool readBool(const json &op, const char *key, bool &out, std::string &err) {
  if (!op.contains(key) || op[key].is_null())
    return true;
  if (!op[key].is_boolean()) {
    err = std::string("gemm op: '") + key + "' must be true or false";
    return false;
  }
  out = op[key].get<bool>();
  return true;
}

bool readNumber(const json &op, const char *key, double &out,
                std::string &err) {
  if (!op.contains(key) || op[key].is_null())
    return true;
  if (!op[key].is_number()) {
    err = std::string("gemm op: '") + key + "' must be a number";
    return false;
  }
  out = op[key].get<double>();
  return true;
}

/// Reads a dtype field; a missing or null optional field leaves `out` empty.
bool readType(const json &op, const char *key, bool required,
              std::optional<ElemType> &out, std::string &err) {
  out.reset();
  if (!op.contains(key) || op[key].is_null()) {
    if (required)
      err = std::string("gemm op: missing '") + key + "'";
    return !required;
  }
  const std::optional<ElemType> type =
      op[key].is_string() ? parseElemType(op[key].get<std::string>())
                          : std::nullopt;
  if (!type) {
    err = std::string("gemm op: '") + key + "' is not an element type name";
    return false;
  }
  out = type;
  return true;
}

bool readTypes(const json &op, GemmSpec &spec, std::string &err) {
  std::optional<ElemType> a, b, d;
  if (!readType(op, "dtype_a", true, a, err) ||
      !readType(op, "dtype_b", true, b, err) ||
      !readType(op, "dtype_d", true, d, err) ||
      !readType(op, "dtype_bias", false, spec.bias, err) ||
      !readType(op, "dtype_c", false, spec.c, err))
    return false;
  if (*a != *b || !isGemmOperandType(*a)) {
    err = std::string("gemm op: dtype_a ") + elemTypeName(*a) + " and dtype_b " +
          elemTypeName(*b) + " must be one of f32 f16 bf16 f8E4M3FN, equal";
    return false;
  }
  if (!isGemmOperandType(*d)) {
    err = std::string("gemm op: dtype_d ") + elemTypeName(*d) +
          " is not one of f32 f16 bf16 f8E4M3FN";
    return false;
  }
  if ((spec.bias && !isEpilogueInputType(*spec.bias)) ||
      (spec.c && !isEpilogueInputType(*spec.c))) {
    err = "gemm op: dtype_bias and dtype_c must be f32, f16 or bf16";
    return false;
  }
  spec.a = *a;
  spec.b = *b;
  spec.d = *d;
  return true;
}

bool readEpilogue(const json &op, GemmSpec &spec, std::string &err) {
  spec.alpha = 1.0;
  spec.beta = spec.c ? 1.0 : 0.0;
  if (!readNumber(op, "alpha", spec.alpha, err))
    return false;
  if (spec.c && !readNumber(op, "beta", spec.beta, err))
    return false;
  spec.act = Activation::None;
  if (op.contains("activation") && !op["activation"].is_null()) {
    const std::optional<Activation> act =
        op["activation"].is_string()
            ? parseActivation(op["activation"].get<std::string>())
            : std::nullopt;
    if (!act) {
      err = "gemm op: 'activation' must be none, relu, gelu or silu";
      return false;
    }
    spec.act = *act;
  }
  std::optional<ElemType> acc;
  if (!readType(op, "acc_type", false, acc, err))
    return false;
  if (acc && *acc != ElemType::F32 &&
      !(*acc == ElemType::F16 && spec.a == ElemType::F16)) {
    err = "gemm op: acc_type must be f32, or f16 with f16 operands";
    return false;
  }
  spec.accF16 = acc == ElemType::F16;
  return true;
}

/// `a` and `b` equal once leading extents of 1 are dropped ([1,M,K] is
/// [M,K]).
bool sameShape(const std::vector<int64_t> &a, const std::vector<int64_t> &b) {
  auto strip = [](const std::vector<int64_t> &s) {
    auto first = std::find_if(s.begin(), s.end(), [](int64_t d) { return d != 1; });
    return std::vector<int64_t>(first, s.end());
  };
  return strip(a) == strip(b);
}

bool checkTensor(const KernelPackage &pkg, const char *name,
                 const std::vector<int64_t> &shape, ElemType type, bool read,
                 std::string &err) {
  const std::optional<size_t> index = pkg.findParam(name);
  if (!index || pkg.params[*index].kind != ParamKind::Tensor) {
    err = "package " + pkg.name + ": gemm needs a tensor parameter '" + name + "'";
    return false;
  }
  const KernelParam &param = pkg.params[*index];
  if (param.dtype != type || !sameShape(param.shape, shape)) {
    err = "package " + pkg.name + ": parameter '" + name + "' is " +
          elemTypeName(param.dtype) + " " + formatShape(param.shape) +
          ", the op says " + elemTypeName(type) + " " + formatShape(shape);
    return false;
  }
  const bool roleOk =
      param.role == ParamRole::InOut ||
      param.role == (read ? ParamRole::Input : ParamRole::Output);
  if (!roleOk) {
    err = "package " + pkg.name + ": parameter '" + name + "' must be " +
          (read ? "read (input or inout)" : "written (output or inout)");
    return false;
  }
  return true;
}

bool checkAbsent(const KernelPackage &pkg, const char *name, std::string &err) {
  const std::optional<size_t> index = pkg.findParam(name);
  if (index && pkg.params[*index].kind == ParamKind::Tensor) {
    err = "package " + pkg.name + ": tensor parameter '" + name +
          "' but the op has no dtype_" + (std::string(name) == "C" ? "c" : "bias");
    return false;
  }
  return true;
}

uint64_t splitmix64(uint64_t &state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double elementBytes(const std::vector<int64_t> &shape, ElemType type) {
  double count = 1;
  for (int64_t d : shape)
    count *= static_cast<double>(d);
  return count * static_cast<double>(elemTypeBytes(type));
}

} // namespace

const char *activationName(Activation act) {
  switch (act) {
  case Activation::Relu:
    return "relu";
  case Activation::Gelu:
    return "gelu";
  case Activation::Silu:
    return "silu";
  case Activation::None:
    break;
  }
  return "none";
}

std::optional<Activation> parseActivation(const std::string &name) {
  for (Activation act : {Activation::None, Activation::Relu, Activation::Gelu,
                         Activation::Silu})
    if (name == activationName(act))
      return act;
  return std::nullopt;
}

bool parseGemmOp(const json &op, GemmSpec &spec, std::string &err) {
  if (!op.is_object() || !op.contains("kind") || op["kind"] != "gemm") {
    err = "op: not an object of kind \"gemm\"";
    return false;
  }
  spec = GemmSpec{};
  return readInt(op, "batch", false, spec.batch, err) &&
         readInt(op, "m", true, spec.m, err) &&
         readInt(op, "n", true, spec.n, err) &&
         readInt(op, "k", true, spec.k, err) &&
         readBool(op, "transpose_a", spec.transposeA, err) &&
         readBool(op, "transpose_b", spec.transposeB, err) &&
         readBool(op, "batched_b", spec.batchedB, err) &&
         readTypes(op, spec, err) && readEpilogue(op, spec, err);
}

json gemmOpJson(const GemmSpec &spec) {
  auto typeOrNull = [](const std::optional<ElemType> &t) {
    return t ? json(elemTypeName(*t)) : json(nullptr);
  };
  return json{{"kind", "gemm"},
              {"batch", spec.batch},
              {"m", spec.m},
              {"n", spec.n},
              {"k", spec.k},
              {"transpose_a", spec.transposeA},
              {"transpose_b", spec.transposeB},
              {"batched_b", spec.batchedB},
              {"dtype_a", elemTypeName(spec.a)},
              {"dtype_b", elemTypeName(spec.b)},
              {"dtype_d", elemTypeName(spec.d)},
              {"dtype_bias", typeOrNull(spec.bias)},
              {"dtype_c", typeOrNull(spec.c)},
              {"alpha", spec.alpha},
              {"beta", spec.beta},
              {"activation", activationName(spec.act)},
              {"acc_type", spec.accF16 ? "f16" : "f32"}};
}

std::vector<int64_t> gemmShapeA(const GemmSpec &spec) {
  std::vector<int64_t> shape;
  if (spec.batch > 1)
    shape.push_back(spec.batch);
  shape.push_back(spec.transposeA ? spec.k : spec.m);
  shape.push_back(spec.transposeA ? spec.m : spec.k);
  return shape;
}

std::vector<int64_t> gemmShapeB(const GemmSpec &spec) {
  std::vector<int64_t> shape;
  if (spec.batchedB && spec.batch > 1)
    shape.push_back(spec.batch);
  shape.push_back(spec.transposeB ? spec.n : spec.k);
  shape.push_back(spec.transposeB ? spec.k : spec.n);
  return shape;
}

std::vector<int64_t> gemmShapeD(const GemmSpec &spec) {
  std::vector<int64_t> shape;
  if (spec.batch > 1)
    shape.push_back(spec.batch);
  shape.push_back(spec.m);
  shape.push_back(spec.n);
  return shape;
}

std::vector<int64_t> gemmShapeBias(const GemmSpec &spec) { return {spec.n}; }

double gemmFlops(const GemmSpec &spec) {
  return 2.0 * static_cast<double>(spec.batch) * static_cast<double>(spec.m) *
         static_cast<double>(spec.n) * static_cast<double>(spec.k);
}

double gemmBytes(const GemmSpec &spec) {
  double bytes = elementBytes(gemmShapeA(spec), spec.a) +
                 elementBytes(gemmShapeB(spec), spec.b) +
                 elementBytes(gemmShapeD(spec), spec.d);
  if (spec.c)
    bytes += elementBytes(gemmShapeD(spec), *spec.c);
  if (spec.bias)
    bytes += elementBytes(gemmShapeBias(spec), *spec.bias);
  return bytes;
}

bool checkGemmParams(const KernelPackage &pkg, const GemmSpec &spec,
                     std::string &err) {
  if (!checkTensor(pkg, "A", gemmShapeA(spec), spec.a, true, err) ||
      !checkTensor(pkg, "B", gemmShapeB(spec), spec.b, true, err) ||
      !checkTensor(pkg, "D", gemmShapeD(spec), spec.d, false, err))
    return false;
  if (spec.bias ? !checkTensor(pkg, "bias", gemmShapeBias(spec), *spec.bias,
                               true, err)
                : !checkAbsent(pkg, "bias", err))
    return false;
  if (spec.c ? !checkTensor(pkg, "C", gemmShapeD(spec), *spec.c, true, err)
             : !checkAbsent(pkg, "C", err))
    return false;
  return true;
}

bool usesTf32(const GemmSpec &spec, const json &config) {
  if (spec.a != ElemType::F32 || !config.is_object() ||
      !config.contains("instruction") || !config["instruction"].is_string())
    return false;
  const std::string instruction = config["instruction"].get<std::string>();
  return instruction == "mma_sync" || instruction == "wgmma";
}

double gemmTolerance(const GemmSpec &spec, bool tf32) {
  double operands = kTolF32;
  switch (spec.a) {
  case ElemType::F32:
    operands = tf32 ? kTolTf32 : kTolF32;
    break;
  case ElemType::F8E4M3FN:
    operands = kTolFp8;
    break;
  default: // f16, bf16
    operands = kTol16Bit;
    break;
  }
  if (spec.accF16)
    operands = std::max(operands, kTolF16Acc);
  double output = 0;
  if (spec.d == ElemType::F16 || spec.d == ElemType::BF16)
    output = kTol16Bit;
  else if (spec.d == ElemType::F8E4M3FN)
    output = kTolFp8;
  return std::max(operands, output);
}

double activate(Activation act, double x) {
  switch (act) {
  case Activation::Relu:
    return x > 0 ? x : 0.0;
  case Activation::Gelu: {
    const double kSqrt2OverPi = 0.7978845608028654;
    return 0.5 * x * (1.0 + std::tanh(kSqrt2OverPi * (x + 0.044715 * x * x * x)));
  }
  case Activation::Silu:
    return x / (1.0 + std::exp(-x));
  case Activation::None:
    break;
  }
  return x;
}

double gemmEpilogue(const GemmSpec &spec, double acc, double c, double bias) {
  return activate(spec.act, spec.alpha * acc + spec.beta * c + bias);
}

double HostView::at(int64_t i) const {
  return data->getAsDouble((offset + i) % data->numElements());
}

double gemmAccumulator(const GemmSpec &spec, const HostView &a,
                       const HostView &b, int64_t batch, int64_t row,
                       int64_t col) {
  const int64_t M = spec.m, N = spec.n, K = spec.k;
  const int64_t batchB = spec.batchedB ? batch : 0;
  double sum = 0;
  for (int64_t kk = 0; kk < K; ++kk) {
    const int64_t ia = spec.transposeA ? (batch * K + kk) * M + row
                                       : (batch * M + row) * K + kk;
    const int64_t ib = spec.transposeB ? (batchB * N + col) * K + kk
                                       : (batchB * K + kk) * N + col;
    sum += a.at(ia) * b.at(ib);
  }
  return sum;
}

double gemmElement(const GemmSpec &spec, const HostView &a, const HostView &b,
                   const HostView *c, const HostView *bias, int64_t batch,
                   int64_t row, int64_t col) {
  const double acc = gemmAccumulator(spec, a, b, batch, row, col);
  const double cValue =
      c != nullptr ? c->at((batch * spec.m + row) * spec.n + col) : 0.0;
  const double biasValue = bias != nullptr ? bias->at(col) : 0.0;
  return gemmEpilogue(spec, acc, cValue, biasValue);
}

HostTensor gemmExpected(const GemmSpec &spec, const HostView &a,
                        const HostView &b, const HostView *c,
                        const HostView *bias, const std::vector<int64_t> &indices) {
  HostTensor expected =
      makeZeros(spec.d, {static_cast<int64_t>(indices.size())});
  for (size_t j = 0; j < indices.size(); ++j) {
    const int64_t i = indices[j];
    const int64_t col = i % spec.n;
    const int64_t row = (i / spec.n) % spec.m;
    const int64_t batch = i / (spec.n * spec.m);
    expected.setFromDouble(static_cast<int64_t>(j),
                           gemmElement(spec, a, b, c, bias, batch, row, col));
  }
  return expected;
}

std::vector<int64_t> sampleIndices(int64_t elements, int64_t count,
                                   uint64_t seed) {
  std::vector<int64_t> indices;
  if (elements <= count) {
    for (int64_t i = 0; i < elements; ++i)
      indices.push_back(i);
    return indices;
  }
  std::set<int64_t> chosen{0, elements - 1};
  uint64_t state = seed;
  while (static_cast<int64_t>(chosen.size()) < count)
    chosen.insert(static_cast<int64_t>(splitmix64(state) %
                                       static_cast<uint64_t>(elements)));
  return std::vector<int64_t>(chosen.begin(), chosen.end());
}

HostTensor gatherElements(const HostTensor &t, const std::vector<int64_t> &indices) {
  HostTensor out = makeZeros(t.type, {static_cast<int64_t>(indices.size())});
  const size_t bytes = elemTypeBytes(t.type);
  for (size_t j = 0; j < indices.size(); ++j)
    std::memcpy(&out.data[j * bytes],
                &t.data[static_cast<size_t>(indices[j]) * bytes], bytes);
  return out;
}

HostTensor f8ToBf16(const HostTensor &t) {
  std::array<uint16_t, 256> table;
  for (size_t bits = 0; bits < table.size(); ++bits)
    table[bits] = f32ToBf16(f8E4M3FNToF32(static_cast<uint8_t>(bits)));
  HostTensor out = makeZeros(ElemType::BF16, t.shape);
  for (size_t i = 0; i < t.data.size(); ++i)
    std::memcpy(&out.data[2 * i], &table[t.data[i]], 2);
  return out;
}

} // namespace kgen::rt
