//===- BlockTile.cuh - the block tile of the mma.sync compile tests -*- CUDA -*-===//
//
// One block of a GEMM built from the primitives: cp.async loads of the A and
// B tiles (LA is (BM, BK) for K-major A, (BK, BM) for MN-major; likewise LB),
// the WarpMma fragment loop over WM x WN warp tiles (two warps along N),
// the epilogue. Shared by
// the mma_*.cu compile tests, which instantiate it per type and layout.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_CODEGEN_TEST_BLOCKTILE_CUH
#define KGEN_CODEGEN_TEST_BLOCKTILE_CUH

#include "kgen/cuda/CpAsync.cuh"
#include "kgen/cuda/Epilogue.cuh"
#include "kgen/cuda/Mma.cuh"

namespace kgen::cuda::test {

template <int BM, int BN, int BK, int WM, int WN, int Threads>
struct BlockTile {
  template <class Op, Major MA, Major MB, class LA, class LB, class T, class OutT>
  __device__ static void run(const T *a, long long lda, const T *b, long long ldb,
                             OutT *d, long long ldd, int m, int n, int k) {
    __shared__ alignas(1024) char smem_a[LA::kBytes];
    __shared__ alignas(1024) char smem_b[LB::kBytes];
    using Warp = WarpMma<Op, WM, WN, LA, MA, LB, MB>;
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int wm = (warp / 2) * WM, wn = (warp % 2) * WN;
    float acc[Warp::kAccPerThread]; // the warp's (WM, WN) tile
    Warp::zero(acc);
    for (int k0 = 0; k0 < k; k0 += BK) {
      if constexpr (MA == Major::K) // A tile (BM, BK) at A[m0, k0]
        TileLoader<LA, Threads>::load_async(smem_a, a + m0 * lda + k0, lda,
                                             m - m0, k - k0, tid);
      else // A^T tile (BK, BM) at A[k0, m0]
        TileLoader<LA, Threads>::load_async(smem_a, a + k0 * lda + m0, lda,
                                             k - k0, m - m0, tid);
      if constexpr (MB == Major::K) // B^T tile (BN, BK) at B[n0, k0]
        TileLoader<LB, Threads>::load_async(smem_b, b + n0 * ldb + k0, ldb,
                                             n - n0, k - k0, tid);
      else // B tile (BK, BN) at B[k0, n0]
        TileLoader<LB, Threads>::load_async(smem_b, b + k0 * ldb + n0, ldb,
                                             k - k0, n - n0, tid);
      cp_async_commit();
      cp_async_wait<0>();
      __syncthreads();
      Warp::template run<BK>(acc, smem_u32(smem_a), smem_u32(smem_b), wm, wn,
                              lane);
      __syncthreads();
    }
    using Epi = Epilogue<OutT>;
    typename Epi::Args args{d, ldd, nullptr, 0, nullptr, 1.f, 0.f, m, n};
    Epi::template store_fragment<typename Warp::AccMap>(args, acc, m0 + wm,
                                                        n0 + wn, lane);
  }
};

} // namespace kgen::cuda::test

#endif // KGEN_CODEGEN_TEST_BLOCKTILE_CUH
