//===- EmulateWgmmaTest.cpp - wgmma and swizzle semantics vs the PTX ISA --===//
//
// Checks kgen/emulate/Swizzle.h and WgmmaIsa.h against the PTX ISA's
// documented layouts, spelled out here a second way:
//   - the swizzle as "16-byte chunk index XOR row group" per swizzle row
//     (the figures of 9.7.15.5.1.2), not as address bits;
//   - the accumulator figure (9.7.15.5.1.1, Figure 149) register by register;
//   - the register form's A fragments, register by register: 16-bit
//     (9.7.15.5.1.1.1, Figure 148) and e4m3 (Figure 152, as CUTLASS's
//     ALayout_64x32 has it), and runs with A packed into registers by them;
//   - the worked examples of 9.7.15.5.1.2.1.3 (Figures 166, 168-170), whose
//     exact layouts the ISA prints with numbers;
//   - operands placed in a byte image by core matrices and swizzle atoms
//     (this file's placeK / placeMN), run through runWgmma, compared with a
//     plain triple loop.
// Nothing from kgen/cuda is included (the kernels' layouts are what the
// emulator checks, so they must not check themselves).
//
//===----------------------------------------------------------------------===//

#include "kgen/emulate/WgmmaIsa.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace {
using namespace kgen::emu;
using namespace kgen::emu::isa;

constexpr SwizzleMode kModes[] = {SwizzleMode::None, SwizzleMode::B32,
                                  SwizzleMode::B64, SwizzleMode::B128};

//===----------------------------------------------------------------------===//
// Swizzle
//===----------------------------------------------------------------------===//

TEST(EmulateWgmma, Swizzle128BXorsChunkWithRowOfTheAtom) {
  // ISA Figure 157 (K-major 128B): in each 1024-byte atom of 8 rows x 128
  // bytes, row r's 16-byte chunk c is stored at chunk c ^ r. Row 1 spelled
  // out: chunks 1 0 3 2 5 4 7 6; row 5: 5 4 7 6 1 0 3 2.
  const uint32_t row1[8] = {1, 0, 3, 2, 5, 4, 7, 6};
  const uint32_t row5[8] = {5, 4, 7, 6, 1, 0, 3, 2};
  for (uint32_t c = 0; c < 8; ++c) {
    EXPECT_EQ(swizzle(SwizzleMode::B128, 128 + 16 * c), 128 + 16 * row1[c]);
    EXPECT_EQ(swizzle(SwizzleMode::B128, 640 + 16 * c + 3),
              640 + 16 * row5[c] + 3);
  }
  for (uint32_t atom = 0; atom < 4; ++atom)
    for (uint32_t r = 0; r < 8; ++r)
      for (uint32_t c = 0; c < 8; ++c)
        for (uint32_t b = 0; b < 16; ++b) {
          const uint32_t at = 1024 * atom + 128 * r;
          EXPECT_EQ(swizzle(SwizzleMode::B128, at + 16 * c + b),
                    at + 16 * (c ^ r) + b);
        }
}

TEST(EmulateWgmma, Swizzle64BAnd32BPermuteByRowGroup) {
  // 64B: 8 rows of 64 bytes (4 chunks) per 512-byte pattern; rows 2g and
  // 2g + 1 XOR their chunk index with g (Figure 159). 32B: 8 rows of 32
  // bytes (2 chunks) per 256 bytes; rows 4g .. 4g + 3 XOR with g.
  for (uint32_t base : {0u, 512u, 4096u})
    for (uint32_t r = 0; r < 8; ++r) {
      for (uint32_t c = 0; c < 4; ++c)
        EXPECT_EQ(swizzle(SwizzleMode::B64, base + 64 * r + 16 * c + 5),
                  base + 64 * r + 16 * (c ^ (r / 2)) + 5);
      for (uint32_t c = 0; c < 2; ++c)
        EXPECT_EQ(swizzle(SwizzleMode::B32, base + 32 * r + 16 * c + 9),
                  base + 32 * r + 16 * (c ^ (r / 4)) + 9);
    }
  for (uint32_t a = 0; a < 4096; ++a) {
    EXPECT_EQ(swizzle(SwizzleMode::None, a), a);
    for (SwizzleMode m : kModes)
      EXPECT_EQ(swizzle(m, swizzle(m, a)), a) << swizzleName(m);
  }
}

TEST(EmulateWgmma, SwizzleModeEncodings) {
  // wgmma descriptor bits 62-63: 0 none, 1 128B, 2 64B, 3 32B.
  // CUtensorMapSwizzle: 0 none, 1 32B, 2 64B, 3 128B.
  const SwizzleMode byField[4] = {SwizzleMode::None, SwizzleMode::B128,
                                  SwizzleMode::B64, SwizzleMode::B32};
  const SwizzleMode byTma[4] = {SwizzleMode::None, SwizzleMode::B32,
                                SwizzleMode::B64, SwizzleMode::B128};
  for (uint32_t v = 0; v < 4; ++v) {
    SwizzleMode m{};
    ASSERT_TRUE(swizzleFromWgmmaField(v, m));
    EXPECT_EQ(m, byField[v]);
    EXPECT_EQ(wgmmaFieldFromSwizzle(m), v);
    ASSERT_TRUE(swizzleFromTensorMapEnum(int(v), m));
    EXPECT_EQ(m, byTma[v]);
  }
  SwizzleMode m{};
  EXPECT_FALSE(swizzleFromWgmmaField(4, m));
  EXPECT_FALSE(swizzleFromTensorMapEnum(4, m)); // 128B with 32B atoms: sm_100
  EXPECT_FALSE(swizzleFromTensorMapEnum(-1, m));
  EXPECT_EQ(swizzleBytes(SwizzleMode::B64), 64u);
  EXPECT_EQ(swizzlePatternBytes(SwizzleMode::B128), 1024u);
  EXPECT_EQ(swizzlePatternBytes(SwizzleMode::B32), 256u);
}

