//===- Tma.cuh - TMA tile loads on mbarriers (sm_90) -------------*- CUDA -*-===//
//
// The copy-engine path of Hopper mainloops.
//
// mbarrier (a 64-bit object in shared memory, 8-byte aligned):
//   mbar_init(bar, count)          mbarrier.init; then fence_barrier_init()
//                                  and a __syncthreads()/cluster_sync()
//                                  before any other thread uses it
//   mbar_arrive_expect_tx(bar, n)  arrive once and expect n more bytes
//   mbar_expect_tx(bar, n)         expect n more bytes without arriving
//   mbar_arrive(bar)               plain arrive (consumer releases a stage)
//   mbar_arrive_cluster(bar, cta)  arrive on the barrier at the same offset
//                                  in CTA `cta` of the cluster
//   mbar_try_wait(bar, parity) -> bool, mbar_wait(bar, parity)
//                                  mbarrier.try_wait.parity (loop in C++)
// TMA (cp.async.bulk.tensor, 2-D tiles):
//   tma_load_2d(dst, map, bar, c0, c1)   box at coordinates (c0 inner, c1
//       outer) -> shared memory, completion counted in bytes on `bar`.
//       Out-of-bounds box elements are written as zero and still counted, so
//       partial tiles expect the full box bytes.
//   tma_load_2d_multicast(dst, map, bar, c0, c1, cta_mask)   the same box to
//       the same offset in every CTA of the cluster in cta_mask; each
//       destination CTA's barrier at `bar`'s offset receives the bytes.
//   tma_load_tile<Layout>(dst, map, bar, col0, row0)   a RowMajorSwizzled
//       tile: one box per S-byte column block (Layout::kBlocks boxes of
//       {Layout::kBlockCols, Layout::kRows}); expect Layout::kBytes.
//   tma_load_3d(dst, map, bar, c0, c1, c2), tma_load_tile<Layout>(dst, map,
//       bar, col0, row0, plane)   the same from a 3-D map (boxes {.., .., 1}):
//       a batched operand, plane = its batch index.
//   tma_store_2d(map, src, c0, c1), tma_store_commit(),
//   tma_store_wait_read<N>()             shared -> global tile stores.
//   prefetch_tensormap(map)
// Fences and clusters:
//   fence_proxy_async()   fence.proxy.async.shared::cta: ordinary stores to
//       shared memory become visible to TMA/wgmma (async proxy) reads
//   fence_barrier_init(), cluster_ctarank(), cluster_nctarank(),
//   cluster_sync(),
//   named_barrier_sync/arrive(id, threads) (bar.sync / bar.arrive: a subset
//   of warps, e.g. the consumer warpgroups), elect_one() (elect.sync)
//
// The tensor map is built on the host (cuTensorMapEncodeTiled, by the
// runtime) and passed to the kernel as `const __grid_constant__ CUtensorMap`;
// pass its address here. For tma_load_tile<Layout> the map must have
// boxDim = {Layout::kBlockCols, Layout::kRows}, elementStrides {1, 1},
// CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle CU_TENSOR_MAP_SWIZZLE_<S>B and
// zero OOB fill; global base 16-byte aligned and row pitch a multiple of 16
// bytes (else use CpAsync.cuh's safe path).
//
// Targets: sm_90+ (plain sm_90 suffices), except the multicast loads, which
// need sm_90a. Calling these on an older target is a compile error. Under NVRTC, which
// cannot include <cuda.h>, CUtensorMap is declared here with the driver's
// layout (128 bytes, 64-byte aligned).
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_CUDA_TMA_CUH
#define KGEN_CUDA_TMA_CUH

#include "kgen/cuda/Common.cuh"

#if KGEN_EMULATE
#error "the emulated device does not emulate this header's sm_90 instructions \
yet (docs/emulated-device.md): move them into the instruction layer (Ptx.cuh) \
with an emulation first"
#endif
#include "kgen/cuda/Layout.cuh"

#if KGEN_CUDA_COMPILER
#if defined(__CUDACC_RTC__)
#ifndef CU_TENSOR_MAP_NUM_QWORDS
#define CU_TENSOR_MAP_NUM_QWORDS 16
typedef struct CUtensorMap_st {
  alignas(64) unsigned long long opaque[CU_TENSOR_MAP_NUM_QWORDS];
} CUtensorMap;
#endif
#else
#include <cuda.h>
#endif
#endif

namespace kgen::cuda {

#if KGEN_CUDA_COMPILER

#define KGEN_REQUIRE_SM90(dep, what)                                           \
  static_assert(KGEN_ARCH == 0 || KGEN_ARCH >= 900 || kFalse<dep>,             \
                what " needs sm_90+ (TMA / mbarrier transaction counts)")

//===----------------------------------------------------------------------===//
// mbarrier
//===----------------------------------------------------------------------===//

template <int kDummy = 0>
KGEN_DEVICE void mbar_init(unsigned long long *bar, unsigned count) {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::mbar_init");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)),
               "r"(count)
               : "memory");
#endif
}

