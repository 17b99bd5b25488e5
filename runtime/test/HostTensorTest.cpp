//===- HostTensorTest.cpp - Tests of HostTensor ---------------------------===//

#include "kgen/runtime/HostTensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <set>

using namespace kgen::rt;

namespace {

const ElemType kAllTypes[] = {
    ElemType::F32, ElemType::F16, ElemType::BF16, ElemType::F8E4M3FN,
    ElemType::F64, ElemType::I64, ElemType::I32,  ElemType::I16,
    ElemType::I8,  ElemType::I1};

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

HostTensor fromValues(ElemType type, const std::vector<double> &values) {
  HostTensor t = makeZeros(type, {static_cast<int64_t>(values.size())});
  for (size_t i = 0; i < values.size(); ++i)
    t.setFromDouble(static_cast<int64_t>(i), values[i]);
  return t;
}

TEST(ElemType, NamesSizesAndKinds) {
  for (ElemType type : kAllTypes) {
    EXPECT_EQ(parseElemType(elemTypeName(type)), type) << elemTypeName(type);
  }
  EXPECT_STREQ(elemTypeName(ElemType::F8E4M3FN), "f8E4M3FN");
  EXPECT_STREQ(elemTypeName(ElemType::BF16), "bf16");
  EXPECT_EQ(parseElemType("f8e4m3fn"), std::nullopt);
  EXPECT_EQ(parseElemType(""), std::nullopt);
  EXPECT_EQ(parseElemType("f32 "), std::nullopt);
  EXPECT_EQ(elemTypeBytes(ElemType::F64), 8u);
  EXPECT_EQ(elemTypeBytes(ElemType::BF16), 2u);
  EXPECT_EQ(elemTypeBytes(ElemType::F8E4M3FN), 1u);
  EXPECT_EQ(elemTypeBytes(ElemType::I1), 1u);
  EXPECT_TRUE(isFloat(ElemType::F8E4M3FN));
  EXPECT_FALSE(isFloat(ElemType::I1));
}

TEST(CheckedNumElements, CountsAndLimits) {
  int64_t n = -1;
  std::string err;
  ASSERT_TRUE(checkedNumElements({2, 3, 4}, 1 << 28, n, err));
  EXPECT_EQ(n, 24);
  ASSERT_TRUE(checkedNumElements({}, 1 << 28, n, err));
  EXPECT_EQ(n, 1);
  ASSERT_TRUE(checkedNumElements({1 << 14, 1 << 14}, 1 << 28, n, err));
  EXPECT_EQ(n, 1 << 28); // exactly the limit
  EXPECT_FALSE(checkedNumElements({1 << 14, (1 << 14) + 1}, 1 << 28, n, err));
  // A zero dimension makes the product 0, whatever the other dimensions.
  ASSERT_TRUE(checkedNumElements({int64_t{1} << 62, 0, int64_t{1} << 62},
                                 1 << 28, n, err));
  EXPECT_EQ(n, 0);
  EXPECT_FALSE(checkedNumElements({}, 0, n, err));
}

TEST(CheckedNumElements, Messages) {
  int64_t n = 0;
  std::string err;
  EXPECT_FALSE(checkedNumElements({100000, 100000, 100000}, 1 << 28, n, err));
  EXPECT_EQ(err, "tensor of shape 100000x100000x100000 has more than the "
                 "limit of 268435456 elements");
  // The product overflows int64.
  EXPECT_FALSE(checkedNumElements({int64_t{1} << 40, int64_t{1} << 40},
                                  kInt64Max, n, err));
  EXPECT_NE(err.find("1099511627776x1099511627776"), std::string::npos) << err;
  EXPECT_FALSE(checkedNumElements({4, -1, 0}, kInt64Max, n, err));
  EXPECT_EQ(err, "tensor of shape 4x-1x0 has a negative dimension -1");
}

TEST(HostTensor, ShapesAndZeros) {
  HostTensor scalar = makeZeros(ElemType::F64, {});
  EXPECT_EQ(scalar.numElements(), 1);
  EXPECT_EQ(scalar.data.size(), 8u);
  HostTensor empty = makeZeros(ElemType::I32, {3, 0});
  EXPECT_EQ(empty.numElements(), 0);
  EXPECT_TRUE(empty.data.empty());
  EXPECT_EQ(formatShape({}), "scalar");
  EXPECT_EQ(formatShape({7}), "7");
}

TEST(HostTensor, IntegersRoundToNearestEvenAndSaturate) {
  HostTensor i8 = fromValues(ElemType::I8, {300, -300, 2.5, 3.5, -2.5, -0.4,
                                            kNaN, kInf, -kInf, 126.6});
  const std::vector<double> expected8 = {127, -128, 2, 4, -2, 0, 0, 127, -128,
                                         127};
  for (size_t i = 0; i < expected8.size(); ++i)
    EXPECT_EQ(i8.getAsDouble(i), expected8[i]) << i;

  HostTensor i64 = fromValues(ElemType::I64, {1e30, -1e30, 9.2e18, -4.5});
  int64_t raw[4];
  std::memcpy(raw, i64.data.data(), sizeof raw);
  EXPECT_EQ(raw[0], kInt64Max);
  EXPECT_EQ(raw[1], kInt64Min);
  EXPECT_EQ(raw[2], int64_t{9200000000000000000});
  EXPECT_EQ(raw[3], -4);

  HostTensor i32 = fromValues(ElemType::I32, {2147483647.6, -2147483649.0});
  EXPECT_EQ(i32.getAsDouble(0), 2147483647.0);
  EXPECT_EQ(i32.getAsDouble(1), -2147483648.0);
  HostTensor i16 = fromValues(ElemType::I16, {-32768.6, 1e9});
  EXPECT_EQ(i16.getAsDouble(0), -32768.0);
  EXPECT_EQ(i16.getAsDouble(1), 32767.0);

  HostTensor i1 = fromValues(ElemType::I1, {5, -3, 0.4, 0.6});
  EXPECT_EQ(i1.data, (std::vector<uint8_t>{1, 0, 0, 1}));
  i1.data[0] = 7; // any nonzero byte reads as true
  EXPECT_EQ(i1.getAsDouble(0), 1.0);
}

TEST(HostTensor, FloatsRoundOnce) {
  // Just above an f16 tie: rounding through float first would round down.
  const double x = 1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30);
  HostTensor f16 = fromValues(ElemType::F16, {x, 65520, -0.0});
  EXPECT_EQ(f16.getAsDouble(0), 1 + std::ldexp(1.0, -10));
  EXPECT_EQ(f16.getAsDouble(1), kInf);
  EXPECT_TRUE(std::signbit(f16.getAsDouble(2)));
  HostTensor f8 = fromValues(ElemType::F8E4M3FN, {1e9, -kInf, kNaN});
  EXPECT_EQ(f8.getAsDouble(0), 448.0);
  EXPECT_EQ(f8.getAsDouble(1), -448.0);
  EXPECT_TRUE(std::isnan(f8.getAsDouble(2)));
  HostTensor f32 = fromValues(ElemType::F32, {0.1});
  EXPECT_EQ(f32.getAsDouble(0), static_cast<double>(0.1f));
  HostTensor f64 = fromValues(ElemType::F64, {0.1});
  EXPECT_EQ(f64.getAsDouble(0), 0.1);
}

