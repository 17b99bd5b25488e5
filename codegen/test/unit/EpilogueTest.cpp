//===- EpilogueTest.cpp - activations and output rounding on the CPU ------===//
//
// Activations against their formulas in double; the host path of the output
// casts (bf16 / f16 round to nearest even, e4m3 round to nearest even with
// saturation) against a reference that searches the representable values.
//
//===----------------------------------------------------------------------===//

#include "kgen/cuda/Epilogue.cuh"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace kgen::cuda;

namespace {

std::vector<float> samplePoints() {
  std::vector<float> xs = {0.f, -0.f, 1e-30f, -1e-30f, 1e-7f, 0.5f, -0.5f,
                           1.f, -1.f, 3.f, -3.f, 8.f, -8.f, 15.f, -15.f,
                           30.f, -30.f, 80.f, -80.f};
  for (int i = -4000; i <= 4000; ++i)
    xs.push_back(i / 400.f);
  return xs;
}

double relErr(double got, double want) {
  return std::fabs(got - want) / std::max(std::fabs(want), 1e-30);
}

TEST(Activations, MatchTheirFormulasInDouble) {
  for (float x : samplePoints()) {
    const double d = x;
    EXPECT_EQ(relu(x), x > 0 ? x : 0.f);
    const double wantGelu =
        0.5 * d * (1.0 + std::tanh(0.7978845608028654 * (d + 0.044715 * d * d * d)));
    const double wantSilu = d / (1.0 + std::exp(-d));
    // float evaluation: a few ulps relative, or absolute near zero.
    EXPECT_TRUE(relErr(gelu_tanh(x), wantGelu) < 1e-5 ||
                std::fabs(gelu_tanh(x) - wantGelu) < 1e-7)
        << "gelu(" << x << ") = " << gelu_tanh(x) << ", want " << wantGelu;
    EXPECT_TRUE(relErr(silu(x), wantSilu) < 1e-5 ||
                std::fabs(silu(x) - wantSilu) < 1e-7)
        << "silu(" << x << ") = " << silu(x) << ", want " << wantSilu;
  }
  EXPECT_EQ(activate<Act::None>(-2.5f), -2.5f);
  EXPECT_EQ(activate<Act::Relu>(-2.5f), 0.f);
  EXPECT_FLOAT_EQ(activate<Act::GeluTanh>(1.f), gelu_tanh(1.f));
  EXPECT_FLOAT_EQ(activate<Act::Silu>(1.f), silu(1.f));
  // Saturation of the tails.
  EXPECT_EQ(gelu_tanh(-80.f), -0.f);
  EXPECT_EQ(gelu_tanh(80.f), 80.f);
  EXPECT_EQ(silu(-200.f), -0.f);
}

TEST(Activations, EpilogueFormula) {
  // act(alpha * acc + beta * c + bias)
  EXPECT_FLOAT_EQ(epilogue_math<Act::None>(2.f, 0.5f, 3.f, 1.f), 5.f);
  EXPECT_FLOAT_EQ(epilogue_math<Act::Relu>(2.f, -4.f, 3.f, 1.f), 0.f);
  EXPECT_FLOAT_EQ(epilogue_math<Act::Silu>(1.f, 1.f, 0.f, 0.f), silu(1.f));
}

//===----------------------------------------------------------------------===//
// Rounding
//===----------------------------------------------------------------------===//

/// A small floating-point format: positive codes 0 .. maxFinite are
/// monotonic in value; overflow code and the virtual value just past it.
struct Format {
  float (*decode)(std::uint32_t);
  std::uint32_t maxFinite;  // largest finite positive code
  double pastMax;           // the value the next code would have
  std::uint32_t signBit;
  bool saturate;            // e4m3 satfinite: clamp instead of overflow
};

float decBf16(std::uint32_t c) { return bf16_to_f32(std::uint16_t(c)); }
float decF16(std::uint32_t c) { return f16_to_f32(std::uint16_t(c)); }
float decE4m3(std::uint32_t c) { return e4m3_to_f32(std::uint8_t(c)); }

const Format kBf16{decBf16, 0x7f7f, std::ldexp(1.0, 128), 0x8000, false};
const Format kF16{decF16, 0x7bff, 65536.0, 0x8000, false};
const Format kE4m3{decE4m3, 0x7e, 480.0, 0x80, true};

/// Round-to-nearest-even by search over the representable values.
std::uint32_t reference(const Format &f, float x) {
  const std::uint32_t sign = std::signbit(x) ? f.signBit : 0;
  const double a = std::fabs(double(x));
  auto value = [&](std::uint32_t c) {
    return c > f.maxFinite ? f.pastMax : double(f.decode(c));
  };
  if (a >= f.pastMax || std::isinf(x))
    return sign | (f.saturate ? f.maxFinite : f.maxFinite + 1);
  // Largest code with value <= a (binary search over monotonic codes).
  std::uint32_t lo = 0, hi = f.maxFinite + 1;
  while (hi - lo > 1) {
    const std::uint32_t mid = (lo + hi) / 2;
    (value(mid) <= a ? lo : hi) = mid;
  }
  std::uint32_t r = lo;
  if (value(lo) != a) {
    const double dlo = a - value(lo), dhi = value(lo + 1) - a;
    r = (dhi < dlo || (dhi == dlo && (lo & 1))) ? lo + 1 : lo;
  }
  if (f.saturate && r > f.maxFinite)
    r = f.maxFinite;
  return sign | r;
}

/// Floats to test: every representable value of the format, the midpoints
/// between neighbours and one float ulp either side, and pseudo-random bit
/// patterns over the whole float range.
std::vector<float> roundingPoints(const Format &f) {
  std::vector<float> xs;
  for (std::uint32_t c = 0; c <= f.maxFinite; ++c) {
    const double v = f.decode(c);
    const double next = c < f.maxFinite ? double(f.decode(c + 1)) : f.pastMax;
    const float mid = float((v + next) / 2);
    for (float x : {float(v), mid, std::nextafter(mid, 0.f),
                    std::nextafter(mid, std::numeric_limits<float>::infinity())}) {
      xs.push_back(x);
      xs.push_back(-x);
    }
  }
  std::uint32_t s = 12345;
  for (int i = 0; i < 200000; ++i) {
    s = s * 1664525u + 1013904223u;
    xs.push_back(bits_to_float(s));
  }
  return xs;
}

template <class Cast>
void expectRoundsLikeReference(const Format &f, Cast cast, const char *name) {
  int checked = 0;
  for (float x : roundingPoints(f)) {
    if (std::isnan(x))
      continue;
    const std::uint32_t got = cast(x), want = reference(f, x);
    ASSERT_EQ(got, want) << name << "(" << x << ") [bits 0x" << std::hex
                         << float_to_bits(x) << "]";
    ++checked;
  }
  EXPECT_GT(checked, 100000);
}

TEST(Rounding, Bf16IsRoundToNearestEven) {
  expectRoundsLikeReference(
      kBf16, [](float x) { return std::uint32_t(f32_to_bf16_rne(x)); }, "bf16");
  EXPECT_EQ(f32_to_bf16_rne(1.00390625f), 0x3f80); // tie -> even (down)
  EXPECT_EQ(f32_to_bf16_rne(1.01171875f), 0x3f82); // tie -> even (up)
  EXPECT_EQ(f32_to_bf16_rne(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16_rne(std::nanf("")))));
}

