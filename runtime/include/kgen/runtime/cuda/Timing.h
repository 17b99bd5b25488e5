//===- Timing.h - timing launches on the GPU --------------------*- C++ -*-===//
//
// Method (docs: shared/notes/perf-method.md):
// - Cold L2 by rotation: every tensor has `sets` copies whose total is at
//   least 3x the L2 size (and at least 2 copies); launch i uses copy
//   i mod sets, so its inputs were last touched sets - 1 launches earlier,
//   with at least 2x L2 of other data in between. No flush kernel runs
//   between samples, which keeps graph replays of many launches honest too.
// - Warm-up launches first (module load, lazy initialisation, clocks).
// - Events mode: CUDA events around each launch. Samples are queued in
//   batches behind one untimed lead launch, so the GPU never waits for the
//   host inside a timed interval (launches take >= ~20 us here, longer than
//   the host needs to queue the next one).
// - Graph mode, for launches under ~20 us: the launches are captured in a
//   CUDA graph of L launches (a multiple of `sets`, replaying >= ~200 us);
//   each sample is one replay timed by events, divided by L.
// - Sampling stops once there are at least minSamples samples and targetMs
//   of measured GPU time, or maxSamples samples.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_CUDA_TIMING_H
#define KGEN_RUNTIME_CUDA_TIMING_H

#include "kgen/runtime/Results.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <string>

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

/// Enqueues one launch that uses tensor copy `set` on `stream`; false with a
/// message when the launch itself fails.
using LaunchFn = std::function<bool(int set, cudaStream_t stream, std::string &err)>;

struct TimingOutcome {
  SampleStats stats;       // per launch, milliseconds
  TimingMode mode = TimingMode::Events;
  int launchesPerSample = 1;
  bool faulted = false;    // the error came from the device (a sticky fault)
  std::string error;       // empty on success
};

/// Warms up, estimates one launch, picks the mode and samples as described
/// above. `stream` must be a non-default stream (graphs capture it). False
/// with outcome.error set when a launch or the device fails.
bool timeLaunches(const LaunchFn &launch, int sets, cudaStream_t stream,
                  const TimingPolicy &policy, TimingOutcome &outcome);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_CUDA_TIMING_H
