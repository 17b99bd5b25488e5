// Misuse: fp8 e4m3 mma.sync and e4m3 output casts before sm_89.
// TARGETS: sm_80
// EXPECT-ERROR: mma.sync m16n8k32 e4m3 needs sm_89+
// EXPECT-ERROR: e4m3 conversion (cvt.rn.satfinite.e4m3x2.f32) needs sm_89+
#include "kgen/cuda/Epilogue.cuh"
#include "kgen/cuda/Mma.cuh"

#include <cuda_fp8.h>

__global__ void k(__nv_fp8_e4m3 *out, const unsigned *in) {
  float d[4] = {};
  const unsigned a[4] = {in[0], in[1], in[2], in[3]};
  const unsigned b[2] = {in[4], in[5]};
  kgen::cuda::MmaE4m3::mma(d[0], d[1], d[2], d[3], a, b);
  kgen::cuda::OutputCast<__nv_fp8_e4m3>::store2(out, d[0], d[1]);
}