TEST(Rounding, F16IsRoundToNearestEven) {
  expectRoundsLikeReference(
      kF16, [](float x) { return std::uint32_t(f32_to_f16_rne(x)); }, "f16");
  EXPECT_EQ(f32_to_f16_rne(65504.f), 0x7bff);
  EXPECT_EQ(f32_to_f16_rne(65519.f), 0x7bff);
  EXPECT_EQ(f32_to_f16_rne(65520.f), 0x7c00); // tie at the top -> infinity
  EXPECT_EQ(f32_to_f16_rne(std::ldexp(1.f, -25)), 0x0000); // tie -> even 0
  EXPECT_EQ(f32_to_f16_rne(std::ldexp(3.f, -26)), 0x0001);
  EXPECT_TRUE(std::isnan(f16_to_f32(f32_to_f16_rne(-std::nanf("")))));
}

TEST(Rounding, E4m3IsRoundToNearestEvenSaturating) {
  expectRoundsLikeReference(
      kE4m3,
      [](float x) { return std::uint32_t(f32_to_e4m3_satfinite(x)); }, "e4m3");
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(f32_to_e4m3_satfinite(448.f), 0x7e);
  EXPECT_EQ(f32_to_e4m3_satfinite(464.f), 0x7e); // would round to 480: clamp
  EXPECT_EQ(f32_to_e4m3_satfinite(1e30f), 0x7e);
  EXPECT_EQ(f32_to_e4m3_satfinite(inf), 0x7e);
  EXPECT_EQ(f32_to_e4m3_satfinite(-inf), 0xfe);
  EXPECT_EQ(f32_to_e4m3_satfinite(std::nanf("")) & 0x7f, 0x7f);
  EXPECT_EQ(f32_to_e4m3_satfinite(std::ldexp(1.f, -10)), 0x00); // tie -> 0
  EXPECT_EQ(f32_to_e4m3_satfinite(std::ldexp(3.f, -10)), 0x02); // tie -> even
  EXPECT_EQ(f32_to_e4m3_satfinite(std::ldexp(1.f, -6)), 0x08);  // min normal
  EXPECT_EQ(f32_to_e4m3_satfinite(-1.75f), 0xbe);
  // Every finite code decodes and re-encodes to itself.
  for (unsigned c = 0; c < 256; ++c) {
    if ((c & 0x7f) == 0x7f) {
      EXPECT_TRUE(std::isnan(e4m3_to_f32(std::uint8_t(c))));
      continue;
    }
    EXPECT_EQ(f32_to_e4m3_satfinite(e4m3_to_f32(std::uint8_t(c))), c);
  }
  EXPECT_EQ(e4m3_to_f32(0x7e), 448.f);
  EXPECT_EQ(e4m3_to_f32(0x01), std::ldexp(1.f, -9));
}

} // namespace
