//===- EmulateIsaTest.cpp - emulated instructions against the PTX ISA -----===//
//
// Each test runs a small kernel on the emulated device. The expected
// fragment layouts are spelled out here from the PTX ISA's figures
// (9.7.14.5.8 "Matrix Fragments for mma.m16n8k16 with floating point type",
// 9.7.14.5.15 ldmatrix), register by register, independently of both the
// emulator's tables (kgen/emulate/Ptx.h) and the kernels' maps (Mma.cuh).
//
//===----------------------------------------------------------------------===//

#include "kgen/cuda/Ptx.cuh"

#include <gtest/gtest.h>

#include <random>

namespace {
using namespace kgen;

uint16_t bf16(float f) { return emu::f32ToBf16(f); }
float fromBf16(uint16_t h) { return emu::bf16ToF32(h); }

// Inputs and outputs of the test kernels (one kernel runs at a time).
float gA[16][16], gB[16][8], gD[32][4];
unsigned gRegs[32][4];

/// m16n8k16 .bf16, ISA figure: a0,a1 = A[g][2t], A[g][2t+1]; a2,a3 = A[g+8][..];
/// a4,a5 = A[g][2t+8], A[g][2t+9]; a6,a7 = A[g+8][2t+8..9]. b0,b1 =
/// B[2t][g], B[2t+1][g]; b2,b3 = B[2t+8][g], B[2t+9][g]. c0,c1 = D[g][2t..2t+1];
/// c2,c3 = D[g+8][2t..2t+1].
void mmaKernel() {
  const int lane = int(threadIdx.x), g = lane / 4, t = lane % 4;
  auto pack = [](float lo, float hi) {
    return unsigned(bf16(lo)) | (unsigned(bf16(hi)) << 16);
  };
  const unsigned a[4] = {pack(gA[g][2 * t], gA[g][2 * t + 1]),
                         pack(gA[g + 8][2 * t], gA[g + 8][2 * t + 1]),
                         pack(gA[g][2 * t + 8], gA[g][2 * t + 9]),
                         pack(gA[g + 8][2 * t + 8], gA[g + 8][2 * t + 9])};
  const unsigned b[2] = {pack(gB[2 * t][g], gB[2 * t + 1][g]),
                         pack(gB[2 * t + 8][g], gB[2 * t + 9][g])};
  float d[4] = {1.f, 2.f, 3.f, 4.f}; // C
  cuda::mma_m16n8k16_bf16(d[0], d[1], d[2], d[3], a, b);
  for (int i = 0; i < 4; ++i)
    gD[lane][i] = d[i];
}

int launch(void (*fn)(), unsigned threads, unsigned smemBytes = 0) {
  return emu::launchKernel("test", fn, nullptr, dim3{1, 1, 1},
                           dim3{threads, 1, 1}, smemBytes);
}

TEST(EmulateIsa, MmaM16n8k16Bf16MatchesTheIsaFragments) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto &r : gA)
    for (float &x : r)
      x = fromBf16(bf16(u(rng)));
  for (auto &r : gB)
    for (float &x : r)
      x = fromBf16(bf16(u(rng)));
  ASSERT_EQ(launch(mmaKernel, 32), 0);
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 4; ++i) {
      const int row = lane / 4 + 8 * (i / 2), col = 2 * (lane % 4) + i % 2;
      double s = 1 + i; // C
      for (int k = 0; k < 16; ++k)
        s += double(gA[row][k]) * gB[k][col];
      EXPECT_NEAR(gD[lane][i], s, 1e-5) << "lane " << lane << " c" << i;
    }
}

/// Fills shared memory with element index e as a b16 value at offset 2e,
/// a 32 x 8 row-major array of b16 (rows of 16 bytes).
template <bool Trans> void ldsmKernel() {
  const int lane = int(threadIdx.x);
  uint16_t *s = reinterpret_cast<uint16_t *>(smem);
  if (lane == 0)
    for (int e = 0; e < 32 * 8; ++e)
      s[e] = uint16_t(e);
  __syncthreads();
  // Lane l gives the address of row l (matrix l / 8, row l % 8); rows are
  // 16 bytes apart.
  unsigned r[4];
  if (Trans)
    cuda::ldmatrix_x4_trans(r, cuda::smem_u32(s + 8 * lane));
  else
    cuda::ldmatrix_x4(r, cuda::smem_u32(s + 8 * lane));
  for (int j = 0; j < 4; ++j)
    gRegs[lane][j] = r[j];
}

