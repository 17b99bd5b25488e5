//===- ResultsTest.cpp - Tests of the results JSON and its statistics -----===//

#include "kgen/runtime/Results.h"

#include "kgen/runtime/JsonLimits.h"

#include "TempDirTest.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <regex>

#include <sys/stat.h>

using namespace kgen::rt;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

//===----------------------------------------------------------------------===//
// summarize: numpy.percentile(x, q), method="linear": the value at index
// q/100 * (n - 1) of the sorted samples, interpolated linearly.
//===----------------------------------------------------------------------===//

void expectQuartiles(std::vector<double> samples, double q1, double median,
                     double q3) {
  const SampleStats s = summarize(samples);
  EXPECT_DOUBLE_EQ(s.q1Ms, q1);
  EXPECT_DOUBLE_EQ(s.medianMs, median);
  EXPECT_DOUBLE_EQ(s.q3Ms, q3);
  EXPECT_EQ(s.minMs, *std::min_element(samples.begin(), samples.end()));
  EXPECT_EQ(s.maxMs, *std::max_element(samples.begin(), samples.end()));
  EXPECT_EQ(s.samples, static_cast<int64_t>(samples.size()));
  EXPECT_DOUBLE_EQ(s.iqrMs(), q3 - q1);
}

TEST(SummarizeTest, MatchesNumpyLinearPercentiles) {
  expectQuartiles({7}, 7, 7, 7);                     // one sample
  expectQuartiles({2, 1}, 1.25, 1.5, 1.75);          // two
  expectQuartiles({5, 1, 3}, 2, 3, 4);               // odd count, unsorted
  expectQuartiles({1, 2, 3, 4}, 1.75, 2.5, 3.25);    // even count
  expectQuartiles({3, 1, 4, 1, 5}, 1, 3, 4);         // ties, exact indices
  expectQuartiles({90, 0, 10, 20, 30, 40, 50, 60, 70, 80}, 22.5, 45, 67.5);
  // Fractions that binary floating point cannot hold exactly.
  expectQuartiles({0.3, 0.1, 0.7, 0.2, 0.9, 0.4}, 0.225, 0.35, 0.625);
  // Samples of equal value, as a stable kernel gives.
  expectQuartiles({0.5, 0.5, 0.5, 0.5}, 0.5, 0.5, 0.5);
}

TEST(SummarizeTest, EmptyAndNaN) {
  const SampleStats empty = summarize({});
  EXPECT_EQ(empty.samples, 0);
  EXPECT_EQ(empty.medianMs, 0);
  const SampleStats nan = summarize({1, std::nan(""), 3});
  EXPECT_EQ(nan.samples, 3);
  EXPECT_TRUE(std::isnan(nan.medianMs));
  EXPECT_TRUE(std::isnan(nan.q1Ms));
}

//===----------------------------------------------------------------------===//
// JSON forms
//===----------------------------------------------------------------------===//

ResultsFile fullFile() {
  ResultsFile f;
  f.createdAt = "2026-11-29T15:41:56Z";
  f.commit = "0123abcd";
  f.host = "gpu-node-7";
  f.machineId = "0f1e2d3c4b5a6978";
  f.nvrtcVersion = "13.0";
  f.cublasLtVersion = "13.1.0";
  f.device = {"NVIDIA H200", 132, 9, 0, 1980000, 3201000,
              int64_t{60} << 20, int64_t{141} << 30, "13.0", "13.0"};
  f.ceilings = Ceilings{4300.5, 790.25, "bf16 8192x8192x8192 cuBLASLt"};

  KernelResult kgen;
  kgen.name = "gemm_bf16_m4096_n4096_k4096";
  kgen.implementation = "kgen";
  kgen.op = {{"kind", "gemm"}, {"m", 4096}};
  kgen.config = {{"block_m", 128}};
  kgen.status = RunStatus::Ok;
  kgen.time = summarize({0.25, 0.2, 0.3, 0.1});
  kgen.relError = 3.1e-3;
  kgen.tflops = 612.5;
  kgen.gbps = 402.0;
  kgen.fractionOfMatmulCeiling = 0.775;
  kgen.fractionOfCopyCeiling = 0.0935;
  kgen.resources = ResourceUsage{168, 1024, 0, 0, 0, 372};
  kgen.baseline = "cublaslt";
  kgen.speedupOverBaseline = 1.0 / 3; // no short decimal form
  kgen.samplesMs = {0.25, 0.2, 0.3, 0.1};
  kgen.sourceSha256 = std::string(64, 'a');
  kgen.smClockMHzBefore = 1980;
  kgen.smClockMHzAfter = 1965;
  kgen.throttleReasons = std::vector<std::string>{"sw_power_cap"};

  KernelResult baseline;
  baseline.name = "cublaslt";
  baseline.implementation = "cublaslt";
  baseline.op = kgen.op;
  baseline.status = RunStatus::Ok;
  baseline.time = summarize({0.31});

  KernelResult failed;
  failed.name = "candidate_3";
  failed.implementation = "kgen";
  failed.status = RunStatus::Faulted;
  failed.reason = "an illegal memory access was encountered";

  f.results = {kgen, baseline, failed};
  return f;
}

