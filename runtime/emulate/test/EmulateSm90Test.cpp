//===- EmulateSm90Test.cpp - emulated mbarrier, TMA and clusters ----------===//
//
// Small kernels on the emulated device exercising kgen/emulate/Sm90.h: the
// mbarrier's phases and parity (PTX ISA 9.7.13.15), a TMA tiled load's box,
// 128-byte swizzle and zero fill (9.7.9.25.5.2, 5.5.7), a 4-D tile load,
// wrong transaction counts, a multicast into both blocks of a cluster, and
// wgmma's asynchrony, in both forms (A in shared memory or in registers,
// 16-bit and e4m3).
// The expected shared layout is spelled out here from the ISA's swizzle
// description (16-byte chunk index XOR the 128-byte row within the
// 1024-byte pattern), not taken from Swizzle.h.
//
//===----------------------------------------------------------------------===//

#include "kgen/cuda/Tma.cuh"
#include "kgen/cuda/Wgmma.cuh"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace {
using namespace kgen;

int launch(void (*fn)(), unsigned threads, unsigned smemBytes,
           dim3 grid = dim3{1, 1, 1}, dim3 cluster = dim3{1, 1, 1}) {
  return emu::launchKernel("test", fn, nullptr, grid, dim3{threads, 1, 1},
                           smemBytes, cluster);
}

unsigned long long *bar0() {
  return reinterpret_cast<unsigned long long *>(smem);
}

//===----------------------------------------------------------------------===//
// mbarrier
//===----------------------------------------------------------------------===//

int gSeen[64];

/// Count 2: threads 1 and 2 arrive; everyone waits for phase 0 (parity 0),
/// after which parity 1 (phase 1, not complete) would block but parity 0 is
/// complete at once.
void phaseKernel() {
  const int t = int(threadIdx.x);
  if (t == 0) {
    cuda::mbar_init(bar0(), 2);
    cuda::fence_barrier_init();
  }
  __syncthreads();
  if (t == 1 || t == 2)
    cuda::mbar_arrive(bar0());
  cuda::mbar_wait(bar0(), 0);
  gSeen[t] = cuda::mbar_try_wait(bar0(), 0) ? 1 : 0;
}

TEST(EmulateSm90, MbarrierPhaseCompletesOnTheLastArrival) {
  for (int &s : gSeen)
    s = 0;
  ASSERT_EQ(launch(phaseKernel, 64, 64), 0);
  for (int t = 0; t < 64; ++t)
    EXPECT_EQ(gSeen[t], 1) << t;
}

/// Count 1: the arrive.expect_tx takes the only arrival (the phase then
/// waits for 16 bytes), so the next arrive has no pending arrival left.
void overArriveKernel() {
  if (threadIdx.x == 0) {
    cuda::mbar_init(bar0(), 1);
    cuda::mbar_arrive_expect_tx(bar0(), 16); // phase 0 now waits for bytes
    cuda::mbar_arrive(bar0());               // no pending arrival left
  }
}
TEST(EmulateSm90, ArrivalCountUnderflowIsReported) {
  EXPECT_EQ(launch(overArriveKernel, 32, 64), 1);
}

void waitForeverKernel() {
  if (threadIdx.x == 0)
    cuda::mbar_init(bar0(), 1);
  __syncthreads();
  cuda::mbar_wait(bar0(), 0); // nobody arrives
}
TEST(EmulateSm90, WaitingOnAPhaseThatNeverCompletesIsADeadlock) {
  EXPECT_EQ(launch(waitForeverKernel, 32, 64), 1);
}

void noInitKernel() { cuda::mbar_arrive(bar0()); }
TEST(EmulateSm90, MbarrierUseBeforeInitIsReported) {
  EXPECT_EQ(launch(noInitKernel, 32, 64), 1);
}

//===----------------------------------------------------------------------===//
// TMA
//===----------------------------------------------------------------------===//

constexpr int kRows = 20, kCols = 64; // bf16: 128-byte rows
alignas(256) uint16_t gTensor[kRows][kCols];
uint16_t gOut[2][8][kCols];
CUtensorMap gMap;
unsigned gTx = 1024; // the bytes the kernel expects

