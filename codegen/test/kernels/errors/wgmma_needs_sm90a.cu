// Misuse: wgmma on targets without the sm_90a features, plain sm_90 included,
// must fail to compile with a message that names the flag.
// TARGETS: sm_80 sm_90
// EXPECT-ERROR: kgen::cuda::wgmma_bf16 needs sm_90a: compile with -gencode arch=compute_90a,code=sm_90a
// EXPECT-ERROR: kgen::cuda::wgmma_fence needs sm_90a
#include "kgen/cuda/Wgmma.cuh"

__global__ void k(float *out, unsigned long long da, unsigned long long db) {
  float acc[32] = {};
  kgen::cuda::wgmma_fence();
  kgen::cuda::wgmma_bf16<64>(acc, da, db, 0);
  out[threadIdx.x] = acc[0];
}
