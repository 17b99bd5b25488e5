// The emulated device's cuda_bf16.h (docs/emulated-device.md): what kgen's
// primitives use of CUDA's, for a host compiler.
#ifndef KGEN_EMULATE_CUDA_BF16_H
#define KGEN_EMULATE_CUDA_BF16_H
#include "kgen/emulate/Numerics.h"
struct __nv_bfloat16 {
  unsigned short __x;
  __nv_bfloat16() = default;
  explicit __nv_bfloat16(float f) : __x(kgen::emu::f32ToBf16(f)) {}
  explicit operator float() const { return kgen::emu::bf16ToF32(__x); }
};
struct alignas(4) __nv_bfloat162 { __nv_bfloat16 x, y; };
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
inline float __bfloat162float(__nv_bfloat16 h) { return float(h); }
inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) {
  return {__nv_bfloat16(a), __nv_bfloat16(b)};
}
inline float2 __bfloat1622float2(__nv_bfloat162 h) { return {float(h.x), float(h.y)}; }
#endif
