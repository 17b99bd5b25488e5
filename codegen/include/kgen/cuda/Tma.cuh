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
//   tma_load_4d(dst, map, bar, c0, c1, c2, c3), tma_load_tile<Layout>(dst,
//       map, bar, col0, row0, c2, c3)   the same from a 4-D map (boxes
//       {.., .., 1, 1}): e.g. a [batch][head][seq][dim] attention operand,
//       c2 = head, c3 = batch.
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
#include "kgen/cuda/Layout.cuh"

// Under KGEN_EMULATE the emulated device declares CUtensorMap (its own
// 128-byte encoding, kgen/emulate/TensorMap.h).
#if KGEN_CUDA_COMPILER && !KGEN_EMULATE
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

#include "kgen/cuda/Ptx.cuh"

namespace kgen::cuda {

#if KGEN_CUDA_COMPILER

/// Blocks until the phase with parity `parity` has completed.
template <int kDummy = 0>
KGEN_DEVICE void mbar_wait(unsigned long long *bar, unsigned parity) {
  while (!mbar_try_wait<kDummy>(bar, parity)) {
  }
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

/// The same tile at (c2, c3) of the two outer dimensions of a 4-D tensor map
/// (box {kBlockCols, kRows, 1, 1}).
template <class Layout>
KGEN_DEVICE void tma_load_tile(void *smem_tile, const CUtensorMap *map,
                               unsigned long long *bar, int col0, int row0,
                               int c2, int c3) {
  static_assert(IsSwizzledLayout<Layout>::value,
                "tma_load_tile writes the TMA swizzled layout");
#pragma unroll
  for (int b = 0; b < Layout::kBlocks; ++b)
    tma_load_4d(static_cast<char *>(smem_tile) + b * Layout::kBlockBytes, map,
                bar, col0 + b * Layout::kBlockCols, row0, c2, c3);
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

#endif // KGEN_CUDA_COMPILER

} // namespace kgen::cuda

#endif // KGEN_CUDA_TMA_CUH
