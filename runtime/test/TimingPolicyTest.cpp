//===- TimingPolicyTest.cpp - the decisions of the timing method ----------===//

#include "kgen/runtime/TimingPolicy.h"

#include <gtest/gtest.h>

using namespace kgen::rt;

namespace {

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kH200L2 = 60 * kMiB;
constexpr int64_t kPlenty = int64_t{100} << 30;

TEST(TimingPolicy, GraphBelowTwentyMicroseconds) {
  const TimingPolicy policy;
  EXPECT_EQ(chooseTimingMode(0.005, policy), TimingMode::Graph);
  EXPECT_EQ(chooseTimingMode(0.0199, policy), TimingMode::Graph);
  EXPECT_EQ(chooseTimingMode(0.020, policy), TimingMode::Events);
  EXPECT_EQ(chooseTimingMode(1.4, policy), TimingMode::Events);
  EXPECT_STREQ(timingModeName(TimingMode::Graph), "graph");
}

TEST(TimingPolicy, LaunchesPerGraphCoverTheReplayTimeInWholeRotations) {
  const TimingPolicy policy; // 0.2 ms per replay
  EXPECT_EQ(launchesPerGraph(0.010, 1, policy), 20);
  EXPECT_EQ(launchesPerGraph(0.010, 3, policy), 21); // rounded up to 3s
  EXPECT_EQ(launchesPerGraph(0.010, 40, policy), 40); // one whole rotation
  EXPECT_EQ(launchesPerGraph(0.0001, 1, policy), 2000);
  EXPECT_EQ(launchesPerGraph(0.0, 1, policy), policy.maxLaunchesPerGraph);
  EXPECT_EQ(launchesPerGraph(0.00001, 7, policy), 4095); // capped, multiple of 7
  EXPECT_EQ(launchesPerGraph(0.00001, 5000, policy), 5000); // never below sets
}

TEST(TimingPolicy, SamplingStops) {
  TimingPolicy policy;
  policy.minSamples = 20;
  policy.maxSamples = 200;
  policy.targetMs = 500;
  EXPECT_FALSE(samplingDone(19, 10000, policy)); // too few samples
  EXPECT_FALSE(samplingDone(20, 499, policy));   // too little GPU time
  EXPECT_TRUE(samplingDone(20, 500, policy));
  EXPECT_TRUE(samplingDone(200, 1, policy));     // the cap
}

TEST(TimingPolicy, RotationCoversThreeL2s) {
  // 8192^3 bf16: 384 MiB per set, already 6x the L2: two sets.
  EXPECT_EQ(rotationSets(384 * kMiB, kH200L2, kPlenty), 2);
  // 32 MiB per set: ceil(180 / 32) = 6 sets.
  EXPECT_EQ(rotationSets(32 * kMiB, kH200L2, kPlenty), 6);
  // Exactly 3x: 3 sets of 60 MiB.
  EXPECT_EQ(rotationSets(60 * kMiB, kH200L2, kPlenty), 3);
  // Tiny tensors: capped.
  EXPECT_EQ(rotationSets(4096, kH200L2, kPlenty), kMaxRotationSets);
  // Memory bounds the count, never below one set.
  EXPECT_EQ(rotationSets(32 * kMiB, kH200L2, 100 * kMiB), 3);
  EXPECT_EQ(rotationSets(32 * kMiB, kH200L2, 10 * kMiB), 1);
}

} // namespace
