//===- ChildReportsTest.cpp - what kgen-bench's children report -----------===//
//
// The protocol and runListInChildren, with stand-in children that need no
// CUDA.
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/ChildReports.h"
#include "kgen/runtime/Verdict.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>

#include <sys/wait.h>
#include <unistd.h>

using namespace kgen::rt;

namespace {

KernelResult timed(const std::string &name, const std::string &impl, double ms) {
  KernelResult r = newResult(name, impl, nlohmann::json{{"kind", "gemm"}});
  r.status = RunStatus::Ok;
  r.time = summarize({ms, ms, ms});
  return r;
}

TEST(ChildReports, FragmentsRoundTrip) {
  ResultsFile a;
  a.createdAt = "2026-11-29T00:00:00Z";
  a.device.name = "NVIDIA H200";
  a.results = {timed("x", "cublaslt", 2.0)};
  ResultsFile b = a;
  b.results = {timed("x", "kgen", 1.0)};
  const std::string output = toJson(a).dump() + "\n" + toJson(b).dump() + "\n";
  std::vector<ResultsFile> fragments;
  std::string err;
  ASSERT_TRUE(parseFragments(output, fragments, err)) << err;
  ASSERT_EQ(fragments.size(), 2u);
  EXPECT_EQ(fragments[1].results[0].implementation, "kgen");
  EXPECT_EQ(fragments[0].device.name, "NVIDIA H200");

  fragments.clear();
  EXPECT_FALSE(parseFragments(output + "{\"half\": ", fragments, err));
  EXPECT_NE(err.find("line 3"), std::string::npos) << err;
}

TEST(ChildReports, MissingResultsSayWhatHappenedToTheChild) {
  ChildOutcome timedOut;
  timedOut.kind = ChildOutcome::Kind::TimedOut;
  timedOut.error = "timed out after 5 s and was killed";
  KernelResult r = missingResult("k", "kgen", nullptr, timedOut);
  EXPECT_EQ(r.status, RunStatus::TimedOut);
  EXPECT_NE(r.reason.find("timed out after 5 s"), std::string::npos);

  ChildOutcome killed;
  killed.kind = ChildOutcome::Kind::Signaled;
  killed.signal = 11;
  killed.error = "killed by signal 11 (Segmentation fault)";
  r = missingResult("k", "kgen", nullptr, killed);
  EXPECT_EQ(r.status, RunStatus::Faulted);
  EXPECT_NE(r.reason.find("signal 11"), std::string::npos);
  EXPECT_FALSE(r.time.has_value());
}

// runListInChildren with children that stand in for a group child: item i
// reports {baseline, kernel}; `fate(i)` says what happens at item i.
enum class Fate {
  Fine,
  FaultAfterBaseline,     // dies inside the item
  ReportedFaultThenExit,  // reports the item (its kernel faulted), exits 1
  CrashBefore,
  Hang
};

std::vector<ItemReport> runFakeList(size_t count,
                                    const std::function<Fate(size_t)> &fate,
                                    std::vector<size_t> *starts = nullptr) {
  DeviceInfo device;
  // Result names are "<item>@<first item of the child>".
  std::vector<ItemReport> reports = runListInChildren(
      count,
      [&](size_t from, int fd) {
        DeviceInfo d;
        d.name = "fake GPU";
        for (size_t i = from; i < count; ++i) {
          const std::string tag = std::to_string(i) + "@" + std::to_string(from);
          switch (fate(i)) {
          case Fate::CrashBefore:
            std::abort();
          case Fate::Hang:
            ::sleep(30);
            return 0;
          case Fate::FaultAfterBaseline:
            emitFragment(fd, makeFragment(d, {timed("b" + tag, "cublaslt", 2)}));
            std::abort();
          case Fate::ReportedFaultThenExit:
            emitFragment(fd, makeFragment(d, {timed("b" + tag, "cublaslt", 2),
                                              timed("k" + tag, "kgen", 1)}));
            return 1;
          case Fate::Fine:
            emitFragment(fd, makeFragment(d, {timed("b" + tag, "cublaslt", 2),
                                              timed("k" + tag, "kgen", 1)}));
          }
        }
        return 0;
      },
      [](const KernelResult &r) { return r.implementation == "kgen"; }, 1.0,
      device);
  if (starts)
    for (const ItemReport &r : reports)
      if (!r.results.empty()) {
        const std::string &name = r.results.front().name;
        starts->push_back(std::stoul(name.substr(name.find('@') + 1)));
      }
  return reports;
}

TEST(ChildReports, ListChildrenGoOnAfterFaultsCrashesAndHangs) {
  // Every item fine: one child reports all.
  std::vector<size_t> starts;
  std::vector<ItemReport> all = runFakeList(4, [](size_t) { return Fate::Fine; }, &starts);
  ASSERT_EQ(all.size(), 4u);
  for (const ItemReport &r : all) {
    EXPECT_TRUE(r.complete);
    EXPECT_TRUE(r.ran);
    ASSERT_EQ(r.results.size(), 2u);
  }
  EXPECT_EQ(starts, (std::vector<size_t>{0, 0, 0, 0}));

  // A fault after item 1's baseline, a crash at item 3, a hang at item 5:
  // each ends its child; the next child starts after it.
  starts.clear();
  std::vector<ItemReport> mixed = runFakeList(
      7,
      [](size_t i) {
        return i == 1   ? Fate::FaultAfterBaseline
               : i == 3 ? Fate::CrashBefore
               : i == 5 ? Fate::Hang
                        : Fate::Fine;
      },
      &starts);
  ASSERT_EQ(mixed.size(), 7u);
  const std::vector<bool> complete = {true, false, true, false, true, false, true};
  for (size_t i = 0; i < 7; ++i)
    EXPECT_EQ(mixed[i].complete, complete[i]) << "item " << i;
  ASSERT_EQ(mixed[1].results.size(), 1u); // its baseline came
  EXPECT_EQ(mixed[1].results[0].implementation, "cublaslt");
  EXPECT_EQ(mixed[1].child.kind, ChildOutcome::Kind::Signaled);
  EXPECT_TRUE(mixed[3].results.empty());
  EXPECT_EQ(mixed[5].child.kind, ChildOutcome::Kind::TimedOut);
  EXPECT_EQ(mixed[5].child.error.find("reported nothing for 1 s"), 0u)
      << mixed[5].child.error;
  // Started at 0 (items 0, 1), at 2 (item 2), at 4, at 6.
  EXPECT_EQ(starts, (std::vector<size_t>{0, 0, 2, 4, 6}));

  // A child that reports a fault and exits (as a group child does after a
  // faulting kernel): the item is complete, and the next runs in a new
  // child, not counted against it.
  starts.clear();
  std::vector<ItemReport> reported = runFakeList(
      4, [](size_t i) { return i == 1 ? Fate::ReportedFaultThenExit : Fate::Fine; },
      &starts);
  ASSERT_EQ(reported.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_TRUE(reported[i].complete) << "item " << i;
    EXPECT_EQ(reported[i].results.size(), 2u) << "item " << i;
  }
  EXPECT_EQ(starts, (std::vector<size_t>{0, 0, 2, 2}));

  // Children that die before reporting anything twice in a row (those
  // started at items 2 and 3; the one that died in item 1 had reported
  // item 0): the rest is not run.
  std::vector<ItemReport> dying =
      runFakeList(6, [](size_t i) { return i == 0 ? Fate::Fine : Fate::CrashBefore; });
  ASSERT_EQ(dying.size(), 6u);
  EXPECT_TRUE(dying[0].complete);
  for (size_t i = 1; i < 6; ++i) {
    EXPECT_FALSE(dying[i].complete) << "item " << i;
    EXPECT_EQ(dying[i].ran, i <= 3) << "item " << i;
  }
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1); // every child reaped
}

} // namespace
