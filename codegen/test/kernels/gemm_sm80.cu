// Compile test: a complete sm_80 GEMM composed from the primitives, the shape
// of what the emitter writes for the cp.async + mma.sync path:
//   multi-stage cp.async mainloop (zero-filled partial tiles), WarpMma
//   fragment loop, fused epilogue; optional split-K over blockIdx.z with the
//   last-block reduction.
// Instances: bf16 TN 128x128x32, 4 stages, bias + gelu, bf16 out; tf32 NN
// 128x128x32, 3 stages, f32 out with residual C; bf16 TN split-K.
// TARGETS: sm_80 sm_90a
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK: cp.async.cg.shared.global
// CHECK: cp.async.wait_group 2;
// CHECK: cp.async.wait_group 1;
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
#include "kgen/cuda/CpAsync.cuh"
#include "kgen/cuda/Epilogue.cuh"
#include "kgen/cuda/Mma.cuh"

#include <cuda_bf16.h>

using namespace kgen::cuda;

template <bool C, class A, class B> struct Select { using type = A; };
template <class A, class B> struct Select<false, A, B> { using type = B; };

/// (BM, BN, BK) block tile, (WM, WN) warp tiles, `Stages` shared-memory
/// stages. A is (M, K), B is (K, N); MajorA / MajorB say which dimension is
/// contiguous in global memory (K-major A = row-major, K-major B =
/// column-major). Dynamic shared memory: kSmemBytes.
template <class Op, class T, Major MA, Major MB, int BM, int BN, int BK, int WM,
          int WN, int Stages, int PadA, int PadB>
struct GemmSm80 {
  static constexpr int kWarpsM = BM / WM, kWarpsN = BN / WN;
  static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
  static_assert(BM % WM == 0 && BN % WN == 0, "block tile of warp tiles");
  static_assert(Stages >= 2, "a pipeline needs two stages");
  // Shared tiles: (BM, BK) or (BK, BM) for A; (BN, BK) or (BK, BN) for B.
  using LA = typename Select<MA == Major::K, RowMajorPadded<T, BM, BK, PadA>,
                             RowMajorPadded<T, BK, BM, PadA>>::type;
  using LB = typename Select<MB == Major::K, RowMajorPadded<T, BN, BK, PadB>,
                             RowMajorPadded<T, BK, BN, PadB>>::type;
  using Warp = WarpMma<Op, WM, WN, LA, MA, LB, MB>;
  static constexpr int kStageBytes = LA::kBytes + LB::kBytes;
  static constexpr int kSmemBytes = Stages * kStageBytes;

  /// Issues the loads of k-tile kt into stage slot `slot`.
  __device__ static void load_stage(char *smem, int slot, const T *a,
                                    long long lda, const T *b, long long ldb,
                                    int m0, int n0, int k0, int m, int n, int k,
                                    int tid) {
    char *sa = smem + slot * kStageBytes;
    char *sb = sa + LA::kBytes;
    if constexpr (MA == Major::K)
      TileLoader<LA, kThreads>::load_async(sa, a + m0 * lda + k0, lda, m - m0,
                                           k - k0, tid);
    else
      TileLoader<LA, kThreads>::load_async(sa, a + k0 * lda + m0, lda, k - k0,
                                           m - m0, tid);
    if constexpr (MB == Major::K)
      TileLoader<LB, kThreads>::load_async(sb, b + n0 * ldb + k0, ldb, n - n0,
                                           k - k0, tid);
    else
      TileLoader<LB, kThreads>::load_async(sb, b + k0 * ldb + n0, ldb, k - k0,
                                           n - n0, tid);
  }

  /// acc = A[m0:, k_begin:k_end] * B[k_begin:k_end, n0:] for this warp.
  __device__ static void mainloop(float (&acc)[Warp::kAccPerThread], char *smem,
                                  const T *a, long long lda, const T *b,
                                  long long ldb, int m, int n, int k_begin,
                                  int k_end) {
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int wm = (warp / kWarpsN) * WM, wn = (warp % kWarpsN) * WN;
    const int k_tiles = (k_end - k_begin + BK - 1) / BK;
    Warp::zero(acc);
    // Prologue: stages 0 .. Stages-2 in flight (empty groups past the end
    // keep the group count uniform).
#pragma unroll
    for (int s = 0; s < Stages - 1; ++s) {
      if (s < k_tiles)
        load_stage(smem, s, a, lda, b, ldb, m0, n0, k_begin + s * BK, m, n,
                   k_end, tid);
      cp_async_commit();
    }
    for (int kt = 0; kt < k_tiles; ++kt) {
      cp_async_wait<Stages - 2>(); // k-tile kt has landed (this thread's part)
      __syncthreads();             // ... everyone's; slot kt-1 is free
      const int next = kt + Stages - 1;
      if (next < k_tiles)
        load_stage(smem, next % Stages, a, lda, b, ldb, m0, n0,
                   k_begin + next * BK, m, n, k_end, tid);
      cp_async_commit();
      char *sa = smem + (kt % Stages) * kStageBytes;
      Warp::template run<BK>(acc, smem_u32(sa), smem_u32(sa + LA::kBytes), wm,
                             wn, lane);
    }
    cp_async_wait<0>();
  }
};