TEST(EmulateIsa, LdmatrixX4) {
  ASSERT_EQ(launch(ldsmKernel<false>, 32, 1024), 0);
  // ISA: lane i holds row i/4, elements 2(i%4) and 2(i%4)+1 of matrix j.
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 4; ++j) {
      const unsigned e = unsigned(8 * (8 * j + i / 4) + 2 * (i % 4));
      EXPECT_EQ(gRegs[i][j], e | ((e + 1) << 16)) << "lane " << i << " r" << j;
    }
}

TEST(EmulateIsa, LdmatrixX4Trans) {
  ASSERT_EQ(launch(ldsmKernel<true>, 32, 1024), 0);
  // .trans: lane i holds column i/4, rows 2(i%4) and 2(i%4)+1 of matrix j.
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 4; ++j) {
      const unsigned lo = unsigned(8 * (8 * j + 2 * (i % 4)) + i / 4);
      EXPECT_EQ(gRegs[i][j], lo | ((lo + 8) << 16)) << "lane " << i << " r" << j;
    }
}

alignas(16) unsigned gSrc[8];
unsigned gSeen[4];

/// Thread 0 copies 16 bytes (12 of them from global, 4 zero-filled) and
/// reads them after the wait; `Early` reads before the wait.
template <bool Early> void cpAsyncKernel() {
  if (threadIdx.x != 0)
    return;
  void *dst = smem + 16;
  cuda::cp_async_cg_16(dst, gSrc, 12);
  cuda::cp_async_commit();
  if (!Early)
    cuda::cp_async_wait<0>();
  for (int i = 0; i < 4; ++i)
    gSeen[i] = cuda::ld_shared_b32(16 + 4 * i);
}

struct Buffers {
  Buffers() {
    emu::dev().buffers = {{"src", reinterpret_cast<const char *>(gSrc), sizeof gSrc}};
  }
  ~Buffers() { emu::dev().buffers.clear(); }
};

TEST(EmulateIsa, CpAsyncLandsAtTheWaitWithZeroFill) {
  Buffers buffers;
  for (int i = 0; i < 8; ++i)
    gSrc[i] = 0x1000u + unsigned(i);
  ASSERT_EQ(launch(cpAsyncKernel<false>, 32, 64), 0);
  EXPECT_EQ(gSeen[0], 0x1000u);
  EXPECT_EQ(gSeen[2], 0x1002u);
  EXPECT_EQ(gSeen[3], 0u); // bytes 12..15: zero-filled
}

TEST(EmulateIsa, CpAsyncReadBeforeTheWaitIsReported) {
  Buffers buffers;
  EXPECT_EQ(launch(cpAsyncKernel<true>, 32, 64), 1);
}

/// Thread 0 reads 16 bytes from the last 16 of gSrc (fine), then 16 from 8
/// bytes before its end (8 past it).
void cpAsyncOutOfBoundsKernel() {
  if (threadIdx.x != 0)
    return;
  cuda::cp_async_cg_16(smem, gSrc + 4, 16);
  cuda::cp_async_cg_16(smem + 16, reinterpret_cast<const char *>(gSrc) + 16, 16);
  cuda::cp_async_cg_16(smem + 32, gSrc + 6, 16);
}
TEST(EmulateIsa, CpAsyncBadSourceIsReported) {
  Buffers buffers;
  EXPECT_EQ(launch(cpAsyncOutOfBoundsKernel, 32, 64), 1);
}

/// Thread 1 reads what thread 0's cp.async wrote with no barrier between.
template <bool Barrier> void raceKernel() {
  if (threadIdx.x == 0) {
    cuda::cp_async_cg_16(smem, gSrc, 16);
    cuda::cp_async_wait_all();
  }
  if (Barrier)
    __syncthreads();
  if (threadIdx.x == 1)
    gSeen[0] = cuda::ld_shared_b32(0);
}

