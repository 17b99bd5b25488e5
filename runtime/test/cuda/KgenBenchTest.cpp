//===- KgenBenchTest.cpp - kgen-bench and the bench scripts, end to end ---===//
//
// Runs the built kgen-bench binary and the bench/ scripts as a user would.
// Modes that need a GPU are checked for their no-device behaviour; on a
// machine with a GPU those tests are skipped (the device check covers them).
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/Isolate.h"
#include "kgen/runtime/Package.h"
#include "kgen/runtime/Results.h"
#include "kgen/runtime/Suite.h"
#include "kgen/runtime/cuda/Device.h"

#include <gtest/gtest.h>

#include <fstream>

#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#ifndef KGEN_BENCH_EXE
#error "KGEN_BENCH_EXE must name the kgen-bench binary"
#endif

using namespace kgen::rt;

namespace {

const std::string kData = KGEN_RUNTIME_TEST_DATA;
const std::string kRoot = kData + "/../../..";
const std::string kBench = KGEN_BENCH_EXE;
const std::string kNaive = kData + "/packages/naive_gemm_f32";

struct Command {
  int exitCode = -1;
  std::string output; // stdout and stderr
};

/// Runs `command` through the shell with stderr merged into stdout.
Command run(const std::string &command) {
  Command r;
  FILE *pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr)
    return r;
  char buf[4096];
  size_t got;
  while ((got = fread(buf, 1, sizeof(buf), pipe)) > 0)
    r.output.append(buf, got);
  const int status = pclose(pipe);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string quoted(const std::string &s) { return "'" + s + "'"; }

std::string tempDir() {
  std::string pattern = ::testing::TempDir() + "kgen-bench-test-XXXXXX";
  return mkdtemp(pattern.data()) ? pattern : "";
}

/// True when this machine has a usable CUDA device (probed in a child, so
/// the test process keeps no CUDA context).
bool machineHasGpu() {
  const ChildOutcome outcome = runIsolated(
      [](int) { return probeDevice(0).status == ProbeStatus::Present ? 0 : 1; },
      60);
  return outcome.ok();
}

#define SKIP_IF_GPU()                                                          \
  if (machineHasGpu())                                                         \
  GTEST_SKIP() << "this machine has a GPU: the device check covers this mode"

TEST(KgenBench, HelpListsModesAndExitCodes) {
  const Command r = run(quoted(kBench) + " --help");
  EXPECT_EQ(r.exitCode, 0);
  for (const char *word : {"run", "compile", "ceilings", "baseline", "tune", "report",
                           "exit codes", "3  no CUDA device", "2  usage"})
    EXPECT_NE(r.output.find(word), std::string::npos) << word;
}

TEST(KgenBench, UsageErrorsExitTwo) {
  EXPECT_EQ(run(quoted(kBench)).exitCode, 2);
  EXPECT_EQ(run(quoted(kBench) + " frobnicate").exitCode, 2);
  EXPECT_EQ(run(quoted(kBench) + " run " + quoted(kNaive)).exitCode, 2); // no --out
  const Command bad = run(quoted(kBench) + " compile " + quoted(kNaive) + " --bogus 1");
  EXPECT_EQ(bad.exitCode, 2);
  EXPECT_NE(bad.output.find("unknown option --bogus"), std::string::npos) << bad.output;
}

TEST(KgenBench, RunCeilingsBaselineTuneWithoutGpuPrintOneLineAndExitThree) {
  SKIP_IF_GPU();
  const std::string dir = tempDir();
  const std::string suite = kRoot + "/bench/suites/gemm.json";
  for (const std::string &args :
       {"run " + quoted(kNaive) + " --out " + quoted(dir + "/r.json"),
        "ceilings --out " + quoted(dir + "/c.json"),
        "baseline --suite " + quoted(suite) + " --out " + quoted(dir + "/b.json"),
        "tune " + quoted(kNaive) + " --db " + quoted(dir + "/db.json") +
            " --out " + quoted(dir + "/t.json")}) {
    const Command r = run(quoted(kBench) + " " + args);
    EXPECT_EQ(r.exitCode, 3) << args << "\n" << r.output;
    EXPECT_EQ(r.output, "kgen-bench: no CUDA device\n") << args;
  }
}

TEST(KgenBench, InputErrorsComeBeforeTheDeviceProbe) {
  const std::string dir = tempDir();
  const Command missing = run(quoted(kBench) + " run " + quoted(dir + "/nothing") +
                          " --out " + quoted(dir + "/r.json"));
  EXPECT_EQ(missing.exitCode, 2) << missing.output;
  EXPECT_NE(missing.output.find("nothing"), std::string::npos) << missing.output;
  const Command badSuite = run(quoted(kBench) + " baseline --suite " +
                           quoted(kNaive + "/manifest.json") + " --out " +
                           quoted(dir + "/b.json"));
  EXPECT_EQ(badSuite.exitCode, 2) << badSuite.output;
  EXPECT_NE(badSuite.output.find("kgen.gemm-suite"), std::string::npos);
}

TEST(KgenBench, TuneRefusesACorruptDatabaseAndMixedOps) {
  const std::string dir = tempDir();
  {
    std::ofstream corrupt(dir + "/db.json");
    corrupt << "{\"schema\": \"kgen.tuning-db\", ";
  }
  const Command bad = run(quoted(kBench) + " tune " + quoted(kNaive) + " --db " +
                          quoted(dir + "/db.json") + " --out " +
                          quoted(dir + "/t.json"));
  EXPECT_EQ(bad.exitCode, 2) << bad.output;
  EXPECT_NE(bad.output.find("not overwritten"), std::string::npos) << bad.output;
  // The same kernel for another op (alpha 2): not comparable.
  KernelPackage other;
  std::string err;
  ASSERT_TRUE(loadPackage(kNaive, other, err)) << err;
  other.op["alpha"] = 2.0;
  ASSERT_TRUE(writePackage(dir + "/other", other, err)) << err;
  const Command mixed = run(quoted(kBench) + " tune " + quoted(kNaive) + " " +
                            quoted(dir + "/other") + " --db " +
                            quoted(dir + "/new.json") + " --out " +
                            quoted(dir + "/t.json"));
  EXPECT_EQ(mixed.exitCode, 2) << mixed.output;
  EXPECT_NE(mixed.output.find("another op"), std::string::npos) << mixed.output;
}

TEST(KgenBench, CompileNaivePackagePrintsResourcesAndWritesResults) {
  const std::string dir = tempDir();
  const std::string cache = dir + "/cache";
  const std::string out = dir + "/compile.json";
  const Command first = run(quoted(kBench) + " compile " + quoted(kNaive) +
                        " --cache " + quoted(cache) + " --out " + quoted(out));
  ASSERT_EQ(first.exitCode, 0) << first.output;
  for (const char *column : {"regs", "smem static+dyn", "stack", "spill st/ld",
                             "compile ms", "cache", "naive_gemm_f32_m64_n48_k32",
                             "sm_80", "miss"})
    EXPECT_NE(first.output.find(column), std::string::npos) << column;
  ResultsFile file;
  std::string err;
  ASSERT_TRUE(readResults(out, file, err)) << err;
  ASSERT_EQ(file.results.size(), 1u);
  EXPECT_EQ(file.results[0].status, RunStatus::Ok);
  ASSERT_TRUE(file.results[0].resources.has_value());
  EXPECT_GT(file.results[0].resources->registers, 0);
  // The registers are printed in the table.
  EXPECT_NE(first.output.find(" " + std::to_string(file.results[0].resources->registers) + " "),
            std::string::npos)
      << first.output;

  const Command again = run(quoted(kBench) + " compile " + quoted(kNaive) +
                        " --arch sm_90a --cache " + quoted(cache));
  EXPECT_EQ(again.exitCode, 0) << again.output;
  EXPECT_NE(again.output.find("sm_90a"), std::string::npos);
  const Command hit = run(quoted(kBench) + " compile " + quoted(kNaive) + " --cache " +
                      quoted(cache));
  EXPECT_NE(hit.output.find("hit"), std::string::npos) << hit.output;
}

TEST(KgenBench, CompileMissingPackageExitsTwo) {
  const Command r = run(quoted(kBench) + " compile " + quoted(kData + "/packages/no_such"));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("no_such"), std::string::npos) << r.output;
}

