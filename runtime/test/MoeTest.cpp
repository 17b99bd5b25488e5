//===- MoeTest.cpp - the moe op's signature, inputs and host mirror -------===//

#include "kgen/runtime/Moe.h"

#include "kgen/runtime/GroupedGemm.h"

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

json mixtralOp() {
  return json::parse(R"({"kind": "moe", "tokens": 16, "hidden": 4096,
    "inter": 14336, "experts": 8, "top_k": 2, "renormalize": true,
    "activation": "silu", "dtype": "bf16", "logits_dtype": "f32",
    "dtype_out": "bf16"})");
}

/// T = 1, H = I = 2, E = 2, top-1 unless changed; relu, bf16.
MoeSpec tinySpec() {
  MoeSpec s;
  s.hidden = s.inter = s.experts = 2;
  s.act = Activation::Relu;
  return s;
}

/// A tensor of `type` and `shape` holding `values` (row-major).
HostTensor tensorOf(ElemType type, std::vector<int64_t> shape,
                    std::vector<double> values) {
  HostTensor t = makeZeros(type, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i)
    t.setFromDouble(int64_t(i), values[i]);
  return t;
}

double roundTo(ElemType type, double x) {
  HostTensor t = makeZeros(type, {1});
  t.setFromDouble(0, x);
  return t.getAsDouble(0);
}

HostTensor logitsOf(std::vector<double> row) {
  return tensorOf(ElemType::F32, {1, int64_t(row.size())}, row);
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

/// A package with the op's tensors and, with `workspaces`, the six-kernel
/// schedule's workspaces. The block scales when the spec has them (the
/// DeepSeek inputs are the tests' own).
KernelPackage packageOf(const MoeSpec &s, bool workspaces) {
  KernelPackage pkg;
  pkg.name = "moe";
  pkg.op = moeOpJson(s);
  const int64_t copies = s.tokens * s.topK;
  const ElemType w = moeWeightType(s);
  pkg.params = {
      tensor("x", s.dtype, moeShapeX(s), ParamRole::Input),
      tensor("router_logits", s.logits, moeShapeLogits(s), ParamRole::Input),
      tensor("w_gate", w, moeShapeGateUp(s), ParamRole::Input),
      tensor("w_up", w, moeShapeGateUp(s), ParamRole::Input),
      tensor("w_down", w, moeShapeDown(s), ParamRole::Input),
      tensor("y", s.out, moeShapeX(s), ParamRole::Output)};
  if (s.blockScales)
    for (KernelParam p :
         {tensor("w_gate_scale", ElemType::F32, moeShapeGateUpScale(s), ParamRole::Input),
          tensor("w_up_scale", ElemType::F32, moeShapeGateUpScale(s), ParamRole::Input),
          tensor("w_down_scale", ElemType::F32, moeShapeDownScale(s), ParamRole::Input)})
      pkg.params.push_back(p);
  if (workspaces)
    for (KernelParam p :
         {tensor("expert_ids", ElemType::I32, moeShapeRoute(s), ParamRole::Workspace),
          tensor("weights", ElemType::F32, moeShapeRoute(s), ParamRole::Workspace),
          tensor("positions", ElemType::I32, moeShapeRoute(s), ParamRole::Workspace),
          tensor("expert_offsets", ElemType::I32, {s.experts + 1}, ParamRole::Workspace),
          tensor("permuted", s.dtype, {copies, s.hidden}, ParamRole::Workspace),
          tensor("h", s.dtype, {copies, s.inter}, ParamRole::Workspace),
          tensor("expert_out", s.dtype, {copies, s.hidden}, ParamRole::Workspace)})
      pkg.params.push_back(p);
  return pkg;
}

void expectRefused(const KernelPackage &pkg, const MoeSpec &s,
                   const std::string &message) {
  std::string err;
  EXPECT_FALSE(checkMoeParams(pkg, s, err)) << message;
  EXPECT_NE(err.find(message), std::string::npos) << err;
}

KernelParam &paramNamed(KernelPackage &pkg, const std::string &name) {
  return pkg.params[*pkg.findParam(name)];
}

} // namespace

//===----------------------------------------------------------------------===//
// The op object
//===----------------------------------------------------------------------===//

TEST(MoeOpTest, ParsesTheManifestObjectAndRoundTrips) {
  MoeSpec s;
  std::string err;
  ASSERT_TRUE(parseMoeOp(mixtralOp(), s, err)) << err;
  EXPECT_EQ(s.tokens, 16);
  EXPECT_EQ(s.hidden, 4096);
  EXPECT_EQ(s.inter, 14336);
  EXPECT_EQ(s.experts, 8);
  EXPECT_EQ(s.topK, 2);
  EXPECT_TRUE(s.renormalize);
  EXPECT_EQ(s.act, Activation::Silu);
  EXPECT_EQ(s.dtype, ElemType::BF16);
  EXPECT_EQ(s.logits, ElemType::F32);
  EXPECT_EQ(s.out, ElemType::BF16);
  EXPECT_EQ(moeOpJson(s), mixtralOp());

  json other = mixtralOp();
  other["activation"] = "gelu";
  other["dtype"] = "f16";
  other["logits_dtype"] = "bf16";
  other["dtype_out"] = "f32";
  other["renormalize"] = false;
  ASSERT_TRUE(parseMoeOp(other, s, err)) << err;
  MoeSpec back;
  ASSERT_TRUE(parseMoeOp(moeOpJson(s), back, err)) << err;
  EXPECT_EQ(moeOpJson(back), other);
}

TEST(MoeOpTest, DefaultsAsTheOpDoes) {
  json op = json::parse(R"({"kind": "moe", "tokens": 3, "hidden": 64,
    "inter": 32, "experts": 4, "top_k": 1, "dtype": "f16"})");
  MoeSpec s;
  std::string err;
  ASSERT_TRUE(parseMoeOp(op, s, err)) << err;
  EXPECT_FALSE(s.renormalize);
  EXPECT_EQ(s.act, Activation::Silu);
  EXPECT_EQ(s.logits, ElemType::F32);
  EXPECT_EQ(s.out, ElemType::F16);
  for (const char *key : {"renormalize", "activation", "logits_dtype", "dtype_out"})
    op[key] = nullptr;
  EXPECT_TRUE(parseMoeOp(op, s, err)) << err;
}

