//===- EmulateMoeTest.cpp - verifyMoe on a hand-written moe package -------===//
//
// emulatePackage on packages/naive_moe_bf16 (six naive SIMT kernels of
// kgen.moe's decomposition: route, offsets, permute, gate_up, down,
// combine): the package passes at several seeds, and mutations of its
// source are found wrong (y, or the routing workspace expert_ids alone),
// and moeTolerance accepts an intermediate off by u / 2, not one off by 8 u. Until the compiler emits moe packages, this is what shows
// that the emulated device fills, runs and verifies one.
//
//===----------------------------------------------------------------------===//

#include "Emulate.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

using kgen::emu::EmulateOptions;
using kgen::emu::EmulateResult;
using kgen::emu::emulatePackage;
using kgen::rt::KernelPackage;

const std::string kPackage =
    std::string(KGEN_EMULATE_TEST_PACKAGES) + "/naive_moe_bf16";

KernelPackage load() {
  KernelPackage pkg;
  std::string err;
  EXPECT_TRUE(kgen::rt::loadPackage(kPackage, pkg, err)) << err;
  return pkg;
}

/// Runs the package with its source edited (`from` replaced by `to`).
EmulateResult runMutated(const KernelPackage &pkg, const std::string &from,
                         const std::string &to) {
  std::string source = pkg.source;
  const size_t at = source.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos)
    source.replace(at, from.size(), to);
  const std::string path = testing::TempDir() + "kgen-moe-mutant.cu";
  std::ofstream(path, std::ios::binary) << source;
  EmulateOptions opts;
  opts.sourceOverride = path;
  EmulateResult result;
  (void)emulatePackage(pkg, opts, result);
  std::filesystem::remove(path);
  return result;
}

TEST(EmulateMoe, TheNaivePackagePassesAtEverySeed) {
  const KernelPackage pkg = load();
  for (uint64_t seed : {1, 2, 3, 17}) {
    EmulateOptions opts;
    opts.seed = seed;
    EmulateResult r;
    EXPECT_TRUE(emulatePackage(pkg, opts, r)) << r.error;
    EXPECT_TRUE(r.ran && r.correct);
    EXPECT_LT(r.relError, 2e-3) << "seed " << seed; // rare rounding flips only
    EXPECT_NEAR(r.tolerance, 3.0 / 256 + 1e-4, 1e-9);
    EXPECT_EQ(r.flops, 103680);
  }
}

TEST(EmulateMoe, WeightsNotRenormalisedAreWrong) {
  const EmulateResult r = runMutated(load(), "weights[t * K + s] /= total;", ";");
  EXPECT_TRUE(r.ran);
  EXPECT_FALSE(r.correct);
  EXPECT_NE(r.error.find("wrong result over 9 of 9 tokens: y: relative error"),
            std::string::npos) << r.error;
}

TEST(EmulateMoe, ATransposedDownProjectionIsWrong) {
  // w_down read as [E, H, I]: the shapes allow it (H * I elements per
  // expert), the values do not.
  const EmulateResult r = runMutated(load(), "w_down[(e * I + i) * H + n]",
                                     "w_down[(e * H + n) * I + i]");
  EXPECT_TRUE(r.ran);
  EXPECT_FALSE(r.correct);
  EXPECT_NE(r.error.find("y: relative error"), std::string::npos) << r.error;
}

TEST(EmulateMoe, SlotsInAscendingOrderAreFoundByTheRoutingCheck) {
  // The weakest expert first: y is the same sum in another order (within
  // the tolerance), only expert_ids shows it.
  const EmulateResult r =
      runMutated(load(), "(p[e] > bestP || best < 0)", "(p[e] < bestP || best < 0)");
  EXPECT_TRUE(r.ran);
  EXPECT_FALSE(r.correct);
  EXPECT_NE(r.error.find("tokens routed differently; token 0: ["),
            std::string::npos) << r.error;
}

TEST(EmulateMoe, TheToleranceAcceptsHalfAUnitRoundoffAndRefusesEight) {
  // Every activation a scaled by 1 + 2^-9 (u / 2 in bf16: an intermediate
  // as far from the op's as a kernel rounding elsewhere may be) passes;
  // scaled by 1 + 2^-5 (8 u, a systematic error) it does not.
  const KernelPackage pkg = load();
  const std::string from = "h[r * I + i] = __float2bfloat16_rn(act * u);";
  const EmulateResult close = runMutated(
      pkg, from, "h[r * I + i] = __float2bfloat16_rn(act * u * (1.0f + 1.0f / 512));");
  EXPECT_TRUE(close.correct) << close.error;
  EXPECT_GT(close.relError, 5e-4);
  EXPECT_LT(close.relError, close.tolerance);
  const EmulateResult far = runMutated(
      pkg, from, "h[r * I + i] = __float2bfloat16_rn(act * u * (1.0f + 1.0f / 32));");
  EXPECT_FALSE(far.correct);
  EXPECT_GT(far.relError, far.tolerance);
}

} // namespace
