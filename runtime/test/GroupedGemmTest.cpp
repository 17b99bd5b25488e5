//===- GroupedGemmTest.cpp - the grouped_gemm op's signature and mirror ---===//

#include "kgen/runtime/GroupedGemm.h"

#include "kgen/runtime/Float.h"
#include "kgen/runtime/Moe.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <tuple>

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
  const ElemType w = groupedGemmWeightType(s);
  pkg.params = {
      tensor("A", s.dtype, groupedGemmShapeA(s), ParamRole::Input),
      tensor("B", w, groupedGemmShapeB(s), ParamRole::Input),
      tensor("expert_offsets", ElemType::I32, groupedGemmShapeOffsets(s),
             ParamRole::Input),
      tensor("D", s.out, groupedGemmShapeD(s), ParamRole::Output)};
  if (s.gated)
    pkg.params.insert(pkg.params.begin() + 2,
                      tensor("B_up", w, groupedGemmShapeB(s),
                             ParamRole::Input));
  if (s.blockScales)
    for (const char *name : {"B_scale", "B_up_scale"})
      if (s.gated || name == std::string("B_scale"))
        pkg.params.push_back(tensor(name, ElemType::F32,
                                    groupedGemmShapeScale(s),
                                    ParamRole::Input));
  return pkg;
}

