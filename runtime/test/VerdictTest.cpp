//===- VerdictTest.cpp - a measured result's status, error and rates ------===//

#include "kgen/runtime/Verdict.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace kgen::rt;

namespace {

KernelResult timed(const std::string &name, const std::string &impl, double ms) {
  KernelResult r = newResult(name, impl, nlohmann::json{{"kind", "gemm"}});
  r.status = RunStatus::Ok;
  r.time = summarize({ms, ms, ms});
  return r;
}

TEST(Verdict, RatesAndFractions) {
  KernelResult r = timed("k", "kgen", 2.0); // 2 ms
  Ceilings c;
  c.matmulTflops = 800;
  c.copyGBps = 4000;
  fillRates(r, 1.2e12, 4e9, c);
  EXPECT_DOUBLE_EQ(r.tflops, 600);
  EXPECT_DOUBLE_EQ(r.gbps, 2000);
  EXPECT_DOUBLE_EQ(r.fractionOfMatmulCeiling, 0.75);
  EXPECT_DOUBLE_EQ(r.fractionOfCopyCeiling, 0.5);
  KernelResult untimed = newResult("k", "kgen", nullptr);
  fillRates(untimed, 1e12, 1e9, c);
  EXPECT_EQ(untimed.tflops, 0);
}

TEST(Verdict, BaselineSpeedup) {
  KernelResult kgen = timed("k", "kgen", 1.0);
  const KernelResult base = timed("cublaslt/k", "cublaslt", 1.5);
  linkBaseline(kgen, base);
  EXPECT_EQ(kgen.baseline, "cublaslt/k");
  EXPECT_DOUBLE_EQ(kgen.speedupOverBaseline, 1.5);
  KernelResult wrong = newResult("k", "kgen", nullptr);
  wrong.status = RunStatus::Wrong;
  linkBaseline(wrong, base);
  EXPECT_EQ(wrong.speedupOverBaseline, 0);
}

TEST(Verdict, ExitCodes) {
  KernelResult skipped = newResult("s", "kgen", nullptr);
  EXPECT_EQ(resultsExitCode({timed("a", "kgen", 1), skipped}), 0);
  for (RunStatus bad : {RunStatus::Wrong, RunStatus::CompileFailed,
                        RunStatus::LaunchFailed, RunStatus::Faulted,
                        RunStatus::TimedOut}) {
    KernelResult r = skipped;
    r.status = bad;
    EXPECT_EQ(resultsExitCode({timed("a", "kgen", 1), r}), 1);
  }
}

HostTensor values(ElemType type, const std::vector<double> &v) {
  HostTensor t = makeZeros(type, {static_cast<int64_t>(v.size())});
  for (size_t i = 0; i < v.size(); ++i)
    t.setFromDouble(static_cast<int64_t>(i), v[i]);
  return t;
}

TEST(Verdict, Tolerance) {
  const HostTensor ref = values(ElemType::F32, {1, 2, 3, 4});
  KernelResult r = newResult("k", "kgen", nullptr);
  EXPECT_TRUE(judge(values(ElemType::F32, {1, 2, 3, 4.0001}), ref, 1e-4, r));
  EXPECT_GT(r.relError, 0);
  EXPECT_FALSE(judge(values(ElemType::F32, {1, 2, 3, 5}), ref, 1e-2, r));
  EXPECT_EQ(r.status, RunStatus::Wrong);
  EXPECT_NE(r.reason.find("exceeds the tolerance"), std::string::npos) << r.reason;
}

TEST(Verdict, NanNeverPasses) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  KernelResult r = newResult("k", "kgen", nullptr);
  // An unwritten (NaN-poisoned) element.
  EXPECT_FALSE(judge(values(ElemType::BF16, {1, nan, 3}),
                     values(ElemType::BF16, {1, 2, 3}), 1e-2, r));
  EXPECT_EQ(r.status, RunStatus::Wrong);
  EXPECT_TRUE(std::isinf(r.relError));
  EXPECT_NE(r.reason.find("NaN"), std::string::npos);
  // NaN on both sides still fails.
  KernelResult both = newResult("k", "kgen", nullptr);
  EXPECT_FALSE(judge(values(ElemType::F32, {1, nan}), values(ElemType::F32, {1, nan}),
                     1e-2, both));
  EXPECT_EQ(both.status, RunStatus::Wrong);
}

} // namespace