void makeMap() {
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kCols; ++c)
      gTensor[r][c] = uint16_t(1 + r * kCols + c);
  emu::TensorMapDesc d;
  d.rank = 2;
  d.elemBytes = 2;
  d.swizzle = 3; // CU_TENSOR_MAP_SWIZZLE_128B
  d.base = reinterpret_cast<uint64_t>(&gTensor[0][0]);
  d.dims[0] = kCols;
  d.dims[1] = kRows;
  d.strides[0] = 2;
  d.strides[1] = 2 * kCols;
  d.box[0] = kCols;
  d.box[1] = 8;
  emu::encodeTensorMapDesc(d, &gMap);
  emu::dev().buffers = {
      {"tensor", reinterpret_cast<const char *>(gTensor), sizeof gTensor}};
}

/// Where element (r, c) of an 8 x 64 bf16 box lands at a 1024-aligned
/// shared address `base`: row r at r * 128, its 16-byte chunk c / 8 moved to
/// chunk (c / 8) ^ (r % 8).
unsigned swizzled(unsigned base, int r, int c) {
  return base + unsigned(r) * 128 + unsigned((c / 8) ^ (r % 8)) * 16 +
         unsigned(c % 8) * 2;
}

/// Rows 16..23 of the 20-row tensor: rows 20..23 are outside (zero).
void tmaKernel() {
  const unsigned rank = cuda::cluster_ctarank();
  if (threadIdx.x == 0) {
    cuda::mbar_init(bar0(), 1);
    cuda::fence_barrier_init();
  }
  if (cuda::cluster_nctarank() > 1)
    cuda::cluster_sync();
  else
    __syncthreads();
  if (threadIdx.x == 0) {
    cuda::mbar_arrive_expect_tx(bar0(), gTx);
    if (cuda::cluster_nctarank() == 1)
      cuda::tma_load_2d(smem + 1024, &gMap, bar0(), 0, 16);
    else if (rank == 0)
      cuda::tma_load_2d_multicast(smem + 1024, &gMap, bar0(), 0, 16, 0x3);
  }
  cuda::mbar_wait(bar0(), 0);
  if (threadIdx.x == 0)
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < kCols; ++c)
        std::memcpy(&gOut[rank][r][c], smem + swizzled(1024, r, c), 2);
  if (cuda::cluster_nctarank() > 1)
    cuda::cluster_sync();
}

void expectBox(int rank) {
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < kCols; ++c) {
      const int g = 16 + r;
      EXPECT_EQ(gOut[rank][r][c], g < kRows ? gTensor[g][c] : 0)
          << "block " << rank << " row " << r << " col " << c;
    }
}

TEST(EmulateSm90, TmaLoadSwizzles128BAndZeroFills) {
  makeMap();
  gTx = 1024;
  std::memset(gOut, 0xab, sizeof gOut);
  ASSERT_EQ(launch(tmaKernel, 64, 2048), 0);
  expectBox(0);
  emu::dev().buffers.clear();
}

TEST(EmulateSm90, MulticastReachesEveryBlockOfTheCluster) {
  makeMap();
  gTx = 1024;
  std::memset(gOut, 0xab, sizeof gOut);
  ASSERT_EQ(launch(tmaKernel, 64, 2048, dim3{2, 1, 1}, dim3{2, 1, 1}), 0);
  expectBox(0);
  expectBox(1);
  emu::dev().buffers.clear();
}

TEST(EmulateSm90, WrongTransactionCountsAreCaught) {
  makeMap();
  gTx = 1024 + 16; // the phase never completes: deadlock
  EXPECT_EQ(launch(tmaKernel, 64, 2048), 1);
  gTx = 512; // more bytes than announced: underflow
  EXPECT_EQ(launch(tmaKernel, 64, 2048), 1);
  gTx = 1024;
  emu::dev().buffers.clear();
}

/// A [2][3][kRows][64] bf16 tensor as a 4-D map (dims {64, kRows, 3, 2},
/// box {64, 8, 1, 1}, 128-byte swizzle), loaded by the Tma.cuh 4-D
/// tma_load_tile overload as a 128-column tile: block 0 is the box at
/// columns 0..63, block 1 the box at columns 64..127, wholly outside.
alignas(256) uint16_t g4d[2][3][kRows][kCols];
CUtensorMap g4dMap;
uint16_t g4dOut[8][2 * kCols];
int g4dPlane[2]; // c2 (head), c3 (batch)

