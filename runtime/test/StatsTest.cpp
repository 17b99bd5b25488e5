//===- StatsTest.cpp - statistics for comparing timings -------------------===//

#include "kgen/runtime/Stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

using namespace kgen::rt;

namespace {

TEST(StatsTest, NormalDistribution) {
  EXPECT_DOUBLE_EQ(normalCdf(0), 0.5);
  EXPECT_NEAR(normalCdf(1.959963984540054), 0.975, 1e-15);
  EXPECT_NEAR(normalCdf(-1), 0.15865525393145707, 1e-15);
  EXPECT_NEAR(normalQuantile(0.975), 1.959963984540054, 1e-12);
  EXPECT_NEAR(normalQuantile(0.5), 0, 1e-12);
  EXPECT_NEAR(normalQuantile(1e-10), -6.361340902404056, 1e-9);
  EXPECT_EQ(normalQuantile(0), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(normalQuantile(1), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(normalQuantile(1.5)));
  EXPECT_TRUE(std::isnan(normalQuantile(std::nan(""))));
}

// scipy.stats.mannwhitneyu([1, 2, 3], [4, 5, 6], method="asymptotic")
// gives U 9 (for the second sample) and p 0.0808556.
TEST(StatsTest, MannWhitneyKnownValue) {
  const auto r = mannWhitney({1, 2, 3}, {4, 5, 6});
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->u, 9);
  EXPECT_NEAR(r->z, 1.7457431218879391, 1e-12);
  EXPECT_NEAR(r->pValue, 0.0808555983700523, 1e-12);
  // Symmetric: the other way round, U is 0 and z negative, p the same.
  const auto back = mannWhitney({4, 5, 6}, {1, 2, 3});
  ASSERT_TRUE(back);
  EXPECT_DOUBLE_EQ(back->u, 0);
  EXPECT_NEAR(back->z, -r->z, 1e-12);
  EXPECT_NEAR(back->pValue, r->pValue, 1e-15);
}

TEST(StatsTest, MannWhitneyTiesUseMidranks) {
  // Ranks of {1,1,1,2,2,2}: 2,2,2,5,5,5; y = {1,2,2} sums 12, U = 6; the
  // variance shrinks by the tie term (2 groups of 3: 2 * 24).
  const auto r = mannWhitney({1, 1, 2}, {1, 2, 2});
  ASSERT_TRUE(r);
  EXPECT_DOUBLE_EQ(r->u, 6);
  EXPECT_NEAR(r->z, 0.4969039949999532, 1e-12);
  EXPECT_NEAR(r->pValue, 0.6192567541768621, 1e-12);
}

TEST(StatsTest, MannWhitneyEdgeCases) {
  EXPECT_FALSE(mannWhitney({}, {1, 2}));
  EXPECT_FALSE(mannWhitney({1}, {}));
  EXPECT_FALSE(mannWhitney({1, std::nan("")}, {1, 2}));
  EXPECT_FALSE(mannWhitney({1, 2}, {std::numeric_limits<double>::infinity()}));
  const auto tied = mannWhitney({3, 3, 3}, {3, 3});
  ASSERT_TRUE(tied);
  EXPECT_EQ(tied->pValue, 1);
  EXPECT_EQ(tied->z, 0);
}

// y - x over all 25 pairs of {1..5} and {3..7}: 2 + (j - i), from -2 to 6
// with counts 1 2 3 4 5 4 3 2 1; the median is 2 and, at 95%, k = 3: the
// 3rd smallest (-1) and 3rd largest (5).
TEST(StatsTest, HodgesLehmannKnownValue) {
  const auto e = hodgesLehmann({1, 2, 3, 4, 5}, {3, 4, 5, 6, 7});
  ASSERT_TRUE(e);
  EXPECT_DOUBLE_EQ(e->shift, 2);
  EXPECT_DOUBLE_EQ(e->lower, -1);
  EXPECT_DOUBLE_EQ(e->upper, 5);
  // A lower level narrows the interval around the same estimate.
  const auto narrow = hodgesLehmann({1, 2, 3, 4, 5}, {3, 4, 5, 6, 7}, 0.5);
  ASSERT_TRUE(narrow);
  EXPECT_DOUBLE_EQ(narrow->shift, 2);
  EXPECT_GT(narrow->lower, e->lower);
  EXPECT_LT(narrow->upper, e->upper);
}

TEST(StatsTest, HodgesLehmannEvenCountAndExactShift) {
  // Differences {1, 2} (x = {0}, y = {1, 2}) have median 1.5 but too few
  // pairs for an interval.
  EXPECT_FALSE(hodgesLehmann({0}, {1, 2}));
  std::vector<double> x, y;
  for (int i = 0; i < 10; ++i) {
    x.push_back(i);
    y.push_back(i + 0.5);
  }
  const auto e = hodgesLehmann(x, y);
  ASSERT_TRUE(e);
  EXPECT_DOUBLE_EQ(e->shift, 0.5);
  EXPECT_LE(e->lower, 0.5);
  EXPECT_GE(e->upper, 0.5);
}

TEST(StatsTest, HodgesLehmannTooFewSamples) {
  EXPECT_FALSE(hodgesLehmann({1, 2, 3}, {4, 5, 6}));     // k = 0 at 95%
  EXPECT_TRUE(hodgesLehmann({1, 2, 3, 4}, {4, 5, 6, 7})); // k = 1
  EXPECT_FALSE(hodgesLehmann({}, {1, 2, 3, 4}));
  EXPECT_FALSE(hodgesLehmann({1, 2, 3, 4}, {1, 2, 3, std::nan("")}));
  EXPECT_FALSE(hodgesLehmann({1, 2, 3, 4}, {1, 2, 3, 4}, 1.0));
  EXPECT_FALSE(hodgesLehmann({1, 2, 3, 4}, {1, 2, 3, 4}, 0.0));
}

// On log-normal samples with a true 10% shift, the 95% interval of the
// ratio covers 1.10 in about 95% of draws and excludes 1 nearly always.
TEST(StatsTest, HodgesLehmannCoverage) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0, 0.02);
  int covered = 0, excludesOne = 0;
  constexpr int kDraws = 400;
  for (int d = 0; d < kDraws; ++d) {
    std::vector<double> x(20), y(20);
    for (double &v : x)
      v = noise(rng);
    for (double &v : y)
      v = std::log(1.10) + noise(rng);
    const auto e = hodgesLehmann(x, y);
    ASSERT_TRUE(e);
    covered += e->lower <= std::log(1.10) && std::log(1.10) <= e->upper;
    excludesOne += e->lower > 0;
  }
  EXPECT_GE(covered, kDraws * 90 / 100);
  EXPECT_LE(covered, kDraws * 99 / 100);
  EXPECT_EQ(excludesOne, kDraws);
}