TEST(MoeOpTest, RefusesBadFieldsNamingThem) {
  struct Case {
    const char *key;
    json value;
    const char *message;
  };
  const Case cases[] = {
      {"kind", "gemm", "not an object of kind \"moe\""},
      {"tokens", 0, "'tokens' must be an integer in [1, 2147483648]"},
      {"tokens", nullptr, "missing 'tokens'"},
      {"tokens", 1.5, "'tokens'"},
      {"hidden", -4, "'hidden' must be an integer"},
      {"hidden", "4096", "'hidden'"},
      {"inter", int64_t{1} << 32, "'inter' must be an integer in [1, 2147483648]"},
      {"experts", 0, "'experts' must be an integer in [1, 1024]"},
      {"experts", 1025, "'experts' must be an integer in [1, 1024]"},
      {"top_k", 0, "'top_k' must be an integer in [1, 8]"},
      {"top_k", 9, "'top_k' must be an integer in [1, 8]"},
      {"top_k", nullptr, "missing 'top_k'"},
      {"renormalize", 1, "'renormalize' must be true or false"},
      {"activation", "none", "'activation' must be \"silu\", \"gelu\" or \"relu\""},
      {"activation", "swish", "'activation'"},
      {"activation", 3, "'activation'"},
      {"dtype", "f32", "'dtype' must be one of \"bf16\", \"f16\""},
      {"dtype", nullptr, "missing 'dtype'"},
      {"logits_dtype", "f8E4M3FN", "'logits_dtype' must be one of"},
      {"logits_dtype", "i32", "'logits_dtype'"},
      {"dtype_out", "f64", "'dtype_out' must be one of \"bf16\", \"f16\", \"f32\""},
  };
  for (const Case &c : cases) {
    json op = mixtralOp();
    op[c.key] = c.value;
    MoeSpec s;
    std::string err;
    EXPECT_FALSE(parseMoeOp(op, s, err)) << c.key << " = " << c.value.dump();
    EXPECT_NE(err.find(c.message), std::string::npos) << err;
  }
  // T * k must fit the i32 rows of permuted.
  json op = mixtralOp();
  op["tokens"] = int64_t{1} << 30;
  op["top_k"] = 2;
  MoeSpec s;
  std::string err;
  EXPECT_FALSE(parseMoeOp(op, s, err));
  EXPECT_NE(err.find("'tokens' * 'top_k'"), std::string::npos) << err;
  op["tokens"] = (int64_t{1} << 30) - 1;
  EXPECT_TRUE(parseMoeOp(op, s, err)) << err;
  EXPECT_FALSE(parseMoeOp(json::array(), s, err));
}

TEST(MoeOpTest, CountsFlopsAndBytes) {
  MoeSpec s;
  std::string err;
  ASSERT_TRUE(parseMoeOp(mixtralOp(), s, err)) << err;
  EXPECT_EQ(moeFlops(s), 2.0 * 16 * 2 * 3 * 4096 * 14336);
  const double acts = 16.0 * 4096 * 2 * 2 + 16.0 * 8 * 4; // x, y, logits
  const double expert = 3.0 * 4096 * 14336 * 2;
  EXPECT_EQ(moeBytes(s), acts + 8 * expert); // 32 copies reach all 8
  s.tokens = 1;                              // decode: 2 experts at most
  EXPECT_EQ(moeBytes(s), 4096.0 * 2 * 2 + 8 * 4 + 2 * expert);
}