void make4dMap() {
  for (int b = 0; b < 2; ++b)
    for (int h = 0; h < 3; ++h)
      for (int r = 0; r < kRows; ++r)
        for (int c = 0; c < kCols; ++c)
          g4d[b][h][r][c] = uint16_t(1 + ((b * 3 + h) * kRows + r) * kCols + c);
  emu::TensorMapDesc d;
  d.rank = 4;
  d.elemBytes = 2;
  d.swizzle = 3; // CU_TENSOR_MAP_SWIZZLE_128B
  d.base = reinterpret_cast<uint64_t>(&g4d[0][0][0][0]);
  const uint64_t dims[4] = {kCols, kRows, 3, 2};
  const uint32_t box[4] = {kCols, 8, 1, 1};
  uint64_t stride = 2;
  for (int i = 0; i < 4; ++i) {
    d.dims[i] = dims[i];
    d.strides[i] = stride;
    d.box[i] = box[i];
    stride *= dims[i];
  }
  emu::encodeTensorMapDesc(d, &g4dMap);
  emu::dev().buffers = {
      {"tensor4d", reinterpret_cast<const char *>(g4d), sizeof g4d}};
}

using Tile8x128 = cuda::RowMajorSwizzled<uint16_t, 8, 2 * kCols,
                                         cuda::Swizzle::B128>;

/// Rows 16..23 of plane (c2, c3): rows 20..23 are outside (zero).
void tma4dKernel() {
  if (threadIdx.x == 0) {
    cuda::mbar_init(bar0(), 1);
    cuda::fence_barrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::mbar_arrive_expect_tx(bar0(), Tile8x128::kBytes);
    cuda::tma_load_tile<Tile8x128>(smem + 1024, &g4dMap, bar0(), 0, 16,
                                   g4dPlane[0], g4dPlane[1]);
  }
  cuda::mbar_wait(bar0(), 0);
  if (threadIdx.x == 0)
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 2 * kCols; ++c)
        std::memcpy(&g4dOut[r][c],
                    smem + swizzled(1024 + 1024 * unsigned(c / kCols), r,
                                    c % kCols),
                    2);
}

TEST(EmulateSm90, Tma4dTileLoadZeroFills) {
  make4dMap();
  for (int c3 = 0; c3 < 2; ++c3)
    for (int c2 = 0; c2 < 3; ++c2) {
      g4dPlane[0] = c2;
      g4dPlane[1] = c3;
      std::memset(g4dOut, 0xab, sizeof g4dOut);
      ASSERT_EQ(launch(tma4dKernel, 32, 4096), 0);
      for (int r = 0; r < 8; ++r)
        for (int c = 0; c < 2 * kCols; ++c) {
          const int g = 16 + r;
          EXPECT_EQ(g4dOut[r][c],
                    g < kRows && c < kCols ? g4d[c3][c2][g][c] : 0)
              << "plane (" << c2 << ", " << c3 << ") row " << r << " col "
              << c;
        }
    }
  emu::dev().buffers.clear();
}

/// A 4-D load from the 2-D map is reported.
void tma4dRankKernel() {
  if (threadIdx.x == 0) {
    cuda::mbar_init(bar0(), 1);
    cuda::mbar_arrive_expect_tx(bar0(), 1024);
    cuda::tma_load_4d(smem + 1024, &gMap, bar0(), 0, 0, 0, 0);
    cuda::mbar_wait(bar0(), 0);
  }
}
TEST(EmulateSm90, Tma4dLoadFromA2dMapIsReported) {
  makeMap();
  EXPECT_EQ(launch(tma4dRankKernel, 32, 2048), 1);
  emu::dev().buffers.clear();
}

/// The consumer reads the box without waiting: the bytes are still poison.
void noWaitKernel() {
  if (threadIdx.x == 0) {
    cuda::mbar_init(bar0(), 1);
    cuda::mbar_arrive_expect_tx(bar0(), 1024);
    cuda::tma_load_2d(smem + 1024, &gMap, bar0(), 0, 0);
    std::memcpy(&gOut[0][0][0], smem + 1024, 2);
    cuda::mbar_wait(bar0(), 0);
  }
}
TEST(EmulateSm90, DataIsInvisibleBeforeThePhaseCompletes) {
  makeMap();
  ASSERT_EQ(launch(noWaitKernel, 32, 2048), 0);
  EXPECT_EQ(gOut[0][0][0], 0xffff); // poison, not gTensor[0][0]
  emu::dev().buffers.clear();
}

