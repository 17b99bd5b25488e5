//===- KgenBenchTest.cpp - kgen-bench and the bench scripts, end to end ---===//
//
// Runs the built kgen-bench binary and the bench/ scripts as a user would.
// Modes that need a GPU are checked for their no-device behaviour; on a
// machine with a GPU those tests are skipped (the device check covers them).
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/Isolate.h"
#include "kgen/runtime/Nvrtc.h"
#include "kgen/runtime/Package.h"
#include "kgen/runtime/Results.h"
#include "kgen/runtime/Sha256.h"
#include "kgen/runtime/Suite.h"
#include "kgen/runtime/cuda/Device.h"
#include "kgen/runtime/cuda/GemmLt.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#ifndef KGEN_BENCH_EXE
#error "KGEN_BENCH_EXE must name the kgen-bench binary"
#endif

using namespace kgen::rt;
using nlohmann::json;

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
  // What kgen-bench compare attributes changes to (docs/performance-history.md).
  KernelPackage pkg;
  ASSERT_TRUE(loadPackage(kNaive, pkg, err)) << err;
  EXPECT_EQ(file.results[0].sourceSha256, pkg.sourceSha256);
  EXPECT_EQ(file.nvrtcVersion, nvrtcVersionString());
  EXPECT_EQ(file.cublasLtVersion, cublasLtVersionString());
  EXPECT_EQ(file.machineId, hostMachineId());
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

// ---------------------------------------------- hostile inputs (issue 16)

/// True when `output` is exactly one line of printable ASCII starting with
/// "kgen-bench: ".
bool isOneSafeLine(const std::string &output) {
  if (output.rfind("kgen-bench: ", 0) != 0 || output.empty() ||
      output.back() != '\n' || output.find('\n') != output.size() - 1)
    return false;
  for (size_t i = 0; i + 1 < output.size(); ++i)
    if (output[i] < 0x20 || output[i] >= 0x7f)
      return false;
  return true;
}

/// A copy of the naive package in `dir`/`name` with `edit` applied to its
/// manifest (the hash is recomputed from `source`, the kernel by default).
std::string hostilePackage(const std::string &dir, const std::string &name,
                           const std::function<void(json &)> &edit,
                           std::optional<std::string> source = std::nullopt) {
  const std::string pkgDir = dir + "/" + name;
  std::filesystem::create_directories(pkgDir);
  std::ifstream in(kNaive + "/manifest.json");
  json manifest = json::parse(in);
  std::ifstream src(kNaive + "/kernel.cu", std::ios::binary);
  const std::string text = source ? *source
                                  : std::string(std::istreambuf_iterator<char>(src), {});
  manifest["source_sha256"] = sha256Hex(text);
  edit(manifest);
  std::ofstream(pkgDir + "/manifest.json") << manifest.dump(2);
  std::ofstream(pkgDir + "/kernel.cu", std::ios::binary) << text;
  return pkgDir;
}

TEST(KgenBench, CompileRefusesHostilePackagesInOneLine) {
  const std::string dir = tempDir();
  const std::string cache = " --cache " + quoted(dir + "/cache");
  // kernel.cu a link to a file outside the package: not followed.
  std::ofstream(dir + "/secret.txt") << "password=hunter2\n";
  const std::string link = hostilePackage(dir, "link", [](json &) {});
  std::filesystem::remove(link + "/kernel.cu");
  std::filesystem::create_symlink(dir + "/secret.txt", link + "/kernel.cu");
  // A NUL byte: NVRTC would compile the text before it only.
  std::ifstream src(kNaive + "/kernel.cu", std::ios::binary);
  const std::string nulSource =
      std::string(std::istreambuf_iterator<char>(src), {}) +
      std::string("\0#include </etc/passwd>\n", 24);
  const std::string nul = hostilePackage(dir, "nul", [](json &) {}, nulSource);
  // 200k levels of nesting in the opaque config: segfaulted (the copy of
  // the value recursed once per level).
  const std::string deep =
      hostilePackage(dir, "deep", [](json &m) { m["config"] = "@deep@"; });
  std::ifstream deepIn(deep + "/manifest.json");
  std::string deepText(std::istreambuf_iterator<char>(deepIn), {});
  deepText.replace(deepText.find("\"@deep@\""), 8,
                   std::string(200000, '[') + std::string(200000, ']'));
  std::ofstream(deep + "/manifest.json", std::ios::trunc) << deepText;
  // Names that would be pasted into source.
  const std::string keyword = hostilePackage(
      dir, "keyword", [](json &m) {
        (m.contains("kernels") ? m["kernels"][0] : m)["entry"] = "__LINE__";
      });
  const std::string injected = hostilePackage(dir, "injected", [](json &m) {
    m["name"] = "gemm\x1b[2J\nkgen-bench: all good";
  });
  const std::pair<std::string, const char *> cases[] = {
      {link, "/kernel.cu: is a symbolic link"},
      {nul, "/kernel.cu: has a NUL byte at offset"},
      {deep, "/manifest.json: arrays and objects nested deeper than 64 levels"},
      {keyword, "entry: expected a C identifier, got \"__LINE__\", which is reserved"},
      {injected, "name: has a control character"},
  };
  for (const auto &[pkg, expected] : cases) {
    const Command r = run(quoted(kBench) + " compile " + quoted(pkg) + cache);
    EXPECT_EQ(r.exitCode, 2) << pkg << "\n" << r.output;
    EXPECT_TRUE(isOneSafeLine(r.output)) << r.output;
    EXPECT_NE(r.output.find(expected), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("hunter2"), std::string::npos) << r.output;
  }
}

