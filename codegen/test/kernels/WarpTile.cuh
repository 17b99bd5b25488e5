//===- WarpTile.cuh - one WarpMma tile on explicit layouts, for tests -*- CUDA -*-===//
//
// A test of the Mma.cuh primitive alone, on shared layouts the block layer
// does not use (padded rows, swizzles): warp w of a 2 x (Threads / 64) grid
// computes the (WM, WN) warp tile at (WM * (w / 2), WN * (w % 2)) of
// A (M, K) x B (K, N) over one (BK) slab held whole in shared memory, and
// stores it with the epilogue.
//
//   warp_tile<Op, MA, MB, LA, LB, WM, WN, BK, Threads>(a, b, d, ldd)
//     a: LA's (rows, cols) row-major in global memory (LA is (BM, BK) for
//     K-major A, (BK, BM) for MN-major), likewise b; d: (2 WM, Threads / 64
//     WN) row-major with leading dimension ldd.
//
// The composed block steps are tested through kgen::block (Sm80Mainloop.cuh,
// gemm_sm80.cu). Targets: those of Op.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_CODEGEN_TEST_WARPTILE_CUH
#define KGEN_CODEGEN_TEST_WARPTILE_CUH

#include "kgen/cuda/CpAsync.cuh"
#include "kgen/cuda/Epilogue.cuh"
#include "kgen/cuda/Mma.cuh"

namespace kgen::test {

template <class Op, kgen::cuda::Major MA, kgen::cuda::Major MB, class LA,
          class LB, int WM, int WN, int BK, int Threads, class T, class OutT>
__device__ void warp_tile(const T *a, const T *b, OutT *d, long ldd) {
  using namespace kgen::cuda;
  __shared__ alignas(1024) char smem_a[LA::kBytes];
  __shared__ alignas(1024) char smem_b[LB::kBytes];
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  TileLoader<LA, Threads>::load_async(smem_a, a, LA::kCols, LA::kRows,
                                      LA::kCols, tid);
  TileLoader<LB, Threads>::load_async(smem_b, b, LB::kCols, LB::kRows,
                                      LB::kCols, tid);
  cp_async_commit();
  cp_async_wait<0>();
  __syncthreads();
  using Warp = WarpMma<Op, WM, WN, LA, MA, LB, MB>;
  const int wm = (warp / 2) * WM, wn = (warp % 2) * WN;
  float acc[Warp::kAccPerThread];
  Warp::zero(acc);
  Warp::template run<BK>(acc, smem_u32(smem_a), smem_u32(smem_b), wm, wn,
                         lane);
  using Epi = Epilogue<OutT>;
  const int rows = 2 * WM, cols = Threads / 64 * WN;
  typename Epi::Args args{d, ldd, nullptr, 0, nullptr, 1.f, 0.f, rows, cols};
  Epi::template store_fragment<typename Warp::AccMap>(args, acc, wm, wn, lane);
}

} // namespace kgen::test

#endif // KGEN_CODEGEN_TEST_WARPTILE_CUH