/// Thread 0 stages an 8 x 64 bf16 box (swizzled as TMA reads it) and stores
/// it at rows 16..23 of the 20-row tensor: rows 20..23 are clipped.
void tmaStoreKernel() {
  if (threadIdx.x != 0)
    return;
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < kCols; ++c) {
      const uint16_t v = uint16_t(0x4000 + r * kCols + c);
      std::memcpy(smem + swizzled(1024, r, c), &v, 2);
    }
  cuda::fence_proxy_async();
  cuda::tma_store_2d(&gMap, smem + 1024, 0, 16);
  cuda::tma_store_commit();
  cuda::tma_store_wait_read<0>();
}
TEST(EmulateSm90, TmaStoreUnswizzlesAndClips) {
  makeMap();
  ASSERT_EQ(launch(tmaStoreKernel, 32, 2048), 0);
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kCols; ++c)
      EXPECT_EQ(gTensor[r][c], r < 16 ? uint16_t(1 + r * kCols + c)
                                      : uint16_t(0x4000 + (r - 16) * kCols + c))
          << r << " " << c;
  emu::dev().buffers.clear();
}

/// The 32 threads stage the same box with plain shared stores (the
/// instruction layer's st_shared, generic proxy), then thread 0 stores it
/// with TMA (async proxy). Each storing thread must fence.proxy.async its
/// own stores before the barrier (Fence: 0 none, 1 thread 0 only, 2 all).
template <int Fence> void stagedStoreKernel() {
  const int t = int(threadIdx.x);
  for (int i = t; i < 8 * kCols; i += 32) {
    const int r = i / kCols, c = i % kCols;
    cuda::st_shared(reinterpret_cast<uint16_t *>(smem + swizzled(1024, r, c)),
                    uint16_t(0x4000 + r * kCols + c));
  }
  if (Fence == 2 || (Fence == 1 && t == 0))
    cuda::fence_proxy_async();
  __syncthreads();
  if (t == 0) {
    cuda::tma_store_2d(&gMap, smem + 1024, 0, 16);
    cuda::tma_store_commit();
    cuda::tma_store_wait_read<0>();
  }
}
TEST(EmulateSm90, TmaStoreOfFencedGenericStores) {
  makeMap();
  ASSERT_EQ(launch(stagedStoreKernel<2>, 32, 2048), 0);
  EXPECT_EQ(gTensor[16][0], uint16_t(0x4000));
  EXPECT_EQ(gTensor[19][kCols - 1], uint16_t(0x4000 + 3 * kCols + kCols - 1));
  emu::dev().buffers.clear();
}
TEST(EmulateSm90, MissingProxyFenceIsReported) {
  makeMap();
  EXPECT_NE(launch(stagedStoreKernel<0>, 32, 2048), 0);
  emu::dev().buffers.clear();
  // Thread 0's fence orders only thread 0's stores.
  makeMap();
  EXPECT_NE(launch(stagedStoreKernel<1>, 32, 2048), 0);
  emu::dev().buffers.clear();
}

//===----------------------------------------------------------------------===//
// Clusters, named barriers, warpgroup collectives
//===----------------------------------------------------------------------===//

void rankKernel() {
  gSeen[cuda::cluster_ctarank() * 8 + blockIdx.x % 8] =
      int(cuda::cluster_nctarank());
}
TEST(EmulateSm90, ClusterRanks) {
  for (int &s : gSeen)
    s = 0;
  ASSERT_EQ(launch(rankKernel, 32, 0, dim3{4, 1, 1}, dim3{2, 1, 1}), 0);
  // Blocks 0, 2 are rank 0; 1, 3 rank 1; clusters of 2.
  EXPECT_EQ(gSeen[0 * 8 + 0], 2);
  EXPECT_EQ(gSeen[1 * 8 + 1], 2);
  EXPECT_EQ(gSeen[0 * 8 + 2], 2);
  EXPECT_EQ(gSeen[1 * 8 + 3], 2);
}

void namedMismatchKernel() {
  cuda::named_barrier_sync(1, threadIdx.x < 32 ? 64 : 96);
}
TEST(EmulateSm90, NamedBarrierCountMismatchIsReported) {
  EXPECT_EQ(launch(namedMismatchKernel, 128, 0), 1);
}

void namedKernel() {
  if (threadIdx.x < 64)
    cuda::named_barrier_sync(2, 64);
  gSeen[threadIdx.x] = 1;
}
TEST(EmulateSm90, NamedBarrierOverASubsetOfWarps) {
  EXPECT_EQ(launch(namedKernel, 96, 0), 0);
}

