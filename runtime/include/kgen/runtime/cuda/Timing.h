//===- Timing.h - timing launches on the GPU --------------------*- C++ -*-===//
//
// Carries out the method of TimingPolicy.h (cold L2 by rotation, events or
// graph mode, when to stop sampling) with CUDA events and graphs:
// - Warm-up launches first (module load, lazy initialisation, clocks).
// - Events mode: CUDA events around each launch. Samples are queued in
//   batches behind one untimed lead launch, so the GPU never waits for the
//   host inside a timed interval (launches take >= ~20 us here, longer than
//   the host needs to queue the next one).
// - Graph mode, for launches under ~20 us: the launches are captured in a
//   CUDA graph of L launches (launchesPerGraph); each sample is one replay
//   timed by events, divided by L. No flush kernel runs between samples,
//   which keeps graph replays of many launches honest too.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_CUDA_TIMING_H
#define KGEN_RUNTIME_CUDA_TIMING_H

#include "kgen/runtime/Results.h"
#include "kgen/runtime/TimingPolicy.h"
#include "kgen/runtime/cuda/Device.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kgen::rt {

/// Enqueues one launch that uses tensor copy `set` on `stream`; false with a
/// message when the launch itself fails.
using LaunchFn = std::function<bool(int set, cudaStream_t stream, std::string &err)>;

struct TimingOutcome {
  SampleStats stats;       // per launch, milliseconds
  std::vector<double> samples; // each sample, per launch, in order (<= maxSamples)
  TimingMode mode = TimingMode::Events;
  int launchesPerSample = 1;
  /// The SM clock and clock event reasons right before the first timed
  /// sample (after warm-up, estimate and graph capture) and right after the
  /// last (readLoopClocks; unread without NVML).
  ClockReading clocksBefore, clocksAfter;
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
