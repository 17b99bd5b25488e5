// Misuse: WgmmaPipeline instantiations outside its limits; each
// static_assert names the rule (the compiler's legality states the same).
// TARGETS: sm_90a
// EXPECT-ERROR: the wgmma pipeline takes bf16, f16 or e4m3 operands
// EXPECT-ERROR: e4m3 wgmma needs both operands K-major: A (M, K), B (N, K)
// EXPECT-ERROR: BM is 64, 128 or 192: one, two or three consumer warpgroups of 64 rows
// EXPECT-ERROR: K-major B (TransB): BN a multiple of 8 in [8, 256] (wgmma N)
// EXPECT-ERROR: MN-major B: BN a multiple of 64 in [64, 256]
// EXPECT-ERROR: at least two stages
// EXPECT-ERROR: clusters of 1 to 8 blocks
// EXPECT-ERROR: BN a multiple of ClusterM
// EXPECT-ERROR: K-major B in a cluster: (BN / ClusterM) % 8 == 0
// EXPECT-ERROR: MN-major B in a cluster: (BN / 64) % ClusterM == 0
// EXPECT-ERROR: batched B is not multicast
// EXPECT-ERROR: three consumer warpgroups (BM 192): BN <= 192
// EXPECT-ERROR: kSmemBytes <= 232448
#include "kgen/block/GemmSm90.cuh"

using bf16 = __nv_bfloat16;
using kgen::block::WgmmaPipeline;

// Naming a member instantiates the class and its static_asserts.
[[maybe_unused]] constexpr int kFloat =
    WgmmaPipeline<float, 128, 128, 4, false, true>::kThreads;
[[maybe_unused]] constexpr int kE4m3MN =
    WgmmaPipeline<__nv_fp8_e4m3, 128, 128, 4, false, false>::kThreads;
[[maybe_unused]] constexpr int kBM256 =
    WgmmaPipeline<bf16, 256, 128, 4, false, true>::kThreads;
[[maybe_unused]] constexpr int kBN260 =
    WgmmaPipeline<bf16, 128, 260, 4, false, true>::kThreads;
[[maybe_unused]] constexpr int kBN96MN =
    WgmmaPipeline<bf16, 128, 96, 4, false, false>::kThreads;
[[maybe_unused]] constexpr int kStages1 =
    WgmmaPipeline<bf16, 128, 128, 1, false, true>::kThreads;
[[maybe_unused]] constexpr int kCluster16 =
    WgmmaPipeline<bf16, 128, 64, 4, false, true, 16>::kThreads;
[[maybe_unused]] constexpr int kCluster3 =
    WgmmaPipeline<bf16, 128, 256, 4, false, true, 3>::kThreads;
[[maybe_unused]] constexpr int kBand12 =
    WgmmaPipeline<bf16, 128, 48, 4, false, true, 4>::kThreads;
[[maybe_unused]] constexpr int kBlocks3 =
    WgmmaPipeline<bf16, 128, 192, 4, false, false, 2>::kThreads;
[[maybe_unused]] constexpr int kBatchedB =
    WgmmaPipeline<bf16, 128, 128, 4, false, true, 2, false, true>::kThreads;
[[maybe_unused]] constexpr int kBM192BN256 =
    WgmmaPipeline<bf16, 192, 256, 3, false, true>::kThreads;
[[maybe_unused]] constexpr int kSmem =
    WgmmaPipeline<bf16, 128, 256, 5, false, true>::kThreads;
