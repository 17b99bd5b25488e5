//===- GroupedGemmTest.cpp - the grouped_gemm op's signature and mirror ---===//

#include "kgen/runtime/GroupedGemm.h"

#include "kgen/runtime/Moe.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace kgen::rt;
using nlohmann::json;

namespace {

/// What dialect/MoeJson.cpp (groupedGemmSignature) writes.
json compilerOp() {
  return json::parse(R"({"kind": "grouped_gemm", "rows": 30, "k": 64,
    "n": 48, "experts": 3, "gated": true, "activation": "relu",
    "dtype": "bf16", "dtype_out": "bf16"})");
}

HostTensor tensorOf(ElemType type, std::vector<int64_t> shape,
                    std::vector<double> values) {
  HostTensor t = makeZeros(type, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i)
    t.setFromDouble(int64_t(i), values[i]);
  return t;
}

KernelParam tensor(const std::string &name, ElemType type,
                   std::vector<int64_t> shape, ParamRole role) {
  KernelParam p;
  p.name = name;
  p.kind = ParamKind::Tensor;
  p.dtype = type;
  p.shape = std::move(shape);
  p.role = role;
  return p;
}

KernelPackage packageOf(const GroupedGemmSpec &s) {
  KernelPackage pkg;
  pkg.name = "gg";
  pkg.op = groupedGemmOpJson(s);
  pkg.params = {
      tensor("A", s.dtype, groupedGemmShapeA(s), ParamRole::Input),
      tensor("B", s.dtype, groupedGemmShapeB(s), ParamRole::Input),
      tensor("expert_offsets", ElemType::I32, groupedGemmShapeOffsets(s),
             ParamRole::Input),
      tensor("D", s.out, groupedGemmShapeD(s), ParamRole::Output)};
  if (s.gated)
    pkg.params.insert(pkg.params.begin() + 2,
                      tensor("B_up", s.dtype, groupedGemmShapeB(s),
                             ParamRole::Input));
  return pkg;
}

std::vector<int64_t> offsetsOf(const HostTensor &t) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < t.numElements(); ++i)
    v.push_back(int64_t(t.getAsDouble(i)));
  return v;
}

TEST(GroupedGemmOp, ReadsTheCompilersOpAndRoundTrips) {
  GroupedGemmSpec s;
  std::string err;
  ASSERT_TRUE(parseGroupedGemmOp(compilerOp(), s, err)) << err;
  EXPECT_EQ(s.rows, 30);
  EXPECT_EQ(s.k, 64);
  EXPECT_EQ(s.n, 48);
  EXPECT_EQ(s.experts, 3);
  EXPECT_TRUE(s.gated);
  EXPECT_EQ(s.act, Activation::Relu);
  EXPECT_EQ(groupedGemmOpJson(s), compilerOp());
  // Defaults: not gated, no activation, dtype_out = dtype.
  GroupedGemmSpec d;
  ASSERT_TRUE(parseGroupedGemmOp(
      json{{"kind", "grouped_gemm"}, {"rows", 5}, {"k", 8}, {"n", 4},
           {"experts", 2}, {"dtype", "f16"}},
      d, err))
      << err;
  EXPECT_FALSE(d.gated);
  EXPECT_EQ(d.act, Activation::None);
  EXPECT_EQ(d.out, ElemType::F16);
}

TEST(GroupedGemmOp, RefusesEachBadFieldByName) {
  const std::pair<json, std::string> cases[] = {
      {json{{"rows", nullptr}}, "missing 'rows'"},
      {json{{"rows", 0}}, "'rows' must be an integer in [1, 2147483647]"},
      {json{{"rows", int64_t{1} << 31}}, "'rows'"},
      {json{{"k", "64"}}, "'k' must be an integer"},
      {json{{"n", -1}}, "'n' must be an integer"},
      {json{{"experts", 0}}, "'experts' must be an integer"},
      {json{{"gated", 1}}, "'gated' must be true or false"},
      {json{{"activation", "tanh"}}, "'activation' must be"},
      {json{{"dtype", "f32"}}, "'dtype' must be one of \"bf16\", \"f16\""},
      {json{{"dtype", nullptr}}, "missing 'dtype'"},
      {json{{"dtype_out", "i32"}}, "'dtype_out' must be one of"},
  };
  for (const auto &[patch, message] : cases) {
    json op = compilerOp();
    op.merge_patch(patch);
    GroupedGemmSpec s;
    std::string err;
    EXPECT_FALSE(parseGroupedGemmOp(op, s, err)) << patch.dump();
    EXPECT_NE(err.find("grouped_gemm op: "), std::string::npos) << err;
    EXPECT_NE(err.find(message), std::string::npos) << err;
  }
  GroupedGemmSpec s;
  std::string err;
  EXPECT_FALSE(parseGroupedGemmOp(json{{"kind", "moe"}}, s, err));
}

