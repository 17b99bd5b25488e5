//===- GemmTest.cpp - the gemm op: signature, tolerances, host mirror -----===//

#include "kgen/runtime/Float.h"
#include "kgen/runtime/Gemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

using namespace kgen::rt;
using json = nlohmann::json;

namespace {

const std::string kNaive = std::string(KGEN_RUNTIME_TEST_DATA) + "/packages/naive_gemm_f32";

/// The op of docs/kernel-package.md's example.
json exampleOp() {
  return json::parse(R"({
    "kind": "gemm", "batch": 1, "m": 4096, "n": 4096, "k": 4096,
    "transpose_a": false, "transpose_b": true, "batched_b": false,
    "dtype_a": "bf16", "dtype_b": "bf16", "dtype_d": "bf16",
    "dtype_bias": null, "dtype_c": null,
    "alpha": 1.0, "beta": 0.0, "activation": "none"})");
}

TEST(GemmOp, ParsesTheDocumentedExample) {
  GemmSpec spec;
  std::string err;
  ASSERT_TRUE(parseGemmOp(exampleOp(), spec, err)) << err;
  EXPECT_EQ(spec.m, 4096);
  EXPECT_TRUE(spec.transposeB);
  EXPECT_FALSE(spec.transposeA);
  EXPECT_EQ(spec.a, ElemType::BF16);
  EXPECT_FALSE(spec.bias.has_value());
  EXPECT_FALSE(spec.c.has_value());
  EXPECT_EQ(spec.beta, 0.0); // no C: beta ignored
  EXPECT_EQ(spec.act, Activation::None);
  EXPECT_EQ(gemmShapeA(spec), (std::vector<int64_t>{4096, 4096}));
  EXPECT_EQ(gemmFlops(spec), 137438953472.0); // the example's "flops"
  EXPECT_EQ(gemmBytes(spec), 100663296.0);    // and its "bytes"
}

TEST(GemmOp, EpilogueFieldsAndRoundTrip) {
  json op = exampleOp();
  op["batch"] = 3;
  op["batched_b"] = true;
  op["transpose_a"] = true;
  op["dtype_c"] = "f32";
  op["dtype_bias"] = "bf16";
  op["activation"] = "silu";
  op["alpha"] = 0.5;
  op.erase("beta"); // defaults to 1 with C
  GemmSpec spec;
  std::string err;
  ASSERT_TRUE(parseGemmOp(op, spec, err)) << err;
  EXPECT_EQ(spec.beta, 1.0);
  EXPECT_EQ(spec.alpha, 0.5);
  EXPECT_EQ(spec.c, ElemType::F32);
  EXPECT_EQ(spec.bias, ElemType::BF16);
  EXPECT_EQ(spec.act, Activation::Silu);
  EXPECT_EQ(gemmShapeA(spec), (std::vector<int64_t>{3, 4096, 4096}));
  EXPECT_EQ(gemmShapeB(spec), (std::vector<int64_t>{3, 4096, 4096}));
  EXPECT_EQ(gemmShapeD(spec), (std::vector<int64_t>{3, 4096, 4096}));
  GemmSpec again;
  ASSERT_TRUE(parseGemmOp(gemmOpJson(spec), again, err)) << err;
  EXPECT_EQ(gemmOpJson(again), gemmOpJson(spec));
}

TEST(GemmOp, Rejects) {
  const std::vector<std::pair<std::string, json>> edits = {
      {"m", -1},          {"k", "8"},        {"dtype_a", "f64"},
      {"dtype_b", "f16"}, {"dtype_d", "i32"}, {"activation", "tanh"},
      {"dtype_bias", "i8"}, {"acc_type", "f16"}, {"transpose_b", 1}};
  for (const auto &[key, value] : edits) {
    json op = exampleOp();
    op[key] = value;
    GemmSpec spec;
    std::string err;
    EXPECT_FALSE(parseGemmOp(op, spec, err)) << key;
    EXPECT_NE(err.find(key), std::string::npos) << key << ": " << err;
  }
  json noKind = exampleOp();
  noKind["kind"] = "attention";
  GemmSpec spec;
  std::string err;
  EXPECT_FALSE(parseGemmOp(noKind, spec, err));
  json f16acc = exampleOp();
  f16acc["dtype_a"] = f16acc["dtype_b"] = "f16";
  f16acc["acc_type"] = "f16";
  EXPECT_TRUE(parseGemmOp(f16acc, spec, err)) << err;
  EXPECT_TRUE(spec.accF16);
}

