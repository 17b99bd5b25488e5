//===- AttentionTest.cpp - the attention op's signature and host mirror ---===//

#include "kgen/runtime/Attention.h"

#include "kgen/runtime/Gemm.h"
#include "kgen/runtime/Sha256.h"

#include "TempDirTest.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

using namespace kgen::rt;
using nlohmann::json;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

json llamaOp() {
  return json::parse(R"({"kind": "attention", "batch": 2, "q_heads": 32,
    "kv_heads": 8, "seq_q": 128, "seq_kv": 256, "head_dim": 128,
    "dtype": "bf16", "dtype_out": "bf16", "kv_lens": true, "lse": true,
    "scale": 0.08838834764831845, "causal": true, "sliding_window": 64,
    "softcap": 30.0})");
}

AttentionSpec tinySpec() {
  AttentionSpec s;
  s.headDim = 32;
  s.dtype = s.out = ElemType::F32;
  s.scale = 1.0;
  return s;
}

/// An f32 tensor of `shape` with every element `value`.
HostTensor filled(std::vector<int64_t> shape, double value) {
  HostTensor t = makeZeros(ElemType::F32, std::move(shape));
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.setFromDouble(i, value);
  return t;
}

/// Sets row (b, h, j) of a [B, H, S, D] tensor to `values` (then zeros).
void setRow(HostTensor &t, int64_t b, int64_t h, int64_t j,
            std::vector<double> values) {
  const int64_t H = t.shape[1], S = t.shape[2], D = t.shape[3];
  const int64_t base = ((b * H + h) * S + j) * D;
  for (int64_t d = 0; d < D; ++d)
    t.setFromDouble(base + d, d < int64_t(values.size()) ? values[d] : 0.0);
}

/// v[b, h, j, d] = 100 j + d: a row says which key it is.
HostTensor keyNumbered(const AttentionSpec &s) {
  HostTensor v = makeZeros(ElemType::F32, attentionShapeKv(s));
  for (int64_t i = 0; i < v.numElements(); ++i)
    v.setFromDouble(i, 100.0 * ((i / s.headDim) % s.seqKv) + i % s.headDim);
  return v;
}

/// The mean of v rows [lo, hi) (keys numbered as keyNumbered) at column d.
double meanOfKeys(int64_t lo, int64_t hi, int64_t d) {
  double sum = 0;
  for (int64_t j = lo; j < hi; ++j)
    sum += 100.0 * j + d;
  return sum / double(hi - lo);
}

/// `x` rounded to `type`, as a tensor stores it.
double roundTo(ElemType type, double x) {
  HostTensor t = makeZeros(type, {1});
  t.setFromDouble(0, x);
  return t.getAsDouble(0);
}

/// parseAttentionOp refuses `op`, saying `message`.
void expectOpRefused(const json &op, const std::string &message) {
  AttentionSpec s;
  std::string err;
  EXPECT_FALSE(parseAttentionOp(op, s, err)) << op.dump();
  EXPECT_NE(err.find(message), std::string::npos)
      << message << " -> " << err;
}

/// parseAttentionOp refuses `op` with `key` set to `value`, saying `message`.
void expectOpRefused(json op, const char *key, const json &value,
                     const char *message) {
  op[key] = value;
  expectOpRefused(op, message);
}

HostTensor lensOf(std::vector<int> lens) {
  HostTensor t = makeZeros(ElemType::I32, {int64_t(lens.size())});
  for (size_t i = 0; i < lens.size(); ++i)
    t.setFromDouble(int64_t(i), lens[i]);
  return t;
}

} // namespace

TEST(AttentionOpTest, ParsesTheManifestObjectAndRoundTrips) {
  AttentionSpec s;
  std::string err;
  ASSERT_TRUE(parseAttentionOp(llamaOp(), s, err)) << err;
  EXPECT_EQ(s.batch, 2);
  EXPECT_EQ(s.qHeads, 32);
  EXPECT_EQ(s.kvHeads, 8);
  EXPECT_EQ(s.seqQ, 128);
  EXPECT_EQ(s.seqKv, 256);
  EXPECT_EQ(s.headDim, 128);
  EXPECT_EQ(s.dtype, ElemType::BF16);
  EXPECT_TRUE(s.kvLens && s.lse && s.causal);
  EXPECT_EQ(s.window, 64);
  EXPECT_EQ(s.softcap, 30.0);
  // scale is the f32 value the op holds.
  EXPECT_EQ(s.scale, double(float(0.08838834764831845)));
  EXPECT_EQ(attentionGroup(s), 4);

  AttentionSpec back;
  ASSERT_TRUE(parseAttentionOp(attentionOpJson(s), back, err)) << err;
  EXPECT_EQ(attentionOpJson(back), attentionOpJson(s));
  for (const char *key : {"kind", "batch", "q_heads", "kv_heads", "seq_q",
                          "seq_kv", "head_dim", "dtype", "dtype_out", "kv_lens",
                          "lse", "scale", "causal", "sliding_window", "softcap"})
    EXPECT_TRUE(attentionOpJson(s).contains(key)) << key;
}

TEST(AttentionOpTest, DefaultsAsTheOpDoes) {
  json op = json::parse(R"({"kind": "attention", "batch": 1, "q_heads": 8,
    "kv_heads": 8, "seq_q": 1, "seq_kv": 4096, "head_dim": 64, "dtype": "f16"})");
  AttentionSpec s;
  std::string err;
  ASSERT_TRUE(parseAttentionOp(op, s, err)) << err;
  EXPECT_EQ(s.out, ElemType::F16);
  EXPECT_EQ(s.scale, double(1.0f / std::sqrt(64.0f)));
  EXPECT_FALSE(s.kvLens || s.lse || s.causal || s.window || s.softcap);
  op["sliding_window"] = nullptr;
  op["softcap"] = nullptr;
  EXPECT_TRUE(parseAttentionOp(op, s, err)) << err;
  AttentionSpec back;
  ASSERT_TRUE(parseAttentionOp(attentionOpJson(s), back, err)) << err;
  EXPECT_EQ(attentionOpJson(back), attentionOpJson(s));
}

TEST(AttentionOpTest, RefusesBadFieldsNamingThem) {
  struct Case {
    const char *key;
    json value;
    const char *message;
  };
  const Case cases[] = {
      {"kind", "gemm", "not an object of kind \"attention\""},
      {"batch", 0, "'batch' must be an integer in [1, 2147483648]"},
      {"q_heads", -4, "'q_heads' must be an integer"},
      {"kv_heads", 1.5, "'kv_heads' must be an integer"},
      {"seq_q", nullptr, "missing 'seq_q'"},
      {"seq_kv", "256", "'seq_kv' must be an integer"},
      {"seq_kv", uint64_t{1} << 40, "'seq_kv' must be an integer"},
      {"head_dim", 100, "'head_dim' is 100; expected a multiple of 8 in [32, 256]"},
      {"head_dim", 24, "'head_dim' is 24"},
      {"head_dim", 264, "'head_dim' is 264"},
      {"kv_heads", 12, "'q_heads' (32) must be a multiple of 'kv_heads' (12)"},
      {"dtype", "f64", "'dtype' must be \"bf16\", \"f16\", \"f32\" or \"f8E4M3FN\""},
      {"dtype", nullptr, "missing 'dtype'"},
      {"dtype_out", "i32", "'dtype_out' must be"},
      {"kv_lens", 1, "'kv_lens' must be true or false"},
      {"lse", "yes", "'lse' must be true or false"},
      {"causal", 0, "'causal' must be true or false"},
      {"scale", 0.0, "'scale' must be finite and non-zero"},
      {"scale", 1e-50, "'scale' must be finite and non-zero as an f32"},
      {"scale", 1e300, "'scale' must be finite and non-zero"},
      {"scale", "0.1", "'scale' must be a number"},
      {"sliding_window", 0, "'sliding_window' must be an integer in [1,"},
      {"sliding_window", true, "'sliding_window' must be an integer"},
      {"softcap", 0.0, "'softcap' must be finite and > 0"},
      {"softcap", -30.0, "'softcap' must be finite and > 0"},
      {"softcap", 1e300, "'softcap' must be finite and > 0"},
  };
  for (const Case &c : cases)
    expectOpRefused(llamaOp(), c.key, c.value, c.message);
  json op = llamaOp();
  op["causal"] = false;
  AttentionSpec s;
  std::string err;
  EXPECT_FALSE(parseAttentionOp(op, s, err));
  EXPECT_NE(err.find("'sliding_window' needs 'causal'"), std::string::npos) << err;
  EXPECT_FALSE(parseAttentionOp(json::array(), s, err));
}

TEST(AttentionOpTest, CountsFlopsAsFlashAttention) {
  AttentionSpec s;
  s.batch = 2;
  s.qHeads = 32;
  s.kvHeads = 8;
  s.seqQ = s.seqKv = 4096;
  s.headDim = 128;
  EXPECT_EQ(attentionFlops(s), 4.0 * 2 * 32 * 4096 * 4096 * 128);
  s.causal = true;
  EXPECT_EQ(attentionFlops(s), 2.0 * 2 * 32 * 4096 * 4096 * 128);
  // Sq != Skv: the product, still halved with causal; kv heads, kv_lens,
  // the window do not count.
  s.seqQ = 1;
  s.seqKv = 8192;
  s.kvLens = true;
  s.window = 128;
  EXPECT_EQ(attentionFlops(s), 2.0 * 2 * 32 * 1 * 8192 * 128);
  s.causal = false;
  s.window.reset();
  EXPECT_EQ(attentionFlops(s), 4.0 * 2 * 32 * 1 * 8192 * 128);
}

namespace {

/// B 2, Hq 4, Hkv 2, Sq 3, Skv 5, D 32: q and out 768 elements, k and v
/// 640 each; bf16 inputs, an f32 output.
AttentionSpec smallSpec() {
  AttentionSpec s;
  s.batch = 2;
  s.qHeads = 4;
  s.kvHeads = 2;
  s.seqQ = 3;
  s.seqKv = 5;
  s.headDim = 32;
  s.out = ElemType::F32;
  return s;
}

} // namespace

TEST(AttentionOpTest, CountsBytesOnce) {
  AttentionSpec s = smallSpec();
  const double q = 2 * 4 * 3 * 32, kv = 2 * 2 * 5 * 32;
  EXPECT_EQ(attentionBytes(s), q * 2 + 2 * kv * 2 + q * 4);
  s.lse = s.kvLens = true;
  EXPECT_EQ(attentionBytes(s), q * 2 + 2 * kv * 2 + q * 4 + 2 * 4 * 3 * 4 + 2 * 4);
}

TEST(AttentionOpTest, Tolerances) {
  // 16-bit and f32 attention: the same on either instruction, or none.
  const json wgmma = {{"instruction", "wgmma"}};
  for (const json &config : {json(), json{{"instruction", "mma_sync"}}, wgmma}) {
    SCOPED_TRACE(config.dump());
    AttentionSpec s;
    EXPECT_EQ(attentionTolerance(s, config), 1e-2);
    EXPECT_EQ(attentionLseTolerance(s), 1e-3);
    s.dtype = s.out = ElemType::F32;
    EXPECT_EQ(attentionTolerance(s, config), 1e-4);
    EXPECT_EQ(attentionLseTolerance(s), 1e-4);
    s.out = ElemType::BF16; // the output's rounding dominates
    EXPECT_EQ(attentionTolerance(s, config), 1e-2);
  }
}

//===----------------------------------------------------------------------===//
// Parameters
//===----------------------------------------------------------------------===//

namespace {

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

/// A package of `spec`'s parameters, q/out/lse in the op's layout or the
/// packed view.
KernelPackage packageOf(const AttentionSpec &s, bool packed) {
  KernelPackage pkg;
  pkg.name = "attn";
  const auto qShape = packed ? attentionPackedShapeQ(s) : attentionShapeQ(s);
  pkg.params.push_back(tensor("q", s.dtype, qShape, ParamRole::Input));
  pkg.params.push_back(tensor("k", attentionKvType(s), attentionShapeKv(s), ParamRole::Input));
  pkg.params.push_back(tensor("v", attentionKvType(s), attentionShapeKv(s), ParamRole::Input));
  if (s.kvLens)
    pkg.params.push_back(tensor("kv_lens", ElemType::I32, {s.batch}, ParamRole::Input));
  for (auto [name, has] : {std::pair{"q_descale", s.qDescale},
                           std::pair{"k_descale", s.kDescale},
                           std::pair{"v_descale", s.vDescale}})
    if (has)
      pkg.params.push_back(tensor(name, ElemType::F32, {1}, ParamRole::Input));
  pkg.params.push_back(tensor("out", s.out, qShape, ParamRole::Output));
  if (s.lse)
    pkg.params.push_back(tensor("lse", ElemType::F32,
                                packed ? attentionPackedShapeLse(s)
                                       : attentionShapeLse(s),
                                ParamRole::Output));
  KernelParam scale;
  scale.name = "scale";
  scale.kind = ParamKind::Scalar;
  pkg.params.push_back(scale);
  return pkg;
}

AttentionSpec gqaSpec() {
  AttentionSpec s;
  s.batch = 2;
  s.qHeads = 8;
  s.kvHeads = 2;
  s.seqQ = 3;
  s.seqKv = 40;
  s.headDim = 64;
  s.kvLens = s.lse = true;
  s.scale = 0.125;
  return s;
}

void expectRefused(const KernelPackage &pkg, const AttentionSpec &s,
                   const std::string &message) {
  std::string err;
  EXPECT_FALSE(checkAttentionParams(pkg, s, err)) << message;
  EXPECT_NE(err.find(message), std::string::npos) << err;
}

} // namespace

TEST(AttentionParamsTest, AcceptsTheOpLayoutAndThePackedView) {
  const AttentionSpec s = gqaSpec();
  std::string err;
  EXPECT_TRUE(checkAttentionParams(packageOf(s, false), s, err)) << err;
  EXPECT_TRUE(checkAttentionParams(packageOf(s, true), s, err)) << err;
  EXPECT_EQ(attentionPackedShapeQ(s), (std::vector<int64_t>{2, 2, 12, 64}));
  EXPECT_EQ(attentionPackedShapeLse(s), (std::vector<int64_t>{2, 2, 12}));
  // Split-KV workspaces.
  KernelPackage pkg = packageOf(s, true);
  pkg.params.push_back(tensor("o_partial", ElemType::F32, {4, 2, 2, 12, 64},
                              ParamRole::Workspace));
  pkg.params.push_back(tensor("lse_partial", ElemType::F32, {4, 2, 2, 12},
                              ParamRole::Workspace));
  EXPECT_TRUE(checkAttentionParams(pkg, s, err)) << err;
}

TEST(AttentionParamsTest, RefusesWhatTheOpDoesNotHave) {
  AttentionSpec s = gqaSpec();
  KernelPackage pkg = packageOf(s, false);
  pkg.params.erase(pkg.params.begin() + *pkg.findParam("kv_lens"));
  expectRefused(pkg, s, "attention needs a tensor parameter 'kv_lens'");

  AttentionSpec noLens = s;
  noLens.kvLens = false;
  expectRefused(packageOf(s, false), noLens,
                "has a tensor parameter 'kv_lens' but the op has no kv_lens");
  AttentionSpec noLse = s;
  noLse.lse = false;
  expectRefused(packageOf(s, false), noLse,
                "has a tensor parameter 'lse' but the op has no lse");

  pkg = packageOf(s, false);
  pkg.params[*pkg.findParam("k")].dtype = ElemType::F16;
  expectRefused(pkg, s, "parameter 'k' is f16 2x2x40x64, the op says bf16 2x2x40x64");
  pkg = packageOf(s, false);
  pkg.params[*pkg.findParam("kv_lens")].dtype = ElemType::I64;
  expectRefused(pkg, s, "parameter 'kv_lens' is i64");
  pkg = packageOf(s, false);
  pkg.params[*pkg.findParam("lse")].dtype = ElemType::BF16;
  expectRefused(pkg, s, "parameter 'lse' is bf16");
  pkg = packageOf(s, false);
  pkg.params[*pkg.findParam("out")].shape = {2, 8, 40, 64};
  expectRefused(pkg, s, "the op says bf16 2x8x3x64 or 2x2x12x64");
  pkg = packageOf(s, false);
  pkg.params[*pkg.findParam("q")].role = ParamRole::InOut;
  expectRefused(pkg, s, "parameter 'q' has role inout, expected input");
  pkg = packageOf(s, false);
  pkg.params[*pkg.findParam("out")].role = ParamRole::Input;
  expectRefused(pkg, s, "parameter 'out' has role input, expected output");
  pkg = packageOf(s, false);
  pkg.params.push_back(tensor("scratch", ElemType::F32, {16}, ParamRole::Workspace));
  expectRefused(pkg, s, "has a tensor parameter 'scratch', not one of");

  pkg = packageOf(s, false);
  pkg.params.push_back(tensor("o_partial", ElemType::F32, {4, 2, 2, 12, 64},
                              ParamRole::Workspace));
  expectRefused(pkg, s, "has 'o_partial' without 'lse_partial'");
  pkg.params.push_back(tensor("lse_partial", ElemType::F32, {3, 2, 2, 12},
                              ParamRole::Workspace));
  expectRefused(pkg, s, "parameter 'lse_partial' is f32 3x2x2x12, the op says f32 4x2x2x12");
  pkg.params.back().shape = {4, 2, 2, 12};
  pkg.params.back().role = ParamRole::Output;
  expectRefused(pkg, s, "parameter 'lse_partial' has role output, expected workspace");
}

//===----------------------------------------------------------------------===//
// The host reference, on cases computed by hand
//===----------------------------------------------------------------------===//

TEST(AttentionReferenceTest, OneKeyGivesItsValueRow) {
  AttentionSpec s = tinySpec();
  s.seqKv = 1;
  HostTensor q = filled(attentionShapeQ(s), 0.5);
  HostTensor k = filled(attentionShapeKv(s), 0.25);
  HostTensor v = keyNumbered(s);
  const AttentionRow row = attentionRow(s, q, k, v, {}, 0, 0, 0);
  for (int64_t d = 0; d < 32; ++d)
    EXPECT_EQ(row.out[d], double(d));
  EXPECT_DOUBLE_EQ(row.lse, 32 * 0.5 * 0.25); // the one logit, scale 1
}

