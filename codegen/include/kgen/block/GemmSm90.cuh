//===- GemmSm90.cuh - warp-specialised wgmma + TMA block steps --*- CUDA -*-===//
//
// The sm_90a realisation of a kgen.tile.pipeline of bf16, f16 or e4m3 GEMM
// tiles (instruction family wgmma, tma, warp_specialized); the emitter
// prints `using Pipeline = WgmmaPipeline<...>`, `Pipeline::run` into a
// WgmmaAccumulator and the consumers' epilogue (codegen/test/kernels/
// gemm_sm90.cu is built the same way and run by the GPU test):
//
//   warpgroup 0 produces: one thread issues the TMA loads of k tile
//     k (A box and B box, 128-byte swizzled) into the next stage of the
//     ring once that stage is free (its `empty` mbarrier), completing on
//     the stage's `full` mbarrier; the group gives registers back
//     (setmaxnreg.dec to kProducerRegs);
//   warpgroups 1 .. BM / 64 consume (setmaxnreg.inc to kConsumerRegs): each
//     waits for `full`, runs the stage's wgmmas (m64nBNk16, k32 for e4m3)
//     on its 64 rows of the tile (B from the same stage), and frees the
//     stage of the previous k tile once its wgmmas are done.
// The stage index and barrier parity of both roles are PipelineStates
// (Pipeline.cuh): the producer starts one parity ahead (producer_start).
//
// Batched operands (BatchedA / BatchedB) come through 3-D tensor maps of
// (batch, rows, cols) with boxes {inner, outer, 1}: the tile of plane bz.
//
// Clusters of ClusterM blocks along M (consecutive tiles of one column, the
// same n0: the lowering's raster guarantees it) share the B tile: each
// block's producer loads 1/ClusterM of it (K-major B: a band of BN /
// ClusterM rows; MN-major B: LB::kBlocks / ClusterM of its 64-column
// blocks) and multicasts it to every block of the cluster, so each block's
// `full` barrier receives its own A and the whole B. A stage is free again
// only when the consumers of every block of the cluster released it: each
// consumer warpgroup arrives on the `empty` barrier of every block. The
// blocks meet in cluster barriers after the barrier inits (before any
// multicast) and at the end (finish(): no block leaves while a peer may
// still arrive on its barriers).
//
// K tiles are visited in the order of the CPU check (dialect/KgenTileOps.td).
// Edges need no masks: TMA zero-fills out-of-bounds box elements, so partial
// tiles and K tails add zeros.
//
// Limits (static_asserts, each stating the rule; the compiler's legality
// states the same):
//   T bf16 or f16 (BK = 64) or e4m3 (BK = 128): 128-byte K rows,
//     BK * sizeof(T) == 128, one 128-byte swizzle block per row;
//   e4m3: both operands K-major (!TransA && TransB: A (M, K), B (N, K));
//   BM 64, 128 or 192: 1, 2 or 3 consumer warpgroups of 64 rows;
//   K-major B (TransB): BN a multiple of 8 in [8, 256] (every wgmma N);
//   MN-major B: BN a multiple of 64 in [64, 256] (whole 64-column swizzle
//     blocks);
//   registers: ptxas compiles the whole kernel within the registers a
//     thread has at launch, 65536 / kThreads rounded down to a multiple of
//     8 (and at most the largest setmaxnreg count): 232 for BM 64, 168 for
//     BM 128, 128 for BM 192; setmaxnreg.inc does not raise that limit. A
//     consumer holds BN / 2 f32 accumulators, and its wgmma needs about
//     BN / 2 + 26 registers. Measured (nvcc 13.0, every type, layout,
//     epilogue, cluster, batched and split-K form): BM 64 and 128 compile
//     up to BN 256 with no spill or stack; BM 192 up to BN 200, and BN 208
//     or more fails in ptxas (C7602: insufficient registers). Rule: three
//     consumer warpgroups (BM 192) need BN <= 192;
//   Stages >= 2 (a consumer frees a stage only after waiting for the next);
//   clusters: ClusterM in 1..8, BN % ClusterM == 0, K-major B:
//     (BN / ClusterM) % 8 == 0 (bands of whole 8-row swizzle atoms),
//     MN-major B: (BN / 64) % ClusterM == 0 (whole 64-column blocks); a
//     batched B only with ClusterM == 1;
//   setmaxnreg split within 64K registers: kProducerRegs * 128 +
//     kConsumerRegs * 128 * kConsumers <= 65536 (40 / 232 for one or two
//     consumer warpgroups, 32 / 160 for three, as FlashAttention-3);
//   kSmemBytes = 1024 + Stages * (A tile + B tile) + 16 * Stages <= 232448
//     (sm_90's opt-in maximum per block).
//
// Preconditions: blockDim.x == kThreads, __launch_bounds__(kThreads, 1)
// (setmaxnreg needs the register cap at entry); dynamic shared memory
// kSmemBytes; the tensor maps cover A and B as stored (row-major; (M, K) or,
// with TransA, (K, M); (K, N) or, with TransB, (N, K)) with boxes
// {kBoxAInner, kBoxAOuter} / {kBoxBInner, kBoxBOuter} elements and
// CU_TENSOR_MAP_SWIZZLE_128B; with clusters, launched in clusters of
// ClusterM blocks that share n0 (the emitter: cluster dimensions (ClusterM,
// 1, 1)), cluster_ctarank() giving each its band of B, and every thread of
// the block calling finish() after the epilogue. Target: sm_90a.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_BLOCK_GEMMSM90_CUH
#define KGEN_BLOCK_GEMMSM90_CUH

