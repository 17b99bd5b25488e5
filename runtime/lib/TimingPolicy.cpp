//===- TimingPolicy.cpp - the decisions of the timing method --------------===//

#include "kgen/runtime/TimingPolicy.h"

#include <algorithm>
#include <cmath>

namespace kgen::rt {

const char *timingModeName(TimingMode mode) {
  return mode == TimingMode::Graph ? "graph" : "events";
}

TimingMode chooseTimingMode(double estimateMs, const TimingPolicy &policy) {
  return estimateMs < policy.graphBelowMs ? TimingMode::Graph : TimingMode::Events;
}

int launchesPerGraph(double estimateMs, int sets, const TimingPolicy &policy) {
  const double wanted =
      estimateMs > 0 ? std::ceil(policy.graphReplayMs / estimateMs) : policy.maxLaunchesPerGraph;
  const int64_t rounds = (static_cast<int64_t>(std::max(wanted, 1.0)) + sets - 1) / sets;
  const int64_t maxRounds = std::max(policy.maxLaunchesPerGraph / sets, 1);
  return static_cast<int>(std::clamp<int64_t>(rounds, 1, maxRounds) * sets);
}

bool samplingDone(int64_t samples, double totalMs, const TimingPolicy &policy) {
  if (samples >= policy.maxSamples)
    return true;
  return samples >= policy.minSamples && totalMs >= policy.targetMs;
}

int rotationSets(int64_t setBytes, int64_t l2Bytes, int64_t budgetBytes) {
  const int64_t cold = (3 * l2Bytes + setBytes - 1) / setBytes;
  const int64_t fit = budgetBytes / setBytes;
  const int64_t sets =
      std::min<int64_t>({std::max<int64_t>(cold, 2), kMaxRotationSets, fit});
  return static_cast<int>(std::max<int64_t>(sets, 1));
}

} // namespace kgen::rt
