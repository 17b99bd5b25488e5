//===- ChildReports.cpp - what kgen-bench's children report ---------------===//

#include "kgen/runtime/ChildReports.h"

#include "kgen/runtime/Verdict.h"

#include <cstdio>
#include <sstream>

namespace kgen::rt {

bool emitFragment(int fd, const ResultsFile &fragment) {
  return writeAll(fd, toJson(fragment).dump(-1, ' ', false,
                                            nlohmann::json::error_handler_t::replace) +
                         "\n");
}

ResultsFile makeFragment(const DeviceInfo &device,
                         std::vector<KernelResult> results) {
  ResultsFile fragment;
  fragment.createdAt = utcNow();
  fragment.device = device;
  fragment.results = std::move(results);
  return fragment;
}

bool parseFragments(const std::string &output, std::vector<ResultsFile> &out,
                    std::string &err) {
  std::istringstream lines(output);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (line.empty())
      continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    ResultsFile fragment;
    std::string why;
    if (j.is_discarded() || !fromJson(j, fragment, why)) {
      err = "child output line " + std::to_string(number) +
            " is not a results document" + (why.empty() ? "" : ": " + why);
      return false;
    }
    out.push_back(std::move(fragment));
  }
  return true;
}

KernelResult missingResult(const std::string &name,
                           const std::string &implementation,
                           const nlohmann::json &op,
                           const ChildOutcome &outcome) {
  KernelResult result = newResult(name, implementation, op);
  switch (outcome.kind) {
  case ChildOutcome::Kind::TimedOut:
    result.status = RunStatus::TimedOut;
    result.reason = "no result before the time limit (a hang?): the child " +
                    outcome.error;
    break;
  case ChildOutcome::Kind::Signaled:
  case ChildOutcome::Kind::Exited:
    result.status = RunStatus::Faulted;
    result.reason = "the child " + outcome.error + " before reporting";
    break;
  case ChildOutcome::Kind::SpawnFailed:
    result.status = RunStatus::LaunchFailed;
    result.reason = "could not start a child: " + outcome.error;
    break;
  }
  return result;
}

std::vector<KernelResult> collectResults(const ChildOutcome &outcome,
                                         DeviceInfo &device) {
  std::vector<ResultsFile> fragments;
  std::string err;
  if (!parseFragments(outcome.output, fragments, err))
    std::fprintf(stderr, "kgen-bench: %s\n", err.c_str());
  std::vector<KernelResult> results;
  for (ResultsFile &fragment : fragments) {
    if (!fragment.device.name.empty())
      device = fragment.device;
    for (KernelResult &r : fragment.results)
      results.push_back(std::move(r));
  }
  return results;
}

std::vector<ItemReport>
runListInChildren(size_t count,
                  const std::function<int(size_t from, int fd)> &body,
                  const std::function<bool(const KernelResult &)> &endsItem,
                  double timeoutSeconds, DeviceInfo &device, int silentLimit) {
  std::vector<ItemReport> out;
  int silent = 0;
  while (out.size() < count) {
    const size_t from = out.size();
    const ChildOutcome child = runIsolated(
        [&](int fd) { return body(from, fd); }, timeoutSeconds,
        Deadline::SinceOutput);
    std::vector<KernelResult> results = collectResults(child, device);
    // What an item needs of its child, for what is missing: not the output.
    ChildOutcome ended = child;
    ended.output.clear();
    ItemReport item;
    item.child = ended;
    size_t reported = 0;
    for (KernelResult &r : results) {
      if (out.size() == count)
        break; // more than asked for: ignored
      ++reported;
      const bool last = endsItem(r);
      item.results.push_back(std::move(r));
      if (last) {
        item.complete = true;
        out.push_back(std::move(item));
        item = ItemReport{};
        item.child = ended;
      }
    }
    // The child ended inside the next item when it reported part of it, or
    // died (a crash, a hang) after the last complete one. A child that
    // exits after a complete item (it stops after a fault it reported)
    // ended between items: a new child goes on with the next.
    const bool diedInside = child.kind != ChildOutcome::Kind::Exited;
    if (out.size() < count && (!item.results.empty() || diedInside))
      out.push_back(std::move(item));
    silent = reported == 0 ? silent + 1 : 0;
    if (silent >= silentLimit)
      while (out.size() < count) {
        ItemReport skipped;
        skipped.child = ended;
        skipped.ran = false;
        out.push_back(std::move(skipped));
      }
  }
  return out;
}

} // namespace kgen::rt