/// Makes mbarrier inits visible to the cluster (and to the async proxy);
/// follow it with __syncthreads() or cluster_sync().
template <int kDummy = 0> KGEN_DEVICE void fence_barrier_init() {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::fence_barrier_init");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}

template <int kDummy = 0>
KGEN_DEVICE void mbar_arrive_expect_tx(unsigned long long *bar,
                                       unsigned bytes) {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::mbar_arrive_expect_tx");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(
                   smem_u32(bar)),
               "r"(bytes)
               : "memory");
#endif
}

template <int kDummy = 0>
KGEN_DEVICE void mbar_expect_tx(unsigned long long *bar, unsigned bytes) {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::mbar_expect_tx");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.expect_tx.shared::cta.b64 [%0], %1;\n" ::"r"(
                   smem_u32(bar)),
               "r"(bytes)
               : "memory");
#endif
}

template <int kDummy = 0> KGEN_DEVICE void mbar_arrive(unsigned long long *bar) {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::mbar_arrive");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_u32(bar))
               : "memory");
#endif
}

/// Arrives on the barrier at `bar`'s shared-memory offset in cluster CTA
/// `cta_rank` (release at cluster scope).
template <int kDummy = 0>
KGEN_DEVICE void mbar_arrive_cluster(unsigned long long *bar,
                                     unsigned cta_rank) {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::mbar_arrive_cluster");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("{\n"
               ".reg .b32 remote;\n"
               "mapa.shared::cluster.u32 remote, %0, %1;\n"
               "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n"
               "}\n" ::"r"(smem_u32(bar)),
               "r"(cta_rank)
               : "memory");
#endif
}

/// True once the phase with parity `parity` (0 or 1) has completed. The
/// hardware may suspend the thread for a while before returning false.
template <int kDummy = 0>
KGEN_DEVICE bool mbar_try_wait(unsigned long long *bar, unsigned parity) {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::mbar_try_wait");
  unsigned done = 1;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("{\n"
               ".reg .pred p;\n"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
               "selp.u32 %0, 1, 0, p;\n"
               "}\n"
               : "=r"(done)
               : "r"(smem_u32(bar)), "r"(parity)
               : "memory");
#endif
  return done != 0;
}

/// Blocks until the phase with parity `parity` has completed.
template <int kDummy = 0>
KGEN_DEVICE void mbar_wait(unsigned long long *bar, unsigned parity) {
  while (!mbar_try_wait<kDummy>(bar, parity)) {
  }
}

//===----------------------------------------------------------------------===//
// TMA
//===----------------------------------------------------------------------===//

template <int kDummy = 0>
KGEN_DEVICE void tma_load_2d(void *smem_dst, const CUtensorMap *map,
                             unsigned long long *bar, int c0, int c1) {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::tma_load_2d");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(
                   smem_u32(smem_dst)),
               "l"(reinterpret_cast<unsigned long long>(map)),
               "r"(smem_u32(bar)), "r"(c0), "r"(c1)
               : "memory");
#endif
}

/// The box at (c0 inner, c1, c2 outer) of a 3-D tensor map: a batched
/// operand's tile, c2 = the batch index.
template <int kDummy = 0>
KGEN_DEVICE void tma_load_3d(void *smem_dst, const CUtensorMap *map,
                             unsigned long long *bar, int c0, int c1, int c2) {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::tma_load_3d");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(
                   smem_u32(smem_dst)),
               "l"(reinterpret_cast<unsigned long long>(map)),
               "r"(smem_u32(bar)), "r"(c0), "r"(c1), "r"(c2)
               : "memory");
#endif
}

/// Needs sm_90a: ptxas accepts .multicast::cluster on plain sm_90 only with
/// an advisory warning (the PTX may run slowly on later architectures).
template <int kDummy = 0>
KGEN_DEVICE void tma_load_2d_multicast(void *smem_dst, const CUtensorMap *map,
                                       unsigned long long *bar, int c0, int c1,
                                       unsigned short cta_mask) {
  static_assert(KGEN_ARCH == 0 || KGEN_SM90A || kFalse<kDummy>,
                "kgen::cuda::tma_load_2d_multicast needs sm_90a: compile with "
                "-gencode arch=compute_90a,code=sm_90a (NVRTC: -arch=sm_90a)");
#if KGEN_SM90A
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes.multicast::cluster [%0], [%1, {%4, %5}], "
               "[%2], %3;\n" ::"r"(smem_u32(smem_dst)),
               "l"(reinterpret_cast<unsigned long long>(map)),
               "r"(smem_u32(bar)), "h"(cta_mask), "r"(c0), "r"(c1)
               : "memory");
#endif
}

/// Loads a RowMajorSwizzled tile whose (0, 0) is global (row0, col0): one
/// box per column block. Expect Layout::kBytes on `bar`.
template <class Layout>
KGEN_DEVICE void tma_load_tile(void *smem_tile, const CUtensorMap *map,
                               unsigned long long *bar, int col0, int row0) {
  static_assert(IsSwizzledLayout<Layout>::value,
                "tma_load_tile writes the TMA swizzled layout");
#pragma unroll
  for (int b = 0; b < Layout::kBlocks; ++b)
    tma_load_2d(static_cast<char *>(smem_tile) + b * Layout::kBlockBytes, map,
                bar, col0 + b * Layout::kBlockCols, row0);
}