TEST(AttentionReferenceTest, NoVisibleKeyGivesZerosAndMinusInfinity) {
  AttentionSpec s = tinySpec();
  s.batch = 2;
  s.seqKv = 4;
  s.kvLens = true;
  HostTensor q = filled(attentionShapeQ(s), 1), k = filled(attentionShapeKv(s), 1);
  HostTensor v = keyNumbered(s);
  const HostTensor lens = lensOf({0, -3});    // -3 clamps to 0
  for (int64_t b = 0; b < 2; ++b) {
    const AttentionRow row = attentionRow(s, q, k, v, {&lens}, b, 0, 0);
    EXPECT_EQ(row.lse, -kInf);
    for (double o : row.out)
      EXPECT_EQ(o, 0.0);
  }
  // Causal with more queries than keys: the first Sq - L queries see none.
  s.kvLens = false;
  s.batch = 1;
  s.seqQ = 6;
  s.causal = true;
  q = filled(attentionShapeQ(s), 0);
  EXPECT_EQ(attentionRow(s, q, k, v, {}, 0, 0, 1).lse, -kInf);
  EXPECT_EQ(attentionRow(s, q, k, v, {}, 0, 0, 2).out[5], 5.0); // key 0
}

TEST(AttentionReferenceTest, CausalIsBottomRight) {
  // q = 0: every visible key has logit 0, so out is the mean of the visible
  // value rows and lse = log(count).
  AttentionSpec s = tinySpec();
  s.seqQ = 2;
  s.seqKv = 4;
  s.causal = true;
  HostTensor q = filled(attentionShapeQ(s), 0), k = filled(attentionShapeKv(s), 1);
  HostTensor v = keyNumbered(s);
  // Query 0 sits at p = 0 + 4 - 2 = 2: keys 0..2; query 1 at 3: keys 0..3.
  AttentionRow r0 = attentionRow(s, q, k, v, {}, 0, 0, 0);
  AttentionRow r1 = attentionRow(s, q, k, v, {}, 0, 0, 1);
  EXPECT_DOUBLE_EQ(r0.out[7], meanOfKeys(0, 3, 7));
  EXPECT_DOUBLE_EQ(r0.lse, std::log(3.0));
  EXPECT_DOUBLE_EQ(r1.out[7], meanOfKeys(0, 4, 7));
  EXPECT_DOUBLE_EQ(r1.lse, std::log(4.0));
  // kv_lens moves the diagonal: L = 3 puts query 0 at p = 1 (keys 0, 1).
  s.kvLens = true;
  const HostTensor lens = lensOf({3});
  r0 = attentionRow(s, q, k, v, {&lens}, 0, 0, 0);
  r1 = attentionRow(s, q, k, v, {&lens}, 0, 0, 1);
  EXPECT_DOUBLE_EQ(r0.out[0], meanOfKeys(0, 2, 0));
  EXPECT_DOUBLE_EQ(r1.out[0], meanOfKeys(0, 3, 0));
  // Without causal, kv_lens alone: keys 0..2 for every query.
  s.causal = false;
  EXPECT_DOUBLE_EQ(attentionRow(s, q, k, v, {&lens}, 0, 0, 0).out[3],
                   meanOfKeys(0, 3, 3));
}

TEST(AttentionReferenceTest, WindowHidesKeysAtOrBeforePMinusW) {
  AttentionSpec s = tinySpec();
  s.seqQ = 2;
  s.seqKv = 6;
  s.causal = true;
  s.window = 2;
  HostTensor q = filled(attentionShapeQ(s), 0), k = filled(attentionShapeKv(s), 1);
  HostTensor v = keyNumbered(s);
  // Query 0 at p = 4: keys 3, 4 (j > 2); query 1 at p = 5: keys 4, 5.
  AttentionRow r0 = attentionRow(s, q, k, v, {}, 0, 0, 0);
  AttentionRow r1 = attentionRow(s, q, k, v, {}, 0, 0, 1);
  EXPECT_DOUBLE_EQ(r0.out[1], meanOfKeys(3, 5, 1));
  EXPECT_DOUBLE_EQ(r1.out[1], meanOfKeys(4, 6, 1));
  EXPECT_DOUBLE_EQ(r1.lse, std::log(2.0));
  s.window = 1; // the diagonal key only
  EXPECT_DOUBLE_EQ(attentionRow(s, q, k, v, {}, 0, 0, 0).out[2],
                   meanOfKeys(4, 5, 2));
}

TEST(AttentionReferenceTest, SoftcapBendsTheScaledLogitsBeforeTheSoftmax) {
  AttentionSpec s = tinySpec();
  s.seqKv = 2;
  s.scale = 0.5;
  s.softcap = 1.0;
  HostTensor q = makeZeros(ElemType::F32, attentionShapeQ(s));
  HostTensor k = makeZeros(ElemType::F32, attentionShapeKv(s));
  HostTensor v = keyNumbered(s);
  setRow(q, 0, 0, 0, {1.0});
  setRow(k, 0, 0, 0, {4.0}); // logit 0.5 * 4 = 2, capped: tanh(2)
  const double t0 = std::tanh(2.0);
  const AttentionRow row = attentionRow(s, q, k, v, {}, 0, 0, 0);
  const double w0 = std::exp(t0) / (std::exp(t0) + 1.0);
  EXPECT_NEAR(row.out[0], w0 * 0 + (1 - w0) * 100, 1e-12);
  EXPECT_NEAR(row.lse, std::log(std::exp(t0) + 1.0), 1e-12);
  s.softcap.reset(); // uncapped: logit 2
  EXPECT_NEAR(attentionRow(s, q, k, v, {}, 0, 0, 0).lse,
              std::log(std::exp(2.0) + 1.0), 1e-12);
}

TEST(AttentionReferenceTest, QueryHeadsShareTheirGroupsKeyValueHead) {
  AttentionSpec s = tinySpec();
  s.qHeads = 4;
  s.kvHeads = 2;
  s.seqKv = 1;
  HostTensor q = filled(attentionShapeQ(s), 0), k = filled(attentionShapeKv(s), 0);
  HostTensor v = makeZeros(ElemType::F32, attentionShapeKv(s));
  setRow(v, 0, 0, 0, {3.0});
  setRow(v, 0, 1, 0, {7.0});
  EXPECT_EQ(attentionRow(s, q, k, v, {}, 0, 0, 0).out[0], 3.0);
  EXPECT_EQ(attentionRow(s, q, k, v, {}, 0, 1, 0).out[0], 3.0);
  EXPECT_EQ(attentionRow(s, q, k, v, {}, 0, 2, 0).out[0], 7.0);
  EXPECT_EQ(attentionRow(s, q, k, v, {}, 0, 3, 0).out[0], 7.0);
}

TEST(AttentionReferenceTest, ExpectedRowsAreRowsOfTheOpAndOfThePackedView) {
  AttentionSpec s = tinySpec();
  s.batch = 2;
  s.qHeads = 4;
  s.kvHeads = 2;
  s.seqQ = 3;
  s.seqKv = 5;
  s.out = ElemType::BF16;
  const HostTensor q = makeRandom(ElemType::F32, attentionShapeQ(s), 1);
  const HostTensor k = makeRandom(ElemType::F32, attentionShapeKv(s), 2);
  const HostTensor v = makeRandom(ElemType::F32, attentionShapeKv(s), 3);
  const std::vector<int64_t> rows = sampleIndices(2 * 4 * 3, 8, 7);
  ASSERT_EQ(rows.front(), 0);
  ASSERT_EQ(rows.back(), 23);
  const AttentionExpected e = attentionExpected(s, q, k, v, {}, rows);
  ASSERT_EQ(e.out.shape, (std::vector<int64_t>{8, 32}));
  EXPECT_EQ(e.out.type, ElemType::BF16);
  for (size_t r = 0; r < rows.size(); ++r) {
    // Flat row = (b * Hq + h) * Sq + i; in the packed view
    // (b * Hkv + hk) * (G * Sq) + g * Sq + i: the same number.
    const int64_t i = rows[r] % 3, h = rows[r] / 3 % 4, b = rows[r] / 12;
    const AttentionRow row = attentionRow(s, q, k, v, {}, b, h, i);
    EXPECT_EQ(e.out.getAsDouble(int64_t(r) * 32 + 5), roundTo(ElemType::BF16, row.out[5]));
    EXPECT_FLOAT_EQ(float(e.lse.getAsDouble(int64_t(r))), float(row.lse));
  }
  const HostTensor gathered = gatherRows(q, rows, 32);
  EXPECT_EQ(gathered.shape, (std::vector<int64_t>{8, 32}));
  EXPECT_EQ(gathered.getAsDouble(32 + 1), q.getAsDouble(rows[1] * 32 + 1));
}

TEST(AttentionReferenceTest, KvLensAreDrawnFromTheSeed) {
  AttentionSpec s;
  s.batch = 4000;
  s.seqKv = 1000;
  const HostTensor a = attentionKvLens(s, 42), b = attentionKvLens(s, 42);
  EXPECT_EQ(a.data, b.data);
  EXPECT_NE(attentionKvLens(s, 43).data, a.data);
  int64_t full = 0, empty = 0, shortOnes = 0, partial = 0;
  for (int64_t i = 0; i < s.batch; ++i) {
    const double len = a.getAsDouble(i);
    ASSERT_GE(len, 0);
    ASSERT_LE(len, 1000);
    full += len == 1000;
    empty += len == 0;
    shortOnes += len >= 1 && len <= 8;
    partial += len > 8 && len < 1000;
  }
  EXPECT_NEAR(double(full) / s.batch, 0.5, 0.05);
  EXPECT_GT(empty, 0);
  EXPECT_NEAR(double(shortOnes + empty) / s.batch, 1.0 / 8, 0.03);
  EXPECT_NEAR(double(partial) / s.batch, 3.0 / 8, 0.05);
  s.seqKv = 1; // lengths 0 or 1 only
  const HostTensor one = attentionKvLens(s, 5);
  for (int64_t i = 0; i < s.batch; ++i)
    ASSERT_LE(one.getAsDouble(i), 1);
}

TEST(AttentionReferenceTest, ChecksTheLogSumExp) {
  HostTensor ref = makeZeros(ElemType::F32, {3});
  ref.setFromDouble(0, 1.5);
  ref.setFromDouble(1, -kInf);
  ref.setFromDouble(2, 2.0);
  HostTensor got = ref;
  got.setFromDouble(2, 2.0005);
  double maxErr = 0;
  std::string why;
  EXPECT_TRUE(checkLse(got, ref, 1e-3, maxErr, why)) << why;
  EXPECT_NEAR(maxErr, 5e-4, 1e-6);
  EXPECT_FALSE(checkLse(got, ref, 1e-4, maxErr, why));
  EXPECT_NE(why.find("1 off by more than"), std::string::npos) << why;
  got = ref;
  got.setFromDouble(1, 0.0); // a row with no key must say -inf
  EXPECT_FALSE(checkLse(got, ref, 1e-3, maxErr, why));
  EXPECT_NE(why.find("1 infinite where the reference differs"), std::string::npos) << why;
  got = ref;
  got.setFromDouble(0, std::nan(""));
  EXPECT_FALSE(checkLse(got, ref, 1e-3, maxErr, why));
  EXPECT_NE(why.find("1 of 3 rows NaN"), std::string::npos) << why;
}

//===----------------------------------------------------------------------===//
// Packages
//===----------------------------------------------------------------------===//

namespace {

/// A decode-step attention package (packed GQA view, kv_lens, lse, split-KV
/// workspaces) as the compiler writes it, without source_sha256.
json attentionManifest() {
  return json::parse(R"({
    "schema": "kgen.kernel-package", "version": 2, "name": "attn_decode",
    "source": "kernel.cu", "target": "sm_80",
    "kernels": [
      {"entry": "kgen_attn_split", "launch": {"grid": [1, 8, 8], "block": [128, 1, 1],
       "cluster": [1, 1, 1], "dynamic_smem_bytes": 0},
       "args": ["q", "k", "v", "kv_lens", "o_partial", "lse_partial"]},
      {"entry": "kgen_attn_combine", "launch": {"grid": [1, 8, 1], "block": [128, 1, 1],
       "cluster": [1, 1, 1], "dynamic_smem_bytes": 0},
       "args": ["o_partial", "lse_partial", "out", "lse"]}],
    "params": [
      {"name": "q", "kind": "tensor", "dtype": "bf16", "shape": [4, 2, 4, 128], "role": "input"},
      {"name": "k", "kind": "tensor", "dtype": "bf16", "shape": [4, 2, 1024, 128], "role": "input"},
      {"name": "v", "kind": "tensor", "dtype": "bf16", "shape": [4, 2, 1024, 128], "role": "input"},
      {"name": "kv_lens", "kind": "tensor", "dtype": "i32", "shape": [4], "role": "input"},
      {"name": "out", "kind": "tensor", "dtype": "bf16", "shape": [4, 2, 4, 128], "role": "output"},
      {"name": "lse", "kind": "tensor", "dtype": "f32", "shape": [4, 8, 1], "role": "output"},
      {"name": "o_partial", "kind": "tensor", "dtype": "f32", "shape": [8, 4, 2, 4, 128], "role": "workspace"},
      {"name": "lse_partial", "kind": "tensor", "dtype": "f32", "shape": [8, 4, 2, 4], "role": "workspace"}],
    "op": {"kind": "attention", "batch": 4, "q_heads": 8, "kv_heads": 2,
           "seq_q": 1, "seq_kv": 1024, "head_dim": 128, "dtype": "bf16",
           "dtype_out": "bf16", "kv_lens": true, "lse": true,
           "scale": 0.08838834764831845, "causal": false,
           "sliding_window": null, "softcap": null},
    "config": {"source": "default", "split_kv": 8},
    "flops": 16777216, "bytes": 4210832})");
}

class AttentionPackageTest : public kgen::rt::test::TempDirTest {
protected:
  std::string write(const std::string &name, json manifest) {
    const std::string source = "extern \"C\" __global__ void kgen_attn_split() {}\n"
                               "extern \"C\" __global__ void kgen_attn_combine() {}\n";
    const std::string pkgDir = dir + "/" + name;
    std::filesystem::create_directories(pkgDir);
    manifest["source_sha256"] = sha256Hex(source);
    std::ofstream(pkgDir + "/manifest.json") << manifest.dump(2);
    std::ofstream(pkgDir + "/kernel.cu", std::ios::binary) << source;
    return pkgDir;
  }
};

} // namespace

TEST_F(AttentionPackageTest, LoadsAnAttentionPackage) {
  KernelPackage pkg;
  std::string err;
  ASSERT_TRUE(loadPackage(write("ok", attentionManifest()), pkg, err)) << err;
  AttentionSpec spec;
  ASSERT_TRUE(parseAttentionOp(pkg.op, spec, err)) << err;
  EXPECT_TRUE(checkAttentionParams(pkg, spec, err)) << err;
  EXPECT_EQ(attentionFlops(spec), pkg.flops);
  EXPECT_EQ(attentionBytes(spec), pkg.bytes);
}

TEST_F(AttentionPackageTest, RefusesACorruptAttentionOpWithAMessage) {
  struct Case {
    const char *pointer;
    json value;
    const char *message;
  };
  const Case cases[] = {
      {"/op/head_dim", 100,
       "manifest.json: op: 'head_dim' is 100; expected a multiple of 8 in [32, 256]"},
      {"/op/kv_heads", 3, "manifest.json: op: 'q_heads' (8) must be a multiple of 'kv_heads' (3)"},
      {"/op/sliding_window", 16, "manifest.json: op: 'sliding_window' needs 'causal'"},
      {"/op/scale", 0.0, "manifest.json: op: 'scale' must be finite and non-zero"},
      {"/op/kv_lens", false,
       "manifest.json: params: package attn_decode: attention has a tensor "
       "parameter 'kv_lens' but the op has no kv_lens"},
      {"/op/seq_kv", 2048, "manifest.json: params: package attn_decode: attention "
                           "parameter 'k' is bf16 4x2x1024x128, the op says bf16 4x2x2048x128"},
      {"/params/5/dtype", "bf16", "parameter 'lse' is bf16"},
      {"/params/6/role", "output", "parameter 'o_partial' has role output, expected workspace"},
  };
  for (const Case &c : cases) {
    json manifest = attentionManifest();
    manifest[json::json_pointer(c.pointer)] = c.value;
    const std::string pkgDir = write("bad", manifest);
    KernelPackage pkg;
    std::string err;
    EXPECT_FALSE(loadPackage(pkgDir, pkg, err)) << c.pointer;
    EXPECT_EQ(err.rfind(pkgDir + "/manifest.json: ", 0), 0u) << err;
    EXPECT_NE(err.find(c.message), std::string::npos) << c.pointer << ": " << err;
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  }
  // The op without a required field.
  json manifest = attentionManifest();
  manifest["op"].erase("seq_q");
  KernelPackage pkg;
  std::string err;
  EXPECT_FALSE(loadPackage(write("bad", manifest), pkg, err));
  EXPECT_NE(err.find("op: missing 'seq_q'"), std::string::npos) << err;
}

