//===- ExpandFloatConversions.cpp - exact narrow-float conversions --------===//
//
// Rewrites scalar `arith.extf` / `arith.truncf` between f32 and a narrow float
// (f16, bf16, f8E4M3FN) into i32 bit manipulation. Preconditions: scalar
// operands (the CPU reference lowering only produces scalars); conversions of
// vectors or between other types, and truncations with a rounding mode other
// than to_nearest_even, are left alone.
//
// Narrow formats are described by their field widths (SmallFloat). Encoding
// f32 -> narrow, for |x| with bits `ab`:
//   NaN                      -> the format's quiet NaN
//   |x| <  min normal        -> subnormal: round |x| to a multiple of the
//                               subnormal step with the add-and-subtract
//                               trick (an f32 constant whose ulp is the step),
//                               then scale to an integer mantissa
//   otherwise                -> round-to-nearest-even on the f32 bits
//                               (add 0111..1 + lsb, drop the low bits), rebias
//   rounded > max finite     -> inf, or +-max finite when saturating
// These match runtime/lib/Float.cpp bit for bit.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

namespace mlir::kgen {
#define GEN_PASS_DEF_KGENEXPANDFLOATCONVERSIONS
#include "passes/Passes.h.inc"
} // namespace mlir::kgen

using namespace mlir;
using namespace mlir::kgen;

namespace {
/// Field layout of a narrow float format with an implicit leading one.
struct SmallFloat {
  unsigned bits;      // total width
  unsigned mantBits;  // stored mantissa bits
  int bias;           // exponent bias
  bool hasInf;        // all-ones exponent with zero mantissa is infinity
  bool saturate;      // overflow goes to +-max finite instead of inf
  uint32_t quietNaN;  // NaN encoding without the sign
  float maxFinite;    // largest finite magnitude
};

std::optional<SmallFloat> describe(Type type) {
  if (type.isF16())
    return SmallFloat{16, 10, 15, true, false, 0x7E00, 65504.0f};
  if (type.isBF16())
    return SmallFloat{16, 7, 127, true, false, 0x7FC0, 3.38953139e38f};
  if (isa<Float8E4M3FNType>(type))
    return SmallFloat{8, 3, 7, false, true, 0x7F, 448.0f};
  return std::nullopt;
}

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

class Emitter {
public:
  Emitter(ImplicitLocOpBuilder &b) : b(b) {}

