// Misuse: setmaxnreg on plain sm_90.
// TARGETS: sm_90
// EXPECT-ERROR: kgen::cuda::warpgroup_reg_alloc (setmaxnreg) needs sm_90a
#include "kgen/cuda/Wgmma.cuh"

__global__ void __launch_bounds__(256, 1) k() {
  kgen::cuda::warpgroup_reg_alloc<232>();
}