void setmaxnregDivergentKernel() {
  if (threadIdx.x != 7)
    cuda::warpgroup_reg_alloc<232>();
  else
    cuda::warpgroup_reg_dealloc<40>();
}
TEST(EmulateSm90, DivergentSetmaxnregIsReported) {
  EXPECT_EQ(launch(setmaxnregDivergentKernel, 128, 0), 1);
}

//===----------------------------------------------------------------------===//
// wgmma asynchrony
//===----------------------------------------------------------------------===//

float gAcc[128][4];
int gMode; // 0 right, 1 read before the wait, 2 write before it, 3 no fence

/// A (64 x 16) and B (16 x 8) all ones, no swizzle (core matrices of 8 rows
/// x 16 bytes: LBO 128 along K, SBO 256 along M/N): every D element is 16.
void wgmmaKernel() {
  const int t = int(threadIdx.x);
  if (t == 0)
    for (int i = 0; i < 2048 + 256; i += 2) {
      const uint16_t one = 0x3f80; // bf16 1.0
      std::memcpy(smem + i, &one, 2);
    }
  __syncthreads();
  using emu::isa::SwizzleMode;
  const unsigned long long da =
      emu::isa::encodeMatrixDesc(0, 128, 256, SwizzleMode::None);
  const unsigned long long db =
      emu::isa::encodeMatrixDesc(2048, 128, 256, SwizzleMode::None);
  float d[4] = {1.f, 1.f, 1.f, 1.f};
  if (gMode != 3)
    cuda::wgmma_fence();
  cuda::wgmma_bf16<8>(d, da, db, 0);
  cuda::wgmma_commit();
  if (gMode == 1)
    gAcc[t][0] = d[0]; // too early
  if (gMode == 2)
    d[1] = 0.f;
  cuda::wgmma_wait<0>();
  for (int i = 0; i < 4; ++i)
    if (gMode != 1 || i > 0)
      gAcc[t][i] = d[i];
}

TEST(EmulateSm90, WgmmaResultArrivesAtTheWait) {
  gMode = 0;
  ASSERT_EQ(launch(wgmmaKernel, 128, 4096), 0);
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(gAcc[t][i], 16.f) << t << " " << i;
}

TEST(EmulateSm90, AccumulatorsReadBeforeTheWaitAreNaN) {
  gMode = 1;
  ASSERT_EQ(launch(wgmmaKernel, 128, 4096), 0);
  EXPECT_TRUE(std::isnan(gAcc[5][0]));
  EXPECT_EQ(gAcc[5][1], 16.f);
}

TEST(EmulateSm90, AccumulatorsWrittenBeforeTheWaitAreReported) {
  gMode = 2;
  EXPECT_EQ(launch(wgmmaKernel, 128, 4096), 1);
}

TEST(EmulateSm90, WgmmaWithoutFenceIsReported) {
  gMode = 3;
  EXPECT_EQ(launch(wgmmaKernel, 128, 4096), 1);
}

//===----------------------------------------------------------------------===//
// wgmma with A in registers (FlashAttention-3's O += P V)
//===----------------------------------------------------------------------===//

// P: 64 rows x 64 keys (16-bit bits), V: 64 keys x up to 256 columns, and
// the result, one row of N / 2 accumulators per warpgroup thread.
uint16_t gP[64][64], gV[64][256];
float gPv[128][128], gPvEarly[128];
int gRsMode; // 0 right, 1 read before the wait, 2 no fence

/// Shared address of V[k][n] in a 128-byte swizzled tile at 0, as the ISA
/// describes the swizzle: TransB (MN-major, the [keys][Dp] tile of FA3):
/// 64 K rows of 128 bytes per 64-column block, blocks 8 KiB apart;
/// K-major: N rows of 64 keys (128 bytes).
unsigned vAddr(bool transB, int k, int n) {
  if (transB)
    return unsigned(n / 64) * 8192 + swizzled(0, k, n % 64);
  return swizzled(0, n, k);
}