#include "kgen/block/Gemm.cuh"
#include "kgen/block/Pipeline.cuh"
#include "kgen/cuda/Tma.cuh"
#include "kgen/cuda/Wgmma.cuh"

namespace kgen::block {

using kgen::cuda::kIsSame;

template <class T, int BM, int BN, int Stages, bool TransA, bool TransB,
          int ClusterM = 1, bool BatchedA = false, bool BatchedB = false>
struct WgmmaPipeline {
  static constexpr bool kFp8 = sizeof(T) == 1;
  static constexpr int BK = 128 / int(sizeof(T)); // 128-byte rows
  static constexpr int kConsumers = BM / 64;
  static constexpr int kThreads = 128 * (1 + kConsumers);
  /// setmaxnreg split: the producer warpgroup gives registers back, the
  /// consumers take them; all warpgroups of the block within the 64K
  /// registers of the SM (one block per SM: __launch_bounds__(kThreads, 1)).
  static constexpr int kProducerRegs = kConsumers == 3 ? 32 : 40;
  static constexpr int kConsumerRegs = kConsumers == 3 ? 160 : 232;
  static constexpr int kRegisterFile = 65536;
  /// The sm_90 opt-in maximum of dynamic shared memory per block.
  static constexpr int kMaxSmemBytes = 232448;

