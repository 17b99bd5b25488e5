//===- Verdict.h - a measured result's status, error and rates --*- C++ -*-===//
//
// How kgen-bench fills a KernelResult (Results.h): a new result is skipped
// until judged; judge compares it with the reference (wrong beyond the
// tolerance or on any NaN); a timing sets ok, the time and the rates; a
// result found wrong after timing loses them. Host-only: kgen-bench's
// children call these after their GPU work, the parent on what they
// report. (markFailed and timeResult, which ask the device, are in
// cuda/Bench.h.)
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_VERDICT_H
#define KGEN_RUNTIME_VERDICT_H

#include "kgen/runtime/HostTensor.h"
#include "kgen/runtime/Results.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kgen::rt {

/// A result for `op` named `name`, status skipped until judged.
KernelResult newResult(const std::string &name, const std::string &implementation,
                       const nlohmann::json &op,
                       const nlohmann::json &config = nullptr);

/// Drops `result`'s time and the rates computed from it: what a result
/// that failed or was found wrong after timing must not carry.
void clearTiming(KernelResult &result);

/// Marks `result` wrong for `reason`, its timing cleared.
void markWrong(KernelResult &result, const std::string &reason);

/// Judges `got` against `expected` (same shape): sets relError (infinite
/// when an element of `got` is NaN: NaN never passes, or when the two
/// disagree on a non-finite value) and, when it exceeds `tolerance`, status
/// wrong with the reason. True when it passes.
bool judge(const HostTensor &got, const HostTensor &expected, double tolerance,
           KernelResult &result);

/// TFLOP/s and GB/s from the median time and, with ceilings, the fractions
/// of the measured matmul rate and copy bandwidth. No-op without a time.
void fillRates(KernelResult &result, double flops, double bytes,
               const std::optional<Ceilings> &ceilings);

/// Sets result.baseline and, when both have times, the speedup (baseline
/// median / result median).
void linkBaseline(KernelResult &result, const KernelResult &baseline);

/// 0 when every result is ok or skipped, else 1 (kgen-bench's exit codes).
int resultsExitCode(const std::vector<KernelResult> &results);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_VERDICT_H
