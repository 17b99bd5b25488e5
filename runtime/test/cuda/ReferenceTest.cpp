//===- ReferenceTest.cpp - the reference epilogue kernel compiles ---------===//
//
// NVRTC needs no GPU: every element-type combination of the epilogue kernel
// is compiled here for Hopper and Ampere, as kgen-bench does in its parent.
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/PtxasReport.h"
#include "kgen/runtime/cuda/Reference.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace kgen::rt;

namespace {

TEST(ReferenceEpilogue, DefinesFollowTheOp) {
  GemmSpec s;
  s.d = ElemType::F8E4M3FN;
  s.bias = ElemType::BF16;
  EXPECT_EQ(epilogueDefines(s),
            (std::vector<std::string>{"-DKGEN_OUT_T=__nv_fp8_e4m3",
                                      "-DKGEN_C_T=float",
                                      "-DKGEN_BIAS_T=__nv_bfloat16"}));
  EXPECT_NE(std::string(epilogueSource()).find(kEpilogueEntry), std::string::npos);
}

TEST(ReferenceEpilogue, LaunchShape) {
  const LaunchConfig small = epilogueLaunch(10);
  EXPECT_EQ(small.grid[0], 1u);
  EXPECT_EQ(small.block[0], 256u);
  EXPECT_EQ(epilogueLaunch(256 * 100).grid[0], 100u);
  EXPECT_EQ(epilogueLaunch(int64_t{1} << 32).grid[0], 4096u); // grid-stride
}

TEST(ReferenceEpilogue, CompilesForEveryTypeCombination) {
  const ElemType outs[] = {ElemType::F32, ElemType::F16, ElemType::BF16,
                           ElemType::F8E4M3FN};
  const std::optional<ElemType> inputs[] = {std::nullopt, ElemType::F32,
                                            ElemType::F16, ElemType::BF16};
  for (const char *arch : {"sm_90", "sm_80"})
    for (ElemType out : outs)
      for (const std::optional<ElemType> &extra : inputs) {
        GemmSpec s;
        s.d = out;
        s.c = extra;
        s.bias = extra;
        CompileResult result;
        std::string err;
        ASSERT_TRUE(compileEpilogue(s, arch, "", result, err))
            << arch << " " << elemTypeName(out) << ": " << err;
        EXPECT_FALSE(result.cubin.empty());
        EXPECT_EQ(result.resources.spillStoreBytes, 0);
        // The input check's kernel is in the same cubin.
        ResourceUsage differences;
        EXPECT_TRUE(parsePtxasReport(result.log, kDifferencesEntry, differences))
            << result.log;
        EXPECT_EQ(differences.spillStoreBytes, 0);
      }
}

} // namespace
