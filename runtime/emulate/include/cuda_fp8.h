// The emulated device's cuda_fp8.h (docs/emulated-device.md).
#ifndef KGEN_EMULATE_CUDA_FP8_H
#define KGEN_EMULATE_CUDA_FP8_H
#include "kgen/emulate/Numerics.h"
struct __nv_fp8_e4m3 {
  unsigned char __x;
  __nv_fp8_e4m3() = default;
  explicit __nv_fp8_e4m3(float f) : __x(kgen::emu::f32ToE4m3(f)) {}
  explicit operator float() const { return kgen::emu::e4m3ToF32(__x); }
};
#endif
