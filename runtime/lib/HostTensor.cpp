//===- HostTensor.cpp - Dense tensors in host memory ----------------------===//

#include "kgen/runtime/HostTensor.h"

#include "kgen/runtime/Float.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

// Elements are stored little-endian and accessed with memcpy.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "kgen runtime assumes a little-endian host");

namespace kgen::rt {
namespace {

struct ElemTypeInfo {
  ElemType type;
  const char *name;
  size_t bytes;
};

constexpr std::array<ElemTypeInfo, 10> kElemTypes{{
    {ElemType::F32, "f32", 4},
    {ElemType::F16, "f16", 2},
    {ElemType::BF16, "bf16", 2},
    {ElemType::F8E4M3FN, "f8E4M3FN", 1},
    {ElemType::F64, "f64", 8},
    {ElemType::I64, "i64", 8},
    {ElemType::I32, "i32", 4},
    {ElemType::I16, "i16", 2},
    {ElemType::I8, "i8", 1},
    {ElemType::I1, "i1", 1},
}};

const ElemTypeInfo &info(ElemType type) {
  return kElemTypes[static_cast<size_t>(type)];
}

/// Inclusive range of an integer element type.
struct IntRange {
  int64_t min;
  int64_t max;
};

template <typename T> constexpr IntRange rangeOf() {
  return {std::numeric_limits<T>::min(), std::numeric_limits<T>::max()};
}

/// Precondition: !isFloat(type).
IntRange intRange(ElemType type) {
  switch (type) {
  case ElemType::I64:
    return rangeOf<int64_t>();
  case ElemType::I32:
    return rangeOf<int32_t>();
  case ElemType::I16:
    return rangeOf<int16_t>();
  case ElemType::I8:
    return rangeOf<int8_t>();
  default: // I1
    return {0, 1};
  }
}

/// Rounds `v` to the nearest integer, ties to even, saturating to `range`;
/// NaN gives 0. Exact: v - floor(v) is exact in double.
int64_t roundToInt(double v, IntRange range) {
  if (std::isnan(v))
    return 0;
  if (v <= static_cast<double>(range.min))
    return range.min;
  // For I64, double(max) is 2^63, so every v below it converts safely.
  if (v >= static_cast<double>(range.max))
    return range.max;
  double r = std::floor(v);
  const double fraction = v - r;
  if (fraction > 0.5 || (fraction == 0.5 && std::fmod(r, 2.0) != 0))
    r += 1;
  return static_cast<int64_t>(r);
}

template <typename T> T load(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename T> void store(uint8_t *p, T v) {
  std::memcpy(p, &v, sizeof v);
}

/// Stores integer `v` into element `i`. Precondition: `v` lies in the range
/// of the (integer) element type, and 0 <= i < t.numElements().
void storeInt(HostTensor &t, int64_t i, int64_t v) {
  uint8_t *p = t.data.data() + i * elemTypeBytes(t.type);
  switch (t.type) {
  case ElemType::I64:
    return store<int64_t>(p, v);
  case ElemType::I32:
    return store<int32_t>(p, static_cast<int32_t>(v));
  case ElemType::I16:
    return store<int16_t>(p, static_cast<int16_t>(v));
  default: // I8, I1
    return store<int8_t>(p, static_cast<int8_t>(v));
  }
}

/// splitmix64 (Steele, Lea, Flood 2014), fully specified by its seed.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

private:
  uint64_t state;
};

/// Uniform in [-1, 1) on the grid of multiples of 2^-52.
double uniformSigned(SplitMix64 &rng) {
  return static_cast<double>(rng.next() >> 11) * 0x1.0p-52 - 1.0;
}

void fillRandomFloats(HostTensor &t, SplitMix64 &rng) {
  const int64_t n = t.numElements();
  bool anyNonZero = false;
  for (int64_t i = 0; i < n; ++i) {
    t.setFromDouble(i, uniformSigned(rng));
    anyNonZero = anyNonZero || t.getAsDouble(i) != 0;
  }
  if (n > 0 && !anyNonZero)
    t.setFromDouble(0, 0.5);
}

void fillRandomInts(HostTensor &t, SplitMix64 &rng, int64_t lo, int64_t hi) {
  const IntRange range = intRange(t.type);
  const int64_t n = t.numElements();
  const int64_t first = std::max(lo, range.min);
  if (hi <= first || std::min(hi - 1, range.max) < first) {
    const int64_t saturatedLo = std::clamp(lo, range.min, range.max);
    for (int64_t i = 0; i < n; ++i)
      storeInt(t, i, saturatedLo);
    return;
  }
  const int64_t last = std::min(hi - 1, range.max);
  // Count of values in [first, last]: at most 2^64 - 1, as hi is exclusive.
  const uint64_t span =
      static_cast<uint64_t>(last) - static_cast<uint64_t>(first) + 1;
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t offset = rng.next() % span;
    storeInt(t, i, static_cast<int64_t>(static_cast<uint64_t>(first) + offset));
  }
}

/// Frobenius norm accumulated with scaling (as LAPACK's dnrm2), so that
/// squares of large values do not overflow.
class NormAccumulator {
public:
  void add(double x) {
    const double a = std::fabs(x);
    if (std::isinf(a)) {
      infinite = true;
    } else if (a > scale) {
      ssq = 1 + ssq * (scale / a) * (scale / a);
      scale = a;
    } else if (a > 0) {
      ssq += (a / scale) * (a / scale);
    }
  }
  double value() const {
    return infinite ? std::numeric_limits<double>::infinity()
                    : scale * std::sqrt(ssq);
  }

private:
  double scale = 0;
  double ssq = 1;
  bool infinite = false;
};

} // namespace

