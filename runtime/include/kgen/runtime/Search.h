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

#include <cstddef>
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

/// The typical round median: the median over rounds of each round's median
/// over the finalists it measured (NaN when there is none). score * this is
/// a finalist's drift-corrected time.
double typicalRoundMedian(const std::vector<std::vector<double>> &times);

/// Median of `values` (mean of the middle two for an even count); NaN when
/// empty.
double median(std::vector<double> values);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_SEARCH_H
