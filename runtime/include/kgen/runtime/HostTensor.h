//===- HostTensor.h - Dense tensors in host memory --------------*- C++ -*-===//
//
// A dense, row-major (C order) tensor held in host memory as raw little-endian
// element bytes, with element access through double, seeded random filling and
// an error measure between a result and a reference.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_HOSTTENSOR_H
#define KGEN_RUNTIME_HOSTTENSOR_H

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kgen::rt {

/// Element types, named as MLIR spells them. I1 is stored one byte per
/// element, holding 0 or 1.
enum class ElemType { F32, F16, BF16, F8E4M3FN, F64, I64, I32, I16, I8, I1 };

/// The MLIR spelling: "f32", "f16", "bf16", "f8E4M3FN", "f64", "i64", "i32",
/// "i16", "i8", "i1".
const char *elemTypeName(ElemType type);

/// Inverse of elemTypeName; std::nullopt for any other string.
std::optional<ElemType> parseElemType(std::string_view name);

/// The CUDA C++ spelling of an element type: "float", "__half",
/// "__nv_bfloat16", "__nv_fp8_e4m3", "double", "long long", "int", "short",
/// "signed char", "bool" (cuda_fp16.h, cuda_bf16.h, cuda_fp8.h).
const char *cudaTypeName(ElemType type);

/// Bytes one element occupies in HostTensor::data.
size_t elemTypeBytes(ElemType type);

/// True for F32, F16, BF16, F8E4M3FN and F64.
bool isFloat(ElemType type);

/// "2x3x4" for shape {2, 3, 4}; "scalar" for the empty shape.
std::string formatShape(const std::vector<int64_t> &shape);

/// Computes the element count of `shape` into `out`. Returns false, with a
/// one-line message in `err`, when a dimension is negative or the count
/// exceeds `maxElements` (which covers int64 overflow). A shape with a zero
/// dimension has 0 elements whatever its other dimensions.
/// Precondition: maxElements >= 0.
bool checkedNumElements(const std::vector<int64_t> &shape, int64_t maxElements,
                        int64_t &out, std::string &err);

/// Invariant: data.size() == numElements() * elemTypeBytes(type), elements in
/// row-major order, each stored in little-endian byte order.
struct HostTensor {
  ElemType type = ElemType::F32;
  std::vector<int64_t> shape; // empty for a scalar
  std::vector<uint8_t> data;

  /// Product of the dimensions (1 for a scalar).
  /// Precondition: the shape passes checkedNumElements.
  int64_t numElements() const;

  /// Element `i` (flat row-major index) as a double; exact for every type but
  /// I64 values beyond 2^53. Precondition: 0 <= i < numElements().
  double getAsDouble(int64_t i) const;

  /// Stores `v` into element `i`, rounded to the element type: floats round to
  /// nearest even (saturating for F8E4M3FN, see Float.h); integers round to
  /// nearest with ties to even and saturate to the type's range ([0, 1] for
  /// I1), NaN storing 0. Precondition: 0 <= i < numElements().
  void setFromDouble(int64_t i, double v);
};

/// A zero-filled tensor. Precondition: the shape passes checkedNumElements.
HostTensor makeZeros(ElemType type, std::vector<int64_t> shape);

/// SplitMix64's finaliser over seed + salt: independent streams from one
/// run seed.
uint64_t mixSeed(uint64_t seed, uint64_t salt);

/// The seed of a package input's random fill in a run seeded `runSeed`:
/// mixed with the parameter's name (FNV-1a), so a tensor gets the same
/// values whatever the package's parameter order, in every child of a GPU
/// run and on the emulated device alike.
uint64_t packageInputSeed(uint64_t runSeed, const std::string &paramName);

/// A tensor filled from a splitmix64 stream seeded with `seed`; the bytes are
/// the same on every platform and compiler.
/// - Float types: uniform in [-1, 1), then rounded to the type (rounding can
///   give exactly 1). If every element rounds to zero, element 0 is set to 0.5
///   so that a non-empty float tensor is never all zeros.
/// - Integer types: uniform in [lo, hi) intersected with the type's range
///   ([0, 1] for I1); if that intersection is empty, every element is lo
///   saturated to the type. lo and hi are ignored for float types.
/// Precondition: the shape passes checkedNumElements.
HostTensor makeRandom(ElemType type, std::vector<int64_t> shape, uint64_t seed,
                      int64_t lo = 0, int64_t hi = 16);

/// Error of a result against a reference, over all elements.
struct CompareStats {
  /// max |got - ref| over elements where both are finite (0 if none).
  double maxAbsErr = 0;
  /// ||got - ref||_F / ||ref||_F over elements where both are finite, or
  /// ||got - ref||_F when ||ref||_F == 0; +inf when nonFiniteMismatches > 0.
  double relFrobErr = 0;
  /// Elements where got or ref is not finite and they differ: NaN against a
  /// number, an infinity against anything but the same infinity. Both NaN,
  /// or the same infinity on both sides, agree and count as no error.
  int64_t nonFiniteMismatches = 0;
  /// Elements compared (the common element count).
  int64_t count = 0;
  /// NaN elements of `got` (whatever `ref` holds there).
  int64_t gotNaNs = 0;
};

/// Compares `got` with `ref` element by element through getAsDouble, so the
/// element types may differ (e.g. a bf16 result against an f32 reference).
/// Equal values, equal infinities included, contribute no error. Returns
/// false, with a one-line message in `err`, when the shapes differ.
bool compare(const HostTensor &got, const HostTensor &ref, CompareStats &stats,
             std::string &err);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_HOSTTENSOR_H
