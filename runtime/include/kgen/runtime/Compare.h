//===- Compare.h - two benchmark runs compared, with causes -----*- C++ -*-===//
//
// What `kgen-bench compare BASE NEW` computes (docs/performance-history.md):
// per kernel, the ratio of median times NEW/BASE with a confidence interval
// from the timing samples (Hodges-Lehmann on log times, Stats.h), divided
// by the same ratio of its cuBLASLt baseline when both runs measured one
// (drift of the machine cancels), and a verdict: regressed, improved, same,
// unknown (too noisy or too few samples to say), not comparable (another
// device or op, or in one run only). A change is called only when the
// interval excludes 1 (the statistical gate) and the ratio passes a
// practical minimum per kind of kernel. For every regression the
// differences between the two runs that can explain it are listed, most
// specific first: strategy, generated source, ptxas's report, kgen commit,
// toolchain, driver and cuBLASLt, clocks and throttling, machine. Where
// both runs recorded the SM clock around a kernel's timed loop, the ratio is
// also judged in cycles (time x clock): a change that disappears there is
// put down to the clock, named first. Host-only.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_COMPARE_H
#define KGEN_RUNTIME_COMPARE_H

#include "kgen/runtime/Results.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace kgen::rt {

enum class CompareVerdict { Regressed, Improved, Same, Unknown, NotComparable };
/// "regressed", "improved", "same", "unknown", "not comparable".
const char *compareVerdictName(CompareVerdict verdict);

struct CompareOptions {
  double level = 0.95;             // confidence level of the intervals
  std::optional<double> threshold; // practical minimum for every kind
  size_t minSamples = 6;           // fewer a side: unknown (6: the fewest
                                   // a 95% interval of a median needs)
};

/// The practical minimum of a kind of kernel (op.kind): the smallest
/// relative change worth calling, above the run-to-run spread of one
/// build against itself on one GPU (under 0.5%, perf-method.md) with
/// margin: gemm and attention 3%, moe 5% (grouped launches vary more),
/// anything else 5%.
double practicalMinimum(const std::string &kind);

/// A difference between the runs that can explain a change.
struct Cause {
  std::string what;   // "generated source", "registers", "driver", ...
  std::string before; // as in BASE ("" when absent)
  std::string after;  // as in NEW
};

struct Interval {
  double ratio = 0; // NEW/BASE of the medians
  double lower = 0; // confidence interval of the ratio
  double upper = 0;
};

struct KernelComparison {
  std::string implementation, name, kind;
  /// The cuBLASLt (or other) baseline of a kernel in NEW: reported, never
  /// counted as a regression of kgen (it measures the machine).
  bool isBaseline = false;
  CompareVerdict verdict = CompareVerdict::Unknown;
  std::string why;                // one line: what decided an unknown or
                                  // not comparable verdict, or a note
  std::optional<Interval> raw;    // kernel times alone
  std::optional<Interval> normalized; // divided by its baseline's ratio
  std::optional<double> baselineRatio; // the baseline's own NEW/BASE
  /// The decisive interval in clock-normalised time (time x SM clock, i.e.
  /// cycles): when both runs recorded the SM clock around the kernel's timed
  /// loop (and, for a normalized interval, around its baseline's). It
  /// confirms or explains the verdict, which stays the time's.
  std::optional<Interval> cycles;
  std::optional<CompareVerdict> cyclesVerdict; // the rules applied to cycles
  std::optional<double> pValue;   // Mann-Whitney, raw samples
  double threshold = 0;           // the practical minimum applied
  size_t baseSamples = 0, newSamples = 0;
  std::vector<Cause> causes;      // for regressions (and improvements)
  /// The interval the verdict was taken on (normalized when there).
  const Interval *decisive() const {
    return normalized ? &*normalized : raw ? &*raw : nullptr;
  }
};

struct Comparison {
  std::string baseLabel, newLabel;    // file names or history entries
  std::string baseCreatedAt, newCreatedAt;
  bool comparable = true;             // same device
  std::string whyNotComparable;
  std::vector<Cause> runDifferences;  // commit, toolchain, driver, clocks, machine
  std::vector<KernelComparison> kernels; // NEW's order, then BASE-only ones
  size_t count(CompareVerdict verdict, bool baselines = false) const;
};

/// The entry that counts for each (implementation, name) of `file`, in
/// order of first appearance: when a run holds a result several times
/// (tune), its last correct, timed entry, else its last one.
std::vector<const KernelResult *> countedResults(const ResultsFile &file);

/// Compares two runs. Results are matched by (implementation, name), one
/// entry each (countedResults).
Comparison compareRuns(const ResultsFile &base, const ResultsFile &now,
                       const CompareOptions &options = {});

//===----------------------------------------------------------------------===//
// --confirm: the old and new packages measured again, interleaved
//===----------------------------------------------------------------------===//

/// Interleaved rounds for a regressed kernel; an unknown one gets twice as
/// many (what the comparison could not decide needs more samples). 6 is the
/// fewest a 95% interval of a median needs.
constexpr unsigned kConfirmRounds = 6;

/// A kernel to measure again: BASE's package and NEW's, `rounds` times.
struct ConfirmItem {
  std::string implementation, name;
  CompareVerdict verdict = CompareVerdict::Unknown; // the comparison's
  double threshold = 0;
  unsigned rounds = 0;
};

/// The kernels --confirm measures again: every kernel (not baseline) that
/// regressed (kConfirmRounds) or is unknown (2 x kConfirmRounds), in the
/// comparison's order.
std::vector<ConfirmItem> confirmPlan(const Comparison &comparison);

/// Round `round`'s order of the two packages, 0 BASE's and 1 NEW's: ABAB,
/// BASE first in even rounds, NEW first in odd ones (Search.h's roundOrder
/// of two), so that neither always runs first after the warm-up.
std::vector<size_t> confirmOrder(size_t round);

/// One round of a confirmation: each package's time in the same process
/// (over the baseline measured beside it when both have one, so drift
/// within the round cancels). <= 0 or NaN: not measured correctly.
struct ConfirmRound {
  double baseMs = 0, newMs = 0;
};

struct Confirmation {
  CompareVerdict verdict = CompareVerdict::Unknown;
  /// The median of the rounds' NEW/BASE ratios and its distribution-free
  /// interval (order statistics of the log ratios).
  std::optional<Interval> ratio;
  size_t rounds = 0; // rounds with both packages measured
  std::string why;   // one line
};

/// The verdict of paired rounds, by compare's rules (regressed, improved,
/// same, unknown) on the rounds' ratios; unknown with fewer than 6 paired
/// rounds.
Confirmation decideConfirmation(const std::vector<ConfirmRound> &rounds,
                                double threshold, double level = 0.95);

/// Applies a confirmation to its kernel's row: the verdict becomes the
/// confirmation's unless that is unknown (then the comparison's stands),
/// `why` says what the rounds found, and causes are kept only for a
/// regression or improvement.
void applyConfirmation(KernelComparison &row, const Confirmation &confirmation);

/// 1 when a kernel (not a baseline) regressed, else 0.
int comparisonExitCode(const Comparison &comparison);

/// A few lines per regression, one per other kernel, a closing summary;
/// strings from the files escaped for the terminal.
std::string formatComparisonText(const Comparison &comparison);
/// The same as Markdown (a pull-request comment): summary, regressions
/// with their causes, then a table of every kernel.
std::string formatComparisonMarkdown(const Comparison &comparison);
/// Schema "kgen.comparison", version 1 (docs/performance-history.md).
nlohmann::json toJson(const Comparison &comparison);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_COMPARE_H
