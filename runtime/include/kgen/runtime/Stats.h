//===- Stats.h - statistics for comparing timings ---------------*- C++ -*-===//
//
// Small, distribution-free primitives that `kgen-bench compare` builds on
// (docs/performance-history.md; the median is Search.h's): the two-sided Mann-Whitney U
// test and the Hodges-Lehmann shift with its confidence interval. Timings
// are compared as log(time), so a shift is a ratio: exp(shift) = new/base.
// Host-only and deterministic (no random resampling).
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_STATS_H
#define KGEN_RUNTIME_STATS_H

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace kgen::rt {

/// Phi(z), the standard normal distribution function.
double normalCdf(double z);
/// Phi^-1(p) for p in (0, 1), by bisection on normalCdf to double
/// precision; -inf/+inf at 0/1, NaN outside.
double normalQuantile(double p);

struct MannWhitney {
  double u = 0;       // U of `y` over `x`: pairs (x_i, y_j) with y_j > x_i, ties 1/2
  double z = 0;       // normal approximation, continuity and tie corrected
  double pValue = 1;  // two-sided
};

/// The two-sided Mann-Whitney U test of `x` against `y` (normal
/// approximation with midranks for ties; exact enough from about 8
/// samples a side, which is why comparisons ask for more). nullopt when a
/// side is empty or holds a non-finite value. All values tied: p = 1.
std::optional<MannWhitney> mannWhitney(const std::vector<double> &x,
                                       const std::vector<double> &y);

struct ShiftEstimate {
  double shift = 0;   // Hodges-Lehmann: median of all y_j - x_i
  double lower = 0;   // confidence interval of the shift
  double upper = 0;
};

/// The Hodges-Lehmann estimate of the shift of `y` against `x` and its
/// distribution-free confidence interval at `level` (Bauer 1972: the k-th
/// smallest and k-th largest of the n*m differences, k from the
/// Mann-Whitney distribution's normal approximation). nullopt when a side
/// is empty or holds a non-finite value, `level` is not in (0, 1), or the
/// samples are too few for an interval at that level (k < 1: 3 or fewer
/// a side at 95%; 4 a side give one). Costs n*m doubles; callers bound
/// the samples.
std::optional<ShiftEstimate> hodgesLehmann(const std::vector<double> &x,
                                           const std::vector<double> &y,
                                           double level = 0.95);

/// A distribution-free confidence interval of the median of `x` at
/// `level`: the j-th smallest and j-th largest values, j the largest with
/// P(Binomial(n, 1/2) < j) <= (1 - level) / 2 (exact, so the coverage is
/// at least `level`). Unlike the Hodges-Lehmann interval it assumes
/// nothing about the other sample, so it stays honest when two runs
/// differ in spread. nullopt when `x` is empty or holds a non-finite
/// value, `level` is not in (0, 1), or `x` is too small (j < 1: 5 or
/// fewer values at 95%).
std::optional<std::pair<double, double>> medianInterval(std::vector<double> x,
                                                        double level = 0.95);

/// Natural logarithms of `x`; nullopt when a value is not finite and > 0.
std::optional<std::vector<double>> logOf(const std::vector<double> &x);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_STATS_H