/// O (64 x N) = P V over four k16 slices: slice s's A registers are packed
/// from P by the kernels' fragment map (kgen/cuda WgmmaAFragMap) into a
/// temporary that is scribbled over right after the issue (the instruction
/// has its values); V's descriptors are Wgmma.cuh's. The first slice has
/// scale-d 0, so the NaN the accumulators start with is ignored.
template <bool F16, int N, bool TransB> void pvKernel() {
  const int t = int(threadIdx.x);
  if (t == 0)
    for (int k = 0; k < 64; ++k)
      for (int n = 0; n < N; ++n)
        std::memcpy(smem + vAddr(TransB, k, n), &gV[k][n], 2);
  __syncthreads();
  constexpr int kVCols = N < 64 ? 64 : N; // whole 128-byte rows
  using VTile = std::conditional_t<
      TransB, cuda::RowMajorSwizzled<uint16_t, 64, kVCols, cuda::Swizzle::B128>,
      cuda::RowMajorSwizzled<uint16_t, N, 64, cuda::Swizzle::B128>>;
  using OpV = cuda::WgmmaOperand<VTile, TransB ? cuda::Major::MN : cuda::Major::K,
                                 16>;
  static_assert(OpV::kSlices == 4, "64 keys");
  float d[N / 2];
  for (float &x : d)
    x = NAN;
  if (gRsMode != 2)
    cuda::wgmma_fence();
  for (int s = 0; s < 4; ++s) {
    unsigned a[4];
    for (int r = 0; r < 4; ++r) {
      const cuda::RowCol lo = cuda::WgmmaAFragMap::a_elem(t, 2 * r);
      const cuda::RowCol hi = cuda::WgmmaAFragMap::a_elem(t, 2 * r + 1);
      a[r] = unsigned(gP[lo.row][16 * s + lo.col]) |
             unsigned(gP[hi.row][16 * s + hi.col]) << 16;
    }
    const unsigned long long db = OpV::desc(emu::smem_u32(smem), s);
    if (F16)
      cuda::wgmma_rs_f16<N, TransB>(d, a, db, s > 0);
    else
      cuda::wgmma_rs_bf16<N, TransB>(d, a, db, s > 0);
    for (unsigned &x : a)
      x = 0xdeadbeefu;
  }
  cuda::wgmma_commit();
  if (gRsMode == 1)
    gPvEarly[t] = d[0];
  cuda::wgmma_wait<0>();
  for (int i = 0; i < N / 2; ++i)
    gPv[t][i] = d[i];
}

template <bool F16, int N, bool TransB> void runPv(uint32_t seed) {
  SCOPED_TRACE(std::string(F16 ? "f16" : "bf16") + " N " + std::to_string(N) +
               (TransB ? " V MN-major" : " V K-major"));
  uint32_t x = seed;
  auto next = [&] { // small integers and halves: exact in both types
    x = x * 1664525u + 1013904223u;
    return float(int(x >> 27) - 16) / 8.f;
  };
  auto bits = [&](float f) {
    return F16 ? emu::f32ToF16(f) : emu::f32ToBf16(f);
  };
  auto value = [&](uint16_t h) {
    return F16 ? emu::f16ToF32(h) : emu::bf16ToF32(h);
  };
  for (auto &row : gP)
    for (uint16_t &h : row)
      h = bits(next());
  for (auto &row : gV)
    for (uint16_t &h : row)
      h = bits(next() * 1.5f + 0.03125f);
  gRsMode = 0;
  ASSERT_EQ(launch(pvKernel<F16, N, TransB>, 128, 16384), 0);
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < N / 2; ++i) {
      // The accumulator figure (Figure 149) and O = P V, products added in
      // k order (the emulator's order: its result is exact here).
      const int row = 16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2);
      const int col = 8 * (i / 4) + 2 * (t % 4) + i % 2;
      float want = 0.f;
      for (int k = 0; k < 64; ++k)
        want = std::fma(value(gP[row][k]), value(gV[k][col]), want);
      ASSERT_EQ(gPv[t][i], want)
          << "thread " << t << " d" << i << " = O[" << row << "][" << col
          << "]";
    }
}

/// N = 64, 128 and 8, V MN-major (FA3's V) and K-major.
template <bool F16> void runPvShapes(uint32_t seed) {
  runPv<F16, 64, true>(seed);
  runPv<F16, 64, false>(seed + 1);
  runPv<F16, 128, true>(seed + 2);
  runPv<F16, 128, false>(seed + 3);
  runPv<F16, 8, true>(seed + 4);
  runPv<F16, 8, false>(seed + 5);
}

TEST(EmulateSm90, WgmmaRegisterAPvBf16) { runPvShapes<false>(1); }

TEST(EmulateSm90, WgmmaRegisterAPvF16) { runPvShapes<true>(11); }

