//===- CompareTest.cpp - verdicts and causes on synthetic runs ------------===//
//
// Every run here is SYNTHETIC: log-normal samples drawn from a fixed seed.

#include "kgen/runtime/Compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace kgen::rt;

namespace {

struct Draw {
  double kernelMs = 0.25, baselineMs = 0.24;
  double noise = 0.01; // sigma of log time
  size_t samples = 30;
  std::string sha = std::string(64, 'a');
  int registers = 128;
  nlohmann::json config = {{"source", "default"}, {"block_m", 128}};
  std::string device = "NVIDIA H200";
  std::string driver = "13.0";
  RunStatus status = RunStatus::Ok;
};

std::vector<double> draw(std::mt19937_64 &rng, double median, double noise,
                         size_t count) {
  std::normal_distribution<double> gauss(0, noise);
  std::vector<double> xs(count);
  for (double &x : xs)
    x = median * std::exp(gauss(rng));
  return xs;
}

KernelResult timed(const std::string &name, const std::string &impl,
                   std::vector<double> xs) {
  KernelResult r;
  r.name = name;
  r.implementation = impl;
  r.op = {{"kind", "gemm"}, {"m", 4096}};
  r.status = RunStatus::Ok;
  r.time = summarize(xs);
  r.samplesMs = std::move(xs);
  return r;
}

/// One run: a kgen gemm and its cuBLASLt baseline.
ResultsFile makeRun(uint64_t seed, const Draw &d) {
  std::mt19937_64 rng(seed);
  ResultsFile f;
  f.createdAt = "2026-12-01T00:00:00Z";
  f.commit = "c0ffee";
  f.machineId = "m1";
  f.device.name = d.device;
  f.device.smCount = 132;
  f.device.ccMajor = 9;
  f.device.driverVersion = d.driver;
  f.results.push_back(timed("cublaslt_g", "cublaslt", draw(rng, d.baselineMs, d.noise, d.samples)));
  KernelResult k = timed("g", "kgen", draw(rng, d.kernelMs, d.noise, d.samples));
  k.config = d.config;
  k.baseline = "cublaslt_g";
  k.sourceSha256 = d.sha;
  k.resources = ResourceUsage{d.registers, 0, 0, 0, 0, 0};
  if (d.status != RunStatus::Ok) {
    k.status = d.status;
    k.time.reset();
    k.samplesMs.clear();
  }
  f.results.push_back(k);
  return f;
}

const KernelComparison &kernel(const Comparison &c) {
  for (const KernelComparison &k : c.kernels)
    if (k.implementation == "kgen")
      return k;
  ADD_FAILURE() << "no kgen row";
  return c.kernels.front();
}

bool names(const KernelComparison &k, const std::string &what) {
  for (const Cause &c : k.causes)
    if (c.what == what)
      return true;
  return false;
}

// The same build against itself: never regressed, nearly always same.
TEST(CompareTest, NoiseOnlyIsNeverARegression) {
  int same = 0;
  constexpr int kPairs = 200;
  for (int s = 0; s < kPairs; ++s) {
    const Comparison c = compareRuns(makeRun(2 * s + 1, {}), makeRun(2 * s + 2, {}));
    const KernelComparison &k = kernel(c);
    EXPECT_NE(k.verdict, CompareVerdict::Regressed) << "seed " << s;
    EXPECT_NE(k.verdict, CompareVerdict::Improved) << "seed " << s;
    EXPECT_EQ(comparisonExitCode(c), 0);
    same += k.verdict == CompareVerdict::Same;
    ASSERT_TRUE(k.normalized);
  }
  EXPECT_GE(same, kPairs * 95 / 100);
}

// Noise only, but NEW far noisier and with few samples (where an interval
// assuming equal spreads is too narrow): still never a regression.
TEST(CompareTest, NoiseOnlyWithUnequalSpreadIsNeverARegression) {
  Draw noisy;
  noisy.noise = 0.15;
  noisy.samples = 8;
  int called = 0;
  constexpr int kPairs = 200;
  for (int s = 0; s < kPairs; ++s) {
    const KernelComparison k =
        kernel(compareRuns(makeRun(2 * s + 1, {}), makeRun(2 * s + 2, noisy)));
    called += k.verdict == CompareVerdict::Regressed ||
              k.verdict == CompareVerdict::Improved;
  }
  EXPECT_LE(called, kPairs * 2 / 100);
}

TEST(CompareTest, InjectedSlowdownNamesTheChangedSource) {
  Draw slow;
  slow.kernelMs *= 1.10;
  slow.sha = std::string(64, 'b');
  const Comparison c = compareRuns(makeRun(1, {}), makeRun(2, slow));
  const KernelComparison &k = kernel(c);
  ASSERT_EQ(k.verdict, CompareVerdict::Regressed);
  ASSERT_TRUE(k.normalized);
  EXPECT_NEAR(k.normalized->ratio, 1.10, 0.02);
  EXPECT_GT(k.normalized->lower, 1.0);
  ASSERT_FALSE(k.causes.empty());
  EXPECT_EQ(k.causes[0].what, "generated source (sha256)");
  EXPECT_EQ(k.causes[0].before, std::string(12, 'a'));
  EXPECT_EQ(k.causes[0].after, std::string(12, 'b'));
  EXPECT_FALSE(names(k, "registers"));
  EXPECT_EQ(comparisonExitCode(c), 1);
}

TEST(CompareTest, CausesComeInTheIssuesOrder) {
  Draw slow;
  slow.kernelMs *= 1.10;
  slow.registers = 168;
  slow.config = {{"source", "model"}, {"block_m", 64}};
  slow.driver = "13.1";
  ResultsFile base = makeRun(1, {}), now = makeRun(2, slow);
  base.cublasLtVersion = "13.0.0";
  now.cublasLtVersion = "13.1.0";
  const KernelComparison k = kernel(compareRuns(base, now));
  ASSERT_EQ(k.verdict, CompareVerdict::Regressed);
  std::vector<std::string> whats;
  for (const Cause &c : k.causes)
    whats.push_back(c.what);
  EXPECT_EQ(whats, (std::vector<std::string>{"strategy", "strategy source",
                                             "registers", "driver", "cuBLASLt"}));
  EXPECT_EQ(k.causes[1].before, "default");
  EXPECT_EQ(k.causes[1].after, "model");
  EXPECT_EQ(k.causes[2].before, "128");
  EXPECT_EQ(k.causes[2].after, "168");
}

TEST(CompareTest, ARegressionWithoutRecordedCauseHasNone) {
  Draw slow;
  slow.kernelMs *= 1.10;
  const KernelComparison k = kernel(compareRuns(makeRun(1, {}), makeRun(2, slow)));
  EXPECT_EQ(k.verdict, CompareVerdict::Regressed);
  EXPECT_TRUE(k.causes.empty());
}

TEST(CompareTest, ImprovementExitsZero) {
  Draw fast;
  fast.kernelMs *= 0.85;
  const Comparison c = compareRuns(makeRun(1, {}), makeRun(2, fast));
  EXPECT_EQ(kernel(c).verdict, CompareVerdict::Improved);
  EXPECT_EQ(comparisonExitCode(c), 0);
}

// The machine slowed down: kernel and baseline alike. Not a regression of
// the kernel, and the baseline's own change is not counted.
TEST(CompareTest, BaselineDriftCancels) {
  Draw drift;
  drift.kernelMs *= 1.10;
  drift.baselineMs *= 1.10;
  const Comparison c = compareRuns(makeRun(1, {}), makeRun(2, drift));
  const KernelComparison &k = kernel(c);
  EXPECT_EQ(k.verdict, CompareVerdict::Same);
  ASSERT_TRUE(k.baselineRatio);
  EXPECT_NEAR(*k.baselineRatio, 1.10, 0.02);
  EXPECT_NE(k.why.find("the baseline moved too"), std::string::npos) << k.why;
  EXPECT_NEAR(k.raw->ratio, 1.10, 0.02);
  EXPECT_EQ(comparisonExitCode(c), 0);
  for (const KernelComparison &row : c.kernels)
    if (row.implementation == "cublaslt") {
      EXPECT_TRUE(row.isBaseline);
      EXPECT_EQ(row.verdict, CompareVerdict::Regressed);
    }
}

TEST(CompareTest, TooFewSamplesOrTooNoisyIsUnknown) {
  Draw few;
  few.samples = 5;
  EXPECT_EQ(kernel(compareRuns(makeRun(1, few), makeRun(2, few))).verdict,
            CompareVerdict::Unknown);
  Draw noisy;
  noisy.noise = 0.3;
  noisy.samples = 8;
  noisy.kernelMs *= 1.05;
  const KernelComparison k = kernel(compareRuns(makeRun(1, {}), makeRun(2, noisy)));
  EXPECT_EQ(k.verdict, CompareVerdict::Unknown);
  EXPECT_NE(k.why.find("too noisy"), std::string::npos) << k.why;
  // Version 1 results: medians but no samples.
  ResultsFile v1 = makeRun(3, {});
  for (KernelResult &r : v1.results)
    r.samplesMs.clear();
  const KernelComparison old = kernel(compareRuns(v1, makeRun(4, {})));
  EXPECT_EQ(old.verdict, CompareVerdict::Unknown);
  EXPECT_NE(old.why.find("too few timing samples"), std::string::npos);
}

TEST(CompareTest, AnotherDeviceIsNotComparable) {
  Draw other;
  other.device = "NVIDIA A100";
  other.kernelMs *= 2;
  const Comparison c = compareRuns(makeRun(1, {}), makeRun(2, other));
  EXPECT_FALSE(c.comparable);
  for (const KernelComparison &k : c.kernels)
    EXPECT_EQ(k.verdict, CompareVerdict::NotComparable);
  EXPECT_EQ(comparisonExitCode(c), 0);
}

TEST(CompareTest, KernelsInOneRunOnlyAndFailures) {
  ResultsFile base = makeRun(1, {}), now = makeRun(2, {});
  now.results[1].name = "renamed";
  const Comparison c = compareRuns(base, now);
  int onlyNew = 0, onlyBase = 0;
  for (const KernelComparison &k : c.kernels) {
    onlyNew += k.why == "only in NEW";
    onlyBase += k.why == "only in BASE";
  }
  EXPECT_EQ(onlyNew, 1);
  EXPECT_EQ(onlyBase, 1);
  Draw faulted;
  faulted.status = RunStatus::Faulted;
  const KernelComparison k = kernel(compareRuns(makeRun(1, {}), makeRun(2, faulted)));
  EXPECT_EQ(k.verdict, CompareVerdict::Regressed);
  ASSERT_FALSE(k.causes.empty());
  EXPECT_EQ(k.causes[0].what, "status");
  EXPECT_EQ(k.causes[0].after, "faulted");
  // Failing before and after: nothing to say.
  EXPECT_EQ(kernel(compareRuns(makeRun(1, faulted), makeRun(2, faulted))).verdict,
            CompareVerdict::Unknown);
}

TEST(CompareTest, PracticalMinimumGatesSmallChanges) {
  Draw small;
  small.kernelMs *= 1.015; // real (many samples, little noise) but small
  small.samples = 400;
  small.noise = 0.002;
  Draw quiet;
  quiet.samples = 400;
  quiet.noise = 0.002;
  CompareOptions options;
  EXPECT_EQ(kernel(compareRuns(makeRun(1, quiet), makeRun(2, small), options)).verdict,
            CompareVerdict::Same);
  options.threshold = 0.01;
  EXPECT_EQ(kernel(compareRuns(makeRun(1, quiet), makeRun(2, small), options)).verdict,
            CompareVerdict::Regressed);
  EXPECT_EQ(practicalMinimum("gemm"), 0.03);
  EXPECT_EQ(practicalMinimum("moe"), 0.05);
}

TEST(CompareTest, CountedResultsTakeTheLastTimedEntry) {
  ResultsFile f = makeRun(1, {});
  KernelResult again = f.results[1];
  again.samplesMs = {1, 1, 1, 1, 1};
  KernelResult failed = f.results[1];
  failed.status = RunStatus::Faulted;
  f.results.push_back(again);
  f.results.push_back(failed);
  const std::vector<const KernelResult *> counted = countedResults(f);
  ASSERT_EQ(counted.size(), 2u);
  EXPECT_EQ(counted[1], &f.results[2]);
}

TEST(CompareTest, Formats) {
  Draw slow;
  slow.kernelMs *= 1.10;
  slow.sha = std::string(64, 'b');
  Comparison c = compareRuns(makeRun(1, {}), makeRun(2, slow));
  c.baseLabel = "base.json";
  c.newLabel = "new|\x1b[31m.json";
  const std::string text = formatComparisonText(c);
  EXPECT_NE(text.find("REGRESSED      kgen g  +"), std::string::npos) << text;
  EXPECT_NE(text.find("cause? generated source (sha256): aaaaaaaaaaaa -> bbbbbbbbbbbb"),
            std::string::npos) << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_NE(text.find("summary: 1 regressed, 0 improved, 0 same"), std::string::npos);
  const std::string md = formatComparisonMarkdown(c);
  EXPECT_NE(md.find("| regressed | kgen | g |"), std::string::npos) << md;
  EXPECT_NE(md.find("new\\|"), std::string::npos) << md;
  const nlohmann::json j = toJson(c);
  EXPECT_EQ(j["schema"], "kgen.comparison");
  EXPECT_EQ(j["summary"]["regressed"], 1);
  EXPECT_EQ(j["exit_code"], 1);
  EXPECT_EQ(j["kernels"][1]["causes"][0]["what"], "generated source (sha256)");
}

/// The SM clock around each timed loop of a run made by makeRun (MHz,
/// before and after alike), and the kernel's throttle reasons.
ResultsFile &withLoopClocks(ResultsFile &f, int kernelMHz, int baselineMHz,
                            std::vector<std::string> reasons = {}) {
  for (KernelResult &r : f.results) {
    const int mhz = r.implementation == "kgen" ? kernelMHz : baselineMHz;
    r.smClockMHzBefore = r.smClockMHzAfter = mhz;
    r.throttleReasons = r.implementation == "kgen" ? reasons
                                                   : std::vector<std::string>{};
  }
  return f;
}

/// BASE, and NEW with the kernel 10% slower (and `slow`'s changes); the SM
/// clocks their probes read (kHz) as given.
std::pair<ResultsFile, ResultsFile> tenPercentSlower(int baseProbeKHz,
                                                     int newProbeKHz,
                                                     Draw slow = {}) {
  slow.kernelMs *= 1.10;
  std::pair<ResultsFile, ResultsFile> runs{makeRun(1, {}), makeRun(2, slow)};
  runs.first.device.smClockKHz = baseProbeKHz;
  runs.second.device.smClockKHz = newProbeKHz;
  return runs;
}

std::vector<std::string> whats(const KernelComparison &k) {
  std::vector<std::string> out;
  for (const Cause &c : k.causes)
    out.push_back(c.what);
  return out;
}

// 10% slower with its timed loop at a 10% lower SM clock: regressed in
// time (the rules are the time's), the same in cycles, the clock named
// first, from the loop's clocks rather than the probe's.
TEST(CompareTest, ASlowdownThatDisappearsInCyclesIsTheClocks) {
  Draw newDriver;
  newDriver.driver = "13.1";
  for (bool withBaseline : {true, false}) {
    // The probes' clocks differ too: superseded by the loops'.
    auto [base, now] = tenPercentSlower(1980000, 1500000, newDriver);
    withLoopClocks(base, 1980, 1980);
    withLoopClocks(now, 1800, 1980); // 1980 / 1800 = 1.10
    if (!withBaseline)
      for (ResultsFile *f : {&base, &now})
        f->results[1].baseline.clear();
    const Comparison c = compareRuns(base, now);
    const KernelComparison &k = kernel(c);
    EXPECT_EQ(k.normalized.has_value(), withBaseline);
    ASSERT_EQ(k.verdict, CompareVerdict::Regressed);
    ASSERT_TRUE(k.cycles);
    EXPECT_NEAR(k.cycles->ratio, 1.0, 0.02);
    EXPECT_NEAR(k.cycles->ratio, k.decisive()->ratio * 1800 / 1980, 1e-12);
    ASSERT_TRUE(k.cyclesVerdict);
    EXPECT_EQ(*k.cyclesVerdict, CompareVerdict::Same);
    EXPECT_EQ(whats(k), (std::vector<std::string>{"SM clock (MHz)", "driver"}));
    EXPECT_EQ(k.causes[0].before, "1980");
    EXPECT_EQ(k.causes[0].after, "1800");
    EXPECT_NE(k.why.find("same in cycles"), std::string::npos) << k.why;
    EXPECT_NE(k.why.find("the SM clock explains it"), std::string::npos) << k.why;
    EXPECT_EQ(comparisonExitCode(c), 1);
    const nlohmann::json j = toJson(c);
    EXPECT_EQ(j["kernels"][1]["cycles_verdict"], "same");
    EXPECT_NEAR(j["kernels"][1]["cycles"]["ratio"].get<double>(), 1.0, 0.02);
  }
}

// Throttle reasons around NEW's loop that BASE's did not have: named among
// the clocks (gpu_idle is no slowdown); equal clocks, so cycles confirm it.
TEST(CompareTest, NewThrottleReasonsAreNamed) {
  Draw slow;
  slow.kernelMs *= 1.10;
  slow.driver = "13.1";
  ResultsFile base = makeRun(1, {}), now = makeRun(2, slow);
  withLoopClocks(base, 1980, 1980, {"gpu_idle", "sw_power_cap"});
  withLoopClocks(now, 1980, 1980,
                 {"gpu_idle", "sw_power_cap", "sw_thermal_slowdown"});
  const KernelComparison k = kernel(compareRuns(base, now));
  ASSERT_EQ(k.verdict, CompareVerdict::Regressed);
  EXPECT_EQ(whats(k), (std::vector<std::string>{"driver", "throttling"}));
  EXPECT_EQ(k.causes[1].before, "sw_power_cap");
  EXPECT_EQ(k.causes[1].after, "sw_thermal_slowdown");
  EXPECT_EQ(*k.cyclesVerdict, CompareVerdict::Regressed);
  EXPECT_NE(k.why.find("confirmed in cycles"), std::string::npos) << k.why;
  Comparison c = compareRuns(base, now);
  EXPECT_NE(formatComparisonText(c).find(
                "cause? throttling: sw_power_cap -> sw_thermal_slowdown"),
            std::string::npos)
      << formatComparisonText(c);
  // Throttled in both runs alike, or not read in one: nothing named.
  withLoopClocks(base, 1980, 1980, {"sw_power_cap", "sw_thermal_slowdown"});
  EXPECT_FALSE(names(kernel(compareRuns(base, now)), "throttling"));
  base.results[1].throttleReasons.reset();
  EXPECT_FALSE(names(kernel(compareRuns(base, now)), "throttling"));
}

// Equal clocks around the loops: still regressed, in cycles too, and no
// clock named even where the probe's clocks differ.
TEST(CompareTest, ASlowdownAtEqualClocksStaysARegression) {
  auto [base, now] = tenPercentSlower(1980000, 1755000);
  withLoopClocks(base, 1980, 1980);
  withLoopClocks(now, 1980, 1980);
  const KernelComparison k = kernel(compareRuns(base, now));
  EXPECT_EQ(k.verdict, CompareVerdict::Regressed);
  ASSERT_TRUE(k.cycles);
  EXPECT_NEAR(k.cycles->ratio, 1.10, 0.02);
  EXPECT_EQ(*k.cyclesVerdict, CompareVerdict::Regressed);
  EXPECT_TRUE(k.causes.empty()) << k.causes[0].what;
}

// Clocks around the loop in one run only: no cycles, and the probe's clock
// is named as before.
TEST(CompareTest, LoopClocksInOneRunOnlyGiveNoCycles) {
  auto [base, now] = tenPercentSlower(1980000, 1755000);
  withLoopClocks(now, 1755, 1980);
  const KernelComparison k = kernel(compareRuns(base, now));
  EXPECT_EQ(k.verdict, CompareVerdict::Regressed);
  EXPECT_FALSE(k.cycles);
  EXPECT_FALSE(k.cyclesVerdict);
  EXPECT_EQ(whats(k), std::vector<std::string>{"SM clock (MHz)"});
  EXPECT_EQ(k.causes[0].after, "1755");
  // A normalized interval needs the baseline's loop clocks too.
  withLoopClocks(base, 1980, 1980);
  base.results[0].smClockMHzAfter = 0;
  EXPECT_FALSE(kernel(compareRuns(base, now)).cycles);
}

//===----------------------------------------------------------------------===//
// --confirm: what is measured again, in which order, and what it decides
//===----------------------------------------------------------------------===//

TEST(CompareTest, ConfirmPlanTakesRegressedAndUnknownKernels) {
  Draw slow;
  slow.kernelMs *= 1.10;
  Comparison c = compareRuns(makeRun(1, {}), makeRun(2, slow));
  KernelComparison unknown = kernel(c), same = kernel(c);
  unknown.name = "u";
  unknown.verdict = CompareVerdict::Unknown;
  same.name = "s";
  same.verdict = CompareVerdict::Same;
  c.kernels.push_back(unknown);
  c.kernels.push_back(same);
  // The baseline row regressed too (drift): never measured again.
  for (KernelComparison &k : c.kernels)
    if (k.isBaseline)
      k.verdict = CompareVerdict::Regressed;
  const std::vector<ConfirmItem> plan = confirmPlan(c);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].name, "g");
  EXPECT_EQ(plan[0].verdict, CompareVerdict::Regressed);
  EXPECT_EQ(plan[0].rounds, kConfirmRounds);
  EXPECT_EQ(plan[0].threshold, 0.03);
  EXPECT_EQ(plan[1].name, "u");
  EXPECT_EQ(plan[1].rounds, 2 * kConfirmRounds);
}