void expectSameStats(const std::optional<SampleStats> &a,
                     const std::optional<SampleStats> &b) {
  ASSERT_EQ(a.has_value(), b.has_value());
  if (!a)
    return;
  EXPECT_EQ(a->medianMs, b->medianMs);
  EXPECT_EQ(a->q1Ms, b->q1Ms);
  EXPECT_EQ(a->q3Ms, b->q3Ms);
  EXPECT_EQ(a->minMs, b->minMs);
  EXPECT_EQ(a->maxMs, b->maxMs);
  EXPECT_EQ(a->samples, b->samples);
}

void expectSameFile(const ResultsFile &a, const ResultsFile &b) {
  EXPECT_EQ(a.createdAt, b.createdAt);
  EXPECT_EQ(a.commit, b.commit);
  EXPECT_EQ(a.host, b.host);
  EXPECT_EQ(a.machineId, b.machineId);
  EXPECT_EQ(a.nvrtcVersion, b.nvrtcVersion);
  EXPECT_EQ(a.cublasLtVersion, b.cublasLtVersion);
  EXPECT_EQ(a.device.name, b.device.name);
  EXPECT_EQ(a.device.smCount, b.device.smCount);
  EXPECT_EQ(a.device.ccMajor, b.device.ccMajor);
  EXPECT_EQ(a.device.ccMinor, b.device.ccMinor);
  EXPECT_EQ(a.device.smClockKHz, b.device.smClockKHz);
  EXPECT_EQ(a.device.memClockKHz, b.device.memClockKHz);
  EXPECT_EQ(a.device.l2Bytes, b.device.l2Bytes);
  EXPECT_EQ(a.device.memoryBytes, b.device.memoryBytes);
  EXPECT_EQ(a.device.driverVersion, b.device.driverVersion);
  EXPECT_EQ(a.device.runtimeVersion, b.device.runtimeVersion);
  ASSERT_EQ(a.ceilings.has_value(), b.ceilings.has_value());
  if (a.ceilings) {
    EXPECT_EQ(a.ceilings->copyGBps, b.ceilings->copyGBps);
    EXPECT_EQ(a.ceilings->matmulTflops, b.ceilings->matmulTflops);
    EXPECT_EQ(a.ceilings->matmulWhat, b.ceilings->matmulWhat);
  }
  ASSERT_EQ(a.results.size(), b.results.size());
  for (size_t i = 0; i < a.results.size(); ++i) {
    const KernelResult &x = a.results[i], &y = b.results[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.implementation, y.implementation);
    EXPECT_EQ(x.op, y.op);
    EXPECT_EQ(x.config, y.config);
    EXPECT_EQ(x.status, y.status);
    EXPECT_EQ(x.reason, y.reason);
    expectSameStats(x.time, y.time);
    EXPECT_EQ(x.relError, y.relError);
    EXPECT_EQ(x.tflops, y.tflops);
    EXPECT_EQ(x.gbps, y.gbps);
    EXPECT_EQ(x.fractionOfMatmulCeiling, y.fractionOfMatmulCeiling);
    EXPECT_EQ(x.fractionOfCopyCeiling, y.fractionOfCopyCeiling);
    ASSERT_EQ(x.resources.has_value(), y.resources.has_value());
    if (x.resources) {
      EXPECT_EQ(toJson(*x.resources), toJson(*y.resources));
    }
    EXPECT_EQ(x.baseline, y.baseline);
    EXPECT_EQ(x.speedupOverBaseline, y.speedupOverBaseline);
    EXPECT_EQ(x.samplesMs, y.samplesMs);
    EXPECT_EQ(x.sourceSha256, y.sourceSha256);
    EXPECT_EQ(x.smClockMHzBefore, y.smClockMHzBefore);
    EXPECT_EQ(x.smClockMHzAfter, y.smClockMHzAfter);
    EXPECT_EQ(x.throttleReasons, y.throttleReasons);
  }
}

