//===- RefBuilder.h - loop nests and f32 scalar code for CPU lowerings -*- C++ -*-===//
//
// The building blocks of kgen's CPU lowerings (kgen-lower-to-loops and
// kgen-lower-tiles-to-loops): loops and reductions, f32 arithmetic and the
// activations, loads widened to f32 and stores rounded once.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_PASSES_REFBUILDER_H
#define KGEN_PASSES_REFBUILDER_H

#include "passes/Passes.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::kgen {
/// Builds loop nests and scalar f32 arithmetic at the builder's position.
class RefBuilder {
public:
  explicit RefBuilder(ImplicitLocOpBuilder &b) : b(b) {}

  //===--- constants and scalar arithmetic --------------------------------===//
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value f32(double v) {
    return arith::ConstantOp::create(b, b.getF32FloatAttr(float(v)));
  }
  Value addf(Value x, Value y) { return arith::AddFOp::create(b, x, y); }
  Value subf(Value x, Value y) { return arith::SubFOp::create(b, x, y); }
  Value mulf(Value x, Value y) { return arith::MulFOp::create(b, x, y); }
  Value divf(Value x, Value y) { return arith::DivFOp::create(b, x, y); }
  Value maxf(Value x, Value y) { return arith::MaximumFOp::create(b, x, y); }
  Value exp(Value x) { return math::ExpOp::create(b, x); }
  Value absf(Value x) { return math::AbsFOp::create(b, x); }
  /// 1 / (1 + exp(-x)): the router's sigmoid scoring.
  Value sigmoid(Value x) {
    return divf(f32(1.0), addf(f32(1.0), exp(arith::NegFOp::create(b, x))));
  }
  Value addi(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value subi(Value x, Value y) { return arith::SubIOp::create(b, x, y); }
  Value divi(Value x, int64_t d) {
    return arith::DivUIOp::create(b, x, idx(d));
  }
  Value muli(Value x, int64_t m) { return arith::MulIOp::create(b, x, idx(m)); }
  Value remi(Value x, int64_t d) {
    return arith::RemUIOp::create(b, x, idx(d));
  }
  Value minsi(Value x, Value y) { return arith::MinSIOp::create(b, x, y); }
  Value maxsi(Value x, Value y) { return arith::MaxSIOp::create(b, x, y); }
  Value cmpi(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, p, x, y);
  }
  Value cmpf(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, p, x, y);
  }
  Value andi(Value x, Value y) { return arith::AndIOp::create(b, x, y); }
  Value boolean(bool v) {
    return arith::ConstantOp::create(b, b.getBoolAttr(v));
  }
  Value select(Value c, Value t, Value f) {
    return arith::SelectOp::create(b, c, t, f);
  }
  /// clamp(x, lo, hi) on signed index values.
  Value clamp(Value x, Value lo, Value hi) {
    return minsi(maxsi(x, lo), hi);
  }
  /// lo <= x < hi on signed index values.
  Value inRange(Value x, Value lo, Value hi) {
    return andi(cmpi(arith::CmpIPredicate::sge, x, lo),
                cmpi(arith::CmpIPredicate::slt, x, hi));
  }

  /// Attention masks (kgen.attention, kgen.tile.online_softmax): key `j`
  /// of a query at position `pos` is visible when j < len, and j <= pos
  /// with `causal`, j >= pos - left, j <= pos + right with those windows.
  Value attentionVisible(Value j, Value len, Value pos, bool causal,
                         std::optional<int64_t> left,
                         std::optional<int64_t> right) {
    using P = arith::CmpIPredicate;
    Value visible = cmpi(P::slt, j, len);
    if (causal)
      visible = andi(visible, cmpi(P::sle, j, pos));
    if (left)
      visible = andi(visible, cmpi(P::sge, j, subi(pos, idx(*left))));
    if (right)
      visible = andi(visible, cmpi(P::sle, j, addi(pos, idx(*right))));
    return visible;
  }
  /// ALiBi's bias `slope * |pos - j|` (f32) of key `j` for a query at `pos`.
  Value alibiBias(Value slope, Value pos, Value j) {
    Value d = subi(pos, j);
    Value dist = select(cmpi(arith::CmpIPredicate::slt, d, idx(0)),
                        subi(idx(0), d), d);
    Value fd = arith::SIToFPOp::create(
        b, b.getF32Type(), arith::IndexCastOp::create(b, b.getI64Type(), dist));
    return mulf(slope, fd);
  }

  /// The activations of KgenAttrs.td, on an f32 scalar.
  Value activation(Activation act, Value x) {
    switch (act) {
    case Activation::none:
      return x;
    case Activation::relu:
      return maxf(x, f32(0.0));
    case Activation::silu: // x / (1 + exp(-x))
      return divf(x, addf(f32(1.0), exp(arith::NegFOp::create(b, x))));
    case Activation::gelu: { // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
      Value x3 = mulf(mulf(x, x), x);
      Value inner = mulf(f32(0.7978845608028654), addf(x, mulf(f32(0.044715), x3)));
      return mulf(mulf(f32(0.5), x), addf(f32(1.0), math::TanhOp::create(b, inner)));
    }
    }
    llvm_unreachable("unknown activation");
  }

  //===--- memory --------------------------------------------------------===//
  /// A read-only view of a tensor operand, any layout.
  Value buffer(Value tensor) {
    auto t = cast<RankedTensorType>(tensor.getType());
    SmallVector<int64_t> strides(t.getRank(), ShapedType::kDynamic);
    auto layout = StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic,
                                         strides);
    auto type = MemRefType::get(t.getShape(), t.getElementType(), layout);
    return bufferization::ToBufferOp::create(b, type, tensor,
                                             /*read_only=*/true);
  }
  /// A fresh buffer for a result (or scratch) of the given shape and type.
  Value alloc(ArrayRef<int64_t> shape, Type elem) {
    return memref::AllocOp::create(b, MemRefType::get(shape, elem));
  }
  Value alloc(Type tensorType) {
    auto t = cast<RankedTensorType>(tensorType);
    return alloc(t.getShape(), t.getElementType());
  }
  /// The tensor a result buffer becomes once written.
  Value tensor(Value buf, Type tensorType) {
    auto op = bufferization::ToTensorOp::create(b, tensorType, buf);
    op.setRestrict(true);
    op.setWritable(true);
    return op;
  }

  /// Loads an element widened to f32.
  Value loadF32(Value mem, ValueRange indices) {
    Value v = memref::LoadOp::create(b, mem, indices);
    return v.getType().isF32()
               ? v
               : Value(arith::ExtFOp::create(b, b.getF32Type(), v));
  }
  /// Stores an f32, rounded once to the buffer's element type.
  void storeF32(Value v, Value mem, ValueRange indices) {
    Type elem = cast<MemRefType>(mem.getType()).getElementType();
    if (!elem.isF32())
      v = arith::TruncFOp::create(b, elem, v);
    memref::StoreOp::create(b, v, mem, indices);
  }
  /// Loads an i32 element as a (signed) index.
  Value loadIndex(Value mem, ValueRange indices) {
    Value v = memref::LoadOp::create(b, mem, indices);
    return arith::IndexCastOp::create(b, b.getIndexType(), v);
  }
  void storeIndex(Value v, Value mem, ValueRange indices) {
    Value i = arith::IndexCastOp::create(b, b.getI32Type(), v);
    memref::StoreOp::create(b, i, mem, indices);
  }
  /// Writes `v` (already of the element type) to every element of `mem`.
  void fill(Value mem, Value v) {
    ArrayRef<int64_t> shape = cast<MemRefType>(mem.getType()).getShape();
    SmallVector<Value> ivs;
    nest(shape, ivs, [&] { memref::StoreOp::create(b, v, mem, ivs); });
  }
  Value zero(Type elem) {
    return arith::ConstantOp::create(b, b.getZeroAttr(elem));
  }

  //===--- loops ---------------------------------------------------------===//
  /// for iv in [lo, hi): body(iv)
  void loop(Value lo, Value hi, function_ref<void(Value)> body) {
    auto forOp = scf::ForOp::create(b, lo, hi, idx(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(forOp.getBody()->getTerminator());
    body(forOp.getInductionVar());
  }
  void loop(int64_t n, function_ref<void(Value)> body) {
    loop(idx(0), idx(n), body);
  }
  /// Perfect nest over `shape`; `ivs` holds the induction variables.
  void nest(ArrayRef<int64_t> shape, SmallVectorImpl<Value> &ivs,
            function_ref<void()> body) {
    if (shape.empty())
      return body();
    loop(shape.front(), [&](Value iv) {
      ivs.push_back(iv);
      nest(shape.drop_front(), ivs, body);
      ivs.pop_back();
    });
  }
  /// Loop-carried reduction: acc = body(iv, acc) for iv in [lo, hi).
  SmallVector<Value> reduce(Value lo, Value hi, ValueRange init,
                            function_ref<SmallVector<Value>(Value, ValueRange)>
                                body) {
    auto forOp = scf::ForOp::create(
        b, b.getLoc(), lo, hi, idx(1), init,
        [&](OpBuilder &nested, Location loc, Value iv, ValueRange acc) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nested.getInsertionBlock(),
                              nested.getInsertionPoint());
          SmallVector<Value> next = body(iv, acc);
          scf::YieldOp::create(b, next);
        });
    return SmallVector<Value>(forOp.getResults());
  }
  Value reduce(int64_t n, Value init, function_ref<Value(Value, Value)> body) {
    return reduce(idx(0), idx(n), init, [&](Value iv, ValueRange acc) {
      return SmallVector<Value>{body(iv, acc[0])};
    })[0];
  }
  /// if (cond) body()
  void when(Value cond, function_ref<void()> body) {
    auto ifOp = scf::IfOp::create(b, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    body();
  }

  ImplicitLocOpBuilder &b;
};

