// Compile test: CpAsync.cuh stage loads (16-byte zero-filled cp.async and the
// scalar safe path) into a padded and a swizzled tile.
// TARGETS: sm_80 sm_90a
// CHECK: cp.async.cg.shared.global [
// CHECK: cp.async.commit_group;
// CHECK: cp.async.wait_group 1;
// CHECK: cp.async.wait_group 0;
// CHECK: cp.async.wait_all;
#include "kgen/cuda/CpAsync.cuh"

#include <cuda_bf16.h>

using namespace kgen::cuda;

constexpr int kThreads = 128;
// (128, 32) bf16 A tile, K contiguous, rows padded by 8 elements (16 bytes).
using PaddedA = RowMajorPadded<__nv_bfloat16, 128, 32, 8>;
// (64, 64) bf16 B tile in the TMA 128-byte swizzle.
using SwizzledB = RowMajorSwizzled<__nv_bfloat16, 64, 64, Swizzle::B128>;

__global__ void __launch_bounds__(kThreads)
stage_two_tiles(const __nv_bfloat16 *a, long long lda, const __nv_bfloat16 *b,
                long long ldb, int rows_left, int cols_left, unsigned *out) {
  __shared__ alignas(1024) char smem_b[SwizzledB::kBytes];
  __shared__ alignas(128) char smem_a[PaddedA::kBytes];
  const int tid = threadIdx.x;
  TileLoader<PaddedA, kThreads>::load_async(smem_a, a, lda, rows_left,
                                            cols_left, tid);
  cp_async_commit();
  TileLoader<SwizzledB, kThreads>::load_async(smem_b, b, ldb, rows_left,
                                              cols_left, tid);
  cp_async_commit();
  cp_async_wait<1>(); // A landed (this thread's part)
  cp_async_wait<0>(); // and B
  cp_async_wait_all();
  __syncthreads();
  const unsigned *wa = reinterpret_cast<const unsigned *>(smem_a);
  const unsigned *wb = reinterpret_cast<const unsigned *>(smem_b);
  out[blockIdx.x * kThreads + tid] = wa[tid * 3] ^ wb[tid * 5];
}

__global__ void __launch_bounds__(kThreads)
stage_unaligned(const __nv_bfloat16 *a, long long lda, int rows_left,
                int cols_left, unsigned *out) {
  __shared__ alignas(128) char smem_a[PaddedA::kBytes];
  const int tid = threadIdx.x;
  TileLoader<PaddedA, kThreads>::load_sync(smem_a, a, lda, rows_left, cols_left,
                                           tid);
  __syncthreads();
  out[blockIdx.x * kThreads + tid] =
      reinterpret_cast<const unsigned *>(smem_a)[tid * 7];
}
