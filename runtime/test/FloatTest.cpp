//===- FloatTest.cpp - Tests of the narrow float conversions --------------===//

#include "kgen/runtime/Float.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace kgen::rt;

namespace {

float fromBits(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

/// 2^e as a float.
float pow2(int e) { return std::ldexp(1.0f, e); }

//===----------------------------------------------------------------------===//
// Known bit patterns
//===----------------------------------------------------------------------===//

TEST(Bf16, KnownValues) {
  EXPECT_EQ(f32ToBf16(1.0f), 0x3F80);
  EXPECT_EQ(f32ToBf16(-2.0f), 0xC000);
  EXPECT_EQ(f32ToBf16(0.0f), 0x0000);
  EXPECT_EQ(f32ToBf16(-0.0f), 0x8000);
  EXPECT_EQ(f32ToBf16(pow2(-126)), 0x0080); // smallest normal
  EXPECT_EQ(f32ToBf16(pow2(-133)), 0x0001); // smallest subnormal
  EXPECT_EQ(f32ToBf16(std::ldexp(255.0f, 120)), 0x7F7F); // largest finite
}

TEST(Bf16, RoundsToNearestEven) {
  // Ties between 1 (even) and 1 + 2^-7 (odd) go down ...
  EXPECT_EQ(f32ToBf16(1 + pow2(-8)), 0x3F80);
  EXPECT_EQ(f32ToBf16(1 + pow2(-8) + pow2(-23)), 0x3F81);
  // ... ties between 1 + 2^-7 (odd) and 1 + 2^-6 (even) go up.
  EXPECT_EQ(f32ToBf16(1 + 3 * pow2(-8)), 0x3F82);
  EXPECT_EQ(f32ToBf16(1 + 3 * pow2(-8) - pow2(-23)), 0x3F81);
  EXPECT_EQ(f32ToBf16(pow2(-134)), 0x0000);     // half the smallest subnormal
  EXPECT_EQ(f32ToBf16(3 * pow2(-134)), 0x0002); // 1.5 subnormal steps
  EXPECT_EQ(f32ToBf16(pow2(-149)), 0x0000);     // f32 smallest subnormal
  EXPECT_EQ(f32ToBf16(-pow2(-149)), 0x8000);
}

TEST(Bf16, OverflowInfinityAndNaN) {
  const float tie = std::ldexp(511.0f, 119); // between 0x7F7F and infinity
  EXPECT_EQ(f32ToBf16(tie), 0x7F80);
  EXPECT_EQ(f32ToBf16(std::nextafter(tie, 0.0f)), 0x7F7F);
  EXPECT_EQ(f32ToBf16(FLT_MAX), 0x7F80);
  EXPECT_EQ(f32ToBf16(-FLT_MAX), 0xFF80);
  EXPECT_EQ(f32ToBf16(kInf), 0x7F80);
  EXPECT_EQ(f32ToBf16(-kInf), 0xFF80);
  EXPECT_EQ(f32ToBf16(kNaN), 0x7FC0);
  EXPECT_EQ(f32ToBf16(-kNaN), 0xFFC0);
  // A signalling NaN whose payload is all in the dropped bits stays a NaN.
  EXPECT_EQ(f32ToBf16(fromBits(0x7F800001)), 0x7FC0);
  EXPECT_EQ(f64ToBf16(1e300), 0x7F80);
}

TEST(Bf16, Decode) {
  EXPECT_EQ(bf16ToF32(0x3F80), 1.0f);
  EXPECT_EQ(bf16ToF32(0xC000), -2.0f);
  EXPECT_EQ(bf16ToF32(0x0001), pow2(-133));
  EXPECT_EQ(bf16ToF32(0x7F80), kInf);
  EXPECT_TRUE(std::isnan(bf16ToF32(0x7FC0)));
}

TEST(F16, KnownValues) {
  EXPECT_EQ(f32ToF16(1.0f), 0x3C00);
  EXPECT_EQ(f32ToF16(-2.0f), 0xC000);
  EXPECT_EQ(f32ToF16(-0.0f), 0x8000);
  EXPECT_EQ(f32ToF16(65504.0f), 0x7BFF); // largest finite
  EXPECT_EQ(f32ToF16(pow2(-14)), 0x0400); // smallest normal
  EXPECT_EQ(f32ToF16(pow2(-24)), 0x0001); // smallest subnormal
  EXPECT_EQ(f32ToF16(1023 * pow2(-24)), 0x03FF); // largest subnormal
}

TEST(F16, RoundsToNearestEven) {
  EXPECT_EQ(f32ToF16(1 + pow2(-11)), 0x3C00);
  EXPECT_EQ(f32ToF16(1 + pow2(-11) + pow2(-23)), 0x3C01);
  EXPECT_EQ(f32ToF16(1 + 3 * pow2(-11)), 0x3C02);
  EXPECT_EQ(f32ToF16(1 + 3 * pow2(-11) - pow2(-23)), 0x3C01);
  EXPECT_EQ(f32ToF16(pow2(-25)), 0x0000);
  EXPECT_EQ(f32ToF16(std::nextafter(pow2(-25), 1.0f)), 0x0001);
  EXPECT_EQ(f32ToF16(3 * pow2(-25)), 0x0002);
  EXPECT_EQ(f32ToF16(-pow2(-26)), 0x8000);
  // Halfway between the largest subnormal (odd) and the smallest normal.
  EXPECT_EQ(f32ToF16(2047 * pow2(-25)), 0x0400);
  EXPECT_EQ(f32ToF16(std::nextafter(2047 * pow2(-25), 0.0f)), 0x03FF);
}

TEST(F16, OverflowInfinityAndNaN) {
  EXPECT_EQ(f32ToF16(65519.0f), 0x7BFF);
  EXPECT_EQ(f32ToF16(std::nextafter(65520.0f, 0.0f)), 0x7BFF);
  EXPECT_EQ(f32ToF16(65520.0f), 0x7C00); // tie with infinity, which is even
  EXPECT_EQ(f32ToF16(1e6f), 0x7C00);
  EXPECT_EQ(f32ToF16(-FLT_MAX), 0xFC00);
  EXPECT_EQ(f32ToF16(kInf), 0x7C00);
  EXPECT_EQ(f32ToF16(-kInf), 0xFC00);
  EXPECT_EQ(f32ToF16(kNaN), 0x7E00);
  EXPECT_EQ(f32ToF16(-kNaN), 0xFE00);
  EXPECT_EQ(f32ToF16(fromBits(0x7F800001)), 0x7E00);
  EXPECT_EQ(f64ToF16(1e300), 0x7C00);
  EXPECT_EQ(f64ToF16(4.9e-324), 0x0000);
}

TEST(F16, Decode) {
  EXPECT_EQ(f16ToF32(0x3C00), 1.0f);
  EXPECT_EQ(f16ToF32(0x7BFF), 65504.0f);
  EXPECT_EQ(f16ToF32(0x0001), pow2(-24));
  EXPECT_EQ(f16ToF32(0x0400), pow2(-14));
  EXPECT_EQ(f16ToF32(0x7C00), kInf);
  EXPECT_EQ(f16ToF32(0xFC00), -kInf);
  EXPECT_TRUE(std::signbit(f16ToF32(0x8000)));
  EXPECT_TRUE(std::isnan(f16ToF32(0x7E00)));
  // NaNs decode quiet, payload kept: a signalling NaN too.
  uint32_t bits;
  const float quiet = f16ToF32(0xFE00);
  std::memcpy(&bits, &quiet, sizeof bits);
  EXPECT_EQ(bits, 0xFFC00000u);
  const float signalling = f16ToF32(0x7C01);
  std::memcpy(&bits, &signalling, sizeof bits);
  EXPECT_EQ(bits, 0x7FC02000u);
}

TEST(F8E4M3FN, KnownValues) {
  EXPECT_EQ(f32ToF8E4M3FN(1.0f), 0x38);
  EXPECT_EQ(f32ToF8E4M3FN(-2.0f), 0xC0);
  EXPECT_EQ(f32ToF8E4M3FN(-0.0f), 0x80);
  EXPECT_EQ(f32ToF8E4M3FN(448.0f), 0x7E); // largest finite
  EXPECT_EQ(f32ToF8E4M3FN(-448.0f), 0xFE);
  EXPECT_EQ(f32ToF8E4M3FN(416.0f), 0x7D);
  EXPECT_EQ(f32ToF8E4M3FN(pow2(-6)), 0x08); // smallest normal
  EXPECT_EQ(f32ToF8E4M3FN(pow2(-9)), 0x01); // smallest subnormal
  EXPECT_EQ(f32ToF8E4M3FN(7 * pow2(-9)), 0x07); // largest subnormal
}

TEST(F8E4M3FN, RoundsToNearestEven) {
  EXPECT_EQ(f32ToF8E4M3FN(1 + pow2(-4)), 0x38);
  EXPECT_EQ(f32ToF8E4M3FN(1 + pow2(-4) + pow2(-23)), 0x39);
  EXPECT_EQ(f32ToF8E4M3FN(1 + 3 * pow2(-4)), 0x3A);
  EXPECT_EQ(f32ToF8E4M3FN(1 + 3 * pow2(-4) - pow2(-23)), 0x39);
  EXPECT_EQ(f32ToF8E4M3FN(pow2(-10)), 0x00);
  EXPECT_EQ(f32ToF8E4M3FN(std::nextafter(pow2(-10), 1.0f)), 0x01);
  EXPECT_EQ(f32ToF8E4M3FN(3 * pow2(-10)), 0x02);
  EXPECT_EQ(f32ToF8E4M3FN(15 * pow2(-10)), 0x08); // subnormal tie to normal
  EXPECT_EQ(f32ToF8E4M3FN(432.0f), 0x7E); // tie between 416 (odd) and 448
  EXPECT_EQ(f32ToF8E4M3FN(424.0f), 0x7D);
}

TEST(F8E4M3FN, SaturatesAndNaN) {
  EXPECT_EQ(f32ToF8E4M3FN(464.0f), 0x7E);
  EXPECT_EQ(f32ToF8E4M3FN(480.0f), 0x7E);
  EXPECT_EQ(f32ToF8E4M3FN(1e9f), 0x7E);
  EXPECT_EQ(f32ToF8E4M3FN(-1e9f), 0xFE);
  EXPECT_EQ(f32ToF8E4M3FN(FLT_MAX), 0x7E);
  EXPECT_EQ(f32ToF8E4M3FN(kInf), 0x7E);
  EXPECT_EQ(f32ToF8E4M3FN(-kInf), 0xFE);
  EXPECT_EQ(f32ToF8E4M3FN(kNaN), 0x7F);
  EXPECT_EQ(f32ToF8E4M3FN(-kNaN), 0xFF);
  EXPECT_EQ(f64ToF8E4M3FN(1e300), 0x7E);
}

TEST(F8E4M3FN, Decode) {
  EXPECT_EQ(f8E4M3FNToF32(0x38), 1.0f);
  EXPECT_EQ(f8E4M3FNToF32(0x7E), 448.0f);
  EXPECT_EQ(f8E4M3FNToF32(0xFE), -448.0f);
  EXPECT_EQ(f8E4M3FNToF32(0x01), pow2(-9));
  EXPECT_EQ(f8E4M3FNToF32(0x08), pow2(-6));
  EXPECT_TRUE(std::signbit(f8E4M3FNToF32(0x80)));
  EXPECT_TRUE(std::isnan(f8E4M3FNToF32(0x7F)));
  EXPECT_TRUE(std::isnan(f8E4M3FNToF32(0xFF)));
  EXPECT_TRUE(std::signbit(f8E4M3FNToF32(0xFF)));
}

// A double just above a tie rounds up; through float it would first land on
// the tie and then round to even.
TEST(F64, RoundsOnceFromDouble) {
  const double aboveTie16 = 1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(f64ToF16(aboveTie16), 0x3C01);
  EXPECT_EQ(f32ToF16(static_cast<float>(aboveTie16)), 0x3C00);
  EXPECT_EQ(f64ToBf16(1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40)), 0x3F81);
  EXPECT_EQ(f64ToF8E4M3FN(1 + std::ldexp(1.0, -4) + std::ldexp(1.0, -40)),
            0x39);
}

//===----------------------------------------------------------------------===//
// Exhaustive and randomized properties
//===----------------------------------------------------------------------===//

/// A narrow format seen through the functions under test.
struct FormatUnderTest {
  const char *name;
  uint32_t (*encode)(float);
  float (*decode)(uint32_t);
  uint32_t codes;     // number of bit patterns
  uint32_t signBit;
  uint32_t maxFinite; // largest finite magnitude code
  bool saturating;    // overflow gives maxFinite rather than infinity
  int minExponent;    // exponent of the smallest subnormal
  int maxExponent;    // exponent of the largest binade
};

const FormatUnderTest kFormats[] = {
    {"bf16", [](float x) -> uint32_t { return f32ToBf16(x); },
     [](uint32_t c) { return bf16ToF32(static_cast<uint16_t>(c)); }, 1u << 16,
     0x8000, 0x7F7F, false, -133, 127},
    {"f16", [](float x) -> uint32_t { return f32ToF16(x); },
     [](uint32_t c) { return f16ToF32(static_cast<uint16_t>(c)); }, 1u << 16,
     0x8000, 0x7BFF, false, -24, 15},
    {"f8E4M3FN", [](float x) -> uint32_t { return f32ToF8E4M3FN(x); },
     [](uint32_t c) { return f8E4M3FNToF32(static_cast<uint8_t>(c)); },
     1u << 8, 0x80, 0x7E, true, -9, 8},
};

/// Names the format in test output instead of dumping its bytes.
void PrintTo(const FormatUnderTest &f, std::ostream *os) { *os << f.name; }

class FormatTest : public testing::TestWithParam<FormatUnderTest> {};

TEST_P(FormatTest, EveryPatternRoundTrips) {
  const FormatUnderTest &f = GetParam();
  for (uint32_t code = 0; code < f.codes; ++code) {
    const float value = f.decode(code);
    const uint32_t again = f.encode(value);
    if (std::isnan(value)) {
      EXPECT_TRUE(std::isnan(f.decode(again))) << std::hex << code;
      EXPECT_EQ(again & f.signBit, code & f.signBit) << std::hex << code;
    } else {
      EXPECT_EQ(again, code) << std::hex << code;
    }
  }
}

TEST_P(FormatTest, FiniteValuesIncreaseWithCode) {
  const FormatUnderTest &f = GetParam();
  for (uint32_t code = 1; code <= f.maxFinite; ++code)
    EXPECT_LT(f.decode(code - 1), f.decode(code)) << std::hex << code;
}

/// Checks that encode(x) is the value nearest to x among the finite codes
/// of x's sign, ties to the even code, or overflows as the format does.
void expectNearest(const FormatUnderTest &f, float x) {
  const uint32_t code = f.encode(x);
  if (std::isnan(x)) {
    ASSERT_TRUE(std::isnan(f.decode(code))) << x;
    return;
  }
  const uint32_t sign = std::signbit(x) ? f.signBit : 0;
  ASSERT_EQ(code & f.signBit, sign) << x;
  const uint32_t magnitude = code & ~f.signBit;
  const double maxValue = f.decode(f.maxFinite);
  const double overflowTie =
      maxValue + (maxValue - f.decode(f.maxFinite - 1)) / 2;
  if (!f.saturating && std::fabs(x) >= overflowTie) {
    ASSERT_TRUE(std::isinf(f.decode(code))) << x;
    return;
  }
  ASSERT_LE(magnitude, f.maxFinite) << x;
  const double distance = std::fabs(x - static_cast<double>(f.decode(code)));
  for (uint32_t neighbour : {magnitude - 1, magnitude + 1}) {
    if (neighbour > f.maxFinite) // also catches 0 - 1
      continue;
    const double other =
        std::fabs(x - static_cast<double>(f.decode(neighbour | sign)));
    ASSERT_LE(distance, other) << x << " -> " << std::hex << code;
    if (distance == other) {
      ASSERT_EQ(magnitude & 1, 0u) << x << " tie -> " << std::hex << code;
    }
  }
}

TEST_P(FormatTest, RandomFloatsRoundToNearest) {
  const FormatUnderTest &f = GetParam();
  std::mt19937_64 rng(20240601); // its output sequence is fixed by the standard
  for (int i = 0; i < 3'000'000; ++i) {
    const uint64_t r = rng();
    const uint32_t signBits = (r >> 63) ? 0x80000000u : 0u;
    float x;
    switch (i % 4) {
    case 0: // any pattern: NaNs, infinities, f32 subnormals
      x = fromBits(static_cast<uint32_t>(r));
      break;
    case 1: { // exponents from below the format's range to above it
      const int span = f.maxExponent - f.minExponent + 5;
      const int e = f.minExponent - 3 + static_cast<int>((r >> 32) % span);
      const uint32_t field = static_cast<uint32_t>(std::clamp(e + 127, 1, 254));
      x = fromBits(signBits | field << 23 | (static_cast<uint32_t>(r) & 0x7FFFFF));
      break;
    }
    default: { // at or next to the midpoint of two neighbouring codes
      const uint32_t low = static_cast<uint32_t>(r % f.maxFinite);
      const float mid = static_cast<float>(
          (static_cast<double>(f.decode(low)) + f.decode(low + 1)) / 2);
      const int step = static_cast<int>((r >> 32) % 3) - 1;
      x = step == 0 ? mid : std::nextafter(mid, step * kInf);
      x = signBits ? -x : x;
      break;
    }
    }
    expectNearest(f, x);
    if (testing::Test::HasFatalFailure())
      return;
  }
}

INSTANTIATE_TEST_SUITE_P(AllFormats, FormatTest, testing::ValuesIn(kFormats),
                         [](const testing::TestParamInfo<FormatUnderTest> &p) {
                           return std::string(p.param.name);
                         });

} // namespace
