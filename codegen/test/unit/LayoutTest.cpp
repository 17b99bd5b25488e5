//===- LayoutTest.cpp - shared-memory tile layouts on the CPU -------------===//
//
// The swizzle is the one TMA and wgmma use: checked against its definition
// (16-byte chunk index XOR row within 8-row atoms), for bijectivity, and for
// bank conflicts of a warp's 16-byte accesses along a row and down a column.
//
//===----------------------------------------------------------------------===//

#include "kgen/cuda/Layout.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

using namespace kgen::cuda;

namespace {

// Element types only matter by size on the host.
using B16 = std::uint16_t;
using B8 = std::uint8_t;
using B32 = float;

const Swizzle kSwizzles[] = {Swizzle::B32, Swizzle::B64, Swizzle::B128};

/// A warp's 32 16-byte accesses are served in 4 phases of 8 lanes; a phase
/// is conflict-free when its 8 chunks fall in 8 different 16-byte bank groups.
bool conflictFree16(const std::vector<int> &byteOffsets) {
  for (size_t phase = 0; phase < byteOffsets.size(); phase += 8) {
    std::set<int> groups;
    for (size_t i = phase; i < phase + 8 && i < byteOffsets.size(); ++i)
      groups.insert((byteOffsets[i] / 16) % 8);
    if (groups.size() != std::min<size_t>(8, byteOffsets.size() - phase))
      return false;
  }
  return true;
}

TEST(Swizzle, MatchesTheHopperDefinition) {
  // 128B: in a 1024-byte atom of 8 rows x 128 bytes, chunk c of row r sits
  // at chunk c ^ (r % 8); bytes within a chunk do not move.
  for (unsigned row = 0; row < 32; ++row)
    for (unsigned chunk = 0; chunk < 8; ++chunk)
      for (unsigned byte = 0; byte < 16; byte += 5) {
        const unsigned off = row * 128 + chunk * 16 + byte;
        EXPECT_EQ(swizzle_offset(Swizzle::B128, off),
                  row * 128 + ((chunk ^ (row % 8)) * 16) + byte);
      }
  // 64B rows: chunk c (0..3) of row r at c ^ ((r / 2) % 4).
  for (unsigned row = 0; row < 32; ++row)
    for (unsigned chunk = 0; chunk < 4; ++chunk)
      EXPECT_EQ(swizzle_offset(Swizzle::B64, row * 64 + chunk * 16),
                row * 64 + ((chunk ^ ((row / 2) % 4)) * 16));
  // 32B rows: chunk c (0..1) of row r at c ^ ((r / 4) % 2).
  for (unsigned row = 0; row < 32; ++row)
    for (unsigned chunk = 0; chunk < 2; ++chunk)
      EXPECT_EQ(swizzle_offset(Swizzle::B32, row * 32 + chunk * 16),
                row * 32 + ((chunk ^ ((row / 4) % 2)) * 16));
  // None is the identity.
  for (unsigned off = 0; off < 4096; off += 7)
    EXPECT_EQ(swizzle_offset(Swizzle::None, off), off);
}

TEST(Swizzle, IsABijectionWithinEachAtomAndAnInvolution) {
  for (Swizzle s : kSwizzles) {
    const unsigned atom = 8u * unsigned(s);
    for (unsigned base = 0; base < 4 * atom; base += atom) {
      std::set<unsigned> seen;
      for (unsigned off = base; off < base + atom; ++off) {
        const unsigned sw = swizzle_offset(s, off);
        EXPECT_GE(sw, base);
        EXPECT_LT(sw, base + atom);
        seen.insert(sw);
        EXPECT_EQ(swizzle_offset(s, sw), off);
      }
      EXPECT_EQ(seen.size(), atom) << "swizzle " << int(s);
    }
  }
}

template <class L> void expectBijectiveTile() {
  std::set<int> seen;
  for (int r = 0; r < L::kRows; ++r)
    for (int c = 0; c < L::kCols; ++c) {
      const int off = L::byte_offset(r, c);
      ASSERT_GE(off, 0);
      ASSERT_LE(off + L::kElemBytes, L::kBytes);
      ASSERT_EQ(off % L::kElemBytes, 0);
      EXPECT_EQ(L::offset(r, c) * L::kElemBytes, off);
      seen.insert(off);
    }
  EXPECT_EQ(seen.size(), size_t(L::kRows) * L::kCols);
}

TEST(RowMajorSwizzled, TilesAreBijective) {
  expectBijectiveTile<RowMajorSwizzled<B16, 128, 64, Swizzle::B128>>();
  expectBijectiveTile<RowMajorSwizzled<B16, 64, 256, Swizzle::B128>>();
  expectBijectiveTile<RowMajorSwizzled<B16, 64, 32, Swizzle::B64>>();
  expectBijectiveTile<RowMajorSwizzled<B16, 16, 16, Swizzle::B32>>();
  expectBijectiveTile<RowMajorSwizzled<B8, 64, 128, Swizzle::B128>>();
  expectBijectiveTile<RowMajorSwizzled<B32, 32, 64, Swizzle::B128>>();
}

TEST(RowMajorPadded, TilesAreBijective) {
  expectBijectiveTile<RowMajorPadded<B16, 128, 32, 8>>();
  expectBijectiveTile<RowMajorPadded<B32, 32, 128, 4>>();
  expectBijectiveTile<RowMajorPadded<B8, 64, 64, 0>>();
}

TEST(RowMajorSwizzled, ColumnBlocksAreTmaBoxes) {
  // (64, 256) bf16 with 128B swizzle: four boxes of {64 cols, 64 rows},
  // 8 KiB each, one after the other; inside a box TMA's swizzle.
  using L = RowMajorSwizzled<B16, 64, 256, Swizzle::B128>;
  static_assert(L::kBlockCols == 64 && L::kBlocks == 4);
  static_assert(L::kBlockBytes == 8192 && L::kBytes == 32768);
  static_assert(L::kAtomBytes == 1024 && L::kAlignBytes == 1024);
  for (int b = 0; b < 4; ++b)
    for (int r = 0; r < 64; ++r)
      for (int c = 0; c < 64; ++c)
        EXPECT_EQ(L::byte_offset(r, b * 64 + c),
                  int(b * 8192 + r * 128 +
                      (((c * 2 / 16) ^ (r % 8)) * 16) + (c * 2) % 16));
  // constexpr: usable in static_asserts by emitted code.
  static_assert(L::byte_offset(1, 0) == 128 + 16);
  static_assert(L::byte_offset(7, 8) == 7 * 128 + (1 ^ 7) * 16);
}

/// Byte offsets a warp touches with 16-byte accesses: lane i takes chunk i
/// along a row (4 rows of 8 chunks for 128-byte rows), or row i down a column.
template <class L> std::vector<int> alongRow(int row0) {
  constexpr int vec = 16 / L::kElemBytes;
  constexpr int chunksPerRow = L::kCols / vec;
  std::vector<int> out;
  for (int lane = 0; lane < 32; ++lane) {
    const int chunk = lane % chunksPerRow;
    const int row = row0 + lane / chunksPerRow;
    out.push_back(L::byte_offset(row, chunk * vec));
  }
  return out;
}
template <class L> std::vector<int> downColumn(int col) {
  std::vector<int> out;
  for (int lane = 0; lane < 32; ++lane)
    out.push_back(L::byte_offset(lane % L::kRows, col));
  return out;
}

template <class L> void expectConflictFree() {
  constexpr int vec = 16 / L::kElemBytes;
  for (int row0 = 0; row0 + 32 * vec / L::kCols <= L::kRows; row0 += 8)
    EXPECT_TRUE(conflictFree16(alongRow<L>(row0))) << "row " << row0;
  for (int col = 0; col < L::kCols; col += vec)
    EXPECT_TRUE(conflictFree16(downColumn<L>(col))) << "col " << col;
}

TEST(BankConflicts, SwizzledTilesAreConflictFreeAlongRowsAndColumns) {
  expectConflictFree<RowMajorSwizzled<B16, 64, 64, Swizzle::B128>>();
  expectConflictFree<RowMajorSwizzled<B16, 64, 128, Swizzle::B128>>();
  expectConflictFree<RowMajorSwizzled<B16, 64, 32, Swizzle::B64>>();
  expectConflictFree<RowMajorSwizzled<B16, 64, 16, Swizzle::B32>>();
  expectConflictFree<RowMajorSwizzled<B8, 64, 128, Swizzle::B128>>();
  expectConflictFree<RowMajorSwizzled<B32, 64, 32, Swizzle::B128>>();
}

TEST(BankConflicts, PaddingBy16BytesFreesColumnsAndWideRows) {
  // Rows of >= 128 bytes plus 16 bytes of padding: conflict-free both ways.
  expectConflictFree<RowMajorPadded<B16, 32, 128, 8>>();
  expectConflictFree<RowMajorPadded<B16, 64, 64, 8>>();
  expectConflictFree<RowMajorPadded<B32, 64, 32, 4>>();
  // Narrower rows: columns (ldmatrix) stay conflict-free, but 8 lanes of a
  // row-major copy span two padded rows and two of them share a bank group
  // (64-byte rows + 16: groups 0 1 2 3 5 6 7 0). Swizzled tiles avoid it.
  using Narrow = RowMajorPadded<B16, 128, 32, 8>;
  for (int col = 0; col < 32; col += 8)
    EXPECT_TRUE(conflictFree16(downColumn<Narrow>(col)));
  EXPECT_FALSE(conflictFree16(alongRow<Narrow>(0)));
  expectConflictFree<RowMajorSwizzled<B16, 128, 32, Swizzle::B64>>();
  // Without padding a column of 128-byte rows hits one bank group.
  using Unpadded = RowMajorPadded<B16, 64, 64, 0>;
  EXPECT_FALSE(conflictFree16(downColumn<Unpadded>(0)));
  // ... and so does an unswizzled 128-byte-row TMA tile.
  std::vector<int> plain;
  for (int lane = 0; lane < 32; ++lane)
    plain.push_back(lane * 128);
  EXPECT_FALSE(conflictFree16(plain));
}

TEST(RowMajorXor, TilesAreBijectiveAndPacked) {
  expectBijectiveTile<RowMajorXor<B16, 64, 64>>();
  expectBijectiveTile<RowMajorXor<B16, 32, 48>>();
  expectBijectiveTile<RowMajorXor<B16, 16, 96>>();
  expectBijectiveTile<RowMajorXor<B8, 64, 64>>();
  expectBijectiveTile<RowMajorXor<B32, 32, 36>>();
  static_assert(RowMajorXor<B16, 64, 96>::kBytes ==
                    RowMajorPadded<B16, 64, 96>::kBytes,
                "no padding: the same bytes as the packed tile");
}

/// The stage tiles kgen's sm_80 kernels read with ldmatrix: every row width
/// from 1 to 32 chunks (16 to 512 bytes), packed (Pad 0) before, XOR-permuted
/// now. Rows of an even number of chunks were conflicted down a column
/// (128-byte rows: 8-way, every row on one bank group); none is now.
template <int Cols> void expectXorConflictFree() {
  expectConflictFree<RowMajorXor<B16, 64, Cols>>();
  constexpr int chunks = Cols * 2 / 16;
  if constexpr (chunks % 2 == 0) {
    EXPECT_FALSE(conflictFree16(downColumn<RowMajorPadded<B16, 64, Cols>>(0)))
        << chunks << " chunks a row";
  }
}

TEST(BankConflicts, XorTilesAreConflictFreeForEveryRowWidth) {
  expectXorConflictFree<8>();
  expectXorConflictFree<16>();
  expectXorConflictFree<24>();
  expectXorConflictFree<32>();
  expectXorConflictFree<40>();
  expectXorConflictFree<48>();
  expectXorConflictFree<64>();
  expectXorConflictFree<80>();
  expectXorConflictFree<96>();
  expectXorConflictFree<112>();
  expectXorConflictFree<128>();
  expectXorConflictFree<160>();
  expectXorConflictFree<192>();
  expectXorConflictFree<256>();
  expectConflictFree<RowMajorXor<B8, 64, 64>>();  // e4m3 K-major
  expectConflictFree<RowMajorXor<B8, 64, 128>>();
}

} // namespace