using bf16 = __nv_bfloat16;

// bf16 TN: (128, 128, 32) block tile, 4 warps of (64, 64), 4 stages.
using GemmBf16 = GemmSm80<MmaBf16, bf16, Major::K, Major::K, 128, 128, 32, 64,
                          64, 4, 8, 8>;
using EpiBf16 = Epilogue<bf16, Act::GeluTanh, BiasMode::PerCol>;

__global__ void __launch_bounds__(GemmBf16::kThreads)
gemm_bf16_tn_bias_gelu(const bf16 *a, long long lda, const bf16 *b,
                       long long ldb, EpiBf16::Args args, int k) {
  extern __shared__ __align__(128) char smem[];
  float acc[GemmBf16::Warp::kAccPerThread]; // (64, 64) per warp
  GemmBf16::mainloop(acc, smem, a, lda, b, ldb, args.m, args.n, 0, k);
  const int warp = threadIdx.x / 32;
  EpiBf16::store_fragment<GemmBf16::Warp::AccMap>(
      args, acc, blockIdx.y * 128 + (warp / 2) * 64,
      blockIdx.x * 128 + (warp % 2) * 64, threadIdx.x % 32);
}

// tf32 NN (A column-major, B row-major: both MN-major), f32 out, D = A*B + C.
using GemmTf32 = GemmSm80<MmaTf32, float, Major::MN, Major::MN, 128, 128, 32,
                          64, 64, 3, 8, 8>;
using EpiF32 = Epilogue<float, Act::None, BiasMode::None, true>;

__global__ void __launch_bounds__(GemmTf32::kThreads)
gemm_tf32_nn_residual(const float *a, long long lda, const float *b,
                      long long ldb, EpiF32::Args args, int k) {
  extern __shared__ __align__(128) char smem[];
  float acc[GemmTf32::Warp::kAccPerThread];
  GemmTf32::mainloop(acc, smem, a, lda, b, ldb, args.m, args.n, 0, k);
  const int warp = threadIdx.x / 32;
  EpiF32::store_fragment<GemmTf32::Warp::AccMap>(
      args, acc, blockIdx.y * 128 + (warp / 2) * 64,
      blockIdx.x * 128 + (warp % 2) * 64, threadIdx.x % 32);
}

// bf16 TN split-K: blockIdx.z takes k range [z * k_split, (z+1) * k_split);
// the last block of each tile reduces the workspace in split order.
using EpiSplit = Epilogue<bf16>;
__global__ void __launch_bounds__(GemmBf16::kThreads)
gemm_bf16_tn_splitk(const bf16 *a, long long lda, const bf16 *b, long long ldb,
                    EpiSplit::Args args, int k, int k_split, float *ws,
                    long long ldws, unsigned *counters) {
  extern __shared__ __align__(128) char smem[];
  float acc[GemmBf16::Warp::kAccPerThread];
  const int k_begin = blockIdx.z * k_split;
  const int k_end = min(k, k_begin + k_split);
  GemmBf16::mainloop(acc, smem, a, lda, b, ldb, args.m, args.n, k_begin,
                     k_end);
  const int warp = threadIdx.x / 32;
  const int row0 = blockIdx.y * 128, col0 = blockIdx.x * 128;
  const long long split_stride = (long long)args.m * ldws;
  splitk_store_partial<GemmBf16::Warp::AccMap>(
      ws + blockIdx.z * split_stride, ldws, acc, row0 + (warp / 2) * 64,
      col0 + (warp % 2) * 64, threadIdx.x % 32, args.m, args.n);
  if (splitk_last_block(&counters[blockIdx.y * gridDim.x + blockIdx.x],
                        gridDim.z))
    splitk_reduce_region<EpiSplit>(args, ws, split_stride, ldws, gridDim.z,
                                   row0, col0, 128, 128, threadIdx.x,
                                   GemmBf16::kThreads);
}
