// Compile test: Tma.cuh. A 3-stage TMA -> mbarrier pipeline (one producer
// thread, consumer warps release stages), a 2-CTA cluster multicast load with
// remote arrives, a TMA tile store, and a tile of a 4-D tensor map (two
// 4-D boxes).
// The multicast kernel is compiled for sm_90a only (see Tma.cuh).
// TARGETS: sm_90 sm_90a
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [
// CHECK-SM90A: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
// CHECK: cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// CHECK: cp.async.bulk.commit_group;
// CHECK: cp.async.bulk.wait_group.read 0;
// CHECK: mbarrier.init.shared::cta.b64
// CHECK: mbarrier.arrive.expect_tx.shared::cta.b64
// CHECK-SM90A: mbarrier.expect_tx.shared::cta.b64 [
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK: mbarrier.arrive.shared::cta.b64
// CHECK-SM90A: mapa.shared::cluster.u32
// CHECK-SM90A: mbarrier.arrive.release.cluster.shared::cluster.b64
// CHECK: fence.mbarrier_init.release.cluster;
// CHECK: fence.proxy.async.shared::cta;
// CHECK: prefetch.tensormap
// CHECK-SM90A: barrier.cluster.arrive.release.aligned;
// CHECK-SM90A: %cluster_ctarank
// CHECK: elect.sync _|p, %
// CHECK: bar.sync %
// CHECK: bar.arrive %
#include "kgen/cuda/Tma.cuh"

#include <cuda_bf16.h>

using namespace kgen::cuda;
using bf16 = __nv_bfloat16;

// (64 rows, 64 cols) bf16 = one 64 x 64 TMA box with the 128-byte swizzle.
using Tile = RowMajorSwizzled<bf16, 64, 64, Swizzle::B128>;
// (64 rows, 128 cols): two boxes.
using Wide = RowMajorSwizzled<bf16, 64, 128, Swizzle::B128>;
constexpr int kStages = 3;
constexpr int kThreads = 128;

__global__ void __launch_bounds__(kThreads)
tma_pipeline(const __grid_constant__ CUtensorMap map, float *out, int k_tiles) {
  __shared__ alignas(1024) char tiles[kStages][Tile::kBytes];
  __shared__ alignas(8) unsigned long long full[kStages], empty[kStages];
  const int tid = threadIdx.x, lane = tid % 32;
  if (tid == 0) {
    prefetch_tensormap(&map);
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&full[s], 1);            // the producer's arrive + tx bytes
      mbar_init(&empty[s], kThreads / 32); // one arrive per consumer warp
    }
    fence_barrier_init();
  }
  __syncthreads();
  float sum = 0.f;
  for (int kt = 0; kt < k_tiles; ++kt) {
    const int s = kt % kStages;
    const unsigned phase = (kt / kStages) % 2;
    if (tid == 0) { // producer: wait for the slot, then load into it
      if (kt >= kStages)
        mbar_wait(&empty[s], phase ^ 1);
      mbar_arrive_expect_tx(&full[s], Tile::kBytes);
      tma_load_tile<Tile>(tiles[s], &map, &full[s], kt * Tile::kCols,
                          blockIdx.x * Tile::kRows);
    }
    mbar_wait(&full[s], phase); // consumers
    sum += __bfloat162float(reinterpret_cast<const bf16 *>(
        tiles[s])[Tile::offset(tid % Tile::kRows, kt % Tile::kCols)]);
    __syncwarp();
    if (lane == 0)
      mbar_arrive(&empty[s]);
  }
  out[blockIdx.x * kThreads + tid] = sum;
}

// One Wide tile of a [batch][head][seq][128] tensor: rows 64 blockIdx.x ..
// of head blockIdx.y of batch blockIdx.z (two boxes {64, 64, 1, 1}).
__global__ void __launch_bounds__(kThreads)
tma_4d_tile(const __grid_constant__ CUtensorMap map, float *out) {
  __shared__ alignas(1024) char tile[Wide::kBytes];
  __shared__ alignas(8) unsigned long long full;
  const int tid = threadIdx.x;
  if (tid == 0) {
    mbar_init(&full, 1);
    fence_barrier_init();
  }
  __syncthreads();
  if (tid == 0) {
    mbar_arrive_expect_tx(&full, Wide::kBytes);
    tma_load_tile<Wide>(tile, &map, &full, 0, blockIdx.x * Wide::kRows,
                        blockIdx.y, blockIdx.z);
  }
  mbar_wait(&full, 0);
  out[tid] = __bfloat162float(reinterpret_cast<const bf16 *>(
      tile)[Wide::offset(tid % Wide::kRows, tid)]);
}

#if !defined(__CUDA_ARCH__) || KGEN_SM90A // multicast needs sm_90a
// Each CTA of a 2-CTA cluster loads half of the rows of a shared Wide tile
// and multicasts it to both; the tile arrives on both CTAs' barriers.
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(kThreads)
tma_multicast(const __grid_constant__ CUtensorMap map, float *out) {
  __shared__ alignas(1024) char tile[Wide::kBytes];
  __shared__ alignas(8) unsigned long long full, done;
  const int tid = threadIdx.x;
  const unsigned rank = cluster_ctarank();
  if (tid == 0) {
    mbar_init(&full, 1);
    mbar_init(&done, 1); // the peer CTA's remote arrive
    fence_barrier_init();
  }
  cluster_sync(); // both CTAs' barriers are initialised before any copy
  if (tid == 0) {
    // Both halves land here (the peer's may arrive first: the tx-count may
    // go negative, but the phase waits for this thread's arrive).
    mbar_expect_tx(&full, Wide::kBytes);
    // This CTA's half: column block `rank` of the tile, to both CTAs.
    tma_load_2d_multicast(tile + rank * Wide::kBlockBytes, &map, &full,
                          rank * Wide::kBlockCols, blockIdx.y * Wide::kRows,
                          0x3);
    mbar_arrive(&full);
  }
  mbar_wait(&full, 0);
  out[(blockIdx.x * gridDim.y + blockIdx.y) * kThreads + tid] =
      __bfloat162float(reinterpret_cast<const bf16 *>(
          tile)[Wide::offset(tid % Wide::kRows, tid)]);
  __syncthreads();
  if (tid == 0) {
    mbar_arrive_cluster(&done, rank ^ 1); // tell the peer we have read
    mbar_wait(&done, 0);
  }
  cluster_sync(); // no CTA exits while its peer may still touch its memory
}
#endif

// Stages a tile in shared memory and stores it with TMA. Warps 0-1 stage
// and store (synchronising on named barrier 1 only); warps 2-3 signal on
// named barrier 2 and leave.
__global__ void __launch_bounds__(kThreads)
tma_store(const __grid_constant__ CUtensorMap map, const uint4 *src) {
  __shared__ alignas(1024) char tile[Tile::kBytes];
  const int tid = threadIdx.x;
  if (tid >= 64) {
    named_barrier_arrive(2, kThreads);
    return;
  }
  for (int i = tid; i < Tile::kBytes / 16; i += 64)
    reinterpret_cast<uint4 *>(tile)[i] = src[blockIdx.x * (Tile::kBytes / 16) + i];
  fence_proxy_async(); // generic-proxy writes -> visible to the TMA engine
  named_barrier_sync(1, 64);
  named_barrier_sync(2, kThreads);
  if (tid < 32 && elect_one()) {
    tma_store_2d(&map, tile, 0, blockIdx.x * Tile::kRows);
    tma_store_commit();
    tma_store_wait_read<0>();
  }
}
