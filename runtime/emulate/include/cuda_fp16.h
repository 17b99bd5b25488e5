// The emulated device's cuda_fp16.h (docs/emulated-device.md).
#ifndef KGEN_EMULATE_CUDA_FP16_H
#define KGEN_EMULATE_CUDA_FP16_H
#include "kgen/emulate/Numerics.h"
struct __half {
  unsigned short __x;
  __half() = default;
  explicit __half(float f) : __x(kgen::emu::f32ToF16(f)) {}
  explicit operator float() const { return kgen::emu::f16ToF32(__x); }
};
struct alignas(4) __half2 { __half x, y; };
inline __half __float2half_rn(float f) { return __half(f); }
inline float __half2float(__half h) { return float(h); }
inline __half2 __floats2half2_rn(float a, float b) { return {__half(a), __half(b)}; }
inline float2 __half22float2(__half2 h) { return {float(h.x), float(h.y)}; }
#endif
