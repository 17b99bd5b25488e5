//===- ChangePoint.h - change points in a performance series ----*- C++ -*-===//
//
// PELT (Killick, Fearnhead and Eckley 2012) with the normal mean-shift cost:
// the segmentation of a series that minimises the sum over segments of
// sum (y - segment mean)^2 / sigma^2 plus a penalty per change. PELT finds
// the exact optimum of that sum and prunes candidates that can no longer
// win, so it runs in about linear time. sigma is estimated robustly from
// the series itself (the median absolute difference of neighbours, which a
// few steps barely move), and each point is first clipped to within
// `clip` sigma of the median of the 5 points around it, so that a lone
// outlier (a throttled run) weighs like a 3-sigma point, while a real step
// moves that median with it. kgen-bench history series applies it to
// log(median time), so a change is a ratio. The false-alarm rate on noise
// and the detection delay on steps are measured by
// bench/changepoint-bench.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_CHANGEPOINT_H
#define KGEN_RUNTIME_CHANGEPOINT_H

#include <cstddef>
#include <vector>

namespace kgen::rt {

struct ChangePointOptions {
  /// Penalty per change, in units of log(n) (the normalised cost's BIC is
  /// 2; more calls fewer changes). 3 keeps false alarms on Gaussian
  /// noise-only series of 30-120 points under 1% (bench/changepoint-bench.cpp).
  double penaltyPerLogN = 3;
  /// Fewest points a segment may have.
  size_t minSegment = 3;
  /// Changes whose two sides differ by less than this (in the series'
  /// units; the default, log(1.02), is 2% on log times) are dropped after
  /// the search: statistically real but too small to matter. 0 keeps all.
  double minShift = 0.0198026272961797;
  /// sigma to use; <= 0 estimates it from the series.
  double sigma = 0;
  /// Points are clipped to the median of their 5 neighbours (themselves
  /// included) +- clip * sigma before the search; <= 0 does not clip.
  double clip = 3;
};

/// sigma of a series with steps: the median absolute difference of
/// neighbours / (sqrt(2) * 0.6745), the normal's MAD scale; when most
/// neighbours are equal (a step in an otherwise flat series), the mean
/// absolute difference * sqrt(pi) / 2 instead. 0 for fewer than 3 points
/// or a constant series.
double robustSigma(const std::vector<double> &y);

/// Indices i where a new segment starts (y[i] is the first point after a
/// change), ascending, none at 0. No changes for a series shorter than
/// 2 * minSegment, with a non-finite value, or constant.
std::vector<size_t> detectChangePoints(const std::vector<double> &y,
                                       const ChangePointOptions &options = {});

} // namespace kgen::rt

#endif // KGEN_RUNTIME_CHANGEPOINT_H