namespace {

TEST(AttentionReferenceTest, LocalWindowKeepsKeysAroundThePosition) {
  // Zero logits: the output is the mean of the visible keys' value rows.
  AttentionSpec s = tinySpec();
  s.seqQ = 2;
  s.seqKv = 10;
  s.windowLeft = 2;
  s.windowRight = 1;
  HostTensor q = makeZeros(ElemType::F32, attentionShapeQ(s));
  HostTensor k = makeZeros(ElemType::F32, attentionShapeKv(s));
  HostTensor v = keyNumbered(s);
  // Query 0 at position 0 + 10 - 2 = 8: keys 6..9 (9 is the last key).
  EXPECT_DOUBLE_EQ(attentionRow(s, q, k, v, {}, 0, 0, 0).out[3],
                   meanOfKeys(6, 10, 3));
  // Query 1 at position 9: keys 7..9.
  EXPECT_DOUBLE_EQ(attentionRow(s, q, k, v, {}, 0, 0, 1).out[3],
                   meanOfKeys(7, 10, 3));
  s.windowRight = 0; // query 0 sees keys 6..8
  EXPECT_DOUBLE_EQ(attentionRow(s, q, k, v, {}, 0, 0, 0).out[3],
                   meanOfKeys(6, 9, 3));
}

TEST(AttentionReferenceTest, AlibiSubtractsSlopeTimesDistance) {
  // Two keys, zero logits; the query at position 1 (Sq = 1, Skv = 2): key 0
  // is at distance 1, so its weight is exp(-slope) against key 1's 1.
  AttentionSpec s = tinySpec();
  s.seqKv = 2;
  s.alibi = true;
  s.qHeads = 2;
  HostTensor q = makeZeros(ElemType::F32, attentionShapeQ(s));
  HostTensor k = makeZeros(ElemType::F32, attentionShapeKv(s));
  HostTensor v = keyNumbered(s);
  HostTensor slopes = makeZeros(ElemType::F32, {2});
  slopes.setFromDouble(0, 0.5);
  slopes.setFromDouble(1, 2.0);
  AttentionExtras extras;
  extras.alibi = &slopes;
  for (int64_t h = 0; h < 2; ++h) {
    const double slope = h == 0 ? 0.5 : 2.0, w0 = std::exp(-slope);
    const AttentionRow row = attentionRow(s, q, k, v, extras, 0, h, 0);
    EXPECT_NEAR(row.out[0], (w0 * 0 + 1 * 100) / (w0 + 1), 1e-12);
    EXPECT_NEAR(row.lse, std::log(w0 + 1), 1e-12);
  }
}

TEST(AttentionOpTest, ReadsWindowsAndAlibi) {
  AttentionSpec s = tinySpec();
  s.windowLeft = 0;
  s.windowRight = 7;
  s.alibi = true;
  AttentionSpec back;
  std::string err;
  ASSERT_TRUE(parseAttentionOp(attentionOpJson(s), back, err)) << err;
  EXPECT_EQ(back.windowLeft, std::optional<int64_t>(0));
  EXPECT_EQ(back.windowRight, std::optional<int64_t>(7));
  EXPECT_TRUE(back.alibi);
  nlohmann::json j = attentionOpJson(s);
  j["window_left"] = -1;
  EXPECT_FALSE(parseAttentionOp(j, back, err));
  j["window_left"] = 3;
  j["causal"] = true;
  j["sliding_window"] = 4;
  EXPECT_FALSE(parseAttentionOp(j, back, err));
  EXPECT_NE(err.find("give one of them"), std::string::npos) << err;
}

} // namespace

//===----------------------------------------------------------------------===//
// A paged KV cache: k and v [N, Hkv, P, D] read through block_table [B, M]
//===----------------------------------------------------------------------===//

namespace {

/// `op` (or `s`) over a paged cache: pages of `pageSize` keys, a pool of
/// `numPages`.
json pagedOver(json op, int64_t pageSize, int64_t numPages) {
  op["paged"] = true;
  op["page_size"] = pageSize;
  op["num_pages"] = numPages;
  return op;
}
AttentionSpec pagedOver(AttentionSpec s, int64_t pageSize, int64_t numPages) {
  s.paged = true;
  s.pageSize = pageSize;
  s.numPages = numPages;
  return s;
}

json pagedOp() {
  return pagedOver(llamaOp(), 16, 64); // seq_kv 256
}

/// gqaSpec's heads in f32, causal, three sequences of up to 3 pages of 4
/// keys in a pool of 16 pages.
AttentionSpec pagedSpec() {
  AttentionSpec s = gqaSpec();
  s.batch = 3;
  s.seqKv = 12;
  s.dtype = s.out = ElemType::F32;
  s.causal = true;
  return pagedOver(s, 4, 16);
}

/// Checks block table `table` ([B, M]) against each sequence's key count
/// lens[b]: its first ceil(L / P) entries pages of [0, N), the pages of the
/// whole table distinct, the other entries -1. Adds the -1 entries to
/// `padded` and the pages not at the identity layout's place (b * M + m)
/// to `shuffled`.
void expectPagesOfTheLengths(const HostTensor &table,
                             const std::vector<int64_t> &lens, int64_t P,
                             int64_t N, int64_t &padded, int64_t &shuffled) {
  const int64_t M = table.shape[1];
  std::vector<bool> seen(size_t(N), false);
  for (int64_t b = 0; b < int64_t(lens.size()); ++b)
    for (int64_t m = 0; m < M; ++m) {
      const auto page = int64_t(table.getAsDouble(b * M + m));
      if (m * P >= lens[b]) { // no key of this page is read
        EXPECT_EQ(page, -1) << "b " << b << " m " << m;
        ++padded;
        continue;
      }
      ASSERT_GE(page, 0);
      ASSERT_LT(page, N);
      EXPECT_FALSE(seen[page]) << "page " << page << " twice";
      seen[page] = true;
      shuffled += page != b * M + m;
    }
}

/// The rows of out, every one: 0 .. attentionRowCount(s) - 1.
std::vector<int64_t> allRows(const AttentionSpec &s) {
  std::vector<int64_t> rows(size_t(attentionRowCount(s)));
  for (size_t r = 0; r < rows.size(); ++r)
    rows[r] = int64_t(r);
  return rows;
}

/// `s` with a contiguous cache of the same logical keys.
AttentionSpec unpaged(AttentionSpec s) {
  s.paged = false;
  s.pageSize = s.numPages = 0;
  return s;
}

/// attentionManifest's block_table param ([4, 64]: pages of 16 keys),
/// inserted after kv_lens and passed to the split kernel.
void addBlockTable(json &manifest) {
  manifest["params"].insert(manifest["params"].begin() + 4,
                            json{{"name", "block_table"}, {"kind", "tensor"},
                                 {"dtype", "i32"}, {"shape", {4, 64}},
                                 {"role", "input"}});
  manifest["kernels"][0]["args"] = {"q", "k", "v", "kv_lens", "block_table",
                                    "o_partial", "lse_partial"};
}

/// attentionManifest over a pool of 300 pages of 16 keys (>= B * M = 256),
/// HND ([N, Hkv, P, D]) or with `nhd` NHD ([N, P, Hkv, D]), and its table.
json pagedManifest(bool nhd) {
  json m = attentionManifest(); // B 4, Hkv 2, Skv 1024, D 128
  m["op"]["paged"] = true;
  m["op"]["page_size"] = 16;
  m["op"]["num_pages"] = 300;
  const std::vector<int64_t> pages =
      nhd ? std::vector<int64_t>{300, 16, 2, 128}
          : std::vector<int64_t>{300, 2, 16, 128};
  if (nhd)
    m["op"]["pages_nhd"] = true;
  m["params"][1]["shape"] = pages;
  m["params"][2]["shape"] = pages;
  addBlockTable(m);
  return m;
}

/// pagedSpec's package: kv_lens, block_table, lse, q in the op's layout.
KernelPackage pagedPackage(const AttentionSpec &s) {
  KernelPackage pkg = packageOf(s, false);
  pkg.params.push_back(tensor("block_table", ElemType::I32,
                              attentionShapeBlockTable(s), ParamRole::Input));
  pkg.op = attentionOpJson(s);
  return pkg;
}

} // namespace

TEST(AttentionOpTest, ParsesAndRoundTripsAPagedCache) {
  AttentionSpec s;
  std::string err;
  ASSERT_TRUE(parseAttentionOp(pagedOp(), s, err)) << err;
  EXPECT_TRUE(s.paged);
  EXPECT_EQ(s.pageSize, 16);
  EXPECT_EQ(s.numPages, 64);
  EXPECT_EQ(attentionPagesPerSequence(s), 16);
  EXPECT_EQ(attentionShapeKv(s), (std::vector<int64_t>{64, 8, 16, 128}));
  EXPECT_EQ(attentionShapeBlockTable(s), (std::vector<int64_t>{2, 16}));
  AttentionSpec back;
  ASSERT_TRUE(parseAttentionOp(attentionOpJson(s), back, err)) << err;
  EXPECT_EQ(attentionOpJson(back), attentionOpJson(s));
  EXPECT_EQ(attentionOpJson(s)["page_size"], 16);
  EXPECT_EQ(attentionOpJson(s)["num_pages"], 64);
  // Old packages have no paged field; the writer leaves it out as the
  // dialect's signature does.
  ASSERT_TRUE(parseAttentionOp(llamaOp(), s, err)) << err;
  EXPECT_FALSE(s.paged);
  EXPECT_FALSE(attentionOpJson(s).contains("paged"));
  EXPECT_FALSE(attentionOpJson(s).contains("page_size"));
  json op = llamaOp();
  op["paged"] = false;
  EXPECT_TRUE(parseAttentionOp(op, s, err)) << err;
  EXPECT_FALSE(s.paged);
}

TEST(AttentionOpTest, RefusesBadPagingNamingIt) {
  struct Case {
    const char *key;
    json value;
    const char *message;
  };
  const Case cases[] = {
      {"paged", "yes", "'paged' must be true or false"},
      {"page_size", 0, "'page_size' must be an integer in [1,"},
      {"page_size", 512, "'page_size' is 512; expected an integer in [1, 256]"},
      {"page_size", 48, "'seq_kv' (256) must be a multiple of 'page_size' (48)"},
      {"page_size", nullptr, "missing 'page_size'"},
      {"num_pages", 0, "'num_pages' must be an integer in [1,"},
      {"num_pages", nullptr, "missing 'num_pages'"},
  };
  for (const Case &c : cases)
    expectOpRefused(pagedOp(), c.key, c.value, c.message);
  json op = llamaOp();
  op["page_size"] = 16;
  AttentionSpec s;
  std::string err;
  EXPECT_FALSE(parseAttentionOp(op, s, err));
  EXPECT_NE(err.find("'page_size' needs 'paged'"), std::string::npos) << err;
}

TEST(AttentionOpTest, CountsThePagesTheSequencesNameAndTheTable) {
  AttentionSpec s = pagedSpec();
  const AttentionSpec contiguous = unpaged(s);
  // 3 sequences of 3 pages (not the 16 of the pool), and the i32 table.
  EXPECT_EQ(attentionBytes(s), attentionBytes(contiguous) + 3 * 3 * 4);
  EXPECT_EQ(attentionFlops(s), attentionFlops(contiguous));
}

TEST(AttentionParamsTest, PagedCacheNeedsItsTableAndPages) {
  const AttentionSpec s = pagedSpec();
  std::string err;
  EXPECT_TRUE(checkAttentionParams(pagedPackage(s), s, err)) << err;

  KernelPackage pkg = pagedPackage(s);
  pkg.params.erase(pkg.params.begin() + *pkg.findParam("block_table"));
  expectRefused(pkg, s, "attention needs a tensor parameter 'block_table' (a "
                        "paged op reads k and v through an i32 [B, M] block "
                        "table)");
  pkg = pagedPackage(s);
  pkg.params[*pkg.findParam("block_table")].shape = {3, 4};
  expectRefused(pkg, s, "parameter 'block_table' is i32 3x4, the op says i32 3x3");
  pkg = pagedPackage(s);
  pkg.params[*pkg.findParam("block_table")].dtype = ElemType::I64;
  expectRefused(pkg, s, "parameter 'block_table' is i64");
  pkg = pagedPackage(s);
  pkg.params[*pkg.findParam("k")].shape = {3, 2, 12, 64}; // contiguous
  expectRefused(pkg, s, "parameter 'k' is f32 3x2x12x64, the op says f32 "
                        "16x2x4x64 (a paged cache [N, Hkv, P, D]: num_pages "
                        "16, page_size 4)");
  pkg = pagedPackage(s);
  pkg.params[*pkg.findParam("v")].shape = {16, 2, 8, 64};
  expectRefused(pkg, s, "parameter 'v' is f32 16x2x8x64");

  const AttentionSpec contiguous = unpaged(s);
  pkg = packageOf(contiguous, false);
  pkg.params.push_back(tensor("block_table", ElemType::I32, {3, 3},
                              ParamRole::Input));
  expectRefused(pkg, contiguous,
                "has a tensor parameter 'block_table' but the op is not paged");
}

TEST(AttentionReferenceTest, BlockTableHoldsDistinctShuffledPagesPaddedPastTheLengths) {
  AttentionSpec s = pagedSpec();
  s.batch = 4;
  s.seqKv = 64; // M = 16 pages of 4 keys
  s.numPages = 80; // > B * M = 64: some pages unused
  const KernelPackage pkg = pagedPackage(s);
  const KernelParam &param = pkg.params[*pkg.findParam("block_table")];
  int64_t padded = 0, shuffled = 0;
  for (uint64_t seed : {1, 2, 3, 4, 5, 6, 7, 8}) {
    const HostTensor table = makePackageInput(pkg, param, seed);
    ASSERT_EQ(table.type, ElemType::I32);
    ASSERT_EQ(table.shape, (std::vector<int64_t>{4, 16}));
    EXPECT_EQ(table.data, makePackageInput(pkg, param, seed).data);
    // The lengths the run's kv_lens input holds.
    const HostTensor lens =
        makePackageInput(pkg, pkg.params[*pkg.findParam("kv_lens")], seed);
    std::vector<int64_t> L(4);
    for (int64_t b = 0; b < 4; ++b)
      L[b] = std::clamp<int64_t>(int64_t(lens.getAsDouble(b)), 0, 64);
    SCOPED_TRACE("seed " + std::to_string(seed));
    expectPagesOfTheLengths(table, L, 4, 80, padded, shuffled);
  }
  EXPECT_GT(padded, 0);   // short lengths occur over 8 seeds of 4
  EXPECT_GT(shuffled, 0); // not the identity layout
  // Without kv_lens every entry is a page, all distinct.
  s.kvLens = false;
  const HostTensor full = attentionBlockTable(s, 9, nullptr);
  std::vector<bool> seen(80, false);
  for (int64_t e = 0; e < full.numElements(); ++e) {
    const auto page = int64_t(full.getAsDouble(e));
    ASSERT_GE(page, 0);
    ASSERT_LT(page, 80);
    EXPECT_FALSE(seen[page]);
    seen[page] = true;
  }
  EXPECT_NE(attentionBlockTable(s, 10, nullptr).data, full.data);
}

TEST(AttentionReferenceTest, PagedReferenceEqualsTheContiguousOne) {
  const AttentionSpec s = pagedSpec();
  const AttentionSpec contiguous = unpaged(s);
  const HostTensor q = makeRandom(ElemType::F32, attentionShapeQ(s), 1);
  const HostTensor kc = makeRandom(ElemType::F32, attentionShapeKv(contiguous), 2);
  const HostTensor vc = makeRandom(ElemType::F32, attentionShapeKv(contiguous), 3);
  const HostTensor lens = lensOf({12, 5, 0}); // full, 2 pages of 3, none
  const HostTensor table = attentionBlockTable(s, 4, &lens);
  EXPECT_EQ(table.getAsDouble(1 * 3 + 2), -1.0); // padded past ceil(5 / 4)
  // The pool: other values everywhere (a page read wrongly shows), then
  // key j of sequence b at its page.
  HostTensor kp = makeRandom(ElemType::F32, attentionShapeKv(s), 5);
  HostTensor vp = makeRandom(ElemType::F32, attentionShapeKv(s), 6);
  const int64_t D = s.headDim, P = s.pageSize, M = 3;
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t hk = 0; hk < s.kvHeads; ++hk)
      for (int64_t j = 0; j < s.seqKv; ++j) {
        const auto page = int64_t(table.getAsDouble(b * M + j / P));
        if (page < 0)
          continue;
        for (int64_t d = 0; d < D; ++d) {
          const int64_t from = ((b * s.kvHeads + hk) * s.seqKv + j) * D + d;
          const int64_t to = ((page * s.kvHeads + hk) * P + j % P) * D + d;
          kp.setFromDouble(to, kc.getAsDouble(from));
          vp.setFromDouble(to, vc.getAsDouble(from));
        }
      }
  const std::vector<int64_t> rows = allRows(s);
  AttentionExtras extras;
  extras.kvLens = &lens;
  extras.blockTable = &table;
  const AttentionExpected paged = attentionExpected(s, q, kp, vp, extras, rows);
  const AttentionExpected flat =
      attentionExpected(contiguous, q, kc, vc, {&lens}, rows);
  EXPECT_EQ(paged.out.data, flat.out.data);
  EXPECT_EQ(paged.lse.data, flat.lse.data);
  // Not the pool read as if contiguous: the table matters.
  EXPECT_NE(attentionRow(s, q, kp, vp, extras, 0, 0, 2).out,
            attentionRow(contiguous, q, kp, vp, {&lens}, 0, 0, 2).out);

  // A visible key's entry outside [0, N), or no table: a NaN row.
  HostTensor bad = table;
  AttentionExtras badTable = extras;
  badTable.blockTable = &bad;
  bad.setFromDouble(0, 16);
  EXPECT_TRUE(std::isnan(attentionRow(s, q, kp, vp, badTable, 0, 0, 2).lse));
  bad.setFromDouble(0, -1);
  EXPECT_TRUE(std::isnan(attentionRow(s, q, kp, vp, badTable, 0, 0, 2).out[0]));
  EXPECT_TRUE(std::isnan(attentionRow(s, q, kp, vp, {&lens}, 0, 0, 2).lse));
  // Sequence 2 sees no key: its -1 entries are not read.
  EXPECT_EQ(attentionRow(s, q, kp, vp, extras, 2, 0, 2).lse, -kInf);
}

TEST_F(AttentionPackageTest, LoadsAPagedAttentionPackage) {
  json m = pagedManifest(false);
  KernelPackage pkg;
  std::string err;
  ASSERT_TRUE(loadPackage(write("paged", m), pkg, err)) << err;
  AttentionSpec spec;
  ASSERT_TRUE(parseAttentionOp(pkg.op, spec, err)) << err;
  EXPECT_TRUE(spec.paged);
  EXPECT_EQ(attentionPagesPerSequence(spec), 64);

  m["params"].erase(4); // no block_table
  m["kernels"][0]["args"].erase(4);
  EXPECT_FALSE(loadPackage(write("no-table", m), pkg, err));
  EXPECT_NE(err.find("needs a tensor parameter 'block_table'"), std::string::npos) << err;
  json contiguousKv = attentionManifest();
  contiguousKv["op"] = m["op"];
  addBlockTable(contiguousKv);
  EXPECT_FALSE(loadPackage(write("contiguous-kv", contiguousKv), pkg, err));
  EXPECT_NE(err.find("parameter 'k' is bf16 4x2x1024x128, the op says bf16 "
                     "300x2x16x128 (a paged cache"),
            std::string::npos)
      << err;
}