//===----------------------------------------------------------------------===//
// Descriptor and canonical layouts
//===----------------------------------------------------------------------===//

/// The descriptor of 9.7.15.5.1.2.2, packed by hand here.
uint64_t desc(uint32_t start, uint32_t lbo, uint32_t sbo, uint32_t field,
              uint32_t base = 0) {
  return uint64_t(start >> 4) | (uint64_t(lbo >> 4) << 16) |
         (uint64_t(sbo >> 4) << 32) | (uint64_t(base) << 49) |
         (uint64_t(field) << 62);
}
/// Bits 62-63: 0 none, 1 128B, 2 64B, 3 32B (indexed by SwizzleMode, which
/// is valued none, 32B, 64B, 128B).
uint32_t field(SwizzleMode m) {
  const uint32_t byMode[4] = {0, 3, 2, 1};
  return byMode[int(m)];
}

TEST(EmulateWgmma, DescriptorFields) {
  const uint64_t d = desc(0x1230, 16, 1024, 1);
  EXPECT_EQ(d, 0x4000004000010123ull);
  const MatrixDesc m = decodeMatrixDesc(d);
  EXPECT_EQ(m.start, 0x1230u);
  EXPECT_EQ(m.lbo, 16u);
  EXPECT_EQ(m.sbo, 1024u);
  EXPECT_EQ(m.baseOffset, 0u);
  EXPECT_EQ(m.swizzle, SwizzleMode::B128);
  EXPECT_EQ(m.unusedBits, 0u);
  EXPECT_EQ(encodeMatrixDesc(0x1230, 16, 1024, SwizzleMode::B128), d);
  // matrix-descriptor-encode keeps address bits 4..17 only.
  EXPECT_EQ(encodeMatrixDesc(0x41230, 16, 1024, SwizzleMode::B128), d);
  const MatrixDesc o = decodeMatrixDesc(desc(0x3fff0, 0x3fff0, 0x3fff0, 3, 5) |
                                        (1ull << 47) | (1ull << 15));
  EXPECT_EQ(o.start, 0x3fff0u);
  EXPECT_EQ(o.lbo, 0x3fff0u);
  EXPECT_EQ(o.sbo, 0x3fff0u);
  EXPECT_EQ(o.baseOffset, 5u);
  EXPECT_EQ(o.swizzle, SwizzleMode::B32);
  EXPECT_EQ(o.unusedBits, (1ull << 47) | (1ull << 15));
}

/// canonicalOffset of every element, in elements of `e` bytes.
template <class Expected>
void expectCanonical(uint64_t d, Major major, uint32_t e, uint32_t mnCount,
                     uint32_t kCount, Expected expected) {
  const MatrixDesc m = decodeMatrixDesc(d);
  for (uint32_t mn = 0; mn < mnCount; ++mn)
    for (uint32_t k = 0; k < kCount; ++k)
      EXPECT_EQ(canonicalOffset(m, major, e, mn, k), expected(mn, k) * e)
          << "mn " << mn << " k " << k;
}

TEST(EmulateWgmma, CanonicalLayoutsMatchTheIsaExamples) {
  // Figure 166, K-major, no swizzle, tf32 (T = 4): exact layout
  // ((8,2),(4,4)):((4,32),(1,64)), LBO = 64 * 4, SBO = 32 * 4 bytes.
  expectCanonical(
      desc(0, 256, 128, 0), Major::K, 4, 16, 16, [](uint32_t mn, uint32_t k) {
        return (mn % 8) * 4 + (mn / 8) * 32 + (k % 4) + (k / 4) * 64;
      });
  // Figure 168, MN-major, no swizzle, bf16 (T = 8): ((8,1,2),(8,2)) :
  // ((1,8,64),(8,128)), LBO = 128 * 2, SBO = 64 * 2.
  expectCanonical(
      desc(0, 256, 128, 0), Major::MN, 2, 16, 16, [](uint32_t mn, uint32_t k) {
        return (mn % 8) + (mn / 8) * 64 + (k % 8) * 8 + (k / 8) * 128;
      });
  // Figure 169, MN-major, 32B, bf16: ((8,2,2),(8,2)):((1,8,128),(16,256)),
  // LBO = 128 * 2, SBO = 256 * 2.
  expectCanonical(desc(0, 256, 512, 3), Major::MN, 2, 32, 16,
                  [](uint32_t mn, uint32_t k) {
                    return (mn % 8) + (mn / 8 % 2) * 8 + (mn / 16) * 128 +
                           (k % 8) * 16 + (k / 8) * 256;
                  });
  // Figure 170, MN-major, 64B, bf16: ((8,4,2),(8,2)):((1,8,256),(32,512)),
  // LBO = 256 * 2, SBO = 512 * 2.
  expectCanonical(desc(0, 512, 1024, 2), Major::MN, 2, 64, 16,
                  [](uint32_t mn, uint32_t k) {
                    return (mn % 8) + (mn / 8 % 4) * 8 + (mn / 32) * 256 +
                           (k % 8) * 32 + (k / 8) * 512;
                  });
  // K-major 128B, bf16 (canonical row of the table, T = 8, m = 2):
  // ((8,2),(8,2)):((64,SBO),(1,8)) with SBO = 1024 bytes = 512 elements;
  // a K-major swizzled operand ignores LBO (give it a junk value).
  expectCanonical(desc(0, 0x3ff0, 1024, 1), Major::K, 2, 16, 16,
                  [](uint32_t mn, uint32_t k) {
                    return (mn % 8) * 64 + (mn / 8) * 512 + k;
                  });
}