// Version 1 files (before samples, source hashes, machine ids and NVRTC
// versions) are still read; the new fields read as unset.
TEST(ResultsJsonTest, ReadsVersion1) {
  json j = toJson(fullFile());
  j["version"] = 1;
  j.erase("machine_id");
  j.erase("nvrtc_version");
  j.erase("cublaslt_version");
  for (json &r : j["results"]) {
    r.erase("samples_ms");
    r.erase("source_sha256");
  }
  ResultsFile back;
  std::string err;
  ASSERT_TRUE(fromJson(j, back, err)) << err;
  EXPECT_EQ(back.machineId, "");
  EXPECT_EQ(back.nvrtcVersion, "");
  ASSERT_EQ(back.results.size(), 3u);
  EXPECT_TRUE(back.results[0].samplesMs.empty());
  EXPECT_EQ(back.results[0].sourceSha256, "");
  ASSERT_TRUE(back.results[0].time);
  EXPECT_EQ(back.results[0].time->medianMs, 0.225);
  // Written back, it is version 2.
  EXPECT_EQ(toJson(back)["version"], 2);
}

TEST(ResultsJsonTest, SamplesAreBoundedWhenWrittenAndRead) {
  ResultsFile f = fullFile();
  std::vector<double> many(2 * kMaxKeptSamples + 1);
  for (size_t i = 0; i < many.size(); ++i)
    many[i] = 1.0 + static_cast<double>(i);
  f.results[0].samplesMs = many;
  const json j = toJson(f);
  const json &written = j["results"][0]["samples_ms"];
  ASSERT_EQ(written.size(), kMaxKeptSamples);
  EXPECT_EQ(written.front(), 1.0);            // the first and the last kept
  EXPECT_EQ(written.back(), many.back());
  EXPECT_EQ(keepSamples({3.0, 1.0, 2.0}), (std::vector<double>{3.0, 1.0, 2.0}));
  json tooMany = j;
  tooMany["results"][0]["samples_ms"].push_back(1.0);
  ResultsFile back;
  std::string err;
  EXPECT_FALSE(fromJson(tooMany, back, err));
  EXPECT_NE(err.find("results[0].samples_ms: holds 1001 samples, more than 1000"),
            std::string::npos)
      << err;
}

TEST(ResultsJsonTest, MachineIdIsStableAndOverridable) {
  ::setenv("KGEN_MACHINE_ID", "test-machine", 1);
  EXPECT_EQ(hostMachineId(), "test-machine");
  ::unsetenv("KGEN_MACHINE_ID");
  const std::string id = hostMachineId();
  EXPECT_EQ(id, hostMachineId());
  if (fs::exists("/etc/machine-id") || fs::exists("/var/lib/dbus/machine-id")) {
    EXPECT_EQ(id.size(), 16u);
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
  }
}

TEST(ResultsJsonTest, RoundTripsThroughText) {
  const ResultsFile original = fullFile();
  // Through text, as a reader of the file sees it.
  const json parsed = json::parse(toJson(original).dump(2));
  ResultsFile back;
  std::string err;
  ASSERT_TRUE(fromJson(parsed, back, err)) << err;
  expectSameFile(original, back);
}

TEST(ResultsJsonTest, SchemaFieldsAndOptionalValues) {
  const json j = toJson(fullFile());
  EXPECT_EQ(j["schema"], "kgen.results");
  EXPECT_EQ(j["version"], 2);
  EXPECT_EQ(j["machine_id"], "0f1e2d3c4b5a6978");
  EXPECT_EQ(j["nvrtc_version"], "13.0");
  EXPECT_EQ(j["cublaslt_version"], "13.1.0");
  EXPECT_EQ(j["device"]["sm_count"], 132);
  EXPECT_EQ(j["ceilings"]["copy_gbps"], 4300.5);
  const json &kgen = j["results"][0];
  EXPECT_EQ(kgen["status"], "ok");
  EXPECT_EQ(kgen["time"]["median_ms"], 0.225);
  EXPECT_EQ(kgen["time"]["samples"], 4);
  EXPECT_EQ(kgen["resources"]["registers"], 168);
  EXPECT_EQ(kgen["samples_ms"], json({0.25, 0.2, 0.3, 0.1}));
  EXPECT_EQ(kgen["source_sha256"], std::string(64, 'a'));
  EXPECT_EQ(kgen["sm_clock_mhz_before"], 1980);
  EXPECT_EQ(kgen["sm_clock_mhz_after"], 1965);
  EXPECT_EQ(kgen["throttle_reasons"], json({"sw_power_cap"}));
  // Not measured: null.
  const json &failed = j["results"][2];
  EXPECT_EQ(failed["status"], "faulted");
  EXPECT_TRUE(failed["time"].is_null());
  EXPECT_TRUE(failed["rel_error"].is_null()); // relError -1: not checked
  EXPECT_TRUE(failed["resources"].is_null());
  EXPECT_TRUE(failed["config"].is_null());
  EXPECT_TRUE(failed["samples_ms"].is_null());
  // Clocks not read around a timed loop: not written.
  EXPECT_FALSE(failed.contains("sm_clock_mhz_before"));
  EXPECT_FALSE(failed.contains("sm_clock_mhz_after"));
  EXPECT_FALSE(failed.contains("throttle_reasons"));
  ResultsFile noCeilings = fullFile();
  noCeilings.ceilings.reset();
  EXPECT_TRUE(toJson(noCeilings)["ceilings"].is_null());
}

