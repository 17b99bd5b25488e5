//===- Numerics.h - narrow float formats of the emulated device -*- C++ -*-===//
//
// bf16, f16 and e4m3 (OCP FP8 E4M3FN) encodings with round-to-nearest-even,
// written for the emulator from the formats' definitions (PTX ISA 5.2.3 and
// 9.7.9.21 for e4m3: satfinite saturates to +-448, NaN stays NaN). Used by
// the CUDA type shims (cuda_bf16.h, cuda_fp16.h, cuda_fp8.h here) and the
// emulated cvt instructions.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_EMULATE_NUMERICS_H
#define KGEN_EMULATE_NUMERICS_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace kgen::emu {

inline uint32_t f32Bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float bitsF32(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

inline uint16_t f32ToBf16(float f) {
  const uint32_t u = f32Bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return uint16_t((u >> 16) | 0x40u); // quiet NaN, sign kept
  return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
inline float bf16ToF32(uint16_t h) { return bitsF32(uint32_t(h) << 16); }

inline uint16_t f32ToF16(float f) {
  const uint32_t x = f32Bits(f), sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u)
    return uint16_t(sign | (ax > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (ax >= 0x477ff000u) // 65520 and above round to infinity
    return uint16_t(sign | 0x7c00u);
  if (ax < 0x38800000u) // below 2^-14: a multiple of 2^-24, rounded to even
    return uint16_t(sign | uint32_t(std::nearbyint(std::fabs(f) * 16777216.0f)));
  uint32_t r = ((((ax >> 23) - 127u + 15u)) << 10) | ((ax & 0x7fffffu) >> 13);
  const uint32_t rem = ax & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u)))
    ++r;
  return uint16_t(sign | r);
}
inline float f16ToF32(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu,
                 m = h & 0x3ffu;
  float v;
  if (e == 0)
    v = float(m) * 5.9604644775390625e-08f; // m * 2^-24
  else if (e == 31)
    v = m ? bitsF32(0x7fc00000u) : bitsF32(0x7f800000u);
  else
    v = bitsF32(((e + 112u) << 23) | (m << 13));
  return bitsF32(f32Bits(v) | sign);
}

/// f32 -> e4m3 with satfinite (|x| > 448 -> +-448), NaN -> 0x7f | sign.
inline uint8_t f32ToE4m3(float f) {
  const uint8_t sign = (f32Bits(f) >> 24) & 0x80u;
  if (std::isnan(f))
    return uint8_t(sign | 0x7fu);
  const float a = std::fabs(f);
  if (a >= 448.0f)
    return uint8_t(sign | 0x7eu);
  if (a < 0.015625f) // below 2^-6: a multiple of 2^-9
    return uint8_t(sign | uint8_t(std::nearbyint(a * 512.0f)));
  int e = std::ilogb(a); // -6 .. 8
  int q = int(std::nearbyint(std::ldexp(a, 3 - e))); // 8 .. 16
  if (q == 16) {
    q = 8;
    ++e;
  }
  const int code = ((e + 7) << 3) | (q - 8);
  return uint8_t(sign | (code > 0x7e ? 0x7e : code));
}
inline float e4m3ToF32(uint8_t b) {
  const int e = (b >> 3) & 15, m = b & 7;
  float v;
  if (e == 15 && m == 7)
    v = NAN;
  else if (e == 0)
    v = std::ldexp(float(m), -9);
  else
    v = std::ldexp(float(8 + m), e - 10);
  return (b & 0x80u) ? -v : v;
}

} // namespace kgen::emu

#endif // KGEN_EMULATE_NUMERICS_H
