//===- SearchTest.cpp - budget, finalists, paired comparison --------------===//

#include "kgen/runtime/Search.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace kgen::rt;

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(SearchTest, BudgetIsAShareOfTheSpaceUnlessGiven) {
  EXPECT_EQ(measurementBudget(200, 0), 30u); // 15%
  EXPECT_EQ(measurementBudget(99, 0), 14u);  // rounded down: at most 15%
  EXPECT_EQ(measurementBudget(3, 0), 1u);    // at least one
  EXPECT_EQ(measurementBudget(0, 0), 0u);
  EXPECT_EQ(measurementBudget(200, 12), 12u);
  EXPECT_EQ(measurementBudget(5, 12), 5u);
}

TEST(SearchTest, FinalistsAreTheFastestWithinTheWindow) {
  const std::vector<double> medians = {1.30, 1.00, kNaN, 1.05, -1, 1.09, 1.2};
  EXPECT_EQ(pickFinalists(medians, 3, 1.10), (std::vector<size_t>{1, 3, 5}));
  EXPECT_EQ(pickFinalists(medians, 2, 1.10), (std::vector<size_t>{1, 3}));
  EXPECT_EQ(pickFinalists(medians, 9, 1.06), (std::vector<size_t>{1, 3}));
  EXPECT_EQ(pickFinalists(medians, 9, 0.5), (std::vector<size_t>{1}));
  EXPECT_TRUE(pickFinalists({kNaN, 0, -2}, 3, 1.1).empty());
  EXPECT_TRUE(pickFinalists({}, 3, 1.1).empty());
}

TEST(SearchTest, RoundsRotateTheOrder) {
  EXPECT_EQ(roundOrder(3, 0), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(roundOrder(3, 1), (std::vector<size_t>{1, 2, 0}));
  EXPECT_EQ(roundOrder(3, 2), (std::vector<size_t>{2, 0, 1}));
  EXPECT_EQ(roundOrder(3, 3), (std::vector<size_t>{0, 1, 2}));
  EXPECT_TRUE(roundOrder(0, 4).empty());
}

TEST(SearchTest, PairedScoresCancelDriftBetweenRounds) {
  // B is 2% faster than A in every round, but round 0 ran 30% slow as a
  // whole (clocks, a neighbour): B's round 0 is slower than A's rounds 1, 2.
  // Unpaired medians over all rounds would still rank them right here; the
  // paired scores give the ratio itself.
  const std::vector<std::vector<double>> times = {
      {1.30, 1.00, 1.00},   // A
      {1.274, 0.98, 0.98},  // B
      {1.365, 1.05, 1.05}}; // C
  const std::vector<double> s = pairedScores(times);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_NEAR(s[0], 1.0, 1e-12);
  EXPECT_NEAR(s[1] / s[0], 0.98, 1e-12);
  EXPECT_NEAR(s[2] / s[0], 1.05, 1e-12);
}

TEST(SearchTest, PairedScoresOutvoteOneNoisyRound) {
  // A is truly faster; one round has B look 10% better by noise. The
  // median over rounds keeps A first where the best-of or the mean would
  // not.
  const std::vector<std::vector<double>> times = {
      {1.00, 1.00, 1.00, 1.10, 1.00},  // A
      {1.03, 1.03, 1.03, 0.99, 1.03}}; // B
  const std::vector<double> s = pairedScores(times);
  EXPECT_LT(s[0], s[1]);
}

TEST(SearchTest, MissingMeasurementsAreSkipped) {
  // C failed in round 1; round 2 measured A alone (no comparison).
  const std::vector<std::vector<double>> times = {
      {1.0, 1.0, 1.0}, {2.0, 2.0, kNaN}, {4.0, -1}};
  const std::vector<double> s = pairedScores(times);
  // Round medians: 2.0 (A, B, C) and 1.5 (A, B); round 2 is skipped.
  EXPECT_NEAR(s[0], (0.5 + 1 / 1.5) / 2, 1e-12);
  EXPECT_NEAR(s[1], (1.0 + 2 / 1.5) / 2, 1e-12);
  EXPECT_NEAR(s[2], 2.0, 1e-12); // round 0 only
  EXPECT_TRUE(std::isnan(pairedScores({{kNaN}, {1.0}})[0]));
}

TEST(SearchTest, MedianOfEvenAndOddCounts) {
  EXPECT_EQ(median({3, 1, 2}), 2);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_TRUE(std::isnan(median({})));
}
} // namespace