TEST(KgenBench, ReportReadsResultsFiles) {
  const std::string dir = tempDir();
  const std::string out = dir + "/compile.json";
  ASSERT_EQ(run(quoted(kBench) + " compile " + quoted(kNaive) + " --cache " +
                quoted(dir) + " --out " + quoted(out)).exitCode, 0);
  const Command r = run(quoted(kBench) + " report " + quoted(out));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("naive_gemm_f32_m64_n48_k32"), std::string::npos);
  EXPECT_EQ(run(quoted(kBench) + " report " + quoted(dir + "/none.json")).exitCode, 2);
}

// ------------------------------------------------------------ bench scripts

TEST(BenchScripts, ShellSyntax) {
  for (const char *script : {"device-check.sh", "prepare-device-check.sh"}) {
    const Command r = run("bash -n " + quoted(kRoot + "/bench/" + script));
    EXPECT_EQ(r.exitCode, 0) << script << "\n" << r.output;
  }
}

TEST(BenchScripts, DeviceCheckStopsEarlyWithoutGpu) {
  SKIP_IF_GPU();
  const std::string dir = tempDir();
  const Command r = run("timeout 60 bash " + quoted(kRoot + "/bench/device-check.sh") +
                    " --out " + quoted(dir + "/out") + " --build " +
                    quoted(dir + "/build"));
  EXPECT_EQ(r.exitCode, 3) << r.output;
  EXPECT_NE(r.output.find("no CUDA device"), std::string::npos) << r.output;
}

