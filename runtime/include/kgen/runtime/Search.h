//===- Search.h - how a tuner spends its measurements -----------*- C++ -*-===//
//
// The arithmetic of a measured search, apart from compiling and running:
// how many candidates to measure, which few to measure again, and how to
// compare them so that drift between runs does not pick the winner. Pure
// functions of numbers; kgen-tune drives them.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_SEARCH_H
#define KGEN_RUNTIME_SEARCH_H

#include "kgen/runtime/Results.h"
#include "kgen/runtime/TuningDb.h"

#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace kgen::rt {

/// The share of the candidate space a tuning run measures by default.
constexpr double kDefaultMeasuredShare = 0.15;

/// How many of `spaceSize` ranked candidates to measure: `requested` when
/// it is > 0, else kDefaultMeasuredShare of the space (at least 1); never
/// more than the space.
size_t measurementBudget(size_t spaceSize, size_t requested);

/// The candidates worth measuring again: indices of the at most `count`
/// fastest `medians` that lie within `window` times the fastest (window
/// >= 1), fastest first. Entries <= 0 or NaN (failed, wrong, unmeasured)
/// are never picked.
std::vector<size_t> pickFinalists(const std::vector<double> &medians,
                                  size_t count, double window);

/// Round `round`'s order of `n` finalists: 0..n-1 rotated left by `round`,
/// so that each finalist runs at each position (first after a cold start,
/// last after the others warmed the clocks) as often as the others.
std::vector<size_t> roundOrder(size_t n, size_t round);

/// Paired comparison of re-measured finalists. times[i][r] is finalist i's
/// median in round r (<= 0 or NaN: missing). Each round is divided by its
/// own median over the finalists it measured, so a round that drift slowed
/// as a whole counts as much as any other; a finalist's score is the median
/// of its normalised times (NaN when it has none). Rounds with fewer than
/// two finalists measured carry no comparison and are skipped.
std::vector<double> pairedScores(const std::vector<std::vector<double>> &times);

/// Median of `values` (mean of the middle two for an even count); NaN when
/// empty.
double median(std::vector<double> values);

//===----------------------------------------------------------------------===//
// The measured search over a ranked list of candidates
//===----------------------------------------------------------------------===//

/// One measurement of a candidate: its result and the median of the
/// baseline timed beside it in the same process (NaN: none).
struct CandidateRun {
  std::optional<KernelResult> result;
  double baselineMs = std::numeric_limits<double>::quiet_NaN();
};

enum class SearchStatus { Ok, NoDevice, Failed };

/// Measures the candidates `indices`, in that order, one run each, into
/// runs[k] for indices[k]. NoDevice or Failed (with `err`) stop the search.
using MeasureFn = std::function<SearchStatus(
    const std::vector<size_t> &indices, std::vector<CandidateRun> &runs,
    std::string &err)>;

struct SearchOptions {
  double maxSeconds = 60;   // checked between batches and rounds
  /// Candidates per MeasureFn call in the first pass: kgen-bench measures
  /// a batch in one child, paying its set-up (CUDA context, inputs, the
  /// reference) once; small enough for the budget to act between batches.
  size_t batch = 8;
  unsigned finalists = 3;   // measured again
  unsigned rounds = 3;      // interleaved re-measurement rounds
  double window = 1.10;     // finalists lie within this of the best
};

struct SearchOutcome {
  std::vector<CandidateRun> first;  // per candidate; no result: not measured
  /// Drift-free value per candidate: time over its baseline (or the time,
  /// when some measured candidate has no baseline); finalists: their paired
  /// score on the first pass's scale. NaN: not measured correctly (or a
  /// finalist that failed when measured again).
  std::vector<double> relative;
  bool usesBaselines = true;
  std::vector<double> baselineMs;   // every baseline median seen
  std::vector<size_t> finalists;
  std::vector<std::vector<double>> finalistRuns; // relative, per run
  std::vector<double> scores;       // paired score per finalist
  /// Per candidate: the first re-measurement run that failed (a finalist
  /// correct once, then wrong or faulted), if any. Such a candidate is out.
  std::vector<CandidateRun> laterFailure;
  size_t measured = 0;              // candidates with a first run
  bool budgetSpent = false;
  /// ms = relative * scale(): the baselines' median over all runs (1 without).
  double scale() const;
  /// The drift-corrected time of candidate i (NaN when not correct).
  double correctedMs(size_t i) const { return relative[i] * scale(); }
  /// The candidate with the smallest corrected time, if any.
  std::optional<size_t> best() const;
};

/// The search over `count` candidates ranked best-first: the first pass in
/// batches until the candidates or `maxSeconds` run out (calling `progress`
/// after each batch with the indices just measured), then the finalists
/// (pickFinalists on the drift-free values) in `rounds` interleaved rounds
/// (roundOrder), compared with pairedScores. The work of kgen-tune
/// --measure and kgen-bench tune; what measures is the caller's.
SearchStatus searchCandidates(
    size_t count, const SearchOptions &options, const MeasureFn &measure,
    const std::function<void(const std::vector<size_t> &)> &progress,
    SearchOutcome &outcome, std::string &err);

/// Whether a run's kernel result is correct and timed.
bool correctRun(const CandidateRun &run);

/// The tuning database key of a kgen result measured on `device`: the op
/// signature (a moe layer's or grouped GEMM's: its grouped GEMM key,
/// tuningRecordOf), the config's target, the device's SM count and name,
/// the CUDA runtime version, and the emitter version the config records.
TuningKey tuningKeyFor(const KernelResult &result, const DeviceInfo &device);

/// Adds every measured candidate of `outcome` to `db`, correct or not, at
/// its drift-corrected time (the first run's spread scaled alike); a moe
/// layer's config as its tuned role's (tuningRecordOf); its provenance the
/// device's name and clocks.
void addToDb(const SearchOutcome &outcome, const DeviceInfo &device,
             const std::string &measuredAt, const std::string &host,
             TuningDb &db);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_SEARCH_H
