//===- Stats.cpp - statistics for comparing timings -----------------------===//

#include "kgen/runtime/Stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace kgen::rt {
namespace {

bool allFinite(const std::vector<double> &x) {
  return std::all_of(x.begin(), x.end(), [](double v) { return std::isfinite(v); });
}

/// The k-th smallest (0-based) of `d`, reordering it.
double kthSmallest(std::vector<double> &d, size_t k) {
  std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(k), d.end());
  return d[k];
}

/// The median of `d` (reordered), which is not empty.
double medianInPlace(std::vector<double> &d) {
  const size_t n = d.size();
  const double upper = kthSmallest(d, n / 2);
  if (n % 2)
    return upper;
  // The lower middle value is the largest of the part below n/2.
  const double lower = *std::max_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(n / 2));
  return (lower + upper) / 2;
}

} // namespace

double normalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double normalQuantile(double p) {
  if (std::isnan(p) || p < 0 || p > 1)
    return std::numeric_limits<double>::quiet_NaN();
  if (p == 0)
    return -std::numeric_limits<double>::infinity();
  if (p == 1)
    return std::numeric_limits<double>::infinity();
  double lo = -40, hi = 40; // Phi(-40) underflows to 0: every p > 0 is inside
  for (int i = 0; i < 200 && lo < hi; ++i) {
    const double mid = lo + (hi - lo) / 2;
    if (mid == lo || mid == hi)
      break;
    (normalCdf(mid) < p ? lo : hi) = mid;
  }
  return lo + (hi - lo) / 2;
}

std::optional<MannWhitney> mannWhitney(const std::vector<double> &x,
                                       const std::vector<double> &y) {
  if (x.empty() || y.empty() || !allFinite(x) || !allFinite(y))
    return std::nullopt;
  const size_t n = x.size(), m = y.size(), total = n + m;
  // Values with their side, sorted; midranks for ties.
  std::vector<std::pair<double, bool>> all; // (value, from y)
  all.reserve(total);
  for (double v : x)
    all.emplace_back(v, false);
  for (double v : y)
    all.emplace_back(v, true);
  std::sort(all.begin(), all.end());
  double rankSumY = 0, tieTerm = 0;
  for (size_t i = 0; i < total;) {
    size_t j = i;
    while (j < total && all[j].first == all[i].first)
      ++j;
    const double midrank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    const double t = static_cast<double>(j - i);
    tieTerm += t * t * t - t;
    for (size_t k = i; k < j; ++k)
      if (all[k].second)
        rankSumY += midrank;
    i = j;
  }
  const double nd = static_cast<double>(n), md = static_cast<double>(m),
               N = static_cast<double>(total);
  MannWhitney r;
  r.u = rankSumY - md * (md + 1) / 2;
  const double mean = nd * md / 2;
  const double variance =
      nd * md / 12 * ((N + 1) - (N > 1 ? tieTerm / (N * (N - 1)) : 0));
  if (variance <= 0) { // every value tied: no evidence either way
    r.z = 0;
    r.pValue = 1;
    return r;
  }
  const double diff = r.u - mean;
  const double corrected = std::max(0.0, std::fabs(diff) - 0.5);
  r.z = std::copysign(corrected / std::sqrt(variance), diff);
  r.pValue = std::min(1.0, 2 * normalCdf(-std::fabs(r.z)));
  return r;
}

std::optional<ShiftEstimate> hodgesLehmann(const std::vector<double> &x,
                                           const std::vector<double> &y,
                                           double level) {
  if (x.empty() || y.empty() || !allFinite(x) || !allFinite(y) ||
      !(level > 0 && level < 1))
    return std::nullopt;
  const size_t n = x.size(), m = y.size(), pairs = n * m;
  const double nm = static_cast<double>(pairs);
  const double z = normalQuantile(1 - (1 - level) / 2);
  const double k = std::floor(
      nm / 2 - z * std::sqrt(nm * static_cast<double>(n + m + 1) / 12));
  if (k < 1)
    return std::nullopt;
  std::vector<double> d;
  d.reserve(pairs);
  for (double b : x)
    for (double a : y)
      d.push_back(a - b);
  ShiftEstimate e;
  const size_t kk = static_cast<size_t>(k);
  e.lower = kthSmallest(d, kk - 1);
  e.upper = kthSmallest(d, pairs - kk);
  e.shift = medianInPlace(d);
  return e;
}

std::optional<std::pair<double, double>> medianInterval(std::vector<double> x,
                                                        double level) {
  if (x.empty() || !allFinite(x) || !(level > 0 && level < 1))
    return std::nullopt;
  const size_t n = x.size();
  const double tail = (1 - level) / 2;
  // P(B <= i) for B ~ Binomial(n, 1/2), summed term by term in logs.
  const double logHalfN = static_cast<double>(n) * std::log(0.5);
  const double nd = static_cast<double>(n);
  double cdf = 0;
  size_t j = 0; // order statistics j and n - j + 1 (1-based)
  for (size_t i = 0; i < n; ++i) {
    const double id = static_cast<double>(i);
    cdf += std::exp(std::lgamma(nd + 1) - std::lgamma(id + 1) -
                    std::lgamma(nd - id + 1) + logHalfN);
    if (cdf > tail)
      break;
    j = i + 1; // P(B <= j - 1) <= tail
  }
  if (j < 1 || j > n - j + 1)
    return std::nullopt;
  std::sort(x.begin(), x.end());
  return std::make_pair(x[j - 1], x[n - j]);
}

std::optional<std::vector<double>> logOf(const std::vector<double> &x) {
  std::vector<double> out;
  out.reserve(x.size());
  for (double v : x) {
    if (!(std::isfinite(v) && v > 0))
      return std::nullopt;
    out.push_back(std::log(v));
  }
  return out;
}

} // namespace kgen::rt
