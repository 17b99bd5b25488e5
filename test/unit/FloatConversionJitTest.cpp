//===- FloatConversionJitTest.cpp - JIT narrow floats == host narrow floats ===//
//
// kgen-expand-float-conversions (in the reference pipeline) and the host
// conversions of runtime/lib/Float.cpp are two independent implementations
// of the same roundings. Here both convert the same values, exhaustively for
// the narrow -> f32 direction and on every representable value, every
// midpoint, its neighbours and random floats for f32 -> narrow; the bits
// must agree (NaN payloads aside).
//
//===----------------------------------------------------------------------===//

#include "tools/Register.h"
#include "tools/kgen-run/Invoke.h"

#include "kgen/runtime/Float.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

namespace rt = ::kgen::rt;
using mlir::kgen::runReference;

namespace {
struct Format {
  const char *mlirName;
  rt::ElemType type;
  unsigned bits;
  float (*decode)(uint32_t);
  uint32_t (*encode)(float);
};

const Format kFormats[] = {
    {"bf16", rt::ElemType::BF16, 16,
     [](uint32_t u) { return rt::bf16ToF32(uint16_t(u)); },
     [](float f) { return uint32_t(rt::f32ToBf16(f)); }},
    {"f16", rt::ElemType::F16, 16,
     [](uint32_t u) { return rt::f16ToF32(uint16_t(u)); },
     [](float f) { return uint32_t(rt::f32ToF16(f)); }},
    {"f8E4M3FN", rt::ElemType::F8E4M3FN, 8,
     [](uint32_t u) { return rt::f8E4M3FNToF32(uint8_t(u)); },
     [](float f) { return uint32_t(rt::f32ToF8E4M3FN(f)); }},
};

void PrintTo(const Format &f, std::ostream *os) { *os << f.mlirName; }

class JitConversion : public ::testing::TestWithParam<Format> {
protected:
  static void SetUpTestSuite() { mlir::kgen::registerAllKgenPasses(); }

  /// Runs `func @main(%x: tensor<N x from>) -> tensor<N x to>` doing `op`.
  rt::HostTensor run(const char *op, rt::HostTensor input, rt::ElemType to,
                     const std::string &fromName, const std::string &toName) {
    mlir::DialectRegistry registry;
    mlir::kgen::registerKgenDialects(registry);
    mlir::MLIRContext context(registry);
    context.loadAllAvailableDialects();
    std::string n = std::to_string(input.numElements());
    std::string src = "func.func @main(%x: tensor<" + n + "x" + fromName +
                      ">) -> tensor<" + n + "x" + toName + "> {\n  %y = " +
                      op + " %x : tensor<" + n + "x" + fromName +
                      "> to tensor<" + n + "x" + toName +
                      ">\n  return %y : tensor<" + n + "x" + toName + ">\n}\n";
    auto module = mlir::parseSourceString<mlir::ModuleOp>(src, &context);
    EXPECT_TRUE(module);
    std::vector<rt::HostTensor> inputs = {std::move(input)};
    std::vector<rt::HostTensor> outputs = {
        rt::makeZeros(to, inputs[0].shape)};
    std::string err;
    EXPECT_TRUE(runReference(*module, "main", inputs, outputs, err)) << err;
    return outputs[0];
  }
};

uint32_t loadBits(const rt::HostTensor &t, int64_t i, unsigned bits) {
  uint32_t u = 0;
  std::memcpy(&u, t.data.data() + i * (bits / 8), bits / 8);
  return u;
}

bool isNaNBits(const Format &f, uint32_t u) { return std::isnan(f.decode(u)); }

TEST_P(JitConversion, ExtendsEveryEncodingExactly) {
  const Format &f = GetParam();
  int64_t n = int64_t{1} << f.bits;
  rt::HostTensor in = rt::makeZeros(f.type, {n});
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(in.data.data() + i * (f.bits / 8), &i, f.bits / 8);
  rt::HostTensor out =
      run("arith.extf", in, rt::ElemType::F32, f.mlirName, "f32");
  for (int64_t i = 0; i < n; ++i) {
    float want = f.decode(uint32_t(i));
    float got = float(out.getAsDouble(i));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << f.mlirName << " 0x" << std::hex << i;
      continue;
    }
    uint32_t wb, gb;
    std::memcpy(&wb, &want, 4);
    std::memcpy(&gb, &got, 4);
    EXPECT_EQ(wb, gb) << f.mlirName << " encoding 0x" << std::hex << i;
  }
}

TEST_P(JitConversion, RoundsLikeTheHost) {
  const Format &f = GetParam();
  // Every finite value, the midpoints to the next one, and their f32
  // neighbours: the cases where rounding direction and ties matter.
  std::vector<float> values = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e30f,
                               -1e30f, 3.4e38f, 1e-45f, -1e-45f, 1e-40f};
  for (uint32_t u = 0; u < (1u << (f.bits - 1)); ++u) {
    float v = f.decode(u), next = f.decode(u + 1);
    if (!std::isfinite(v))
      continue;
    for (float s : {1.0f, -1.0f}) {
      values.push_back(s * v);
      if (std::isfinite(next)) {
        float mid = s * (v + (next - v) / 2);
        values.insert(values.end(), {mid, std::nextafter(mid, INFINITY),
                                     std::nextafter(mid, -INFINITY)});
      }
    }
  }
  std::mt19937 gen(42);
  std::uniform_int_distribution<uint32_t> bitsDist;
  for (int i = 0; i < 200000; ++i) {
    uint32_t b = bitsDist(gen);
    float v;
    std::memcpy(&v, &b, 4);
    values.push_back(v);
  }
  rt::HostTensor in =
      rt::makeZeros(rt::ElemType::F32, {int64_t(values.size())});
  std::memcpy(in.data.data(), values.data(), values.size() * 4);
  rt::HostTensor out = run("arith.truncf", in, f.type, "f32", f.mlirName);
  int failures = 0;
  for (size_t i = 0; i < values.size() && failures < 20; ++i) {
    uint32_t want = f.encode(values[i]);
    uint32_t got = loadBits(out, i, f.bits);
    if (isNaNBits(f, want) && isNaNBits(f, got))
      continue;
    if (want != got) {
      ++failures;
      ADD_FAILURE() << f.mlirName << ": " << values[i] << " -> 0x" << std::hex
                    << got << ", host gives 0x" << want;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(NarrowFloats, JitConversion,
                         ::testing::ValuesIn(kFormats),
                         [](const auto &info) {
                           return std::string(info.param.mlirName);
                         });
} // namespace