//===----------------------------------------------------------------------===//
// FP8 (e4m3) operands with per-tensor descales
//===----------------------------------------------------------------------===//

namespace {

/// llamaOp reading an e4m3 KV cache with k and v descales (vLLM's fp8 KV
/// cache under bf16 queries).
json fp8KvOp() {
  json op = llamaOp();
  op["dtype_kv"] = "f8E4M3FN";
  op["k_descale"] = true;
  op["v_descale"] = true;
  return op;
}

/// Every operand e4m3, each with its descale; the output bf16.
json fp8Op() {
  json op = fp8KvOp();
  op["dtype"] = "f8E4M3FN";
  op.erase("dtype_kv");
  op["q_descale"] = true;
  return op;
}

/// gqaSpec with an e4m3 KV cache and its k and v descales.
AttentionSpec fp8KvSpec() {
  AttentionSpec s = gqaSpec();
  s.kvDtype = ElemType::F8E4M3FN;
  s.kDescale = s.vDescale = true;
  return s;
}

/// A descale tensor (f32 [1]) holding `value`.
HostTensor descaleOf(double value) { return filled({1}, value); }

/// `t`'s values in a tensor of `type` (exact when `type` holds them).
HostTensor convertedTo(const HostTensor &t, ElemType type) {
  HostTensor out = makeZeros(type, t.shape);
  for (int64_t i = 0; i < t.numElements(); ++i)
    out.setFromDouble(i, t.getAsDouble(i));
  return out;
}

} // namespace

TEST(AttentionFp8Test, ParsesAndRoundTripsDtypeKvAndDescales) {
  AttentionSpec s;
  std::string err;
  ASSERT_TRUE(parseAttentionOp(fp8KvOp(), s, err)) << err;
  EXPECT_EQ(s.dtype, ElemType::BF16);
  EXPECT_EQ(attentionKvType(s), ElemType::F8E4M3FN);
  EXPECT_FALSE(s.qDescale);
  EXPECT_TRUE(s.kDescale && s.vDescale);
  AttentionSpec back;
  ASSERT_TRUE(parseAttentionOp(attentionOpJson(s), back, err)) << err;
  EXPECT_EQ(attentionOpJson(back), attentionOpJson(s));
  EXPECT_EQ(attentionOpJson(s)["dtype_kv"], "f8E4M3FN");
  EXPECT_EQ(attentionOpJson(s)["k_descale"], true);
  EXPECT_FALSE(attentionOpJson(s).contains("q_descale")); // false: absent

  // An e4m3 Q: K and V e4m3 too (dtype_kv absent), dtype_out given.
  ASSERT_TRUE(parseAttentionOp(fp8Op(), s, err)) << err;
  EXPECT_EQ(s.dtype, ElemType::F8E4M3FN);
  EXPECT_EQ(attentionKvType(s), ElemType::F8E4M3FN);
  EXPECT_EQ(s.out, ElemType::BF16);
  EXPECT_TRUE(s.qDescale && s.kDescale && s.vDescale);
  ASSERT_TRUE(parseAttentionOp(attentionOpJson(s), back, err)) << err;
  EXPECT_EQ(attentionOpJson(back), attentionOpJson(s));
  EXPECT_FALSE(attentionOpJson(s).contains("dtype_kv")); // dtype's
  // e4m3 without descales (each 1).
  json op = fp8Op();
  for (const char *key : {"q_descale", "k_descale", "v_descale"})
    op.erase(key);
  ASSERT_TRUE(parseAttentionOp(op, s, err)) << err;
  EXPECT_FALSE(s.qDescale || s.kDescale || s.vDescale);

  // dtype_kv equal to dtype, and flags written false, are the defaults:
  // the object written is the one without them.
  op = llamaOp();
  op["dtype_kv"] = "bf16";
  op["q_descale"] = op["k_descale"] = op["v_descale"] = false;
  ASSERT_TRUE(parseAttentionOp(op, s, err)) << err;
  EXPECT_FALSE(s.kvDtype.has_value());
  AttentionSpec plain;
  ASSERT_TRUE(parseAttentionOp(llamaOp(), plain, err)) << err;
  EXPECT_EQ(attentionOpJson(s).dump(), attentionOpJson(plain).dump());
  for (const char *key : {"dtype_kv", "q_descale", "k_descale", "v_descale"})
    EXPECT_FALSE(attentionOpJson(plain).contains(key)) << key;
}

TEST(AttentionFp8Test, RefusesMismatchedTypesAndDescalesNamingThem) {
  struct Case {
    json op;
    const char *message;
  };
  auto with = [](json op, const char *key, const json &value) {
    op[key] = value;
    return op;
  };
  json f32Op = with(llamaOp(), "dtype", "f32");
  const Case cases[] = {
      {with(f32Op, "dtype_kv", "f8E4M3FN"),
       "'dtype_kv' is f8E4M3FN; expected 'dtype' (f32): an f8E4M3FN K and V "
       "need a bf16, f16 or f8E4M3FN 'dtype'"},
      {with(llamaOp(), "dtype_kv", "f16"),
       "'dtype_kv' is f16; expected 'dtype' (bf16) or f8E4M3FN"},
      {with(with(fp8Op(), "dtype_kv", "bf16"), "k_descale", false),
       "'dtype_kv' is bf16; expected 'dtype' (f8E4M3FN)"},
      {with(llamaOp(), "dtype_kv", "i8"),
       "'dtype_kv' must be \"bf16\", \"f16\", \"f32\" or \"f8E4M3FN\", got \"i8\""},
      {with(llamaOp(), "dtype_kv", 8), "'dtype_kv' must be"},
      {with(llamaOp(), "q_descale", true),
       "'q_descale' needs 'dtype' f8E4M3FN (Q is bf16"},
      {with(fp8KvOp(), "q_descale", true),
       "'q_descale' needs 'dtype' f8E4M3FN (Q is bf16"},
      {with(llamaOp(), "k_descale", true),
       "'k_descale' needs 'dtype_kv' f8E4M3FN (K is bf16"},
      {with(with(llamaOp(), "dtype", "f16"), "v_descale", true),
       "'v_descale' needs 'dtype_kv' f8E4M3FN (V is f16"},
      {with(fp8KvOp(), "v_descale", "yes"), "'v_descale' must be true or false"},
      {with(fp8Op(), "dtype_out", "f8E4M3FN"),
       "'dtype_out' must be \"bf16\", \"f16\" or \"f32\", got \"f8E4M3FN\""},
  };
  for (const Case &c : cases)
    expectOpRefused(c.op, c.message);
  // An e4m3 Q has no default output type.
  json op = fp8Op();
  op.erase("dtype_out");
  expectOpRefused(op, "missing 'dtype_out' (\"bf16\", \"f16\" or \"f32\")");
}

TEST(AttentionFp8Test, CountsOneByteKeysAndValuesAndTheDescalesOnce) {
  AttentionSpec s = smallSpec();
  const double q = 2 * 4 * 3 * 32, kv = 2 * 2 * 5 * 32;
  s.kvDtype = ElemType::F8E4M3FN;
  EXPECT_EQ(attentionBytes(s), q * 2 + 2 * kv * 1 + q * 4);
  s.kDescale = s.vDescale = true;
  EXPECT_EQ(attentionBytes(s), q * 2 + 2 * kv * 1 + q * 4 + 2 * 4);
  s.dtype = ElemType::F8E4M3FN;
  s.qDescale = true;
  EXPECT_EQ(attentionBytes(s), q * 1 + 2 * kv * 1 + q * 4 + 3 * 4);
}

TEST(AttentionFp8Test, EightBitTypesGetTheLowPrecisionTolerances) {
  // The package's config: its instruction decides whether P V reads p in
  // e4m3 (wgmma, FA3's FP8 path) or in f16 (mma_sync widens e4m3 to f16).
  const json wgmma = {{"instruction", "wgmma"}, {"block_m", 128}};
  const json mmaSync = {{"instruction", "mma_sync"}, {"block_m", 64}};
  AttentionSpec s;
  s.dtype = s.out = ElemType::F32;
  EXPECT_EQ(attentionTolerance(s, wgmma), 1e-4); // all f32
  EXPECT_EQ(attentionLseTolerance(s), 1e-4);
  s.kvDtype = ElemType::F8E4M3FN; // an 8-bit input (not a valid op: the
                                  // tolerances read the types only)
  EXPECT_EQ(attentionTolerance(s, mmaSync), 1e-2);
  EXPECT_EQ(attentionTolerance(s, wgmma), 1e-2);
  EXPECT_EQ(attentionLseTolerance(s), 1e-3);
  s.kvDtype.reset();
  s.dtype = ElemType::F8E4M3FN; // e4m3 Q and K, V; f32 out
  EXPECT_EQ(attentionTolerance(s, wgmma), 0.0625); // p rounded to e4m3
  EXPECT_EQ(attentionTolerance(s, mmaSync), 1e-2); // p in f16
  EXPECT_EQ(attentionLseTolerance(s), 1e-3);
  s.out = ElemType::BF16;
  EXPECT_EQ(attentionTolerance(s, wgmma), 0.0625);
  EXPECT_EQ(attentionTolerance(s, mmaSync), 1e-2);
  // No config (a baseline's result), or one that names no instruction:
  // the strict rule.
  for (const json &odd :
       {json(), json::object(), json{{"instruction", nullptr}},
        json{{"instruction", 1}}, json{{"instruction", "WGMMA"}},
        json::array({"wgmma"}), json("wgmma")})
    EXPECT_EQ(attentionTolerance(s, odd), 1e-2) << odd.dump();
  // A bf16 Q over an e4m3 cache keeps the 16-bit rule on wgmma too.
  s.dtype = ElemType::BF16;
  s.kvDtype = ElemType::F8E4M3FN;
  EXPECT_EQ(attentionTolerance(s, wgmma), 1e-2);
}

TEST(AttentionFp8Test, ParamsAreE4m3KeysAndValuesAndF32Descales) {
  const AttentionSpec s = fp8KvSpec();
  std::string err;
  EXPECT_TRUE(checkAttentionParams(packageOf(s, false), s, err)) << err;
  EXPECT_TRUE(checkAttentionParams(packageOf(s, true), s, err)) << err;
  AttentionSpec all = s;
  all.dtype = ElemType::F8E4M3FN;
  all.kvDtype.reset();
  all.qDescale = true;
  EXPECT_TRUE(checkAttentionParams(packageOf(all, true), all, err)) << err;

  KernelPackage pkg = packageOf(s, false);
  pkg.params[*pkg.findParam("k")].dtype = ElemType::BF16;
  expectRefused(pkg, s, "parameter 'k' is bf16 2x2x40x64, the op says f8E4M3FN 2x2x40x64");
  // A missing descale, one the op has not, a wrong type, shape or role.
  pkg = packageOf(s, false);
  pkg.params.erase(pkg.params.begin() + *pkg.findParam("v_descale"));
  expectRefused(pkg, s, "attention needs a tensor parameter 'v_descale'");
  pkg = packageOf(s, false);
  pkg.params.push_back(tensor("q_descale", ElemType::F32, {1}, ParamRole::Input));
  expectRefused(pkg, s, "has a tensor parameter 'q_descale' but the op has no q_descale");
  AttentionSpec noK = s;
  noK.kDescale = false;
  expectRefused(packageOf(s, false), noK,
                "has a tensor parameter 'k_descale' but the op has no k_descale");
  pkg = packageOf(s, false);
  pkg.params[*pkg.findParam("k_descale")].dtype = ElemType::F16;
  expectRefused(pkg, s, "parameter 'k_descale' is f16 1, the op says f32 1");
  pkg = packageOf(s, false);
  pkg.params[*pkg.findParam("k_descale")].shape = {2};
  expectRefused(pkg, s, "parameter 'k_descale' is f32 2, the op says f32 1");
  pkg = packageOf(s, false);
  pkg.params[*pkg.findParam("v_descale")].role = ParamRole::Output;
  expectRefused(pkg, s, "parameter 'v_descale' has role output, expected input");
  pkg = packageOf(s, false);
  pkg.params.push_back(tensor("o_descale", ElemType::F32, {1}, ParamRole::Input));
  expectRefused(pkg, s, "has a tensor parameter 'o_descale', not one of q k v "
                        "kv_lens block_table alibi_slopes q_descale k_descale "
                        "v_descale out lse o_partial lse_partial");
}

TEST(AttentionFp8Test, DescalesScaleTheLogitsAndTheOutputNotTheLse) {
  // One query row, two keys: q = e0, K row 0 = 2 e0, row 1 = 0; V rows
  // 1.5 e0 and -0.75 e0 (e4m3 holds all of them exactly).
  AttentionSpec s = tinySpec();
  s.dtype = s.out = ElemType::BF16;
  s.kvDtype = ElemType::F8E4M3FN;
  s.seqKv = 2;
  s.scale = 0.5;
  s.kDescale = s.vDescale = true;
  HostTensor q = makeZeros(ElemType::BF16, attentionShapeQ(s));
  HostTensor k = makeZeros(ElemType::F8E4M3FN, attentionShapeKv(s));
  HostTensor v = makeZeros(ElemType::F8E4M3FN, attentionShapeKv(s));
  setRow(q, 0, 0, 0, {1.0});
  setRow(k, 0, 0, 0, {2.0});
  setRow(v, 0, 0, 0, {1.5});
  setRow(v, 0, 0, 1, {-0.75});
  ASSERT_EQ(v.getAsDouble(32), -0.75);
  const HostTensor dk = descaleOf(3.0), dv = descaleOf(1.25);
  AttentionExtras extras;
  extras.kDescale = &dk;
  extras.vDescale = &dv;
  // t0 = 0.5 * 3 * (1 * 2) = 3, t1 = 0.
  const double w0 = std::exp(3.0) / (std::exp(3.0) + 1);
  AttentionRow row = attentionRow(s, q, k, v, extras, 0, 0, 0);
  EXPECT_NEAR(row.out[0], 1.25 * (w0 * 1.5 + (1 - w0) * -0.75), 1e-12);
  EXPECT_EQ(row.out[1], 0.0);
  EXPECT_NEAR(row.lse, std::log(std::exp(3.0) + 1), 1e-12);
  // Without v's descale: the output / 1.25, the same lse.
  s.vDescale = false;
  const AttentionRow noDv = attentionRow(s, q, k, v, extras, 0, 0, 0);
  EXPECT_NEAR(noDv.out[0] * 1.25, row.out[0], 1e-12);
  EXPECT_EQ(noDv.lse, row.lse);
  // Without k's: t0 = 0.5 * 2 = 1 (the tensor is not read).
  s.kDescale = false;
  EXPECT_NEAR(attentionRow(s, q, k, v, extras, 0, 0, 0).lse,
              std::log(std::exp(1.0) + 1), 1e-12);
  // dq multiplies like dk, before the softcap.
  s.dtype = ElemType::F8E4M3FN;
  s.qDescale = true;
  s.softcap = 2.0;
  q = convertedTo(q, ElemType::F8E4M3FN);
  const HostTensor dq = descaleOf(0.5);
  extras.qDescale = &dq;
  const double t0 = 2.0 * std::tanh(0.5 * 0.5 * 2 / 2.0);
  EXPECT_NEAR(attentionRow(s, q, k, v, extras, 0, 0, 0).lse,
              std::log(std::exp(t0) + 1), 1e-12);
}

TEST(AttentionFp8Test, E4m3ReferenceIsTheWidenedOneWithTheDescalesApplied) {
  // Random e4m3 operands with descales against the same values in bf16
  // (exact: e4m3 widens exactly) without them: the scale multiplied by
  // dq * dk, the output by dv, the lse as it is.
  AttentionSpec s = gqaSpec(); // GQA, kv_lens, B 2, Sq 3, Skv 40, D 64
  s.causal = true;
  s.softcap = 5.0;
  s.dtype = ElemType::F8E4M3FN;
  s.qDescale = s.kDescale = s.vDescale = true;
  const HostTensor q = makeRandom(ElemType::F8E4M3FN, attentionShapeQ(s), 1);
  const HostTensor k = makeRandom(ElemType::F8E4M3FN, attentionShapeKv(s), 2);
  const HostTensor v = makeRandom(ElemType::F8E4M3FN, attentionShapeKv(s), 3);
  const HostTensor lens = lensOf({40, 17});
  const HostTensor dq = attentionDescale(4), dk = attentionDescale(5),
                   dv = attentionDescale(6);
  std::map<std::string, const HostTensor *> inputs = {
      {"kv_lens", &lens}, {"q_descale", &dq}, {"k_descale", &dk},
      {"v_descale", &dv}};
  const AttentionExtras extras =
      attentionExtras([&](const std::string &name) -> const HostTensor * {
        const auto it = inputs.find(name);
        return it != inputs.end() ? it->second : nullptr;
      });
  EXPECT_EQ(extras.kvLens, &lens);
  EXPECT_EQ(extras.alibi, nullptr);
  EXPECT_EQ(extras.vDescale, &dv);

  AttentionSpec wide = s;
  wide.dtype = ElemType::BF16;
  wide.qDescale = wide.kDescale = wide.vDescale = false;
  wide.scale = s.scale * dq.getAsDouble(0) * dk.getAsDouble(0);
  const HostTensor q16 = convertedTo(q, ElemType::BF16),
                   k16 = convertedTo(k, ElemType::BF16),
                   v16 = convertedTo(v, ElemType::BF16);
  AttentionExtras lensOnly;
  lensOnly.kvLens = &lens;
  double largest = 0;
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t h = 0; h < s.qHeads; ++h)
      for (int64_t i = 0; i < s.seqQ; ++i) {
        const AttentionRow e4m3 = attentionRow(s, q, k, v, extras, b, h, i);
        const AttentionRow ref = attentionRow(wide, q16, k16, v16, lensOnly, b, h, i);
        ASSERT_EQ(e4m3.lse, ref.lse) << b << " " << h << " " << i;
        for (int64_t d = 0; d < s.headDim; ++d) {
          ASSERT_EQ(e4m3.out[d], ref.out[d] * dv.getAsDouble(0)) << d;
          largest = std::max(largest, std::fabs(e4m3.out[d]));
        }
      }
  EXPECT_GT(largest, 0.0);
  // attentionExpected: the same rows, rounded to dtype_out.
  const std::vector<int64_t> rows = {0, 5, 47};
  const AttentionExpected e = attentionExpected(s, q, k, v, extras, rows);
  const AttentionRow last = attentionRow(s, q, k, v, extras, 1, 7, 2);
  EXPECT_EQ(e.out.getAsDouble(2 * 64 + 3), roundTo(ElemType::BF16, last.out[3]));
  EXPECT_FLOAT_EQ(float(e.lse.getAsDouble(2)), float(last.lse));
}

