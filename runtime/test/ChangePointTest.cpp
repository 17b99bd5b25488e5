//===- ChangePointTest.cpp - PELT on synthetic series ---------------------===//

#include "kgen/runtime/ChangePoint.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

using namespace kgen::rt;

namespace {

std::vector<double> noise(std::mt19937_64 &rng, size_t n, double sigma) {
  std::normal_distribution<double> gauss(0, sigma);
  std::vector<double> y(n);
  for (double &v : y)
    v = gauss(rng);
  return y;
}

void addStep(std::vector<double> &y, size_t at, double by) {
  for (size_t i = at; i < y.size(); ++i)
    y[i] += by;
}

TEST(ChangePointTest, RobustSigma) {
  EXPECT_EQ(robustSigma({}), 0);
  EXPECT_EQ(robustSigma({1, 2}), 0);
  EXPECT_EQ(robustSigma({5, 5, 5, 5}), 0);
  std::mt19937_64 rng(3);
  std::vector<double> y = noise(rng, 2000, 0.01);
  EXPECT_NEAR(robustSigma(y), 0.01, 0.001);
  addStep(y, 1000, 0.5); // one step barely moves it
  EXPECT_NEAR(robustSigma(y), 0.01, 0.001);
}

TEST(ChangePointTest, EdgeCases) {
  EXPECT_TRUE(detectChangePoints({}).empty());
  EXPECT_TRUE(detectChangePoints({1, 2, 3, 4, 5}).empty()); // < 2 segments
  EXPECT_TRUE(detectChangePoints(std::vector<double>(40, 1.0)).empty());
  std::vector<double> withNan(40, 1.0);
  withNan[3] = std::nan("");
  EXPECT_TRUE(detectChangePoints(withNan).empty());
}

TEST(ChangePointTest, CleanStepIsFound) {
  std::vector<double> y(40, 0.0);
  addStep(y, 25, 0.1); // the default drops changes under 2%
  EXPECT_EQ(detectChangePoints(y), std::vector<size_t>{25});
}

TEST(ChangePointTest, StepsInNoiseAreFoundWhereTheyAre) {
  std::mt19937_64 rng(11);
  std::vector<double> y = noise(rng, 90, 0.01);
  addStep(y, 30, std::log(1.10)); // 10% slower
  addStep(y, 60, std::log(0.95)); // then 5% faster
  const std::vector<size_t> found = detectChangePoints(y);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_NEAR(static_cast<double>(found[0]), 30, 1);
  EXPECT_NEAR(static_cast<double>(found[1]), 60, 1);
}

TEST(ChangePointTest, MinShiftDropsSmallChanges) {
  std::mt19937_64 rng(5);
  std::vector<double> y = noise(rng, 80, 0.001);
  addStep(y, 40, 0.01); // 10 sigma, but only 1%
  ChangePointOptions options;
  options.minShift = 0;
  ASSERT_EQ(detectChangePoints(y, options).size(), 1u);
  options.minShift = 0.02;
  EXPECT_TRUE(detectChangePoints(y, options).empty());
  EXPECT_TRUE(detectChangePoints(y).empty()); // the default is 2%
}

TEST(ChangePointTest, ALoneOutlierIsNoChange) {
  std::mt19937_64 rng(9);
  std::vector<double> y = noise(rng, 60, 0.01);
  y[30] += std::log(1.3); // one throttled run, 30% slow
  y[31] += std::log(1.3);
  EXPECT_TRUE(detectChangePoints(y).empty());
  ChangePointOptions noClip;
  noClip.clip = 0;
  EXPECT_FALSE(detectChangePoints(y, noClip).empty()) << "the clipping is what helps";
}

// The false-alarm rate and the detection power the docs quote, on fixed
// seeds (bench/changepoint-bench.cpp measures them at length).
TEST(ChangePointTest, FewFalseAlarmsAndStepsFound) {
  std::mt19937_64 rng(1);
  int alarms = 0, found = 0;
  constexpr int kSeries = 300;
  for (int s = 0; s < kSeries; ++s)
    alarms += !detectChangePoints(noise(rng, 60, 0.01)).empty();
  for (int s = 0; s < kSeries; ++s) {
    std::vector<double> y = noise(rng, 50, 0.01);
    addStep(y, 40, std::log(1.05)); // 5% slower, 10 points ago
    const std::vector<size_t> c = detectChangePoints(y);
    found += c.size() == 1 && c[0] >= 39 && c[0] <= 41;
  }
  EXPECT_LE(alarms, kSeries * 2 / 100);
  EXPECT_GE(found, kSeries * 97 / 100);
}

} // namespace
