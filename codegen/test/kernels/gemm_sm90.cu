// Compile test: a complete sm_90a GEMM composed from the primitives, the shape
// of what the emitter writes for the fast Hopper path:
//   warp specialisation: warpgroup 0 produces (one thread issues TMA, the
//   group gives registers back with setmaxnreg), warpgroups 1 and 2 consume
//   (each a 64 x BN slice of the 128 x BN tile with wgmma, registers taken
//   with setmaxnreg); a Stages-deep ring of shared-memory stages with full /
//   empty mbarriers; clusters of ClusterM CTAs along M that share the B tile
//   through TMA multicast (each CTA loads 1/ClusterM of it for all); the
//   fused epilogue straight from the accumulators.
// Instances: bf16 TN 128x256x64, 4 stages, 2-CTA clusters, bias + relu, bf16
// out; f16 NN (A and B MN-major: transposed wgmma operands) 128x128x64,
// 5 stages, no cluster, f32 out.
// TARGETS: sm_90a
// CHECK: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
// CHECK: mbarrier.try_wait.parity.shared::cta.b64
// CHECK: mbarrier.arrive.release.cluster.shared::cluster.b64
// CHECK: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK: wgmma.wait_group.sync.aligned 1;
#include "kgen/cuda/Epilogue.cuh"
#include "kgen/cuda/Tma.cuh"
#include "kgen/cuda/Wgmma.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

using namespace kgen::cuda;

template <bool C, class A, class B> struct Select { using type = A; };
template <class A, class B> struct Select<false, A, B> { using type = B; };
template <class A, class B> inline constexpr bool kSame = false;
template <class A> inline constexpr bool kSame<A, A> = true;

/// Tile (128, BN, BK = 64), 16-bit operands, 128-byte swizzle. The host
/// builds the tensor maps with the boxes below (kBoxA / kBoxB: {inner, outer}
/// elements) and CU_TENSOR_MAP_SWIZZLE_128B; A's map covers A as stored
/// (row-major (M, K) when K-major, (K, M) when MN-major), likewise B.
template <class T, Major MA, Major MB, int BN, int Stages, int ClusterM>
struct GemmSm90 {
  static constexpr int BM = 128, BK = 64;
  static constexpr int kThreads = 384; // producer + 2 consumer warpgroups
  static_assert(BN == 64 || BN == 128 || BN == 256, "wgmma N");
  static_assert(ClusterM == 1 || ClusterM == 2, "clusters of 1 or 2 along M");
  static_assert(sizeof(T) == 2, "16-bit operands (bf16 / f16)");
  // Shared tiles as TMA writes them.
  using LA = typename Select<MA == Major::K,
                             RowMajorSwizzled<T, BM, BK, Swizzle::B128>,
                             RowMajorSwizzled<T, BK, BM, Swizzle::B128>>::type;
  using LB = typename Select<MB == Major::K,
                             RowMajorSwizzled<T, BN, BK, Swizzle::B128>,
                             RowMajorSwizzled<T, BK, BN, Swizzle::B128>>::type;
  using OpA = WgmmaOperand<LA, MA, 16>;
  using OpB = WgmmaOperand<LB, MB, 16>;
  // B is split among the cluster's CTAs: K-major B by rows (N), MN-major B
  // by its 64-column blocks.
  static_assert(MB == Major::K || LB::kBlocks % ClusterM == 0, "B split");
  static constexpr int kBoxA[2] = {LA::kBlockCols, LA::kRows};
  static constexpr int kBoxB[2] = {LB::kBlockCols,
                                   MB == Major::K ? BN / ClusterM : BK};
  static constexpr int kStageBytes = LA::kBytes + LB::kBytes;
  // Dynamic shared memory: stages, 1 KiB aligned, then the barriers.
  static constexpr int kSmemBytes = 1024 + Stages * kStageBytes + 2 * 8 * Stages;

  /// Issues the TMA loads of k-tile kt into stage s (one thread).
  __device__ static void produce(char *stage, unsigned long long *full,
                                 const CUtensorMap *map_a,
                                 const CUtensorMap *map_b, int m0, int n0,
                                 int k0, unsigned rank) {
    char *sa = stage, *sb = stage + LA::kBytes;
    // Each CTA's full barrier receives its own A and the whole B tile.
    mbar_arrive_expect_tx(full, kStageBytes);
    if constexpr (MA == Major::K)
      tma_load_tile<LA>(sa, map_a, full, k0, m0);
    else
      tma_load_tile<LA>(sa, map_a, full, m0, k0);
    if constexpr (ClusterM == 1) {
      if constexpr (MB == Major::K)
        tma_load_tile<LB>(sb, map_b, full, k0, n0);
      else
        tma_load_tile<LB>(sb, map_b, full, n0, k0);
    } else {
      constexpr unsigned short kMask = (1u << ClusterM) - 1u;
      if constexpr (MB == Major::K) { // rows [rank * BN/C, +BN/C) of (BN, BK)
        constexpr int kRows = BN / ClusterM;
        tma_load_2d_multicast(sb + rank * kRows * LB::kRowBytes, map_b, full,
                              k0, n0 + int(rank) * kRows, kMask);
      } else { // column blocks [rank * B/C, +B/C) of (BK, BN)
        constexpr int kBlocks = LB::kBlocks / ClusterM;
#pragma unroll
        for (int b = 0; b < kBlocks; ++b) {
          const int blk = int(rank) * kBlocks + b;
          tma_load_2d_multicast(sb + blk * LB::kBlockBytes, map_b, full,
                                n0 + blk * LB::kBlockCols, k0, kMask);
        }
      }
    }
  }

