//===- Bench.cpp - the results of the children's GPU work -----------------===//

#include "kgen/runtime/cuda/Bench.h"

#include "kgen/runtime/cuda/Device.h"

#include <cstdio>

namespace kgen::rt {

void markFailed(KernelResult &result, const std::string &err) {
  result.status = deviceFaulted() ? RunStatus::Faulted : RunStatus::LaunchFailed;
  result.reason = err;
  clearTiming(result);
}

bool timeResult(const LaunchFn &launch, int sets, cudaStream_t stream,
                const BenchOptions &options, double flops, double bytes,
                KernelResult &result) {
  TimingOutcome outcome;
  if (!timeLaunches(launch, sets, stream, options.timing, outcome)) {
    result.status = outcome.faulted ? RunStatus::Faulted : RunStatus::LaunchFailed;
    result.reason = "while timing: " + outcome.error;
    clearTiming(result);
    return false;
  }
  result.status = RunStatus::Ok;
  result.reason.clear();
  result.time = outcome.stats;
  result.samplesMs = keepSamples(outcome.samples);
  recordLoopClocks(result, outcome.clocksBefore.smMHz,
                   outcome.clocksAfter.smMHz, outcome.clocksBefore.reasons,
                   outcome.clocksAfter.reasons);
  fillRates(result, flops, bytes, options.ceilings);
  std::fprintf(stderr,
               "kgen-bench:   %s %s: median %.4f ms, IQR %.4f ms, %lld samples "
               "(%s, %d launch%s per sample, %d tensor copies)\n",
               result.implementation.c_str(), result.name.c_str(),
               outcome.stats.medianMs, outcome.stats.iqrMs(),
               static_cast<long long>(outcome.stats.samples),
               timingModeName(outcome.mode), outcome.launchesPerSample,
               outcome.launchesPerSample == 1 ? "" : "es", sets);
  return true;
}

} // namespace kgen::rt