TEST(MakeRandom, IsDeterministic) {
  for (ElemType type : kAllTypes) {
    const HostTensor a = makeRandom(type, {7, 9}, 42);
    const HostTensor b = makeRandom(type, {7, 9}, 42);
    const HostTensor c = makeRandom(type, {7, 9}, 43);
    EXPECT_EQ(a.data, b.data) << elemTypeName(type);
    EXPECT_NE(a.data, c.data) << elemTypeName(type);
    EXPECT_EQ(a.shape, (std::vector<int64_t>{7, 9}));
  }
}

// Pins the generator to splitmix64's published output for seed 1234567
// (6457827717110365317, 3203168211198807973): over the full int64 range an
// element is the raw output minus 2^63.
TEST(MakeRandom, MatchesSplitMix64) {
  const HostTensor t =
      makeRandom(ElemType::I64, {2}, 1234567, kInt64Min, kInt64Max);
  int64_t raw[2];
  std::memcpy(raw, t.data.data(), sizeof raw);
  EXPECT_EQ(static_cast<uint64_t>(raw[0]) ^ (uint64_t{1} << 63),
            6457827717110365317ull);
  EXPECT_EQ(static_cast<uint64_t>(raw[1]) ^ (uint64_t{1} << 63),
            3203168211198807973ull);
}