  Value i32(uint32_t v) {
    return arith::ConstantOp::create(b, b.getI32IntegerAttr(int32_t(v)));
  }
  Value f32(float v) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(v));
  }
  Value band(Value x, uint32_t m) { return arith::AndIOp::create(b, x, i32(m)); }
  Value bor(Value x, Value y) { return arith::OrIOp::create(b, x, y); }
  Value shl(Value x, unsigned s) { return arith::ShLIOp::create(b, x, i32(s)); }
  Value shr(Value x, unsigned s) { return arith::ShRUIOp::create(b, x, i32(s)); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value ult(Value x, uint32_t v) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::ult, x, i32(v));
  }
  Value ugt(Value x, uint32_t v) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::ugt, x, i32(v));
  }
  Value eq(Value x, uint32_t v) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::eq, x, i32(v));
  }
  Value sel(Value c, Value t, Value f) {
    return arith::SelectOp::create(b, c, t, f);
  }
  Value bitsToF32(Value x) {
    return arith::BitcastOp::create(b, b.getF32Type(), x);
  }
  Value f32ToBits(Value x) {
    return arith::BitcastOp::create(b, b.getI32Type(), x);
  }

  /// f32 -> narrow encoding in the low `fmt.bits` of an i32.
  Value encode(Value x, const SmallFloat &fmt) {
    Value xb = f32ToBits(x);
    Value sign = shr(band(xb, 0x80000000u), 32 - fmt.bits);
    Value ab = band(xb, 0x7FFFFFFFu);
    Value isNaN = ugt(ab, 0x7F800000u);
    Value nan = i32(fmt.quietNaN);
    unsigned drop = 23 - fmt.mantBits;

    // Round-to-nearest-even on the f32 bits; carries ripple into the exponent.
    Value lsb = band(shr(ab, drop), 1);
    Value rounded = add(add(ab, i32((1u << (drop - 1)) - 1)), lsb);
    Value normal = shr(rounded, drop);
    if (fmt.bias != 127) // rebias: subtract (127 - bias) from the exponent
      normal = arith::SubIOp::create(
          b, normal, i32(uint32_t(127 - fmt.bias) << fmt.mantBits));
    Value result = normal;

    if (fmt.bias != 127) {
      // Subnormal range of the target (f32 subnormals are below it).
      float minNormal = std::ldexp(1.0f, 1 - fmt.bias);
      float step = std::ldexp(1.0f, 1 - fmt.bias - int(fmt.mantBits));
      Value isSub = ult(ab, bitsOf(minNormal));
      Value small = sel(isSub, bitsToF32(ab), f32(0.0f));
      Value magic = f32(std::ldexp(step, 23));
      Value snapped = arith::SubFOp::create(
          b, arith::AddFOp::create(b, small, magic), magic);
      Value sub = arith::FPToUIOp::create(
          b, b.getI32Type(),
          arith::MulFOp::create(b, snapped, f32(1.0f / step)));
      result = sel(isSub, sub, result);

      uint32_t maxBits = bitsOf(fmt.maxFinite);
      Value roundedF32 = band(rounded, ~((1u << drop) - 1));
      Value overflow = ugt(roundedF32, maxBits);
      uint32_t maxEnc = ((maxBits >> drop) - (uint32_t(127 - fmt.bias)
                                                << fmt.mantBits));
      uint32_t infEnc = ((1u << (fmt.bits - 1 - fmt.mantBits)) - 1)
                        << fmt.mantBits;
      result = sel(overflow, i32(fmt.saturate ? maxEnc : infEnc), result);
    }
    return bor(sel(isNaN, nan, result), sign);
  }

  /// Narrow encoding (low `fmt.bits` of an i32) -> f32.
  Value decode(Value u, const SmallFloat &fmt) {
    unsigned drop = 23 - fmt.mantBits;
    unsigned expBits = fmt.bits - 1 - fmt.mantBits;
    if (fmt.bias == 127) // bf16: the top half of an f32
      return bitsToF32(shl(u, 16));
    Value sign = shl(band(u, 1u << (fmt.bits - 1)), 32 - fmt.bits);
    Value e = band(shr(u, fmt.mantBits), (1u << expBits) - 1);
    Value f = band(u, (1u << fmt.mantBits) - 1);
    Value mag = band(u, (1u << (fmt.bits - 1)) - 1);
    // Normal: rebias the exponent, widen the mantissa.
    Value normal = add(shl(mag, drop), i32(uint32_t(127 - fmt.bias) << 23));
    // Subnormal: f * step, exact in f32.
    float step = std::ldexp(1.0f, 1 - fmt.bias - int(fmt.mantBits));
    Value sub = f32ToBits(arith::MulFOp::create(
        b, arith::UIToFPOp::create(b, b.getF32Type(), f), f32(step)));
    Value result = sel(eq(e, 0), sub, normal);
    uint32_t maxExp = (1u << expBits) - 1;
    if (fmt.hasInf) {
      Value special = sel(eq(f, 0), i32(0x7F800000u), i32(0x7FC00000u));
      result = sel(eq(e, maxExp), special, result);
    } else { // e4m3fn: only all-ones is NaN
      result = sel(eq(mag, (1u << (fmt.bits - 1)) - 1), i32(0x7FC00000u),
                   result);
    }
    return bitsToF32(bor(result, sign));
  }

private:
  ImplicitLocOpBuilder &b;
};

struct KgenExpandFloatConversionsPass
    : mlir::kgen::impl::KgenExpandFloatConversionsBase<
          KgenExpandFloatConversionsPass> {
  using KgenExpandFloatConversionsBase::KgenExpandFloatConversionsBase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](Operation *op) {
      if (auto ext = dyn_cast<arith::ExtFOp>(op)) {
        std::optional<SmallFloat> fmt = describe(ext.getIn().getType());
        if (!fmt || !ext.getType().isF32())
          return;
        ImplicitLocOpBuilder b(op->getLoc(), op);
        Emitter e(b);
        Value narrow = arith::BitcastOp::create(
            b, b.getIntegerType(fmt->bits), ext.getIn());
        Value wide = arith::ExtUIOp::create(b, b.getI32Type(), narrow);
        rewriter.replaceOp(op, e.decode(wide, *fmt));
      } else if (auto trunc = dyn_cast<arith::TruncFOp>(op)) {
        std::optional<SmallFloat> fmt = describe(trunc.getType());
        if (!fmt || !trunc.getIn().getType().isF32())
          return;
        // Only round-to-nearest-even is expanded; other modes stay as asked.
        if (std::optional<arith::RoundingMode> mode = trunc.getRoundingmode())
          if (*mode != arith::RoundingMode::to_nearest_even)
            return;
        ImplicitLocOpBuilder b(op->getLoc(), op);
        Emitter e(b);
        Value enc = e.encode(trunc.getIn(), *fmt);
        Value narrow =
            arith::TruncIOp::create(b, b.getIntegerType(fmt->bits), enc);
        rewriter.replaceOp(op, arith::BitcastOp::create(b, trunc.getType(),
                                                        narrow)
                                   .getResult());
      }
    });
  }
};
} // namespace