TEST(EmulateSm90, WgmmaRegisterAAccumulatorsReadBeforeTheWaitAreNaN) {
  gRsMode = 1;
  ASSERT_EQ(launch(pvKernel<false, 64, true>, 128, 16384), 0);
  for (int t = 0; t < 128; ++t)
    EXPECT_TRUE(std::isnan(gPvEarly[t])) << t;
  gRsMode = 0;
}

TEST(EmulateSm90, WgmmaRegisterAWithoutFenceIsReported) {
  gRsMode = 2;
  EXPECT_EQ(launch(pvKernel<true, 8, false>, 128, 16384), 1);
  gRsMode = 0;
}

//===----------------------------------------------------------------------===//
// e4m3 wgmma with A in registers (FP8 attention's O += P V)
//===----------------------------------------------------------------------===//

// A: 64 rows x up to 128 columns of K (e4m3 bytes, row-major); B: K x up to
// 256 columns, stored transposed (gB8[n][k], the K-major tile's rows); the
// result, one row of N / 2 accumulators per warpgroup thread.
uint8_t gA8[64][128], gB8[256][128];
float gD8[128][128], gD8Early[128];
enum class E8 {
  Right,
  Packed16,     ///< A packed by the 16-bit fragment map (WgmmaAFragMap)
  BytesSwapped, ///< each register's four bytes in reverse order
  ReadEarly,    ///< an accumulator read before the wait
  WriteEarly,   ///< an accumulator written before the wait
  NoFence,      ///< no wgmma.fence before the first mma
  BChanged,     ///< a byte of B changed before the wait
};
E8 gE8Mode = E8::Right;

/// D (64 x N) = A B over the K = S (32, 64 or 128) columns of one swizzle
/// row, one k32 slice at a time: B as the kernels hold it, a K-major
/// RowMajorSwizzled<uint8_t, N, S, S> tile read through Wgmma.cuh's
/// descriptors; slice s's A registers packed from gA8 by WgmmaAFragMap8
/// (or wrongly, by gE8Mode) into a temporary scribbled over right after
/// the issue. The first slice has scale-d 0 (the NaN start is ignored).
template <int N, cuda::Swizzle S> void e4m3RsKernel() {
  constexpr int kK = int(S);
  using BTile = cuda::RowMajorSwizzled<uint8_t, N, kK, S>;
  using OpB = cuda::WgmmaOperand<BTile, cuda::Major::K, 32>;
  static_assert(OpB::kSlices == kK / 32, "one k32 slice per 32 bytes");
  const int t = int(threadIdx.x);
  if (t == 0)
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < kK; ++k)
        smem[BTile::byte_offset(n, k)] = gB8[n][k];
  __syncthreads();
  float d[N / 2];
  for (float &x : d)
    x = NAN;
  if (gE8Mode != E8::NoFence)
    cuda::wgmma_fence();
  for (int s = 0; s < OpB::kSlices; ++s) {
    unsigned a[4] = {0, 0, 0, 0};
    for (int e = 0; e < cuda::WgmmaAFragMap8::kElems; ++e) {
      cuda::RowCol rc = cuda::WgmmaAFragMap8::a_elem(t, e);
      if (gE8Mode == E8::Packed16) { // bytes as k16 elements, then k + 16
        rc = cuda::WgmmaAFragMap::a_elem(t, e % 8);
        rc.col += 16 * (e / 8);
      }
      const int at = gE8Mode == E8::BytesSwapped ? e + 3 - 2 * (e % 4) : e;
      a[at / 4] |= unsigned(gA8[rc.row][32 * s + rc.col]) << (8 * (at % 4));
    }
    const unsigned long long db = OpB::desc(emu::smem_u32(smem), s);
    cuda::wgmma_rs_e4m3<N>(d, a, db, s > 0);
    for (unsigned &x : a)
      x = 0xdeadbeefu;
  }
  cuda::wgmma_commit();
  if (gE8Mode == E8::ReadEarly)
    gD8Early[t] = d[0];
  if (gE8Mode == E8::WriteEarly)
    d[1] = 0.f;
  if (gE8Mode == E8::BChanged && t == 0)
    smem[BTile::byte_offset(N - 1, kK - 1)] ^= 1;
  cuda::wgmma_wait<0>();
  for (int i = 0; i < N / 2; ++i)
    gD8[t][i] = d[i];
}

