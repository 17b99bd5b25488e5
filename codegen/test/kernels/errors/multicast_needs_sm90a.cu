// Misuse: TMA multicast on plain sm_90 (ptxas would only warn).
// TARGETS: sm_90
// EXPECT-ERROR: kgen::cuda::tma_load_2d_multicast needs sm_90a
#include "kgen/cuda/Tma.cuh"

__global__ void __cluster_dims__(2, 1, 1) k(const __grid_constant__ CUtensorMap map) {
  __shared__ alignas(128) char tile[4096];
  __shared__ alignas(8) unsigned long long bar;
  kgen::cuda::tma_load_2d_multicast(tile, &map, &bar, 0, 0, 0x3);
}
