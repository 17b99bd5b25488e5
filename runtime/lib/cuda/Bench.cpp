//===- Bench.cpp - helpers shared by the children, and the parent side ----===//

#include "kgen/runtime/cuda/Bench.h"

#include "kgen/runtime/cuda/Device.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace kgen::rt {

namespace {

std::string formatDouble(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g", v);
  return buf;
}

} // namespace

KernelResult newResult(const std::string &name, const std::string &implementation,
                       const nlohmann::json &op, const nlohmann::json &config) {
  KernelResult result;
  result.name = name;
  result.implementation = implementation;
  result.op = op;
  result.config = config;
  result.status = RunStatus::Skipped;
  return result;
}

void clearTiming(KernelResult &result) {
  result.time.reset();
  result.tflops = result.gbps = 0;
  result.fractionOfMatmulCeiling = result.fractionOfCopyCeiling = 0;
}

void markFailed(KernelResult &result, const std::string &err) {
  result.status = deviceFaulted() ? RunStatus::Faulted : RunStatus::LaunchFailed;
  result.reason = err;
  clearTiming(result);
}

void markWrong(KernelResult &result, const std::string &reason) {
  result.status = RunStatus::Wrong;
  result.reason = reason;
  clearTiming(result);
}

bool judge(const HostTensor &got, const HostTensor &expected, double tolerance,
           KernelResult &result) {
  CompareStats stats;
  std::string err;
  if (!compare(got, expected, stats, err)) {
    result.status = RunStatus::Wrong;
    result.reason = "cannot compare with the reference: " + err;
    return false;
  }
  result.relError = stats.relFrobErr;
  // NaN never passes, even where the reference is NaN too.
  const int64_t nans = stats.gotNaNs;
  if (nans > 0 || stats.nonFiniteMismatches > 0) {
    result.status = RunStatus::Wrong;
    result.relError = std::numeric_limits<double>::infinity();
    result.reason = std::to_string(nans) + " of " + std::to_string(stats.count) +
                    " elements are NaN (outputs start as NaN: unwritten?), " +
                    std::to_string(stats.nonFiniteMismatches) +
                    " non-finite where the reference differs";
    return false;
  }
  if (!(stats.relFrobErr <= tolerance)) {
    result.status = RunStatus::Wrong;
    result.reason = "relative error " + formatDouble(stats.relFrobErr) +
                    " exceeds the tolerance " + formatDouble(tolerance) +
                    " (max abs error " + formatDouble(stats.maxAbsErr) + ")";
    return false;
  }
  return true;
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

bool parseFragments(const std::string &output, std::vector<ResultsFile> &out,
                    std::string &err) {
  std::istringstream lines(output);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (line.empty())
      continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    ResultsFile fragment;
    std::string why;
    if (j.is_discarded() || !fromJson(j, fragment, why)) {
      err = "child output line " + std::to_string(number) +
            " is not a results document" + (why.empty() ? "" : ": " + why);
      return false;
    }
    out.push_back(std::move(fragment));
  }
  return true;
}

KernelResult missingResult(const std::string &name,
                           const std::string &implementation,
                           const nlohmann::json &op,
                           const ChildOutcome &outcome) {
  KernelResult result = newResult(name, implementation, op);
  switch (outcome.kind) {
  case ChildOutcome::Kind::TimedOut:
    result.status = RunStatus::TimedOut;
    result.reason = "no result before the time limit (a hang?): the child " +
                    outcome.error;
    break;
  case ChildOutcome::Kind::Signaled:
  case ChildOutcome::Kind::Exited:
    result.status = RunStatus::Faulted;
    result.reason = "the child " + outcome.error + " before reporting";
    break;
  case ChildOutcome::Kind::SpawnFailed:
    result.status = RunStatus::LaunchFailed;
    result.reason = "could not start a child: " + outcome.error;
    break;
  }
  return result;
}

std::vector<KernelResult> collectResults(const ChildOutcome &outcome,
                                         DeviceInfo &device) {
  std::vector<ResultsFile> fragments;
  std::string err;
  if (!parseFragments(outcome.output, fragments, err))
    std::fprintf(stderr, "kgen-bench: %s\n", err.c_str());
  std::vector<KernelResult> results;
  for (ResultsFile &fragment : fragments) {
    if (!fragment.device.name.empty())
      device = fragment.device;
    for (KernelResult &r : fragment.results)
      results.push_back(std::move(r));
  }
  return results;
}

std::vector<ItemReport>
runListInChildren(size_t count,
                  const std::function<int(size_t from, int fd)> &body,
                  const std::function<bool(const KernelResult &)> &endsItem,
                  double timeoutSeconds, DeviceInfo &device, int silentLimit) {
  std::vector<ItemReport> out;
  int silent = 0;
  while (out.size() < count) {
    const size_t from = out.size();
    const ChildOutcome child = runIsolated(
        [&](int fd) { return body(from, fd); }, timeoutSeconds,
        Deadline::SinceOutput);
    std::vector<KernelResult> results = collectResults(child, device);
    // What an item needs of its child, for what is missing: not the output.
    ChildOutcome ended = child;
    ended.output.clear();
    ItemReport item;
    item.child = ended;
    size_t reported = 0;
    for (KernelResult &r : results) {
      if (out.size() == count)
        break; // more than asked for: ignored
      ++reported;
      const bool last = endsItem(r);
      item.results.push_back(std::move(r));
      if (last) {
        item.complete = true;
        out.push_back(std::move(item));
        item = ItemReport{};
        item.child = ended;
      }
    }
    // The child ended inside the next item when it reported part of it, or
    // died (a crash, a hang) after the last complete one. A child that
    // exits after a complete item (it stops after a fault it reported)
    // ended between items: a new child goes on with the next.
    const bool diedInside = child.kind != ChildOutcome::Kind::Exited;
    if (out.size() < count && (!item.results.empty() || diedInside))
      out.push_back(std::move(item));
    silent = reported == 0 ? silent + 1 : 0;
    if (silent >= silentLimit)
      while (out.size() < count) {
        ItemReport skipped;
        skipped.child = ended;
        skipped.ran = false;
        out.push_back(std::move(skipped));
      }
  }
  return out;
}

void fillRates(KernelResult &result, double flops, double bytes,
               const std::optional<Ceilings> &ceilings) {
  if (!result.time || result.time->medianMs <= 0)
    return;
  const double seconds = result.time->medianMs * 1e-3;
  result.tflops = flops / seconds * 1e-12;
  result.gbps = bytes / seconds * 1e-9;
  if (ceilings && ceilings->matmulTflops > 0)
    result.fractionOfMatmulCeiling = result.tflops / ceilings->matmulTflops;
  if (ceilings && ceilings->copyGBps > 0)
    result.fractionOfCopyCeiling = result.gbps / ceilings->copyGBps;
}

void linkBaseline(KernelResult &result, const KernelResult &baseline) {
  result.baseline = baseline.name;
  if (result.time && baseline.time && result.time->medianMs > 0 &&
      result.status == RunStatus::Ok && baseline.status == RunStatus::Ok)
    result.speedupOverBaseline = baseline.time->medianMs / result.time->medianMs;
}

int resultsExitCode(const std::vector<KernelResult> &results) {
  for (const KernelResult &r : results)
    if (r.status != RunStatus::Ok && r.status != RunStatus::Skipped)
      return 1;
  return 0;
}

} // namespace kgen::rt