TEST(ResultsJsonTest, AbsentOptionalFieldsReadAsUnset) {
  json j = toJson(fullFile());
  j.erase("ceilings");
  j.erase("commit");
  json &r = j["results"][0];
  for (const char *key : {"time", "rel_error", "resources", "config", "op",
                          "reason", "baseline", "speedup_over_baseline",
                          "sm_clock_mhz_before", "sm_clock_mhz_after",
                          "throttle_reasons"})
    r.erase(key);
  ResultsFile back;
  std::string err;
  ASSERT_TRUE(fromJson(j, back, err)) << err;
  EXPECT_FALSE(back.ceilings.has_value());
  EXPECT_EQ(back.commit, "");
  const KernelResult &k = back.results[0];
  EXPECT_FALSE(k.time.has_value());
  EXPECT_EQ(k.relError, -1);
  EXPECT_FALSE(k.resources.has_value());
  EXPECT_TRUE(k.config.is_null());
  EXPECT_EQ(k.baseline, "");
  EXPECT_EQ(k.speedupOverBaseline, 0);
  EXPECT_EQ(k.smClockMHzBefore, 0);
  EXPECT_EQ(k.smClockMHzAfter, 0);
  EXPECT_FALSE(k.throttleReasons.has_value());
}

// The clocks around the timed loop: null reads as not read, an empty list
// of reasons (read, none active) stays distinct from none read.
TEST(ResultsJsonTest, LoopClocksNullOrEmpty) {
  json j = toJson(fullFile());
  j["results"][0]["sm_clock_mhz_before"] = nullptr;
  j["results"][0]["throttle_reasons"] = json::array();
  j["results"][1]["throttle_reasons"] = nullptr;
  ResultsFile back;
  std::string err;
  ASSERT_TRUE(fromJson(j, back, err)) << err;
  EXPECT_EQ(back.results[0].smClockMHzBefore, 0);
  EXPECT_EQ(back.results[0].smClockMHzAfter, 1965);
  ASSERT_TRUE(back.results[0].throttleReasons.has_value());
  EXPECT_TRUE(back.results[0].throttleReasons->empty());
  EXPECT_FALSE(back.results[1].throttleReasons.has_value());
  EXPECT_TRUE(toJson(back)["results"][0]["throttle_reasons"].is_array());
}

// NVML's documented bits (nvmlClocksEventReason*, nvml.h), each alone.
TEST(ThrottleReasonsTest, DecodesNvmlsBits) {
  const std::pair<uint64_t, const char *> documented[] = {
      {0x0000000000000001ULL, "gpu_idle"},
      {0x0000000000000002ULL, "applications_clocks_setting"},
      {0x0000000000000004ULL, "sw_power_cap"},
      {0x0000000000000008ULL, "hw_slowdown"},
      {0x0000000000000010ULL, "sync_boost"},
      {0x0000000000000020ULL, "sw_thermal_slowdown"},
      {0x0000000000000040ULL, "hw_thermal_slowdown"},
      {0x0000000000000080ULL, "hw_power_brake_slowdown"},
      {0x0000000000000100ULL, "display_clock_setting"},
  };
  for (const auto &[bit, name] : documented)
    EXPECT_EQ(decodeThrottleReasons(bit), std::vector<std::string>{name}) << bit;
  EXPECT_TRUE(decodeThrottleReasons(0).empty()); // nvmlClocksEventReasonNone
  // Several at once, in the table's order; bits NVML may add later dropped.
  EXPECT_EQ(decodeThrottleReasons(0x20 | 0x4 | (uint64_t{1} << 40)),
            (std::vector<std::string>{"sw_power_cap", "sw_thermal_slowdown"}));
  EXPECT_EQ(decodeThrottleReasons(0x1ff).size(), 9u);
}