// P(Binomial(20, 1/2) <= 5) = 0.0207 <= 0.025 < P(<= 6) = 0.0577: the 6th
// smallest and 6th largest of 20. n = 6: 1/64 <= 0.025, the extremes.
// n = 5: 1/32 > 0.025, no interval.
TEST(StatsTest, MedianIntervalOrderStatistics) {
  std::vector<double> x;
  for (int i = 20; i >= 1; --i)
    x.push_back(i);
  const auto i20 = medianInterval(x);
  ASSERT_TRUE(i20);
  EXPECT_EQ(i20->first, 6);
  EXPECT_EQ(i20->second, 15);
  const auto i6 = medianInterval({3, 1, 2, 6, 5, 4});
  ASSERT_TRUE(i6);
  EXPECT_EQ(i6->first, 1);
  EXPECT_EQ(i6->second, 6);
  EXPECT_FALSE(medianInterval({1, 2, 3, 4, 5}));
  EXPECT_TRUE(medianInterval({1, 2, 3, 4, 5}, 0.9)); // 1/32 <= 0.05
  EXPECT_FALSE(medianInterval({}));
  EXPECT_FALSE(medianInterval({1, 2, 3, 4, 5, std::nan("")}));
  EXPECT_FALSE(medianInterval({1, 2, 3, 4, 5, 6}, 1.0));
}

TEST(StatsTest, LogOf) {
  const auto l = logOf({1, std::exp(2.0)});
  ASSERT_TRUE(l);
  EXPECT_DOUBLE_EQ((*l)[0], 0);
  EXPECT_DOUBLE_EQ((*l)[1], 2);
  EXPECT_FALSE(logOf({1, 0}));
  EXPECT_FALSE(logOf({-1}));
  EXPECT_FALSE(logOf({std::numeric_limits<double>::infinity()}));
  EXPECT_TRUE(logOf({}));
}

} // namespace
