//===- Search.cpp - how a tuner spends its measurements -------------------===//

#include "kgen/runtime/Search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace kgen::rt {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool measured(double t) { return t > 0 && std::isfinite(t); }

/// Round r's median over the finalists measured in it, if at least two.
double roundMedian(const std::vector<std::vector<double>> &times, size_t r) {
  std::vector<double> round;
  for (const std::vector<double> &t : times)
    if (r < t.size() && measured(t[r]))
      round.push_back(t[r]);
  return round.size() >= 2 ? median(round) : kNaN;
}

size_t roundCount(const std::vector<std::vector<double>> &times) {
  size_t rounds = 0;
  for (const std::vector<double> &t : times)
    rounds = std::max(rounds, t.size());
  return rounds;
}
} // namespace

double median(std::vector<double> values) {
  if (values.empty())
    return kNaN;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

size_t measurementBudget(size_t spaceSize, size_t requested) {
  if (requested > 0)
    return std::min(requested, spaceSize);
  const size_t share = static_cast<size_t>(
      std::floor(kDefaultMeasuredShare * static_cast<double>(spaceSize)));
  return std::min(spaceSize, std::max<size_t>(1, share));
}

std::vector<size_t> pickFinalists(const std::vector<double> &medians,
                                  size_t count, double window) {
  std::vector<size_t> order;
  for (size_t i = 0; i < medians.size(); ++i)
    if (measured(medians[i]))
      order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return medians[a] < medians[b]; });
  std::vector<size_t> out;
  for (size_t i : order) {
    if (out.size() == count ||
        medians[i] > std::max(1.0, window) * medians[order.front()])
      break;
    out.push_back(i);
  }
  return out;
}

std::vector<size_t> roundOrder(size_t n, size_t round) {
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  if (n > 0)
    std::rotate(order.begin(), order.begin() + static_cast<long>(round % n),
                order.end());
  return order;
}

std::vector<double> pairedScores(const std::vector<std::vector<double>> &times) {
  const size_t rounds = roundCount(times);
  std::vector<double> norms(rounds);
  for (size_t r = 0; r < rounds; ++r)
    norms[r] = roundMedian(times, r);
  std::vector<double> scores;
  for (const std::vector<double> &t : times) {
    std::vector<double> normalised;
    for (size_t r = 0; r < t.size(); ++r)
      if (measured(t[r]) && std::isfinite(norms[r]))
        normalised.push_back(t[r] / norms[r]);
    scores.push_back(median(normalised));
  }
  return scores;
}

double typicalRoundMedian(const std::vector<std::vector<double>> &times) {
  std::vector<double> medians;
  for (size_t r = 0, rounds = roundCount(times); r < rounds; ++r)
    if (double m = roundMedian(times, r); std::isfinite(m))
      medians.push_back(m);
  return median(medians);
}

} // namespace kgen::rt