TEST(MoeOpTest, ToleranceFollowsTheRoundingPoints) {
  MoeSpec s;
  s.dtype = s.out = ElemType::BF16;
  const double bf16 = moeTolerance(s);
  EXPECT_NEAR(bf16, 3 * std::ldexp(1.0, -8) + 1e-4, 1e-12);
  EXPECT_GT(bf16, 1e-2); // no tighter than gemm's and attention's 16-bit bound
  EXPECT_LT(bf16, 2e-2);
  s.out = ElemType::F32;
  EXPECT_LT(moeTolerance(s), bf16);
  s.dtype = s.out = ElemType::F16;
  const double f16 = moeTolerance(s);
  EXPECT_NEAR(f16, 3 * std::ldexp(1.0, -11) + 1e-4, 1e-12);
  s.out = ElemType::F32;
  EXPECT_LT(moeTolerance(s), f16);
  EXPECT_GT(moeTolerance(s), 1e-3);
  s.out = ElemType::BF16; // f16 intermediates, a bf16 result
  EXPECT_GT(moeTolerance(s), f16);
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

TEST(MoeInputTest, WeightScaleIsAPowerOfTwoNearThreeOverSqrtK) {
  EXPECT_EQ(moeWeightScale(4096), 1.0 / 16);    // 3 / 64 = 0.047 -> 2^-4
  EXPECT_EQ(moeWeightScale(14336), 1.0 / 32);   // 0.025 -> 2^-5
  EXPECT_EQ(moeWeightScale(1), 4.0);            // 3 -> 2^2
  EXPECT_EQ(moeWeightScale(9), 1.0);
}

TEST(MoeInputTest, LogitLevelsAreDistinctRepresentableAndSpaced) {
  for (ElemType type : {ElemType::BF16, ElemType::F16, ElemType::F32})
    for (int64_t e : {1, 2, 7, 8, 64, 256, 257, 600, 1024}) {
      const std::vector<double> levels = moeLogitLevels(e, type);
      ASSERT_EQ(int64_t(levels.size()), e);
      for (size_t i = 0; i < levels.size(); ++i) {
        EXPECT_EQ(roundTo(type, levels[i]), levels[i]) << elemTypeName(type);
        EXPECT_LE(std::fabs(levels[i]), 32.0);
        if (i > 0) {
          EXPECT_GE(levels[i] - levels[i - 1], 1.0 / 32)
              << elemTypeName(type) << " E=" << e << " at " << i;
        }
      }
    }
  // Where the type holds them, the levels are n / 32 around 0.
  EXPECT_EQ(moeLogitLevels(4, ElemType::BF16),
            (std::vector<double>{-2.0 / 32, -1.0 / 32, 0.0, 1.0 / 32}));
  EXPECT_EQ(moeLogitLevels(1024, ElemType::F16).back(), 511.0 / 32);
  EXPECT_GT(moeLogitLevels(1024, ElemType::BF16).back(), 16.0);
}

TEST(MoeInputTest, RouterLogitsArePermutationsOfTheLevelsFromTheSeed) {
  MoeSpec s;
  s.tokens = 50;
  s.experts = 300;
  s.logits = ElemType::BF16;
  const HostTensor a = moeRouterLogits(s, 7);
  EXPECT_EQ(a.type, ElemType::BF16);
  EXPECT_EQ(a.shape, moeShapeLogits(s));
  EXPECT_EQ(moeRouterLogits(s, 7).data, a.data);
  EXPECT_NE(moeRouterLogits(s, 8).data, a.data);
  const std::vector<double> levels = moeLogitLevels(s.experts, s.logits);
  bool rowsDiffer = false;
  for (int64_t t = 0; t < s.tokens; ++t) {
    std::vector<double> row;
    for (int64_t e = 0; e < s.experts; ++e)
      row.push_back(a.getAsDouble(t * s.experts + e));
    rowsDiffer = rowsDiffer || a.getAsDouble(t * s.experts) != a.getAsDouble(0);
    std::sort(row.begin(), row.end());
    EXPECT_EQ(row, levels) << "token " << t;
  }
  EXPECT_TRUE(rowsDiffer);
}

TEST(MoeInputTest, FillsTheOpsInputsAndNothingElse) {
  MoeSpec s;
  s.tokens = 4;
  s.hidden = 256;
  s.inter = 64;
  s.experts = 4;
  const KernelPackage pkg = packageOf(s, true);
  const std::optional<HostTensor> x = moeInput(s, pkg.params[*pkg.findParam("x")], 3);
  ASSERT_TRUE(x);
  EXPECT_EQ(x->data, makeRandom(ElemType::BF16, moeShapeX(s), 3).data);
  for (const auto &[name, k] :
       {std::pair<const char *, int64_t>{"w_gate", 256}, {"w_up", 256}, {"w_down", 64}}) {
    const std::optional<HostTensor> w =
        moeInput(s, pkg.params[*pkg.findParam(name)], 3);
    ASSERT_TRUE(w) << name;
    const HostTensor raw = makeRandom(ElemType::BF16, w->shape, 3);
    double maxAbs = 0;
    for (int64_t i = 0; i < w->numElements(); ++i) {
      // A power-of-two scale keeps every value exact.
      EXPECT_EQ(w->getAsDouble(i), raw.getAsDouble(i) * moeWeightScale(k)) << name;
      maxAbs = std::max(maxAbs, std::fabs(w->getAsDouble(i)));
    }
    EXPECT_LE(maxAbs, moeWeightScale(k));
    EXPECT_GT(maxAbs, moeWeightScale(k) / 2);
  }
  EXPECT_EQ(moeInput(s, pkg.params[*pkg.findParam("router_logits")], 3)->data,
            moeRouterLogits(s, 3).data);
  EXPECT_FALSE(moeInput(s, pkg.params[*pkg.findParam("y")], 3));
  EXPECT_FALSE(moeInput(s, pkg.params[*pkg.findParam("expert_ids")], 3));
  // makePackageInput, the one rule of the GPU child and the emulator.
  const KernelParam &logits = pkg.params[*pkg.findParam("router_logits")];
  EXPECT_EQ(makePackageInput(pkg, logits, 9).data,
            moeRouterLogits(s, packageInputSeed(9, "router_logits")).data);
}

//===----------------------------------------------------------------------===//
// The host reference
//===----------------------------------------------------------------------===//

TEST(MoeReferenceTest, RoutesBySoftmaxTopKInDescendingOrder) {
  MoeSpec s;
  s.experts = 4;
  s.topK = 2;
  const HostTensor logits = logitsOf({1, 3, 2, 0});
  MoeRoute r = moeRoute(s, logits, 0);
  EXPECT_EQ(r.ids, (std::vector<int32_t>{1, 2}));
  const double sum = std::exp(-2.0) + 1 + std::exp(-1.0) + std::exp(-3.0);
  EXPECT_NEAR(r.weights[0], 1 / sum, 1e-7);
  EXPECT_NEAR(r.weights[1], std::exp(-1.0) / sum, 1e-7);
  s.renormalize = true;
  r = moeRoute(s, logits, 0);
  EXPECT_NEAR(r.weights[0], 1 / (1 + std::exp(-1.0)), 1e-7);
  EXPECT_NEAR(r.weights[1], std::exp(-1.0) / (1 + std::exp(-1.0)), 1e-7);
  EXPECT_FLOAT_EQ(r.weights[0] + r.weights[1], 1.0f);
  // The f32 arithmetic of emitRoute, bit for bit.
  const float p0 = 1.0f / (std::exp(-2.0f) + 1.0f + std::exp(-1.0f) + std::exp(-3.0f));
  s.renormalize = false;
  EXPECT_EQ(moeRoute(s, logits, 0).weights[0],
            1.0f / (std::exp(1.0f - 3.0f) + std::exp(3.0f - 3.0f) +
                    std::exp(2.0f - 3.0f) + std::exp(0.0f - 3.0f)));
  EXPECT_NEAR(moeRoute(s, logits, 0).weights[0], p0, 1e-7);
}

TEST(MoeReferenceTest, TiesGoToTheLowerIndex) {
  MoeSpec s;
  s.experts = 4;
  s.topK = 2;
  EXPECT_EQ(moeRoute(s, logitsOf({1, 2, 2, 2}), 0).ids,
            (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(moeRoute(s, logitsOf({5, 5, 5, 5}), 0).ids,
            (std::vector<int32_t>{0, 1}));
  s.topK = 4;
  EXPECT_EQ(moeRoute(s, logitsOf({0, 7, 0, 7}), 0).ids,
            (std::vector<int32_t>{1, 3, 0, 2}));
  // NaN logits still give valid, distinct experts (the first unchosen).
  const double nan = std::numeric_limits<double>::quiet_NaN();
  s.topK = 2;
  EXPECT_EQ(moeRoute(s, logitsOf({nan, nan, nan, nan}), 0).ids,
            (std::vector<int32_t>{0, 1}));
}

TEST(MoeReferenceTest, ExpertRowRoundsAAndTheOutputToDtype) {
  // x = [1, 2]; expert 1: w_gate = I, w_up = [[1, 1], [0, 1]],
  // w_down = [[1, 0], [0, 0.5]] (expert 0 all zeros).
  MoeSpec s = tinySpec();
  const HostTensor x = tensorOf(ElemType::BF16, {1, 2}, {1, 2});
  const HostTensor wg = tensorOf(ElemType::BF16, {2, 2, 2}, {0, 0, 0, 0, 1, 0, 0, 1});
  const HostTensor wu = tensorOf(ElemType::BF16, {2, 2, 2}, {0, 0, 0, 0, 1, 1, 0, 1});
  const HostTensor wd = tensorOf(ElemType::BF16, {2, 2, 2}, {0, 0, 0, 0, 1, 0, 0, 0.5});
  // relu: g = [1, 2], u = [1, 3], a = [1, 6], y_e = [1, 3].
  EXPECT_EQ(moeExpertRow(s, x, wg, wu, wd, 0, 1), (std::vector<double>{1, 3}));
  EXPECT_EQ(moeExpertRow(s, x, wg, wu, wd, 0, 0), (std::vector<double>{0, 0}));
  // silu: a = [silu(1) * 1, silu(2) * 3], each rounded to bf16 before the
  // down product; y_e = [a0, a1 / 2], rounded again.
  s.act = Activation::Silu;
  const double a0 = roundTo(ElemType::BF16, 1 / (1 + std::exp(-1.0)));
  const double a1 = roundTo(ElemType::BF16, 3 * 2 / (1 + std::exp(-2.0)));
  EXPECT_NE(a0, 1 / (1 + std::exp(-1.0)));
  EXPECT_EQ(moeExpertRow(s, x, wg, wu, wd, 0, 1),
            (std::vector<double>{a0, roundTo(ElemType::BF16, a1 / 2)}));
  // gelu, tanh form, in f16.
  s.act = Activation::Gelu;
  s.dtype = ElemType::F16;
  const HostTensor x16 = tensorOf(ElemType::F16, {1, 2}, {1, 2});
  const HostTensor wg16 = tensorOf(ElemType::F16, {2, 2, 2}, {0, 0, 0, 0, 1, 0, 0, 1});
  const HostTensor wu16 = tensorOf(ElemType::F16, {2, 2, 2}, {0, 0, 0, 0, 1, 1, 0, 1});
  const HostTensor wd16 = tensorOf(ElemType::F16, {2, 2, 2}, {0, 0, 0, 0, 1, 0, 0, 0.5});
  const double g0 = roundTo(ElemType::F16, activate(Activation::Gelu, 1.0));
  EXPECT_EQ(moeExpertRow(s, x16, wg16, wu16, wd16, 0, 1)[0], g0);
}

TEST(MoeReferenceTest, CombinesTheSlotsWithTheirWeights) {
  // Two experts, both chosen (top-2): expert 0 doubles x, expert 1 negates
  // it (relu keeps the positive gate: w_gate = I, w_up = +-I, w_down = 2 I or I).
  MoeSpec s = tinySpec();
  s.topK = 2;
  s.out = ElemType::F32;
  const HostTensor x = tensorOf(ElemType::BF16, {1, 2}, {1, 2});
  const HostTensor wg = tensorOf(ElemType::BF16, {2, 2, 2}, {1, 0, 0, 1, 1, 0, 0, 1});
  const HostTensor wu = tensorOf(ElemType::BF16, {2, 2, 2}, {1, 0, 0, 1, -1, 0, 0, -1});
  const HostTensor wd = tensorOf(ElemType::BF16, {2, 2, 2}, {2, 0, 0, 2, 1, 0, 0, 1});
  // a_0 = x * x = [1, 4], y_0 = [2, 8]; a_1 = -[1, 4], y_1 = -[1, 4].
  const HostTensor logits = logitsOf({1, 0}); // p = [e / (1 + e), 1 / (1 + e)]
  const MoeRow row = moeRow(s, x, logits, wg, wu, wd, 0);
  EXPECT_EQ(row.route.ids, (std::vector<int32_t>{0, 1}));
  const float w0 = row.route.weights[0], w1 = row.route.weights[1];
  EXPECT_NEAR(w0, std::exp(1.0) / (1 + std::exp(1.0)), 1e-7);
  EXPECT_EQ(row.y, (std::vector<double>{w0 * 2.0f + w1 * -1.0f,
                                        w0 * 8.0f + w1 * -4.0f}));
  // Rounded to dtype_out at the end.
  s.out = ElemType::BF16;
  const MoeRow rounded = moeRow(s, x, logits, wg, wu, wd, 0);
  EXPECT_EQ(rounded.y[1], roundTo(ElemType::BF16, row.y[1]));
  // Renormalising over both experts changes nothing: they sum to 1 already.
  s.renormalize = true;
  EXPECT_NEAR(moeRoute(s, logits, 0).weights[0], w0, 1e-7);
  // Top-1 renormalised: weight 1, y = y_0.
  s.topK = 1;
  EXPECT_EQ(moeRow(s, x, logits, wg, wu, wd, 0).y, (std::vector<double>{2, 8}));
  s.renormalize = false;
  EXPECT_EQ(moeRow(s, x, logits, wg, wu, wd, 0).y,
            (std::vector<double>{roundTo(ElemType::BF16, w0 * 2.0f),
                                 roundTo(ElemType::BF16, w0 * 8.0f)}));
}

TEST(MoeReferenceTest, ExpectedHoldsTheRowsOfTheCheckedTokens) {
  MoeSpec s;
  s.tokens = 6;
  s.hidden = 16;
  s.inter = 8;
  s.experts = 4;
  s.topK = 2;
  s.renormalize = true;
  const KernelPackage pkg = packageOf(s, false);
  std::vector<HostTensor> in;
  for (const char *name : {"x", "router_logits", "w_gate", "w_up", "w_down"})
    in.push_back(makePackageInput(pkg, pkg.params[*pkg.findParam(name)], 1));
  const MoeExpected e = moeExpected(s, in[0], in[1], in[2], in[3], in[4], {1, 4});
  EXPECT_EQ(e.y.shape, (std::vector<int64_t>{2, 16}));
  EXPECT_EQ(e.ids.shape, (std::vector<int64_t>{2, 2}));
  const MoeRow row = moeRow(s, in[0], in[1], in[2], in[3], in[4], 4);
  for (int64_t h = 0; h < 16; ++h)
    EXPECT_EQ(e.y.getAsDouble(16 + h), row.y[h]);
  EXPECT_EQ(e.ids.getAsDouble(2), row.route.ids[0]);
  double norm = 0;
  for (double v : row.y)
    norm += v * v;
  EXPECT_GT(std::sqrt(norm / 16), 1e-3); // the scaled inputs keep y O(1)
  EXPECT_LT(std::sqrt(norm / 16), 10.0);
}

TEST(MoeReferenceTest, ChecksTheRoutingExactly) {
  MoeSpec s;
  s.tokens = 5;
  s.experts = 8;
  s.topK = 2;
  const HostTensor logits = moeRouterLogits(s, 4);
  HostTensor ids = makeZeros(ElemType::I32, moeShapeRoute(s));
  for (int64_t t = 0; t < s.tokens; ++t) {
    const MoeRoute r = moeRoute(s, logits, t);
    ids.setFromDouble(2 * t, r.ids[0]);
    ids.setFromDouble(2 * t + 1, r.ids[1]);
  }
  std::string why;
  EXPECT_TRUE(checkMoeRouting(s, logits, ids, why)) << why;
  // The slots of token 3 swapped: the same experts in the wrong order.
  const double a = ids.getAsDouble(6), b = ids.getAsDouble(7);
  ids.setFromDouble(6, b);
  ids.setFromDouble(7, a);
  EXPECT_FALSE(checkMoeRouting(s, logits, ids, why));
  EXPECT_NE(why.find("expert_ids: 1 of 5 tokens routed differently; token 3"),
            std::string::npos) << why;
}

TEST(MoeReferenceTest, ChecksEveryTokenOfASmallLayerAndASampleOfABigOne) {
  MoeSpec s;
  s.tokens = 40;
  s.hidden = 64;
  s.inter = 128;
  s.experts = 8;
  s.topK = 2;
  HostTensor logits = moeRouterLogits(s, 1);
  EXPECT_EQ(moeCheckedTokens(s, logits, 1).size(), 40u);
  // Mixtral's layer at 64 tokens: 4 of them, first and last included.
  std::string err;
  ASSERT_TRUE(parseMoeOp(mixtralOp(), s, err)) << err;
  s.tokens = 64;
  logits = moeRouterLogits(s, 1);
  const std::vector<int64_t> tokens = moeCheckedTokens(s, logits, 1);
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_EQ(tokens.front(), 0);
  EXPECT_EQ(tokens.back(), 63);
  EXPECT_TRUE(std::is_sorted(tokens.begin(), tokens.end()));
  EXPECT_EQ(std::set<int64_t>(tokens.begin(), tokens.end()).size(), 4u);
  EXPECT_EQ(moeCheckedTokens(s, logits, 1), tokens);
  // Each token past the first and last reaches an expert they do not, when
  // one exists: 4 tokens of 2 slots reach at least 5 of the 8 experts.
  std::set<int32_t> reached;
  for (int64_t t : tokens)
    for (int32_t e : moeRoute(s, logits, t).ids)
      reached.insert(e);
  EXPECT_GE(reached.size(), 5u);
  // A larger budget share for a smaller layer: H = I = 1024, k = 2:
  // 2^29 / (2 * 3 * 2^20) = 85 tokens of 1000.
  s.tokens = 1000;
  s.hidden = s.inter = 1024;
  logits = moeRouterLogits(s, 2);
  EXPECT_EQ(moeCheckedTokens(s, logits, 2).size(), 85u);
}

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

namespace {

/// T = 5, H = 32, I = 48, E = 4, top-2.
MoeSpec paramsSpec() {
  MoeSpec s;
  s.tokens = 5;
  s.hidden = 32;
  s.inter = 48;
  s.experts = 4;
  s.topK = 2;
  return s;
}

} // namespace

TEST(MoeParamsTest, AcceptsTheOpsTensorsWithOrWithoutTheWorkspaces) {
  const MoeSpec s = paramsSpec();
  std::string err;
  EXPECT_TRUE(checkMoeParams(packageOf(s, true), s, err)) << err;
  EXPECT_TRUE(checkMoeParams(packageOf(s, false), s, err)) << err;
  KernelPackage pkg = packageOf(s, true);
  pkg.params.push_back(tensor("counts", ElemType::I32, {4}, ParamRole::Workspace));
  EXPECT_TRUE(checkMoeParams(pkg, s, err)) << err; // a schedule's own
}

TEST(MoeParamsTest, RefusesWhatTheOpDoesNotHave) {
  MoeSpec s = paramsSpec();
  s.logits = ElemType::BF16;
  using Edit = std::function<void(KernelPackage &)>;
  const std::vector<std::pair<Edit, std::string>> cases = {
      {[](KernelPackage &p) { paramNamed(p, "x").dtype = ElemType::F16; },
       "parameter 'x' is f16 5x32, the op says bf16 5x32"},
      {[](KernelPackage &p) { paramNamed(p, "router_logits").dtype = ElemType::F32; },
       "parameter 'router_logits' is f32"},
      {[&](KernelPackage &p) { paramNamed(p, "w_down").shape = moeShapeGateUp(s); },
       "parameter 'w_down' is bf16 4x32x48, the op says bf16 4x48x32"},
      {[](KernelPackage &p) { paramNamed(p, "w_up").shape = {4, 32, 47}; },
       "parameter 'w_up'"},
      {[](KernelPackage &p) { paramNamed(p, "y").role = ParamRole::InOut; },
       "parameter 'y' has role inout, expected output"},
      {[](KernelPackage &p) { paramNamed(p, "w_gate").role = ParamRole::Workspace; },
       "parameter 'w_gate' has role workspace, expected input"},
      {[](KernelPackage &p) { p.params.erase(p.params.begin() + 1); },
       "needs a tensor parameter 'router_logits'"},
      {[](KernelPackage &p) { paramNamed(p, "expert_ids").dtype = ElemType::I64; },
       "parameter 'expert_ids' is i64 5x2, the op says i32 5x2"},
      {[](KernelPackage &p) { paramNamed(p, "expert_offsets").shape = {4}; },
       "parameter 'expert_offsets' is i32 4, the op says i32 5"},
      {[](KernelPackage &p) { paramNamed(p, "h").shape = {10, 32}; },
       "parameter 'h' is bf16 10x32, the op says bf16 10x48"},
      {[](KernelPackage &p) { paramNamed(p, "weights").role = ParamRole::Output; },
       "parameter 'weights' has role output, expected workspace"},
      {[](KernelPackage &p) {
         p.params.push_back(tensor("bias", ElemType::BF16, {32}, ParamRole::Input));
       },
       "moe has a tensor 'bias' (input), not one of x router_logits w_gate "
       "w_up w_down y"}};
  for (const auto &[edit, message] : cases) {
    KernelPackage pkg = packageOf(s, true);
    edit(pkg);
    expectRefused(pkg, s, message);
  }
}

//===----------------------------------------------------------------------===//
// The DeepSeek extensions
//===----------------------------------------------------------------------===//

TEST(MoeDeepSeekTest, ParsesTheFieldsAndKeepsPlainManifestsAsTheyWere) {
  json op = mixtralOp();
  MoeSpec plain;
  std::string err;
  ASSERT_TRUE(parseMoeOp(op, plain, err)) << err;
  EXPECT_EQ(moeOpJson(plain).count("scoring"), 0u); // plain: no new fields
  EXPECT_EQ(moeOpJson(plain).count("shared_inter"), 0u);
  op["experts"] = 256;
  op["top_k"] = 8;
  op["scoring"] = "sigmoid";
  op["correction_bias"] = true;
  op["n_group"] = 8;
  op["topk_group"] = 4;
  op["routed_scaling_factor"] = 2.5;
  op["shared_inter"] = 2048;
  MoeSpec s;
  ASSERT_TRUE(parseMoeOp(op, s, err)) << err;
  EXPECT_TRUE(s.sigmoid);
  EXPECT_TRUE(s.correctionBias);
  EXPECT_EQ(s.nGroup, 8);
  EXPECT_EQ(s.topkGroup, 4);
  EXPECT_EQ(s.scale, 2.5f);
  EXPECT_EQ(s.sharedInter, 2048);
  MoeSpec back;
  ASSERT_TRUE(parseMoeOp(moeOpJson(s), back, err)) << err;
  EXPECT_EQ(moeOpJson(back), moeOpJson(s));
  // The shared expert's GEMMs count.
  EXPECT_EQ(moeFlops(s), 2.0 * 16 * 3 * 4096 * (8.0 * 14336 + 2048));
  for (auto [field, value, message] :
       {std::tuple<const char *, json, const char *>{
            "scoring", "tanh", "'scoring' must be"},
        {"n_group", 3, "'n_group' (3) must divide"},
        {"topk_group", 9, "'topk_group' must be an integer in [1, 8]"},
        {"routed_scaling_factor", -1, "'routed_scaling_factor' must be"}}) {
    json bad = op;
    bad[field] = value;
    EXPECT_FALSE(parseMoeOp(bad, s, err)) << field;
    EXPECT_NE(err.find(message), std::string::npos) << err;
  }
  json few = op;
  few["topk_group"] = 1; // 32 experts kept, top 8: fine; n_group 128: 2 kept
  few["n_group"] = 128;
  EXPECT_FALSE(parseMoeOp(few, s, err));
  EXPECT_NE(err.find("exceeds the experts of the kept groups"),
            std::string::npos)
      << err;
}

TEST(MoeDeepSeekTest, RoutesBySigmoidBiasGroupsAndScale) {
  // 8 experts in 4 groups of 2, 2 groups kept, top 2; logits 0: every
  // score is 1/2, so the bias decides. Choice scores c = 1/2 + bias:
  // [0.6, 1.0 | 1.4, -0.5 | 0.8, 0.8 | 0.5, 0.5]; group scores (two best
  // summed) about 1.6, 0.9, 1.6, 1.0: groups 0 and 2 kept, so expert 2,
  // the best alone, is not eligible; then
  // experts 1 (1.0) and 4 (0.8, tied with 5).
  MoeSpec s = tinySpec();
  s.experts = 8;
  s.topK = 2;
  s.sigmoid = true;
  s.correctionBias = true;
  s.nGroup = 4;
  s.topkGroup = 2;
  s.renormalize = true;
  s.scale = 2.5f;
  const HostTensor logits = logitsOf({0, 0, 0, 0, 0, 0, 0, 0});
  const HostTensor bias = tensorOf(ElemType::F32, {8},
                                   {0.1, 0.5, 0.9, -1, 0.3, 0.3, 0, 0});
  MoeExtras extras;
  extras.bias = &bias;
  const MoeRoute r = moeRoute(s, logits, 0, extras);
  EXPECT_EQ(r.ids, (std::vector<int32_t>{1, 4}));
  // The weights are the uncorrected scores, renormalised, then scaled.
  EXPECT_EQ(r.weights, (std::vector<float>{1.25f, 1.25f}));
  // Without the bias every expert ties: groups 0 and 1, experts 0 and 1.
  s.correctionBias = false;
  EXPECT_EQ(moeRoute(s, logits, 0).ids, (std::vector<int32_t>{0, 1}));
}

TEST(MoeDeepSeekTest, AddsTheSharedExpertAfterTheRoutedSlots) {
  // The routed expert and the shared one are the same identity FFN (relu):
  // y = w * 2 x + 2 x.
  MoeSpec s = tinySpec();
  s.experts = 1;
  s.sharedInter = 2;
  s.out = ElemType::F32;
  const HostTensor x = tensorOf(ElemType::BF16, {1, 2}, {1, 2});
  const HostTensor wg = tensorOf(ElemType::BF16, {1, 2, 2}, {1, 0, 0, 1});
  const HostTensor wu = wg;
  const HostTensor wd = tensorOf(ElemType::BF16, {1, 2, 2}, {2, 0, 0, 2});
  MoeExtras extras;
  extras.sharedGate = &wg;
  extras.sharedUp = &wu;
  extras.sharedDown = &wd;
  const HostTensor logits = logitsOf({0});
  // a = x * x = [1, 4], y_e = [2, 8]; weight 1 (softmax over one expert).
  EXPECT_EQ(moeRow(s, x, logits, wg, wu, wd, 0, extras).y,
            (std::vector<double>{4, 16}));
  KernelPackage pkg = packageOf(s, true);
  std::string err;
  EXPECT_FALSE(checkMoeParams(pkg, s, err)); // the shared weights missing
  for (KernelParam p :
       {tensor("shared_gate", s.dtype, {1, 2, 2}, ParamRole::Input),
        tensor("shared_up", s.dtype, {1, 2, 2}, ParamRole::Input),
        tensor("shared_down", s.dtype, {1, 2, 2}, ParamRole::Input),
        tensor("shared_out", s.dtype, {1, 2}, ParamRole::Workspace)})
    pkg.params.push_back(p);
  EXPECT_TRUE(checkMoeParams(pkg, s, err)) << err;
}

//===----------------------------------------------------------------------===//
// Block-scaled e4m3 weights
//===----------------------------------------------------------------------===//

namespace {

/// mixtralOp with e4m3 weights, as moeSignature writes a layer with scales.
json blockScaledOp() {
  json op = mixtralOp();
  op["weight_dtype"] = "f8E4M3FN";
  op["block_scales"] = true;
  return op;
}

/// T = 5, H = 200, I = 300, E = 4, top-2, block-scaled: partial blocks
/// both ways (ceil(200/128) = 2, ceil(300/128) = 3).
MoeSpec scaledSpec() {
  MoeSpec s = paramsSpec();
  s.hidden = 200;
  s.inter = 300;
  s.blockScales = true;
  return s;
}

} // namespace

TEST(MoeBlockScalesTest, ParsesTheFieldsAndRoundTrips) {
  MoeSpec s;
  std::string err;
  ASSERT_TRUE(parseMoeOp(blockScaledOp(), s, err)) << err;
  EXPECT_TRUE(s.blockScales);
  EXPECT_EQ(s.dtype, ElemType::BF16); // x stays dtype
  EXPECT_EQ(moeWeightType(s), ElemType::F8E4M3FN);
  EXPECT_EQ(moeOpJson(s), blockScaledOp());
  // With the DeepSeek fields, as DeepSeek-V3's layer.
  json v3 = blockScaledOp();
  v3.merge_patch(json{{"experts", 256}, {"top_k", 8}, {"scoring", "sigmoid"},
                      {"correction_bias", true}, {"n_group", 8},
                      {"topk_group", 4}, {"routed_scaling_factor", 2.5},
                      {"shared_inter", 2048}});
  ASSERT_TRUE(parseMoeOp(v3, s, err)) << err;
  EXPECT_TRUE(s.blockScales);
  EXPECT_EQ(moeOpJson(s), v3);
  // A plain layer writes neither field; weight_dtype = dtype is the
  // default spelled out.
  ASSERT_TRUE(parseMoeOp(mixtralOp(), s, err)) << err;
  EXPECT_EQ(moeOpJson(s).count("weight_dtype"), 0u);
  EXPECT_EQ(moeOpJson(s).count("block_scales"), 0u);
  json same = mixtralOp();
  same["weight_dtype"] = "bf16";
  ASSERT_TRUE(parseMoeOp(same, s, err)) << err;
  EXPECT_FALSE(s.blockScales);
}

TEST(MoeBlockScalesTest, RefusesTheFieldsApartOrWithAnotherType) {
  // readBlockScales answers for the moe op as for grouped_gemm (whose
  // tests go through its every refusal).
  MoeSpec s;
  std::string err;
  json apart = blockScaledOp();
  apart.erase("block_scales");
  EXPECT_FALSE(parseMoeOp(apart, s, err));
  EXPECT_NE(err.find("moe op: 'weight_dtype' \"f8E4M3FN\" needs "
                     "'block_scales': true"),
            std::string::npos)
      << err;
  apart = blockScaledOp();
  apart["weight_dtype"] = "f16";
  EXPECT_FALSE(parseMoeOp(apart, s, err));
  EXPECT_NE(err.find("moe op: 'weight_dtype' must be one of \"bf16\", "
                     "\"f8E4M3FN\""),
            std::string::npos)
      << err;
  apart["weight_dtype"] = "f8E4M3FN";
  apart["dtype"] = "f32"; // the dialect allows f32 x; the runtime does not
  EXPECT_FALSE(parseMoeOp(apart, s, err));
  EXPECT_NE(err.find("'dtype' must be one of \"bf16\", \"f16\""),
            std::string::npos)
      << err;
  // With f16 activations the weights are still e4m3.
  json f16 = blockScaledOp();
  f16["dtype"] = "f16";
  ASSERT_TRUE(parseMoeOp(f16, s, err)) << err;
  EXPECT_EQ(moeWeightType(s), ElemType::F8E4M3FN);
}

TEST(MoeBlockScalesTest, NeedsTheScalesAndPassesTheSchedulesWorkspaces) {
  const MoeSpec s = scaledSpec();
  EXPECT_EQ(moeShapeGateUpScale(s), (std::vector<int64_t>{4, 2, 3}));
  EXPECT_EQ(moeShapeDownScale(s), (std::vector<int64_t>{4, 3, 2}));
  std::string err;
  EXPECT_TRUE(checkMoeParams(packageOf(s, false), s, err)) << err;
  // The existing workspaces keep dtype; the quantised copies and their
  // scales are the schedule's own.
  KernelPackage pkg = packageOf(s, true);
  for (KernelParam p :
       {tensor("permuted_q", ElemType::F8E4M3FN, {10, 200}, ParamRole::Workspace),
        tensor("permuted_scale", ElemType::F32, {10, 2}, ParamRole::Workspace),
        tensor("h_q", ElemType::F8E4M3FN, {10, 300}, ParamRole::Workspace),
        tensor("h_scale", ElemType::F32, {10, 3}, ParamRole::Workspace),
        tensor("x_q", ElemType::F8E4M3FN, {5, 200}, ParamRole::Workspace),
        tensor("x_scale", ElemType::F32, {5, 2}, ParamRole::Workspace)})
    pkg.params.push_back(p);
  EXPECT_TRUE(checkMoeParams(pkg, s, err)) << err;
  using Edit = std::function<void(KernelPackage &)>;
  const std::vector<std::pair<Edit, std::string>> cases = {
      {[](KernelPackage &p) {
         p.params.erase(p.params.begin() + long(*p.findParam("w_down_scale")));
       },
       "needs a tensor parameter 'w_down_scale'"},
      {[](KernelPackage &p) { paramNamed(p, "w_gate_scale").shape = {4, 3, 2}; },
       "parameter 'w_gate_scale' is f32 4x3x2, the op says f32 4x2x3"},
      {[](KernelPackage &p) { paramNamed(p, "w_down_scale").shape = {4, 2, 3}; },
       "parameter 'w_down_scale' is f32 4x2x3, the op says f32 4x3x2"},
      {[](KernelPackage &p) { paramNamed(p, "w_up").dtype = ElemType::BF16; },
       "parameter 'w_up' is bf16 4x200x300, the op says f8E4M3FN 4x200x300"},
      {[](KernelPackage &p) { paramNamed(p, "x").dtype = ElemType::F8E4M3FN; },
       "parameter 'x' is f8E4M3FN 5x200, the op says bf16 5x200"},
      {[](KernelPackage &p) {
         paramNamed(p, "w_up_scale").role = ParamRole::Workspace;
       },
       "parameter 'w_up_scale' has role workspace, expected input"}};
  for (const auto &[edit, message] : cases) {
    KernelPackage p = packageOf(s, true);
    edit(p);
    expectRefused(p, s, message);
  }
  // Scales are no input of an unscaled layer.
  MoeSpec plain = s;
  plain.blockScales = false;
  pkg = packageOf(s, false);
  for (const char *w : {"w_gate", "w_up", "w_down"})
    paramNamed(pkg, w).dtype = plain.dtype;
  expectRefused(pkg, plain, "moe has a tensor 'w_gate_scale' (input)");
  // The shared expert's weights are e4m3 and scaled too.
  MoeSpec shared = s;
  shared.sharedInter = 130;
  pkg = packageOf(shared, true);
  for (KernelParam p :
       {tensor("shared_gate", ElemType::F8E4M3FN, {1, 200, 130}, ParamRole::Input),
        tensor("shared_up", ElemType::F8E4M3FN, {1, 200, 130}, ParamRole::Input),
        tensor("shared_down", ElemType::F8E4M3FN, {1, 130, 200}, ParamRole::Input),
        tensor("shared_gate_scale", ElemType::F32, {1, 2, 2}, ParamRole::Input),
        tensor("shared_up_scale", ElemType::F32, {1, 2, 2}, ParamRole::Input)})
    pkg.params.push_back(p);
  expectRefused(pkg, shared, "needs a tensor parameter 'shared_down_scale'");
  pkg.params.push_back(
      tensor("shared_down_scale", ElemType::F32, {1, 2, 2}, ParamRole::Input));
  EXPECT_TRUE(checkMoeParams(pkg, shared, err)) << err;
}

TEST(MoeBlockScalesTest, CountsWeightsAtOneByteAndTheirScales) {
  MoeSpec s;
  std::string err;
  ASSERT_TRUE(parseMoeOp(blockScaledOp(), s, err)) << err;
  const double acts = 16.0 * 4096 * 2 * 2 + 16.0 * 8 * 4; // x, y, logits
  // Three weight tensors of 4096 x 14336 e4m3 bytes and 32 x 112 scales.
  const double expert = 3.0 * 4096 * 14336 + 3.0 * 32 * 112 * 4;
  EXPECT_EQ(moeBytes(s), acts + 8 * expert);
  s.sharedInter = 200; // 2 blocks
  EXPECT_EQ(moeBytes(s),
            acts + 8 * expert + 3.0 * 4096 * 200 + 3.0 * 32 * 2 * 4);
  EXPECT_EQ(moeFlops(s), 2.0 * 16 * 3 * 4096 * (2.0 * 14336 + 200));
}

TEST(MoeBlockScalesTest, ToleranceAddsTheQuantisationOfA) {
  MoeSpec s;
  s.blockScales = true;
  const double e4m3 = 2 * std::sqrt(std::ldexp(1.0, -4) * 1e-4);
  EXPECT_NEAR(e4m3, 5e-3, 1e-12);
  EXPECT_NEAR(moeTolerance(s), 3 * std::ldexp(1.0, -8) + 1e-4 + e4m3, 1e-12);
  s.dtype = s.out = ElemType::F16;
  EXPECT_NEAR(moeTolerance(s), 3 * std::ldexp(1.0, -11) + 1e-4 + e4m3, 1e-12);
  EXPECT_LT(moeTolerance(s), 1e-2);
}

TEST(MoeBlockScalesTest, FillsE4M3WeightsVaryingScalesAndBlockedX) {
  MoeSpec s = scaledSpec();
  s.sharedInter = 130;
  KernelPackage pkg = packageOf(s, true);
  for (KernelParam p :
       {tensor("shared_gate", ElemType::F8E4M3FN, {1, 200, 130}, ParamRole::Input),
        tensor("shared_down", ElemType::F8E4M3FN, {1, 130, 200}, ParamRole::Input),
        tensor("shared_down_scale", ElemType::F32, {1, 2, 2}, ParamRole::Input)})
    pkg.params.push_back(p);
  auto input = [&](const char *name) {
    return moeInput(s, paramNamed(pkg, name), packageInputSeed(4, name));
  };
  // x: dtype, its 128-wide blocks of differing amax.
  const std::optional<HostTensor> x = input("x");
  ASSERT_TRUE(x);
  EXPECT_EQ(x->data,
            blockVaryingActivations(ElemType::BF16, {5, 200},
                                    packageInputSeed(4, "x"))
                .data);
  EXPECT_NE(x->data, makeRandom(ElemType::BF16, {5, 200},
                                packageInputSeed(4, "x")).data);
  // The weights: e4m3 codes, the shared expert's too.
  for (const char *name : {"w_gate", "w_up", "w_down", "shared_gate",
                           "shared_down"}) {
    const std::optional<HostTensor> w = input(name);
    ASSERT_TRUE(w) << name;
    EXPECT_EQ(w->type, ElemType::F8E4M3FN) << name;
    EXPECT_EQ(w->data, blockScaledWeights(ElemType::F8E4M3FN, w->shape,
                                          packageInputSeed(4, name))
                           .data)
        << name;
  }
  // The scales: of K = H for gate and up, I for down, Is for the shared
  // down; no two alike in a row of four.
  for (const auto &[name, k] :
       {std::pair<const char *, int64_t>{"w_gate_scale", 200},
        {"w_up_scale", 200},
        {"w_down_scale", 300},
        {"shared_down_scale", 130}}) {
    const std::optional<HostTensor> t = input(name);
    ASSERT_TRUE(t) << name;
    EXPECT_EQ(t->type, ElemType::F32);
    EXPECT_EQ(t->data, blockScales(ElemType::F32, t->shape, k,
                                   packageInputSeed(4, name))
                           .data)
        << name;
    std::set<double> values;
    for (int64_t i = 0; i < t->numElements(); ++i) {
      EXPECT_GE(t->getAsDouble(i), moeWeightScale(k) / 512) << name;
      EXPECT_LE(t->getAsDouble(i), moeWeightScale(k) / 256 * 3.75) << name;
      values.insert(t->getAsDouble(i));
    }
    EXPECT_GE(values.size(), 3u) << name;
  }
  EXPECT_EQ(input("router_logits")->data,
            moeRouterLogits(s, packageInputSeed(4, "router_logits")).data);
  EXPECT_FALSE(input("h"));
  // An unscaled layer has no scale inputs and keeps its fills.
  MoeSpec plain = paramsSpec();
  EXPECT_FALSE(moeInput(plain, tensor("w_gate_scale", ElemType::F32, {4, 1, 1},
                                      ParamRole::Input), 4));
  EXPECT_EQ(moeInput(plain, tensor("x", ElemType::BF16, {5, 32},
                                   ParamRole::Input), 4)->data,
            makeRandom(ElemType::BF16, {5, 32}, 4).data);
}

TEST(MoeBlockScalesTest, ExtrasAreFoundByName) {
  std::map<std::string, HostTensor> in;
  for (const char *name :
       {"correction_bias", "shared_gate", "shared_up", "shared_down",
        "w_gate_scale", "w_up_scale", "w_down_scale", "shared_gate_scale",
        "shared_up_scale", "shared_down_scale"})
    in[name] = makeZeros(ElemType::F32, {1});
  auto at = [&](const char *name) { return &in.at(name); };
  const MoeExtras e = moeExtras([&](const char *name) -> const HostTensor * {
    const auto it = in.find(name);
    return it == in.end() ? nullptr : &it->second;
  });
  EXPECT_EQ(e.bias, at("correction_bias"));
  EXPECT_EQ(e.sharedDown, at("shared_down"));
  EXPECT_EQ(e.scales.gate, at("w_gate_scale"));
  EXPECT_EQ(e.scales.up, at("w_up_scale"));
  EXPECT_EQ(e.scales.down, at("w_down_scale"));
  EXPECT_EQ(e.sharedScales.gate, at("shared_gate_scale"));
  EXPECT_EQ(e.sharedScales.up, at("shared_up_scale"));
  EXPECT_EQ(e.sharedScales.down, at("shared_down_scale"));
  const MoeExtras none = moeExtras([](const char *) { return nullptr; });
  EXPECT_EQ(none.scales.gate, nullptr);
  EXPECT_EQ(none.sharedScales.down, nullptr);
}

TEST(MoeBlockScalesTest, ReferenceQuantisesXAndTheRoundedA) {
  // T = 1, H = I = 2, E = 1, relu, f32 out; x = [1, 2]; w_gate = I
  // (scale 1/2), w_up = [[1, 1], [0, 1]] (scale 2), w_down = [[1, 0],
  // [0, 1/2]] (scale 4), all e4m3.
  MoeSpec s = tinySpec();
  s.experts = 1;
  s.blockScales = true;
  s.out = ElemType::F32;
  const HostTensor x = tensorOf(ElemType::BF16, {1, 2}, {1, 2});
  const HostTensor wg = tensorOf(ElemType::F8E4M3FN, {1, 2, 2}, {1, 0, 0, 1});
  const HostTensor wu = tensorOf(ElemType::F8E4M3FN, {1, 2, 2}, {1, 1, 0, 1});
  const HostTensor wd = tensorOf(ElemType::F8E4M3FN, {1, 2, 2}, {1, 0, 0, 0.5});
  const HostTensor sg = tensorOf(ElemType::F32, {1, 1, 1}, {0.5});
  const HostTensor su = tensorOf(ElemType::F32, {1, 1, 1}, {2});
  const HostTensor sd = tensorOf(ElemType::F32, {1, 1, 1}, {4});
  // x quantised: s = 2/448, q = [224, 448]. Gate: [224, 448] s/2; up:
  // [224, 672] 2s; a = relu(gate) up = [1, 6] after the bf16 rounding.
  const float sx = 2.0f / 448.0f;
  const double a0 = roundTo(ElemType::BF16, 224.0 * double(sx * 0.5f) *
                                                224.0 * double(sx * 2.0f));
  const double a1 = roundTo(ElemType::BF16, 448.0 * double(sx * 0.5f) *
                                                672.0 * double(sx * 2.0f));
  EXPECT_EQ(a0, 1.0);
  EXPECT_EQ(a1, 6.0);
  // a quantised: s = 6/448, q = [e4m3(74.67) = 72, 448]; y_e = [72, 224]
  // 4s, rounded to bf16: 3.857 -> 3.859375 (unquantised, it would be 4).
  const float sa = 6.0f / 448.0f;
  const std::vector<double> ye = {
      roundTo(ElemType::BF16, 72.0 * double(sa * 4.0f)),
      roundTo(ElemType::BF16, 224.0 * double(sa * 4.0f))};
  EXPECT_EQ(ye, (std::vector<double>{3.859375, 12}));
  MoeExtras extras;
  extras.scales = {&sg, &su, &sd};
  EXPECT_EQ(moeExpertRow(s, x, wg, wu, wd, 0, 0, extras.scales), ye);
  const HostTensor logits = logitsOf({0}); // one expert, weight 1
  EXPECT_EQ(moeRow(s, x, logits, wg, wu, wd, 0, extras).y, ye);
  // The shared expert, the same FFN with its own scales: y doubles.
  s.sharedInter = 2;
  extras.sharedGate = &wg;
  extras.sharedUp = &wu;
  extras.sharedDown = &wd;
  extras.sharedScales = extras.scales;
  EXPECT_EQ(moeRow(s, x, logits, wg, wu, wd, 0, extras).y,
            (std::vector<double>{2 * 3.859375, 24}));
  // Another scale for the down block scales y_e with it (4 -> 8).
  const HostTensor sd8 = tensorOf(ElemType::F32, {1, 1, 1}, {8});
  EXPECT_EQ(moeExpertRow(s, x, wg, wu, wd, 0, 0, {&sg, &su, &sd8}),
            (std::vector<double>{2 * 3.859375, 24}));
}

TEST(MoeBlockScalesTest, ExpectedKeepsYOrderOneWithTheScaledInputs) {
  MoeSpec s = scaledSpec();
  s.renormalize = true;
  const KernelPackage pkg = packageOf(s, false);
  std::map<std::string, HostTensor> in;
  for (const KernelParam &p : pkg.params)
    if (p.role == ParamRole::Input)
      in[p.name] = makePackageInput(pkg, p, 2);
  const MoeExtras extras = moeExtras([&](const char *name) -> const HostTensor * {
    const auto it = in.find(name);
    return it == in.end() ? nullptr : &it->second;
  });
  const MoeExpected e =
      moeExpected(s, in.at("x"), in.at("router_logits"), in.at("w_gate"),
                  in.at("w_up"), in.at("w_down"), {0, 1, 2, 3, 4}, extras);
  double norm = 0;
  for (int64_t i = 0; i < e.y.numElements(); ++i)
    norm += e.y.getAsDouble(i) * e.y.getAsDouble(i);
  const double rms = std::sqrt(norm / double(e.y.numElements()));
  EXPECT_GT(rms, 1e-2);
  EXPECT_LT(rms, 10.0);
}