TEST(AttentionFp8Test, AMissingDescaleGivesNaNRowsAndAnUnusedOneIsIgnored) {
  AttentionSpec s = fp8KvSpec();
  s.kvLens = false;
  const HostTensor q = makeRandom(ElemType::BF16, attentionShapeQ(s), 1);
  const HostTensor k = makeRandom(ElemType::F8E4M3FN, attentionShapeKv(s), 2);
  const HostTensor v = makeRandom(ElemType::F8E4M3FN, attentionShapeKv(s), 3);
  const HostTensor d = descaleOf(1.5), empty = makeZeros(ElemType::F32, {0});
  AttentionExtras extras;
  extras.kDescale = &d; // v's missing
  AttentionRow row = attentionRow(s, q, k, v, extras, 0, 0, 0);
  EXPECT_TRUE(std::isnan(row.lse));
  EXPECT_TRUE(std::isnan(row.out[0]));
  extras.vDescale = &empty;
  EXPECT_TRUE(std::isnan(attentionRow(s, q, k, v, extras, 0, 0, 0).lse));
  extras.vDescale = &d;
  row = attentionRow(s, q, k, v, extras, 0, 0, 0);
  EXPECT_FALSE(std::isnan(row.lse));
  // A descale the op does not have is not read.
  extras.qDescale = &empty;
  EXPECT_EQ(attentionRow(s, q, k, v, extras, 0, 0, 0).out, row.out);
  // Even a row that sees no key is NaN: the call is wrong, not the row.
  s.kvLens = true;
  const HostTensor lens = lensOf({0, 0});
  extras.kvLens = &lens;
  extras.vDescale = nullptr;
  EXPECT_TRUE(std::isnan(attentionRow(s, q, k, v, extras, 0, 0, 0).lse));
}

TEST(AttentionFp8Test, DescaleInputsAreDrawnFromTheSeedInHalfToTwo) {
  double lo = 2, hi = 0, sum = 0;
  const int n = 4000;
  for (uint64_t seed = 0; seed < uint64_t(n); ++seed) {
    const HostTensor d = attentionDescale(seed);
    ASSERT_EQ(d.type, ElemType::F32);
    ASSERT_EQ(d.shape, (std::vector<int64_t>{1}));
    ASSERT_EQ(d.data, attentionDescale(seed).data);
    const double x = d.getAsDouble(0);
    ASSERT_GE(x, 0.5);
    ASSERT_LE(x, 2.0);
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    sum += x;
  }
  EXPECT_LT(lo, 0.51);
  EXPECT_GT(hi, 1.99);
  EXPECT_NEAR(sum / n, 1.25, 0.03); // uniform
  EXPECT_NE(attentionDescale(1).data, attentionDescale(2).data);
}

TEST(AttentionFp8Test, PackageInputsAreE4m3ValuesAndSeededDescales) {
  AttentionSpec s = fp8KvSpec();
  s.dtype = ElemType::F8E4M3FN;
  s.kvDtype.reset();
  s.qDescale = true;
  KernelPackage pkg = packageOf(s, true);
  pkg.op = attentionOpJson(s);
  std::string err;
  ASSERT_TRUE(checkAttentionParams(pkg, s, err)) << err;
  for (const char *name : {"q_descale", "k_descale", "v_descale"}) {
    const KernelParam &param = pkg.params[*pkg.findParam(name)];
    const HostTensor d = makePackageInput(pkg, param, 7);
    EXPECT_EQ(d.data, attentionDescale(packageInputSeed(7, name)).data) << name;
    EXPECT_NE(d.data, makePackageInput(pkg, param, 8).data) << name;
  }
  // q, k, v: the generic draw, finite e4m3 values in [-1, 1], not all 0.
  for (const char *name : {"q", "k", "v"}) {
    const KernelParam &param = pkg.params[*pkg.findParam(name)];
    const HostTensor t = makePackageInput(pkg, param, 7);
    ASSERT_EQ(t.type, ElemType::F8E4M3FN);
    EXPECT_EQ(t.data, makeRandom(ElemType::F8E4M3FN, param.shape,
                                 packageInputSeed(7, name)).data);
    int64_t nonZero = 0, distinct = 0;
    std::vector<bool> seen(256, false);
    for (int64_t i = 0; i < t.numElements(); ++i) {
      const double x = t.getAsDouble(i);
      ASSERT_TRUE(std::isfinite(x)) << name << " " << i;
      ASSERT_LE(std::fabs(x), 1.0);
      nonZero += x != 0;
      distinct += !seen[t.data[size_t(i)]];
      seen[t.data[size_t(i)]] = true;
    }
    EXPECT_GT(nonZero, t.numElements() * 9 / 10) << name;
    EXPECT_GT(distinct, 64) << name; // many codes, both signs
  }
}

//===----------------------------------------------------------------------===//
// Variable-length batches (cu_seqlens, FlashAttention's varlen API)
//===----------------------------------------------------------------------===//

namespace {

/// llamaOp's heads as 3 packed sequences of 300 query and 700 key tokens
/// in all (kv_lens false: cu_seqlens gives the lengths).
json varlenOp() {
  json op = llamaOp();
  op["varlen"] = true;
  op["kv_lens"] = false;
  op["batch"] = 3;
  op["seq_q"] = 300;
  op["seq_kv"] = 700;
  return op;
}

/// gqaSpec's heads (Hq 8, Hkv 2, D 64) in f32, causal, with lse: 4
/// sequences of 10 query and 12 key tokens in all.
AttentionSpec varlenSpec() {
  AttentionSpec s = gqaSpec();
  s.batch = 4;
  s.seqQ = 10;
  s.seqKv = 12;
  s.dtype = s.out = ElemType::F32;
  s.kvLens = false;
  s.causal = s.varlen = true;
  return s;
}

/// `s`'s package: q, k, v, cu_seqlens_q, cu_seqlens_k, out, lse.
KernelPackage varlenPackage(const AttentionSpec &s) {
  KernelPackage pkg = packageOf(s, false);
  for (const char *name : {"cu_seqlens_k", "cu_seqlens_q"})
    pkg.params.insert(pkg.params.begin() + 3,
                      tensor(name, ElemType::I32, attentionShapeCuSeqlens(s),
                             ParamRole::Input));
  pkg.op = attentionOpJson(s);
  return pkg;
}

/// `s` with a softcap of 5, ALiBi and a left window of 3: the masks and
/// logit changes past causal that the reference applies per sequence.
AttentionSpec withSoftcapAlibiAndWindow(AttentionSpec s) {
  s.softcap = 5.0;
  s.alibi = true;
  s.windowLeft = 3;
  return s;
}

/// The inputs attentionRow reads.
struct RowInputs {
  const HostTensor &q, &k, &v;
  const AttentionExtras &extras;
};

/// attentionRow of `s` at sequence b against that of `one` at its only
/// sequence, at every head and query of `one`, bit for bit. Adds the rows
/// that see a key to `seen`, those that see none to `blind`.
void expectRowsOfSequence(const AttentionSpec &s, const RowInputs &in,
                          int64_t b, const AttentionSpec &one,
                          const RowInputs &oneIn, int64_t &seen,
                          int64_t &blind) {
  for (int64_t h = 0; h < one.qHeads; ++h)
    for (int64_t i = 0; i < one.seqQ; ++i) {
      const AttentionRow got =
          attentionRow(s, in.q, in.k, in.v, in.extras, b, h, i);
      const AttentionRow want =
          attentionRow(one, oneIn.q, oneIn.k, oneIn.v, oneIn.extras, 0, h, i);
      ASSERT_EQ(got.out, want.out) << b << " " << h << " " << i;
      ASSERT_EQ(got.lse, want.lse) << b << " " << h << " " << i;
      seen += std::isfinite(got.lse);
      blind += got.lse == -kInf;
    }
}

/// The extras a package's inputs `named` give (attentionExtras by name).
AttentionExtras extrasOf(const std::map<std::string, const HostTensor *> &named) {
  return attentionExtras([&](const std::string &name) -> const HostTensor * {
    const auto it = named.find(name);
    return it == named.end() ? nullptr : it->second;
  });
}

/// Tokens [begin, end) of a packed [T, H, D] tensor as the one sequence
/// of a [1, H, end - begin, D] tensor.
HostTensor sequenceOf(const HostTensor &packed, int64_t begin, int64_t end) {
  const int64_t H = packed.shape[1], D = packed.shape[2], S = end - begin;
  HostTensor t = makeZeros(packed.type, {1, H, S, D});
  for (int64_t i = 0; i < S; ++i)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t d = 0; d < D; ++d)
        t.setFromDouble((h * S + i) * D + d,
                        packed.getAsDouble(((begin + i) * H + h) * D + d));
  return t;
}

} // namespace

TEST(AttentionVarlenTest, ParsesAndRoundTripsPackedSequences) {
  AttentionSpec s;
  std::string err;
  ASSERT_TRUE(parseAttentionOp(varlenOp(), s, err)) << err;
  EXPECT_TRUE(s.varlen);
  EXPECT_EQ(s.batch, 3);
  EXPECT_EQ(attentionShapeQ(s), (std::vector<int64_t>{300, 32, 128}));
  EXPECT_EQ(attentionShapeKv(s), (std::vector<int64_t>{700, 8, 128}));
  EXPECT_EQ(attentionShapeLse(s), (std::vector<int64_t>{32, 300}));
  EXPECT_EQ(attentionShapeCuSeqlens(s), (std::vector<int64_t>{4}));
  // No packed-GQA view: the op's layout.
  EXPECT_EQ(attentionPackedShapeQ(s), attentionShapeQ(s));
  EXPECT_EQ(attentionPackedShapeLse(s), attentionShapeLse(s));
  EXPECT_EQ(attentionRowCount(s), 300 * 32);
  AttentionSpec back;
  ASSERT_TRUE(parseAttentionOp(attentionOpJson(s), back, err)) << err;
  EXPECT_EQ(attentionOpJson(back), attentionOpJson(s));
  EXPECT_EQ(attentionOpJson(s)["varlen"], true);
  EXPECT_EQ(attentionOpJson(s)["kv_lens"], false);
  EXPECT_FALSE(attentionOpJson(s).contains("paged"));
  // Packages without it, or with it false, keep their exact object.
  AttentionSpec plain;
  ASSERT_TRUE(parseAttentionOp(llamaOp(), plain, err)) << err;
  EXPECT_FALSE(plain.varlen);
  EXPECT_FALSE(attentionOpJson(plain).contains("varlen"));
  json op = llamaOp();
  op["varlen"] = false;
  ASSERT_TRUE(parseAttentionOp(op, s, err)) << err;
  EXPECT_EQ(attentionOpJson(s).dump(), attentionOpJson(plain).dump());
  EXPECT_EQ(attentionShapeQ(s), (std::vector<int64_t>{2, 32, 128, 128}));
}

TEST(AttentionVarlenTest, RefusesKvLensAndEmptyTotals) {
  expectOpRefused(varlenOp(), "varlen", "yes", "'varlen' must be true or false");
  expectOpRefused(varlenOp(), "kv_lens", true,
                  "'varlen' with 'kv_lens': cu_seqlens gives each sequence "
                  "its lengths (no kv_lens)");
  expectOpRefused(varlenOp(), "seq_q", 0, "'seq_q' must be an integer in [1,");
  expectOpRefused(varlenOp(), "seq_kv", 0, "'seq_kv' must be an integer in [1,");
  expectOpRefused(varlenOp(), "batch", 0, "'batch' must be an integer in [1,");
}

TEST(AttentionVarlenTest, CountsFlopsAsEvenlySplitAndBytesAtTheTotals) {
  AttentionSpec s = varlenSpec(); // B 4, Hq 8, Hkv 2, Tq 10, Tk 12, D 64
  // 4 sequences of 10 / 4 queries and 12 / 4 keys: 4 * Hq * D * Tq * Tk / B.
  EXPECT_EQ(attentionFlops(s), 2.0 * 8 * 64 * 10 * 12 / 4); // causal
  s.causal = false;
  EXPECT_EQ(attentionFlops(s), 4.0 * 8 * 64 * 10 * 12 / 4);
  const double q = 10 * 8 * 64, kv = 12 * 2 * 64;
  EXPECT_EQ(attentionBytes(s),
            q * 4 + 2 * kv * 4 + q * 4 + 8 * 10 * 4 + 2 * 5 * 4);
  s.lse = false;
  EXPECT_EQ(attentionBytes(s), q * 4 + 2 * kv * 4 + q * 4 + 2 * 5 * 4);
}

TEST(AttentionVarlenTest, ParamsArePackedTokensAndCuSeqlens) {
  const AttentionSpec s = varlenSpec();
  std::string err;
  EXPECT_TRUE(checkAttentionParams(varlenPackage(s), s, err)) << err;

  KernelPackage pkg = varlenPackage(s);
  pkg.params.erase(pkg.params.begin() + *pkg.findParam("cu_seqlens_k"));
  expectRefused(pkg, s, "attention needs a tensor parameter 'cu_seqlens_k' "
                        "(a varlen op reads its sequences' token offsets "
                        "from i32 [B + 1] cu_seqlens_q and cu_seqlens_k)");
  pkg = varlenPackage(s);
  pkg.params[*pkg.findParam("cu_seqlens_q")].shape = {4};
  expectRefused(pkg, s, "parameter 'cu_seqlens_q' is i32 4, the op says i32 5");
  pkg = varlenPackage(s);
  pkg.params[*pkg.findParam("cu_seqlens_q")].dtype = ElemType::I64;
  expectRefused(pkg, s, "parameter 'cu_seqlens_q' is i64");
  pkg = varlenPackage(s);
  pkg.params[*pkg.findParam("cu_seqlens_k")].role = ParamRole::Output;
  expectRefused(pkg, s, "parameter 'cu_seqlens_k' has role output, expected input");
  // The padded layout, or the packed-GQA view, is not a varlen op's.
  pkg = varlenPackage(s);
  pkg.params[*pkg.findParam("q")].shape = {4, 8, 10, 64};
  expectRefused(pkg, s, "parameter 'q' is f32 4x8x10x64, the op says f32 10x8x64");
  pkg = varlenPackage(s);
  pkg.params[*pkg.findParam("out")].shape = {10, 2, 4, 64};
  expectRefused(pkg, s, "parameter 'out' is f32 10x2x4x64, the op says f32 10x8x64");
  pkg = varlenPackage(s);
  pkg.params[*pkg.findParam("k")].shape = {4, 2, 12, 64};
  expectRefused(pkg, s, "parameter 'k' is f32 4x2x12x64, the op says f32 12x2x64");
  pkg = varlenPackage(s);
  pkg.params[*pkg.findParam("lse")].shape = {4, 8, 10};
  expectRefused(pkg, s, "parameter 'lse' is f32 4x8x10, the op says f32 8x10");
  // No split-KV over packed sequences.
  pkg = varlenPackage(s);
  pkg.params.push_back(tensor("o_partial", ElemType::F32, {2, 4, 2, 40, 64},
                              ParamRole::Workspace));
  pkg.params.push_back(tensor("lse_partial", ElemType::F32, {2, 4, 2, 40},
                              ParamRole::Workspace));
  expectRefused(pkg, s, "has a tensor parameter 'o_partial' but the op is "
                        "varlen (no split-KV over packed sequences)");
  // cu_seqlens without varlen.
  AttentionSpec padded = s;
  padded.varlen = false;
  pkg = packageOf(padded, false);
  pkg.params.push_back(tensor("cu_seqlens_q", ElemType::I32, {5}, ParamRole::Input));
  expectRefused(pkg, padded,
                "has a tensor parameter 'cu_seqlens_q' but the op is not varlen");
}

TEST(AttentionVarlenTest, CuSeqlensArePartitionsDrawnFromTheSeed) {
  AttentionSpec s = varlenSpec();
  s.batch = 5;
  const int64_t T = 37;
  int64_t empty = 0, odd = 0, even = 0, longOnes = 0;
  for (uint64_t seed = 0; seed < 64; ++seed) {
    const HostTensor cu = attentionCuSeqlens(s, seed, T);
    ASSERT_EQ(cu.type, ElemType::I32);
    ASSERT_EQ(cu.shape, (std::vector<int64_t>{6}));
    EXPECT_EQ(cu.data, attentionCuSeqlens(s, seed, T).data);
    EXPECT_EQ(cu.getAsDouble(0), 0.0);
    EXPECT_EQ(cu.getAsDouble(5), double(T));
    for (int64_t b = 0; b < 5; ++b) {
      const auto len = int64_t(cu.getAsDouble(b + 1) - cu.getAsDouble(b));
      ASSERT_GE(len, 0) << "seed " << seed << " b " << b;
      empty += len == 0;
      odd += len % 2;
      even += len > 0 && len % 2 == 0;
      longOnes += len >= 19; // at least half of the tokens
    }
  }
  EXPECT_GT(empty, 16);    // an emptied sequence on half of the seeds
  EXPECT_GT(longOnes, 16); // a long one on half of the seeds
  EXPECT_GT(odd, 32);
  EXPECT_GT(even, 32);
  EXPECT_NE(attentionCuSeqlens(s, 1, T).data, attentionCuSeqlens(s, 2, T).data);
  // One sequence holds every token; more sequences than tokens still
  // partition them.
  s.batch = 1;
  EXPECT_EQ(attentionCuSeqlens(s, 3, T).data, lensOf({0, 37}).data);
  s.batch = 8;
  for (uint64_t seed = 0; seed < 8; ++seed) {
    const HostTensor cu = attentionCuSeqlens(s, seed, 3);
    EXPECT_EQ(cu.getAsDouble(8), 3.0);
    for (int64_t b = 0; b < 8; ++b)
      EXPECT_LE(cu.getAsDouble(b), cu.getAsDouble(b + 1));
  }
  // A package's inputs: queries and keys each from their own seed.
  s = varlenSpec();
  const KernelPackage pkg = varlenPackage(s);
  const KernelParam &cq = pkg.params[*pkg.findParam("cu_seqlens_q")];
  const KernelParam &ck = pkg.params[*pkg.findParam("cu_seqlens_k")];
  EXPECT_EQ(makePackageInput(pkg, cq, 7).data,
            attentionCuSeqlens(s, packageInputSeed(7, "cu_seqlens_q"), 10).data);
  EXPECT_EQ(makePackageInput(pkg, ck, 7).data,
            attentionCuSeqlens(s, packageInputSeed(7, "cu_seqlens_k"), 12).data);
  EXPECT_EQ(makePackageInput(pkg, ck, 7).getAsDouble(4), 12.0);
}