  static_assert(kIsSame<T, __nv_bfloat16> || kIsSame<T, __half> ||
                    kIsSame<T, __nv_fp8_e4m3>,
                "the wgmma pipeline takes bf16, f16 or e4m3 operands");
  static_assert(BK * int(sizeof(T)) == 128,
                "K tiles of 128-byte rows: BK = 64 for bf16/f16, 128 for e4m3");
  static_assert(!kFp8 || (!TransA && TransB),
                "e4m3 wgmma needs both operands K-major: A (M, K), B (N, K)");
  static_assert(BM == 64 || BM == 128 || BM == 192,
                "BM is 64, 128 or 192: one, two or three consumer warpgroups "
                "of 64 rows");
  static_assert(!TransB || (BN % 8 == 0 && BN >= 8 && BN <= 256),
                "K-major B (TransB): BN a multiple of 8 in [8, 256] (wgmma N)");
  static_assert(TransB || (BN % 64 == 0 && BN >= 64 && BN <= 256),
                "MN-major B: BN a multiple of 64 in [64, 256] (whole 128-byte "
                "swizzle blocks of 64 columns)");
  // A consumer frees stage k - 1 only after waiting for stage k: with one
  // stage, the producer and the consumers would wait for each other.
  static_assert(Stages >= 2, "at least two stages");
  static_assert(ClusterM >= 1 && ClusterM <= 8, "clusters of 1 to 8 blocks");
  static_assert(BN % ClusterM == 0, "BN a multiple of ClusterM");
  static_assert(!TransB || (BN / ClusterM) % 8 == 0,
                "K-major B in a cluster: (BN / ClusterM) % 8 == 0 (bands of "
                "whole 8-row swizzle atoms)");
  static_assert(TransB || (BN / 64) % ClusterM == 0,
                "MN-major B in a cluster: (BN / 64) % ClusterM == 0 (whole "
                "64-column blocks per block)");
  static_assert(!BatchedB || ClusterM == 1,
                "batched B is not multicast (3-D maps, one block per plane): "
                "ClusterM == 1");
  static_assert(kProducerRegs * 128 + kConsumerRegs * 128 * kConsumers <=
                    kRegisterFile,
                "the setmaxnreg split fits the 64K registers of the SM");
  // ptxas compiles the kernel in 65536 / kThreads registers per thread (128
  // with three consumers), whatever setmaxnreg.inc asks for; the BN / 2
  // accumulators and the wgmma's operands must fit (see the file comment).
  static_assert(kConsumers < 3 || BN <= 192,
                "three consumer warpgroups (BM 192): BN <= 192 (the kernel "
                "compiles in 128 registers per thread; BN / 2 accumulators)");

  static constexpr kgen::cuda::Major kMajorA =
      TransA ? kgen::cuda::Major::MN : kgen::cuda::Major::K;
  static constexpr kgen::cuda::Major kMajorB =
      TransB ? kgen::cuda::Major::K : kgen::cuda::Major::MN;
  using Swz = kgen::cuda::Swizzle;
  // Shared tiles exactly as TMA writes them.
  using LA = kgen::cuda::RowMajorSwizzled<T, TransA ? BK : BM,
                                          TransA ? BM : BK, Swz::B128>;
  using LB = kgen::cuda::RowMajorSwizzled<T, TransB ? BN : BK,
                                          TransB ? BK : BN, Swz::B128>;
  static constexpr int kSliceK = 32 / int(sizeof(T)); // K of one wgmma
  using OpA = kgen::cuda::WgmmaOperand<LA, kMajorA, kSliceK>;
  using OpB = kgen::cuda::WgmmaOperand<LB, kMajorB, kSliceK>;
  static constexpr int kStageBytes = LA::kBytes + LB::kBytes;
  /// Stages (1 KiB aligned for the swizzle) then the full/empty barriers.
  static constexpr int kSmemBytes = 1024 + Stages * kStageBytes + 16 * Stages;
  static_assert(kSmemBytes <= kMaxSmemBytes,
                "kSmemBytes <= 232448 (sm_90's opt-in shared memory per "
                "block): fewer stages or a smaller tile");
  // B split over the cluster: K-major B (BN, BK) by row bands, each on a
  // whole 8-row swizzle atom (1 KiB: TMA swizzles by address, so the band
  // lands where the whole-tile load would put it); MN-major B (BK, BN) by
  // 64-column blocks.
  static constexpr int kBandRows =
      kMajorB == kgen::cuda::Major::K ? BN / ClusterM : LB::kRows;
  static constexpr int kBandBlocks =
      kMajorB == kgen::cuda::Major::K ? LB::kBlocks : LB::kBlocks / ClusterM;
  /// TMA boxes, {inner, outer} elements (B's: one block's band).
  static constexpr int kBoxAInner = LA::kBlockCols, kBoxAOuter = LA::kRows;
  static constexpr int kBoxBInner = LB::kBlockCols, kBoxBOuter = kBandRows;

