//===- ArchTest.cpp - CUDA architecture names and version numbers ---------===//

#include "kgen/runtime/Arch.h"

#include <gtest/gtest.h>

using namespace kgen::rt;

namespace {

DeviceInfo device(int major, int minor) {
  DeviceInfo info;
  info.name = "test";
  info.ccMajor = major;
  info.ccMinor = minor;
  return info;
}

TEST(Arch, Versions) {
  EXPECT_EQ(formatCudaVersion(13000), "13.0");
  EXPECT_EQ(formatCudaVersion(12080), "12.8");
  EXPECT_EQ(deviceArch(device(9, 0)), "sm_90");
  EXPECT_EQ(deviceArch(device(10, 0)), "sm_100");
}

TEST(Arch, RunArch) {
  const DeviceInfo h200 = device(9, 0);
  EXPECT_EQ(runArch("sm_90a", h200), "sm_90a");
  EXPECT_EQ(runArch("sm_90", h200), "sm_90");
  EXPECT_EQ(runArch("sm_80", h200), "sm_90"); // sm_80 SASS does not run on 9.0
  EXPECT_EQ(runArch("sm_100a", h200), std::nullopt);
  EXPECT_EQ(runArch("sm_100", h200), std::nullopt);
  EXPECT_EQ(runArch("sm_80", device(8, 9)), "sm_80"); // same major, newer minor
  EXPECT_EQ(runArch("sm_89", device(8, 0)), std::nullopt);
  EXPECT_EQ(runArch("sm_90a", device(10, 0)), std::nullopt);
  EXPECT_EQ(runArch("sm_100a", device(10, 0)), "sm_100a");
  EXPECT_EQ(runArch("compute_90", h200), std::nullopt);
  EXPECT_EQ(runArch("sm_", h200), std::nullopt);
  EXPECT_EQ(runArch("sm_9x", h200), std::nullopt);
}

} // namespace
