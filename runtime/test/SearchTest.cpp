//===- SearchTest.cpp - budget, finalists, paired comparison --------------===//

#include "kgen/runtime/Search.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace kgen::rt;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(SearchTest, BudgetIsAShareOfTheSpaceUnlessGiven) {
  EXPECT_EQ(measurementBudget(200, 0), 30u); // 15%
  EXPECT_EQ(measurementBudget(99, 0), 14u);  // rounded down: at most 15%
  EXPECT_EQ(measurementBudget(3, 0), 1u);    // at least one
  EXPECT_EQ(measurementBudget(0, 0), 0u);
  EXPECT_EQ(measurementBudget(200, 12), 12u);
  EXPECT_EQ(measurementBudget(5, 12), 5u);
}

TEST(SearchTest, FinalistsAreTheFastestWithinTheWindow) {
  const std::vector<double> medians = {1.30, 1.00, kNaN, 1.05, -1, 1.09, 1.2};
  EXPECT_EQ(pickFinalists(medians, 3, 1.10), (std::vector<size_t>{1, 3, 5}));
  EXPECT_EQ(pickFinalists(medians, 2, 1.10), (std::vector<size_t>{1, 3}));
  EXPECT_EQ(pickFinalists(medians, 9, 1.06), (std::vector<size_t>{1, 3}));
  EXPECT_EQ(pickFinalists(medians, 9, 0.5), (std::vector<size_t>{1}));
  EXPECT_TRUE(pickFinalists({kNaN, 0, -2}, 3, 1.1).empty());
  EXPECT_TRUE(pickFinalists({}, 3, 1.1).empty());
}

TEST(SearchTest, RoundsRotateTheOrder) {
  EXPECT_EQ(roundOrder(3, 0), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(roundOrder(3, 1), (std::vector<size_t>{1, 2, 0}));
  EXPECT_EQ(roundOrder(3, 2), (std::vector<size_t>{2, 0, 1}));
  EXPECT_EQ(roundOrder(3, 3), (std::vector<size_t>{0, 1, 2}));
  EXPECT_TRUE(roundOrder(0, 4).empty());
}

TEST(SearchTest, PairedScoresCancelDriftBetweenRounds) {
  // B is 2% faster than A in every round, but round 0 ran 30% slow as a
  // whole (clocks, a neighbour): B's round 0 is slower than A's rounds 1, 2.
  // Unpaired medians over all rounds would still rank them right here; the
  // paired scores give the ratio itself.
  const std::vector<std::vector<double>> times = {
      {1.30, 1.00, 1.00},   // A
      {1.274, 0.98, 0.98},  // B
      {1.365, 1.05, 1.05}}; // C
  const std::vector<double> s = pairedScores(times);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_NEAR(s[0], 1.0, 1e-12);
  EXPECT_NEAR(s[1] / s[0], 0.98, 1e-12);
  EXPECT_NEAR(s[2] / s[0], 1.05, 1e-12);
  EXPECT_NEAR(typicalRoundMedian(times), 1.0, 1e-12);
}

TEST(SearchTest, PairedScoresOutvoteOneNoisyRound) {
  // A is truly faster; one round has B look 10% better by noise. The
  // median over rounds keeps A first where the best-of or the mean would
  // not.
  const std::vector<std::vector<double>> times = {
      {1.00, 1.00, 1.00, 1.10, 1.00},  // A
      {1.03, 1.03, 1.03, 0.99, 1.03}}; // B
  const std::vector<double> s = pairedScores(times);
  EXPECT_LT(s[0], s[1]);
}

TEST(SearchTest, MissingMeasurementsAreSkipped) {
  // C failed in round 1; round 2 measured A alone (no comparison).
  const std::vector<std::vector<double>> times = {
      {1.0, 1.0, 1.0}, {2.0, 2.0, kNaN}, {4.0, -1}};
  const std::vector<double> s = pairedScores(times);
  // Round medians: 2.0 (A, B, C) and 1.5 (A, B); round 2 is skipped.
  EXPECT_NEAR(s[0], (0.5 + 1 / 1.5) / 2, 1e-12);
  EXPECT_NEAR(s[1], (1.0 + 2 / 1.5) / 2, 1e-12);
  EXPECT_NEAR(s[2], 2.0, 1e-12); // round 0 only
  EXPECT_TRUE(std::isnan(pairedScores({{kNaN}, {1.0}})[0]));
}

TEST(SearchTest, MedianOfEvenAndOddCounts) {
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_TRUE(std::isnan(median({})));
}
} // namespace