const char *elemTypeName(ElemType type) { return info(type).name; }

std::optional<ElemType> parseElemType(std::string_view name) {
  for (const ElemTypeInfo &entry : kElemTypes)
    if (name == entry.name)
      return entry.type;
  return std::nullopt;
}

const char *cudaTypeName(ElemType type) {
  switch (type) {
  case ElemType::F32:
    return "float";
  case ElemType::F16:
    return "__half";
  case ElemType::BF16:
    return "__nv_bfloat16";
  case ElemType::F8E4M3FN:
    return "__nv_fp8_e4m3";
  case ElemType::F64:
    return "double";
  case ElemType::I64:
    return "long long";
  case ElemType::I32:
    return "int";
  case ElemType::I16:
    return "short";
  case ElemType::I8:
    return "signed char";
  case ElemType::I1:
    return "bool";
  }
  return "float";
}

size_t elemTypeBytes(ElemType type) { return info(type).bytes; }

bool isFloat(ElemType type) {
  switch (type) {
  case ElemType::F32:
  case ElemType::F16:
  case ElemType::BF16:
  case ElemType::F8E4M3FN:
  case ElemType::F64:
    return true;
  default:
    return false;
  }
}

std::string formatShape(const std::vector<int64_t> &shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0)
      s += 'x';
    s += std::to_string(shape[i]);
  }
  return s;
}

bool checkedNumElements(const std::vector<int64_t> &shape, int64_t maxElements,
                        int64_t &out, std::string &err) {
  for (int64_t dim : shape) {
    if (dim < 0) {
      err = "tensor of shape " + formatShape(shape) +
            " has a negative dimension " + std::to_string(dim);
      return false;
    }
  }
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) {
    out = 0;
    return true;
  }
  const std::string tooLarge = "tensor of shape " + formatShape(shape) +
                               " has more than the limit of " +
                               std::to_string(maxElements) + " elements";
  int64_t total = 1;
  for (int64_t dim : shape) {
    if (total > maxElements / dim) {
      err = tooLarge;
      return false;
    }
    total *= dim;
  }
  if (total > maxElements) { // a scalar against a limit of 0
    err = tooLarge;
    return false;
  }
  out = total;
  return true;
}