//===----------------------------------------------------------------------===//
// Accumulator fragment
//===----------------------------------------------------------------------===//

/// One register of a fragment figure: thread's register `reg` holds
/// element (row, col).
struct FigureCase {
  uint32_t thread, reg, row, col;
};

/// Checks `map` (thread, reg) -> RowCol against the figure's cases, and that
/// the 128 threads' `regs` registers cover the rows x cols tile once.
template <class Map>
void expectFragment(Map map, const std::vector<FigureCase> &cases,
                    const char *name, uint32_t regs, uint32_t rows,
                    uint32_t cols) {
  for (const FigureCase &c : cases) {
    const RowCol rc = map(c.thread, c.reg);
    EXPECT_EQ(rc.row, c.row) << "thread " << c.thread << " " << name << c.reg;
    EXPECT_EQ(rc.col, c.col) << "thread " << c.thread << " " << name << c.reg;
  }
  std::vector<int> seen(rows * cols, 0);
  for (uint32_t t = 0; t < 128; ++t)
    for (uint32_t i = 0; i < regs; ++i) {
      const RowCol rc = map(t, i);
      ASSERT_LT(rc.row, rows);
      ASSERT_LT(rc.col, cols);
      ++seen[rc.row * cols + rc.col];
    }
  for (int s : seen)
    ASSERT_EQ(s, 1) << name << ": " << cols << " columns";
}

TEST(EmulateWgmma, AccumulatorFragmentMatchesFigure149) {
  // Figure 149: warp w's lanes cover rows 16w .. 16w + 15; T0 holds d0, d1
  // at row 0, columns 0, 1; d2, d3 at row 8; d4, d5 at row 0, columns 8, 9.
  const std::vector<FigureCase> cases = {
      {0, 0, 0, 0},    {0, 1, 0, 1},        {0, 2, 8, 0},       {0, 3, 8, 1},
      {0, 4, 0, 8},    {0, 5, 0, 9},        {0, 6, 8, 8},       {1, 0, 0, 2},
      {3, 1, 0, 7},    {4, 0, 1, 0},        {5, 0, 1, 2},       {5, 3, 9, 3},
      {5, 4, 1, 10},   {31, 0, 7, 6},       {31, 3, 15, 7},     {32, 0, 16, 0},
      {37, 2, 25, 2},  {64, 0, 32, 0},      {96, 1, 48, 1},     {127, 0, 55, 6},
      {127, 2, 63, 6}, {127, 127, 63, 255}, {100, 64, 49, 128},
  };
  // For every N the 128 threads' N / 2 registers cover the 64 x N tile once.
  for (uint32_t n = 8; n <= 256; n += 8)
    expectFragment(accumulatorElement, n == 256 ? cases : std::vector<FigureCase>{},
                   "d", n / 2, 64, n);
}

TEST(EmulateWgmma, RegisterAFragmentMatchesFigure148) {
  // Figure 148: T0 holds a0, a1 at row 0, columns 0, 1; a2, a3 at row 8;
  // a4, a5 at row 0, columns 8, 9; a6, a7 at row 8, columns 8, 9. Lane l
  // of warp w: row 16w + l / 4, columns from 2 (l % 4). The 128 threads'
  // 8 elements cover the 64 x 16 A once.
  expectFragment(aFragmentElement,
                 {{0, 0, 0, 0},    {0, 1, 0, 1},     {0, 2, 8, 0},
                  {0, 3, 8, 1},    {0, 4, 0, 8},     {0, 5, 0, 9},
                  {0, 6, 8, 8},    {0, 7, 8, 9},     {1, 0, 0, 2},
                  {3, 1, 0, 7},    {3, 7, 8, 15},    {4, 0, 1, 0},
                  {31, 0, 7, 6},   {31, 7, 15, 15},  {32, 0, 16, 0},
                  {37, 2, 25, 2},  {64, 4, 32, 8},   {127, 0, 55, 6},
                  {127, 7, 63, 15}},
                 "a", 8, 64, 16);
}

