//===- GemmLtTest.cpp - the row-major to cuBLASLt mapping, on the host ----===//
//
// cuBLASLt cannot run here, so its documented semantics are emulated: a
// column-major D'[m' x n'] = op(A') op(B'), element (r, c) of a stored
// matrix at r + c * ld (+ batch * batchStride), op = transpose swapping the
// indices. The layouts ltLayout produces must give the row-major GEMM.
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/cuda/GemmLt.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace kgen::rt;

namespace {

/// Element (i, j) of op(X) for stored matrix `m` in batch `batch`.
double opElement(const HostTensor &x, const LtMatrix &m, int64_t batch,
                 uint64_t i, uint64_t j) {
  const uint64_t r = m.transposed ? j : i;
  const uint64_t c = m.transposed ? i : j;
  EXPECT_LT(r, m.rows);
  EXPECT_LT(c, m.cols);
  return x.getAsDouble(static_cast<int64_t>(r) + static_cast<int64_t>(c) * m.ld +
                       batch * m.batchStride);
}

/// cuBLASLt's D' = op(A') op(B') as documented, A' = our B, B' = our A.
std::vector<double> emulate(const LtLayout &l, const HostTensor &ourA,
                            const HostTensor &ourB) {
  std::vector<double> d(static_cast<size_t>(l.batchCount) * l.m * l.n, 0.0);
  for (int64_t batch = 0; batch < l.batchCount; ++batch)
    for (uint64_t i = 0; i < l.m; ++i)
      for (uint64_t j = 0; j < l.n; ++j) {
        double sum = 0;
        for (uint64_t p = 0; p < l.k; ++p)
          sum += opElement(ourB, l.a, batch, i, p) * opElement(ourA, l.b, batch, p, j);
        d[static_cast<size_t>(i + j * static_cast<uint64_t>(l.d.ld) +
                              static_cast<uint64_t>(batch * l.d.batchStride))] = sum;
      }
  return d;
}

// What a results file records (Results.h): the loaded library's version,
// of the major version kgen was built against; no device needed.
TEST(GemmLt, VersionStringIsTheLoadedLibrarys) {
  const std::string v = cublasLtVersionString();
  EXPECT_EQ(v.rfind(std::to_string(CUBLAS_VER_MAJOR) + ".", 0), 0u) << v;
  EXPECT_EQ(std::count(v.begin(), v.end(), '.'), 2) << v;
  EXPECT_EQ(v.find_first_not_of("0123456789."), std::string::npos) << v;
}

TEST(GemmLt, LayoutsComputeTheRowMajorGemm) {
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (int64_t batch : {1, 3})
        for (bool batchedB : {false, true}) {
          GemmSpec s;
          s.batch = batch;
          s.m = 4;
          s.n = 3;
          s.k = 5;
          s.transposeA = ta;
          s.transposeB = tb;
          s.batchedB = batchedB;
          s.a = s.b = s.d = ElemType::F32;
          const HostTensor a = makeRandom(ElemType::F32, gemmShapeA(s), 11);
          const HostTensor b = makeRandom(ElemType::F32, gemmShapeB(s), 12);
          const LtLayout layout = ltLayout(referenceProblem(s));
          EXPECT_EQ(layout.m, 3u);
          EXPECT_EQ(layout.n, 4u);
          EXPECT_EQ(layout.batchCount, batch);
          const std::vector<double> d = emulate(layout, a, b);
          for (int64_t bi = 0; bi < batch; ++bi)
            for (int64_t row = 0; row < s.m; ++row)
              for (int64_t col = 0; col < s.n; ++col)
                EXPECT_DOUBLE_EQ(d[static_cast<size_t>((bi * s.m + row) * s.n + col)],
                                 gemmAccumulator(s, {&a, 0}, {&b, 0}, bi, row, col))
                    << "ta " << ta << " tb " << tb << " batch " << batch
                    << " batchedB " << batchedB;
        }
}

TEST(GemmLt, BroadcastBHasBatchStrideZero) {
  GemmSpec s;
  s.batch = 4;
  s.m = s.n = s.k = 8;
  const LtLayout l = ltLayout(referenceProblem(s));
  EXPECT_EQ(l.a.batchStride, 0);
  EXPECT_EQ(l.b.batchStride, 64);
  EXPECT_EQ(l.d.batchStride, 64);
}

TEST(GemmLt, ReferenceIsRawF32Accumulation) {
  GemmSpec s;
  s.m = s.n = s.k = 16;
  s.a = s.b = ElemType::F8E4M3FN;
  s.d = ElemType::BF16;
  s.alpha = 2;
  s.c = ElemType::BF16;
  s.beta = 1;
  s.act = Activation::Gelu;
  const LtProblem p = referenceProblem(s);
  EXPECT_EQ(p.a, ElemType::BF16); // fp8 read from bf16 copies
  EXPECT_EQ(p.out, ElemType::F32);
  EXPECT_EQ(p.alpha, 1.0f);
  EXPECT_FALSE(p.withC);
  EXPECT_FALSE(p.withBias);
  EXPECT_EQ(p.act, Activation::None);
  EXPECT_FALSE(p.tf32);
}

TEST(GemmLt, BaselineFusesWhatCublasLtCan) {
  GemmSpec s;
  s.m = s.n = s.k = 16;
  s.alpha = 0.5;
  s.c = ElemType::BF16;
  s.beta = 2;
  s.bias = ElemType::BF16;
  s.act = Activation::Gelu;
  std::string omitted;
  LtProblem p = baselineProblem(s, false, omitted);
  EXPECT_EQ(omitted, "");
  EXPECT_TRUE(p.withC);
  EXPECT_TRUE(p.withBias);
  EXPECT_EQ(p.act, Activation::Gelu);
  EXPECT_EQ(p.alpha, 0.5f);
  EXPECT_EQ(p.beta, 2.0f);
  EXPECT_EQ(p.out, ElemType::BF16);

  s.c = ElemType::F32;       // C of another type than D
  s.bias = ElemType::F32;    // bias of another type than D
  s.act = Activation::Silu;  // no cuBLASLt epilogue
  p = baselineProblem(s, false, omitted);
  EXPECT_EQ(omitted, "C, bias, silu");
  EXPECT_FALSE(p.withC);
  EXPECT_FALSE(p.withBias);
  EXPECT_EQ(p.act, Activation::None);

  GemmSpec f8;
  f8.m = f8.n = f8.k = 16;
  f8.a = f8.b = ElemType::F8E4M3FN;
  f8.d = ElemType::F8E4M3FN;
  p = baselineProblem(f8, false, omitted);
  EXPECT_EQ(p.a, ElemType::F8E4M3FN); // the baseline keeps fp8 operands
  EXPECT_EQ(p.out, ElemType::BF16);
  EXPECT_EQ(omitted, "f8E4M3FN output (bf16 instead)");

  GemmSpec f32;
  f32.a = f32.b = f32.d = ElemType::F32;
  EXPECT_TRUE(baselineProblem(f32, true, omitted).tf32);
}

} // namespace
