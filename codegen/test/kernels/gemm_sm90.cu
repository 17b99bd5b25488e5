// Compile test: sm_90a GEMMs built from the shipped block steps of
// kgen/block/GemmSm90.cuh, in the shape the emitter prints for the
// warp-specialised TMA + wgmma path (codegen/emit/EmitCuda.cpp
// printWgmmaPipeline): `using Pipeline = kgen::block::WgmmaPipeline<...>`,
// `const bool consumer = Pipeline::run(...)` into a WgmmaAccumulator, the
// consumers' fused epilogue, `Pipeline::finish()` in a cluster.
// Instances (BM x BN, stages):
//   bf16 TN 128x256, 4, clusters of 2 along M (B multicast), bias + relu
//   f16 NN (A and B MN-major) 128x128, 5, f32 out
//   bf16 TN 128x192, 4 (wgmma N 192), silu + residual C
//   bf16 NN 192x192, 4: three consumer warpgroups, MN-major A and B in
//     three 64-column blocks each, f32 out
//   e4m3 TN 192x160, 4, clusters of 2 (80-row B bands), bf16 out
//   bf16 TN 64x96, 6, A and B batched (3-D tensor maps), one consumer
// TARGETS: sm_90a
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK: wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16
// CHECK: wgmma.mma_async.sync.aligned.m64n160k32.f32.e4m3.e4m3
// CHECK: wgmma.mma_async.sync.aligned.m64n96k16.f32.bf16.bf16
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
// CHECK: cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK: mbarrier.arrive.release.cluster.shared::cluster.b64
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: setmaxnreg.dec.sync.aligned.u32 32;
// CHECK: setmaxnreg.inc.sync.aligned.u32 160;
// CHECK: wgmma.wait_group.sync.aligned 1;
#include "kgen/block/GemmSm90.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

namespace sm90 {

using bf16 = __nv_bfloat16;
using e4m3 = __nv_fp8_e4m3;
using Act = kgen::cuda::Act;

/// Block (bx, by) computes the (BM, BN) tile at (by * BM, bx * BN) over all
/// of K, plane bz of batched operands; rows and cols bound D (m, n), which
/// starts at plane bz (d + bz * m * n) when batched. The tensor maps cover A
/// and B as stored, with the pipeline's boxes.
template <class Pipeline, int BN, Act A, bool HasBias, bool HasC, class OutT,
          class CT>
__device__ void gemm(const CUtensorMap *tmaA, const CUtensorMap *tmaB,
                     OutT *d, const float *bias, const CT *c, float alpha,
                     float beta, long m, long n, long k, long bz) {
  constexpr int BM = Pipeline::kConsumers * 64;
  const long m0 = blockIdx.y * long(BM), n0 = blockIdx.x * long(BN);
  const long ktEnd = (k + Pipeline::BK - 1) / Pipeline::BK;
  kgen::block::WgmmaAccumulator<BN> acc; // 64 rows per consumer warpgroup
  const bool consumer =
      Pipeline::run(tmaA, tmaB, m0, n0, 0, ktEnd, acc.v, bz);
  if (consumer)
    acc.template epilogue<A, HasBias, HasC>(d + bz * m * n, n, m0, n0, m, n,
                                            bias, c, alpha, beta);
  Pipeline::finish(); // the cluster's blocks leave together
}

#define KGEN_SM90_KERNEL(name, P, BN, OutT, A, HasBias, HasC, CT, extra)       \
  __global__ void extra __launch_bounds__(P::kThreads, 1)                      \
      name(const __grid_constant__ CUtensorMap tma_a,                          \
           const __grid_constant__ CUtensorMap tma_b, OutT *__restrict__ d,    \
           const float *__restrict__ bias, const CT *__restrict__ c,           \
           float alpha, float beta, long m, long n, long k) {                  \
    gemm<P, BN, A, HasBias, HasC>(&tma_a, &tma_b, d, bias, c, alpha, beta, m,  \
                                  n, k, blockIdx.z);                           \
  }

// A (M, K), B stored (N, K): TN, clusters of 2 blocks along M (grid y).
using TnCluster = kgen::block::WgmmaPipeline<bf16, 128, 256, 4, false, true, 2>;
KGEN_SM90_KERNEL(gemm_bf16_tn_128x256_cluster2, TnCluster, 256, bf16,
                 Act::Relu, true, false, bf16, __cluster_dims__(1, 2, 1))

// A stored (K, M), B (K, N): both MN-major.
using NnF16 = kgen::block::WgmmaPipeline<__half, 128, 128, 5, true, false>;
KGEN_SM90_KERNEL(gemm_f16_nn_128x128, NnF16, 128, float, Act::None, false,
                 false, float, )

using Tn192 = kgen::block::WgmmaPipeline<bf16, 128, 192, 4, false, true>;
KGEN_SM90_KERNEL(gemm_bf16_tn_128x192, Tn192, 192, bf16, Act::Silu, false,
                 true, bf16, )

using Nn192 = kgen::block::WgmmaPipeline<bf16, 192, 192, 4, true, false>;
KGEN_SM90_KERNEL(gemm_bf16_nn_192x192, Nn192, 192, float, Act::None, false,
                 false, float, )

using TnE4m3 = kgen::block::WgmmaPipeline<e4m3, 192, 160, 4, false, true, 2>;
KGEN_SM90_KERNEL(gemm_e4m3_tn_192x160_cluster2, TnE4m3, 160, bf16, Act::None,
                 false, false, bf16, __cluster_dims__(1, 2, 1))

// A (batch, M, K), B (batch, N, K): plane blockIdx.z of both.
using TnBatched =
    kgen::block::WgmmaPipeline<bf16, 64, 96, 6, false, true, 1, true, true>;
KGEN_SM90_KERNEL(gemm_bf16_tn_batched_64x96, TnBatched, 96, bf16, Act::None,
                 false, false, bf16, )

#undef KGEN_SM90_KERNEL

} // namespace sm90
