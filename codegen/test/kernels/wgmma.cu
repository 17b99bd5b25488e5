// Compile test: Wgmma.cuh. One warpgroup multiplies swizzled shared-memory
// tiles through descriptors: bf16 m64n256k16 and m64n64k16 (K-major), f16
// m64n128k16 with both operands MN-major (imm-trans 1), e4m3 m64n{128,256}k32;
// and a producer/consumer split with setmaxnreg; every wrapper at N = 8, 96,
// 160, 192, 224 and 256 (N / 2 accumulators each, from the shape table);
// the register form (A in registers): FlashAttention-3's O = P V with P
// converted from an S = Q K^T accumulator tile and V MN-major, and
// wgmma_rs_bf16 / _rs_f16 at every N above.
// TARGETS: sm_90a
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// CHECK: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// CHECK: wgmma.fence.sync.aligned;
// CHECK: wgmma.commit_group.sync.aligned;
// CHECK: wgmma.wait_group.sync.aligned 0;
// CHECK: wgmma.wait_group.sync.aligned 1;
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: p, 1, 1, 1, 1;
// CHECK: p, 1, 1, 0, 0;
// CHECK: wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16
// CHECK: wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16
// CHECK: wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3
// CHECK: wgmma.mma_async.sync.aligned.m64n96k16.f32.bf16.bf16
// CHECK: wgmma.mma_async.sync.aligned.m64n96k16.f32.f16.f16
// CHECK: wgmma.mma_async.sync.aligned.m64n96k32.f32.e4m3.e4m3
// CHECK: wgmma.mma_async.sync.aligned.m64n160k16.f32.bf16.bf16
// CHECK: wgmma.mma_async.sync.aligned.m64n160k16.f32.f16.f16
// CHECK: wgmma.mma_async.sync.aligned.m64n160k32.f32.e4m3.e4m3
// CHECK: wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16
// CHECK: wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16
// CHECK: wgmma.mma_async.sync.aligned.m64n192k32.f32.e4m3.e4m3
// CHECK: wgmma.mma_async.sync.aligned.m64n224k16.f32.bf16.bf16
// CHECK: wgmma.mma_async.sync.aligned.m64n224k16.f32.f16.f16
// CHECK: wgmma.mma_async.sync.aligned.m64n224k32.f32.e4m3.e4m3
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// CHECK: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// CHECK: p, 1, 1, 0, 1;
// CHECK: p, 1, 1, 1, 0;
// CHECK: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {%f
// CHECK: p, 1, 1, 1;
// CHECK: p, 1, 1, 0;
#include "kgen/cuda/Epilogue.cuh"
#include "kgen/cuda/Tma.cuh"
#include "kgen/cuda/Wgmma.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

using namespace kgen::cuda;

/// Fills a tile's bytes from global memory (stand-in for TMA in this test)
/// and makes them visible to the async proxy.
template <class L>
__device__ void fill(char *smem, const uint4 *src, int tid, int threads) {
  for (int i = tid; i < L::kBytes / 16; i += threads)
    reinterpret_cast<uint4 *>(smem)[i] = src[i];
  fence_proxy_async();
  __syncthreads();
}

// bf16 TN: A (64, 64) K-major, B (256, 64) K-major, 128-byte swizzle.
using bf16 = __nv_bfloat16;
using A64 = RowMajorSwizzled<bf16, 64, 64, Swizzle::B128>;
using B256 = RowMajorSwizzled<bf16, 256, 64, Swizzle::B128>;

__global__ void __launch_bounds__(128, 1)
wgmma_bf16_n256(const uint4 *a, const uint4 *b, bf16 *d, int m, int n) {
  __shared__ alignas(1024) char sa[A64::kBytes];
  __shared__ alignas(1024) char sb[B256::kBytes];
  const int tid = threadIdx.x;
  fill<A64>(sa, a, tid, 128);
  fill<B256>(sb, b, tid, 128);
  using OpA = WgmmaOperand<A64, Major::K, 16>;
  using OpB = WgmmaOperand<B256, Major::K, 16>;
  float acc[128]; // (64, 256) f32 over the warpgroup
  fence_operand(acc);
  wgmma_fence();
#pragma unroll
  for (int k = 0; k < OpA::kSlices; ++k)
    wgmma_bf16<256>(acc, OpA::desc(smem_u32(sa), k), OpB::desc(smem_u32(sb), k),
                    k > 0);
  wgmma_commit();
  wgmma_wait<0>();
  fence_operand(acc);
  using Epi = Epilogue<bf16, Act::GeluTanh, BiasMode::None>;
  typename Epi::Args args{d, n, nullptr, 0, nullptr, 1.f, 0.f, m, n};
  Epi::store_fragment<WgmmaAccMap<256>>(args, acc, 0, 0, tid);
}

