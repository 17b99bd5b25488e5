//===- ChildReports.h - what kgen-bench's children report -------*- C++ -*-===//
//
// kgen-bench never touches CUDA in its own process: each unit of GPU work
// runs in a child forked with runIsolated (Isolate.h; the children are in
// cuda/Bench.h). This is the host side of that arrangement.
//
// Child -> parent protocol: the child writes one JSON document per line on
// its result fd, each a ResultsFile (schema kgen.results) holding what it
// adds: the device it ran on, results in order, ceilings. Lines written
// before a child dies still count.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_CHILDREPORTS_H
#define KGEN_RUNTIME_CHILDREPORTS_H

#include "kgen/runtime/Isolate.h"
#include "kgen/runtime/Results.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace kgen::rt {

// ------------------------------------------------------------------ child

/// Writes `fragment` as one line of JSON on `fd`.
bool emitFragment(int fd, const ResultsFile &fragment);

/// A fragment holding `device` and `results` (and nothing else).
ResultsFile makeFragment(const DeviceInfo &device,
                         std::vector<KernelResult> results);

// ------------------------------------------------------------------ parent

/// Splits a child's output into fragments; false with a message on a line
/// that is not a kgen.results document.
bool parseFragments(const std::string &output, std::vector<ResultsFile> &out,
                    std::string &err);

/// The result to record for `name` when its child ended without reporting
/// it: timed_out when the child ran out of time, faulted otherwise, with
/// the child's fate in the reason.
KernelResult missingResult(const std::string &name,
                           const std::string &implementation,
                           const nlohmann::json &op,
                           const ChildOutcome &outcome);

/// The results a child reported, in order (a line it wrote that is not a
/// results fragment is said on stderr); `device` takes the last device
/// info seen (its clocks are those of the latest measurement).
std::vector<KernelResult> collectResults(const ChildOutcome &outcome,
                                         DeviceInfo &device);

/// What a list child reported for one item of its list.
struct ItemReport {
  std::vector<KernelResult> results; // in the order reported
  bool complete = false;  // its last result came; else the child ended in it
  bool ran = true;        // false: not run (children kept dying silently)
  ChildOutcome child;     // the child it ran in (for what is missing)
};

/// Runs items [0, count) of a list in children, in order, as few as faults
/// allow: `body(from, fd)` runs items [from, count) and reports each item's
/// results as fragments, the item's last result marked by `endsItem`. When a
/// child ends inside an item (a crash, or `timeoutSeconds` since its last
/// report, or an exit after part of the item's results), that item is
/// incomplete and a new child goes on from the next; a child that exits
/// after a complete item (it stops after reporting a fault) is followed by
/// a new child from the item after it. After `silentLimit` children in a
/// row that report nothing, the remaining items get empty, incomplete
/// reports without running. `device` takes the last device info seen. One
/// report per item, in order.
std::vector<ItemReport>
runListInChildren(size_t count,
                  const std::function<int(size_t from, int fd)> &body,
                  const std::function<bool(const KernelResult &)> &endsItem,
                  double timeoutSeconds, DeviceInfo &device,
                  int silentLimit = 2);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_CHILDREPORTS_H