  /// This block's share of B's tile for k tile column k0, multicast to the
  /// cluster (or the whole tile, without one).
  KGEN_DEVICE static void loadB(char *sb, const CUtensorMap *mapB,
                                unsigned long long *full, int n0, int k0,
                                int plane) {
    if constexpr (BatchedB) {
      if constexpr (TransB) // (batch, N, K): x = k, y = n, z = batch
        kgen::cuda::tma_load_tile<LB>(sb, mapB, full, k0, n0, plane);
      else // (batch, K, N)
        kgen::cuda::tma_load_tile<LB>(sb, mapB, full, n0, k0, plane);
    } else if constexpr (ClusterM == 1) {
      if constexpr (TransB) // (N, K): x = k, y = n
        kgen::cuda::tma_load_tile<LB>(sb, mapB, full, k0, n0);
      else // (K, N): x = n, y = k
        kgen::cuda::tma_load_tile<LB>(sb, mapB, full, n0, k0);
    } else {
      constexpr unsigned short kMask = (1u << ClusterM) - 1u;
      const int rank = int(kgen::cuda::cluster_ctarank());
      if constexpr (kMajorB == kgen::cuda::Major::K) {
        // Rows [rank * kBandRows, +kBandRows) of each column block.
#pragma unroll
        for (int b = 0; b < LB::kBlocks; ++b)
          kgen::cuda::tma_load_2d_multicast(
              sb + b * LB::kBlockBytes + rank * kBandRows * LB::kRowBytes,
              mapB, full, k0 + b * LB::kBlockCols, n0 + rank * kBandRows,
              kMask);
      } else {
        // Column blocks [rank * kBandBlocks, +kBandBlocks).
#pragma unroll
        for (int b = 0; b < kBandBlocks; ++b) {
          const int blk = rank * kBandBlocks + b;
          kgen::cuda::tma_load_2d_multicast(sb + blk * LB::kBlockBytes, mapB,
                                            full, n0 + blk * LB::kBlockCols,
                                            k0, kMask);
        }
      }
    }
  }

  /// Frees a stage for every producer that writes into it: this block's
  /// and, in a cluster, the peers' (one arrive per consumer warpgroup).
  KGEN_DEVICE static void release(unsigned long long *empty) {
    if constexpr (ClusterM == 1) {
      kgen::cuda::mbar_arrive(empty);
    } else {
#pragma unroll
      for (int c = 0; c < ClusterM; ++c)
        kgen::cuda::mbar_arrive_cluster(empty, unsigned(c));
    }
  }

  /// Every thread of the block, after its epilogue: in a cluster, waits for
  /// the peers, which may still arrive on this block's barriers.
  KGEN_DEVICE static void finish() {
    if constexpr (ClusterM > 1) {
      __syncwarp(); // the producer warp's lanes reconverge: .aligned barrier
      kgen::cuda::cluster_sync();
    }
  }