  /// One consumer warpgroup's k-tile: 4 wgmmas over BK = 64.
  __device__ static void consume(float (&acc)[BN / 2], const char *stage,
                                 int mn0, bool accumulate) {
    const unsigned sa = smem_u32(stage), sb = smem_u32(stage + LA::kBytes);
#pragma unroll
    for (int k = 0; k < OpA::kSlices; ++k) {
      const unsigned long long da = OpA::desc(sa, k, mn0);
      const unsigned long long db = OpB::desc(sb, k);
      const int scale_d = (accumulate || k > 0) ? 1 : 0;
      if constexpr (kSame<T, __half>)
        wgmma_f16<BN, MA == Major::MN, MB == Major::MN>(acc, da, db, scale_d);
      else
        wgmma_bf16<BN, MA == Major::MN, MB == Major::MN>(acc, da, db, scale_d);
    }
  }

  /// Releases stage s to every producer that writes into it: this CTA's and,
  /// with multicast, the peers' (one arrive per consumer warpgroup per CTA).
  __device__ static void release(unsigned long long *empty) {
    if constexpr (ClusterM == 1) {
      mbar_arrive(empty);
    } else {
#pragma unroll
      for (int c = 0; c < ClusterM; ++c)
        mbar_arrive_cluster(empty, unsigned(c));
    }
  }

  template <class Epi>
  __device__ static void run(const CUtensorMap *map_a, const CUtensorMap *map_b,
                             const typename Epi::Args &args, int k) {
    extern __shared__ char smem_raw[];
    char *smem = reinterpret_cast<char *>(
        (reinterpret_cast<unsigned long long>(smem_raw) + 1023) & ~1023ull);
    unsigned long long *full =
        reinterpret_cast<unsigned long long *>(smem + Stages * kStageBytes);
    unsigned long long *empty = full + Stages;
    const int tid = threadIdx.x, wg = tid / 128;
    const unsigned rank = ClusterM > 1 ? cluster_ctarank() : 0u;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int k_tiles = (k + BK - 1) / BK;

    if (tid == 0) {
      prefetch_tensormap(map_a);
      prefetch_tensormap(map_b);
      for (int s = 0; s < Stages; ++s) {
        mbar_init(&full[s], 1);             // the producer's arrive + bytes
        mbar_init(&empty[s], 2 * ClusterM); // each consumer WG of each CTA
      }
      fence_barrier_init();
    }
    if constexpr (ClusterM > 1)
      cluster_sync(); // peers' barriers exist before any multicast
    else
      __syncthreads();

    if (wg == 0) { // producer
      warpgroup_reg_dealloc<40>();
      if (tid == 0) {
        for (int kt = 0; kt < k_tiles; ++kt) {
          const int s = kt % Stages;
          mbar_wait(&empty[s], ((kt / Stages) & 1) ^ 1); // slot free
          produce(smem + s * kStageBytes, &full[s], map_a, map_b, m0, n0,
                  kt * BK, rank);
        }
      }
    } else { // consumers: rows [64 * (wg - 1), +64) of the tile
      warpgroup_reg_alloc<232>();
      const int mn0 = 64 * (wg - 1);
      float acc[BN / 2]; // (64, BN) f32 over the warpgroup
#pragma unroll
      for (int i = 0; i < BN / 2; ++i)
        acc[i] = 0.f;
      for (int kt = 0; kt < k_tiles; ++kt) {
        const int s = kt % Stages;
        mbar_wait(&full[s], (kt / Stages) & 1);
        fence_operand(acc);
        wgmma_fence();
        consume(acc, smem + s * kStageBytes, mn0, kt > 0);
        wgmma_commit();
        wgmma_wait<1>(); // k-tile kt-1's wgmmas are done with their stage
        fence_operand(acc);
        if (kt > 0 && tid % 128 == 0)
          release(&empty[(kt - 1) % Stages]);
      }
      wgmma_wait<0>();
      fence_operand(acc);
      Epi::template store_fragment<WgmmaAccMap<BN>>(args, acc, m0 + mn0, n0,
                                                    tid % 128);
    }
    if constexpr (ClusterM > 1)
      cluster_sync(); // no CTA leaves while a peer may still signal it
  }
};

using bf16 = __nv_bfloat16;
using GemmTN = GemmSm90<bf16, Major::K, Major::K, 256, 4, 2>;
using EpiTN = Epilogue<bf16, Act::Relu, BiasMode::PerCol>;
static_assert(GemmTN::kSmemBytes <= 227 * 1024, "fits the H200's shared memory");

__global__ void __cluster_dims__(1, 2, 1) __launch_bounds__(384, 1)
gemm_bf16_tn_128x256_cluster2(const __grid_constant__ CUtensorMap map_a,
                              const __grid_constant__ CUtensorMap map_b,
                              EpiTN::Args args, int k) {
  GemmTN::run<EpiTN>(&map_a, &map_b, args, k);
}

using GemmNN = GemmSm90<__half, Major::MN, Major::MN, 128, 5, 1>;
using EpiNN = Epilogue<float>;
static_assert(GemmNN::kSmemBytes <= 227 * 1024, "fits the H200's shared memory");

__global__ void __launch_bounds__(384, 1)
gemm_f16_nn_128x128(const __grid_constant__ CUtensorMap map_a,
                    const __grid_constant__ CUtensorMap map_b,
                    EpiNN::Args args, int k) {
  GemmNN::run<EpiNN>(&map_a, &map_b, args, k);
}
