//===- Series.h - a kernel's history, segmented ----------------*- C++ -*-===//
//
// What `kgen-bench history series` and the report's history charts show of a
// kernel's series (docs/performance-history.md): the log of each timed run's
// median, over its baseline's median when every timed run has one (drift of
// the machine cancels), the change points PELT finds in it (ChangePoint.h),
// each change's size (the mean of the segment after it over the mean of the
// one before), and the acknowledgement that covers it, if any (an ack at the
// change's run or a neighbour's: the detector may move a step by a run as
// runs are added). Host-only.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_SERIES_H
#define KGEN_RUNTIME_SERIES_H

#include "kgen/runtime/ChangePoint.h"
#include "kgen/runtime/History.h"

#include <cstddef>
#include <optional>
#include <vector>

namespace kgen::rt {

struct SeriesChange {
  size_t point = 0;          // index in `points` of the first run after it
  double ratio = 1;          // segment mean after / before, as a time ratio
  std::optional<size_t> ack; // index in `acks` of the ack covering it
};

struct SeriesAnalysis {
  std::vector<SeriesPoint> points;
  std::vector<Ack> acks;
  std::vector<size_t> timed; // indices of points with a median > 0
  bool normalized = false;   // over the baseline's median
  std::vector<SeriesChange> changes;
  /// Slowdowns (ratio > 1) no ack covers.
  size_t openSlowdowns() const;
};

SeriesAnalysis analyzeSeries(std::vector<SeriesPoint> points,
                             std::vector<Ack> acks,
                             const ChangePointOptions &options = {});

} // namespace kgen::rt

#endif // KGEN_RUNTIME_SERIES_H
