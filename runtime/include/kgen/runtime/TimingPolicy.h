//===- TimingPolicy.h - the decisions of the timing method ------*- C++ -*-===//
//
// Method (shared/notes/perf-method.md); cuda/Timing.h carries it out on the
// GPU, this header holds its numbers and decisions, host-only so that the
// command line (Cli.h) and tests need no CUDA:
// - Cold L2 by rotation: every tensor has `sets` copies whose total is at
//   least 3x the L2 size (and at least 2 copies); launch i uses copy
//   i mod sets, so its inputs were last touched sets - 1 launches earlier,
//   with at least 2x L2 of other data in between (rotationSets).
// - Graph mode for launches under ~20 us, events mode otherwise
//   (chooseTimingMode); a graph replays L launches, a multiple of `sets`,
//   for >= ~200 us (launchesPerGraph).
// - Sampling stops once there are at least minSamples samples and targetMs
//   of measured GPU time, or maxSamples samples (samplingDone).
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_TIMINGPOLICY_H
#define KGEN_RUNTIME_TIMINGPOLICY_H

#include <cstdint>

namespace kgen::rt {

struct TimingPolicy {
  int warmupLaunches = 3;
  int minSamples = 20;
  int maxSamples = 200;
  double targetMs = 500;       // GPU time to accumulate before stopping
  double graphBelowMs = 0.020; // launches shorter than this use graph mode
  double graphReplayMs = 0.2;  // a graph replays at least about this long
  int maxLaunchesPerGraph = 4096;
};

enum class TimingMode { Events, Graph };
const char *timingModeName(TimingMode mode); // "events", "graph"

/// Graph mode when one launch (as estimated) is shorter than graphBelowMs.
TimingMode chooseTimingMode(double estimateMs, const TimingPolicy &policy);

/// Launches per graph replay: enough to replay graphReplayMs, rounded up to
/// a multiple of `sets` (each copy used equally), at least `sets`, at most
/// maxLaunchesPerGraph rounded down to a multiple of `sets` (never below
/// `sets`). Precondition: sets >= 1.
int launchesPerGraph(double estimateMs, int sets, const TimingPolicy &policy);

/// True once `samples` samples totalling `totalMs` are enough.
bool samplingDone(int64_t samples, double totalMs, const TimingPolicy &policy);

constexpr int kMaxRotationSets = 256;

/// Copies of the tensors to rotate over: the fewest whose total is at least
/// 3x `l2Bytes`, at least 2, at most kMaxRotationSets and at most what fits
/// in `budgetBytes` (but never below 1). For tiny tensors the cap leaves
/// less than 3x L2 in rotation: their launches are dominated by launch
/// latency, not by memory. Precondition: setBytes > 0.
int rotationSets(int64_t setBytes, int64_t l2Bytes, int64_t budgetBytes);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_TIMINGPOLICY_H
