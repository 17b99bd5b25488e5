//===- EmulateAttentionVarlenTest.cpp - verifyAttention on packed sequences ===//
//
// emulatePackage on packages/naive_attention_varlen_f32 (one naive SIMT
// kernel of kgen.attention with cu_seqlens: out [Tq, Hq, D], lse [Hq, Tq]):
// the package passes at several seeds, whose cu_seqlens_q and cu_seqlens_k
// (attentionCuSeqlens) cut the tokens differently, and kernels that write
// the lse token-major, align causal top-left or read a sequence's keys at
// its query offsets are found wrong. Until the compiler emits varlen
// packages, this is what shows that the emulated device fills, runs and
// verifies one (the rows of out and the elements of the head-major lse
// that Emulate.cpp compares).
//
//===----------------------------------------------------------------------===//

#include "Emulate.h"

#include "kgen/runtime/Attention.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

namespace {

namespace emu = kgen::emu;
namespace rt = kgen::rt;

/// The package, loaded once.
const rt::KernelPackage &varlenPackage() {
  static const rt::KernelPackage pkg = [] {
    rt::KernelPackage loaded;
    std::string err;
    if (!rt::loadPackage(std::string(KGEN_EMULATE_TEST_PACKAGES) +
                             "/naive_attention_varlen_f32",
                         loaded, err))
      ADD_FAILURE() << err;
    return loaded;
  }();
  return pkg;
}

/// The package run at seed 1 with one line of its kernel changed.
emu::EmulateResult withLine(const std::string &line,
                            const std::string &instead) {
  const rt::KernelPackage &pkg = varlenPackage();
  std::string source = pkg.source;
  const size_t at = source.find(line);
  EXPECT_NE(at, std::string::npos) << line;
  if (at == std::string::npos)
    return {};
  source.replace(at, line.size(), instead);
  const std::filesystem::path mutant =
      std::filesystem::path(testing::TempDir()) / "kgen-varlen-mutant.cu";
  std::ofstream(mutant, std::ios::binary) << source;
  emu::EmulateOptions opts;
  opts.sourceOverride = mutant.string();
  emu::EmulateResult result;
  (void)emu::emulatePackage(pkg, opts, result);
  std::filesystem::remove(mutant);
  return result;
}

TEST(EmulateAttentionVarlen, TheNaivePackagePassesAtEverySeed) {
  const rt::KernelPackage &pkg = varlenPackage();
  rt::AttentionSpec spec;
  std::string err;
  ASSERT_TRUE(rt::parseAttentionOp(pkg.op, spec, err)) << err;
  EXPECT_EQ(rt::attentionBytes(spec), pkg.bytes);
  for (uint64_t seed : {1, 2, 3, 17}) {
    emu::EmulateOptions opts;
    opts.seed = seed;
    emu::EmulateResult r;
    EXPECT_TRUE(emu::emulatePackage(pkg, opts, r))
        << "seed " << seed << ": " << r.error;
    EXPECT_TRUE(r.ran && r.correct);
    EXPECT_LT(r.relError, 1e-5) << "seed " << seed; // f32 sums only
    EXPECT_LT(r.lseMaxAbsError, 1e-5) << "seed " << seed;
    EXPECT_EQ(r.tolerance, 1e-4);
    EXPECT_EQ(r.flops, rt::attentionFlops(spec));
  }
}

TEST(EmulateAttentionVarlen, ATokenMajorLseIsWrong) {
  // out as it should be; the lse at [t, h] instead of [h, t].
  const emu::EmulateResult r =
      withLine("lse[h * TQ + t] =", "lse[t * HQ + h] =");
  EXPECT_TRUE(r.ran);
  EXPECT_FALSE(r.correct);
  EXPECT_LT(r.relError, 1e-5);
  EXPECT_NE(r.error.find("wrong result over 148 of 148 query rows: lse: "),
            std::string::npos)
      << r.error;
}

TEST(EmulateAttentionVarlen, TopLeftCausalOrKeysAtTheQueryOffsetsAreWrong) {
  const std::pair<const char *, const char *> mutants[] = {
      {"const int p = i + skv - sq;", "const int p = i;"},
      {"const int k0 = cu_k[b],", "const int k0 = cu_q[b],"}};
  for (const auto &[line, instead] : mutants) {
    const emu::EmulateResult r = withLine(line, instead);
    EXPECT_TRUE(r.ran) << instead;
    EXPECT_FALSE(r.correct) << instead;
    EXPECT_NE(r.error.find("out: relative error"), std::string::npos)
        << instead << ": " << r.error;
  }
}

} // namespace