// bf16 TN, N = 64, two k-groups in flight (wait<1>).
using B64t = RowMajorSwizzled<bf16, 64, 64, Swizzle::B128>;
__global__ void __launch_bounds__(128, 1)
wgmma_bf16_n64(const uint4 *a, const uint4 *b, float *d, int m, int n) {
  __shared__ alignas(1024) char sa[2][A64::kBytes];
  __shared__ alignas(1024) char sb[2][B64t::kBytes];
  const int tid = threadIdx.x;
  fill<A64>(sa[0], a, tid, 128);
  fill<A64>(sa[1], a + A64::kBytes / 16, tid, 128);
  fill<B64t>(sb[0], b, tid, 128);
  fill<B64t>(sb[1], b + B64t::kBytes / 16, tid, 128);
  using OpA = WgmmaOperand<A64, Major::K, 16>;
  using OpB = WgmmaOperand<B64t, Major::K, 16>;
  float acc[32]; // (64, 64)
#pragma unroll
  for (int i = 0; i < 32; ++i)
    acc[i] = 0.f;
#pragma unroll
  for (int s = 0; s < 2; ++s) {
    fence_operand(acc);
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < OpA::kSlices; ++k)
      wgmma_bf16<64>(acc, OpA::desc(smem_u32(sa[s]), k),
                     OpB::desc(smem_u32(sb[s]), k), 1);
    wgmma_commit();
    wgmma_wait<1>(); // the previous stage's group is done
    fence_operand(acc);
  }
  wgmma_wait<0>();
  fence_operand(acc);
  using Epi = Epilogue<float>;
  typename Epi::Args args{d, n, nullptr, 0, nullptr, 1.f, 0.f, m, n};
  Epi::store_fragment<WgmmaAccMap<64>>(args, acc, 0, 0, tid);
}

// f16 NT (both MN-major): A^T (64 k, 64 m), B (64 k, 128 n), 128-byte swizzle;
// B spans two 64-column blocks, so its LBO is used.
using f16 = __half;
using AT = RowMajorSwizzled<f16, 64, 64, Swizzle::B128>;
using BN128 = RowMajorSwizzled<f16, 64, 128, Swizzle::B128>;
__global__ void __launch_bounds__(128, 1)
wgmma_f16_mn_major(const uint4 *a, const uint4 *b, f16 *d, int m, int n) {
  __shared__ alignas(1024) char sa[AT::kBytes];
  __shared__ alignas(1024) char sb[BN128::kBytes];
  const int tid = threadIdx.x;
  fill<AT>(sa, a, tid, 128);
  fill<BN128>(sb, b, tid, 128);
  using OpA = WgmmaOperand<AT, Major::MN, 16>;
  using OpB = WgmmaOperand<BN128, Major::MN, 16>;
  float acc[64]; // (64, 128)
  fence_operand(acc);
  wgmma_fence();
#pragma unroll
  for (int k = 0; k < OpA::kSlices; ++k)
    wgmma_f16<128, true, true>(acc, OpA::desc(smem_u32(sa), k),
                               OpB::desc(smem_u32(sb), k), k > 0);
  wgmma_commit();
  wgmma_wait<0>();
  fence_operand(acc);
  using Epi = Epilogue<f16, Act::Silu, BiasMode::PerCol, false, 2, f16, float>;
  typename Epi::Args args{d, n, nullptr, 0, reinterpret_cast<const float *>(b),
                          1.f, 0.f, m, n};
  Epi::store_fragment<WgmmaAccMap<128>>(args, acc, 0, 0, tid);
}