TEST(GemmOp, ChecksPackageParameters) {
  KernelPackage pkg;
  std::string err;
  ASSERT_TRUE(loadPackage(kNaive, pkg, err)) << err;
  GemmSpec spec;
  ASSERT_TRUE(parseGemmOp(pkg.op, spec, err)) << err;
  EXPECT_TRUE(checkGemmParams(pkg, spec, err)) << err;

  KernelPackage transposed = pkg;
  GemmSpec other = spec;
  other.transposeB = true; // B would be [48, 32]
  EXPECT_FALSE(checkGemmParams(transposed, other, err));
  EXPECT_NE(err.find("'B'"), std::string::npos) << err;

  KernelPackage wrongRole = pkg;
  wrongRole.params[*wrongRole.findParam("D")].role = ParamRole::Input;
  EXPECT_FALSE(checkGemmParams(wrongRole, spec, err));
  EXPECT_NE(err.find("written"), std::string::npos) << err;

  GemmSpec withBias = spec;
  withBias.bias = ElemType::F32;
  EXPECT_FALSE(checkGemmParams(pkg, withBias, err));
  EXPECT_NE(err.find("bias"), std::string::npos) << err;

  KernelPackage leadingOne = pkg; // [1, 64, 32] is [64, 32]
  leadingOne.params[*leadingOne.findParam("A")].shape = {1, 64, 32};
  EXPECT_TRUE(checkGemmParams(leadingOne, spec, err)) << err;
}

TEST(GemmTolerance, ByOperandAndOutputType) {
  GemmSpec s;
  s.a = s.b = s.d = ElemType::F32;
  EXPECT_EQ(gemmTolerance(s, false), 1e-4);
  EXPECT_EQ(gemmTolerance(s, true), 3e-3);
  s.d = ElemType::BF16; // f32 operands rounded to a bf16 output
  EXPECT_EQ(gemmTolerance(s, false), 1e-2);
  s.a = s.b = s.d = ElemType::BF16;
  EXPECT_EQ(gemmTolerance(s, false), 1e-2);
  s.a = s.b = s.d = ElemType::F16;
  EXPECT_EQ(gemmTolerance(s, false), 1e-2);
  s.accF16 = true;
  EXPECT_EQ(gemmTolerance(s, false), 5e-2);
  s = GemmSpec{};
  s.a = s.b = ElemType::F8E4M3FN;
  s.d = ElemType::BF16;
  EXPECT_EQ(gemmTolerance(s, false), 5e-2);
  s.a = s.b = ElemType::BF16;
  s.d = ElemType::F8E4M3FN;
  EXPECT_EQ(gemmTolerance(s, false), 5e-2);
}

TEST(GemmTolerance, Tf32FromTheConfig) {
  GemmSpec s;
  s.a = s.b = s.d = ElemType::F32;
  EXPECT_TRUE(usesTf32(s, json{{"instruction", "mma_sync"}}));
  EXPECT_TRUE(usesTf32(s, json{{"instruction", "wgmma"}}));
  EXPECT_FALSE(usesTf32(s, json{{"instruction", "simt"}}));
  EXPECT_FALSE(usesTf32(s, json{{"strategy", "naive"}}));
  EXPECT_FALSE(usesTf32(s, nullptr));
  s.a = s.b = ElemType::BF16;
  EXPECT_FALSE(usesTf32(s, json{{"instruction", "wgmma"}}));
}

TEST(GemmEpilogue, Activations) {
  EXPECT_EQ(activate(Activation::None, -2.5), -2.5);
  EXPECT_EQ(activate(Activation::Relu, -2.5), 0.0);
  EXPECT_EQ(activate(Activation::Relu, 2.5), 2.5);
  // gelu (tanh form) and silu at known points.
  EXPECT_NEAR(activate(Activation::Gelu, 1.0), 0.8411919906, 1e-9);
  EXPECT_NEAR(activate(Activation::Gelu, -1.0), -0.1588080094, 1e-9);
  EXPECT_EQ(activate(Activation::Gelu, 0.0), 0.0);
  EXPECT_NEAR(activate(Activation::Silu, 1.0), 0.7310585786, 1e-9);
  EXPECT_NEAR(activate(Activation::Silu, -2.0), -0.2384058440, 1e-9);
  for (Activation a : {Activation::None, Activation::Relu, Activation::Gelu,
                       Activation::Silu})
    EXPECT_EQ(parseActivation(activationName(a)), a);
  EXPECT_EQ(parseActivation("gelu_tanh"), std::nullopt);
}

TEST(GemmEpilogue, Order) {
  GemmSpec s;
  s.alpha = 2;
  s.beta = 0.5;
  s.act = Activation::Relu;
  // act(alpha * acc + beta * c + bias)
  EXPECT_EQ(gemmEpilogue(s, 3, 4, -1), 2 * 3 + 0.5 * 4 - 1);
  EXPECT_EQ(gemmEpilogue(s, -3, 4, -1), 0.0);
}

/// op(A)[b, m, k] and op(B)[b, k, n] by the definitions, for checking the
/// index arithmetic of gemmAccumulator.
double naiveElement(const GemmSpec &s, const HostTensor &a, const HostTensor &b,
                    int64_t batch, int64_t row, int64_t col) {
  double sum = 0;
  for (int64_t k = 0; k < s.k; ++k) {
    const int64_t ia = s.transposeA ? k * s.m + row : row * s.k + k;
    const int64_t bb = s.batchedB ? batch : 0;
    const int64_t ib = s.transposeB ? col * s.k + k : k * s.n + col;
    sum += a.getAsDouble(batch * s.m * s.k + ia) *
           b.getAsDouble(bb * s.k * s.n + ib);
  }
  return sum;
}