TEST(ThrottleReasonsTest, RecordLoopClocksJoinsBothReads) {
  KernelResult r;
  recordLoopClocks(r, 1980, 1755, uint64_t{0x4}, uint64_t{0x20 | 0x4});
  EXPECT_EQ(r.smClockMHzBefore, 1980);
  EXPECT_EQ(r.smClockMHzAfter, 1755);
  ASSERT_TRUE(r.throttleReasons.has_value());
  EXPECT_EQ(*r.throttleReasons,
            (std::vector<std::string>{"sw_power_cap", "sw_thermal_slowdown"}));
  // One read only: its reasons; none: not read.
  recordLoopClocks(r, 0, 1400, std::nullopt, uint64_t{0x40});
  EXPECT_EQ(r.smClockMHzBefore, 0);
  EXPECT_EQ(*r.throttleReasons, std::vector<std::string>{"hw_thermal_slowdown"});
  recordLoopClocks(r, 0, 0, std::nullopt, std::nullopt);
  EXPECT_FALSE(r.throttleReasons.has_value());
  // Nothing active is an empty list, not "not read".
  recordLoopClocks(r, 1980, 1980, uint64_t{0}, uint64_t{0});
  ASSERT_TRUE(r.throttleReasons.has_value());
  EXPECT_TRUE(r.throttleReasons->empty());
}

TEST(ResultsJsonTest, NonFiniteErrorsSurvive) {
  // A wrong result's error may be infinite (a NaN against a finite
  // reference) or NaN; JSON holds them as strings.
  ResultsFile f = fullFile();
  f.results[0].relError = std::numeric_limits<double>::infinity();
  f.results[1].relError = std::nan("");
  const json j = json::parse(toJson(f).dump());
  EXPECT_EQ(j["results"][0]["rel_error"], "inf");
  EXPECT_EQ(j["results"][1]["rel_error"], "nan");
  ResultsFile back;
  std::string err;
  ASSERT_TRUE(fromJson(j, back, err)) << err;
  EXPECT_EQ(back.results[0].relError, std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(back.results[1].relError));
}

TEST(ResultsJsonTest, LongReasonsAreCutWhenWritten) {
  ResultsFile f = fullFile();
  f.results[2].reason = std::string(3 << 20, 'x'); // a 3 MiB compile log
  ResultsFile back;
  std::string err;
  ASSERT_TRUE(fromJson(json::parse(toJson(f).dump()), back, err)) << err;
  EXPECT_LE(back.results[2].reason.size(), size_t{1} << 20);
  EXPECT_NE(back.results[2].reason.find("(cut: 3145728 bytes in all)"),
            std::string::npos);
}

TEST(ResultsJsonTest, RunStatusNames) {
  for (RunStatus s : {RunStatus::Ok, RunStatus::Wrong, RunStatus::CompileFailed,
                      RunStatus::LaunchFailed, RunStatus::Faulted,
                      RunStatus::TimedOut, RunStatus::Skipped})
    EXPECT_EQ(parseRunStatus(runStatusName(s)), s) << runStatusName(s);
  EXPECT_STREQ(runStatusName(RunStatus::CompileFailed), "compile_failed");
  EXPECT_STREQ(runStatusName(RunStatus::TimedOut), "timed_out");
  EXPECT_EQ(parseRunStatus("OK"), std::nullopt);
}

/// A change to a valid results JSON and a part of the message it gives.
struct Mutation {
  const char *pointer;
  json value; // discarded: remove the field
  const char *expected;
};

