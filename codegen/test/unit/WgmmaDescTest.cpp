//===- WgmmaDescTest.cpp - wgmma matrix descriptors on the CPU ------------===//
//
// The bit layout against the PTX ISA's "Matrix Descriptor Format" table:
//   bits  0-13  start address        matrix-descriptor-encode(x) =
//   bits 16-29  leading byte offset    (x & 0x3FFFF) >> 4
//   bits 32-45  stride byte offset
//   bits 49-51  matrix base offset
//   bits 62-63  swizzle mode: 0 none, 1 128B, 2 64B, 3 32B
// and the operand descriptors against the canonical layouts (CUTLASS's
// make_gmma_desc documents them in units of 16 bytes, T elements per 16 B):
//   K-major,  swizzle S: ((8, m), (T, 2)) : ((S/16, SBO), (1, T))
//   MN-major, swizzle S: ((T, S/16, m), (8, k)) : ((1, T, LBO), (S/16, SBO))
// then swizzled by address bits [4, 7+b) as TMA wrote them.
//
//===----------------------------------------------------------------------===//

#include "kgen/cuda/Wgmma.cuh"

#include <gtest/gtest.h>

#include <cstdint>

using namespace kgen::cuda;

namespace {

using u64 = unsigned long long;

u64 bits(u64 d, int lo, int hi) { // inclusive
  return (d >> lo) & ((1ull << (hi - lo + 1)) - 1);
}

TEST(WgmmaDescriptor, FieldsSitWhereThePtxTableSays) {
  const u64 d = make_wgmma_desc(0x12340, 0x100, 0x400, Swizzle::B128);
  EXPECT_EQ(bits(d, 0, 13), 0x1234u);
  EXPECT_EQ(bits(d, 16, 29), 0x10u);
  EXPECT_EQ(bits(d, 32, 45), 0x40u);
  EXPECT_EQ(bits(d, 49, 51), 0u);
  EXPECT_EQ(bits(d, 62, 63), 1u);
  // Reserved bits stay zero.
  EXPECT_EQ(bits(d, 14, 15), 0u);
  EXPECT_EQ(bits(d, 30, 31), 0u);
  EXPECT_EQ(bits(d, 46, 48), 0u);
  EXPECT_EQ(bits(d, 52, 61), 0u);
  EXPECT_EQ(d, 0x4000004000101234ull);
}

TEST(WgmmaDescriptor, EncodeKeeps18AddressBitsDropsTheLow4) {
  static_assert(wgmma_desc_encode(0x3FFF0) == 0x3FFF);
  static_assert(wgmma_desc_encode(0x40010) == 0x1); // bit 18 is dropped
  static_assert(wgmma_desc_encode(0x1F) == 0x1);    // the low 4 bits too
  // Each field saturated alone touches only its own bits.
  EXPECT_EQ(make_wgmma_desc(0x3FFFF, 0, 0, Swizzle::None), 0x3FFFull);
  EXPECT_EQ(make_wgmma_desc(0, 0x3FFFF, 0, Swizzle::None), 0x3FFFull << 16);
  EXPECT_EQ(make_wgmma_desc(0, 0, 0x3FFFF, Swizzle::None), 0x3FFFull << 32);
  EXPECT_EQ(make_wgmma_desc(0, 0, 0, Swizzle::None, 7), 7ull << 49);
}

TEST(WgmmaDescriptor, SwizzleModeCodes) {
  EXPECT_EQ(make_wgmma_desc(0, 0, 0, Swizzle::None) >> 62, 0u);
  EXPECT_EQ(make_wgmma_desc(0, 0, 0, Swizzle::B128) >> 62, 1u);
  EXPECT_EQ(make_wgmma_desc(0, 0, 0, Swizzle::B64) >> 62, 2u);
  EXPECT_EQ(make_wgmma_desc(0, 0, 0, Swizzle::B32) >> 62, 3u);
}

TEST(WgmmaDescriptor, DecodeRoundTrips) {
  for (unsigned addr : {0u, 0x400u, 0x12340u, 0x3FFF0u})
    for (unsigned lbo : {16u, 1024u, 8192u})
      for (unsigned sbo : {256u, 512u, 1024u})
        for (Swizzle s :
             {Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128}) {
          const WgmmaDescFields f =
              decode_wgmma_desc(make_wgmma_desc(addr, lbo, sbo, s, 3));
          EXPECT_EQ(f.start_addr, addr);
          EXPECT_EQ(f.lbo, lbo);
          EXPECT_EQ(f.sbo, sbo);
          EXPECT_EQ(f.base_offset, 3u);
          EXPECT_EQ(f.swizzle_mode, wgmma_swizzle_mode(s));
        }
}

using B16 = std::uint16_t;
using B8 = std::uint8_t;

TEST(WgmmaOperand, KMajorOffsets) {
  // B (256, 64) bf16, 128B swizzle: one 128-byte column block.
  using L = RowMajorSwizzled<B16, 256, 64, Swizzle::B128>;
  using Op = WgmmaOperand<L, Major::K, 16>;
  static_assert(Op::kSlices == 4 && Op::kSbo == 1024 && Op::kLbo == 16);
  static_assert(Op::slice_offset(3) == 96);  // 3 x 16 bf16 along the row
  static_assert(Op::mn_offset(64) == 8192);  // second m64 of a 128-row tile
  const WgmmaDescFields f = decode_wgmma_desc(Op::desc(0x8000, 2, 64));
  EXPECT_EQ(f.start_addr, 0x8000u + 8192 + 64);
  EXPECT_EQ(f.sbo, 1024u);
  EXPECT_EQ(f.lbo, 16u);
  EXPECT_EQ(f.swizzle_mode, 1u);
  // Narrower swizzles: the 8-row atom is 8 x S bytes.
  static_assert(WgmmaOperand<RowMajorSwizzled<B16, 64, 32, Swizzle::B64>,
                             Major::K, 16>::kSbo == 512);
  static_assert(WgmmaOperand<RowMajorSwizzled<B16, 64, 16, Swizzle::B32>,
                             Major::K, 16>::kSbo == 256);
  // e4m3: k32 slices are 32 bytes too.
  using E = WgmmaOperand<RowMajorSwizzled<B8, 128, 128, Swizzle::B128>,
                         Major::K, 32>;
  static_assert(E::kSlices == 4 && E::slice_offset(1) == 32);
}

TEST(WgmmaOperand, MnMajorOffsets) {
  // B (64 k, 256 n) bf16, 128B swizzle: four 64-column blocks of 8 KiB.
  using L = RowMajorSwizzled<B16, 64, 256, Swizzle::B128>;
  using Op = WgmmaOperand<L, Major::MN, 16>;
  static_assert(Op::kSlices == 4);
  static_assert(Op::kLbo == 8192); // next 64 n: next column block
  static_assert(Op::kSbo == 1024); // next 8 k: next 8-row atom
  static_assert(Op::slice_offset(1) == 16 * 128);
  static_assert(Op::mn_offset(64) == 8192);
}

/// Address of operand element (mn, k) of K slice `slice` as the hardware
/// derives it from the descriptor under the canonical layout, relative to
/// an atom-aligned tile base; must equal the layout's offset for it.
template <class L, Major M, int KE> void expectDescriptorMatchesLayout(int mnExtent) {
  using Op = WgmmaOperand<L, M, KE>;
  constexpr int EB = L::kElemBytes;
  constexpr int S = int(L::kSwizzle);
  constexpr int W = S / EB; // elements per swizzle row
  for (int slice = 0; slice < Op::kSlices; ++slice) {
    const WgmmaDescFields f = decode_wgmma_desc(Op::desc(0, slice));
    for (int mn = 0; mn < mnExtent; ++mn)
      for (int k = 0; k < KE; ++k) {
        int lin;
        if (M == Major::K)
          lin = int(f.start_addr) + (mn / 8) * int(f.sbo) + (mn % 8) * S +
                k * EB;
        else
          lin = int(f.start_addr) + (mn / W) * int(f.lbo) +
                (k / 8) * int(f.sbo) + (k % 8) * S + (mn % W) * EB;
        const int hw = int(swizzle_offset(L::kSwizzle, unsigned(lin)));
        const int want = M == Major::K
                             ? L::byte_offset(mn, slice * KE + k)
                             : L::byte_offset(slice * KE + k, mn);
        ASSERT_EQ(hw, want) << "slice " << slice << " mn " << mn << " k " << k;
      }
  }
}

TEST(WgmmaOperand, DescriptorsAddressTheTmaLayout) {
  // K-major A (64, 64) and B (256, 64), bf16, each swizzle width.
  expectDescriptorMatchesLayout<RowMajorSwizzled<B16, 64, 64, Swizzle::B128>,
                                Major::K, 16>(64);
  expectDescriptorMatchesLayout<RowMajorSwizzled<B16, 256, 64, Swizzle::B128>,
                                Major::K, 16>(256);
  // K wider than one swizzle row: slices 4..7 live in the second block.
  expectDescriptorMatchesLayout<RowMajorSwizzled<B16, 64, 128, Swizzle::B128>,
                                Major::K, 16>(64);
  expectDescriptorMatchesLayout<RowMajorSwizzled<B16, 64, 32, Swizzle::B64>,
                                Major::K, 16>(64);
  expectDescriptorMatchesLayout<RowMajorSwizzled<B16, 64, 16, Swizzle::B32>,
                                Major::K, 16>(64);
  // MN-major (64 k rows, N cols): B spans several column blocks (LBO).
  expectDescriptorMatchesLayout<RowMajorSwizzled<B16, 64, 256, Swizzle::B128>,
                                Major::MN, 16>(256);
  expectDescriptorMatchesLayout<RowMajorSwizzled<B16, 64, 64, Swizzle::B64>,
                                Major::MN, 16>(64);
  expectDescriptorMatchesLayout<RowMajorSwizzled<B16, 32, 64, Swizzle::B32>,
                                Major::MN, 16>(64);
  // e4m3 K-major, k32 slices.
  expectDescriptorMatchesLayout<RowMajorSwizzled<B8, 128, 128, Swizzle::B128>,
                                Major::K, 32>(128);
}

} // namespace