// Large tensors are filled in parallel chunks, each starting the stream at
// its first element: the bytes must be those of one sequential stream.
TEST(MakeRandom, ParallelChunksAreOneStream) {
  constexpr int64_t kElements = (int64_t{3} << 20) + 12345; // several chunks
  const HostTensor t = makeRandom(ElemType::F32, {kElements}, 99);
  uint64_t state = 99;
  auto next = [&] {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  for (int64_t i = 0; i < kElements; ++i) {
    const float expected =
        static_cast<float>(static_cast<double>(next() >> 11) * 0x1.0p-52 - 1.0);
    float got;
    std::memcpy(&got, t.data.data() + 4 * i, sizeof got);
    ASSERT_EQ(got, expected) << "element " << i;
  }
}

TEST(MakeRandom, FloatsAreInRangeAndNeverAllZero) {
  for (ElemType type : {ElemType::F32, ElemType::F16, ElemType::BF16,
                        ElemType::F8E4M3FN, ElemType::F64}) {
    const HostTensor t = makeRandom(type, {1000}, 7);
    double sum = 0, sumAbs = 0;
    for (int64_t i = 0; i < t.numElements(); ++i) {
      const double v = t.getAsDouble(i);
      ASSERT_GE(v, -1.0);
      ASSERT_LE(v, 1.0);
      sum += v;
      sumAbs += std::fabs(v);
    }
    EXPECT_LT(std::fabs(sum) / 1000, 0.1) << elemTypeName(type);
    EXPECT_GT(sumAbs / 1000, 0.4) << elemTypeName(type);
  }
  // One-element fp8 tensors round to zero for about one seed in 1000.
  for (uint64_t seed = 0; seed < 20000; ++seed)
    ASSERT_NE(makeRandom(ElemType::F8E4M3FN, {1}, seed).getAsDouble(0), 0.0)
        << seed;
}

TEST(MakeRandom, IntegersStayInRange) {
  const HostTensor i32 = makeRandom(ElemType::I32, {1000}, 1, -3, 5);
  std::set<double> seen;
  for (int64_t i = 0; i < i32.numElements(); ++i)
    seen.insert(i32.getAsDouble(i));
  EXPECT_EQ(seen, (std::set<double>{-3, -2, -1, 0, 1, 2, 3, 4}));

  const HostTensor defaults = makeRandom(ElemType::I16, {1000}, 2);
  for (int64_t i = 0; i < defaults.numElements(); ++i) {
    ASSERT_GE(defaults.getAsDouble(i), 0);
    ASSERT_LT(defaults.getAsDouble(i), 16);
  }

  // [lo, hi) is intersected with the type's range.
  const HostTensor i8 = makeRandom(ElemType::I8, {1000}, 3, -1000, 1000);
  const HostTensor i1 = makeRandom(ElemType::I1, {1000}, 4);
  std::set<double> seen8, seen1;
  for (int64_t i = 0; i < 1000; ++i) {
    seen8.insert(i8.getAsDouble(i));
    seen1.insert(i1.getAsDouble(i));
  }
  EXPECT_EQ(*seen8.begin(), -128);
  EXPECT_EQ(*seen8.rbegin(), 127);
  EXPECT_EQ(seen1, (std::set<double>{0, 1}));

  // An empty intersection fills with lo saturated to the type.
  const HostTensor above = makeRandom(ElemType::I8, {5}, 5, 200, 300);
  EXPECT_EQ(above.data, std::vector<uint8_t>(5, 127));
}

// Large comparisons run in parallel chunks; their sums must merge to the
// sequential answer, on the plain and the scaled (f64) paths, and count the
// NaNs of the result.
TEST(Compare, ChunkedSumsMerge) {
  constexpr int64_t kElements = (int64_t{5} << 20) + 7;
  for (ElemType type : {ElemType::F32, ElemType::F64}) {
    HostTensor ref = makeZeros(type, {kElements});
    HostTensor got = makeZeros(type, {kElements});
    // ref = 2 everywhere, got = 2 + 0.5 at every 4th element: ||diff|| =
    // 0.5 sqrt(n/4 rounded up), ||ref|| = 2 sqrt(n).
    int64_t off = 0;
    for (int64_t i = 0; i < kElements; ++i) {
      ref.setFromDouble(i, 2);
      got.setFromDouble(i, i % 4 == 0 ? 2.5 : 2);
      off += i % 4 == 0;
    }
    got.setFromDouble(kElements - 1, std::nan(""));
    ref.setFromDouble(kElements - 1, std::nan(""));
    CompareStats s;
    std::string err;
    ASSERT_TRUE(compare(got, ref, s, err)) << err;
    if ((kElements - 1) % 4 == 0)
      --off;
    const double expected =
        0.5 * std::sqrt(double(off)) / (2 * std::sqrt(double(kElements - 1)));
    EXPECT_NEAR(s.relFrobErr, expected, 1e-12 * expected) << elemTypeName(type);
    EXPECT_EQ(s.maxAbsErr, 0.5);
    EXPECT_EQ(s.gotNaNs, 1);
    EXPECT_EQ(s.nonFiniteMismatches, 0); // NaN against NaN agrees
    EXPECT_EQ(s.count, kElements);
  }
}

TEST(Compare, ExactAndApproximate) {
  CompareStats s;
  std::string err;
  const HostTensor ref = fromValues(ElemType::F32, {1, 2, 5});
  ASSERT_TRUE(compare(ref, ref, s, err));
  EXPECT_EQ(s.maxAbsErr, 0);
  EXPECT_EQ(s.relFrobErr, 0);
  EXPECT_EQ(s.count, 3);

  ASSERT_TRUE(compare(fromValues(ElemType::F32, {1, 2, 3}), ref, s, err));
  EXPECT_EQ(s.maxAbsErr, 2);
  EXPECT_DOUBLE_EQ(s.relFrobErr, 2 / std::sqrt(30.0));
  EXPECT_EQ(s.nonFiniteMismatches, 0);

  // Element types may differ: a bf16 result against an f32 reference.
  ASSERT_TRUE(compare(fromValues(ElemType::BF16, {1, 2, 5}), ref, s, err));
  EXPECT_EQ(s.relFrobErr, 0);
}

TEST(Compare, ZeroReferenceGivesAbsoluteNorm) {
  CompareStats s;
  std::string err;
  ASSERT_TRUE(compare(fromValues(ElemType::F64, {3, 4}),
                      fromValues(ElemType::F64, {0, 0}), s, err));
  EXPECT_EQ(s.relFrobErr, 5);
  EXPECT_EQ(s.maxAbsErr, 4);
}

TEST(Compare, NaNs) {
  CompareStats s;
  std::string err;
  ASSERT_TRUE(compare(fromValues(ElemType::F32, {1, kNaN, 3}),
                      fromValues(ElemType::F32, {1, 2, 3}), s, err));
  EXPECT_EQ(s.nonFiniteMismatches, 1);
  EXPECT_EQ(s.relFrobErr, kInf);
  EXPECT_EQ(s.maxAbsErr, 0);

  ASSERT_TRUE(compare(fromValues(ElemType::F32, {1, 2, 3}),
                      fromValues(ElemType::F32, {1, kNaN, 3}), s, err));
  EXPECT_EQ(s.nonFiniteMismatches, 1);
  EXPECT_EQ(s.relFrobErr, kInf);

  // NaN where the reference has NaN agrees.
  ASSERT_TRUE(compare(fromValues(ElemType::F32, {kNaN, 2}),
                      fromValues(ElemType::F32, {kNaN, 2}), s, err));
  EXPECT_EQ(s.nonFiniteMismatches, 0);
  EXPECT_EQ(s.relFrobErr, 0);
}

TEST(Compare, InfinitiesAndLargeValues) {
  CompareStats s;
  std::string err;
  ASSERT_TRUE(compare(fromValues(ElemType::F64, {kInf, 1}),
                      fromValues(ElemType::F64, {kInf, 1}), s, err));
  EXPECT_EQ(s.maxAbsErr, 0);
  EXPECT_EQ(s.relFrobErr, 0);
  EXPECT_EQ(s.nonFiniteMismatches, 0);
  // An infinity against a number, or against the other infinity, is a
  // mismatch, and it does not enter the norms of the finite elements.
  ASSERT_TRUE(compare(fromValues(ElemType::F64, {kInf, 1}),
                      fromValues(ElemType::F64, {1, 1}), s, err));
  EXPECT_EQ(s.nonFiniteMismatches, 1);
  EXPECT_EQ(s.maxAbsErr, 0);
  EXPECT_EQ(s.relFrobErr, kInf);
  ASSERT_TRUE(compare(fromValues(ElemType::F64, {-kInf, 1}),
                      fromValues(ElemType::F64, {kInf, 1}), s, err));
  EXPECT_EQ(s.nonFiniteMismatches, 1);
  // An infinity in the reference does not hide a finite error.
  ASSERT_TRUE(compare(fromValues(ElemType::F64, {kInf, 2}),
                      fromValues(ElemType::F64, {kInf, 1}), s, err));
  EXPECT_EQ(s.nonFiniteMismatches, 0);
  EXPECT_EQ(s.maxAbsErr, 1);
  EXPECT_DOUBLE_EQ(s.relFrobErr, 1.0);
  // Squares of these overflow double; the scaled norms do not.
  ASSERT_TRUE(compare(fromValues(ElemType::F64, {1e200 * (1 + 1e-6), 1e200}),
                      fromValues(ElemType::F64, {1e200, 1e200}), s, err));
  EXPECT_NEAR(s.relFrobErr, 1e-6 / std::sqrt(2.0), 1e-12);
  // Rescaling when a much larger value follows a small one.
  ASSERT_TRUE(compare(fromValues(ElemType::F64, {1, 2e300}),
                      fromValues(ElemType::F64, {1, 1e300}), s, err));
  EXPECT_DOUBLE_EQ(s.relFrobErr, 1.0);
}

TEST(Compare, ShapeMismatch) {
  CompareStats s;
  std::string err;
  EXPECT_FALSE(compare(makeZeros(ElemType::F32, {2, 3}),
                       makeZeros(ElemType::F32, {3, 2}), s, err));
  EXPECT_EQ(err, "result shape 2x3 does not match reference shape 3x2");
}

} // namespace