TEST(CompareTest, ConfirmRoundsAlternateTheOrder) {
  EXPECT_EQ(confirmOrder(0), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(confirmOrder(1), (std::vector<size_t>{1, 0}));
  EXPECT_EQ(confirmOrder(2), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(confirmOrder(7), (std::vector<size_t>{1, 0}));
}

/// `n` rounds, NEW `ratio` times BASE, each round drifting as a whole
/// (the pair moves together) plus a little noise of its own.
std::vector<ConfirmRound> rounds(size_t n, double ratio, uint64_t seed,
                                 double noise = 0.005) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> drift(0, 0.05), own(0, noise);
  std::vector<ConfirmRound> out;
  for (size_t r = 0; r < n; ++r) {
    const double machine = std::exp(drift(rng));
    out.push_back({1.0 * machine * std::exp(own(rng)),
                   ratio * machine * std::exp(own(rng))});
  }
  return out;
}

TEST(CompareTest, ConfirmationDecidesOnPairedRounds) {
  // A real 10% regression survives 5% drift between rounds.
  const Confirmation slow = decideConfirmation(rounds(6, 1.10, 1), 0.03);
  EXPECT_EQ(slow.verdict, CompareVerdict::Regressed) << slow.why;
  ASSERT_TRUE(slow.ratio);
  EXPECT_NEAR(slow.ratio->ratio, 1.10, 0.02);
  EXPECT_EQ(slow.rounds, 6u);
  // No change: same; a real improvement: improved.
  EXPECT_EQ(decideConfirmation(rounds(6, 1.0, 2), 0.03).verdict,
            CompareVerdict::Same);
  EXPECT_EQ(decideConfirmation(rounds(12, 0.85, 3), 0.03).verdict,
            CompareVerdict::Improved);
  // Too noisy within rounds to say.
  const Confirmation noisy = decideConfirmation(rounds(6, 1.0, 8, 0.2), 0.03);
  EXPECT_EQ(noisy.verdict, CompareVerdict::Unknown) << noisy.why;
  // Failed rounds do not count: 5 paired rounds are too few.
  std::vector<ConfirmRound> failing = rounds(6, 1.10, 5);
  failing[2].newMs = std::nan("");
  const Confirmation few = decideConfirmation(failing, 0.03);
  EXPECT_EQ(few.verdict, CompareVerdict::Unknown);
  EXPECT_EQ(few.rounds, 5u);
  EXPECT_NE(few.why.find("too few paired rounds"), std::string::npos) << few.why;
  failing[2].newMs = 0;
  EXPECT_EQ(decideConfirmation(failing, 0.03).rounds, 5u);
}

TEST(CompareTest, ConfirmationOverridesTheVerdictUnlessUnknown) {
  Draw slow;
  slow.kernelMs *= 1.10;
  slow.sha = std::string(64, 'b');
  Comparison c = compareRuns(makeRun(1, {}), makeRun(2, slow));
  KernelComparison *row = nullptr;
  for (KernelComparison &k : c.kernels)
    if (k.implementation == "kgen")
      row = &k;
  ASSERT_NE(row, nullptr);
  KernelComparison kept = *row;
  // Unknown confirmation: the regression stands, with its causes.
  applyConfirmation(kept, decideConfirmation(rounds(3, 1.0, 6), 0.03));
  EXPECT_EQ(kept.verdict, CompareVerdict::Regressed);
  EXPECT_FALSE(kept.causes.empty());
  EXPECT_NE(kept.why.find("--confirm: too few paired rounds"), std::string::npos)
      << kept.why;
  // Noise after all: same, no causes, exit 0.
  applyConfirmation(*row, decideConfirmation(rounds(6, 1.0, 7), 0.03));
  EXPECT_EQ(row->verdict, CompareVerdict::Same);
  EXPECT_TRUE(row->causes.empty());
  EXPECT_NE(row->why.find("--confirm: same over 6 interleaved rounds"),
            std::string::npos) << row->why;
  EXPECT_NE(row->why.find("(was regressed)"), std::string::npos) << row->why;
  EXPECT_EQ(comparisonExitCode(c), 0);
}

} // namespace