TEST(EmulateWgmma, RegisterAFragment8MatchesAlayout64x32) {
  // Figure 152 is an image; CUTLASS's ALayout_64x32 read out register by
  // register (mma.sync m16n8k32's A per warp): register r of lane l in
  // warp w holds row 16w + l / 4 (+ 8 for r = 1, 3), its byte b (from the
  // low end) column 4 (l % 4) + b (+ 16 for r = 2, 3). The 128 threads'
  // 16 bytes cover the 64 x 32 A once.
  for (uint32_t t = 0; t < 128; ++t)
    for (uint32_t r = 0; r < 4; ++r)
      for (uint32_t b = 0; b < 4; ++b) {
        const RowCol rc = aFragmentElement8(t, 4 * r + b);
        ASSERT_EQ(rc.row, 16 * (t / 32) + (t % 32) / 4 + 8 * (r % 2))
            << "thread " << t << " register " << r << " byte " << b;
        ASSERT_EQ(rc.col, 4 * (t % 4) + b + 16 * (r / 2))
            << "thread " << t << " register " << r << " byte " << b;
      }
  expectFragment(aFragmentElement8, {{37, 5, 25, 5}, {127, 15, 63, 31}}, "a",
                 16, 64, 32);
}

//===----------------------------------------------------------------------===//
// wgmma on a byte image
//===----------------------------------------------------------------------===//

/// The warpgroup's N / 2 accumulators per thread, each set to `fill`, and
/// the per-thread pointers runWgmma takes.
struct Accumulators {
  std::vector<std::vector<float>> v;
  float *ptrs[128];
  Accumulators(uint32_t n, float fill)
      : v(128, std::vector<float>(n / 2, fill)) {
    for (int t = 0; t < 128; ++t)
      ptrs[t] = v[t].data();
  }
  Accumulators(const Accumulators &) = delete;
};

constexpr uint32_t kWindow = 96 * 1024;
constexpr uint32_t kBaseA = 1024, kBaseB = 32 * 1024; // pattern-aligned

/// Byte offset of K-major element (mn, k) from the operand base: core
/// matrices of 8 MN rows x 16 bytes at (mn/8) * sbo + (k/T) * lbo with no
/// swizzle; with swizzle width S, atoms of 8 rows x S bytes at (mn/8) * sbo,
/// row r's chunk c stored at chunk c ^ (row group of r).
uint32_t placeK(SwizzleMode m, uint32_t e, uint32_t lbo, uint32_t sbo,
                uint32_t mn, uint32_t k) {
  const uint32_t t = 16 / e, r = mn % 8;
  if (m == SwizzleMode::None)
    return (mn / 8) * sbo + (k / t) * lbo + 16 * r + (k % t) * e;
  const uint32_t s = swizzleBytes(m), byte = k * e;
  const uint32_t group = r * s / 128; // which XOR value row r gets
  return (mn / 8) * sbo + r * s + 16 * ((byte / 16) ^ group) + byte % 16;
}

/// MN-major: core matrices of 8 K rows x 16 bytes (T MN elements) at
/// (mn/T) * sbo + (k/8) * lbo with no swizzle; with swizzle width S, atoms
/// of 8 K rows x S bytes at (mn / (S/e)) * lbo + (k/8) * sbo, chunks
/// permuted per row as above.
uint32_t placeMN(SwizzleMode m, uint32_t e, uint32_t lbo, uint32_t sbo,
                 uint32_t mn, uint32_t k) {
  const uint32_t t = 16 / e, r = k % 8;
  if (m == SwizzleMode::None)
    return (mn / t) * sbo + (k / 8) * lbo + 16 * r + (mn % t) * e;
  const uint32_t s = swizzleBytes(m), perRow = s / e;
  const uint32_t byte = (mn % perRow) * e, group = r * s / 128;
  return (mn / perRow) * lbo + (k / 8) * sbo + r * s +
         16 * ((byte / 16) ^ group) + byte % 16;
}

/// LBO and SBO for an operand of mnCount x kCount placed with this file's
/// layouts: `swap` picks the other order of the two strided dimensions.
void strides(SwizzleMode m, Major major, uint32_t e, uint32_t mnCount,
             uint32_t kCount, bool swap, uint32_t &lbo, uint32_t &sbo) {
  const uint32_t t = 16 / e;
  if (major == Major::K) {
    if (m == SwizzleMode::None) { // cores: 128 bytes each
      const uint32_t kCores = (kCount + t - 1) / t, mnCores = (mnCount + 7) / 8;
      lbo = swap ? 128 * mnCores : 128;
      sbo = swap ? 128 : 128 * kCores;
    } else { // atoms along MN; LBO unused
      lbo = 0x1230;
      sbo = 8 * swizzleBytes(m);
    }
    return;
  }
  if (m == SwizzleMode::None) {
    const uint32_t mnCores = (mnCount + t - 1) / t, kCores = (kCount + 7) / 8;
    sbo = swap ? 128 * kCores : 128;
    lbo = swap ? 128 : 128 * mnCores;
    return;
  }
  const uint32_t atom = 8 * swizzleBytes(m), perRow = swizzleBytes(m) / e;
  const uint32_t mnAtoms = (mnCount + perRow - 1) / perRow,
                 kAtoms = (kCount + 7) / 8;
  lbo = swap ? atom * kAtoms : atom;
  sbo = swap ? atom : atom * mnAtoms;
}

