//===- PtxasReportTest.cpp - Tests of the ptxas resource-report parser ----===//
//
// On logs captured from NVRTC and nvcc of CUDA 13.0 (runtime/test/data/ptxas).
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/PtxasReport.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

using namespace kgen::rt;

namespace {

const std::string kData = KGEN_RUNTIME_TEST_DATA;

std::string readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

ResourceUsage parseLog(const std::string &file, const std::string &entry) {
  ResourceUsage usage;
  usage.registers = -1;
  EXPECT_TRUE(parsePtxasReport(readText(kData + "/ptxas/" + file), entry, usage))
      << file << " " << entry;
  return usage;
}

TEST(PtxasReportTest, PicksTheRightKernel) {
  // sm_80 reports cmem[0]; the three kernels come in reverse order.
  ResourceUsage k2 = parseLog("nvrtc_sm80_three_kernels.log", "k2");
  EXPECT_EQ(k2.registers, 20);
  EXPECT_EQ(k2.stackBytes, 16384);
  EXPECT_EQ(k2.sharedBytes, 1024);
  EXPECT_EQ(k2.constantBytes, 364);
  EXPECT_EQ(k2.spillStoreBytes, 0);
  ResourceUsage k1 = parseLog("nvrtc_sm80_three_kernels.log", "k1");
  EXPECT_EQ(k1.registers, 8);
  EXPECT_EQ(k1.stackBytes, 0);
  EXPECT_EQ(k1.sharedBytes, 0);
  EXPECT_EQ(k1.constantBytes, 360);
  // A C++ kernel appears under its mangled name.
  EXPECT_EQ(parseLog("nvrtc_sm80_three_kernels.log", "_Z2k3Pf").registers, 8);

  // sm_90a reports no cmem line.
  ResourceUsage h2 = parseLog("nvrtc_sm90a_three_kernels.log", "k2");
  EXPECT_EQ(h2.registers, 18);
  EXPECT_EQ(h2.sharedBytes, 1024);
  EXPECT_EQ(h2.constantBytes, 0);
}

TEST(PtxasReportTest, ReadsSpillsAndStack) {
  ResourceUsage s = parseLog("nvrtc_sm80_spills.log", "spilly");
  EXPECT_EQ(s.registers, 24);
  EXPECT_EQ(s.stackBytes, 64);
  EXPECT_EQ(s.spillStoreBytes, 120);
  EXPECT_EQ(s.spillLoadBytes, 116);
  EXPECT_EQ(s.constantBytes, 372);

  // The properties of a non-inlined device function, printed after the
  // kernel's report, are not the kernel's.
  ResourceUsage k1 = parseLog("nvrtc_sm90a_noinline_helper.log", "k1");
  EXPECT_EQ(k1.registers, 19);
  EXPECT_EQ(k1.stackBytes, 256);
  ResourceUsage k4 = parseLog("nvrtc_sm90a_noinline_helper.log", "k4");
  EXPECT_EQ(k4.registers, 64);
  EXPECT_EQ(k4.stackBytes, 384);
}

TEST(PtxasReportTest, NvccWithTwoArchitecturesGivesTheLastReport) {
  ResourceUsage s = parseLog("nvcc_two_archs.log", "scale");
  EXPECT_EQ(s.registers, 10);
  EXPECT_EQ(s.sharedBytes, 256);
  EXPECT_EQ(s.constantBytes, 0); // the sm_90a report, which has no cmem
}

TEST(PtxasReportTest, MissingKernelLeavesUsageAlone) {
  ResourceUsage usage;
  usage.registers = 77;
  const std::string log = readText(kData + "/ptxas/nvrtc_sm80_three_kernels.log");
  EXPECT_FALSE(parsePtxasReport(log, "k", usage)); // a prefix of k1
  EXPECT_FALSE(parsePtxasReport(log, "k3", usage)); // mangled as _Z2k3Pf
  EXPECT_FALSE(parsePtxasReport(log, "", usage));
  EXPECT_FALSE(parsePtxasReport("", "k1", usage));
  EXPECT_FALSE(parsePtxasReport("garbage\n\n\x01", "k1", usage));
  // A function that only has properties (a device function) is no kernel.
  EXPECT_FALSE(parsePtxasReport(
      readText(kData + "/ptxas/nvrtc_sm90a_noinline_helper.log"),
      "_Z6helperPfi", usage));
  EXPECT_EQ(usage.registers, 77);
}

} // namespace