TEST(EmulateIsa, SharedRaceIsReportedAndABarrierFixesIt) {
  Buffers buffers;
  gSrc[0] = 7;
  EXPECT_EQ(launch(raceKernel<true>, 64, 64), 0);
  EXPECT_EQ(gSeen[0], 7u);
  // Whatever order the fibers run in: thread 1 reads a pending copy or a
  // completed one from another thread in the same barrier interval.
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    emu::dev().opts.seed = seed;
    EXPECT_EQ(launch(raceKernel<false>, 64, 64), 1) << "seed " << seed;
  }
  emu::dev().opts.seed = 1;
}

void deadlockKernel() {
  if (threadIdx.x != 5)
    __syncthreads();
  else
    cuda::ldmatrix_x1(gRegs[0][0], 0); // waits for lanes that never come
}
TEST(EmulateIsa, DeadlockIsReported) { EXPECT_EQ(launch(deadlockKernel, 64, 64), 1); }

void smemBoundsKernel() { cuda::ld_shared_b32(64); }
TEST(EmulateIsa, SharedOutOfBoundsIsReported) {
  EXPECT_EQ(launch(smemBoundsKernel, 32, 64), 1);
}

float gShfl[32];
int gShflMask[32];

/// Lane l offers 100 + l and asks with its own lane mask (the ISA computes
/// the source lane per thread: j = l ^ b[4:0]).
void shflKernel() {
  const int lane = int(threadIdx.x);
  gShfl[lane] = cuda::shfl_xor(100.f + float(lane), gShflMask[lane]);
}

TEST(EmulateIsa, ShflSyncBflyExchangesAcrossTheMask) {
  // shfl.sync.bfly with c = 0x1f (no segments, clamp 31): every j is in
  // range, so lane l receives lane (l ^ b)'s value, for any b per lane.
  for (int m : {1, 2, 16, 31}) {
    for (int l = 0; l < 32; ++l)
      gShflMask[l] = m;
    ASSERT_EQ(launch(shflKernel, 32), 0);
    for (int l = 0; l < 32; ++l)
      EXPECT_EQ(gShfl[l], 100.f + float(l ^ m)) << "mask " << m << " lane " << l;
  }
  for (int l = 0; l < 32; ++l)
    gShflMask[l] = l % 4 + 32; // b[4:0] only: bit 5 is ignored
  ASSERT_EQ(launch(shflKernel, 32), 0);
  for (int l = 0; l < 32; ++l)
    EXPECT_EQ(gShfl[l], 100.f + float(l ^ (l % 4))) << "lane " << l;
}

/// Lanes 0..15 shuffle while 16..31 load a matrix: divergent .sync.aligned
/// collectives; or lanes 16..31 exit before the shuffle.
template <bool Exit> void shflDivergentKernel() {
  const int lane = int(threadIdx.x);
  if (lane >= 16) {
    if (Exit)
      return;
    cuda::ldmatrix_x1(gRegs[lane][0], 0);
  } else {
    gShfl[lane] = cuda::shfl_xor(1.f, 1);
  }
}

TEST(EmulateIsa, ShflSyncWithoutTheWholeWarpIsReported) {
  EXPECT_EQ(launch(shflDivergentKernel<false>, 32, 64), 1);
  EXPECT_EQ(launch(shflDivergentKernel<true>, 32, 64), 1);
}

TEST(EmulateIsa, Conversions) {
  // cvt.rn.bf16x2.f32 / .f16x2.f32 d, a, b: a to the upper half; round to
  // nearest even (1 + 2^-8 is halfway between two bf16 values: to 1.0;
  // 1 + 3 * 2^-8 to 1 + 2^-6; 1 + 2^-11 is half an f16 ulp: to 1.0).
  EXPECT_EQ(cuda::cvt_bf16x2(1.0f, -2.0f), (0x3f80u << 16) | 0xc000u);
  EXPECT_EQ(cuda::cvt_bf16x2(1.00390625f, 1.01171875f),
            (0x3f80u << 16) | 0x3f82u);
  EXPECT_EQ(cuda::cvt_f16x2(1.0f, -2.0f), (0x3c00u << 16) | 0xc000u);
  EXPECT_EQ(cuda::cvt_f16x2(1.00048828125f, 65536.f),
            (0x3c00u << 16) | 0x7c00u);

  // cvt.rna.tf32: ties away from zero at 10 mantissa bits.
  EXPECT_EQ(cuda::f32_to_tf32(0x3f801000u), 0x3f802000u);
  EXPECT_EQ(cuda::f32_to_tf32(0x3f800fffu), 0x3f800000u);
  // cvt.rn.satfinite.e4m3x2: hi -> upper byte; 448 saturation; 1.0 = 0x38.
  EXPECT_EQ(cuda::cvt_e4m3x2(1.0f, -1000.f), (0x38 << 8) | 0xfe);
  // Subnormals (multiples of 2^-9) round to nearest even.
  EXPECT_EQ(emu::f32ToE4m3(0.0009765625f), 0x00);  // 0.5 ulp
  EXPECT_EQ(emu::f32ToE4m3(0.0029296875f), 0x02);  // 1.5 ulp
}

