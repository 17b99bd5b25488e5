//===- CliTest.cpp - kgen-bench's command line and tables -----------------===//

#include "kgen/runtime/Cli.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

using namespace kgen::rt;

namespace {

bool parse(const std::vector<std::string> &args, CliOptions &o, std::string &err) {
  err.clear();
  return parseCli(args, o, err);
}

TEST(Cli, RunWithEveryOption) {
  CliOptions o;
  std::string err;
  ASSERT_TRUE(parse({"run", "p1", "--out", "r.json", "p2", "--ceilings=c.json",
                     "--timeout", "30", "--seed", "42", "--cache", "/tmp/c",
                     "--min-samples", "5", "--max-samples", "50", "--target-ms",
                     "100"},
                    o, err))
      << err;
  EXPECT_EQ(o.mode, Mode::Run);
  EXPECT_EQ(o.inputs, (std::vector<std::string>{"p1", "p2"}));
  EXPECT_EQ(o.out, "r.json");
  EXPECT_EQ(o.ceilings, "c.json");
  EXPECT_EQ(o.timeoutSeconds, 30);
  EXPECT_EQ(o.seed, 42u);
  EXPECT_EQ(o.cacheDir, "/tmp/c");
  EXPECT_EQ(o.timing.minSamples, 5);
  EXPECT_EQ(o.timing.maxSamples, 50);
  EXPECT_EQ(o.timing.targetMs, 100);
}

TEST(Cli, RunEmulated) {
  CliOptions o;
  std::string err;
  ASSERT_TRUE(parse({"run", "p1", "--emulate", "--out", "r.json", "--seed", "3"},
                    o, err))
      << err;
  EXPECT_EQ(o.mode, Mode::Run);
  EXPECT_TRUE(o.emulate);
  EXPECT_EQ(o.inputs, (std::vector<std::string>{"p1"}));
  // A flag takes no value, and the next argument stays an input.
  ASSERT_TRUE(parse({"run", "--emulate", "p1", "--out", "r.json"}, o, err)) << err;
  EXPECT_EQ(o.inputs, (std::vector<std::string>{"p1"}));
  ASSERT_TRUE(parse({"run", "p1", "--out", "r.json"}, o, err)) << err;
  EXPECT_FALSE(o.emulate);
}

TEST(Cli, Defaults) {
  CliOptions o;
  std::string err;
  ASSERT_TRUE(parse({"ceilings", "--out", "c.json"}, o, err)) << err;
  EXPECT_EQ(o.mode, Mode::Ceilings);
  EXPECT_FALSE(o.seed.has_value());
  EXPECT_EQ(o.timeoutSeconds, 120);
  EXPECT_EQ(o.timing.minSamples, 20);
  EXPECT_EQ(o.timing.maxSamples, 200);
  EXPECT_EQ(o.timing.targetMs, 500);
}

TEST(Cli, CompileAndBaselineAndReport) {
  CliOptions o;
  std::string err;
  ASSERT_TRUE(parse({"compile", "pkg", "--arch", "sm_90a"}, o, err)) << err;
  EXPECT_EQ(o.arch, "sm_90a");
  EXPECT_TRUE(o.out.empty());
  ASSERT_TRUE(parse({"baseline", "--suite", "s.json", "--out", "b.json"}, o, err))
      << err;
  EXPECT_EQ(o.suite, "s.json");
  ASSERT_TRUE(parse({"report", "a.json", "b.json"}, o, err)) << err;
  EXPECT_EQ(o.inputs.size(), 2u);
}

TEST(Cli, Tune) {
  CliOptions o;
  std::string err;
  ASSERT_TRUE(parse({"tune", "c0", "c1", "--db", "db.json", "--out", "r.json",
                     "--max-seconds", "20", "--finalists", "2", "--rounds",
                     "0", "--cache", "/tmp/c", "--target-ms", "100",
                     "--batch", "32"},
                    o, err))
      << err;
  EXPECT_EQ(o.mode, Mode::Tune);
  EXPECT_EQ(o.inputs, (std::vector<std::string>{"c0", "c1"}));
  EXPECT_EQ(o.db, "db.json");
  EXPECT_EQ(o.maxSeconds, 20);
  EXPECT_EQ(o.finalists, 2);
  EXPECT_EQ(o.rounds, 0);
  EXPECT_EQ(o.batch, 32);
  ASSERT_TRUE(parse({"tune", "c0", "--db", "d", "--out", "r"}, o, err)) << err;
  EXPECT_EQ(o.maxSeconds, 60);
  EXPECT_EQ(o.finalists, 3);
  EXPECT_EQ(o.rounds, 3);
  EXPECT_EQ(o.batch, 8);
}

TEST(Cli, Help) {
  CliOptions o;
  std::string err;
  for (const char *word : {"--help", "-h", "help"}) {
    ASSERT_TRUE(parse({word}, o, err)) << word;
    EXPECT_EQ(o.mode, Mode::Help);
  }
  ASSERT_TRUE(parse({"run", "--help"}, o, err));
  EXPECT_EQ(o.mode, Mode::Help);
  EXPECT_NE(std::string(helpText()).find("exit codes"), std::string::npos);
}

TEST(Cli, Errors) {
  CliOptions o;
  std::string err;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{}, "no mode"},
      {{"bench"}, "unknown mode"},
      {{"run", "p"}, "--out is required"},
      {{"run", "--out", "r.json"}, "no package folders"},
      {{"compile", "p", "--timeout", "3"}, "option not taken by compile"},
      {{"compile", "p", "--arch", "90a"}, "bad value"},
      {{"compile", "p", "--frob"}, "unknown option --frob"},
      {{"ceilings", "--out"}, "--out needs a value"},
      {{"ceilings", "--out", "c", "extra"}, "unexpected argument 'extra'"},
      {{"ceilings", "--out", "c", "--timeout", "0"}, "bad value '0' for --timeout"},
      {{"ceilings", "--out", "c", "--timeout", "3s"}, "bad value"},
      {{"ceilings", "--out", "c", "--seed", "-1"}, "bad value"},
      {{"ceilings", "--out", "c", "--min-samples", "0"}, "bad value"},
      {{"ceilings", "--out", "c", "--min-samples", "30", "--max-samples", "10"},
       "--max-samples is below --min-samples"},
      {{"baseline", "--out", "b"}, "--suite is required"},
      {{"report"}, "no results files"},
      {{"tune", "c0", "--out", "r"}, "--db is required"},
      {{"tune", "c0", "--db", "d"}, "--out is required"},
      {{"tune", "--db", "d", "--out", "r"}, "no package folders"},
      {{"tune", "c0", "--db", "d", "--out", "r", "--max-seconds", "0"},
       "bad value '0' for --max-seconds"},
      {{"tune", "c0", "--db", "d", "--out", "r", "--finalists", "0"},
       "bad value"},
      {{"tune", "c0", "--db", "d", "--out", "r", "--batch", "0"},
       "bad value '0' for --batch"},
      {{"run", "c0", "--out", "r", "--db", "d"}, "option not taken by run"},
      {{"run", "c0", "--out", "r", "--emulate=yes"}, "--emulate takes no value"},
      {{"run", "c0", "--out", "r", "--emulate", "--emulate"}, "--emulate given twice"},
      {{"run", "c0", "--out", "r", "--emulate", "--ceilings", "c"},
       "--ceilings has no meaning with --emulate"},
      {{"tune", "c0", "--db", "d", "--out", "r", "--emulate"},
       "option not taken by tune"},
      {{"run", "c0", "--out", "r", "--batch", "4"}, "option not taken by run"},
      // Issue 16: a value that is not what it claims is a usage error, not
      // something passed on (to NVRTC, a timer, a file name).
      {{"compile", "p", "--arch", "sm_90a;rm -rf /"},
       "bad value 'sm_90a;rm -rf /' for --arch (expected sm_ and the compute "
       "capability, such as sm_80 or sm_90a)"},
      {{"compile", "p", "--arch", "sm_90a --include-path=/etc"}, "bad value"},
      {{"compile", "p", "--arch", "sm_"}, "bad value"},
      {{"compile", "p", "--arch", "sm_9"}, "bad value"},
      {{"compile", "p", "--arch", "sm_9000"}, "bad value"},
      {{"compile", "p", "--arch", "compute_90a"}, "bad value"},
      {{"compile", "p", "--arch", "sm_90a", "--arch", "sm_80"}, "--arch given twice"},
      {{"run", "p", "--out", "a", "--out=b"}, "--out given twice"},
      {{"run", "p", "--out", ""}, "bad value '' for --out"},
      {{"baseline", "--suite", "", "--out", "b"}, "bad value '' for --suite"},
      {{"ceilings", "--out", "c", "--timeout", "inf"}, "bad value 'inf' for --timeout"},
      {{"ceilings", "--out", "c", "--timeout", "nan"}, "bad value"},
      {{"ceilings", "--out", "c", "--timeout", "1e300"}, "bad value"},
      {{"ceilings", "--out", "c", "--timeout", "0x10"}, "bad value"},
      {{"ceilings", "--out", "c", "--target-ms", "inf"}, "bad value"},
      {{"ceilings", "--out", "c", "--seed", " -1"}, "bad value ' -1' for --seed"},
      {{"ceilings", "--out", "c", "--seed", "+5"}, "bad value"},
      {{"tune", "c0", "--db", "d", "--out", "r", "--max-seconds", "inf"}, "bad value"},
      {{"tune", "c0", "--db", "d", "--out", "r", "--rounds", " 3"}, "bad value"},
      // Arguments quoted in messages are escaped: one line, no escapes.
      {{"bench\n\x1b[2J"}, "unknown mode 'bench\\x0a\\x1b[2J'"},
      {{"compile", "p", "--fr\nob"}, "unknown option --fr\\x0aob"},
      {{"ceilings", "--out", "c", "x\ny"}, "unexpected argument 'x\\x0ay'"},
      {{"ceilings", "--out", "c", "--timeout", "\x1b[31m"}, "bad value '\\x1b[31m' for --timeout"},
  };
  for (const auto &[args, message] : cases) {
    EXPECT_FALSE(parse(args, o, err)) << message;
    EXPECT_NE(err.find(message), std::string::npos) << err << " / " << message;
    for (char c : err)
      EXPECT_TRUE(c >= 0x20 && c < 0x7f) << err;
  }
}