/// Softmax + top-k of token `t`'s logits (`[T, E]`) into ids[t, :] and
/// weights[t, :]: kgen.moe_route's definition, shared by the reference
/// (kgen-lower-to-loops) and the routing tile op (kgen-lower-tiles-to-loops).
/// `probs` is scratch of [E] f32. The plain routing (RouteParams with only
/// top_k and renormalize) of the general emitRoute below.
void emitRoute(RefBuilder &rb, Value logits, Value t, int64_t experts,
               int64_t topK, bool renormalize, Value probs, Value ids,
               Value weights);

/// Scratch buffers of the general routing, reused for every token.
struct RouteScratch {
  Value scores;     // [E] f32: the scores s (the weights' source)
  Value choice;     // [E] f32: s + bias; `scores` itself without a bias
  Value groupScore; // [G] f32; null without expert groups
  Value keep;       // [G] i1: the kept groups; null without expert groups
  Value bias;       // the [E] f32 correction bias (a buffer), or null
};
RouteScratch allocRouteScratch(RefBuilder &rb, int64_t experts,
                               const RouteParams &p, Value biasBuffer);
void deallocRouteScratch(RefBuilder &rb, const RouteScratch &scratch);

/// kgen.moe_route's definition for token `t` with every extension
/// (scoring, correction bias, expert groups, scaling): ids[t, :] and
/// weights[t, :]. Ties go to the lower index; NaN scores still give valid,
/// distinct experts of kept groups.
void emitRoute(RefBuilder &rb, Value logits, Value t, int64_t experts,
               const RouteParams &p, const RouteScratch &scratch, Value ids,
               Value weights);

