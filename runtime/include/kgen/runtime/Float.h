//===- Float.h - Exact conversions between float formats --------*- C++ -*-===//
//
// Bit-exact conversions between IEEE binary32/binary64 and the narrow formats
// kgen kernels use: bfloat16, IEEE binary16 and OCP FP8 E4M3FN. Everything is
// done with integer arithmetic on the bit patterns, so results do not depend on
// compiler support for _Float16/__bf16 or on the floating-point environment.
//
// Encoders round to nearest, ties to even, directly from the source value
// (a double is never rounded to float first, which could round twice).
// Decoders are exact: every narrow value is representable as a float.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_FLOAT_H
#define KGEN_RUNTIME_FLOAT_H

#include <cstdint>

namespace kgen::rt {

/// bfloat16 (8 exponent bits, 7 mantissa bits). Overflow rounds to +-inf as
/// IEEE does; NaN becomes the quiet NaN 0x7FC0 with the sign kept.
uint16_t f32ToBf16(float x);
uint16_t f64ToBf16(double x);
float bf16ToF32(uint16_t bits);

/// IEEE binary16 (5 exponent bits, bias 15, 10 mantissa bits). Subnormals are
/// exact, overflow gives +-inf, NaN becomes the quiet NaN 0x7E00 with the sign
/// kept.
uint16_t f32ToF16(float x);
uint16_t f64ToF16(double x);
float f16ToF32(uint16_t bits);

/// OCP FP8 E4M3FN (bias 7, 3 mantissa bits, no infinities, 0x7F/0xFF are NaN,
/// largest finite 448, smallest normal 2^-6, subnormal step 2^-9).
/// Saturating, like PTX cvt.rn.satfinite: a value whose rounded magnitude
/// exceeds 448, infinities included, becomes +-448 (0x7E/0xFE). NaN becomes
/// 0x7F with the sign kept.
uint8_t f32ToF8E4M3FN(float x);
uint8_t f64ToF8E4M3FN(double x);
float f8E4M3FNToF32(uint8_t bits);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_FLOAT_H