// e4m3 TN: A (64, 128) and B (N, 128) e4m3 = 128-byte rows.
using e4m3 = __nv_fp8_e4m3;
template <int N>
__device__ void e4m3_tile(const uint4 *a, const uint4 *b, bf16 *d, int m,
                          int n) {
  using A = RowMajorSwizzled<e4m3, 64, 128, Swizzle::B128>;
  using B = RowMajorSwizzled<e4m3, N, 128, Swizzle::B128>;
  __shared__ alignas(1024) char sa[A::kBytes];
  __shared__ alignas(1024) char sb[B::kBytes];
  const int tid = threadIdx.x;
  fill<A>(sa, a, tid, 128);
  fill<B>(sb, b, tid, 128);
  using OpA = WgmmaOperand<A, Major::K, 32>;
  using OpB = WgmmaOperand<B, Major::K, 32>;
  float acc[N / 2];
  fence_operand(acc);
  wgmma_fence();
#pragma unroll
  for (int k = 0; k < OpA::kSlices; ++k)
    wgmma_e4m3<N>(acc, OpA::desc(smem_u32(sa), k), OpB::desc(smem_u32(sb), k),
                  k > 0);
  wgmma_commit();
  wgmma_wait<0>();
  fence_operand(acc);
  using Epi = Epilogue<bf16, Act::Relu>;
  typename Epi::Args args{d, n, nullptr, 0, nullptr, 0.5f, 0.f, m, n};
  Epi::template store_fragment<WgmmaAccMap<N>>(args, acc, 0, 0, tid);
}
__global__ void __launch_bounds__(128, 1)
wgmma_e4m3_n256(const uint4 *a, const uint4 *b, bf16 *d, int m, int n) {
  e4m3_tile<256>(a, b, d, m, n);
}
__global__ void __launch_bounds__(128, 1)
wgmma_e4m3_n128(const uint4 *a, const uint4 *b, bf16 *d, int m, int n) {
  e4m3_tile<128>(a, b, d, m, n);
}

// Producer / consumer register split: warpgroup 0 gives registers back,
// warpgroups 1 and 2 take them (3 x 128 threads, a cap at entry).
__global__ void __launch_bounds__(384, 1)
wgmma_setmaxnreg(const uint4 *a, const uint4 *b, bf16 *d, int m, int n) {
  __shared__ alignas(1024) char sa[A64::kBytes];
  __shared__ alignas(1024) char sb[B256::kBytes];
  const int tid = threadIdx.x;
  fill<A64>(sa, a, tid, 384);
  fill<B256>(sb, b, tid, 384);
  const int wg = tid / 128;
  if (wg == 0) {
    warpgroup_reg_dealloc<40>();
  } else {
    warpgroup_reg_alloc<232>();
    using OpA = WgmmaOperand<A64, Major::K, 16>;
    using OpB = WgmmaOperand<B256, Major::K, 16>;
    float acc[128];
    fence_operand(acc);
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < OpA::kSlices; ++k)
      wgmma_bf16<256>(acc, OpA::desc(smem_u32(sa), k),
                      OpB::desc(smem_u32(sb), k), k > 0);
    wgmma_commit();
    wgmma_wait<0>();
    fence_operand(acc);
    using Epi = Epilogue<bf16>;
    typename Epi::Args args{d, n, nullptr, 0, nullptr, 1.f, 0.f, m, n};
    Epi::store_fragment<WgmmaAccMap<256>>(args, acc, 64 * (wg - 1), 0,
                                          tid % 128);
  }
}

// Every instruction at a range of N: descriptors from the host (this is
// about the operand lists: N / 2 accumulators, then the descriptors, the
// scale and the transpose immediates), K-major bf16, MN-major-A f16, e4m3.
template <int N>
__device__ void all_types(float *out, unsigned long long da,
                          unsigned long long db) {
  float acc[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i)
    acc[i] = 0.f;
  fence_operand(acc);
  wgmma_fence();
  wgmma_bf16<N, false, true>(acc, da, db, 1);
  wgmma_f16<N, true, false>(acc, da, db, 1);
  wgmma_e4m3<N>(acc, da, db, 1);
  wgmma_commit();
  wgmma_wait<0>();
  fence_operand(acc);
#pragma unroll
  for (int i = 0; i < N / 2; ++i)
    out[i * 128 + threadIdx.x] = acc[i];
}
#define KGEN_TEST_SHAPE(N)                                                     \
  __global__ void __launch_bounds__(128, 1)                                    \
      wgmma_n##N(float *out, unsigned long long da, unsigned long long db) {   \
    all_types<N>(out, da, db);                                                 \
  }