/// kgen.moe's quantisation of an activation row (DeepSeek-V3's act_quant)
/// for block-scaled e4m3 expert GEMMs: for each 128-column block blk of
/// a[aRow..., 0 .. kDim), sa = max(amax, 1e-4) / 448 (amax the largest |a|
/// of the block, a NaN winning) is stored at scale[scaleRow..., blk] and
/// each q = e4m3(a / sa) (f32 division, round to nearest even, saturating)
/// at q[qRow..., k] (an f32 `q` holds the e4m3 value widened). Shared by the
/// reference (kgen-lower-to-loops) and kgen.tile.act_quant.
void emitQuantiseRow(RefBuilder &rb, Value a, ValueRange aRow, int64_t kDim,
                     Value q, ValueRange qRow, Value scale,
                     ValueRange scaleRow);

/// kgen.moe_combine's definition for token `t`: y[t, h] = sum over slots s
/// in order of weights[t, s] * expert_out[positions[t, s], h] in f32 from 0
/// (positions outside [0, rows) skipped), then + shared[t, h] when
/// `shared` is given, rounded once. Shared by the reference and the
/// combine tile op.
void emitCombineRow(RefBuilder &rb, Value expertOut, Value positions,
                    Value weights, Value shared, Value y, Value t);
} // namespace mlir::kgen

#endif // KGEN_PASSES_REFBUILDER_H
