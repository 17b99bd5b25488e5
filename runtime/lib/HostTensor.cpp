//===- HostTensor.cpp - Dense tensors in host memory ----------------------===//

#include "kgen/runtime/HostTensor.h"

#include "kgen/runtime/Float.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>
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

/// splitmix64 (Steele, Lea, Flood 2014), fully specified by its seed. Draw
/// i is a function of seed + (i + 1) * gamma: a stream can start anywhere,
/// so a tensor is filled in parallel chunks with the same bytes.
class SplitMix64 {
public:
  static constexpr uint64_t kGamma = 0x9E3779B97F4A7C15ull;
  explicit SplitMix64(uint64_t seed) : state(seed) {}
  /// The stream of `seed` from draw `index` on.
  static SplitMix64 at(uint64_t seed, int64_t index) {
    return SplitMix64(seed + static_cast<uint64_t>(index) * kGamma);
  }
  uint64_t next() {
    uint64_t z = (state += kGamma);
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

/// Runs body(begin, end) over [0, n) in chunks on up to the hardware's
/// threads; small ranges run on the caller's thread.
void forChunks(int64_t n, const std::function<void(int64_t, int64_t)> &body) {
  constexpr int64_t kMinChunk = int64_t{1} << 20;
  const int64_t threads = std::clamp<int64_t>(
      n / kMinChunk, 1, std::max(1u, std::thread::hardware_concurrency()));
  if (threads == 1) {
    body(0, n);
    return;
  }
  std::vector<std::thread> pool;
  const int64_t chunk = (n + threads - 1) / threads;
  for (int64_t begin = 0; begin < n; begin += chunk)
    pool.emplace_back(body, begin, std::min(n, begin + chunk));
  for (std::thread &t : pool)
    t.join();
}

/// Stores the stream's uniformSigned draws, rounded to t's float type, with
/// one type dispatch per tensor and in parallel chunks (the operands of a
/// benchmark have 10^8 elements). True when an element is not +-0.
template <typename Bits, Bits (*Round)(double)>
bool fillRounded(HostTensor &t, uint64_t seed, Bits magnitudeMask) {
  std::atomic<bool> anyNonZero{false};
  uint8_t *p = t.data.data();
  forChunks(t.numElements(), [&](int64_t begin, int64_t end) {
    SplitMix64 rng = SplitMix64::at(seed, begin);
    bool nonZero = false;
    for (int64_t i = begin; i < end; ++i) {
      const Bits bits = Round(uniformSigned(rng));
      std::memcpy(p + i * static_cast<int64_t>(sizeof(Bits)), &bits, sizeof(Bits));
      nonZero = nonZero || (bits & magnitudeMask) != 0;
    }
    if (nonZero)
      anyNonZero = true;
  });
  return anyNonZero;
}

uint32_t f64ToF32Bits(double x) {
  const float f = static_cast<float>(x); // rounds to nearest even
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

uint64_t f64Bits(double x) {
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof(bits));
  return bits;
}

void fillRandomFloats(HostTensor &t, uint64_t seed) {
  bool anyNonZero = false;
  switch (t.type) {
  case ElemType::F32:
    anyNonZero = fillRounded<uint32_t, f64ToF32Bits>(t, seed, 0x7FFFFFFFu);
    break;
  case ElemType::F16:
    anyNonZero = fillRounded<uint16_t, f64ToF16>(t, seed, 0x7FFF);
    break;
  case ElemType::BF16:
    anyNonZero = fillRounded<uint16_t, f64ToBf16>(t, seed, 0x7FFF);
    break;
  case ElemType::F8E4M3FN:
    anyNonZero = fillRounded<uint8_t, f64ToF8E4M3FN>(t, seed, 0x7F);
    break;
  case ElemType::F64:
    anyNonZero = fillRounded<uint64_t, f64Bits>(t, seed, ~(uint64_t{1} << 63));
    break;
  default:
    return; // not reached: called for float types only
  }
  if (t.numElements() > 0 && !anyNonZero)
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
  /// Adds the squares `other` holds, on the larger of the two scales.
  void merge(const NormAccumulator &other) {
    infinite = infinite || other.infinite;
    if (other.scale == 0)
      return;
    if (other.scale > scale) {
      ssq = other.ssq + (scale == 0 ? 0 : ssq * (scale / other.scale) *
                                              (scale / other.scale));
      scale = other.scale;
    } else {
      ssq += other.ssq * (other.scale / scale) * (other.scale / scale);
    }
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
  // An empty tensor first: its other dimensions may multiply past int64_t
  // (checkedNumElements accepts any shape with a 0 in it).
  if (std::find(shape.begin(), shape.end(), 0) != shape.end())
    return 0;
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

uint64_t mixSeed(uint64_t seed, uint64_t salt) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ull * (salt + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t packageInputSeed(uint64_t runSeed, const std::string &paramName) {
  uint64_t h = 0xcbf29ce484222325ull; // FNV-1a
  for (unsigned char c : paramName)
    h = (h ^ c) * 0x100000001b3ull;
  return mixSeed(runSeed, h);
}

HostTensor makeRandom(ElemType type, std::vector<int64_t> shape, uint64_t seed,
                      int64_t lo, int64_t hi) {
  HostTensor t = makeZeros(type, std::move(shape));
  if (isFloat(type)) {
    fillRandomFloats(t, seed);
  } else {
    SplitMix64 rng(seed);
    fillRandomInts(t, rng, lo, hi);
  }
  return t;
}

namespace {

/// Elements [begin, begin + n) of `t` as doubles (getAsDouble's values),
/// with one type dispatch for the range.
void decodeRange(const HostTensor &t, int64_t begin, int64_t n, double *out) {
  const uint8_t *p = t.data.data() + begin * static_cast<int64_t>(elemTypeBytes(t.type));
  switch (t.type) {
  case ElemType::F32:
    for (int64_t i = 0; i < n; ++i)
      out[i] = load<float>(p + 4 * i);
    return;
  case ElemType::BF16:
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t bits = uint32_t{load<uint16_t>(p + 2 * i)} << 16;
      float f;
      std::memcpy(&f, &bits, sizeof(f));
      out[i] = f;
    }
    return;
  case ElemType::F16:
    for (int64_t i = 0; i < n; ++i)
      out[i] = f16ToF32(load<uint16_t>(p + 2 * i));
    return;
  default:
    for (int64_t i = 0; i < n; ++i)
      out[i] = t.getAsDouble(begin + i);
    return;
  }
}

/// Sums of squares, plain in double where no square can overflow (every
/// element type but f64: |x| < 2^128, so x^2 < 2^256), else scaled.
class SquareSum {
public:
  explicit SquareSum(bool scaled) : scaled_(scaled) {}
  void add(double x) {
    if (scaled_)
      norm_.add(x);
    else
      sum_ += x * x;
  }
  void merge(const SquareSum &other) {
    if (scaled_)
      norm_.merge(other.norm_);
    else
      sum_ += other.sum_;
  }
  double norm() const { return scaled_ ? norm_.value() : std::sqrt(sum_); }

private:
  bool scaled_;
  double sum_ = 0;
  NormAccumulator norm_;
};

/// compare's sums over part of the elements.
struct PartialCompare {
  explicit PartialCompare(bool scaled) : diffNorm(scaled), refNorm(scaled) {}
  SquareSum diffNorm, refNorm;
  double maxAbsErr = 0;
  int64_t nonFiniteMismatches = 0, gotNaNs = 0;

  void add(const HostTensor &got, const HostTensor &ref, int64_t begin,
           int64_t end) {
    constexpr int64_t kChunk = 4096;
    std::vector<double> g(kChunk), r(kChunk);
    for (int64_t first = begin; first < end; first += kChunk) {
      const int64_t n = std::min(kChunk, end - first);
      decodeRange(got, first, n, g.data());
      decodeRange(ref, first, n, r.data());
      for (int64_t i = 0; i < n; ++i) {
        gotNaNs += std::isnan(g[i]) ? 1 : 0;
        // Non-finite values match only themselves (NaN matches NaN, +inf
        // +inf) and stay out of the norms, where one infinity would hide
        // every error.
        if (!std::isfinite(g[i]) || !std::isfinite(r[i])) {
          const bool same =
              (std::isnan(g[i]) && std::isnan(r[i])) || g[i] == r[i];
          nonFiniteMismatches += !same;
          continue;
        }
        const double diff = std::fabs(g[i] - r[i]);
        maxAbsErr = std::max(maxAbsErr, diff);
        diffNorm.add(diff);
        refNorm.add(r[i]);
      }
    }
  }
  void merge(const PartialCompare &o) {
    diffNorm.merge(o.diffNorm);
    refNorm.merge(o.refNorm);
    maxAbsErr = std::max(maxAbsErr, o.maxAbsErr);
    nonFiniteMismatches += o.nonFiniteMismatches;
    gotNaNs += o.gotNaNs;
  }
};

} // namespace

bool compare(const HostTensor &got, const HostTensor &ref, CompareStats &stats,
             std::string &err) {
  if (got.shape != ref.shape) {
    err = "result shape " + formatShape(got.shape) +
          " does not match reference shape " + formatShape(ref.shape);
    return false;
  }
  stats = CompareStats{};
  stats.count = ref.numElements();
  const bool scaled = got.type == ElemType::F64 || ref.type == ElemType::F64;
  PartialCompare total(scaled);
  std::mutex mutex;
  forChunks(stats.count, [&](int64_t begin, int64_t end) {
    PartialCompare part(scaled);
    part.add(got, ref, begin, end);
    std::lock_guard<std::mutex> lock(mutex);
    total.merge(part);
  });
  stats.maxAbsErr = total.maxAbsErr;
  stats.nonFiniteMismatches = total.nonFiniteMismatches;
  stats.gotNaNs = total.gotNaNs;
  const SquareSum &diffNorm = total.diffNorm, &refNorm = total.refNorm;
  if (stats.nonFiniteMismatches > 0)
    stats.relFrobErr = std::numeric_limits<double>::infinity();
  else if (refNorm.norm() == 0)
    stats.relFrobErr = diffNorm.norm();
  else
    stats.relFrobErr = diffNorm.norm() / refNorm.norm();
  return true;
}

} // namespace kgen::rt
