//===- Series.cpp - a kernel's history, segmented -------------------------===//

#include "kgen/runtime/Series.h"

#include <cmath>

namespace kgen::rt {

size_t SeriesAnalysis::openSlowdowns() const {
  size_t open = 0;
  for (const SeriesChange &c : changes)
    open += c.ratio > 1 && !c.ack;
  return open;
}

SeriesAnalysis analyzeSeries(std::vector<SeriesPoint> points,
                             std::vector<Ack> acks,
                             const ChangePointOptions &options) {
  SeriesAnalysis a;
  a.points = std::move(points);
  a.acks = std::move(acks);
  bool allBaselines = true;
  for (size_t i = 0; i < a.points.size(); ++i)
    if (a.points[i].medianMs && *a.points[i].medianMs > 0) {
      a.timed.push_back(i);
      allBaselines = allBaselines && a.points[i].baselineMedianMs &&
                     *a.points[i].baselineMedianMs > 0;
    }
  a.normalized = allBaselines && !a.timed.empty();
  std::vector<double> y;
  for (size_t i : a.timed)
    y.push_back(std::log(*a.points[i].medianMs /
                         (a.normalized ? *a.points[i].baselineMedianMs : 1.0)));
  const std::vector<size_t> cuts = detectChangePoints(y, options);
  for (size_t k = 0; k < cuts.size(); ++k) {
    SeriesChange change;
    change.point = a.timed[cuts[k]];
    const size_t from = k ? cuts[k - 1] : 0;
    const size_t to = k + 1 < cuts.size() ? cuts[k + 1] : y.size();
    double before = 0, after = 0;
    for (size_t i = from; i < cuts[k]; ++i)
      before += y[i];
    for (size_t i = cuts[k]; i < to; ++i)
      after += y[i];
    change.ratio = std::exp(after / static_cast<double>(to - cuts[k]) -
                            before / static_cast<double>(cuts[k] - from));
    for (size_t j = 0; j < a.acks.size() && !change.ack; ++j)
      for (size_t i = cuts[k] > 0 ? cuts[k] - 1 : 0;
           i <= cuts[k] + 1 && i < a.timed.size(); ++i)
        if (!change.ack && a.points[a.timed[i]].runId == a.acks[j].runId)
          change.ack = j;
    a.changes.push_back(change);
  }
  return a;
}

} // namespace kgen::rt
