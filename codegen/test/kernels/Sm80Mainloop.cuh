//===- Sm80Mainloop.cuh - the emitter's cp.async mainloop, for tests -*- CUDA -*-===//
//
// The loop codegen/emit/EmitCuda.cpp (printPipeline) prints for the sm_80
// families (simt, mma_sync), written once over the shipped block steps of
// kgen/block/Gemm.cuh, for the compile tests and the GPU test:
//
//   mainloop<T, BM, BN, BK, Stages, Threads, TransA, TransB>(acc, smem, a,
//       lda, b, ldb, m, n, k, m0, n0, ktBegin, ktEnd)
//     acc = A[m0 : m0 + BM, K tiles] x B[K tiles, n0 : n0 + BN] over k tiles
//     [ktBegin, ktEnd): load_box of A (M, K) (stored (K, M) with TransA) and
//     B (K, N) (stored (N, K) with TransB), row-major with leading
//     dimensions lda / ldb and extents (m, k) / (k, n), Stages - 1 tiles
//     ahead of acc.mma; commit_stage / wait_stage<Stages - 1>; the ring of
//     stages walked with kgen::block::PipelineState. acc is any kgen::block
//     accumulator (SimtAccumulator, MmaSyncAccumulator); it is zeroed here.
//
// Shapes: dynamic shared memory of smem_bytes<T, BM, BN, BK, Stages>():
// (Stages, BM, BK) A tiles (or (Stages, BK, BM)), then, 128-byte aligned,
// (Stages, BK, BN) B tiles (or (Stages, BN, BK)). Threads == blockDim.x.
// Targets: sm_80 and later.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_CODEGEN_TEST_SM80MAINLOOP_CUH
#define KGEN_CODEGEN_TEST_SM80MAINLOOP_CUH

#include "kgen/block/Gemm.cuh"
#include "kgen/block/Pipeline.cuh"

namespace kgen::test {

template <class T, int BM, int BN, int BK, int Stages>
__host__ __device__ constexpr long stage_b_offset() {
  return (Stages * long(BM) * BK * long(sizeof(T)) + 127) / 128 * 128;
}
template <class T, int BM, int BN, int BK, int Stages>
__host__ __device__ constexpr int smem_bytes() {
  return int(stage_b_offset<T, BM, BN, BK, Stages>() +
             Stages * long(BK) * BN * long(sizeof(T)));
}

template <class T, int BM, int BN, int BK, int Stages, int Threads,
          bool TransA, bool TransB, class Acc>
__device__ void mainloop(Acc &acc, unsigned char *smem, const T *a, long lda,
                         const T *b, long ldb, long m, long n, long k,
                         long m0, long n0, long ktBegin, long ktEnd) {
  constexpr long kTileA = long(BM) * BK, kTileB = long(BK) * BN;
  T *sA = reinterpret_cast<T *>(smem);
  T *sB = reinterpret_cast<T *>(smem +
                                stage_b_offset<T, BM, BN, BK, Stages>());
  auto load = [&](long kt, int stage) {
    const long k0 = kt * BK;
    if constexpr (TransA) // A stored (K, M)
      kgen::block::load_box<BK, BM, Threads>(sA + stage * kTileA, a, lda, k0,
                                             m0, k, m);
    else
      kgen::block::load_box<BM, BK, Threads>(sA + stage * kTileA, a, lda, m0,
                                             k0, m, k);
    if constexpr (TransB) // B stored (N, K)
      kgen::block::load_box<BN, BK, Threads>(sB + stage * kTileB, b, ldb, n0,
                                             k0, n, k);
    else
      kgen::block::load_box<BK, BN, Threads>(sB + stage * kTileB, b, ldb, k0,
                                             n0, k, n);
  };
  acc.zero();
  kgen::block::PipelineState<Stages> write{}, read{};
  for (long i = 0; i < Stages - 1 && ktBegin + i < ktEnd; ++i, ++write) {
    load(ktBegin + i, write.index);
    kgen::block::commit_stage();
  }
  for (long kt = ktBegin; kt < ktEnd; ++kt, ++read) {
    const long ahead = kt + Stages - 1;
    if (ahead < ktEnd) {
      load(ahead, write.index);
      ++write;
    }
    kgen::block::commit_stage(); // possibly empty: keeps the group count
    kgen::block::wait_stage<Stages - 1>(); // tile kt has landed
    acc.template mma<BK, TransA, TransB>(sA + read.index * kTileA,
                                         sB + read.index * kTileB);
    __syncthreads(); // the stage may be refilled next
  }
}

} // namespace kgen::test

#endif // KGEN_CODEGEN_TEST_SM80MAINLOOP_CUH