// shfl.sync idx / up / bfly on 32-bit data, vote.sync.ballot: one kernel,
// every lane's operands from these arrays (the ISA computes the source lane
// per thread).
unsigned gB32In[32], gB32Out[4][32];
int gB32Src[32];
bool gPred[32];

void warpB32Kernel() {
  const int lane = int(threadIdx.x);
  gB32Out[0][lane] = cuda::shfl_idx_u32(gB32In[lane], gB32Src[lane]);
  gB32Out[1][lane] = cuda::shfl_up_u32(gB32In[lane], gB32Src[lane]);
  gB32Out[2][lane] = cuda::shfl_xor_u32(gB32In[lane], gB32Src[lane]);
  gB32Out[3][lane] = cuda::ballot(gPred[lane]);
}

TEST(EmulateIsa, ShflIdxUpBflyB32AndBallot) {
  std::mt19937 rng(9);
  for (int round = 0; round < 3; ++round) {
    for (int l = 0; l < 32; ++l) {
      gB32In[l] = rng(); // any 32 bits, moved unchanged
      gPred[l] = rng() % 3 == 0;
    }
    unsigned ballot = 0;
    for (int l = 0; l < 32; ++l)
      ballot |= gPred[l] ? 1u << l : 0u;
    // Round 0: one uniform operand; 1: per-lane operands; 2: operands past
    // 31 (only b[4:0] counts).
    for (int l = 0; l < 32; ++l)
      gB32Src[l] = round == 0 ? 5 : round == 1 ? (7 * l + 3) % 32 : 32 + l % 8;
    ASSERT_EQ(launch(warpB32Kernel, 32), 0);
    for (int l = 0; l < 32; ++l) {
      const int b = gB32Src[l] & 31;
      // idx with c = 0x1f: lane b, always in range.
      EXPECT_EQ(gB32Out[0][l], gB32In[b]) << "idx lane " << l;
      // up with c = 0: lane l - b when that is >= 0, else its own.
      EXPECT_EQ(gB32Out[1][l], l - b >= 0 ? gB32In[l - b] : gB32In[l])
          << "up lane " << l;
      EXPECT_EQ(gB32Out[2][l], gB32In[l ^ b]) << "bfly lane " << l;
      EXPECT_EQ(gB32Out[3][l], ballot) << "ballot lane " << l;
    }
  }
  EXPECT_EQ(cuda::popc(0u), 0u);
  EXPECT_EQ(cuda::popc(0xffffffffu), 32u);
  EXPECT_EQ(cuda::popc(0x80000001u), 2u);
}

TEST(EmulateIsa, RoundedMulAddDivAreNotFused) {
  // a = 1 + 2^-12: a * a = 1 + 2^-11 + 2^-24 rounds (to even) to 1 + 2^-11,
  // so mul.rn then add.rn of -(1 + 2^-11) is 0 where an fma keeps 2^-24.
  const float a = 1.f + std::ldexp(1.f, -12), c = -(1.f + std::ldexp(1.f, -11));
  EXPECT_EQ(cuda::fadd_rn(cuda::fmul_rn(a, a), c), 0.f);
  EXPECT_EQ(std::fma(a, a, c), std::ldexp(1.f, -24));
  // div.rn: correctly rounded (1 / 3 to the nearest f32).
  EXPECT_EQ(cuda::fdiv_rn(1.f, 3.f), 0x1.555556p-2f);
}

} // namespace