TEST(AttentionVarlenTest, ReferenceIsThePaddedOneOfEachSequence) {
  // (Sq_b, Skv_b) = (3, 5), (0, 3), (4, 2), (3, 2): an empty sequence, and
  // two with fewer keys than queries, whose first rows see no key under
  // causal (bottom-right: query i at p = i + Skv_b - Sq_b).
  const AttentionSpec s = withSoftcapAlibiAndWindow(varlenSpec());
  const HostTensor cuQ = lensOf({0, 3, 3, 7, 10}), cuK = lensOf({0, 5, 8, 10, 12});
  const HostTensor q = makeRandom(ElemType::F32, attentionShapeQ(s), 1);
  const HostTensor k = makeRandom(ElemType::F32, attentionShapeKv(s), 2);
  const HostTensor v = makeRandom(ElemType::F32, attentionShapeKv(s), 3);
  const HostTensor slopes = makeRandom(ElemType::F32, {8}, 4);
  AttentionExtras extras;
  extras.alibi = &slopes;
  extras.cuSeqlensQ = &cuQ;
  extras.cuSeqlensK = &cuK;
  AttentionExtras paddedExtras;
  paddedExtras.alibi = &slopes;
  int64_t seen = 0, blind = 0;
  for (int64_t b = 0; b < 4; ++b) {
    const AttentionTokens qs = attentionSequenceTokens(cuQ, 10, b);
    const AttentionTokens ks = attentionSequenceTokens(cuK, 12, b);
    AttentionSpec one = s; // the sequence alone, padded layout
    one.varlen = false;
    one.batch = 1;
    one.seqQ = qs.end - qs.begin;
    one.seqKv = ks.end - ks.begin;
    if (one.seqQ == 0)
      continue;
    const HostTensor q1 = sequenceOf(q, qs.begin, qs.end);
    const HostTensor k1 = sequenceOf(k, ks.begin, ks.end);
    const HostTensor v1 = sequenceOf(v, ks.begin, ks.end);
    expectRowsOfSequence(s, {q, k, v, extras}, b, one,
                         {q1, k1, v1, paddedExtras}, seen, blind);
  }
  EXPECT_EQ(blind, 3 * 8); // rows 0, 1 of sequence 2, row 0 of sequence 3
  EXPECT_EQ(seen, 7 * 8);
  // Sequence 2's row 2 (p = 0) sees its key 0 alone, token 8: its value row.
  const AttentionRow one = attentionRow(s, q, k, v, extras, 2, 5, 2);
  for (int64_t d = 0; d < 64; ++d)
    ASSERT_EQ(one.out[d], v.getAsDouble((8 * 2 + 5 / 4) * 64 + d)) << d;
  EXPECT_EQ(attentionRow(s, q, k, v, extras, 2, 5, 1).out,
            std::vector<double>(64, 0.0));
  // No such query, sequence or offsets: NaN.
  EXPECT_TRUE(std::isnan(attentionRow(s, q, k, v, extras, 1, 0, 0).lse));
  EXPECT_TRUE(std::isnan(attentionRow(s, q, k, v, extras, 4, 0, 0).lse));
  AttentionExtras noK = extras;
  noK.cuSeqlensK = nullptr;
  EXPECT_TRUE(std::isnan(attentionRow(s, q, k, v, noK, 0, 0, 0).out[0]));
  const HostTensor shortCu = lensOf({0, 3, 10});
  noK.cuSeqlensK = &shortCu; // [3], not [B + 1]
  EXPECT_TRUE(std::isnan(attentionRow(s, q, k, v, noK, 0, 0, 0).lse));
  EXPECT_TRUE(std::isnan(attentionExpected(s, q, k, v, noK, {0}).lse.getAsDouble(0)));
}

TEST(AttentionVarlenTest, RowsAreTokenHeadPairsAndTheLseIsHeadMajor) {
  // A kernel's out [Tq, Hq, D] and lse [Hq, Tq], written from the
  // reference, read back at sampled rows as the emulator and the GPU
  // child read them.
  AttentionSpec s = varlenSpec();
  const HostTensor cuQ = lensOf({0, 3, 3, 7, 10}), cuK = lensOf({0, 5, 8, 10, 12});
  const HostTensor q = makeRandom(ElemType::F32, attentionShapeQ(s), 1);
  const HostTensor k = makeRandom(ElemType::F32, attentionShapeKv(s), 2);
  const HostTensor v = makeRandom(ElemType::F32, attentionShapeKv(s), 3);
  const AttentionExtras extras =
      extrasOf({{"cu_seqlens_q", &cuQ}, {"cu_seqlens_k", &cuK}});
  ASSERT_EQ(extras.cuSeqlensQ, &cuQ);
  ASSERT_EQ(extras.cuSeqlensK, &cuK);
  HostTensor out = makeZeros(ElemType::F32, attentionShapeQ(s));
  HostTensor lse = makeZeros(ElemType::F32, attentionShapeLse(s));
  for (int64_t b = 0; b < 4; ++b) {
    const AttentionTokens qs = attentionSequenceTokens(cuQ, 10, b);
    for (int64_t t = qs.begin; t < qs.end; ++t)
      for (int64_t h = 0; h < 8; ++h) {
        const AttentionRow row = attentionRow(s, q, k, v, extras, b, h, t - qs.begin);
        for (int64_t d = 0; d < 64; ++d)
          out.setFromDouble((t * 8 + h) * 64 + d, row.out[d]);
        lse.setFromDouble(h * 10 + t, row.lse);
      }
  }
  const std::vector<int64_t> rows = sampleIndices(attentionRowCount(s), 24, 5);
  ASSERT_EQ(rows.back(), 79);
  const AttentionExpected e = attentionExpected(s, q, k, v, extras, rows);
  EXPECT_EQ(gatherRows(out, rows, 64).data, e.out.data);
  HostTensor gotLse = gatherRows(lse, attentionLseElements(s, rows), 1);
  gotLse.shape = e.lse.shape;
  EXPECT_EQ(gotLse.data, e.lse.data);
  EXPECT_EQ(attentionLseElements(s, {0, 1, 8, 79}),
            (std::vector<int64_t>{0, 10, 1, 7 * 10 + 9}));
  // Not the padded layout's elements: rows of out are not lse's.
  AttentionSpec padded = s;
  padded.varlen = false;
  EXPECT_EQ(attentionLseElements(padded, rows), rows);

  // Tokens in no sequence (past cu_q[B] = 8 of 10): zeros and -inf.
  const HostTensor shortQ = lensOf({0, 3, 3, 5, 8});
  AttentionExtras uncovered = extras;
  uncovered.cuSeqlensQ = &shortQ;
  const AttentionExpected tail =
      attentionExpected(s, q, k, v, uncovered, {8 * 8 + 3, 9 * 8 + 7, 7 * 8});
  for (int64_t d = 0; d < 64; ++d) {
    EXPECT_EQ(tail.out.getAsDouble(d), 0.0);
    EXPECT_EQ(tail.out.getAsDouble(64 + d), 0.0);
  }
  EXPECT_EQ(tail.lse.getAsDouble(0), -kInf);
  EXPECT_EQ(tail.lse.getAsDouble(1), -kInf);
  // Token 7, query 2 of sequence 3 (Sq 3, Skv 2: p = 1), sees keys.
  EXPECT_TRUE(std::isfinite(tail.lse.getAsDouble(2)));
}

TEST_F(AttentionPackageTest, LoadsAVarlenAttentionPackage) {
  json m = json::parse(R"({
    "schema": "kgen.kernel-package", "version": 2, "name": "attn_varlen",
    "source": "kernel.cu", "target": "sm_80",
    "kernels": [
      {"entry": "kgen_attn_split", "launch": {"grid": [4, 8, 3], "block": [128, 1, 1],
       "cluster": [1, 1, 1], "dynamic_smem_bytes": 0},
       "args": ["q", "k", "v", "cu_seqlens_q", "cu_seqlens_k", "out", "lse"]}],
    "params": [
      {"name": "q", "kind": "tensor", "dtype": "bf16", "shape": [500, 8, 128], "role": "input"},
      {"name": "k", "kind": "tensor", "dtype": "bf16", "shape": [700, 2, 128], "role": "input"},
      {"name": "v", "kind": "tensor", "dtype": "bf16", "shape": [700, 2, 128], "role": "input"},
      {"name": "cu_seqlens_q", "kind": "tensor", "dtype": "i32", "shape": [4], "role": "input"},
      {"name": "cu_seqlens_k", "kind": "tensor", "dtype": "i32", "shape": [4], "role": "input"},
      {"name": "out", "kind": "tensor", "dtype": "bf16", "shape": [500, 8, 128], "role": "output"},
      {"name": "lse", "kind": "tensor", "dtype": "f32", "shape": [8, 500], "role": "output"}],
    "op": {"kind": "attention", "batch": 3, "q_heads": 8, "kv_heads": 2,
           "seq_q": 500, "seq_kv": 700, "head_dim": 128, "dtype": "bf16",
           "dtype_out": "bf16", "kv_lens": false, "lse": true,
           "scale": 0.08838834764831845, "causal": true,
           "sliding_window": null, "softcap": null, "varlen": true},
    "config": {"source": "default"},
    "flops": 0, "bytes": 0})");
  AttentionSpec spec;
  std::string err;
  ASSERT_TRUE(parseAttentionOp(m["op"], spec, err)) << err;
  m["flops"] = attentionFlops(spec);
  m["bytes"] = attentionBytes(spec);
  EXPECT_EQ(attentionFlops(spec), 2.0 * 8 * 128 * 500 * 700 / 3);
  KernelPackage pkg;
  ASSERT_TRUE(loadPackage(write("varlen", m), pkg, err)) << err;
  const HostTensor cu =
      makePackageInput(pkg, pkg.params[*pkg.findParam("cu_seqlens_k")], 1);
  EXPECT_EQ(cu.getAsDouble(3), 700.0);

  json withLens = m;
  withLens["op"]["kv_lens"] = true;
  EXPECT_FALSE(loadPackage(write("kv-lens", withLens), pkg, err));
  EXPECT_NE(err.find("op: 'varlen' with 'kv_lens'"), std::string::npos) << err;
  json padded = m;
  padded["op"].erase("varlen");
  EXPECT_FALSE(loadPackage(write("padded", padded), pkg, err));
  EXPECT_NE(err.find("parameter 'q' is bf16 500x8x128, the op says bf16 "
                     "3x8x500x128 or 3x2x2000x128"),
            std::string::npos)
      << err;
}

//===----------------------------------------------------------------------===//
// Variable-length batches over a paged KV cache (FlashAttention's varlen
// API with a block table, vLLM's chunked prefill)
//===----------------------------------------------------------------------===//

namespace {

/// varlenOp's 3 sequences of 300 query tokens in all, their keys in pages
/// of 16: 16 pages (256 keys) per sequence, a pool of B * M = 48 pages.
json varlenPagedOp() {
  json op = varlenOp();
  op["seq_kv"] = 256;
  return pagedOver(op, 16, 48);
}

/// varlenSpec's 4 sequences of 10 query tokens in all (Hq 8, Hkv 2, D 64,
/// f32, causal, lse) over pages of 4 keys, 3 per sequence (12 keys), in a
/// pool of 16 pages.
AttentionSpec varlenPagedSpec() {
  AttentionSpec s = varlenSpec();
  s.seqKv = 12;
  return pagedOver(s, 4, 16);
}

/// `s`'s package: q, k, v, cu_seqlens_q, cu_seqlens_k, block_table, out, lse.
KernelPackage varlenPagedPackage(const AttentionSpec &s) {
  KernelPackage pkg = varlenPackage(s);
  pkg.params.insert(pkg.params.begin() + *pkg.findParam("cu_seqlens_k") + 1,
                    tensor("block_table", ElemType::I32,
                           attentionShapeBlockTable(s), ParamRole::Input));
  return pkg;
}

/// Row b of a [B, M] block table, as a [1, M] table.
HostTensor tableRow(const HostTensor &table, int64_t b) {
  const int64_t M = table.shape[1];
  HostTensor row = makeZeros(ElemType::I32, {1, M});
  for (int64_t m = 0; m < M; ++m)
    row.setFromDouble(m, table.getAsDouble(b * M + m));
  return row;
}

/// An input of `pkg` for a run seeded `seed`, by name.
HostTensor inputOf(const KernelPackage &pkg, const char *name, uint64_t seed) {
  return makePackageInput(pkg, pkg.params[*pkg.findParam(name)], seed);
}

/// Each sequence's key count in `cuSeqlensK` (attentionPagedKeyCount).
std::vector<int64_t> keyCounts(const AttentionSpec &s,
                               const HostTensor &cuSeqlensK) {
  std::vector<int64_t> counts(size_t(s.batch));
  for (int64_t b = 0; b < s.batch; ++b)
    counts[b] = attentionPagedKeyCount(s, cuSeqlensK, b);
  return counts;
}

} // namespace

TEST(AttentionVarlenPagedTest, ParsesAndRoundTripsPackedQueriesOverPages) {
  std::string err;
  AttentionSpec s, back;
  ASSERT_TRUE(parseAttentionOp(varlenPagedOp(), s, err)) << err;
  EXPECT_TRUE(s.varlen && s.paged);
  EXPECT_EQ(std::tie(s.batch, s.seqQ, s.seqKv, s.pageSize, s.numPages),
            std::make_tuple(3, 300, 256, 16, 48));
  EXPECT_EQ(attentionPagesPerSequence(s), 16);
  // q, k (and v), block_table, lse, cu_seqlens_q (and _k); out is q's.
  const std::vector<std::vector<int64_t>> shapes = {
      attentionShapeQ(s), attentionShapeKv(s), attentionShapeBlockTable(s),
      attentionShapeLse(s), attentionShapeCuSeqlens(s)};
  EXPECT_EQ(shapes, (std::vector<std::vector<int64_t>>{
                        {300, 32, 128}, {48, 8, 16, 128}, {3, 16}, {32, 300}, {4}}));
  EXPECT_EQ(attentionPackedShapeQ(s), attentionShapeQ(s)); // no packed view
  EXPECT_EQ(attentionRowCount(s), 300 * 32);
  // Written with both flags and the paging, read back the same.
  const json written = attentionOpJson(s);
  for (const char *key : {"varlen", "paged", "page_size", "num_pages", "seq_kv"})
    EXPECT_EQ(written[key], varlenPagedOp()[key]) << key;
  ASSERT_TRUE(parseAttentionOp(written, back, err)) << err;
  EXPECT_EQ(attentionOpJson(back), written);
  // kv_lens is still refused: cu_seqlens_k counts the keys.
  expectOpRefused(varlenPagedOp(), "kv_lens", true,
                  "'varlen' with 'kv_lens': cu_seqlens gives each sequence "
                  "its lengths (no kv_lens)");
  // seq_kv is M * P, as for any paged op.
  expectOpRefused(varlenPagedOp(), "seq_kv", 250,
                  "'seq_kv' (250) must be a multiple of 'page_size' (16)");
  expectOpRefused(varlenPagedOp(), "num_pages", 0,
                  "'num_pages' must be an integer in [1,");
}

TEST(AttentionVarlenPagedTest, CountsQueryTokensAndEachSequencesPages) {
  AttentionSpec s = varlenPagedSpec(); // B 4, Hq 8, Hkv 2, Tq 10, Skv 12, D 64
  // 4 sequences of 10 / 4 queries and 12 keys each: 4 * Hq * D * Tq * Skv.
  EXPECT_EQ(attentionFlops(s), 2.0 * 8 * 64 * 10 * 12); // causal
  // As varlen counts Tk = B * Skv packed keys.
  AttentionSpec packed = unpaged(s);
  packed.seqKv = 4 * 12;
  EXPECT_EQ(attentionFlops(s), attentionFlops(packed));
  // q, out and lse at the 10 tokens, the B * M = 12 pages the sequences
  // name (not the pool's 16), the [4, 3] table and both cu_seqlens.
  const double q = 10 * 8 * 64, kv = 4 * 3 * 2 * 4 * 64;
  EXPECT_EQ(attentionBytes(s), q * 4 + 2 * kv * 4 + q * 4 + 8 * 10 * 4 +
                                   4 * 3 * 4 + 2 * 5 * 4);
  EXPECT_EQ(attentionBytes(s), attentionBytes(packed) + 4 * 3 * 4);
  s.causal = false;
  EXPECT_EQ(attentionFlops(s), 4.0 * 8 * 64 * 10 * 12);
}