KGEN_TEST_SHAPE(8)
KGEN_TEST_SHAPE(96)
KGEN_TEST_SHAPE(160)
KGEN_TEST_SHAPE(192)
KGEN_TEST_SHAPE(224)
KGEN_TEST_SHAPE(256)

// FlashAttention-3's second GEMM: S (64 x 64) = Q K^T by the descriptor
// form, P = bf16(S) converted in registers into the A fragment of the
// register form (accumulators 8s .. 8s + 7 are k-slice s's a[0..3], see
// WgmmaAFragMap), O (64 x 128) = P V with V a [64 keys][128] MN-major tile
// (imm-trans-b 1).
using VTile = RowMajorSwizzled<bf16, 64, 128, Swizzle::B128>;
__global__ void __launch_bounds__(128, 1)
wgmma_rs_pv(const uint4 *q, const uint4 *k, const uint4 *v, float *o) {
  __shared__ alignas(1024) char sq[A64::kBytes];
  __shared__ alignas(1024) char sk[B64t::kBytes];
  __shared__ alignas(1024) char sv[VTile::kBytes];
  const int tid = threadIdx.x;
  fill<A64>(sq, q, tid, 128);
  fill<B64t>(sk, k, tid, 128);
  fill<VTile>(sv, v, tid, 128);
  using OpQ = WgmmaOperand<A64, Major::K, 16>;
  using OpK = WgmmaOperand<B64t, Major::K, 16>;
  using OpV = WgmmaOperand<VTile, Major::MN, 16>;
  float s[32];
  fence_operand(s);
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < OpQ::kSlices; ++kk)
    wgmma_bf16<64>(s, OpQ::desc(smem_u32(sq), kk), OpK::desc(smem_u32(sk), kk),
                   kk > 0);
  wgmma_commit();
  wgmma_wait<0>();
  fence_operand(s);
  float acc[64];
  fence_operand(acc);
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < OpV::kSlices; ++kk) {
    unsigned a[4];
#pragma unroll
    for (int r = 0; r < 4; ++r)
      a[r] = cvt_bf16x2(s[8 * kk + 2 * r + 1], s[8 * kk + 2 * r]);
    wgmma_rs_bf16<128, true>(acc, a, OpV::desc(smem_u32(sv), kk), kk > 0);
  }
  wgmma_commit();
  wgmma_wait<0>();
  fence_operand(acc);
#pragma unroll
  for (int i = 0; i < 64; ++i)
    o[i * 128 + tid] = acc[i];
}

// The register form at every N of the table's sample: bf16 with B MN-major,
// f16 with B K-major.
template <int N>
__device__ void rs_types(float *out, const unsigned *regs,
                         unsigned long long db) {
  float acc[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i)
    acc[i] = 0.f;
  unsigned a[4];
#pragma unroll
  for (int r = 0; r < 4; ++r)
    a[r] = regs[r * 128 + threadIdx.x];
  fence_operand(acc);
  wgmma_fence();
  wgmma_rs_bf16<N, true>(acc, a, db, 1);
  wgmma_rs_f16<N, false>(acc, a, db, 1);
  wgmma_commit();
  wgmma_wait<0>();
  fence_operand(acc);
#pragma unroll
  for (int i = 0; i < N / 2; ++i)
    out[i * 128 + threadIdx.x] = acc[i];
}
#define KGEN_TEST_RS_SHAPE(N)                                                  \
  __global__ void __launch_bounds__(128, 1)                                    \
      wgmma_rs_n##N(float *out, const unsigned *regs, unsigned long long db) { \
    rs_types<N>(out, regs, db);                                                \
  }
KGEN_TEST_RS_SHAPE(8)
KGEN_TEST_RS_SHAPE(64)
KGEN_TEST_RS_SHAPE(96)
KGEN_TEST_RS_SHAPE(160)
KGEN_TEST_RS_SHAPE(256)