struct Problem {
  WgmmaType type;
  SwizzleMode swA, swB;
  bool transA, transB;
  uint32_t n;
  bool scaleD;
  bool aRegs = false; ///< the register form: A packed into aRegs, not placed
};

std::string describe(const Problem &p) {
  return std::string(wgmmaTypeName(p.type)) + " N" + std::to_string(p.n) +
         (p.aRegs ? std::string(" A in registers")
                  : std::string(" A ") + (p.transA ? "MN" : "K") + "-major " +
                        swizzleName(p.swA)) +
         ", B " + (p.transB ? "MN" : "K") + "-major " + swizzleName(p.swB) +
         (p.scaleD ? ", D += A*B" : ", D = A*B");
}

/// A random value of the type and its bytes (little-endian).
float randomValue(WgmmaType t, std::mt19937 &rng, uint16_t &bits) {
  std::uniform_real_distribution<float> u(-2, 2);
  if (t == WgmmaType::E4M3) {
    do
      bits = uint16_t(rng() & 0xff);
    while ((bits & 0x7f) == 0x7f); // no NaN
    return e4m3ToF32(uint8_t(bits));
  }
  if (t == WgmmaType::BF16) {
    bits = f32ToBf16(u(rng));
    return bf16ToF32(bits);
  }
  bits = f32ToF16(u(rng));
  return f16ToF32(bits);
}

/// Places random A (64 x K) and B (K x N) in an image by placeK / placeMN
/// (A, in the register form, in the registers by Figure 148 or, for e4m3,
/// Figure 152 written out again, leaving its image bytes NaN), runs
/// runWgmma, and compares every accumulator with a triple loop.
void runAndCompare(const Problem &p, uint32_t seed) {
  SCOPED_TRACE(describe(p));
  std::mt19937 rng(seed);
  const uint32_t e = wgmmaElemBytes(p.type), kk = wgmmaK(p.type), n = p.n;
  const Major ma = p.transA ? Major::MN : Major::K,
              mb = p.transB ? Major::MN : Major::K;
  std::vector<unsigned char> image(kWindow, 0xff); // NaN in every type
  auto place = [&](SwizzleMode m, Major major, uint32_t lbo, uint32_t sbo,
                   uint32_t mn, uint32_t k) {
    return major == Major::K ? placeK(m, e, lbo, sbo, mn, k)
                             : placeMN(m, e, lbo, sbo, mn, k);
  };
  uint32_t lboA, sboA, lboB, sboB;
  strides(p.swA, ma, e, 64, kk, seed % 2 == 0, lboA, sboA);
  strides(p.swB, mb, e, n, kk, seed % 2 == 1, lboB, sboB);
  std::vector<float> a(64 * kk), b(kk * n);
  std::vector<uint16_t> aBits(64 * kk);
  auto store = [&](uint32_t at, uint16_t bits) {
    ASSERT_LE(at + e, kWindow);
    image[at] = uint8_t(bits);
    if (e == 2)
      image[at + 1] = uint8_t(bits >> 8);
  };
  for (uint32_t m = 0; m < 64; ++m)
    for (uint32_t k = 0; k < kk; ++k) {
      uint16_t bits;
      a[m * kk + k] = randomValue(p.type, rng, bits);
      aBits[m * kk + k] = bits;
      if (!p.aRegs)
        store(kBaseA + place(p.swA, ma, lboA, sboA, m, k), bits);
    }
  for (uint32_t k = 0; k < kk; ++k)
    for (uint32_t j = 0; j < n; ++j) {
      uint16_t bits;
      b[k * n + j] = randomValue(p.type, rng, bits);
      store(kBaseB + place(p.swB, mb, lboB, sboB, j, k), bits);
    }

  WgmmaInstr in;
  in.type = p.type;
  in.n = n;
  in.transA = p.transA;
  in.transB = p.transB;
  in.descA = desc(kBaseA, lboA, sboA, field(p.swA));
  in.descB = desc(kBaseB, lboB, sboB, field(p.swB));
  in.scaleD = p.scaleD;
  if (p.aRegs) {
    // Figure 148: register r of lane l in warp w holds row 16w + l / 4
    // (+ 8 for r = 1, 3), columns 2 (l % 4) and + 1 (+ 8 for r = 2, 3),
    // the lower column in the low half. Figure 152 (e4m3): the same rows,
    // columns 4 (l % 4) .. + 3 (+ 16 for r = 2, 3), the lowest column in
    // the lowest byte.
    in.aInRegisters = true;
    for (uint32_t t = 0; t < 128; ++t)
      for (uint32_t r = 0; r < 4; ++r) {
        const uint32_t row = 16 * (t / 32) + (t % 32) / 4 + (r % 2) * 8;
        const uint32_t perReg = 4 / e; // elements in one register
        const uint32_t col = perReg * (t % 4) + (r / 2) * 4 * perReg;
        in.aRegs[t][r] = 0;
        for (uint32_t j = 0; j < perReg; ++j)
          in.aRegs[t][r] |= uint32_t(aBits[row * kk + col + j]) << (8 * e * j);
      }
  }
  Accumulators acc(n, 0.f);
  std::vector<std::vector<float>> init = acc.v;
  std::uniform_real_distribution<float> u(-1, 1);
  for (uint32_t t = 0; t < 128; ++t)
    for (uint32_t i = 0; i < n / 2; ++i) // NaN: ignored unless scaleD
      acc.v[t][i] = init[t][i] = p.scaleD ? u(rng) : NAN;
  ASSERT_EQ(runWgmma(in, {image.data(), kWindow}, acc.ptrs), "");

  for (uint32_t t = 0; t < 128; ++t)
    for (uint32_t i = 0; i < n / 2; ++i) {
      // Figure 149, written out again.
      const uint32_t w = t / 32, g = (t % 32) / 4, q = t % 4;
      const uint32_t row = 16 * w + g + ((i % 4) >= 2 ? 8 : 0);
      const uint32_t col = 8 * (i / 4) + 2 * q + (i % 2);
      // Products added in k order, one f32 rounding each (WgmmaIsa.h).
      float want = p.scaleD ? init[t][i] : 0.0f;
      for (uint32_t k = 0; k < kk; ++k)
        want = std::fma(float(a[row * kk + k]), float(b[k * n + col]), want);
      ASSERT_EQ(acc.v[t][i], want)
          << "thread " << t << " d" << i << " = D[" << row << "][" << col
          << "]";
    }
}