/// `x` rounded to `type`, through a tensor's store.
double roundTo(ElemType type, double x) {
  HostTensor t = makeZeros(type, {1});
  t.setFromDouble(0, x);
  return t.getAsDouble(0);
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

/// Each patch of `base` refused by parseGroupedGemmOp, the message
/// "grouped_gemm op: ..." holding the case's.
void expectRefusals(const json &base,
                    const std::vector<std::pair<json, std::string>> &cases) {
  for (const auto &[patch, message] : cases) {
    json op = base;
    op.merge_patch(patch);
    GroupedGemmSpec s;
    std::string err;
    EXPECT_FALSE(parseGroupedGemmOp(op, s, err)) << patch.dump();
    EXPECT_NE(err.find("grouped_gemm op: "), std::string::npos) << err;
    EXPECT_NE(err.find(message), std::string::npos) << err;
  }
}

TEST(GroupedGemmOp, RefusesEachBadFieldByName) {
  expectRefusals(compilerOp(), {
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
  });
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

//===----------------------------------------------------------------------===//
// Block-scaled e4m3 weights
//===----------------------------------------------------------------------===//

/// compilerOp with e4m3 weights: what groupedGemmSignature writes for an op
/// with `scales`.
json blockScaledOp() {
  json op = compilerOp();
  op["weight_dtype"] = "f8E4M3FN";
  op["block_scales"] = true;
  return op;
}

TEST(GroupedGemmBlockScales, ReadsTheFieldsAndRoundTrips) {
  GroupedGemmSpec s;
  std::string err;
  ASSERT_TRUE(parseGroupedGemmOp(blockScaledOp(), s, err)) << err;
  EXPECT_TRUE(s.blockScales);
  EXPECT_EQ(s.dtype, ElemType::BF16); // A's type
  EXPECT_EQ(groupedGemmWeightType(s), ElemType::F8E4M3FN);
  EXPECT_EQ(groupedGemmOpJson(s), blockScaledOp());
  // Unscaled ops keep the object they had; weight_dtype = dtype is the
  // default spelled out.
  ASSERT_TRUE(parseGroupedGemmOp(compilerOp(), s, err)) << err;
  EXPECT_FALSE(s.blockScales);
  EXPECT_EQ(groupedGemmOpJson(s).count("weight_dtype"), 0u);
  EXPECT_EQ(groupedGemmOpJson(s).count("block_scales"), 0u);
  json same = compilerOp();
  same["weight_dtype"] = "bf16";
  same["block_scales"] = false;
  ASSERT_TRUE(parseGroupedGemmOp(same, s, err)) << err;
  EXPECT_FALSE(s.blockScales);
}

TEST(GroupedGemmBlockScales, RefusesTheFieldsApartOrWithAnotherType) {
  expectRefusals(blockScaledOp(), {
      {json{{"weight_dtype", nullptr}},
       "op: 'block_scales' scale e4m3 weights: it needs 'weight_dtype' "
       "\"f8E4M3FN\", got \"bf16\""},
      {json{{"block_scales", false}},
       "'weight_dtype' \"f8E4M3FN\" needs 'block_scales': true"},
      {json{{"block_scales", nullptr}}, // merge_patch: removed
       "'weight_dtype' \"f8E4M3FN\" needs 'block_scales': true"},
      {json{{"block_scales", 1}}, "'block_scales' must be true or false"},
      {json{{"weight_dtype", "f16"}},
       "'weight_dtype' must be one of \"bf16\", \"f8E4M3FN\", got \"f16\""},
      {json{{"weight_dtype", "f8E5M2"}}, "'weight_dtype' must be one of"},
      {json{{"dtype", "f32"}}, "'dtype' must be one of \"bf16\", \"f16\""},
      {json{{"dtype", "f8E4M3FN"}}, "'dtype' must be one of"},
  });
}

TEST(GroupedGemmBlockScales, NeedsTheScalesBesideTheE4M3Weights) {
  GroupedGemmSpec s;
  s.rows = 8, s.k = 130, s.n = 300, s.experts = 2, s.gated = true;
  s.blockScales = true;
  EXPECT_EQ(groupedGemmShapeScale(s), (std::vector<int64_t>{2, 2, 3}));
  std::string err;
  EXPECT_TRUE(checkGroupedGemmParams(packageOf(s), s, err)) << err;
  // The package's own quantised A and its scales pass as workspaces.
  KernelPackage pkg = packageOf(s);
  pkg.params.push_back(tensor("A_q", ElemType::F8E4M3FN, {8, 130},
                              ParamRole::Workspace));
  pkg.params.push_back(tensor("A_scale", ElemType::F32, {8, 2},
                              ParamRole::Workspace));
  EXPECT_TRUE(checkGroupedGemmParams(pkg, s, err)) << err;
  using Edit = std::function<void(KernelPackage &)>;
  const std::pair<Edit, std::string> cases[] = {
      {[](KernelPackage &p) { p.params.pop_back(); },
       "needs a tensor parameter 'B_up_scale'"},
      {[](KernelPackage &p) {
         p.params[*p.findParam("B")].dtype = ElemType::BF16;
       },
       "parameter 'B' is bf16 2x130x300, the op says f8E4M3FN 2x130x300"},
      {[](KernelPackage &p) {
         p.params[*p.findParam("B_scale")].shape = {2, 3, 2};
       },
       "parameter 'B_scale' is f32 2x3x2, the op says f32 2x2x3"},
      {[](KernelPackage &p) {
         p.params[*p.findParam("B_scale")].dtype = ElemType::BF16;
       },
       "parameter 'B_scale' is bf16"},
      {[](KernelPackage &p) {
         p.params[*p.findParam("A")].dtype = ElemType::F8E4M3FN;
       },
       "parameter 'A' is f8E4M3FN 8x130, the op says bf16 8x130"}};
  for (const auto &[edit, message] : cases) {
    KernelPackage p = packageOf(s);
    edit(p);
    EXPECT_FALSE(checkGroupedGemmParams(p, s, err)) << message;
    EXPECT_NE(err.find(message), std::string::npos) << err;
  }
  // Scales are inputs only of a block-scaled op, B_up_scale only gated.
  GroupedGemmSpec plain = s;
  plain.blockScales = false;
  EXPECT_FALSE(checkGroupedGemmParams(packageOf(s), plain, err));
  GroupedGemmSpec ungated = s;
  ungated.gated = false;
  pkg = packageOf(ungated);
  pkg.params.push_back(tensor("B_up_scale", ElemType::F32, {2, 2, 3},
                              ParamRole::Input));
  EXPECT_FALSE(checkGroupedGemmParams(pkg, ungated, err));
  EXPECT_NE(err.find("has a tensor 'B_up_scale' (input), not one of A "
                     "expert_offsets D B B_scale"),
            std::string::npos)
      << err;
}

TEST(GroupedGemmBlockScales, CountsWeightsAtOneByteAndTheirScales) {
  GroupedGemmSpec s;
  s.rows = 30, s.k = 130, s.n = 48, s.experts = 3, s.gated = true;
  s.blockScales = true;
  // A and D bf16, offsets, then B and B_up of 3 experts: 130 * 48 e4m3
  // bytes and 2 * 1 f32 scales each.
  EXPECT_DOUBLE_EQ(groupedGemmBytes(s), 30 * 130 * 2 + 4 * 4 + 30 * 48 * 2 +
                                            3 * 2 * (130 * 48 + 2 * 1 * 4));
  EXPECT_DOUBLE_EQ(groupedGemmFlops(s), 2.0 * 2 * 30 * 130 * 48);
}

//===--- The activation quantisation, bit for bit -------------------------===//

/// One quantised block: `values` (each exact in bf16) padded with zeros to
/// `k`.
QuantisedRow quantised(std::vector<double> values, int64_t k = 0) {
  values.resize(std::max<size_t>(values.size(), size_t(k)), 0.0);
  return quantiseRow(values.data(), int64_t(values.size()));
}

TEST(GroupedGemmQuantise, AnAllZeroBlockTakesTheSmallestScale) {
  const QuantisedRow r = quantised({0, 0, -0.0, 0});
  ASSERT_EQ(r.scale.size(), 1u);
  EXPECT_EQ(r.scale[0], 1e-4f / 448.0f); // f32 arithmetic, not 1e-4 / 448
  EXPECT_NE(double(r.scale[0]), 1e-4 / 448);
  for (float q : r.q)
    EXPECT_EQ(q, 0.0f);
  // Below 1e-4 the scale stays there: q no longer reaches 448.
  const float tiny = std::ldexp(1.0f, -15); // 3.05e-5, exact in bf16
  const QuantisedRow t = quantised({tiny, -tiny / 2});
  EXPECT_EQ(t.scale[0], 1e-4f / 448.0f);
  EXPECT_EQ(t.q[0], f8E4M3FNToF32(f32ToF8E4M3FN(tiny / (1e-4f / 448.0f))));
  EXPECT_EQ(t.q[0], 144.0f); // 136.53 in steps of 16 from 128
  EXPECT_EQ(t.q[1], -72.0f); // 68.27 in steps of 8 from 64
}

TEST(GroupedGemmQuantise, RoundsTiesToEvenE4M3) {
  // amax 448: the scale is exactly 1 and q = e4m3(a).
  const QuantisedRow r = quantised({448, 1.0625, 1.1875, -1.0625, 432, 400,
                                    3 * std::ldexp(1.0, -10),
                                    std::ldexp(1.0, -10), 0.15625});
  EXPECT_EQ(r.scale[0], 1.0f);
  const std::vector<float> want = {
      448,    1.0f,  // 1 + 1/16: between 1 and 1.125, to 1 (even)
      1.25f,         // 1.1875: between 1.125 and 1.25, to 1.25 (even)
      -1.0f,         // the same tie, negative
      448,           // 432: between 416 and 448, to 448 (even)
      384,           // 400: between 384 and 416, to 384 (even)
      std::ldexp(1.0f, -8), // 1.5 subnormal steps: to 2 steps (even)
      0.0f,          // half a subnormal step: to 0 (even)
      0.15625f};     // exact: 1.25 * 2^-3
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(r.q[i], want[i]) << i;
}

TEST(GroupedGemmQuantise, TheAmaxElementLandsOn448AndSaturatesThere) {
  // For some amax the f32 scale rounds down and amax / scale exceeds 448:
  // e4m3 rounding (and its saturation) brings q back to 448.
  double amax = 0;
  for (int m = 0; m < 128 && amax == 0; ++m) {
    const float v = 1.0f + float(m) / 128; // exact in bf16
    if (v / (v / 448.0f) > 448.0f)
      amax = v;
  }
  ASSERT_NE(amax, 0.0) << "no amax whose ratio exceeds 448";
  const QuantisedRow r = quantised({-amax, amax / 2});
  EXPECT_EQ(r.scale[0], float(amax) / 448.0f);
  EXPECT_GT(float(amax) / r.scale[0], 448.0f);
  EXPECT_EQ(r.q[0], -448.0f);
  EXPECT_EQ(r.q[1], 224.0f);
  // Beyond e4m3's range the conversion saturates rather than giving NaN.
  EXPECT_EQ(f8E4M3FNToF32(f32ToF8E4M3FN(464.0f)), 448.0f);
  EXPECT_EQ(f8E4M3FNToF32(f32ToF8E4M3FN(-1e30f)), -448.0f);
}

TEST(GroupedGemmQuantise, APartialLastBlockIsABlockOfItsOwn) {
  // K = 130: block 0 holds 0..127 (amax 2), block 1 holds 128 and 129
  // (amax 0.5), whatever is in block 0.
  std::vector<double> a(130, 0.0);
  a[0] = 2;
  a[1] = -1;
  a[128] = 0.5;
  a[129] = -0.125;
  const QuantisedRow r = quantiseRow(a.data(), 130);
  ASSERT_EQ(r.scale.size(), 2u);
  EXPECT_EQ(r.scale[0], 2.0f / 448.0f);
  EXPECT_EQ(r.scale[1], 0.5f / 448.0f);
  EXPECT_EQ(r.q[0], 448.0f);  // 447.99997
  EXPECT_EQ(r.q[1], -224.0f); // -223.99998
  EXPECT_EQ(r.q[128], 448.0f);
  EXPECT_EQ(r.q[129], -112.0f);
  // K = 128 exactly: one block.
  EXPECT_EQ(quantiseRow(a.data(), 128).scale.size(), 1u);
  EXPECT_EQ(scaleBlocks(128), 1);
  EXPECT_EQ(scaleBlocks(129), 2);
}

TEST(GroupedGemmQuantise, ANaNSpoilsItsBlockOnly) {
  std::vector<double> a(200, 0.25);
  a[3] = std::numeric_limits<double>::quiet_NaN();
  a[7] = 5; // after the NaN: the amax stays NaN
  const QuantisedRow r = quantiseRow(a.data(), 200);
  EXPECT_TRUE(std::isnan(r.scale[0]));
  EXPECT_TRUE(std::isnan(r.q[0]));
  EXPECT_TRUE(std::isnan(r.q[127]));
  EXPECT_EQ(r.scale[1], 0.25f / 448.0f);
  EXPECT_EQ(r.q[150], 448.0f);
}

//===--- The reference ----------------------------------------------------===//

TEST(GroupedGemmBlockScales, ReferenceMatchesAHandComputation) {
  // R = 1, K = 130 (two K blocks), N = 2, E = 1: A as in the partial block
  // test above, so q[0] = 448, q[1] = -224 (s0 = 2/448), q[128] = 448,
  // q[129] = -112 (s1 = 0.5/448).
  GroupedGemmSpec s;
  s.rows = 1, s.k = 130, s.n = 2, s.experts = 1, s.blockScales = true;
  s.out = ElemType::F32;
  std::vector<double> av(130, 0.0), bv(260, 0.0);
  av[0] = 2, av[1] = -1, av[128] = 0.5, av[129] = -0.125;
  const HostTensor a = tensorOf(ElemType::BF16, {1, 130}, av);
  // B rows 0, 1, 128, 129; the zero rows of A meet other weights.
  for (auto [k, w0, w1] : {std::tuple<int, double, double>{0, 1, 2},
                           {1, 0.5, -3}, {5, 448, 448}, {128, 4, 0.25},
                           {129, 2, 0}}) {
    bv[2 * k] = w0;
    bv[2 * k + 1] = w1;
  }
  const HostTensor b = tensorOf(ElemType::F8E4M3FN, {1, 130, 2}, bv);
  const HostTensor scale = tensorOf(ElemType::F32, {1, 2, 1}, {0.25, 3});
  const HostTensor off = tensorOf(ElemType::I32, {2}, {0, 1});
  // p0 = [448 - 112, 896 + 672] = [336, 1568]; p1 = [1792 - 224, 112].
  const float s0 = 2.0f / 448.0f, s1 = 0.5f / 448.0f;
  const double d0 = 336.0 * double(s0 * 0.25f) + 1568.0 * double(s1 * 3.0f);
  const double d1 = 1568.0 * double(s0 * 0.25f) + 112.0 * double(s1 * 3.0f);
  const HostTensor d =
      groupedGemmExpected(s, a, b, nullptr, off, {0}, {&scale, nullptr});
  EXPECT_EQ(d.getAsDouble(0), double(float(d0)));
  EXPECT_EQ(d.getAsDouble(1), double(float(d1)));
  EXPECT_NEAR(d.getAsDouble(0), 0.375 + 5.25, 1e-5); // about
  EXPECT_NEAR(d.getAsDouble(1), 1.75 + 0.375, 1e-5);
  // Gated, relu: the up weights are B with their own scales.
  s.gated = true;
  s.act = Activation::Relu;
  const HostTensor upScale = tensorOf(ElemType::F32, {1, 2, 1}, {1, 1});
  const double u0 = 336.0 * double(s0) + 1568.0 * double(s1);
  const HostTensor g =
      groupedGemmExpected(s, a, b, &b, off, {0}, {&scale, &upScale});
  EXPECT_EQ(g.getAsDouble(0), double(float(d0 * u0)));
}

//===--- Inputs -----------------------------------------------------------===//

TEST(GroupedGemmBlockScales, InputsCoverE4M3AndVaryTheScalesPerBlock) {
  GroupedGemmSpec s;
  s.rows = 64, s.k = 640, s.n = 384, s.experts = 4, s.gated = true;
  s.blockScales = true;
  const KernelPackage pkg = packageOf(s);
  auto input = [&](const char *name, uint64_t seed = 5) {
    return makePackageInput(pkg, pkg.params[*pkg.findParam(name)], seed);
  };
  // B: e4m3 codes, every exponent and the subnormals, both signs, none NaN.
  const HostTensor b = input("B");
  ASSERT_EQ(b.type, ElemType::F8E4M3FN);
  std::set<int> exponents;
  bool negative = false, largest = false;
  for (uint8_t code : b.data) {
    EXPECT_NE(code & 0x7F, 0x7F);
    exponents.insert((code >> 3) & 0xF);
    negative = negative || (code & 0x80);
    largest = largest || (code & 0x7F) == 0x7E;
  }
  EXPECT_EQ(exponents.size(), 16u);
  EXPECT_TRUE(negative);
  EXPECT_TRUE(largest);
  EXPECT_EQ(input("B").data, b.data);
  EXPECT_NE(input("B", 6).data, b.data);
  EXPECT_NE(input("B_up").data, b.data); // seeded by name
  // B_scale: f32 [E, 5, 3], moeWeightScale(640) / 256 times 2^j (8 + m) / 8,
  // neighbouring blocks mostly different.
  const HostTensor scale = input("B_scale");
  ASSERT_EQ(scale.type, ElemType::F32);
  ASSERT_EQ(scale.shape, (std::vector<int64_t>{4, 5, 3}));
  const double base = moeWeightScale(640) / 256;
  std::set<double> values;
  int64_t sameAsNext = 0;
  for (int64_t i = 0; i < scale.numElements(); ++i) {
    const double v = scale.getAsDouble(i);
    EXPECT_GE(v, base / 2);
    EXPECT_LE(v, base * 3.75);
    values.insert(v);
    sameAsNext += i + 1 < scale.numElements() && scale.getAsDouble(i + 1) == v;
  }
  EXPECT_GE(values.size(), 15u);
  EXPECT_LE(sameAsNext, 10);
  // A: bf16, each row's 128-wide blocks of differing amax, some all zero.
  const HostTensor a = input("A");
  ASSERT_EQ(a.type, ElemType::BF16);
  std::set<double> amaxes;
  int64_t zeroBlocks = 0;
  for (int64_t r = 0; r < s.rows; ++r)
    for (int64_t blk = 0; blk < 5; ++blk) {
      double amax = 0;
      for (int64_t k = blk * 128; k < (blk + 1) * 128; ++k)
        amax = std::max(amax, std::fabs(a.getAsDouble(r * 640 + k)));
      zeroBlocks += amax == 0;
      amaxes.insert(std::round(std::log2(amax) * 4) / 4); // 0, -1, -2
    }
  EXPECT_GT(zeroBlocks, 0);
  EXPECT_LT(zeroBlocks, 5 * 64 / 4);
  EXPECT_GE(amaxes.size(), 4u); // -inf (zero), about 0, -1 and -2
  // The scaled weights' products keep D O(1), as the unscaled ones do.
  const HostTensor off = input("expert_offsets");
  const HostTensor up = input("B_up"), upScale = input("B_up_scale");
  const std::vector<int64_t> rows = groupedGemmCheckedRows(s, off, 1);
  const HostTensor d = groupedGemmExpected(s, a, b, &up, off, rows,
                                           {&scale, &upScale});
  double norm = 0;
  for (int64_t i = 0; i < d.numElements(); ++i)
    norm += d.getAsDouble(i) * d.getAsDouble(i);
  const double rms = std::sqrt(norm / double(d.numElements()));
  EXPECT_GT(rms, 0.05);
  EXPECT_LT(rms, 10.0);
}

//===--- A kernel's mistakes are caught -----------------------------------===//

/// The ways the model kernel below computes an expert row.
enum class Kernel {
  Correct,          // the op's definition in f32, sums in reverse order
  OtherKBlockScale, // each K block promoted with the next block's scale
  OtherNBlockScale, // column n scaled by column block n / 128 + 1's
  NoPromotion,      // all of K summed, then scaled once (block 0's scales)
  Unquantised,      // A unquantised, only the weight scales applied
  Perturbed         // (moe) Correct, a moved by 1e-4 relative before its
                    // rounding: the f32 difference moeTolerance allows
};

/// An expert row as a GPU kernel computes it, in f32: `a` quantised (or
/// not), each block's products summed in f32 from the last k down, and
/// the promotions summed in f32 (see Kernel for the mistakes).
std::vector<double> kernelRow(const std::vector<double> &a, int64_t K,
                              int64_t N, const HostTensor &b,
                              const HostTensor *bUp, const WeightScales &ws,
                              int64_t e, Activation act, Kernel kind) {
  const QuantisedRow qa = quantiseRow(a.data(), K);
  const int64_t kb = scaleBlocks(K), nb = scaleBlocks(N);
  const bool unquantised = kind == Kernel::Unquantised;
  auto product = [&](const HostTensor &w, const HostTensor &scale,
                     int64_t n) {
    auto scaleAt = [&](int64_t blk, int64_t col) {
      return float(scale.getAsDouble((e * kb + blk) * nb + col));
    };
    auto sum = [&](int64_t lo, int64_t hi) {
      float p = 0;
      for (int64_t k = hi - 1; k >= lo; --k)
        p += (unquantised ? float(a[k]) : qa.q[k]) *
             float(w.getAsDouble((e * K + k) * N + n));
      return p;
    };
    if (kind == Kernel::NoPromotion)
      return sum(0, K) * (qa.scale[0] * scaleAt(0, n / kScaleBlock));
    float acc = 0;
    for (int64_t blk = 0; blk < kb; ++blk) {
      const int64_t kBlock = kind == Kernel::OtherKBlockScale ? (blk + 1) % kb
                                                              : blk;
      const int64_t col = (n / kScaleBlock +
                           (kind == Kernel::OtherNBlockScale ? 1 : 0)) %
                          nb;
      const float sa = unquantised ? 1.0f : qa.scale[blk];
      acc += sum(blk * kScaleBlock, std::min(K, (blk + 1) * kScaleBlock)) *
             (sa * scaleAt(kBlock, col));
    }
    return acc;
  };
  std::vector<double> row(size_t(N), 0.0);
  for (int64_t n = 0; n < N; ++n) {
    float v = float(activate(act, product(b, *ws.b, n)));
    if (bUp)
      v *= product(*bUp, *ws.bUp, n);
    row[size_t(n)] = v;
  }
  return row;
}

/// The relative Frobenius error of the model kernel's D at `rows` against
/// the reference's.
double groupedGemmKernelError(const GroupedGemmSpec &s, Kernel kind) {
  const KernelPackage pkg = packageOf(s);
  auto input = [&](const char *name) {
    return makePackageInput(pkg, pkg.params[*pkg.findParam(name)], 11);
  };
  const HostTensor a = input("A"), b = input("B"), up = input("B_up"),
                   bs = input("B_scale"), us = input("B_up_scale"),
                   off = input("expert_offsets");
  const std::vector<int64_t> rows = groupedGemmCheckedRows(s, off, 11);
  const HostTensor want =
      groupedGemmExpected(s, a, b, &up, off, rows, {&bs, &us});
  HostTensor got = makeZeros(s.out, {int64_t(rows.size()), s.n});
  for (size_t i = 0; i < rows.size(); ++i) {
    const int64_t e = groupedGemmRowExpert(s, off, rows[i]);
    if (e < 0)
      continue;
    std::vector<double> aRow(size_t(s.k));
    for (int64_t k = 0; k < s.k; ++k)
      aRow[size_t(k)] = a.getAsDouble(rows[i] * s.k + k);
    const std::vector<double> d =
        kernelRow(aRow, s.k, s.n, b, &up, {&bs, &us}, e, s.act, kind);
    for (int64_t n = 0; n < s.n; ++n)
      got.setFromDouble(int64_t(i) * s.n + n, d[size_t(n)]);
  }
  CompareStats stats;
  std::string err;
  EXPECT_TRUE(compare(got, want, stats, err)) << err;
  return stats.relFrobErr;
}

TEST(GroupedGemmBlockScales, TheCheckPassesAKernelAndCatchesItsMistakes) {
  // K = 320: two full K blocks and a partial one; N = 256: two column
  // blocks. bf16 and f32 out.
  GroupedGemmSpec s;
  s.rows = 32, s.k = 320, s.n = 256, s.experts = 3, s.gated = true;
  s.act = Activation::Silu;
  s.blockScales = true;
  for (ElemType out : {ElemType::BF16, ElemType::F32}) {
    s.out = out;
    const double tol = groupedGemmTolerance(s);
    const double correct = groupedGemmKernelError(s, Kernel::Correct);
    EXPECT_LT(correct, tol / 2) << elemTypeName(out);
    for (Kernel wrong : {Kernel::OtherKBlockScale, Kernel::OtherNBlockScale,
                         Kernel::NoPromotion, Kernel::Unquantised}) {
      const double err = groupedGemmKernelError(s, wrong);
      EXPECT_GT(err, 3 * tol) << elemTypeName(out) << " kernel " << int(wrong);
    }
  }
}

/// The moe layer's inputs of `spec` (block-scaled, with a shared
/// expert), as a package's are filled in a run seeded `seed`.
std::map<std::string, HostTensor> moeInputs(const MoeSpec &spec,
                                            uint64_t seed) {
  const ElemType w = moeWeightType(spec);
  const int64_t H = spec.hidden, Is = spec.sharedInter;
  const std::tuple<const char *, ElemType, std::vector<int64_t>> params[] = {
      {"x", spec.dtype, moeShapeX(spec)},
      {"router_logits", spec.logits, moeShapeLogits(spec)},
      {"w_gate", w, moeShapeGateUp(spec)},
      {"w_up", w, moeShapeGateUp(spec)},
      {"w_down", w, moeShapeDown(spec)},
      {"w_gate_scale", ElemType::F32, moeShapeGateUpScale(spec)},
      {"w_up_scale", ElemType::F32, moeShapeGateUpScale(spec)},
      {"w_down_scale", ElemType::F32, moeShapeDownScale(spec)},
      {"shared_gate", w, {1, H, Is}},
      {"shared_up", w, {1, H, Is}},
      {"shared_down", w, {1, Is, H}},
      {"shared_gate_scale", ElemType::F32, blockScaleShape(1, H, Is)},
      {"shared_up_scale", ElemType::F32, blockScaleShape(1, H, Is)},
      {"shared_down_scale", ElemType::F32, blockScaleShape(1, Is, H)}};
  std::map<std::string, HostTensor> in;
  for (const auto &[name, type, shape] : params) {
    const std::optional<HostTensor> t = moeInput(
        spec, tensor(name, type, shape, ParamRole::Input),
        packageInputSeed(seed, name));
    EXPECT_TRUE(t) << name;
    EXPECT_EQ(t->type, type) << name;
    in[name] = *t;
  }
  return in;
}

/// The relative Frobenius error of y from the model kernel (each expert
/// GEMM as kernelRow, a and y_e rounded to dtype, the f32 combine) against
/// the reference, at every token.
double moeKernelError(const MoeSpec &s, Kernel kind) {
  const std::map<std::string, HostTensor> in = moeInputs(s, 3);
  const MoeExtras extras = moeExtras([&](const char *name) {
    const auto it = in.find(name);
    return it == in.end() ? nullptr : &it->second;
  });
  const HostTensor &x = in.at("x"), &logits = in.at("router_logits");
  std::vector<int64_t> tokens;
  for (int64_t t = 0; t < s.tokens; ++t)
    tokens.push_back(t);
  const MoeExpected want =
      moeExpected(s, x, logits, in.at("w_gate"), in.at("w_up"),
                  in.at("w_down"), tokens, extras);
  const int64_t H = s.hidden;
  // One FFN of inner size `inter` through expert e of its weights.
  auto ffn = [&](const std::vector<double> &xRow, const char *gate,
                 const char *up, const char *down, const MoeScales &sc,
                 int64_t inter, int64_t e) {
    std::vector<double> a =
        kernelRow(xRow, H, inter, in.at(gate), &in.at(up), {sc.gate, sc.up},
                  e, s.act, kind);
    for (size_t i = 0; i < a.size(); ++i)
      a[i] = roundTo(s.dtype, kind == Kernel::Perturbed
                                  ? a[i] * (i % 2 ? 1 + 1e-4 : 1 - 1e-4)
                                  : a[i]);
    std::vector<double> ye = kernelRow(a, inter, H, in.at(down), nullptr,
                                       {sc.down, nullptr}, e,
                                       Activation::None, kind);
    for (double &v : ye)
      v = roundTo(s.dtype, v);
    return ye;
  };
  HostTensor got = makeZeros(s.out, moeShapeX(s));
  for (int64_t t = 0; t < s.tokens; ++t) {
    std::vector<double> xRow(static_cast<size_t>(H));
    for (int64_t h = 0; h < H; ++h)
      xRow[size_t(h)] = x.getAsDouble(t * H + h);
    const MoeRoute route = moeRoute(s, logits, t, extras);
    std::vector<float> acc(size_t(H), 0.0f);
    for (int64_t slot = 0; slot < s.topK; ++slot) {
      const std::vector<double> ye = ffn(xRow, "w_gate", "w_up", "w_down",
                                         extras.scales, s.inter,
                                         route.ids[size_t(slot)]);
      for (int64_t h = 0; h < H; ++h)
        acc[size_t(h)] += route.weights[size_t(slot)] * float(ye[size_t(h)]);
    }
    const std::vector<double> z =
        ffn(xRow, "shared_gate", "shared_up", "shared_down",
            extras.sharedScales, s.sharedInter, 0);
    for (int64_t h = 0; h < H; ++h)
      got.setFromDouble(t * H + h, acc[size_t(h)] + float(z[size_t(h)]));
  }
  CompareStats stats;
  std::string err;
  EXPECT_TRUE(compare(got, want.y, stats, err)) << err;
  return stats.relFrobErr;
}

TEST(GroupedGemmBlockScales, TheMoeCheckPassesAKernelAndCatchesItsMistakes) {
  // H = 320 (a partial K block for gate and up, a partial column block for
  // down), I = 384, Is = 192; bf16 and f16.
  MoeSpec s;
  s.tokens = 8, s.hidden = 320, s.inter = 384, s.experts = 4, s.topK = 2;
  s.sharedInter = 192;
  s.renormalize = true;
  s.blockScales = true;
  for (ElemType type : {ElemType::BF16, ElemType::F16}) {
    s.dtype = s.out = type;
    const double tol = moeTolerance(s);
    EXPECT_LT(moeKernelError(s, Kernel::Correct), tol / 100)
        << elemTypeName(type);
    // 1.7e-3 in bf16, 1.5e-3 in f16 (where the unscaled bound, 1.6e-3,
    // would hardly hold).
    EXPECT_LT(moeKernelError(s, Kernel::Perturbed), tol) << elemTypeName(type);
    for (Kernel wrong : {Kernel::OtherKBlockScale, Kernel::OtherNBlockScale,
                         Kernel::NoPromotion, Kernel::Unquantised}) {
      const double err = moeKernelError(s, wrong);
      EXPECT_GT(err, 2 * tol) << elemTypeName(type) << " kernel " << int(wrong);
    }
  }
}

} // namespace
