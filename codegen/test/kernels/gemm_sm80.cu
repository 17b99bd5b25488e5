// Compile test: sm_80 GEMMs built from the shipped block steps of
// kgen/block/Gemm.cuh, in the shape the emitter prints for the cp.async +
// mma.sync path (codegen/emit/EmitCuda.cpp printPipeline): load_box of the
// A and B tiles into a ring of Stages stages, commit_stage / wait_stage<S-1>,
// MmaSyncAccumulator::mma, the accumulator's fused epilogue; split-K as the
// emitter does it (store_f32 of each split's partial tile into a workspace,
// then a reduction kernel: accumulate_f32 in split order and the epilogue).
// The mainloop (Sm80Mainloop.cuh) walks the stage ring with
// kgen::block::PipelineState.
// Instances: bf16 TN 128x128x32, 4 stages, bias + gelu, bf16 out; tf32 NN
// (A and B MN-major) 128x128x32, 3 stages, f32 out with residual C; bf16 TN
// split-K (partials + reduction).
// TARGETS: sm_80 sm_90a
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK: cp.async.cg.shared.global
// CHECK: cp.async.wait_group 3;
// CHECK: cp.async.wait_group 2;
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
#include "Sm80Mainloop.cuh"

#include <cuda_bf16.h>

namespace sm80 {

using kgen::test::mainloop;

using bf16 = __nv_bfloat16;
using Act = kgen::cuda::Act;

// bf16 TN: (128, 128, 32) block tile, 2 x 2 warps of (64, 64), 4 stages.
struct TnBf16 {
  static constexpr int BM = 128, BN = 128, BK = 32, Stages = 4;
  static constexpr int kThreads = 128;
  static constexpr int kSmemBytes =
      kgen::test::smem_bytes<__nv_bfloat16, BM, BN, BK, Stages>();
  using Acc = kgen::block::MmaSyncAccumulator<BM, BN, 2, 2>;
};

__global__ void __launch_bounds__(TnBf16::kThreads)
gemm_bf16_tn_bias_gelu(const bf16 *__restrict__ a, const bf16 *__restrict__ bt,
                       const float *__restrict__ bias, bf16 *__restrict__ d,
                       long m, long n, long k) {
  extern __shared__ __align__(128) unsigned char smem[];
  using G = TnBf16;
  const long m0 = blockIdx.y * long(G::BM), n0 = blockIdx.x * long(G::BN);
  G::Acc acc;
  mainloop<bf16, G::BM, G::BN, G::BK, G::Stages, G::kThreads, false, true>(
      acc, smem, a, k, bt, k, m, n, k, m0, n0, 0, (k + G::BK - 1) / G::BK);
  acc.epilogue<Act::GeluTanh, true, false>(
      d, n, m0, n0, m, n, bias, static_cast<const bf16 *>(nullptr), 1.f, 0.f);
}

// tf32 NN (A stored (K, M), B stored (K, N): both MN-major), f32 out,
// D = A * B + C.
struct NnTf32 {
  static constexpr int BM = 128, BN = 128, BK = 32, Stages = 3;
  static constexpr int kThreads = 128;
  static constexpr int kSmemBytes =
      kgen::test::smem_bytes<float, BM, BN, BK, Stages>();
  using Acc = kgen::block::MmaSyncAccumulator<BM, BN, 2, 2>;
};

__global__ void __launch_bounds__(NnTf32::kThreads)
gemm_tf32_nn_residual(const float *__restrict__ at, const float *__restrict__ b,
                      const float *__restrict__ c, float *__restrict__ d,
                      long m, long n, long k) {
  extern __shared__ __align__(128) unsigned char smem[];
  using G = NnTf32;
  const long m0 = blockIdx.y * long(G::BM), n0 = blockIdx.x * long(G::BN);
  G::Acc acc;
  mainloop<float, G::BM, G::BN, G::BK, G::Stages, G::kThreads, true, false>(
      acc, smem, at, m, b, n, m, n, k, m0, n0, 0, (k + G::BK - 1) / G::BK);
  acc.epilogue<Act::None, false, true>(
      d, n, m0, n0, m, n, static_cast<const float *>(nullptr), c, 1.f, 1.f);
}

// bf16 TN split-K: blockIdx.z takes k tiles [z * ktSplit, (z + 1) *
// ktSplit) and stores its f32 partial tile into workspace slice z (m, n);
// the reduction kernel adds the slices in split order, then the epilogue.
__global__ void __launch_bounds__(TnBf16::kThreads)
gemm_bf16_tn_splitk(const bf16 *__restrict__ a, const bf16 *__restrict__ bt,
                    float *__restrict__ w, long m, long n, long k,
                    long ktSplit) {
  extern __shared__ __align__(128) unsigned char smem[];
  using G = TnBf16;
  const long m0 = blockIdx.y * long(G::BM), n0 = blockIdx.x * long(G::BN);
  const long kTiles = (k + G::BK - 1) / G::BK;
  const long ktBegin = kgen::block::lmin(blockIdx.z * ktSplit, kTiles);
  const long ktEnd = kgen::block::lmin(ktBegin + ktSplit, kTiles);
  G::Acc acc;
  mainloop<bf16, G::BM, G::BN, G::BK, G::Stages, G::kThreads, false, true>(
      acc, smem, a, k, bt, k, m, n, k, m0, n0, ktBegin, ktEnd);
  acc.store_f32(w + blockIdx.z * m * n, n, m0, n0, m, n);
}

// The reduction's (128, 128) tile over 4 x 2 warps (8 x 8 per thread).
using ReduceAcc = kgen::block::SimtAccumulator<128, 128, 4, 2>;

__global__ void __launch_bounds__(256)
gemm_bf16_tn_splitk_reduce(const float *__restrict__ w, bf16 *__restrict__ d,
                           long m, long n, long splits) {
  const long m0 = blockIdx.y * 128L, n0 = blockIdx.x * 128L;
  ReduceAcc acc;
  acc.zero();
  for (long s = 0; s < splits; ++s)
    acc.accumulate_f32(w + s * m * n, n, m0, n0, m, n);
  acc.epilogue<Act::None, false, false>(
      d, n, m0, n0, m, n, static_cast<const float *>(nullptr),
      static_cast<const bf16 *>(nullptr), 1.f, 0.f);
}

} // namespace sm80
