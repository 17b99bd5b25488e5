// Misuse: a wgmma N this library does not provide, a setmaxnreg count that
// is not a multiple of 8.
// TARGETS: sm_90a
// EXPECT-ERROR: wgmma_bf16 is provided for N in {64, 128, 256}
// EXPECT-ERROR: setmaxnreg takes 24..256 in steps of 8
#include "kgen/cuda/Wgmma.cuh"

__global__ void __launch_bounds__(256, 1)
k(float *out, unsigned long long da, unsigned long long db) {
  float acc[48] = {};
  kgen::cuda::wgmma_bf16<96>(acc, da, db, 0);
  kgen::cuda::warpgroup_reg_alloc<230>();
  out[threadIdx.x] = acc[0];
}