TEST(EmulateWgmma, Bf16AndF16EveryMajorAndSwizzle) {
  uint32_t seed = 1;
  for (WgmmaType type : {WgmmaType::BF16, WgmmaType::F16})
    for (SwizzleMode sw : kModes)
      for (int trans = 0; trans < 4; ++trans)
        for (uint32_t n : {8u, 64u, 256u})
          runAndCompare({type, sw, sw, (trans & 1) != 0, (trans & 2) != 0, n,
                         seed % 3 != 0},
                        seed++);
}

TEST(EmulateWgmma, MixedSwizzlesAndEveryN) {
  uint32_t seed = 100;
  for (uint32_t n = 8; n <= 256; n += 8)
    runAndCompare({WgmmaType::BF16, kModes[n / 8 % 4], kModes[(n / 8 + 1) % 4],
                   n % 16 == 0, n % 24 == 0, n, true},
                  seed++);
}

TEST(EmulateWgmma, RegisterABf16AndF16) {
  // The register form: A in registers (its descriptor points at NaN bytes
  // and must not be read), B K-major or MN-major (imm-trans-b), every
  // swizzle, N = 8 .. 256; scale-d both ways (D = A*B ignores the old D,
  // which runAndCompare sets to NaN then).
  uint32_t seed = 300;
  for (WgmmaType type : {WgmmaType::BF16, WgmmaType::F16})
    for (SwizzleMode sw : kModes)
      for (bool transB : {false, true})
        for (uint32_t n : {8u, 64u, 128u, 256u})
          for (bool scaleD : {false, true})
            runAndCompare({type, sw, sw, false, transB, n, scaleD, true},
                          seed++);
}

TEST(EmulateWgmma, RegisterAE4m3EverySwizzle) {
  // The register form with e4m3: 16 bytes of A per thread (Figure 152), B
  // K-major (no imm-trans-b for 8-bit types), every swizzle, N = 8 .. 256,
  // scale-d both ways.
  uint32_t seed = 400;
  for (SwizzleMode sw : kModes)
    for (uint32_t n : {8u, 64u, 128u, 256u})
      for (bool scaleD : {false, true})
        runAndCompare({WgmmaType::E4M3, sw, sw, false, false, n, scaleD, true},
                      seed++);
}

TEST(EmulateWgmma, E4m3KMajorEverySwizzle) {
  uint32_t seed = 200;
  for (SwizzleMode sw : kModes)
    for (uint32_t n : {8u, 64u, 256u})
      for (bool scaleD : {false, true})
        runAndCompare({WgmmaType::E4M3, sw, sw, false, false, n, scaleD},
                      seed++);
}

