// Misuse: cp.async before sm_80.
// TARGETS: sm_75
// EXPECT-ERROR: kgen::cuda::cp_async_cg_16 needs sm_80+
#include "kgen/cuda/CpAsync.cuh"

__global__ void k(const int4 *in) {
  __shared__ int4 s[32];
  kgen::cuda::cp_async_cg_16(&s[threadIdx.x], in + threadIdx.x, 16);
}