TEST(GemmHost, AccumulatorIndexing) {
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (bool batchedB : {false, true}) {
        GemmSpec s;
        s.batch = 2;
        s.m = 3;
        s.n = 5;
        s.k = 4;
        s.transposeA = ta;
        s.transposeB = tb;
        s.batchedB = batchedB;
        s.a = s.b = s.d = ElemType::F32;
        const HostTensor a = makeRandom(ElemType::F32, gemmShapeA(s), 1);
        const HostTensor b = makeRandom(ElemType::F32, gemmShapeB(s), 2);
        for (int64_t batch = 0; batch < s.batch; ++batch)
          for (int64_t row = 0; row < s.m; ++row)
            for (int64_t col = 0; col < s.n; ++col)
              EXPECT_DOUBLE_EQ(gemmAccumulator(s, {&a, 0}, {&b, 0}, batch, row, col),
                               naiveElement(s, a, b, batch, row, col))
                  << ta << tb << batchedB;
      }
}

TEST(GemmHost, ExpectedValuesAreRoundedToD) {
  GemmSpec s;
  s.m = 2;
  s.n = 3;
  s.k = 2;
  s.a = s.b = s.d = ElemType::BF16;
  s.bias = ElemType::F32;
  s.c = ElemType::F32;
  s.beta = 1;
  s.act = Activation::Gelu;
  const HostTensor a = makeRandom(ElemType::BF16, gemmShapeA(s), 3);
  const HostTensor b = makeRandom(ElemType::BF16, gemmShapeB(s), 4);
  const HostTensor c = makeRandom(ElemType::F32, gemmShapeD(s), 5);
  const HostTensor bias = makeRandom(ElemType::F32, {3}, 6);
  const HostView va{&a, 0}, vb{&b, 0}, vc{&c, 0}, vbias{&bias, 0};
  const HostTensor expected = gemmExpected(s, va, vb, &vc, &vbias, {0, 4, 5});
  ASSERT_EQ(expected.type, ElemType::BF16);
  ASSERT_EQ(expected.numElements(), 3);
  // Flat index 4 is row 1, column 1.
  const double exact = gemmEpilogue(s, gemmAccumulator(s, va, vb, 0, 1, 1),
                                    c.getAsDouble(4), bias.getAsDouble(1));
  EXPECT_EQ(expected.getAsDouble(1), bf16ToF32(f64ToBf16(exact)));
}

TEST(GemmHost, PeriodicViews) {
  const HostTensor pool = makeRandom(ElemType::F32, {10}, 7);
  const HostView view{&pool, 7};
  EXPECT_EQ(view.at(0), pool.getAsDouble(7));
  EXPECT_EQ(view.at(3), pool.getAsDouble(0));
  EXPECT_EQ(view.at(25), pool.getAsDouble(2));
}

TEST(GemmHost, SampleIndices) {
  EXPECT_EQ(sampleIndices(3, 128, 1), (std::vector<int64_t>{0, 1, 2}));
  const std::vector<int64_t> picked = sampleIndices(1'000'000, 128, 9);
  ASSERT_EQ(picked.size(), 128u);
  EXPECT_EQ(picked.front(), 0);
  EXPECT_EQ(picked.back(), 999'999);
  EXPECT_EQ(std::set<int64_t>(picked.begin(), picked.end()).size(), 128u);
  EXPECT_TRUE(std::is_sorted(picked.begin(), picked.end()));
  EXPECT_EQ(sampleIndices(1'000'000, 128, 9), picked); // seeded
  EXPECT_NE(sampleIndices(1'000'000, 128, 10), picked);
}

TEST(GemmHost, GatherAndDequantise) {
  const HostTensor t = makeRandom(ElemType::F16, {4, 4}, 8);
  const HostTensor g = gatherElements(t, {15, 0, 5});
  EXPECT_EQ(g.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(g.getAsDouble(0), t.getAsDouble(15));
  EXPECT_EQ(g.getAsDouble(2), t.getAsDouble(5));

  HostTensor f8 = makeZeros(ElemType::F8E4M3FN, {256});
  for (int bits = 0; bits < 256; ++bits)
    f8.data[static_cast<size_t>(bits)] = static_cast<uint8_t>(bits);
  const HostTensor bf16 = f8ToBf16(f8);
  ASSERT_EQ(bf16.type, ElemType::BF16);
  for (int64_t i = 0; i < 256; ++i) {
    const double v = f8.getAsDouble(i);
    if (std::isnan(v))
      EXPECT_TRUE(std::isnan(bf16.getAsDouble(i))) << i;
    else
      EXPECT_EQ(bf16.getAsDouble(i), v) << i; // exact
  }
}

} // namespace