TEST(BenchScripts, DeviceCheckRejectsUnknownArguments) {
  const Command r = run("bash " + quoted(kRoot + "/bench/device-check.sh") + " --frob");
  EXPECT_EQ(r.exitCode, 2) << r.output;
}

bool havePython() { return run("python3 --version").exitCode == 0; }

TEST(BenchScripts, TorchBaselinesWritesTheResultsSchema) {
  if (!havePython())
    GTEST_SKIP() << "no python3";
  const std::string dir = tempDir();
  const std::string script = kRoot + "/bench/torch_baselines.py";
  ASSERT_EQ(run("python3 -m py_compile " + quoted(script)).exitCode, 0);
  const std::string doc = dir + "/torch.json";
  const Command self = run("python3 " + quoted(script) + " --self-test-json " + quoted(doc));
  ASSERT_EQ(self.exitCode, 0) << self.output;
  ResultsFile file;
  std::string err;
  ASSERT_TRUE(readResults(doc, file, err)) << err;
  ASSERT_FALSE(file.results.empty());
  EXPECT_EQ(file.results.front().implementation, "torch");
  EXPECT_TRUE(file.results.front().time.has_value());
  EXPECT_EQ(file.results.back().status, RunStatus::Wrong);
  EXPECT_TRUE(std::isinf(file.results.back().relError));
}

TEST(BenchScripts, TorchBaselinesExpandsTheSuiteLikeKgenBench) {
  if (!havePython())
    GTEST_SKIP() << "no python3";
  const std::string suitePath = kRoot + "/bench/suites/gemm.json";
  const Command r = run("cd " + quoted(kRoot + "/bench") +
                    " && python3 -c 'import json, torch_baselines as t; "
                    "[print(s[\"name\"]) for s in t.gemm_shapes(t.load_suite(\"" +
                    suitePath + "\"))]'");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  GemmSuite suite;
  std::string err;
  ASSERT_TRUE(loadGemmSuite(suitePath, suite, err)) << err;
  std::string expected;
  for (const SuiteShape &shape : distinctShapes(suite.shapes))
    expected += shape.name + "\n";
  EXPECT_EQ(r.output, expected);
}

TEST(BenchScripts, SummarizePrintsTables) {
  if (!havePython())
    GTEST_SKIP() << "no python3";
  const std::string dir = tempDir();
  ASSERT_EQ(run("python3 " + quoted(kRoot + "/bench/torch_baselines.py") +
                " --self-test-json " + quoted(dir + "/baseline-torch.json")).exitCode,
            0);
  ASSERT_EQ(run(quoted(kBench) + " compile " + quoted(kNaive) + " --cache " +
                quoted(dir) + " --out " + quoted(dir + "/kgen.json")).exitCode, 0);
  const Command r = run("python3 " + quoted(kRoot + "/bench/summarize.py") + " " +
                    quoted(dir));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("naive_gemm_f32_m64_n48_k32"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("toy/sdpa decode b=1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("not ok:"), std::string::npos) << r.output;
}

} // namespace
