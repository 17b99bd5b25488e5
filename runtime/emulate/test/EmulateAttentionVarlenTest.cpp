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
// The same for packages/naive_attention_varlen_paged_f32 (the queries
// packed, the keys in a paged cache [N, Hkv, P, D] read through
// block_table [B, M], cu_seqlens_k counting each sequence's keys): it
// passes at several seeds, whose key counts (attentionPagedCuSeqlensK)
// and tables (attentionVarlenBlockTable) differ, and kernels that align
// causal top-left, read sequence 0's pages for every sequence or read the
// keys past a sequence's count in its last page are found wrong.
//
//===----------------------------------------------------------------------===//

#include "Emulate.h"

#include "kgen/runtime/Attention.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>

namespace {

namespace emu = kgen::emu;
namespace rt = kgen::rt;

constexpr const char *kVarlen = "naive_attention_varlen_f32";
constexpr const char *kVarlenPaged = "naive_attention_varlen_paged_f32";

/// The package in packages/`name`, loaded once.
const rt::KernelPackage &varlenPackage(const std::string &name = kVarlen) {
  static std::map<std::string, rt::KernelPackage> loaded;
  auto it = loaded.find(name);
  if (it == loaded.end()) {
    rt::KernelPackage pkg;
    std::string err;
    if (!rt::loadPackage(std::string(KGEN_EMULATE_TEST_PACKAGES) + "/" + name,
                         pkg, err))
      ADD_FAILURE() << err;
    it = loaded.emplace(name, std::move(pkg)).first;
  }
  return it->second;
}

/// The package `name` run at seed 1 with one line of its kernel changed.
emu::EmulateResult withLine(const std::string &line, const std::string &instead,
                            const std::string &name = kVarlen) {
  const rt::KernelPackage &pkg = varlenPackage(name);
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

/// emulatePackage passes `pkg` at several seeds, within f32's sums.
void expectPassesAtEverySeed(const rt::KernelPackage &pkg) {
  rt::AttentionSpec spec;
  std::string err;
  ASSERT_TRUE(rt::parseAttentionOp(pkg.op, spec, err)) << err;
  EXPECT_EQ(rt::attentionBytes(spec), pkg.bytes);
  EXPECT_EQ(rt::attentionFlops(spec), pkg.flops);
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

TEST(EmulateAttentionVarlen, TheNaivePackagePassesAtEverySeed) {
  expectPassesAtEverySeed(varlenPackage());
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

TEST(EmulateAttentionVarlenPaged, TheNaivePackagePassesAtEverySeed) {
  const rt::KernelPackage &pkg = varlenPackage(kVarlenPaged);
  rt::AttentionSpec spec;
  std::string err;
  ASSERT_TRUE(rt::parseAttentionOp(pkg.op, spec, err)) << err;
  ASSERT_TRUE(spec.varlen && spec.paged);
  expectPassesAtEverySeed(pkg);
}

TEST(EmulateAttentionVarlenPaged,
     TopLeftCausalOtherPagesOrKeysPastTheCountAreWrong) {
  const std::pair<const char *, const char *> mutants[] = {
      {"const int p = (t - cu_q[b]) + skv - (cu_q[b + 1] - cu_q[b]);",
       "const int p = t - cu_q[b];"},
      {"const int page = bt[b * M + j / P];", "const int page = bt[j / P];"},
      {"const int skv = ke - ks < M * P ? ke - ks : M * P;",
       "const int skv = (ke - ks + P - 1) / P * P;"}};
  for (const auto &[line, instead] : mutants) {
    const emu::EmulateResult r = withLine(line, instead, kVarlenPaged);
    EXPECT_TRUE(r.ran) << instead;
    EXPECT_FALSE(r.correct) << instead;
    EXPECT_NE(r.error.find("out: relative error"), std::string::npos)
        << instead << ": " << r.error;
  }
}

} // namespace