  /// Runs K tiles [ktBegin, ktEnd) of batch `bz` (the plane of batched
  /// operands' 3-D maps; unbatched ones ignore it). Consumers return true
  /// with their 64 x BN slice of the tile in `acc` (zeroed here); the
  /// producer returns false.
  KGEN_DEVICE static bool run(const CUtensorMap *mapA, const CUtensorMap *mapB,
                              long m0, long n0, long ktBegin, long ktEnd,
                              float (&acc)[BN / 2], long bz = 0) {
    extern __shared__ __align__(128) unsigned char smemRaw[];
    char *smem = reinterpret_cast<char *>(
        (reinterpret_cast<unsigned long long>(smemRaw) + 1023) & ~1023ull);
    unsigned long long *full =
        reinterpret_cast<unsigned long long *>(smem + Stages * kStageBytes);
    unsigned long long *empty = full + Stages;
    const int tid = threadIdx.x, wg = tid / 128;

    if (tid == 0) {
      // A launch without the cluster the multicast masks assume would hang
      // on barriers no peer signals: fail instead.
      if (kgen::cuda::cluster_nctarank() != unsigned(ClusterM))
        __trap();
      kgen::cuda::prefetch_tensormap(mapA);
      kgen::cuda::prefetch_tensormap(mapB);
      for (int s = 0; s < Stages; ++s) {
        kgen::cuda::mbar_init(&full[s], 1); // producer + bytes
        // One arrive per consumer warpgroup of each block of the cluster.
        kgen::cuda::mbar_init(&empty[s], kConsumers * ClusterM);
      }
      kgen::cuda::fence_barrier_init();
    }
    if constexpr (ClusterM > 1)
      kgen::cuda::cluster_sync(); // peers' barriers exist before multicasts
    else
      __syncthreads();

    if (wg == 0) { // producer warpgroup
      kgen::cuda::warpgroup_reg_dealloc<kProducerRegs>();
      if (tid == 0) {
        // The ring starts empty: the first pass waits for nothing.
        PipelineState<Stages> write = producer_start<Stages>();
        for (long k = ktBegin; k < ktEnd; ++k, ++write) {
          const int s = write.index;
          kgen::cuda::mbar_wait(&empty[s], write.phase);
          char *stage = smem + s * kStageBytes;
          const int k0 = int(k * BK);
          kgen::cuda::mbar_arrive_expect_tx(&full[s], kStageBytes);
          // (K, M) stored when transposed: x = m, y = k; (M, K): x = k.
          const int ax = TransA ? int(m0) : k0, ay = TransA ? k0 : int(m0);
          if constexpr (BatchedA) // z = batch
            kgen::cuda::tma_load_tile<LA>(stage, mapA, &full[s], ax, ay,
                                          int(bz));
          else
            kgen::cuda::tma_load_tile<LA>(stage, mapA, &full[s], ax, ay);
          loadB(stage + LA::kBytes, mapB, &full[s], int(n0), k0, int(bz));
        }
      }
      return false;
    }

    kgen::cuda::warpgroup_reg_alloc<kConsumerRegs>();
    const int rows0 = 64 * (wg - 1); // this warpgroup's rows of the tile
#pragma unroll
    for (int i = 0; i < BN / 2; ++i)
      acc[i] = 0.f;
    // read: the k tile waited for; released: the oldest stage still held.
    PipelineState<Stages> read{}, released{};
    for (long k = ktBegin; k < ktEnd; ++k, ++read) {
      const long i = k - ktBegin;
      const int s = read.index;
      kgen::cuda::mbar_wait(&full[s], read.phase);
      kgen::cuda::fence_operand(acc);
      kgen::cuda::wgmma_fence();
      const unsigned sa = kgen::cuda::smem_u32(smem + s * kStageBytes);
      const unsigned sb = sa + LA::kBytes;
#pragma unroll
      for (int slice = 0; slice < OpA::kSlices; ++slice) {
        const unsigned long long da = OpA::desc(sa, slice, rows0);
        const unsigned long long db = OpB::desc(sb, slice);
        const int scaleD = (i > 0 || slice > 0) ? 1 : 0;
        if constexpr (kFp8)
          kgen::cuda::wgmma_e4m3<BN>(acc, da, db, scaleD);
        else if constexpr (kIsSame<T, __half>)
          kgen::cuda::wgmma_f16<BN, TransA, !TransB>(acc, da, db, scaleD);
        else
          kgen::cuda::wgmma_bf16<BN, TransA, !TransB>(acc, da, db, scaleD);
      }
      kgen::cuda::wgmma_commit();
      kgen::cuda::wgmma_wait<1>(); // tile k - 1's wgmmas are done with it
      kgen::cuda::fence_operand(acc);
      if (i > 0) { // tile k - 1's stage is free
        if (tid % 128 == 0)
          release(&empty[released.index]);
        ++released;
      }
    }
    kgen::cuda::wgmma_wait<0>();
    kgen::cuda::fence_operand(acc);
    return true;
  }
};

/// A consumer warpgroup's 64 x BN slice of the block's accumulator tile.
template <int BN>
struct WgmmaAccumulator
    : AccumulatorBase<kgen::cuda::WgmmaAccMap<BN>, WgmmaAccumulator<BN>> {
  /// The map covers one warpgroup's 64 rows; warpgroup 0 produces, so
  /// consumer warpgroup w >= 1 holds rows 64 (w - 1) of the tile.
  KGEN_DEVICE static int mapThread() { return int(threadIdx.x % 128); }
  KGEN_DEVICE static kgen::cuda::RowCol mapOrigin() {
    return {64 * (int(threadIdx.x / 128) - 1), 0};
  }
};

} // namespace kgen::block

#endif // KGEN_BLOCK_GEMMSM90_CUH
