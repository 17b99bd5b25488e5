//===- Float.cpp - Exact conversions between float formats ----------------===//

#include "kgen/runtime/Float.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace kgen::rt {
namespace {

/// A narrow binary floating-point format, described by its bit patterns.
/// All codes are sign-less magnitudes except signBit.
struct Format {
  int mantBits;          // explicit mantissa bits
  int bias;              // exponent bias
  uint32_t maxFinite;    // code of the largest finite magnitude
  uint32_t overflowCode; // code for magnitudes rounding above maxFinite
  uint32_t quietNaN;     // code produced for NaN inputs
  uint32_t signBit;
};

constexpr Format kBf16{7, 127, 0x7F7F, 0x7F80, 0x7FC0, 0x8000};
constexpr Format kF16{10, 15, 0x7BFF, 0x7C00, 0x7E00, 0x8000};
// E4M3FN has no infinity: overflow saturates to the largest finite value.
constexpr Format kF8E4M3FN{3, 7, 0x7E, 0x7E, 0x7F, 0x80};

/// Returns v / 2^shift rounded to nearest, ties to even.
/// Precondition: shift >= 1 and v < 2^63.
uint64_t shiftRightRoundEven(uint64_t v, int shift) {
  if (shift >= 64)
    return 0; // v < 2^63 is below half of 2^64
  uint64_t quotient = v >> shift;
  uint64_t remainder = v & ((uint64_t{1} << shift) - 1);
  uint64_t half = uint64_t{1} << (shift - 1);
  if (remainder > half || (remainder == half && (quotient & 1)))
    ++quotient;
  return quotient;
}

/// Rounds a double to format `f`, to nearest with ties to even.
uint32_t encode(double x, const Format &f) {
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const uint32_t sign = (bits >> 63) ? f.signBit : 0;
  const int expField = static_cast<int>((bits >> 52) & 0x7FF);
  const uint64_t frac = bits & ((uint64_t{1} << 52) - 1);
  if (expField == 0x7FF && frac != 0)
    return f.quietNaN | sign;

  // |x| = significand * 2^(exponent - 52). Infinity goes through as the huge
  // finite 2^1024 and takes the overflow path below.
  const uint64_t significand = expField == 0 ? frac : frac | (uint64_t{1} << 52);
  const int exponent = expField == 0 ? -1022 : expField - 1023;

  // The target binade: below the smallest normal exponent the quantum stays
  // that of the subnormals, 2^(minExponent - mantBits).
  const int minExponent = 1 - f.bias;
  const int binade = std::max(exponent, minExponent);
  const int shift = binade - exponent + 52 - f.mantBits; // >= 52 - mantBits
  const uint64_t units = shiftRightRoundEven(significand, shift);

  // units is in [0, 2^(mantBits+1)]. Adding it to the binade's exponent field
  // minus one accounts for the implicit bit, and a carry out of the mantissa
  // (units == 2^(mantBits+1), or a subnormal rounding up to the smallest
  // normal) lands in the exponent field as it should.
  const uint64_t code =
      (static_cast<uint64_t>(binade + f.bias - 1) << f.mantBits) + units;
  if (code > f.maxFinite)
    return f.overflowCode | sign;
  return static_cast<uint32_t>(code) | sign;
}

/// Value of a finite, sign-less code of a format with `mantBits` mantissa
/// bits and exponent bias `bias`. Exact: every such value fits a float.
float decodeMagnitude(uint32_t magnitude, int mantBits, int bias) {
  const int expField = static_cast<int>(magnitude >> mantBits);
  const uint32_t mant = magnitude & ((uint32_t{1} << mantBits) - 1);
  if (expField == 0)
    return std::ldexp(static_cast<float>(mant), 1 - bias - mantBits);
  return std::ldexp(static_cast<float>(mant | (uint32_t{1} << mantBits)),
                    expField - bias - mantBits);
}

float floatFromBits(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

} // namespace

uint16_t f64ToBf16(double x) { return static_cast<uint16_t>(encode(x, kBf16)); }
uint16_t f32ToBf16(float x) { return f64ToBf16(x); }
float bf16ToF32(uint16_t bits) {
  return floatFromBits(static_cast<uint32_t>(bits) << 16);
}

uint16_t f64ToF16(double x) { return static_cast<uint16_t>(encode(x, kF16)); }
uint16_t f32ToF16(float x) { return f64ToF16(x); }
float f16ToF32(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  const uint32_t magnitude = bits & 0x7FFF;
  if ((magnitude & 0x7C00) == 0x7C00) {
    // Infinity, or NaN with its payload kept and the quiet bit set.
    const uint32_t payload = (magnitude & 0x3FF) << 13;
    return floatFromBits(sign | 0x7F800000 | payload |
                         (payload ? 0x00400000 : 0));
  }
  const float value = decodeMagnitude(magnitude, kF16.mantBits, kF16.bias);
  return sign ? -value : value;
}

uint8_t f64ToF8E4M3FN(double x) {
  return static_cast<uint8_t>(encode(x, kF8E4M3FN));
}
uint8_t f32ToF8E4M3FN(float x) { return f64ToF8E4M3FN(x); }
float f8E4M3FNToF32(uint8_t bits) {
  const bool negative = bits & 0x80;
  const uint32_t magnitude = bits & 0x7F;
  if (magnitude == 0x7F)
    return floatFromBits((negative ? 0x80000000u : 0u) | 0x7FC00000u);
  const float value =
      decodeMagnitude(magnitude, kF8E4M3FN.mantBits, kF8E4M3FN.bias);
  return negative ? -value : value;
}

} // namespace kgen::rt