TEST(AttentionVarlenPagedTest, ParamsAreTokensPagesTableAndCuSeqlens) {
  const AttentionSpec s = varlenPagedSpec();
  std::string err;
  EXPECT_TRUE(checkAttentionParams(varlenPagedPackage(s), s, err)) << err;
  // Each message names the layout the op has.
  const struct {
    const char *name;
    std::vector<int64_t> shape;
    const char *message;
  } wrongShapes[] = {
      // k and v are pages, not packed tokens nor a padded cache.
      {"k", {12, 2, 64},
       "parameter 'k' is f32 12x2x64, the op says f32 16x2x4x64 (a paged "
       "cache [N, Hkv, P, D]: num_pages 16, page_size 4; varlen over pages: "
       "cu_seqlens_k counts each sequence's keys, it indexes no rows of k)"},
      // The table is [B, M].
      {"block_table", {4, 12},
       "parameter 'block_table' is i32 4x12, the op says i32 4x3 ([B, M]: M "
       "= seq_kv / page_size = 3 pages per sequence, each sequence's key "
       "capacity M * P = 12)"},
      // The queries packed token-major, the lse head-major.
      {"q", {4, 8, 10, 64},
       "parameter 'q' is f32 4x8x10x64, the op says f32 10x8x64 (varlen: the "
       "query tokens packed, [Tq, Hq, D])"},
      {"out", {10, 2, 4, 64},
       "parameter 'out' is f32 10x2x4x64, the op says f32 10x8x64 (varlen: "
       "the query tokens packed"},
      {"lse", {10, 8},
       "parameter 'lse' is f32 10x8, the op says f32 8x10 (varlen: "
       "head-major, [Hq, Tq])"},
      {"cu_seqlens_k", {4}, "parameter 'cu_seqlens_k' is i32 4, the op says i32 5"},
  };
  for (const auto &c : wrongShapes) {
    KernelPackage pkg = varlenPagedPackage(s);
    pkg.params[*pkg.findParam(c.name)].shape = c.shape;
    expectRefused(pkg, s, c.message);
  }
  const struct {
    const char *name;
    const char *message;
  } missing[] = {
      {"block_table", "attention needs a tensor parameter 'block_table' (a "
                      "paged op reads k and v through an i32 [B, M] block "
                      "table)"},
      {"cu_seqlens_k", "attention needs a tensor parameter 'cu_seqlens_k'"},
  };
  for (const auto &c : missing) {
    KernelPackage pkg = varlenPagedPackage(s);
    pkg.params.erase(pkg.params.begin() + *pkg.findParam(c.name));
    expectRefused(pkg, s, c.message);
  }
  KernelPackage pkg = varlenPagedPackage(s);
  pkg.params.push_back(tensor("kv_lens", ElemType::I32, {4}, ParamRole::Input));
  expectRefused(pkg, s, "has a tensor parameter 'kv_lens' but the op has no kv_lens");
  // A varlen op without pages has no table, and packed keys.
  const AttentionSpec packed = varlenSpec();
  pkg = varlenPackage(packed);
  pkg.params.push_back(tensor("block_table", ElemType::I32, {4, 3}, ParamRole::Input));
  expectRefused(pkg, packed,
                "has a tensor parameter 'block_table' but the op is not paged");
  pkg = varlenPackage(packed);
  pkg.params[*pkg.findParam("k")].shape = {16, 2, 4, 64};
  expectRefused(pkg, packed, "parameter 'k' is f32 16x2x4x64, the op says f32 "
                             "12x2x64 (varlen: the key tokens packed, [Tk, Hkv, D])");
}

TEST(AttentionVarlenPagedTest, KeyCountsAreTheOffsetsDifferencesWithinCapacity) {
  const AttentionSpec s = varlenPagedSpec(); // B 4, M * P = 12
  // From 3: the offsets index no rows; 32 keys capped at M * P.
  EXPECT_EQ(keyCounts(s, lensOf({3, 8, 8, 40, 41})),
            (std::vector<int64_t>{5, 0, 12, 1}));
  // A negative start counts from 0; a decreasing end gives no key.
  EXPECT_EQ(keyCounts(s, lensOf({-4, 2, 1, 13, 13})),
            (std::vector<int64_t>{2, 0, 12, 0}));
}

TEST(AttentionVarlenPagedTest, ReferenceOfTwoSequencesOverPagesOfTwoKeys) {
  // Hq = Hkv = 1, D 32, scale 1, causal. Sequence 0: query tokens 0, 1 and
  // 3 keys; sequence 1: query tokens 2..4 and 2 keys (cu_seqlens_k starts
  // at 4: only its differences count). Pages of 2 keys, 3 per sequence, a
  // pool of 6; the table shuffled, -1 past each sequence's keys.
  AttentionSpec s = tinySpec();
  s.batch = 2;
  s.seqQ = 5;
  s.seqKv = 6;
  s.lse = s.causal = s.varlen = true;
  s = pagedOver(s, 2, 6);
  const HostTensor cuQ = lensOf({0, 2, 5}), cuK = lensOf({4, 7, 9});
  HostTensor table = makeZeros(ElemType::I32, {2, 3});
  const int pages[] = {4, 1, -1, 3, -1, -1};
  for (int64_t e = 0; e < 6; ++e)
    table.setFromDouble(e, pages[e]);
  // q . k = k[0] = log(w): key j of sequence b weighs w(b, j); its value
  // row is 100 b + 10 j + d. Every other element of the pool is noise.
  HostTensor q = makeZeros(ElemType::F32, attentionShapeQ(s));
  for (int64_t t = 0; t < 5; ++t)
    q.setFromDouble(t * 32, 1.0);
  HostTensor k = makeRandom(ElemType::F32, attentionShapeKv(s), 1);
  HostTensor v = makeRandom(ElemType::F32, attentionShapeKv(s), 2);
  const double weights[2][3] = {{1, 2, 3}, {1, 3, 0}};
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t j = 0; j < (b == 0 ? 3 : 2); ++j) {
      const int64_t row = (pages[b * 3 + j / 2] * 2 + j % 2) * 32;
      k.setFromDouble(row, std::log(weights[b][j]));
      for (int64_t d = 0; d < 32; ++d)
        v.setFromDouble(row + d, 100.0 * b + 10.0 * j + d);
    }
  AttentionExtras extras;
  extras.cuSeqlensQ = &cuQ;
  extras.cuSeqlensK = &cuK;
  extras.blockTable = &table;
  const AttentionExpected e = attentionExpected(s, q, k, v, extras, allRows(s));
  // Bottom-right causal, query i at p = i + L_b - Sq_b: sequence 0 (L 3,
  // Sq 2) rows see keys [0, 1] and [0, 2]; sequence 1 (L 2, Sq 3) rows see
  // none, [0] and [0, 1].
  const double mean[5] = {(0 + 2 * 10) / 3.0, (0 + 2 * 10 + 3 * 20) / 6.0, 0,
                          100, (100 + 3 * 110) / 4.0};
  const double lse[5] = {std::log(3.0), std::log(6.0), -kInf, 0, std::log(4.0)};
  for (int64_t t = 0; t < 5; ++t) {
    for (int64_t d = 0; d < 32; ++d)
      EXPECT_NEAR(e.out.getAsDouble(t * 32 + d), t == 2 ? 0.0 : mean[t] + d, 1e-5)
          << "token " << t << " d " << d;
    if (t == 2) {
      EXPECT_EQ(e.lse.getAsDouble(t), -kInf);
    } else {
      EXPECT_NEAR(e.lse.getAsDouble(t), lse[t], 1e-6) << "token " << t;
    }
  }
  // The offsets' differences only: the same from 0.
  const HostTensor fromZero = lensOf({0, 3, 5});
  AttentionExtras shifted = extras;
  shifted.cuSeqlensK = &fromZero;
  EXPECT_EQ(attentionExpected(s, q, k, v, shifted, allRows(s)).out.data,
            e.out.data);
  // A count past the capacity reads M * P keys: sequence 1's -1 entries
  // then give NaN rows (and only then).
  const HostTensor past = lensOf({4, 7, 100});
  shifted.cuSeqlensK = &past;
  EXPECT_TRUE(std::isnan(attentionRow(s, q, k, v, shifted, 1, 0, 1).lse));
  table.setFromDouble(4, 0);
  table.setFromDouble(5, 5);
  EXPECT_TRUE(std::isfinite(attentionRow(s, q, k, v, shifted, 1, 0, 0).lse));
  // Keys read as packed rows at cu_seqlens_k, the pool taken for tokens,
  // are not this op: rows 4 to 6 of the pool are mostly noise.
  AttentionSpec notPaged = unpaged(s);
  notPaged.seqKv = 9;
  EXPECT_GT(std::abs(attentionRow(notPaged, q, k, v, extras, 0, 0, 1).out[0] -
                     mean[1]),
            1e-3);
}

TEST(AttentionVarlenPagedTest, ReferenceIsThePagedOneOfEachSequence) {
  // Each sequence alone as a paged op of batch 1 whose kv_lens is its key
  // count and whose table is its row: (Sq_b, L_b) = (3, 5), (0, 3),
  // (4, 0), (3, 12 of 30: capped).
  AttentionSpec s = withSoftcapAlibiAndWindow(varlenPagedSpec());
  s.numPages = 12;
  const HostTensor cuQ = lensOf({0, 3, 3, 7, 10}), cuK = lensOf({2, 7, 10, 10, 40});
  const HostTensor table = attentionVarlenBlockTable(s, 5, cuK);
  const HostTensor q = makeRandom(ElemType::F32, attentionShapeQ(s), 1);
  const HostTensor k = makeRandom(ElemType::F32, attentionShapeKv(s), 2);
  const HostTensor v = makeRandom(ElemType::F32, attentionShapeKv(s), 3);
  const HostTensor slopes = makeRandom(ElemType::F32, {8}, 4);
  const AttentionExtras extras = extrasOf({{"alibi_slopes", &slopes},
                                           {"cu_seqlens_q", &cuQ},
                                           {"cu_seqlens_k", &cuK},
                                           {"block_table", &table}});
  int64_t seen = 0, blind = 0;
  for (int64_t b = 0; b < 4; ++b) {
    const AttentionTokens qs = attentionSequenceTokens(cuQ, 10, b);
    AttentionSpec one = s; // the sequence alone, paged with kv_lens
    one.varlen = false;
    one.kvLens = true;
    one.batch = 1;
    one.seqQ = qs.end - qs.begin;
    if (one.seqQ == 0)
      continue;
    const HostTensor q1 = sequenceOf(q, qs.begin, qs.end);
    const HostTensor lens = lensOf({int(attentionPagedKeyCount(s, cuK, b))});
    const HostTensor row = tableRow(table, b);
    const AttentionExtras oneExtras = extrasOf(
        {{"alibi_slopes", &slopes}, {"kv_lens", &lens}, {"block_table", &row}});
    expectRowsOfSequence(s, {q, k, v, extras}, b, one, {q1, k, v, oneExtras},
                         seen, blind);
  }
  EXPECT_EQ(blind, 4 * 8); // sequence 2 has no key
  EXPECT_EQ(seen, 6 * 8);
  // Rows and the lse: varlen's, token t * Hq + h and lse [h, t].
  const AttentionExpected e = attentionExpected(s, q, k, v, extras, {9 * 8 + 7});
  EXPECT_EQ(e.lse.getAsDouble(0),
            roundTo(ElemType::F32, attentionRow(s, q, k, v, extras, 3, 7, 2).lse));
  EXPECT_EQ(attentionLseElements(s, {9 * 8 + 7}), (std::vector<int64_t>{7 * 10 + 9}));
  // A token of no sequence: zeros and -inf.
  const HostTensor shortQ = lensOf({0, 3, 3, 7, 8});
  AttentionExtras uncovered = extras;
  uncovered.cuSeqlensQ = &shortQ;
  EXPECT_EQ(attentionExpected(s, q, k, v, uncovered, {9 * 8}).lse.getAsDouble(0), -kInf);
  // No table: NaN, as for a paged op.
  AttentionExtras noTable = extras;
  noTable.blockTable = nullptr;
  EXPECT_TRUE(std::isnan(attentionRow(s, q, k, v, noTable, 0, 0, 0).lse));
}

TEST(AttentionVarlenPagedTest, InputsAreKeyCountsWithinCapacityAndTheirPages) {
  AttentionSpec s = varlenPagedSpec();
  s.batch = 5;
  s.seqQ = 37;
  s.seqKv = 24; // M = 6 pages of 4 keys
  s.numPages = 30; // B * M
  const KernelPackage pkg = varlenPagedPackage(s);
  int64_t partial = 0, odd = 0, shuffled = 0, padded = 0;
  for (uint64_t seed = 1; seed <= 32; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const HostTensor cuK = inputOf(pkg, "cu_seqlens_k", seed);
    const HostTensor table = inputOf(pkg, "block_table", seed);
    ASSERT_EQ(cuK.type, ElemType::I32);
    ASSERT_EQ(cuK.shape, (std::vector<int64_t>{6}));
    ASSERT_EQ(table.shape, (std::vector<int64_t>{5, 6}));
    EXPECT_EQ(cuK.data, attentionPagedCuSeqlensK(
                            s, packageInputSeed(seed, "cu_seqlens_k")).data);
    EXPECT_EQ(table.data, inputOf(pkg, "block_table", seed).data);
    // The queries: varlen's partition of Tq.
    EXPECT_EQ(inputOf(pkg, "cu_seqlens_q", seed).data,
              attentionCuSeqlens(s, packageInputSeed(seed, "cu_seqlens_q"), 37).data);
    EXPECT_EQ(cuK.getAsDouble(0), 0.0);
    std::vector<int64_t> lens(5);
    for (int64_t b = 0; b < 5; ++b) {
      lens[b] = int64_t(cuK.getAsDouble(b + 1) - cuK.getAsDouble(b));
      ASSERT_GE(lens[b], 0);
      ASSERT_LE(lens[b], 24);
      partial += lens[b] % 4 != 0;
      odd += lens[b] % 2;
    }
    EXPECT_EQ(keyCounts(s, cuK), lens);
    // B >= 3: a full sequence and an empty one.
    EXPECT_NE(std::find(lens.begin(), lens.end(), 24), lens.end());
    EXPECT_NE(std::find(lens.begin(), lens.end(), 0), lens.end());
    expectPagesOfTheLengths(table, lens, 4, 30, padded, shuffled);
  }
  EXPECT_GT(partial, 32); // partial last pages are common
  EXPECT_GT(odd, 32);
  EXPECT_GT(padded, 32);
  EXPECT_GT(shuffled, 0);
  EXPECT_NE(inputOf(pkg, "block_table", 1).data, inputOf(pkg, "block_table", 2).data);

  // The reference on a run's inputs reads pages only: no NaN row.
  const uint64_t seed = 3;
  const HostTensor q = inputOf(pkg, "q", seed), k = inputOf(pkg, "k", seed),
                   v = inputOf(pkg, "v", seed);
  const HostTensor cuQ = inputOf(pkg, "cu_seqlens_q", seed),
                   cuK = inputOf(pkg, "cu_seqlens_k", seed),
                   table = inputOf(pkg, "block_table", seed);
  const AttentionExpected e = attentionExpected(
      s, q, k, v,
      extrasOf({{"cu_seqlens_q", &cuQ}, {"cu_seqlens_k", &cuK}, {"block_table", &table}}),
      allRows(s));
  int64_t finite = 0;
  for (int64_t r = 0; r < e.lse.numElements(); ++r) {
    ASSERT_FALSE(std::isnan(e.lse.getAsDouble(r))) << "row " << r;
    finite += std::isfinite(e.lse.getAsDouble(r));
  }
  EXPECT_GT(finite, 0);
  for (int64_t i = 0; i < e.out.numElements(); ++i)
    ASSERT_FALSE(std::isnan(e.out.getAsDouble(i))) << i;
}

TEST(AttentionVarlenPagedTest, FewSequencesStillDrawFullAndEmptyOnes) {
  AttentionSpec s = varlenPagedSpec(); // M * P = 12
  int64_t full[3] = {}, empty[3] = {};
  for (int64_t B : {1, 2}) {
    s.batch = B;
    s.numPages = 3 * B;
    for (uint64_t seed = 0; seed < 64; ++seed) {
      const std::vector<int64_t> lens =
          keyCounts(s, attentionPagedCuSeqlensK(s, seed));
      full[B] += std::count(lens.begin(), lens.end(), 12) > 0;
      empty[B] += std::count(lens.begin(), lens.end(), 0) > 0;
    }
  }
  EXPECT_GT(full[1], 16); // B = 1: full on about half of the seeds
  EXPECT_LT(full[1], 64);
  EXPECT_EQ(full[2], 64); // B = 2: always a full one,
  EXPECT_GT(empty[2], 16); // an empty one on about half of the seeds
  EXPECT_LT(empty[2], 64);
}

TEST(AttentionVarlenPagedTest, ASmallPoolCapsTheKeyCountsToItsPages) {
  AttentionSpec s = varlenPagedSpec();
  s.batch = 5;
  s.seqKv = 24; // M = 6
  for (int64_t N : {1, 4, 7, 13}) {
    s.numPages = N; // < B * M = 30
    const KernelPackage pkg = varlenPagedPackage(s);
    int64_t capped = 0, padded = 0, shuffled = 0;
    for (uint64_t seed = 1; seed <= 16; ++seed) {
      SCOPED_TRACE("N " + std::to_string(N) + " seed " + std::to_string(seed));
      const std::vector<int64_t> lens =
          keyCounts(s, inputOf(pkg, "cu_seqlens_k", seed));
      int64_t pagesRead = 0;
      for (int64_t L : lens)
        pagesRead += (L + 3) / 4;
      EXPECT_LE(pagesRead, N);
      capped += pagesRead == N;
      expectPagesOfTheLengths(inputOf(pkg, "block_table", seed), lens, 4, N,
                              padded, shuffled);
    }
    EXPECT_GT(capped, 0) << "N " << N; // the pool is the limit
  }
  // Counts drawn elsewhere, more than the pool holds: the permutation is
  // read again (pages shared, each one of the pool).
  s.numPages = 4;
  const HostTensor table = attentionVarlenBlockTable(s, 1, lensOf({0, 24, 48, 49, 50, 51}));
  for (int64_t e = 0; e < 12; ++e) {
    EXPECT_GE(table.getAsDouble(e), 0.0) << e;
    EXPECT_LT(table.getAsDouble(e), 4.0) << e;
  }
  // Sequence 2's page is the 13th read: the permutation's first again.
  EXPECT_EQ(table.getAsDouble(12), table.getAsDouble(0));
  EXPECT_EQ(table.getAsDouble(13), -1.0);
}