TEST(Cli, ArchitecturesAccepted) {
  CliOptions o;
  std::string err;
  for (const char *arch : {"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a",
                           "sm_100", "sm_100a", "sm_100f", "sm_120"}) {
    ASSERT_TRUE(parse({"compile", "p", "--arch", arch}, o, err)) << arch << err;
    EXPECT_EQ(o.arch, arch);
  }
}

TEST(Cli, DefaultCacheDir) {
  const char *saved = std::getenv("KGEN_CACHE_DIR");
  setenv("KGEN_CACHE_DIR", "/x/cache", 1);
  EXPECT_EQ(defaultCacheDir(), "/x/cache");
  unsetenv("KGEN_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(defaultCacheDir(), "/xdg/kgen/nvrtc");
  unsetenv("XDG_CACHE_HOME");
  if (saved)
    setenv("KGEN_CACHE_DIR", saved, 1);
}

TEST(Cli, CompileTable) {
  CompileRow ok;
  ok.name = "gemm";
  ok.target = "sm_90a";
  ok.ok = true;
  ok.resources.registers = 168;
  ok.resources.sharedBytes = 1024;
  ok.resources.stackBytes = 16;
  ok.resources.spillStoreBytes = 8;
  ok.resources.spillLoadBytes = 4;
  ok.dynamicSmemBytes = 196608;
  ok.compileMs = 412.4;
  CompileRow bad;
  bad.name = "broken";
  bad.target = "sm_80";
  bad.error = "kernel.cu(3): error: identifier \"x\" is undefined";
  const std::string table = formatCompileTable({ok, bad});
  for (const char *cell : {"168", "1024+196608", "16", "8/4", "412", "miss",
                           "FAILED: kernel.cu(3): error"})
    EXPECT_NE(table.find(cell), std::string::npos) << cell << "\n" << table;
}

TEST(Cli, TablesEscapeWhatFilesSay) {
  // Names and reasons come from results files and packages: an escape
  // sequence must not reach the terminal, a newline must not forge a row.
  KernelResult evil;
  evil.name = "gemm\x1b[2J\nkgen  forged  ok";
  evil.implementation = "kgen\x1b]0;title\x07";
  evil.status = RunStatus::Wrong;
  evil.reason = "line one\nkgen  forged  ok  0.0001\n== other.json: fake\n\x1b[31mred";
  const std::string table = formatResultsTable({evil});
  EXPECT_EQ(table.find('\x1b'), std::string::npos) << table;
  EXPECT_EQ(table.find('\x07'), std::string::npos) << table;
  EXPECT_NE(table.find("gemm\\x1b[2J\\x0akgen  forged  ok"), std::string::npos)
      << table;
  // Every line is the header, a row, or a reason: the first line of a
  // reason after its result's name, the others indented.
  std::vector<std::string> lines;
  for (size_t start = 0, end; start < table.size(); start = end + 1) {
    end = table.find('\n', start);
    lines.push_back(table.substr(start, end - start));
  }
  ASSERT_EQ(lines.size(), 6u) << table;
  EXPECT_EQ(lines[0].rfind("impl", 0), 0u);
  EXPECT_EQ(lines[1].rfind("kgen\\x1b]0;title\\x07  gemm", 0), 0u) << lines[1];
  EXPECT_EQ(lines[2].rfind("  kgen\\x1b]0;title\\x07 gemm", 0), 0u) << lines[2];
  EXPECT_NE(lines[2].find(": line one"), std::string::npos) << lines[2];
  EXPECT_EQ(lines[3], "    kgen  forged  ok  0.0001");
  EXPECT_EQ(lines[4], "    == other.json: fake");
  EXPECT_EQ(lines[5], "    \\x1b[31mred");

  CompileRow bad;
  bad.name = "p\nforged";
  bad.target = "sm_90a";
  bad.error = "kernel.cu(1): error: \x1b[2J";
  const std::string compiled = formatCompileTable({bad});
  EXPECT_EQ(compiled.find('\x1b'), std::string::npos) << compiled;
  EXPECT_NE(compiled.find("p\\x0aforged"), std::string::npos) << compiled;
  EXPECT_EQ(std::count(compiled.begin(), compiled.end(), '\n'), 2) << compiled;
}

TEST(Cli, LongReasonsShowTheirFirstLines) {
  KernelResult failed;
  failed.name = "p";
  failed.implementation = "kgen";
  failed.status = RunStatus::CompileFailed;
  for (int i = 0; i < 30; ++i)
    failed.reason += "error " + std::to_string(i) + "\n";
  const std::string table = formatResultsTable({failed});
  EXPECT_NE(table.find("  kgen p: error 0\n    error 1\n"), std::string::npos)
      << table;
  EXPECT_NE(table.find("    error 19\n    (10 more lines in the results file)\n"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("error 20"), std::string::npos) << table;
}

TEST(Cli, ResultsTable) {
  KernelResult kgen;
  kgen.name = "gemm";
  kgen.implementation = "kgen";
  kgen.status = RunStatus::Ok;
  kgen.time = summarize({1.0, 1.0, 1.2});
  kgen.tflops = 700;
  kgen.gbps = 300;
  kgen.fractionOfMatmulCeiling = 0.9;
  kgen.fractionOfCopyCeiling = 0.07;
  kgen.speedupOverBaseline = 1.05;
  kgen.relError = 2e-3;
  KernelResult wrong;
  wrong.name = "bad";
  wrong.implementation = "kgen";
  wrong.status = RunStatus::Wrong;
  wrong.reason = "relative error 0.5 exceeds the tolerance 0.01";
  wrong.relError = 0.5;
  const std::string table = formatResultsTable({kgen, wrong});
  for (const char *cell : {"1.0000", "700.0", "90.0% mm", "1.05x", "2.00e-03",
                           "wrong", "kgen bad: relative error 0.5"})
    EXPECT_NE(table.find(cell), std::string::npos) << cell << "\n" << table;
}

} // namespace