TEST(ResultsJsonTest, RefusesMalformedFields) {
  const json removed = json(json::value_t::discarded);
  const Mutation mutations[] = {
      {"/schema", "kgen.kernel-package", "schema: expected \"kgen.results\""},
      {"/schema", removed, "schema: missing"},
      {"/version", 3, "version: expected 1 or 2 (what this reader understands), got 3"},
      {"/version", 0, "version: expected 1 or 2 (what this reader understands), got 0"},
      {"/results/0/samples_ms", "fast", "results[0].samples_ms: expected an array"},
      {"/results/0/samples_ms/1", -0.5, "results[0].samples_ms[1]: expected a finite time >= 0, got -0.5"},
      {"/results/0/samples_ms/1", "inf", "results[0].samples_ms[1]: expected a finite time >= 0, got \"inf\""},
      {"/results/0/samples_ms/1", "x", "results[0].samples_ms[1]: expected a number"},
      {"/results/0/source_sha256", 7, "results[0].source_sha256: expected a string"},
      {"/machine_id", 7, "machine_id: expected a string"},
      {"/version", "1", "version: expected an integer"},
      {"/created_at", 5, "created_at: expected a string"},
      {"/device", removed, "device: missing"},
      {"/device", "H200", "device: expected an object"},
      {"/device/sm_count", -1, "device.sm_count: expected an integer in [0, "},
      {"/device/l2_bytes", 1.5, "device.l2_bytes: expected an integer"},
      {"/device/name", json::array(), "device.name: expected a string"},
      {"/ceilings", 3, "ceilings: expected an object"},
      {"/ceilings/copy_gbps", "fast", "ceilings.copy_gbps: expected a number"},
      {"/results", removed, "results: missing"},
      {"/results", json::object(), "results: expected an array"},
      {"/results/1", "x", "results[1]: expected an object"},
      {"/results/0/status", "great", "results[0].status: unknown status \"great\""},
      {"/results/0/status", removed, "results[0].status: missing"},
      {"/results/0/name", 1, "results[0].name: expected a string"},
      {"/results/0/time/median_ms", "slow", "results[0].time.median_ms: expected a number"},
      {"/results/0/time/samples", -4, "results[0].time.samples"},
      {"/results/0/time", json::array(), "results[0].time: expected an object"},
      {"/results/0/rel_error", true, "results[0].rel_error: expected a number"},
      {"/results/0/tflops", removed, "results[0].tflops: missing"},
      {"/results/0/resources/registers", 300, "results[0].resources.registers: expected an integer in [0, 255]"},
      {"/results/0/resources", 1, "results[0].resources: expected an object"},
      // Values no measurement gives (issue 16): times positive, finite and
      // ordered, at least one sample; rates and fractions finite and >= 0;
      // device fields in range.
      {"/results/0/time/median_ms", -5, "results[0].time.median_ms: expected a finite number > 0, got -5"},
      {"/results/0/time/median_ms", 0, "results[0].time.median_ms: expected a finite number > 0, got 0"},
      {"/results/0/time/median_ms", "nan", "results[0].time.median_ms: expected a finite number > 0, got \"nan\""},
      {"/results/0/time/max_ms", "inf", "results[0].time.max_ms: expected a finite number > 0, got \"inf\""},
      {"/results/0/time/min_ms", -0.5, "results[0].time.min_ms: expected a finite number >= 0"},
      {"/results/0/time/q1_ms", "-inf", "results[0].time.q1_ms: expected a finite number >= 0"},
      {"/results/0/time/samples", 0, "results[0].time.samples: expected an integer in [1, "},
      {"/results/0/time/samples", 2.5, "results[0].time.samples: expected an integer in [1, "},
      {"/results/0/time/max_ms", 0.15, "results[0].time: expected min_ms <= q1_ms <= median_ms <= q3_ms <= max_ms, but max_ms 0.15 < q3_ms"},
      {"/results/0/time/min_ms", 0.3, "results[0].time: expected min_ms <= q1_ms <= median_ms <= q3_ms <= max_ms, but q1_ms"},
      {"/results/0/tflops", -1, "results[0].tflops: expected a finite number >= 0, got -1"},
      {"/results/0/gbps", "-inf", "results[0].gbps: expected a finite number >= 0, got \"-inf\""},
      {"/results/0/gbps", "nan", "results[0].gbps: expected a finite number >= 0"},
      {"/results/0/fraction_of_matmul_ceiling", -0.1, "results[0].fraction_of_matmul_ceiling: expected a finite number >= 0"},
      {"/results/0/speedup_over_baseline", "nan", "results[0].speedup_over_baseline: expected a finite number >= 0"},
      {"/results/0/rel_error", -0.5, "results[0].rel_error: expected a number >= 0, \"inf\" or \"nan\", got -0.5"},
      {"/results/0/rel_error", "-inf", "results[0].rel_error: expected a number >= 0"},
      {"/device/sm_count", 132.5, "device.sm_count: expected an integer in [0, 4096], got 132.5"},
      {"/device/sm_count", int64_t{1} << 62, "device.sm_count: expected an integer in [0, 4096]"},
      {"/device/cc_major", 900, "device.cc_major: expected an integer in [0, 99]"},
      {"/device/sm_clock_khz", -1, "device.sm_clock_khz: expected an integer in [0, "},
      {"/device/memory_bytes", int64_t{1} << 60, "device.memory_bytes: expected an integer in [0, "},
      {"/ceilings/copy_gbps", -1, "ceilings.copy_gbps: expected a finite number >= 0"},
      {"/ceilings/matmul_tflops", "inf", "ceilings.matmul_tflops: expected a finite number >= 0"},
      {"/results/0/name", std::string(70000, 'n'), "results[0].name: is longer than 65536 bytes"},
      {"/results/2/reason", std::string((1 << 20) + 1, 'r'), "results[2].reason: is longer than 1048576 bytes"},
      // The clocks around the timed loop.
      {"/results/0/sm_clock_mhz_before", -1, "results[0].sm_clock_mhz_before: expected an integer in [0, 100000], got -1"},
      {"/results/0/sm_clock_mhz_after", 1965.5, "results[0].sm_clock_mhz_after: expected an integer in [0, 100000]"},
      {"/results/0/sm_clock_mhz_after", "fast", "results[0].sm_clock_mhz_after: expected an integer"},
      {"/results/0/throttle_reasons", "hot", "results[0].throttle_reasons: expected an array of names"},
      {"/results/0/throttle_reasons/0", 32, "results[0].throttle_reasons[0]: expected a string"},
      {"/results/0/throttle_reasons/0", "too_hot", "results[0].throttle_reasons[0]: unknown reason \"too_hot\" (expected gpu_idle "},
      {"/results/0/throttle_reasons", json({"hw_slowdown", "hw_slowdown"}), "results[0].throttle_reasons[1]: reason \"hw_slowdown\" given twice"},
  };
  for (const Mutation &m : mutations) {
    json j = toJson(fullFile());
    const json::json_pointer ptr(m.pointer);
    if (m.value.is_discarded())
      j[ptr.parent_pointer()].erase(ptr.back());
    else
      j[ptr] = m.value;
    ResultsFile out;
    out.host = "untouched";
    std::string err;
    EXPECT_FALSE(fromJson(j, out, err)) << m.pointer;
    EXPECT_NE(err.find(m.expected), std::string::npos)
        << m.pointer << " -> " << err;
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
    EXPECT_EQ(out.host, "untouched");
  }
  ResultsFile out;
  std::string err;
  EXPECT_FALSE(fromJson(json::array(), out, err));
  EXPECT_EQ(err, "(top level): expected an object, got an array");
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

class ResultsFileTest : public kgen::rt::test::TempDirTest {
protected:
  /// readResults on a file expected to be refused; the message is one line
  /// starting with the path.
  std::string expectUnreadable(const std::string &path) {
    ResultsFile out;
    std::string err;
    EXPECT_FALSE(readResults(path, out, err)) << path;
    EXPECT_EQ(err.rfind(path + ": ", 0), 0u) << err;
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
    return err;
  }

};

TEST_F(ResultsFileTest, WritesAndReadsBack) {
  const std::string path = pathOf("results.json");
  std::string err;
  ASSERT_TRUE(writeResults(path, fullFile(), err)) << err;
  ResultsFile back;
  ASSERT_TRUE(readResults(path, back, err)) << err;
  expectSameFile(fullFile(), back);

  // Overwriting replaces the file and leaves nothing else behind.
  ResultsFile second = fullFile();
  second.host = "other";
  ASSERT_TRUE(writeResults(path, second, err)) << err;
  ASSERT_TRUE(readResults(path, back, err)) << err;
  EXPECT_EQ(back.host, "other");
  EXPECT_EQ(listDir(), std::vector<std::string>{"results.json"});
  EXPECT_EQ(readRaw(path).back(), '\n');
}

TEST_F(ResultsFileTest, FailedWritesLeaveTheOldFileAndNoTemporary) {
  std::string err;
  // The folder does not exist: nothing is created.
  const std::string missing = pathOf("no-such-dir/results.json");
  EXPECT_FALSE(writeJsonAtomic(missing, json::object(), err));
  EXPECT_EQ(err.rfind(missing + ": cannot create temporary file", 0), 0u)
      << err;
  EXPECT_EQ(listDir(), std::vector<std::string>{});

  // The target is a non-empty folder: the rename fails after the temporary
  // file was written and synced; it must be gone and the folder intact.
  const std::string target = pathOf("occupied");
  fs::create_directory(target);
  writeRaw("occupied/keep", "x");
  EXPECT_FALSE(writeJsonAtomic(target, json::object(), err));
  EXPECT_EQ(err.rfind(target + ": cannot rename", 0), 0u) << err;
  EXPECT_EQ(listDir(), std::vector<std::string>{"occupied"});
  EXPECT_EQ(readRaw(pathOf("occupied/keep")), "x");
}

TEST_F(ResultsFileTest, InvalidUtf8IsReplacedNotThrown) {
  ResultsFile f = fullFile();
  f.host = "bad\xff" "byte";
  std::string err;
  ASSERT_TRUE(writeResults(pathOf("r.json"), f, err)) << err;
  ResultsFile back;
  ASSERT_TRUE(readResults(pathOf("r.json"), back, err)) << err;
  EXPECT_EQ(back.host, "bad\xEF\xBF\xBD" "byte"); // U+FFFD
}

TEST_F(ResultsFileTest, RefusesUnreadableFiles) {
  EXPECT_NE(expectUnreadable(pathOf("absent.json")).find("No such file"),
            std::string::npos);
  EXPECT_NE(expectUnreadable(dir).find("directory"), std::string::npos);
  EXPECT_NE(expectUnreadable(writeRaw("empty.json", "")).find("empty"),
            std::string::npos);
  EXPECT_NE(expectUnreadable(writeRaw("corrupt.json", "{\"schema\": kgen"))
                .find("not valid JSON"),
            std::string::npos);
  const std::string full = toJson(fullFile()).dump(2);
  EXPECT_NE(expectUnreadable(writeRaw("truncated.json",
                                      full.substr(0, full.size() - 10)))
                .find("not valid JSON"),
            std::string::npos);
  EXPECT_NE(expectUnreadable(writeRaw("binary.json", std::string("\0\x93", 2)))
                .find("not valid JSON"),
            std::string::npos);

  json future = toJson(fullFile());
  future["version"] = kResultsVersion + 1;
  EXPECT_NE(expectUnreadable(writeRaw("v3.json", future.dump()))
                .find("version: expected 1 or 2"),
            std::string::npos);
  json other = toJson(fullFile());
  other["schema"] = "kgen.kernel-package";
  EXPECT_NE(expectUnreadable(writeRaw("other.json", other.dump()))
                .find("schema: expected \"kgen.results\""),
            std::string::npos);

  // Not regular files: refused before reading (a FIFO would block, a
  // device never ends).
  const std::string fifo = pathOf("fifo.json");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(expectUnreadable(fifo).find("is not a regular file"),
            std::string::npos);
  EXPECT_NE(expectUnreadable("/dev/zero").find("is not a regular file"),
            std::string::npos);
  EXPECT_NE(expectUnreadable("/dev/null").find("is not a regular file"),
            std::string::npos);

  // readJson alone: any JSON, but the same file errors.
  json j;
  std::string err;
  EXPECT_TRUE(readJson(writeRaw("any.json", "[1, 2]"), j, err)) << err;
  EXPECT_EQ(j, json({1, 2}));
  EXPECT_FALSE(readJson(pathOf("empty.json"), j, err));
  EXPECT_EQ(err.rfind(pathOf("empty.json") + ": ", 0), 0u) << err;
}

/// `depth` arrays nested in one another: "[[[...]]]".
std::string nestedArrays(size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

/// `depth` objects nested in one another: {"a":{"a":...{}...}}.
std::string nestedObjects(size_t depth) {
  std::string text;
  for (size_t i = 1; i < depth; ++i)
    text += "{\"a\":";
  return text + "{}" + std::string(depth - 1, '}');
}

TEST_F(ResultsFileTest, RefusesDeepNestingNamingTheFile) {
  // 200k levels crashed kgen-bench report (issue 16); the limit stops the
  // parser before anything recursive walks the value.
  for (const std::string &text :
       {nestedArrays(200000), "{\"results\": " + nestedArrays(65) + "}",
        nestedObjects(100000)})
    EXPECT_NE(expectUnreadable(writeRaw("deep.json", text))
                  .find("nested deeper than 64 levels"),
              std::string::npos);
  json j;
  std::string err;
  EXPECT_TRUE(readJson(writeRaw("ok.json", nestedArrays(kMaxJsonDepth)), j, err))
      << err;
  EXPECT_FALSE(readJson(writeRaw("deep.json", nestedArrays(kMaxJsonDepth + 1)),
                        j, err));
  EXPECT_EQ(err, pathOf("deep.json") +
                     ": arrays and objects nested deeper than 64 levels (the "
                     "limit)");
}

TEST_F(ResultsFileTest, RefusesFilesOverTheSizeLimitBeforeReading) {
  const std::string big = pathOf("big.json");
  { std::ofstream(big) << "[]"; }
  fs::resize_file(big, kMaxJsonFileBytes + 1); // sparse: nothing is written
  EXPECT_NE(expectUnreadable(big).find("larger than the limit of 268435456 bytes"),
            std::string::npos);
}

TEST(UtcNowTest, Iso8601Utc) {
  const std::string now = utcNow();
  EXPECT_TRUE(std::regex_match(
      now, std::regex(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)")))
      << now;
  std::tm parsed{};
  ASSERT_NE(::strptime(now.c_str(), "%Y-%m-%dT%H:%M:%SZ", &parsed), nullptr);
  const std::time_t back = ::timegm(&parsed);
  EXPECT_LE(std::abs(std::difftime(std::time(nullptr), back)), 5.0) << now;
}

} // namespace
