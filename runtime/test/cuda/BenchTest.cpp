//===- BenchTest.cpp - kgen-bench's children on a machine without a GPU ---===//
//
// The host side (verdicts, the protocol, running lists in children) is
// tested in VerdictTest.cpp and ChildReportsTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/cuda/Bench.h"
#include "kgen/runtime/cuda/Device.h"

#include <gtest/gtest.h>

using namespace kgen::rt;

namespace {

bool machineHasGpu() {
  return runIsolated(
             [](int) { return probeDevice(0).status == ProbeStatus::Present ? 0 : 1; },
             60)
      .ok();
}

TEST(BenchChildren, ReportAMissingDeviceThroughTheProtocol) {
  if (machineHasGpu())
    GTEST_SKIP() << "this machine has a GPU: the device check covers the children";
  const ChildOutcome probe = runIsolated(probeChild, 60);
  EXPECT_EQ(probe.exitCode, kNoDeviceExitCode) << probe.error;

  PreparedPackage prepared;
  std::string err;
  ASSERT_TRUE(loadPackage(std::string(KGEN_RUNTIME_TEST_DATA) +
                              "/packages/naive_gemm_f32",
                          prepared.pkg, err))
      << err;
  ASSERT_TRUE(parseGemmOp(prepared.pkg.op, prepared.spec, err)) << err;
  const BenchOptions options;
  const ChildOutcome outcome = runIsolated(
      [&](int fd) { return packageChild(prepared, options, fd); }, 60);
  EXPECT_EQ(outcome.exitCode, 1) << outcome.error;
  std::vector<ResultsFile> fragments;
  ASSERT_TRUE(parseFragments(outcome.output, fragments, err)) << err;
  ASSERT_EQ(fragments.size(), 1u);
  ASSERT_EQ(fragments[0].results.size(), 2u);
  const KernelResult &baseline = fragments[0].results[0];
  EXPECT_EQ(baseline.implementation, "cublaslt");
  EXPECT_EQ(baseline.status, RunStatus::LaunchFailed);
  // The kernel did not run: skipped, saying why, beside its baseline.
  const KernelResult &kernel = fragments[0].results[1];
  EXPECT_EQ(kernel.implementation, "kgen");
  EXPECT_EQ(kernel.status, RunStatus::Skipped);
  EXPECT_EQ(kernel.baseline, baseline.name);
  EXPECT_EQ(kernel.reason.find("not run: opening the device: cudaGetDeviceCount"), 0u)
      << kernel.reason;

  EXPECT_EQ(runIsolated([&](int fd) { return ceilingsChild(options, fd); }, 60).exitCode, 1);
  EXPECT_EQ(runIsolated([&](int fd) { return suiteChild({}, options, fd); }, 60).exitCode, 1);
}

} // namespace