int64_t HostTensor::numElements() const {
  int64_t n = 1;
  for (int64_t dim : shape)
    n *= dim;
  return n;
}

double HostTensor::getAsDouble(int64_t i) const {
  const uint8_t *p = data.data() + i * elemTypeBytes(type);
  switch (type) {
  case ElemType::F32:
    return load<float>(p);
  case ElemType::F16:
    return f16ToF32(load<uint16_t>(p));
  case ElemType::BF16:
    return bf16ToF32(load<uint16_t>(p));
  case ElemType::F8E4M3FN:
    return f8E4M3FNToF32(*p);
  case ElemType::F64:
    return load<double>(p);
  case ElemType::I64:
    return static_cast<double>(load<int64_t>(p));
  case ElemType::I32:
    return load<int32_t>(p);
  case ElemType::I16:
    return load<int16_t>(p);
  case ElemType::I8:
    return load<int8_t>(p);
  case ElemType::I1:
    return *p != 0 ? 1.0 : 0.0;
  }
  return 0; // not reached: the switch covers every ElemType
}

void HostTensor::setFromDouble(int64_t i, double v) {
  uint8_t *p = data.data() + i * elemTypeBytes(type);
  switch (type) {
  case ElemType::F32:
    return store<float>(p, static_cast<float>(v)); // rounds to nearest even
  case ElemType::F16:
    return store<uint16_t>(p, f64ToF16(v));
  case ElemType::BF16:
    return store<uint16_t>(p, f64ToBf16(v));
  case ElemType::F8E4M3FN:
    return store<uint8_t>(p, f64ToF8E4M3FN(v));
  case ElemType::F64:
    return store<double>(p, v);
  default:
    return storeInt(*this, i, roundToInt(v, intRange(type)));
  }
}

HostTensor makeZeros(ElemType type, std::vector<int64_t> shape) {
  HostTensor t;
  t.type = type;
  t.shape = std::move(shape);
  t.data.assign(static_cast<size_t>(t.numElements()) * elemTypeBytes(type), 0);
  return t;
}

HostTensor makeRandom(ElemType type, std::vector<int64_t> shape, uint64_t seed,
                      int64_t lo, int64_t hi) {
  HostTensor t = makeZeros(type, std::move(shape));
  SplitMix64 rng(seed);
  if (isFloat(type))
    fillRandomFloats(t, rng);
  else
    fillRandomInts(t, rng, lo, hi);
  return t;
}

bool compare(const HostTensor &got, const HostTensor &ref, CompareStats &stats,
             std::string &err) {
  if (got.shape != ref.shape) {
    err = "result shape " + formatShape(got.shape) +
          " does not match reference shape " + formatShape(ref.shape);
    return false;
  }
  stats = CompareStats{};
  stats.count = ref.numElements();
  NormAccumulator diffNorm, refNorm;
  for (int64_t i = 0; i < stats.count; ++i) {
    const double g = got.getAsDouble(i);
    const double r = ref.getAsDouble(i);
    // Non-finite values match only themselves (NaN matches NaN, +inf +inf)
    // and stay out of the norms, where one infinity would hide every error.
    if (!std::isfinite(g) || !std::isfinite(r)) {
      bool same = (std::isnan(g) && std::isnan(r)) || g == r;
      stats.nonFiniteMismatches += !same;
      continue;
    }
    const double diff = g == r ? 0.0 : std::fabs(g - r);
    stats.maxAbsErr = std::max(stats.maxAbsErr, diff);
    diffNorm.add(diff);
    refNorm.add(r);
  }
  if (stats.nonFiniteMismatches > 0)
    stats.relFrobErr = std::numeric_limits<double>::infinity();
  else if (refNorm.value() == 0)
    stats.relFrobErr = diffNorm.value();
  else
    stats.relFrobErr = diffNorm.value() / refNorm.value();
  return true;
}

} // namespace kgen::rt