namespace {
/// A SYNTHETIC machine for the search: candidate i truly takes truth[i] ms;
/// every call of the measure function is one run, which drifts all its
/// times (and the baseline beside them) by drift[call % size]; candidate
/// `wrong` computes wrong results.
struct FakeMachine {
  std::vector<double> truth;
  std::vector<double> drift = {1.0, 0.93, 1.07, 0.97, 1.05};
  long wrong = -1;
  bool baselines = true;
  int calls = 0;
  std::vector<std::vector<size_t>> log; // indices per call

  SearchStatus measure(const std::vector<size_t> &indices,
                       std::vector<CandidateRun> &runs, std::string &) {
    const double d = drift[size_t(calls++) % drift.size()];
    log.push_back(indices);
    for (size_t k = 0; k < indices.size(); ++k) {
      KernelResult r;
      r.name = "c" + std::to_string(indices[k]);
      r.implementation = "kgen";
      r.config = {{"target", "sm_90a"}, {"block_m", int(indices[k])},
                  {"emitter_version", 1}};
      r.op = {{"kind", "gemm"}, {"m", 64}};
      if (long(indices[k]) == wrong) {
        r.status = RunStatus::Wrong;
      } else {
        r.status = RunStatus::Ok;
        r.relError = 1e-3;
        SampleStats t;
        t.medianMs = t.q1Ms = t.q3Ms = t.minMs = t.maxMs =
            truth[indices[k]] * d;
        t.samples = 10;
        r.time = t;
      }
      runs[k].result = r;
      if (baselines)
        runs[k].baselineMs = 2.0 * d;
    }
    return SearchStatus::Ok;
  }
  MeasureFn fn() {
    return [this](const std::vector<size_t> &i, std::vector<CandidateRun> &r,
                  std::string &e) { return measure(i, r, e); };
  }
};

TEST(SearchDriverTest, DriftBetweenBatchesDoesNotPickTheWinner) {
  // Candidate 5 is truly fastest (1.00). Batch 0 (candidates 0-3) runs at
  // drift 1.0 and batch 1 (4-7) at 0.93, so raw times would rank 4 (1.02 x
  // 0.93) ahead of 0 (1.03) by more than the truth says; ratios to the
  // baseline beside each run, then paired rounds, give the truth.
  FakeMachine m;
  m.truth = {1.03, 1.05, 1.06, 1.04, 1.02, 1.00, 1.10, 1.09};
  m.wrong = 6;
  SearchOptions o;
  o.batch = 4;
  SearchOutcome out;
  std::string err;
  std::vector<size_t> progressed;
  ASSERT_EQ(searchCandidates(m.truth.size(), o, m.fn(),
                             [&](const std::vector<size_t> &i) {
                               progressed.insert(progressed.end(), i.begin(),
                                                 i.end());
                             },
                             out, err),
            SearchStatus::Ok)
      << err;
  EXPECT_EQ(progressed.size(), 8u);
  EXPECT_EQ(out.measured, 8u);
  ASSERT_TRUE(out.best());
  EXPECT_EQ(*out.best(), 5u);
  // Two batches of 4, then 3 rounds of the 3 finalists, rotated.
  ASSERT_EQ(m.log.size(), 5u);
  EXPECT_EQ(m.log[0], (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(out.finalists, (std::vector<size_t>{5, 4, 0}));
  EXPECT_EQ(m.log[2], (std::vector<size_t>{4, 0, 5}));
  EXPECT_EQ(m.log[3], (std::vector<size_t>{0, 5, 4}));
  // Corrected times are the truth on the baselines' scale (2.0 x median
  // drift / 2.0): ratios kept exactly.
  EXPECT_NEAR(out.correctedMs(4) / out.correctedMs(5), 1.02, 1e-9);
  EXPECT_NEAR(out.correctedMs(1) / out.correctedMs(5), 1.05, 1e-9);
  EXPECT_TRUE(std::isnan(out.correctedMs(6)));

  TuningDb db;
  DeviceInfo device;
  device.name = "NVIDIA H200";
  device.smCount = 132;
  device.runtimeVersion = "13.0";
  addToDb(out, device, "2026-12-01T00:00:00Z", "synthetic", db);
  ASSERT_EQ(db.entries.size(), 1u);
  EXPECT_EQ(db.entries[0].key.emitterVersion, 1);
  EXPECT_EQ(db.entries[0].key.arch, "sm_90a");
  EXPECT_EQ(db.entries[0].candidates.size(), 8u);
  ASSERT_NE(db.entries[0].best(), nullptr);
  EXPECT_EQ(db.entries[0].best()->config["block_m"], 5);
}

TEST(SearchDriverTest, WithoutBaselinesRoundsStillPair) {
  FakeMachine m;
  m.baselines = false;
  m.truth = {1.00, 1.01, 1.02, 1.03, 0.99};
  SearchOptions o;
  SearchOutcome out;
  std::string err;
  ASSERT_EQ(searchCandidates(m.truth.size(), o, m.fn(), nullptr, out, err),
            SearchStatus::Ok);
  EXPECT_FALSE(out.usesBaselines);
  EXPECT_EQ(out.scale(), 1.0);
  ASSERT_TRUE(out.best());
  EXPECT_FALSE(out.finalistRuns.empty());
}

TEST(SearchDriverTest, SlowLaterRoundsMoveNoFinalistPastTheOthers) {
  // Raw times (no baselines); the re-measurement rounds run 30% slow. The
  // finalists stay on the first pass's scale, ahead of candidate 2.
  FakeMachine m;
  m.baselines = false;
  m.truth = {1.00, 1.005, 1.02, 1.03};
  m.drift = {1.0, 1.3, 1.3, 1.3};
  SearchOptions o;
  o.batch = 4;
  o.finalists = 2;
  SearchOutcome out;
  std::string err;
  ASSERT_EQ(searchCandidates(4, o, m.fn(), nullptr, out, err), SearchStatus::Ok);
  EXPECT_EQ(out.finalists, (std::vector<size_t>{0, 1}));
  ASSERT_TRUE(out.best());
  EXPECT_EQ(*out.best(), 0u);
  EXPECT_LT(out.correctedMs(1), out.correctedMs(2));
}

TEST(SearchDriverTest, AFinalistWrongWhenMeasuredAgainIsOut) {
  // Candidate 0 is fastest and right in the first pass, wrong afterwards
  // (a race): it must not win, and the database says it is not correct.
  struct Flaky : FakeMachine {
    SearchStatus measure(const std::vector<size_t> &indices,
                         std::vector<CandidateRun> &runs, std::string &e) {
      wrong = calls > 0 ? 0 : -1;
      return FakeMachine::measure(indices, runs, e);
    }
  } m;
  m.truth = {0.95, 1.00, 1.01, 1.2};
  MeasureFn fn = [&m](const std::vector<size_t> &i,
                      std::vector<CandidateRun> &r, std::string &e) {
    return m.measure(i, r, e);
  };
  SearchOutcome out;
  std::string err;
  ASSERT_EQ(searchCandidates(4, SearchOptions(), fn, nullptr, out, err),
            SearchStatus::Ok);
  ASSERT_TRUE(out.best());
  EXPECT_EQ(*out.best(), 1u);
  EXPECT_TRUE(std::isnan(out.correctedMs(0)));
  TuningDb db;
  addToDb(out, DeviceInfo(), "2026-12-01T00:00:00Z", "synthetic", db);
  ASSERT_EQ(db.entries.size(), 1u);
  const TuningCandidate &c0 = db.entries[0].candidates[0];
  EXPECT_FALSE(c0.correct);
  EXPECT_EQ(c0.status, RunStatus::Wrong);
  EXPECT_EQ(db.entries[0].best()->config["block_m"], 1);
}

TEST(SearchDriverTest, BudgetAndDeviceStopTheSearch) {
  FakeMachine m;
  m.truth = {1.0, 1.1, 1.2};
  SearchOptions o;
  o.maxSeconds = 0;
  SearchOutcome out;
  std::string err;
  EXPECT_EQ(searchCandidates(3, o, m.fn(), nullptr, out, err), SearchStatus::Ok);
  EXPECT_TRUE(out.budgetSpent);
  EXPECT_EQ(out.measured, 0u);
  EXPECT_FALSE(out.best());
  EXPECT_EQ(m.calls, 0);

  MeasureFn none = [](const std::vector<size_t> &, std::vector<CandidateRun> &,
                      std::string &e) {
    e = "no CUDA device";
    return SearchStatus::NoDevice;
  };
  EXPECT_EQ(searchCandidates(3, SearchOptions(), none, nullptr, out, err),
            SearchStatus::NoDevice);
  EXPECT_EQ(err, "no CUDA device");
}
} // namespace