TEST(EmulateWgmma, KSlicesInsideA128BAtom) {
  // A K-major 128B tile of 64 rows x 64 bf16 (one 128-byte row per M row):
  // K slice s starts 32 * s bytes into row 0 of the atom, and the hardware
  // swizzles start + offset, so slice s reads columns 16s .. 16s + 15.
  std::vector<unsigned char> image(kWindow, 0);
  float aTile[64][64], bTile[64][8];
  std::mt19937 rng(7);
  for (uint32_t m = 0; m < 64; ++m)
    for (uint32_t k = 0; k < 64; ++k) {
      uint16_t bits;
      aTile[m][k] = randomValue(WgmmaType::BF16, rng, bits);
      const uint32_t at = kBaseA + placeK(SwizzleMode::B128, 2, 0, 1024, m, k);
      image[at] = uint8_t(bits);
      image[at + 1] = uint8_t(bits >> 8);
    }
  for (uint32_t n = 0; n < 8; ++n)
    for (uint32_t k = 0; k < 64; ++k) { // B: 8 rows (n) x 128 bytes of K
      uint16_t bits;
      bTile[k][n] = randomValue(WgmmaType::BF16, rng, bits);
      const uint32_t at = kBaseB + placeK(SwizzleMode::B128, 2, 0, 1024, n, k);
      image[at] = uint8_t(bits);
      image[at + 1] = uint8_t(bits >> 8);
    }
  for (uint32_t s = 0; s < 4; ++s) {
    WgmmaInstr in;
    in.n = 8;
    in.descA = desc(kBaseA + 32 * s, 16, 1024, 1);
    in.descB = desc(kBaseB + 32 * s, 16, 1024, 1);
    in.scaleD = false;
    Accumulators acc(8, 0.f);
    ASSERT_EQ(runWgmma(in, {image.data(), kWindow}, acc.ptrs), "");
    for (uint32_t t = 0; t < 128; ++t)
      for (uint32_t i = 0; i < 4; ++i) {
        const uint32_t row = 16 * (t / 32) + (t % 32) / 4 + 8 * (i / 2),
                       col = 2 * (t % 4) + i % 2;
        float want = 0;
        for (uint32_t k = 16 * s; k < 16 * s + 16; ++k)
          want = std::fma(float(aTile[row][k]), float(bTile[k][col]), want);
        ASSERT_EQ(acc.v[t][i], want)
            << "slice " << s << " thread " << t << " d" << i;
      }
  }
}

TEST(EmulateWgmma, NegatedInputsAndScaleD) {
  // All-ones A and B (bf16 0x3f80): D = K = 16 per element; imm-scale-a = -1
  // gives -16; scale-d adds the old D.
  std::vector<unsigned char> image(kWindow, 0);
  for (uint32_t i = 0; i < 64 * 16; ++i) {
    image[kBaseA + 2 * i] = 0x80;
    image[kBaseA + 2 * i + 1] = 0x3f;
  }
  for (uint32_t i = 0; i < 8 * 16; ++i) {
    image[kBaseB + 2 * i] = 0x80;
    image[kBaseB + 2 * i + 1] = 0x3f;
  }
  WgmmaInstr in;
  in.n = 8;
  in.descA = desc(kBaseA, 128, 256, 0); // K-major none, contiguous
  in.descB = desc(kBaseB, 128, 256, 0);
  Accumulators acc(8, 3.f);
  in.scaleA = -1;
  ASSERT_EQ(runWgmma(in, {image.data(), kWindow}, acc.ptrs), "");
  EXPECT_EQ(acc.v[77][2], 3.f - 16.f);
  in.scaleB = -1;
  in.scaleD = false;
  ASSERT_EQ(runWgmma(in, {image.data(), kWindow}, acc.ptrs), "");
  EXPECT_EQ(acc.v[5][0], 16.f);
}

//===----------------------------------------------------------------------===//
// Reads
//===----------------------------------------------------------------------===//

/// Checks that `reads` are sorted, disjoint, maximal ranges whose union is
/// exactly `expected` (a byte map of the window).
void expectReads(const std::vector<SharedRange> &reads,
                 const std::vector<bool> &expected) {
  std::vector<bool> got(kWindow, false);
  for (size_t i = 0; i < reads.size(); ++i) {
    if (i > 0) {
      EXPECT_GT(reads[i].addr, reads[i - 1].addr + reads[i - 1].bytes)
          << "ranges " << i - 1 << " and " << i << " touch or overlap";
    }
    ASSERT_LE(reads[i].addr + reads[i].bytes, kWindow);
    for (uint32_t b = 0; b < reads[i].bytes; ++b)
      got[reads[i].addr + b] = true;
  }
  for (uint32_t a = 0; a < kWindow; ++a)
    ASSERT_EQ(got[a], expected[a]) << "shared byte " << a;
}