TEST(KgenBench, MalformedOptionValuesAreUsageErrors) {
  for (const std::string &args :
       {std::string("compile ") + quoted(kNaive) + " --arch 'sm_90a;rm -rf /'",
        std::string("compile ") + quoted(kNaive) + " --arch sm_90a --arch sm_80",
        std::string("compile ") + quoted(kNaive) + " --arch \"$(printf 'sm_90\\033[2J')\"",
        std::string("run ") + quoted(kNaive) + " --out r.json --timeout inf",
        std::string("ceilings --out c.json --seed ' -1'")}) {
    const Command r = run(quoted(kBench) + " " + args);
    EXPECT_EQ(r.exitCode, 2) << args << "\n" << r.output;
    EXPECT_TRUE(isOneSafeLine(r.output)) << args << "\n" << r.output;
    EXPECT_NE(r.output.find("(kgen-bench --help for usage)"), std::string::npos)
        << r.output;
  }
}

TEST(KgenBench, ReportRefusesHostileFilesInOneLine) {
  const std::string dir = tempDir();
  ASSERT_EQ(mkfifo((dir + "/fifo.json").c_str(), 0600), 0);
  ResultsFile file;
  file.createdAt = "2026-01-01T00:00:00Z";
  KernelResult negative;
  negative.name = "fast";
  negative.implementation = "kgen";
  negative.status = RunStatus::Ok;
  negative.time = summarize({1.0});
  file.results = {negative};
  // 200k levels of nesting in a result's op: segfaulted.
  json deep = toJson(file);
  deep["results"][0]["op"] = "@deep@";
  std::string deepText = deep.dump();
  deepText.replace(deepText.find("\"@deep@\""), 8,
                   std::string(200000, '[') + std::string(200000, ']'));
  std::ofstream(dir + "/deep.json") << deepText;
  json j = toJson(file);
  j["results"][0]["time"]["median_ms"] = -5;
  std::ofstream(dir + "/negative.json") << j.dump();
  const std::pair<std::string, const char *> cases[] = {
      {dir + "/deep.json", "nested deeper than 64 levels"},
      {dir + "/fifo.json", "is not a regular file"},
      {"/dev/zero", "is not a regular file"},
      {dir, "is a directory"},
      {dir + "/negative.json",
       "results[0].time.median_ms: expected a finite number > 0, got -5"},
  };
  for (const auto &[path, expected] : cases) {
    const Command r = run("timeout 30 " + quoted(kBench) + " report " + quoted(path));
    EXPECT_EQ(r.exitCode, 2) << path << "\n" << r.output;
    EXPECT_TRUE(isOneSafeLine(r.output)) << r.output;
    EXPECT_NE(r.output.find(path + ": "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(expected), std::string::npos) << r.output;
  }
}

TEST(KgenBench, ReportEscapesWhatResultsSay) {
  const std::string dir = tempDir();
  ResultsFile file;
  file.createdAt = "2026-01-01T00:00:00Z\x1b[2J";
  file.device.name = "NVIDIA H200\n== forged.json: NVIDIA B200";
  file.device.smCount = 132;
  file.device.driverVersion = "13.0\x1b]0;pwned\x07";
  KernelResult evil;
  evil.name = "gemm\nkgen  faster  ok";
  evil.implementation = "kgen\x1b[31m";
  evil.status = RunStatus::Wrong;
  evil.reason = "wrong\nkgen  gemm  ok  0.0001\x1b[0m";
  file.results = {evil};
  std::string err;
  ASSERT_TRUE(writeResults(dir + "/evil.json", file, err)) << err;
  const Command r = run(quoted(kBench) + " report " + quoted(dir + "/evil.json"));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  for (char c : r.output)
    EXPECT_TRUE(c == '\n' || (c >= 0x20 && c < 0x7f)) << r.output;
  // Only the header starts with "==", only table rows with an
  // implementation name; the reason's second line is indented.
  size_t headers = 0;
  for (size_t start = 0, end; start < r.output.size(); start = end + 1) {
    end = r.output.find('\n', start);
    const std::string line = r.output.substr(start, end - start);
    headers += line.rfind("==", 0) == 0;
    EXPECT_NE(line.rfind("kgen  ", 0), 0u) << line;
  }
  EXPECT_EQ(headers, 1u) << r.output;
  EXPECT_NE(r.output.find("NVIDIA H200\\x0a== forged.json"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("\n    kgen  gemm  ok  0.0001\\x1b[0m\n"),
            std::string::npos)
      << r.output;
}

TEST(KgenBench, CompileOutRemovesTemporariesOfDeadProcesses) {
  // An interrupted kgen-bench left r.json.tmp.<pid>; the next write of a
  // results file beside it removes it.
  const std::string dir = tempDir();
  const pid_t dead = fork();
  if (dead == 0)
    _exit(0);
  waitpid(dead, nullptr, 0);
  const std::string stale = dir + "/r.json.tmp." + std::to_string(dead) + ".0";
  std::ofstream(stale) << "{\"partial\": ";
  const Command r = run(quoted(kBench) + " compile " + quoted(kNaive) + " --cache " +
                        quoted(dir + "/cache") + " --out " + quoted(dir + "/r.json"));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_FALSE(std::filesystem::exists(stale));
  EXPECT_TRUE(std::filesystem::exists(dir + "/r.json"));
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

namespace {

/// The naive attention package with its source edited (`from` replaced by
/// `to`), written to `dir`/`name`.
std::string mutatedAttention(const std::string &dir, const std::string &name,
                             const std::string &from, const std::string &to) {
  KernelPackage pkg;
  std::string err;
  EXPECT_TRUE(loadPackage(kData + "/packages/naive_attention_f32", pkg, err)) << err;
  const size_t at = pkg.source.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  pkg.source.replace(at, from.size(), to);
  pkg.name += "_" + name;
  EXPECT_TRUE(writePackage(dir + "/" + name, pkg, err)) << err;
  return dir + "/" + name;
}

} // namespace

TEST(KgenBench, RunEmulateVerifiesAnAttentionPackage) {
  const std::string dir = tempDir();
  const std::string good = kData + "/packages/naive_attention_f32";
  // Each seed draws other inputs and kv_lens; every one must pass.
  for (const char *seed : {"1", "2", "3"}) {
    const Command r = run(quoted(kBench) + " run --emulate " + quoted(good) +
                          " --seed " + seed + " --out " + quoted(dir + "/ok.json"));
    ASSERT_EQ(r.exitCode, 0) << r.output;
    ResultsFile file;
    std::string err;
    ASSERT_TRUE(readResults(dir + "/ok.json", file, err)) << err;
    ASSERT_EQ(file.results.size(), 1u);
    EXPECT_EQ(file.results[0].status, RunStatus::Ok) << file.results[0].reason;
    EXPECT_LT(file.results[0].relError, 1e-5);
  }
  // Causal aligned top-left instead of bottom-right, and an lse left
  // unwritten: both wrong, the reason saying what.
  const std::string topLeft = mutatedAttention(
      dir, "top_left", "const int p = i + L - Sq;", "const int p = i;");
  const std::string noLse = mutatedAttention(
      dir, "no_lse", "  lse[row] = mx + logf(sum);\n", "");
  for (const auto &[pkgDir, expected] :
       {std::pair<std::string, std::string>{topLeft, "out: relative error"},
        {noLse, "lse: 40 of 40 rows NaN"}}) {
    const Command r = run(quoted(kBench) + " run --emulate " + quoted(pkgDir) +
                          " --seed 1 --out " + quoted(dir + "/bad.json"));
    EXPECT_EQ(r.exitCode, 1) << r.output;
    ResultsFile file;
    std::string err;
    ASSERT_TRUE(readResults(dir + "/bad.json", file, err)) << err;
    ASSERT_EQ(file.results.size(), 1u);
    EXPECT_EQ(file.results[0].status, RunStatus::Wrong);
    EXPECT_NE(file.results[0].reason.find(expected), std::string::npos)
        << file.results[0].reason;
  }
  std::filesystem::remove_all(dir);
}