/// The same tile of plane `plane` of a 3-D tensor map (box {kBlockCols,
/// kRows, 1}).
template <class Layout>
KGEN_DEVICE void tma_load_tile(void *smem_tile, const CUtensorMap *map,
                               unsigned long long *bar, int col0, int row0,
                               int plane) {
  static_assert(IsSwizzledLayout<Layout>::value,
                "tma_load_tile writes the TMA swizzled layout");
#pragma unroll
  for (int b = 0; b < Layout::kBlocks; ++b)
    tma_load_3d(static_cast<char *>(smem_tile) + b * Layout::kBlockBytes, map,
                bar, col0 + b * Layout::kBlockCols, row0, plane);
}

/// The same with multicast to the CTAs in cta_mask.
template <class Layout>
KGEN_DEVICE void tma_load_tile_multicast(void *smem_tile, const CUtensorMap *map,
                                         unsigned long long *bar, int col0,
                                         int row0, unsigned short cta_mask) {
  static_assert(IsSwizzledLayout<Layout>::value,
                "tma_load_tile writes the TMA swizzled layout");
#pragma unroll
  for (int b = 0; b < Layout::kBlocks; ++b)
    tma_load_2d_multicast(static_cast<char *>(smem_tile) + b * Layout::kBlockBytes,
                          map, bar, col0 + b * Layout::kBlockCols, row0,
                          cta_mask);
}

/// Shared -> global box store; out-of-bounds box elements are not written.
/// The shared source must have been made visible with fence_proxy_async().
template <int kDummy = 0>
KGEN_DEVICE void tma_store_2d(const CUtensorMap *map, const void *smem_src,
                              int c0, int c1) {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::tma_store_2d");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group "
               "[%0, {%2, %3}], [%1];\n" ::"l"(
                   reinterpret_cast<unsigned long long>(map)),
               "r"(smem_u32(smem_src)), "r"(c0), "r"(c1)
               : "memory");
#endif
}

template <int kDummy = 0> KGEN_DEVICE void tma_store_commit() {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::tma_store_commit");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
#endif
}

/// Waits until at most N store groups still read their shared source.
template <int N> KGEN_DEVICE void tma_store_wait_read() {
  static_assert(N >= 0, "cp.async.bulk.wait_group takes N >= 0");
  KGEN_REQUIRE_SM90(N, "kgen::cuda::tma_store_wait_read");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
#endif
}

template <int kDummy = 0>
KGEN_DEVICE void prefetch_tensormap(const CUtensorMap *map) {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::prefetch_tensormap");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(
                   reinterpret_cast<unsigned long long>(map))
               : "memory");
#endif
}

//===----------------------------------------------------------------------===//
// Fences and clusters
//===----------------------------------------------------------------------===//

/// Ordinary shared-memory stores by this thread -> visible to later async
/// proxy reads (TMA stores, wgmma operands) after a barrier.
template <int kDummy = 0> KGEN_DEVICE void fence_proxy_async() {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::fence_proxy_async");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

/// Named barrier `id` (1..15; 0 is __syncthreads') over `threads` threads
/// (a multiple of 32): e.g. the consumer warpgroups alone, while the producer
/// keeps loading. bar.sync waits; bar.arrive only signals.
KGEN_DEVICE void named_barrier_sync(unsigned id, unsigned threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
KGEN_DEVICE void named_barrier_arrive(unsigned id, unsigned threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

/// True in exactly one active lane of the warp (elect.sync; all 32 lanes
/// must execute it): the thread that issues TMA or arrives for the warp.
template <int kDummy = 0> KGEN_DEVICE bool elect_one() {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::elect_one");
  unsigned pred = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("{\n"
               ".reg .pred p;\n"
               "elect.sync _|p, %1;\n"
               "selp.u32 %0, 1, 0, p;\n"
               "}\n"
               : "=r"(pred)
               : "r"(0xffffffffu));
#endif
  return pred != 0;
}

template <int kDummy = 0> KGEN_DEVICE unsigned cluster_ctarank() {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::cluster_ctarank");
  unsigned r = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
#endif
  return r;
}

/// The number of CTAs in this CTA's cluster (1 without a cluster launch).
template <int kDummy = 0> KGEN_DEVICE unsigned cluster_nctarank() {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::cluster_nctarank");
  unsigned n = 1;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(n));
#endif
  return n;
}

/// All threads of all CTAs in the cluster: arrive (release) then wait
/// (acquire).
template <int kDummy = 0> KGEN_DEVICE void cluster_sync() {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::cluster_sync");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release.aligned;\n"
               "barrier.cluster.wait.acquire.aligned;\n" ::
                   : "memory");
#endif
}

#undef KGEN_REQUIRE_SM90

#endif // KGEN_CUDA_COMPILER

} // namespace kgen::cuda

#endif // KGEN_CUDA_TMA_CUH