TEST(GroupedGemmOp, FlopsCountEveryRowAndTheGate) {
  GroupedGemmSpec s;
  s.rows = 30, s.k = 64, s.n = 48, s.experts = 3;
  EXPECT_DOUBLE_EQ(groupedGemmFlops(s), 2.0 * 30 * 64 * 48);
  s.gated = true;
  EXPECT_DOUBLE_EQ(groupedGemmFlops(s), 2.0 * 2 * 30 * 64 * 48);
  // A, offsets, D, and B, B_up of min(E, R) = 3 experts (the compiler's
  // count for this op: 43600).
  EXPECT_DOUBLE_EQ(groupedGemmBytes(s), 30 * 64 * 2 + 4 * 4 + 30 * 48 * 2 +
                                            3 * 2 * 64 * 48 * 2);
}

TEST(GroupedGemmOp, ToleranceIsOneRoundingOfD) {
  GroupedGemmSpec s;
  EXPECT_NEAR(groupedGemmTolerance(s), std::ldexp(1.0, -8) + 1e-4, 1e-12);
  s.out = ElemType::F16;
  EXPECT_NEAR(groupedGemmTolerance(s), std::ldexp(1.0, -11) + 1e-4, 1e-12);
  s.out = ElemType::F32;
  EXPECT_NEAR(groupedGemmTolerance(s), 1e-4, 1e-7);
}

/// R = 4, K = 2, N = 2, E = 2 with offsets [1, 3, 3]: row 0 a head, rows 1
/// and 2 expert 0, expert 1 empty, row 3 a tail.
TEST(GroupedGemmReference, MatchesAHandComputation) {
  GroupedGemmSpec s;
  s.rows = 4, s.k = 2, s.n = 2, s.experts = 2, s.gated = true;
  s.act = Activation::Relu;
  s.out = ElemType::F32;
  const HostTensor a = tensorOf(ElemType::BF16, {4, 2},
                                {9, 9, 1, 2, -1, 0.5, 9, 9});
  // B[0] = [[1, -1], [2, 0.5]], B_up[0] = [[0.5, 1], [1, 1]]; expert 1
  // would give large values if it were used.
  const HostTensor b = tensorOf(ElemType::BF16, {2, 2, 2},
                                {1, -1, 2, 0.5, 100, 100, 100, 100});
  const HostTensor up = tensorOf(ElemType::BF16, {2, 2, 2},
                                 {0.5, 1, 1, 1, 100, 100, 100, 100});
  const HostTensor off = tensorOf(ElemType::I32, {3}, {1, 3, 3});
  // Row 1: acc = [1 + 4, -1 + 1] = [5, 0], up = [0.5 + 2, 1 + 2] = [2.5, 3]
  //   -> [relu(5) * 2.5, relu(0) * 3] = [12.5, 0].
  // Row 2: acc = [-1 + 1, 1 + 0.25] = [0, 1.25], up = [-0.5 + 0.5, -1 + 0.5]
  //   -> [0 * 0, 1.25 * -0.5] = [0, -0.625].
  const HostTensor d =
      groupedGemmExpected(s, a, b, &up, off, {0, 1, 2, 3});
  const std::vector<double> want = {0, 0, 12.5, 0, 0, -0.625, 0, 0};
  for (int64_t i = 0; i < 8; ++i)
    EXPECT_DOUBLE_EQ(d.getAsDouble(i), want[i]) << i;
  EXPECT_EQ(groupedGemmRowExpert(s, off, 0), -1);
  EXPECT_EQ(groupedGemmRowExpert(s, off, 2), 0);
  EXPECT_EQ(groupedGemmRowExpert(s, off, 3), -1);
  // Not gated, silu, rounded once to bf16.
  s.gated = false;
  s.act = Activation::Silu;
  s.out = ElemType::BF16;
  const HostTensor plain = groupedGemmExpected(s, a, b, nullptr, off, {1});
  const double silu5 = 5.0 / (1.0 + std::exp(-5.0));
  EXPECT_DOUBLE_EQ(plain.getAsDouble(0),
                   tensorOf(ElemType::BF16, {1}, {silu5}).getAsDouble(0));
  EXPECT_DOUBLE_EQ(plain.getAsDouble(1), 0.0); // silu(0)
}

TEST(GroupedGemmInputs, OffsetsAreNonDecreasingAndCoverEveryShape) {
  GroupedGemmSpec s;
  s.rows = 96, s.experts = 8;
  bool head = false, tail = false, full = false, both = false, empty = false;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const std::vector<int64_t> off = offsetsOf(groupedGemmOffsets(s, seed));
    ASSERT_EQ(off.size(), 9u);
    for (size_t i = 0; i < off.size(); ++i) {
      ASSERT_GE(off[i], 0) << seed;
      ASSERT_LE(off[i], 96) << seed;
      if (i == 0)
        continue;
      ASSERT_LE(off[i - 1], off[i]) << "seed " << seed << " offset " << i;
      empty = empty || off[i - 1] == off[i];
    }
    head = head || off.front() > 0;
    tail = tail || off.back() < 96;
    both = both || (off.front() > 0 && off.back() < 96);
    full = full || (off.front() == 0 && off.back() == 96);
  }
  EXPECT_TRUE(head);
  EXPECT_TRUE(tail);
  EXPECT_TRUE(both);
  EXPECT_TRUE(full);
  EXPECT_TRUE(empty);
  // Deterministic, and a single expert works.
  EXPECT_EQ(groupedGemmOffsets(s, 7).data, groupedGemmOffsets(s, 7).data);
  s.experts = 1;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    const std::vector<int64_t> off = offsetsOf(groupedGemmOffsets(s, seed));
    EXPECT_LE(off[0], off[1]);
  }
}

