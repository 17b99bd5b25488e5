//===- MmaMapTest.cpp - fragment maps and ldmatrix addressing on the CPU --===//
//
// 1. The (lane, index) -> (row, col) maps cover their tiles exactly once.
// 2. A byte-level model of ldmatrix (PTX ISA: lane l's register j holds, of
//    the 8x8 b16 matrix j whose row r address came from lane 8j + r, row
//    l / 4 at b16 columns 2(l % 4), 2(l % 4) + 1; with .trans, column l / 4 at
//    rows 2(l % 4), 2(l % 4) + 1) replays the addresses WarpMma::load uses on
//    real layouts (padded and swizzled) and must give every lane exactly the
//    A and B fragment elements the mma.sync maps name.
//
//===----------------------------------------------------------------------===//

#include "kgen/cuda/Mma.cuh"
#include "kgen/cuda/Wgmma.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>
#include <utility>

using namespace kgen::cuda;

namespace {

template <class Map> void expectCoversOnce(int rows, int cols) {
  std::set<std::pair<int, int>> seen;
  for (int t = 0; t < Map::kThreads; ++t)
    for (int i = 0; i < Map::kAccPerThread; ++i) {
      const RowCol rc = Map::acc(t, i);
      ASSERT_GE(rc.row, 0);
      ASSERT_LT(rc.row, rows);
      ASSERT_GE(rc.col, 0);
      ASSERT_LT(rc.col, cols);
      EXPECT_TRUE(seen.insert({rc.row, rc.col}).second)
          << "(" << rc.row << ", " << rc.col << ") twice";
      // The epilogue stores pairs: i, i + 1 (even i) are adjacent columns.
      if (i % 2 == 1) {
        const RowCol prev = Map::acc(t, i - 1);
        EXPECT_EQ(prev.row, rc.row);
        EXPECT_EQ(prev.col + 1, rc.col);
        EXPECT_EQ(prev.col % 2, 0);
      }
    }
  EXPECT_EQ(seen.size(), size_t(rows) * cols);
}

struct Acc16x8 {
  static constexpr int kThreads = 32, kAccPerThread = 4;
  static constexpr RowCol acc(int lane, int i) { return mma_acc_m16n8(lane, i); }
};

TEST(FragmentMaps, Mma16x8AccumulatorCoversTheTileOnce) {
  expectCoversOnce<Acc16x8>(16, 8);
  // Spot checks against the PTX ISA figure: lane 0 holds (0,0) (0,1) (8,0)
  // (8,1); lane 5 (group 1, thread 1) holds (1,2) (1,3) (9,2) (9,3).
  static_assert(mma_acc_m16n8(0, 2).row == 8 && mma_acc_m16n8(0, 2).col == 0);
  static_assert(mma_acc_m16n8(5, 1).row == 1 && mma_acc_m16n8(5, 1).col == 3);
  static_assert(mma_acc_m16n8(5, 3).row == 9 && mma_acc_m16n8(5, 3).col == 3);
}

TEST(FragmentMaps, WarpTilesCoverOnce) {
  expectCoversOnce<WarpTileAccMap<64, 64>>(64, 64);
  expectCoversOnce<WarpTileAccMap<32, 64>>(32, 64);
  expectCoversOnce<WarpTileAccMap<16, 8>>(16, 8);
}

/// WgmmaAccMap<8 (I + 1)> for each I: every N of the wgmma wrappers.
template <int... I>
void expectWgmmaMapsCoverOnce(std::integer_sequence<int, I...>) {
  (expectCoversOnce<WgmmaAccMap<8 * (I + 1)>>(64, 8 * (I + 1)), ...);
}

TEST(FragmentMaps, WgmmaAccumulatorsCoverOnce) {
  expectCoversOnce<WgmmaAccMap<64>>(64, 64);
  expectCoversOnce<WgmmaAccMap<128>>(64, 128);
  expectCoversOnce<WgmmaAccMap<256>>(64, 256);
  // Every N of the wgmma wrappers (multiples of 8 up to 256).
  expectWgmmaMapsCoverOnce(std::make_integer_sequence<int, 32>{});
  // Warp w owns rows 16w..16w+15; thread 37 (warp 1, lane 5) starts at
  // (16 + 1, 2).
  static_assert(WgmmaAccMap<256>::acc(37, 0).row == 17);
  static_assert(WgmmaAccMap<256>::acc(37, 0).col == 2);
  static_assert(WgmmaAccMap<256>::acc(37, 6).row == 25);
  static_assert(WgmmaAccMap<256>::acc(37, 6).col == 10);
}

/// The RS wgmma's A fragments: warp w of the warpgroup is mma.sync's A
/// fragment of the same K (m16n8k16 for 16-bit A, m16n8k32 for 8-bit)
/// shifted down 16w rows.
template <class Map, class Mma> constexpr bool wgmmaAFragIsMmaA() {
  for (int t = 0; t < 128; ++t)
    for (int e = 0; e < Map::kElems; ++e) {
      const RowCol w = Map::a_elem(t, e);
      const RowCol m = Mma::a_elem(t % 32, e);
      if (w.row != 16 * (t / 32) + m.row || w.col != m.col)
        return false;
    }
  return true;
}
static_assert(wgmmaAFragIsMmaA<WgmmaAFragMap, MmaBf16>(),
              "WgmmaAFragMap is MmaBf16's A fragment for each warp");
static_assert(wgmmaAFragIsMmaA<WgmmaAFragMap8, MmaE4m3>(),
              "WgmmaAFragMap8 is MmaE4m3's A fragment for each warp");

/// Checks that the RS wgmma A-fragment map `Map` covers the 64 x cols A
/// slice once, calling check(t, e, rc) on each element rc = a_elem(t, e).
template <class Map, class Check>
void expectAFragCoversOnce(int cols, Check check) {
  std::set<std::pair<int, int>> seen;
  for (int t = 0; t < Map::kThreads; ++t)
    for (int e = 0; e < Map::kElems; ++e) {
      const RowCol rc = Map::a_elem(t, e);
      ASSERT_GE(rc.row, 0);
      ASSERT_LT(rc.row, 64);
      ASSERT_GE(rc.col, 0);
      ASSERT_LT(rc.col, cols);
      EXPECT_TRUE(seen.insert({rc.row, rc.col}).second)
          << "(" << rc.row << ", " << rc.col << ") twice";
      check(t, e, rc);
    }
  EXPECT_EQ(seen.size(), size_t(64) * cols);
}

TEST(FragmentMaps, WgmmaRegisterACoversOnceAndMatchesTheAccumulators) {
  expectAFragCoversOnce<WgmmaAFragMap>(16, [](int t, int e, RowCol rc) {
    const RowCol m = MmaBf16::a_elem(t % 32, e);
    EXPECT_EQ(rc.row, 16 * (t / 32) + m.row);
    EXPECT_EQ(rc.col, m.col);
    // FA3's P: accumulator 8s + e of an S tile is element e of k-slice
    // s's A fragment (same row, column 16s + col).
    for (int s = 0; s < 4; ++s) {
      const RowCol acc = WgmmaAccMap<64>::acc(t, 8 * s + e);
      EXPECT_EQ(acc.row, rc.row);
      EXPECT_EQ(acc.col, 16 * s + rc.col);
    }
  });
  // Figure 148: thread 37 (warp 1, lane 5) holds a0 at (17, 2), a7 at
  // (25, 11).
  static_assert(WgmmaAFragMap::a_elem(37, 0).row == 17);
  static_assert(WgmmaAFragMap::a_elem(37, 0).col == 2);
  static_assert(WgmmaAFragMap::a_elem(37, 7).row == 25);
  static_assert(WgmmaAFragMap::a_elem(37, 7).col == 11);
}

TEST(FragmentMaps, WgmmaRegisterA8CoversOnceWithinTheQuadsAccumulators) {
  expectAFragCoversOnce<WgmmaAFragMap8>(32, [](int t, int e, RowCol rc) {
    // Byte e is half e % 2 of the 16-bit fragment's element e / 2.
    const RowCol h = WgmmaAFragMap::a_elem(t, e / 2);
    EXPECT_EQ(rc.row, h.row);
    EXPECT_EQ(rc.col, 2 * h.col + e % 2);
    // CUTLASS ALayout_64x32, evaluated as written: thread t0 + 4 t1 +
    // 32 t2, value v0 + 4 v1 + 8 v2 -> m + 64 k.
    const int mk = 256 * (t % 4) + (t / 4) % 8 + 16 * (t / 32) +
                   64 * (e % 4) + 8 * ((e / 4) % 2) + 1024 * (e / 8);
    EXPECT_EQ(rc.row, mk % 64);
    EXPECT_EQ(rc.col, mk / 64);
    // Not the accumulator map register for register (FP8 P from S needs
    // a shuffle), but within the quad: for each k-slice s of an S tile,
    // the accumulator holding (row, 32s + col) is a thread of t's quad.
    for (int s = 0; s < 2; ++s) {
      bool inQuad = false;
      for (int u = t - t % 4; u < t - t % 4 + 4; ++u)
        for (int i = 0; i < WgmmaAccMap<64>::kAccPerThread; ++i) {
          const RowCol acc = WgmmaAccMap<64>::acc(u, i);
          inQuad = inQuad || (acc.row == rc.row && acc.col == 32 * s + rc.col);
        }
      EXPECT_TRUE(inQuad) << "thread " << t << " byte " << e;
    }
  });
  // Thread 37 (warp 1, lane 5: g 1, q 1): a0 at (17, 4), a7 at (25, 7),
  // a8 at (17, 20), a15 at (25, 23).
  static_assert(WgmmaAFragMap8::a_elem(37, 0).row == 17);
  static_assert(WgmmaAFragMap8::a_elem(37, 0).col == 4);
  static_assert(WgmmaAFragMap8::a_elem(37, 7).row == 25);
  static_assert(WgmmaAFragMap8::a_elem(37, 7).col == 7);
  static_assert(WgmmaAFragMap8::a_elem(37, 8).row == 17);
  static_assert(WgmmaAFragMap8::a_elem(37, 8).col == 20);
  static_assert(WgmmaAFragMap8::a_elem(37, 15).row == 25);
  static_assert(WgmmaAFragMap8::a_elem(37, 15).col == 23);
}

/// Each operand map covers its (rows x cols) fragment once.
template <class F> void expectOperandCoversOnce(F elem, int perLane, int rows,
                                                int cols) {
  std::set<std::pair<int, int>> seen;
  for (int lane = 0; lane < 32; ++lane)
    for (int e = 0; e < perLane; ++e) {
      const RowCol rc = elem(lane, e);
      ASSERT_GE(rc.row, 0);
      ASSERT_LT(rc.row, rows);
      ASSERT_GE(rc.col, 0);
      ASSERT_LT(rc.col, cols);
      EXPECT_TRUE(seen.insert({rc.row, rc.col}).second);
    }
  EXPECT_EQ(seen.size(), size_t(rows) * cols);
}

template <class Op> void expectOperandMaps() {
  expectOperandCoversOnce(Op::a_elem, Op::kAElems, Op::kM, Op::kK);
  expectOperandCoversOnce(Op::b_elem, Op::kBElems, Op::kK, Op::kN);
}

TEST(FragmentMaps, OperandMapsCoverOnce) {
  expectOperandMaps<MmaBf16>();
  expectOperandMaps<MmaF16>();
  expectOperandMaps<MmaTf32>();
  expectOperandMaps<MmaE4m3>();
  // PTX ISA m16n8k16 A: a0,a1 at (g, 2t..), a2,a3 at (g+8, 2t..), a4,a5 at
  // (g, 2t+8..), a6,a7 at (g+8, 2t+8..).
  static_assert(MmaBf16::a_elem(6, 3).row == 9 && MmaBf16::a_elem(6, 3).col == 5);
  static_assert(MmaBf16::a_elem(6, 4).row == 1 && MmaBf16::a_elem(6, 4).col == 12);
  // tf32 m16n8k8 B: b0 at (t, g), b1 at (t + 4, g).
  static_assert(MmaTf32::b_elem(6, 1).row == 6 && MmaTf32::b_elem(6, 1).col == 1);
  // e4m3 m16n8k32 A: a8..a11 at (g, 4t + 16..).
  static_assert(MmaE4m3::a_elem(6, 9).row == 1 && MmaE4m3::a_elem(6, 9).col == 25);
}

//===----------------------------------------------------------------------===//
// ldmatrix replay
//===----------------------------------------------------------------------===//

/// Shared memory as a map from byte address to (stored row, stored byte
/// column) of a Layout-shaped tile.
template <class L> std::map<int, std::pair<int, int>> tagMemory() {
  std::map<int, std::pair<int, int>> mem;
  for (int r = 0; r < L::kRows; ++r)
    for (int c = 0; c < L::kCols; ++c)
      for (int b = 0; b < L::kElemBytes; ++b)
        mem[L::byte_offset(r, c) + b] = {r, c * L::kElemBytes + b};
  return mem;
}

/// The 4 bytes register j of `lane` gets from ldmatrix.x4; rowAddr(l) is
/// the row address lane l supplied.
template <class RowAddr>
void ldsm(const std::map<int, std::pair<int, int>> &mem, RowAddr rowAddr,
          bool trans, int lane, int j, std::pair<int, int> (&out)[4]) {
  if (!trans) { // row lane/4, bytes 4(lane%4) .. +3
    const int base = rowAddr(8 * j + lane / 4) + 4 * (lane % 4);
    for (int b = 0; b < 4; ++b)
      out[b] = mem.at(base + b);
  } else { // b16 at column lane/4 of rows 2(lane%4), 2(lane%4)+1
    for (int h = 0; h < 2; ++h) {
      const int base = rowAddr(8 * j + 2 * (lane % 4) + h) + 2 * (lane / 4);
      out[2 * h] = mem.at(base);
      out[2 * h + 1] = mem.at(base + 1);
    }
  }
}

/// Replays WarpMma::load for k-step k0 and checks every byte of every
/// fragment register against Op's maps.
template <class W> void expectLoadsMatchFragments(int k0) {
  using Op = typename W::Op_;
  using LA = typename W::LayoutA_;
  using LB = typename W::LayoutB_;
  constexpr int EB = Op::kElemBytes;
  const auto memA = tagMemory<LA>();
  const auto memB = tagMemory<LB>();
  constexpr bool kMajA = W::kMajorA == Major::K, kMajB = W::kMajorB == Major::K;
  const int m0 = 16, n0 = 16; // a warp tile not at the origin
  for (int lane = 0; lane < 32; ++lane) {
    // A: register j of m-tile mt holds elements 4j/EB .. of the fragment.
    for (int mt = 0; mt < W::kMTiles; ++mt)
      for (int j = 0; j < 4; ++j) {
        std::pair<int, int> bytes[4];
        if (kMajA || Op::kLdsmTrans) {
          ldsm(memA, [&](int l) { return W::a_ldsm_offset(l, mt, m0, k0); },
               !kMajA, lane, j, bytes);
        } else {
          for (int b = 0; b < 4; ++b)
            bytes[b] = memA.at(W::a_elem_offset(lane, mt, j, m0, k0) + b);
        }
        for (int b = 0; b < 4; ++b) {
          const RowCol want = Op::a_elem(lane, (4 * j + b) / EB); // (m, k)
          const int m = m0 + 16 * mt + want.row, k = k0 + want.col;
          const std::pair<int, int> stored =
              kMajA ? std::pair<int, int>{m, k * EB + b % EB}
                    : std::pair<int, int>{k, m * EB + b % EB};
          ASSERT_EQ(bytes[b], stored) << "A lane " << lane << " mt " << mt
                                      << " reg " << j << " byte " << b;
        }
      }
    // B: ldmatrix.x4 registers = {b0, b1} of n-tile 2np, then of 2np + 1.
    for (int np = 0; np < W::kNTiles / 2; ++np)
      for (int j = 0; j < 4; ++j) {
        const int nt = 2 * np + j / 2, reg = j % 2;
        std::pair<int, int> bytes[4];
        if (kMajB || Op::kLdsmTrans) {
          ldsm(memB, [&](int l) { return W::b_ldsm_offset(l, np, n0, k0); },
               !kMajB, lane, j, bytes);
        } else {
          for (int b = 0; b < 4; ++b)
            bytes[b] = memB.at(W::b_elem_offset(lane, nt, reg, n0, k0) + b);
        }
        for (int b = 0; b < 4; ++b) {
          const RowCol want = Op::b_elem(lane, (4 * reg + b) / EB); // (k, n)
          const int k = k0 + want.row, n = n0 + 8 * nt + want.col;
          const std::pair<int, int> stored =
              kMajB ? std::pair<int, int>{n, k * EB + b % EB}
                    : std::pair<int, int>{k, n * EB + b % EB};
          ASSERT_EQ(bytes[b], stored) << "B lane " << lane << " nt " << nt
                                      << " reg " << reg << " byte " << b;
        }
      }
  }
}

/// WarpMma with its parameters exposed for the replay.
template <class Op, int WM, int WN, class LA, Major MA, class LB, Major MB>
struct Exposed : WarpMma<Op, WM, WN, LA, MA, LB, MB> {
  using Op_ = Op;
  using LayoutA_ = LA;
  using LayoutB_ = LB;
  static constexpr Major kMajorA = MA, kMajorB = MB;
};

using B16 = std::uint16_t;
using B8 = std::uint8_t;

// Block tile (64, 64, 32): A (64, 32) K-major or (32, 64) MN-major, likewise B.
template <class Op, class T, Major MA, Major MB, class LA, class LB>
void replay(int kSteps) {
  using W = Exposed<Op, 32, 32, LA, MA, LB, MB>;
  for (int s = 0; s < kSteps; ++s)
    expectLoadsMatchFragments<W>(s * Op::kK);
}

TEST(LdmatrixReplay, Bf16AllTranspositionsPadded) {
  using AK = RowMajorPadded<B16, 64, 32, 8>;
  using AM = RowMajorPadded<B16, 32, 64, 8>;
  replay<MmaBf16, B16, Major::K, Major::K, AK, AK>(2);
  replay<MmaBf16, B16, Major::MN, Major::K, AM, AK>(2);
  replay<MmaBf16, B16, Major::K, Major::MN, AK, AM>(2);
  replay<MmaBf16, B16, Major::MN, Major::MN, AM, AM>(2);
}

TEST(LdmatrixReplay, F16AllTranspositionsSwizzled) {
  using AK = RowMajorSwizzled<B16, 64, 32, Swizzle::B64>;
  using AM = RowMajorSwizzled<B16, 32, 64, Swizzle::B128>;
  using AK128 = RowMajorSwizzled<B16, 64, 64, Swizzle::B128>;
  replay<MmaF16, B16, Major::K, Major::K, AK, AK>(2);
  replay<MmaF16, B16, Major::MN, Major::MN, AM, AM>(2);
  replay<MmaF16, B16, Major::K, Major::MN, AK128, AM>(2);
  replay<MmaF16, B16, Major::MN, Major::K, AM, AK>(2);
}

TEST(LdmatrixReplay, Tf32KMajorLdmatrixAndMnMajorElementLoads) {
  using AK = RowMajorPadded<float, 64, 32, 4>;
  using AM = RowMajorPadded<float, 32, 64, 8>;
  using AKS = RowMajorSwizzled<float, 64, 32, Swizzle::B128>;
  replay<MmaTf32, float, Major::K, Major::K, AK, AK>(4);
  replay<MmaTf32, float, Major::MN, Major::MN, AM, AM>(4);
  replay<MmaTf32, float, Major::K, Major::MN, AKS, AM>(4);
}

TEST(LdmatrixReplay, E4m3KMajor) {
  using AK = RowMajorPadded<B8, 64, 64, 16>;
  using AKS = RowMajorSwizzled<B8, 64, 64, Swizzle::B64>;
  replay<MmaE4m3, B8, Major::K, Major::K, AK, AK>(2);
  replay<MmaE4m3, B8, Major::K, Major::K, AKS, AKS>(2);
}

} // namespace