/// Fills gA8 and gB8 with multiples of 1/2 in [-4, 3.5] (exact in e4m3;
/// every sum of up to 128 products is exact in f32, in any order) and
/// launches e4m3RsKernel<N, S> in `mode`. Returns the launch's status and
/// the number of accumulators that differ from a double-precision
/// reference D = A B (row and column by the accumulator figure, 149).
template <int N, cuda::Swizzle S>
int runE4m3Rs(uint32_t seed, E8 mode, int &wrong) {
  uint32_t x = seed;
  auto next = [&] {
    x = x * 1664525u + 1013904223u;
    const float v = float(int(x >> 28) - 8) / 2.f;
    const uint8_t b = emu::f32ToE4m3(v);
    EXPECT_EQ(emu::e4m3ToF32(b), v);
    return b;
  };
  for (auto &row : gA8)
    for (uint8_t &b : row)
      b = next();
  for (auto &row : gB8)
    for (uint8_t &b : row)
      b = next();
  gE8Mode = mode;
  const int rc = launch(e4m3RsKernel<N, S>, 128, 32768);
  gE8Mode = E8::Right;
  wrong = 0;
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < N / 2; ++i) {
      const int row = 16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2);
      const int col = 8 * (i / 4) + 2 * (t % 4) + i % 2;
      double want = 0;
      for (int k = 0; k < int(S); ++k)
        want += double(emu::e4m3ToF32(gA8[row][k])) *
                double(emu::e4m3ToF32(gB8[col][k]));
      if (double(gD8[t][i]) != want) {
        if (mode == E8::Right && wrong == 0)
          ADD_FAILURE() << "thread " << t << " d" << i << " = D[" << row << "]["
                        << col << "]: " << gD8[t][i] << ", want " << want;
        ++wrong;
      }
    }
  return rc;
}

template <int N, cuda::Swizzle S> void expectE4m3RsExact(uint32_t seed) {
  SCOPED_TRACE("N " + std::to_string(N) + " swizzle " + std::to_string(int(S)));
  int wrong = 0;
  ASSERT_EQ((runE4m3Rs<N, S>(seed, E8::Right, wrong)), 0);
  EXPECT_EQ(wrong, 0);
}

TEST(EmulateSm90, WgmmaRegisterAE4m3IsExact) {
  // The FP8 attention's tiles: B in a 64-byte swizzled K-major tile (two
  // k32 slices), and 128-byte (four) and 32-byte (one) for the other
  // widths; N = 8, 64, 256.
  expectE4m3RsExact<64, cuda::Swizzle::B64>(21);
  expectE4m3RsExact<8, cuda::Swizzle::B64>(22);
  expectE4m3RsExact<256, cuda::Swizzle::B64>(23);
  expectE4m3RsExact<64, cuda::Swizzle::B128>(24);
  expectE4m3RsExact<256, cuda::Swizzle::B128>(25);
  expectE4m3RsExact<64, cuda::Swizzle::B32>(26);
}

TEST(EmulateSm90, WgmmaRegisterAE4m3WrongPackingIsWrong) {
  // A packed by the 16-bit map (bytes taken for k16 elements) or with each
  // register's bytes reversed: the instruction runs, the result is wrong
  // (so the exact test above sees a wrong layout).
  for (E8 mode : {E8::Packed16, E8::BytesSwapped}) {
    int wrong = 0;
    ASSERT_EQ((runE4m3Rs<64, cuda::Swizzle::B64>(31, mode, wrong)), 0);
    EXPECT_GT(wrong, 128 * 32 / 2) << "mode " << int(mode);
  }
}

TEST(EmulateSm90, WgmmaRegisterAE4m3Hazards) {
  int wrong = 0;
  // Accumulators read before the wait are NaN; the rest is right.
  ASSERT_EQ((runE4m3Rs<64, cuda::Swizzle::B64>(41, E8::ReadEarly, wrong)), 0);
  for (int t = 0; t < 128; ++t)
    EXPECT_TRUE(std::isnan(gD8Early[t])) << t;
  EXPECT_EQ(wrong, 0);
  // Written before the wait, no fence, B changed under the instruction:
  // reported.
  for (E8 mode : {E8::WriteEarly, E8::NoFence, E8::BChanged})
    EXPECT_EQ((runE4m3Rs<64, cuda::Swizzle::B64>(42, mode, wrong)), 1)
        << "mode " << int(mode);
}

} // namespace
