//===- ChangePoint.cpp - PELT with the normal mean-shift cost -------------===//

#include "kgen/runtime/ChangePoint.h"

#include "kgen/runtime/Search.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kgen::rt {

namespace {

/// Each point clipped to within `limit` of the median of the (up to) 5
/// points centred on it.
std::vector<double> clipOutliers(const std::vector<double> &y, double limit) {
  std::vector<double> out(y.size());
  for (size_t i = 0; i < y.size(); ++i) {
    const size_t from = i >= 2 ? i - 2 : 0, to = std::min(y.size(), i + 3);
    const double m = median(std::vector<double>(y.begin() + static_cast<std::ptrdiff_t>(from),
                                                y.begin() + static_cast<std::ptrdiff_t>(to)));
    out[i] = std::clamp(y[i], m - limit, m + limit);
  }
  return out;
}

} // namespace

double robustSigma(const std::vector<double> &y) {
  if (y.size() < 3)
    return 0;
  std::vector<double> diffs;
  for (size_t i = 1; i < y.size(); ++i)
    diffs.push_back(std::fabs(y[i] - y[i - 1]));
  const double mad = median(diffs) / (std::sqrt(2.0) * 0.6744897501960817);
  if (mad > 0)
    return mad;
  double sum = 0;
  for (double d : diffs)
    sum += d;
  return sum / static_cast<double>(diffs.size()) * std::sqrt(M_PI) / 2;
}

std::vector<size_t> detectChangePoints(const std::vector<double> &y,
                                       const ChangePointOptions &options) {
  const size_t n = y.size();
  const size_t minSeg = std::max<size_t>(1, options.minSegment);
  if (n < 2 * minSeg ||
      std::any_of(y.begin(), y.end(), [](double v) { return !std::isfinite(v); }))
    return {};
  const double sigma = options.sigma > 0 ? options.sigma : robustSigma(y);
  if (!(sigma > 0))
    return {};
  const std::vector<double> x =
      options.clip > 0 ? clipOutliers(y, options.clip * sigma) : y;
  // Prefix sums of the standardised series: cost(s, t) of y[s..t) is
  // sum y^2 - (sum y)^2 / (t - s).
  const double mean = [&] {
    double s = 0;
    for (double v : x)
      s += v;
    return s / static_cast<double>(n);
  }();
  std::vector<double> s1(n + 1, 0), s2(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    const double v = (x[i] - mean) / sigma;
    s1[i + 1] = s1[i] + v;
    s2[i + 1] = s2[i] + v * v;
  }
  auto cost = [&](size_t s, size_t t) {
    const double sum = s1[t] - s1[s];
    return (s2[t] - s2[s]) - sum * sum / static_cast<double>(t - s);
  };
  const double beta = options.penaltyPerLogN * std::log(static_cast<double>(n));
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> best(n + 1, kInf); // best[t]: optimum of y[0..t)
  std::vector<size_t> last(n + 1, 0);    // where the last segment starts
  best[0] = -beta;
  std::vector<size_t> candidates; // segment starts still able to win
  for (size_t t = minSeg; t <= n; ++t) {
    // t - minSeg became a possible start once its own prefix is solvable.
    const size_t fresh = t - minSeg;
    if (fresh == 0 || (fresh >= minSeg && best[fresh] < kInf))
      candidates.push_back(fresh);
    double winner = kInf;
    size_t from = 0;
    for (size_t s : candidates) {
      const double f = best[s] + cost(s, t) + beta;
      if (f < winner) {
        winner = f;
        from = s;
      }
    }
    best[t] = winner;
    last[t] = from;
    // Pruning: a start whose cost to here already exceeds the optimum by
    // more than the penalty never wins later (the cost is additive).
    std::vector<size_t> kept;
    for (size_t s : candidates)
      if (best[s] + cost(s, t) <= winner)
        kept.push_back(s);
    candidates.swap(kept);
  }
  std::vector<size_t> changes;
  for (size_t t = n; last[t] > 0; t = last[t])
    changes.push_back(last[t]);
  std::reverse(changes.begin(), changes.end());
  if (options.minShift <= 0)
    return changes;
  // Drop changes too small to matter, comparing neighbouring segments'
  // means, and merge their segments.
  std::vector<size_t> kept;
  size_t start = 0;
  for (size_t i = 0; i < changes.size(); ++i) {
    const size_t end = i + 1 < changes.size() ? changes[i + 1] : n;
    auto segMean = [&](size_t a, size_t b) {
      double s = 0;
      for (size_t k = a; k < b; ++k)
        s += x[k];
      return s / static_cast<double>(b - a);
    };
    if (std::fabs(segMean(changes[i], end) - segMean(start, changes[i])) >=
        options.minShift) {
      kept.push_back(changes[i]);
      start = changes[i];
    }
  }
  return kept;
}

} // namespace kgen::rt