TEST(EmulateWgmma, ReadsAreTheOperandsBytes) {
  WgmmaInstr in;
  in.n = 16;
  // A: K-major 128B bf16, atoms along M at 1024 bytes: row r of atom j reads
  // its chunks 0 ^ r and 1 ^ r, i.e. the 32 bytes at 1024j + 128r + 32(r/2).
  in.descA = desc(kBaseA, 16, 1024, 1);
  // B: K-major none, core (n/8, k/8) at (n/8) * 256 + (k/8) * 128: the 512
  // bytes from its start.
  in.descB = desc(kBaseB, 128, 256, 0);
  ASSERT_EQ(checkWgmma(in, kWindow), "");
  std::vector<bool> expected(kWindow, false);
  for (uint32_t j = 0; j < 8; ++j)
    for (uint32_t r = 0; r < 8; ++r)
      for (uint32_t b = 0; b < 32; ++b)
        expected[kBaseA + 1024 * j + 128 * r + 32 * (r / 2) + b] = true;
  for (uint32_t b = 0; b < 512; ++b)
    expected[kBaseB + b] = true;
  expectReads(wgmmaReads(in), expected);

  // e4m3 (32 one-byte elements of K): A K-major 32B reads every byte of its
  // 64 rows of 32 bytes; B as before (16 N x 32 bytes).
  in.type = WgmmaType::E4M3;
  in.descA = desc(kBaseA, 16, 256, 3);
  ASSERT_EQ(checkWgmma(in, kWindow), "");
  const std::vector<SharedRange> r8 = wgmmaReads(in);
  ASSERT_EQ(r8.size(), 2u);
  EXPECT_EQ(r8[0].addr, kBaseA);
  EXPECT_EQ(r8[0].bytes, 64u * 32u);
  EXPECT_EQ(r8[1].addr, kBaseB);
  EXPECT_EQ(r8[1].bytes, 512u);

  // A in registers: B's bytes only, whatever descA says (e4m3 too: 16 N
  // x 32 bytes of K).
  in.aInRegisters = true;
  in.descA = desc(kBaseA, 16, 1024, 1);
  for (WgmmaType type : {WgmmaType::BF16, WgmmaType::E4M3}) {
    in.type = type;
    ASSERT_EQ(checkWgmma(in, kWindow), "");
    const std::vector<SharedRange> rr = wgmmaReads(in);
    ASSERT_EQ(rr.size(), 1u);
    EXPECT_EQ(rr[0].addr, kBaseB);
    EXPECT_EQ(rr[0].bytes, 512u);
  }
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

WgmmaInstr legal() {
  WgmmaInstr in;
  in.n = 64;
  in.descA = desc(kBaseA, 16, 1024, 1);
  in.descB = desc(kBaseB, 16, 1024, 1);
  return in;
}

void expectError(const WgmmaInstr &in, const char *needle) {
  const std::string err = checkWgmma(in, kWindow);
  EXPECT_NE(err.find(needle), std::string::npos)
      << "expected '" << needle << "' in '" << err << "'";
}

TEST(EmulateWgmma, IllegalInstructionsAreReported) {
  ASSERT_EQ(checkWgmma(legal(), kWindow), "");
  for (uint32_t n : {0u, 4u, 12u, 264u}) {
    WgmmaInstr in = legal();
    in.n = n;
    expectError(in, "N = ");
  }
  {
    WgmmaInstr in = legal();
    in.type = WgmmaType::E4M3;
    in.transB = true;
    expectError(in, "K-major");
  }
  {
    WgmmaInstr in = legal();
    in.scaleA = 0;
    expectError(in, "imm-scale");
  }
  {
    WgmmaInstr in = legal();
    in.descB |= 1ull << 47; // bits 46-48: no wgmma field
    expectError(in, "no descriptor field");
  }
  {
    WgmmaInstr in = legal();
    in.descA = desc(kBaseA + 128, 16, 1024, 1, 1);
    expectError(in, "base offset 1");
  }
  {
    WgmmaInstr in = legal();
    in.descA = desc(kBaseA, 128, 256, 0, 2);
    expectError(in, "no swizzle");
  }
  {
    // A 128B tile one 128-byte row off its 1024-byte alignment.
    WgmmaInstr in = legal();
    in.descA = desc(kBaseA + 128, 16, 1024, 1);
    expectError(in, "span 1");
    // 64B: 512-byte patterns, so 1024 + 256 is span 2 of one.
    in.descA = desc(kBaseA + 256, 16, 512, 2);
    expectError(in, "span 2");
    // 32 bytes into row 0 (a K slice) is fine.
    in.descA = desc(kBaseA + 32, 16, 1024, 1);
    EXPECT_EQ(checkWgmma(in, kWindow), "");
  }
  {
    WgmmaInstr in = legal();
    in.n = 256; // B: 32 atoms of 1 KiB
    EXPECT_EQ(checkWgmma(in, kWindow), "");
    in.descB = desc(kWindow - 16 * 1024, 16, 1024, 1); // half of it outside
    expectError(in, "outside the");
  }
  {
    WgmmaInstr in = legal();
    in.descA = desc(kBaseA, 128, 0, 0); // SBO 0: rows 8.. land on rows 0..
    expectError(in, "overlap");
    in.descA = desc(kBaseA, 0, 128, 0); // LBO 0: k 8.. on k 0..
    expectError(in, "overlap");
  }
  {
    // The register form: no imm-trans-a; e4m3 A in registers is legal,
    // with B K-major (no transpose for 8-bit types in either form); A's
    // descriptor not checked (a garbage one is fine).
    WgmmaInstr in = legal();
    in.aInRegisters = true;
    in.descA = ~0ull;
    EXPECT_EQ(checkWgmma(in, kWindow), "");
    in.transA = true;
    expectError(in, "no imm-trans-a");
    in.transA = false;
    in.type = WgmmaType::E4M3;
    EXPECT_EQ(checkWgmma(in, kWindow), "");
    in.transB = true;
    expectError(in, "K-major");
    in.transB = false;
    in.transA = true;
    expectError(in, "K-major");
  }
  {
    // runWgmma reports and leaves the accumulators alone.
    WgmmaInstr in = legal();
    in.n = 8;
    in.transA = true;
    in.type = WgmmaType::E4M3;
    std::vector<unsigned char> image(kWindow, 0);
    Accumulators acc(8, 42.f);
    EXPECT_NE(runWgmma(in, {image.data(), kWindow}, acc.ptrs), "");
    EXPECT_EQ(acc.v[9][3], 42.f);
  }
}

} // namespace