TEST(GroupedGemmInputs, PackageInputsUseTheOpsFill) {
  GroupedGemmSpec s;
  s.rows = 40, s.k = 64, s.n = 16, s.experts = 4, s.gated = true;
  const KernelPackage pkg = packageOf(s);
  const KernelParam &off = pkg.params[*pkg.findParam("expert_offsets")];
  EXPECT_EQ(makePackageInput(pkg, off, 3).data,
            groupedGemmOffsets(s, packageInputSeed(3, "expert_offsets")).data);
  // B scaled by moeWeightScale(64) (3 / 8, to the nearest power of two:
  // 1/2): |B| <= 1/2, and some element above 1/4.
  const HostTensor b =
      makePackageInput(pkg, pkg.params[*pkg.findParam("B_up")], 3);
  EXPECT_EQ(moeWeightScale(64), 0.5);
  double largest = 0;
  for (int64_t i = 0; i < b.numElements(); ++i)
    largest = std::max(largest, std::fabs(b.getAsDouble(i)));
  EXPECT_LE(largest, 0.5);
  EXPECT_GT(largest, 0.25);
}

TEST(GroupedGemmCheck, ChecksEveryRowWhenSmallAndBoundsWhenLarge) {
  GroupedGemmSpec s;
  s.rows = 100, s.k = 64, s.n = 64, s.experts = 4;
  const HostTensor off = groupedGemmOffsets(s, 1);
  EXPECT_EQ(groupedGemmCheckedRows(s, off, 1).size(), 100u);
  s.rows = 1 << 20, s.k = 4096, s.n = 4096, s.experts = 8, s.gated = true;
  const HostTensor big = tensorOf(ElemType::I32, {9},
                                  {10, 100, 100, 5000, 9000, 20000, 500000,
                                   700000, 1000000});
  const std::vector<int64_t> rows = groupedGemmCheckedRows(s, big, 1);
  EXPECT_EQ(rows.size(), 16u); // 2^29 / (2 * 4096 * 4096)
  EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end()));
  EXPECT_EQ(rows.front(), 0);
  EXPECT_EQ(rows.back(), (1 << 20) - 1);
}

TEST(GroupedGemmCheck, CoverageFindsRowsOutsideGroupsAndNaN) {
  GroupedGemmSpec s;
  s.rows = 4, s.n = 2, s.experts = 1;
  const HostTensor off = tensorOf(ElemType::I32, {2}, {1, 3});
  std::string why;
  EXPECT_TRUE(checkGroupedGemmCoverage(
      s, off, tensorOf(ElemType::BF16, {4, 2}, {0, 0, 1, 2, 3, 4, 0, 0}),
      why));
  EXPECT_FALSE(checkGroupedGemmCoverage(
      s, off, tensorOf(ElemType::BF16, {4, 2}, {0, 0, 1, 2, 3, 4, 0, 5}),
      why));
  EXPECT_NE(why.find("1 of the rows in no group are not zero (the first: "
                     "row 3)"),
            std::string::npos)
      << why;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(checkGroupedGemmCoverage(
      s, off, tensorOf(ElemType::BF16, {4, 2}, {0, 0, 1, nan, 3, 4, 0, 0}),
      why));
  EXPECT_NE(why.find("1 rows hold NaN"), std::string::npos) << why;
}

TEST(GroupedGemmParams, NeedsTheOpsTensorsAndNoOthers) {
  GroupedGemmSpec s;
  s.rows = 8, s.k = 16, s.n = 8, s.experts = 2, s.gated = true;
  std::string err;
  EXPECT_TRUE(checkGroupedGemmParams(packageOf(s), s, err)) << err;
  KernelPackage pkg = packageOf(s);
  pkg.params.erase(pkg.params.begin() + 2); // B_up
  EXPECT_FALSE(checkGroupedGemmParams(pkg, s, err));
  EXPECT_NE(err.find("needs a tensor parameter 'B_up'"), std::string::npos)
      << err;
  GroupedGemmSpec plain = s;
  plain.gated = false;
  EXPECT_FALSE(checkGroupedGemmParams(packageOf(s), plain, err));
  EXPECT_NE(err.find("has a tensor 'B_up'"), std::string::npos) << err;
  pkg = packageOf(s);
  pkg.params[*pkg.findParam("expert_offsets")].dtype = ElemType::I64;
  EXPECT_FALSE(checkGroupedGemmParams(pkg, s, err));
  EXPECT_NE(err.find("'expert_offsets' is i64"), std::string::npos) << err;
  pkg = packageOf(s);
  pkg.params.push_back(tensor("scratch", ElemType::F32, {4},
                              ParamRole::Workspace));
  EXPECT_TRUE(checkGroupedGemmParams(pkg, s, err)) << err;
}

} // namespace
