// Compile test: Epilogue.cuh with fp8 e4m3 output (saturating RNE cast),
// pair and scalar stores, on a wgmma fragment map.
// TARGETS: sm_90a
// CHECK: cvt.rn.satfinite.e4m3x2.f32
// CHECK: st.global.u16
// CHECK: st.global.u8
#include "kgen/cuda/Epilogue.cuh"
#include "kgen/cuda/Wgmma.cuh"

#include <cuda_bf16.h>
#include <cuda_fp8.h>

using namespace kgen::cuda;
using e4m3 = __nv_fp8_e4m3;
using Map = WgmmaAccMap<128>; // one warpgroup's (64, 128) tile

__global__ void __launch_bounds__(128)
epi_e4m3(const float *src, e4m3 *d, e4m3 *d1, const __nv_bfloat16 *c,
         float scale, int m, int n, int ld) {
  float acc[Map::kAccPerThread];
#pragma unroll
  for (int i = 0; i < Map::kAccPerThread; ++i)
    acc[i] = src[i * 128 + threadIdx.x];
  // Pair stores: d = e4m3(scale * acc + C).
  using Epi = Epilogue<e4m3, Act::None, BiasMode::None, true, 2, __nv_bfloat16>;
  typename Epi::Args args{d, ld, c, ld, nullptr, scale, 1.f, m, n};
  Epi::store_fragment<Map>(args, acc, blockIdx.y * 64, blockIdx.x * 128,
                           threadIdx.x);
  // Scalar stores (odd leading dimensions).
  using Epi1 = Epilogue<e4m3, Act::Relu, BiasMode::None, false, 1>;
  typename Epi1::Args args1{d1, ld, nullptr, 0, nullptr, scale, 0.f, m, n};
  Epi1::store_fragment<Map>(args1, acc, blockIdx.y * 64, blockIdx.x * 128,
                            threadIdx.x);
}
