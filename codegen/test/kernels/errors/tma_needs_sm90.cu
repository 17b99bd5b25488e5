// Misuse: TMA and mbarrier transaction counts before sm_90.
// TARGETS: sm_80
// EXPECT-ERROR: kgen::cuda::tma_load_2d needs sm_90+
// EXPECT-ERROR: kgen::cuda::mbar_arrive_expect_tx needs sm_90+
#include "kgen/cuda/Tma.cuh"

__global__ void k(const __grid_constant__ CUtensorMap map) {
  __shared__ alignas(128) char tile[4096];
  __shared__ alignas(8) unsigned long long bar;
  kgen::cuda::mbar_arrive_expect_tx(&bar, 4096);
  kgen::cuda::tma_load_2d(tile, &map, &bar, 0, 0);
}
