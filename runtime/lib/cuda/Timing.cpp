//===- Timing.cpp - timing launches on the GPU ----------------------------===//

#include "kgen/runtime/cuda/Timing.h"

#include "kgen/runtime/cuda/Device.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace kgen::rt {

namespace {

constexpr int kEstimateLaunches = 5;
constexpr int kSamplesPerBatch = 16;

/// CUDA events created once and destroyed with the object.
class EventPool {
public:
  ~EventPool() {
    for (cudaEvent_t e : events_)
      (void)cudaEventDestroy(e);
  }
  bool create(int count, std::string &err) {
    for (int i = 0; i < count; ++i) {
      cudaEvent_t e = nullptr;
      KGEN_CUDA_TRY(cudaEventCreate(&e), err);
      events_.push_back(e);
    }
    return true;
  }
  cudaEvent_t operator[](size_t i) const { return events_[i]; }

private:
  std::vector<cudaEvent_t> events_;
};

/// A captured and instantiated graph, destroyed with the object.
class Graph {
public:
  ~Graph() {
    if (exec_ != nullptr)
      (void)cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr)
      (void)cudaGraphDestroy(graph_);
  }
  /// Captures launches 0..count-1 (copy i mod sets) and instantiates them.
  bool capture(const LaunchFn &launch, int count, int sets, cudaStream_t stream,
               std::string &err) {
    // Relaxed: library calls (cuBLASLt) may make set-up calls while we capture.
    KGEN_CUDA_TRY(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed), err);
    bool ok = true;
    for (int i = 0; i < count && ok; ++i)
      ok = launch(i % sets, stream, err);
    // End the capture even after a failed launch, to release the stream.
    const cudaError_t ended = cudaStreamEndCapture(stream, &graph_);
    if (!ok)
      return false;
    KGEN_CUDA_TRY(ended, err);
    KGEN_CUDA_TRY(cudaGraphInstantiate(&exec_, graph_, 0), err);
    KGEN_CUDA_TRY(cudaGraphUpload(exec_, stream), err);
    return true;
  }
  bool replay(cudaStream_t stream, std::string &err) const {
    KGEN_CUDA_TRY(cudaGraphLaunch(exec_, stream), err);
    return true;
  }

private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

/// Records a failure: a device fault when the context now holds one.
bool fail(TimingOutcome &outcome, const std::string &err) {
  outcome.error = err;
  outcome.faulted = deviceFaulted();
  return false;
}

/// Milliseconds of `launches` back-to-back launches, divided by their count.
bool estimateMs(const LaunchFn &launch, int sets, int &next, cudaStream_t stream,
                double &ms, std::string &err) {
  EventPool events;
  if (!events.create(2, err))
    return false;
  KGEN_CUDA_TRY(cudaEventRecord(events[0], stream), err);
  for (int i = 0; i < kEstimateLaunches; ++i)
    if (!launch(next++ % sets, stream, err))
      return false;
  KGEN_CUDA_TRY(cudaEventRecord(events[1], stream), err);
  KGEN_CUDA_TRY(cudaEventSynchronize(events[1]), err);
  float elapsed = 0;
  KGEN_CUDA_TRY(cudaEventElapsedTime(&elapsed, events[0], events[1]), err);
  ms = static_cast<double>(elapsed) / kEstimateLaunches;
  return true;
}

} // namespace

bool timeLaunches(const LaunchFn &launch, int sets, cudaStream_t stream,
                  const TimingPolicy &policy, TimingOutcome &outcome) {
  outcome = TimingOutcome{};
  std::string err;
  int next = 0; // the copy the next events-mode launch uses, mod sets
  for (int i = 0; i < policy.warmupLaunches; ++i)
    if (!launch(next++ % sets, stream, err))
      return fail(outcome, err);
  const cudaError_t warm = cudaStreamSynchronize(stream);
  if (warm != cudaSuccess)
    return fail(outcome, cudaErrorText("cudaStreamSynchronize after warm-up", warm));

  double estimate = 0;
  if (!estimateMs(launch, sets, next, stream, estimate, err))
    return fail(outcome, err);
  outcome.mode = chooseTimingMode(estimate, policy);

  Graph graph;
  std::function<bool()> unit; // one timed unit: a launch or a replay
  if (outcome.mode == TimingMode::Graph) {
    outcome.launchesPerSample = launchesPerGraph(estimate, sets, policy);
    if (!graph.capture(launch, outcome.launchesPerSample, sets, stream, err))
      return fail(outcome, err);
    unit = [&] { return graph.replay(stream, err); };
  } else {
    unit = [&] { return launch(next++ % sets, stream, err); };
  }

  EventPool events;
  if (!events.create(2 * kSamplesPerBatch, err))
    return fail(outcome, err);
  std::vector<double> samples;
  double totalMs = 0;
  const int ordinal = currentDevice();
  outcome.clocksBefore = readLoopClocks(ordinal);
  while (!samplingDone(static_cast<int64_t>(samples.size()), totalMs, policy)) {
    const int batch = std::min<int>(kSamplesPerBatch,
                                    policy.maxSamples - static_cast<int>(samples.size()));
    if (!unit()) // the untimed lead: keeps the GPU busy while we queue
      return fail(outcome, err);
    for (int j = 0; j < batch; ++j) {
      const cudaError_t begin = cudaEventRecord(events[2 * j], stream);
      if (begin != cudaSuccess)
        return fail(outcome, cudaErrorText("cudaEventRecord", begin));
      if (!unit())
        return fail(outcome, err);
      const cudaError_t end = cudaEventRecord(events[2 * j + 1], stream);
      if (end != cudaSuccess)
        return fail(outcome, cudaErrorText("cudaEventRecord", end));
    }
    const cudaError_t done = cudaStreamSynchronize(stream);
    if (done != cudaSuccess)
      return fail(outcome, cudaErrorText("cudaStreamSynchronize after timed launches", done));
    for (int j = 0; j < batch; ++j) {
      float ms = 0;
      const cudaError_t read = cudaEventElapsedTime(&ms, events[2 * j], events[2 * j + 1]);
      if (read != cudaSuccess)
        return fail(outcome, cudaErrorText("cudaEventElapsedTime", read));
      totalMs += ms;
      samples.push_back(static_cast<double>(ms) / outcome.launchesPerSample);
    }
  }
  outcome.clocksAfter = readLoopClocks(ordinal);
  outcome.stats = summarize(samples);
  outcome.samples = std::move(samples);
  return true;
}

} // namespace kgen::rt