TEST_F(AttentionPackageTest, LoadsAVarlenPagedAttentionPackage) {
  // A package of varlenPagedSpec's layout at a prefill's sizes: 3
  // sequences of 500 query tokens in all, bf16, Hq 8, Hkv 2, D 128, pages
  // of 16 keys, 64 per sequence, a pool of B * M = 192.
  AttentionSpec spec = varlenPagedSpec();
  std::tie(spec.batch, spec.seqQ, spec.seqKv, spec.headDim) =
      std::make_tuple(3, 500, 1024, 128);
  spec.dtype = spec.out = ElemType::BF16;
  spec = pagedOver(spec, 16, 192);
  KernelPackage pkg = varlenPagedPackage(spec);
  pkg.name = "attn_varlen_paged";
  pkg.target = "sm_80";
  pkg.sourceFile = "kernel.cu";
  pkg.source = "extern \"C\" __global__ void kgen_attn() {}\n";
  PackageKernel kernel;
  kernel.entry = "kgen_attn";
  kernel.launch.grid = {11, 8, 1};
  kernel.launch.block = {128, 1, 1};
  for (size_t p = 0; p < pkg.params.size(); ++p)
    kernel.args.push_back(p);
  pkg.kernels = {kernel};
  pkg.config = {{"source", "default"}};
  pkg.flops = attentionFlops(spec);
  pkg.bytes = attentionBytes(spec);
  EXPECT_EQ(pkg.flops, 2.0 * 8 * 128 * 500 * 1024);
  std::string err;
  const std::string out = dir + "/varlen-paged";
  ASSERT_TRUE(writePackage(out, pkg, err)) << err;
  KernelPackage loaded;
  ASSERT_TRUE(loadPackage(out, loaded, err)) << err;
  // Its inputs: key counts within the pages, and their pages.
  const std::vector<int64_t> lens = keyCounts(spec, inputOf(loaded, "cu_seqlens_k", 1));
  int64_t padded = 0, shuffled = 0;
  expectPagesOfTheLengths(inputOf(loaded, "block_table", 1), lens, 16, 192,
                          padded, shuffled);
  EXPECT_GT(shuffled, 0);

  // varlen's packed keys are not this op's pages; kv_lens is refused.
  json manifest;
  std::ifstream(out + "/manifest.json") >> manifest;
  json packedKv = manifest;
  for (int kv : {1, 2})
    packedKv["params"][kv]["shape"] = {700, 2, 128};
  std::ofstream(out + "/manifest.json") << packedKv.dump();
  EXPECT_FALSE(loadPackage(out, loaded, err));
  EXPECT_NE(err.find("parameter 'k' is bf16 700x2x128, the op says bf16 "
                     "192x2x16x128 (a paged cache [N, Hkv, P, D]: num_pages "
                     "192, page_size 16; varlen over pages"),
            std::string::npos)
      << err;
  json withLens = manifest;
  withLens["op"]["kv_lens"] = true;
  std::ofstream(out + "/manifest.json") << withLens.dump();
  EXPECT_FALSE(loadPackage(out, loaded, err));
  EXPECT_NE(err.find("op: 'varlen' with 'kv_lens'"), std::string::npos) << err;
}

//===----------------------------------------------------------------------===//
// NHD pages (pages_nhd): k and v [N, P, Hkv, D], FlashInfer's default and
// vLLM's cache layout
//===----------------------------------------------------------------------===//

namespace {

/// `op` (or `s`) with NHD pages.
json nhd(json op) {
  op["pages_nhd"] = true;
  return op;
}
AttentionSpec nhd(AttentionSpec s) {
  s.pagesNhd = true;
  return s;
}

/// An NHD pool [N, P, Hkv, D] in HND order [N, Hkv, P, D]: the same keys,
/// each page transposed.
HostTensor hndOf(const HostTensor &pool) {
  const int64_t N = pool.shape[0], P = pool.shape[1], H = pool.shape[2],
                D = pool.shape[3];
  HostTensor t = makeZeros(pool.type, {N, H, P, D});
  for (int64_t n = 0; n < N; ++n)
    for (int64_t p = 0; p < P; ++p)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t d = 0; d < D; ++d)
          t.setFromDouble(((n * H + h) * P + p) * D + d,
                          pool.getAsDouble(((n * P + p) * H + h) * D + d));
  return t;
}

/// The rows of `e` that see a key (a finite lse).
int64_t rowsWithKeys(const AttentionExpected &e) {
  int64_t n = 0;
  for (int64_t r = 0; r < e.lse.numElements(); ++r)
    n += std::isfinite(e.lse.getAsDouble(r));
  return n;
}

} // namespace

TEST(AttentionNhdTest, ParsesRoundTripsAndNeedsPaged) {
  AttentionSpec s, back;
  std::string err;
  ASSERT_TRUE(parseAttentionOp(nhd(pagedOp()), s, err)) << err;
  EXPECT_TRUE(s.paged && s.pagesNhd);
  EXPECT_EQ(attentionShapeKv(s), (std::vector<int64_t>{64, 16, 8, 128}));
  EXPECT_EQ(attentionShapeBlockTable(s), (std::vector<int64_t>{2, 16}));
  const json written = attentionOpJson(s);
  EXPECT_EQ(written["pages_nhd"], true);
  ASSERT_TRUE(parseAttentionOp(written, back, err)) << err;
  EXPECT_TRUE(back.pagesNhd);
  EXPECT_EQ(attentionOpJson(back), written);
  // HND pages (false or absent): the writer leaves the field out, as the
  // dialect's signature does.
  json hnd = pagedOp();
  hnd["pages_nhd"] = false;
  ASSERT_TRUE(parseAttentionOp(hnd, s, err)) << err;
  EXPECT_FALSE(s.pagesNhd);
  EXPECT_FALSE(attentionOpJson(s).contains("pages_nhd"));
  EXPECT_EQ(attentionShapeKv(s), (std::vector<int64_t>{64, 8, 16, 128}));
  // Refused: not a flag; without a paged cache (contiguous or packed keys).
  expectOpRefused(nhd(pagedOp()), "pages_nhd", "yes",
                  "'pages_nhd' must be true or false");
  expectOpRefused(nhd(llamaOp()), "'pages_nhd' needs 'paged'");
  expectOpRefused(nhd(varlenOp()), "'pages_nhd' needs 'paged'");
  json unpagedNhd = nhd(pagedOp());
  unpagedNhd["paged"] = false;
  unpagedNhd.erase("page_size");
  unpagedNhd.erase("num_pages");
  expectOpRefused(unpagedNhd, "'pages_nhd' needs 'paged'");
  // A varlen batch over NHD pages.
  ASSERT_TRUE(parseAttentionOp(nhd(varlenPagedOp()), s, err)) << err;
  EXPECT_TRUE(s.varlen && s.paged && s.pagesNhd);
  EXPECT_EQ(attentionShapeKv(s), (std::vector<int64_t>{48, 16, 8, 128}));
  EXPECT_EQ(attentionShapeQ(s), (std::vector<int64_t>{300, 32, 128}));
  ASSERT_TRUE(parseAttentionOp(attentionOpJson(s), back, err)) << err;
  EXPECT_EQ(attentionOpJson(back), attentionOpJson(s));
}

TEST(AttentionNhdTest, CountsAsHndPages) {
  for (const AttentionSpec &s : {pagedSpec(), varlenPagedSpec()}) {
    EXPECT_EQ(attentionFlops(nhd(s)), attentionFlops(s));
    EXPECT_EQ(attentionBytes(nhd(s)), attentionBytes(s));
  }
}

TEST(AttentionNhdTest, ParamsArePagesOfKeysThenHeads) {
  const AttentionSpec s = nhd(pagedSpec()); // N 16, P 4, Hkv 2, D 64
  EXPECT_EQ(attentionShapeKv(s), (std::vector<int64_t>{16, 4, 2, 64}));
  std::string err;
  EXPECT_TRUE(checkAttentionParams(pagedPackage(s), s, err)) << err;
  // HND pages for an NHD op, and NHD pages for an HND op: each message
  // names the op's layout.
  for (const char *name : {"k", "v"}) {
    KernelPackage pkg = pagedPackage(s);
    pkg.params[*pkg.findParam(name)].shape = {16, 2, 4, 64};
    expectRefused(pkg, s,
                  std::string("parameter '") + name +
                      "' is f32 16x2x4x64, the op says f32 16x4x2x64 (a "
                      "paged cache [N, P, Hkv, D] (NHD pages): num_pages 16, "
                      "page_size 4)");
  }
  const AttentionSpec hnd = pagedSpec();
  expectRefused(pagedPackage(s), hnd,
                "parameter 'k' is f32 16x4x2x64, the op says f32 16x2x4x64 "
                "(a paged cache [N, Hkv, P, D]: num_pages 16, page_size 4)");
  // Varlen over NHD pages.
  const AttentionSpec vs = nhd(varlenPagedSpec());
  EXPECT_TRUE(checkAttentionParams(varlenPagedPackage(vs), vs, err)) << err;
  KernelPackage pkg = varlenPagedPackage(vs);
  pkg.params[*pkg.findParam("k")].shape = {16, 2, 4, 64};
  expectRefused(pkg, vs,
                "parameter 'k' is f32 16x2x4x64, the op says f32 16x4x2x64 (a "
                "paged cache [N, P, Hkv, D] (NHD pages): num_pages 16, "
                "page_size 4; varlen over pages");
}

TEST(AttentionNhdTest, KeyJIsAtItsPagesRowThenHead) {
  // One sequence of 6 keys over pages 2 and 0 of 3 keys, kv_lens 4, two
  // heads (G = 1), q = 0: every visible key weighs the same. Element
  // [n, p, hk, d] of v is 1000 n + 100 p + 10 hk + d, so the output is
  // the mean of the visible keys' (page, row) plus head and column.
  AttentionSpec s = tinySpec();
  s.qHeads = s.kvHeads = 2;
  s.seqKv = 6;
  s.kvLens = true;
  s = nhd(pagedOver(s, 3, 4));
  const HostTensor q = makeZeros(ElemType::F32, attentionShapeQ(s));
  const HostTensor k = makeRandom(ElemType::F32, attentionShapeKv(s), 1);
  HostTensor v = makeZeros(ElemType::F32, attentionShapeKv(s));
  ASSERT_EQ(v.shape, (std::vector<int64_t>{4, 3, 2, 32}));
  for (int64_t e = 0; e < v.numElements(); ++e) {
    const int64_t d = e % 32, hk = e / 32 % 2, p = e / 64 % 3, n = e / 192;
    v.setFromDouble(e, 1000.0 * n + 100.0 * p + 10.0 * hk + d);
  }
  HostTensor table = makeZeros(ElemType::I32, {1, 2});
  table.setFromDouble(0, 2);
  table.setFromDouble(1, 0);
  const HostTensor lens = lensOf({4}); // keys (2, 0), (2, 1), (2, 2), (0, 0)
  AttentionExtras extras;
  extras.kvLens = &lens;
  extras.blockTable = &table;
  for (int64_t h = 0; h < 2; ++h) {
    const AttentionRow row = attentionRow(s, q, k, v, extras, 0, h, 0);
    EXPECT_NEAR(row.lse, std::log(4.0), 1e-12);
    for (int64_t d = 0; d < 32; ++d)
      EXPECT_NEAR(row.out[d], (3 * 2000.0 + 100.0 * (0 + 1 + 2)) / 4 + 10.0 * h + d,
                  1e-9)
          << "h " << h << " d " << d;
  }
  // The same tensor read as HND pages is another row.
  AttentionSpec hnd = s;
  hnd.pagesNhd = false;
  EXPECT_NE(attentionRow(hnd, q, k, v, extras, 0, 1, 0).out,
            attentionRow(s, q, k, v, extras, 0, 1, 0).out);
}

TEST(AttentionNhdTest, ReferenceIsTheHndOneOnTheSamePagesTransposed) {
  const AttentionSpec hnd = withSoftcapAlibiAndWindow(pagedSpec());
  const AttentionSpec s = nhd(hnd);
  const HostTensor q = makeRandom(ElemType::F32, attentionShapeQ(s), 1);
  const HostTensor k = makeRandom(ElemType::F32, attentionShapeKv(s), 2);
  const HostTensor v = makeRandom(ElemType::F32, attentionShapeKv(s), 3);
  const HostTensor kh = hndOf(k), vh = hndOf(v);
  ASSERT_EQ(kh.shape, attentionShapeKv(hnd));
  const HostTensor slopes = makeRandom(ElemType::F32, {8}, 4);
  const HostTensor lens = lensOf({12, 5, 0}); // full, 2 pages of 3, none
  const HostTensor table = attentionBlockTable(s, 4, &lens);
  const AttentionExtras extras = extrasOf(
      {{"kv_lens", &lens}, {"block_table", &table}, {"alibi_slopes", &slopes}});
  const std::vector<int64_t> rows = allRows(s);
  const AttentionExpected got = attentionExpected(s, q, k, v, extras, rows);
  const AttentionExpected want = attentionExpected(hnd, q, kh, vh, extras, rows);
  EXPECT_EQ(got.out.data, want.out.data);
  EXPECT_EQ(got.lse.data, want.lse.data);
  EXPECT_EQ(rowsWithKeys(got), 2 * 8 * 3); // sequences 0 and 1
  // Each pool read in the other order (the emulated test's mutation) is
  // another result.
  EXPECT_NE(attentionExpected(hnd, q, k, v, extras, rows).out.data,
            want.out.data);
  EXPECT_NE(attentionExpected(s, q, kh, vh, extras, rows).out.data,
            want.out.data);
  // A visible key's entry outside [0, N): NaN, as for HND pages (row 2 of
  // sequence 0 sees keys 8 to 11 through the window: its third page).
  HostTensor bad = table;
  bad.setFromDouble(2, 16);
  AttentionExtras badTable = extras;
  badTable.blockTable = &bad;
  EXPECT_TRUE(std::isnan(attentionRow(s, q, k, v, badTable, 0, 0, 2).lse));
}

TEST(AttentionNhdTest, VarlenOverNhdPagesIsTheHndOneOnTheSamePages) {
  // ReferenceIsThePagedOneOfEachSequence's batch: (Sq_b, L_b) = (3, 5),
  // (0, 3), (4, 0), (3, 12 of 30: capped).
  AttentionSpec hnd = withSoftcapAlibiAndWindow(varlenPagedSpec());
  hnd.numPages = 12;
  const AttentionSpec s = nhd(hnd);
  const HostTensor cuQ = lensOf({0, 3, 3, 7, 10}), cuK = lensOf({2, 7, 10, 10, 40});
  const HostTensor table = attentionVarlenBlockTable(s, 5, cuK);
  const HostTensor q = makeRandom(ElemType::F32, attentionShapeQ(s), 1);
  const HostTensor k = makeRandom(ElemType::F32, attentionShapeKv(s), 2);
  const HostTensor v = makeRandom(ElemType::F32, attentionShapeKv(s), 3);
  ASSERT_EQ(k.shape, (std::vector<int64_t>{12, 4, 2, 64}));
  const HostTensor kh = hndOf(k), vh = hndOf(v);
  const HostTensor slopes = makeRandom(ElemType::F32, {8}, 4);
  const AttentionExtras extras = extrasOf({{"alibi_slopes", &slopes},
                                           {"cu_seqlens_q", &cuQ},
                                           {"cu_seqlens_k", &cuK},
                                           {"block_table", &table}});
  const std::vector<int64_t> rows = allRows(s);
  const AttentionExpected got = attentionExpected(s, q, k, v, extras, rows);
  const AttentionExpected want = attentionExpected(hnd, q, kh, vh, extras, rows);
  EXPECT_EQ(got.out.data, want.out.data);
  EXPECT_EQ(got.lse.data, want.lse.data);
  EXPECT_EQ(rowsWithKeys(got), 6 * 8); // sequences 0 and 3
  EXPECT_NE(attentionExpected(hnd, q, k, v, extras, rows).out.data,
            want.out.data);
}

TEST(AttentionNhdTest, InputsAreTheHndOnesAndTheirPool) {
  // The table (and kv_lens, cu_seqlens) drawn as for HND pages; k and v
  // are seeded tensors of the NHD shape.
  for (const AttentionSpec &hnd : {pagedSpec(), varlenPagedSpec()}) {
    const KernelPackage nhdPkg = hnd.varlen ? varlenPagedPackage(nhd(hnd))
                                            : pagedPackage(nhd(hnd));
    const KernelPackage hndPkg =
        hnd.varlen ? varlenPagedPackage(hnd) : pagedPackage(hnd);
    for (uint64_t seed : {1, 2, 3}) {
      for (const char *name : {"block_table", "kv_lens", "cu_seqlens_k"})
        if (hndPkg.findParam(name)) {
          EXPECT_EQ(inputOf(nhdPkg, name, seed).data,
                    inputOf(hndPkg, name, seed).data)
              << name << " seed " << seed;
        }
      const HostTensor k = inputOf(nhdPkg, "k", seed);
      EXPECT_EQ(k.shape, attentionShapeKv(nhd(hnd)));
      EXPECT_EQ(k.data, makeRandom(ElemType::F32, attentionShapeKv(nhd(hnd)),
                                   packageInputSeed(seed, "k"))
                            .data);
    }
  }
}

TEST_F(AttentionPackageTest, LoadsAnNhdPagedAttentionPackage) {
  const json m = pagedManifest(true);
  KernelPackage pkg;
  std::string err;
  ASSERT_TRUE(loadPackage(write("nhd", m), pkg, err)) << err;
  AttentionSpec spec;
  ASSERT_TRUE(parseAttentionOp(pkg.op, spec, err)) << err;
  EXPECT_TRUE(spec.paged && spec.pagesNhd);
  EXPECT_TRUE(checkAttentionParams(pkg, spec, err)) << err;

  json hndPages = m; // the pool in HND order
  hndPages["params"][1]["shape"] = {300, 2, 16, 128};
  EXPECT_FALSE(loadPackage(write("hnd-pages", hndPages), pkg, err));
  EXPECT_NE(err.find("parameter 'k' is bf16 300x2x16x128, the op says bf16 "
                     "300x16x2x128 (a paged cache [N, P, Hkv, D] (NHD pages)"),
            std::string::npos)
      << err;
  json contiguous = attentionManifest();
  contiguous["op"]["pages_nhd"] = true;
  EXPECT_FALSE(loadPackage(write("nhd-contiguous", contiguous), pkg, err));
  EXPECT_NE(err.find("op: 'pages_nhd' needs 'paged'"), std::string::npos)
      << err;
}
