// Misuse: a wgmma N the instruction does not have (not a multiple of 8, or
// over 256), a setmaxnreg count that is not a multiple of 8.
// TARGETS: sm_90a
// EXPECT-ERROR: wgmma_bf16: N is a multiple of 8 in [8, 256] (m64nNk16)
// EXPECT-ERROR: wgmma_e4m3: N is a multiple of 8 in [8, 256] (m64nNk32)
// EXPECT-ERROR: setmaxnreg takes 24..256 in steps of 8
#include "kgen/cuda/Wgmma.cuh"

__global__ void __launch_bounds__(256, 1)
k(float *out, unsigned long long da, unsigned long long db) {
  float acc[50] = {};
  kgen::cuda::wgmma_bf16<100>(acc, da, db, 0);
  float wide[132] = {};
  kgen::cuda::wgmma_e4m3<264>(wide, da, db, 0);
  kgen::cuda::warpgroup_reg_alloc<230>();
  out[threadIdx.x] = acc[0] + wide[0];
}
