//===- Verdict.cpp - a measured result's status, error and rates ----------===//

#include "kgen/runtime/Verdict.h"

#include <cstdio>
#include <limits>

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
  result.samplesMs.clear();
  result.tflops = result.gbps = 0;
  result.fractionOfMatmulCeiling = result.fractionOfCopyCeiling = 0;
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
