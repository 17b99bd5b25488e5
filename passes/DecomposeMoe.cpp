//===- DecomposeMoe.cpp - kgen.moe -> route/permute/grouped GEMM/combine --===//
//
// Precondition: verified kgen.moe ops. Each is replaced in place by
//
//   %ids, %w        = kgen.moe_route %logits           [T, k] i32, [T, k] f32
//   %xp, %pos, %off = kgen.moe_permute %x, %ids        [T*k, H], [T, k], [E+1]
//   %h  = kgen.grouped_gemm %xp, %w_gate, %off gated(%w_up)   [T*k, I]
//   %yp = kgen.grouped_gemm %h, %w_down, %off                 [T*k, H]
//   %y  = kgen.moe_combine %yp, %pos, %w                      [T, H]
//
// with %h and %yp in the element type of %x (the rounding points of
// kgen.moe's semantics). The layer's gate_up_config and down_config become
// the grouped GEMMs' configs.
//
// The DeepSeek extensions carry over: the routing attributes and the
// correction bias go to kgen.moe_route, the block scales of e4m3 weights to
// the grouped GEMMs (`scales(...)`), and a shared expert becomes two more
// grouped GEMMs over all T rows as one group (its [H, Is] weights expanded
// to [1, H, Is], offsets [0, T]) whose [T, H] output kgen.moe_combine adds
// (`shared(...)`) after the routed slots:
//
//   %wsg1 = tensor.expand_shape %wsg [[0, 1], [2]]        [1, H, Is] (etc.)
//   %hs = kgen.grouped_gemm %x, %wsg1, %all gated(%wsu1)   [T, Is]
//   %zs = kgen.grouped_gemm %hs, %wsd1, %all               [T, H]
//   %y  = kgen.moe_combine %yp, %pos, %w shared(%zs)       [T, H]
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::kgen {
#define GEN_PASS_DEF_KGENDECOMPOSEMOE
#include "passes/Passes.h.inc"
} // namespace mlir::kgen

using namespace mlir;
using namespace mlir::kgen;

namespace {
/// `value` ([d0, d1] weights or scales) as [1, d0, d1]: one expert.
Value asOneExpert(PatternRewriter &rewriter, Location loc, Value value) {
  if (!value)
    return value;
  auto t = cast<RankedTensorType>(value.getType());
  auto type = RankedTensorType::get({1, t.getDimSize(0), t.getDimSize(1)},
                                    t.getElementType());
  return tensor::ExpandShapeOp::create(
      rewriter, loc, type, value,
      ArrayRef<ReassociationIndices>{{0, 1}, {2}});
}

/// The scales operand list of a grouped GEMM: none, or the non-null ones.
SmallVector<Value> scalesOf(std::initializer_list<Value> values) {
  SmallVector<Value> out;
  for (Value v : values)
    if (v)
      out.push_back(v);
  return out;
}

struct DecomposeMoeOp : OpRewritePattern<MoeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MoeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto x = cast<RankedTensorType>(op.getX().getType());
    auto wg = cast<RankedTensorType>(op.getWGate().getType());
    int64_t tokens = x.getDimSize(0), hidden = x.getDimSize(1);
    int64_t experts = wg.getDimSize(0), inter = wg.getDimSize(2);
    int64_t topK = op.getTopK();
    Type elem = x.getElementType();
    Type i32 = rewriter.getI32Type();

    // The routing attributes, under the same names on kgen.moe_route.
    SmallVector<NamedAttribute> routeAttrs;
    for (StringRef name : {"top_k", "renormalize", "scoring", "n_group",
                           "topk_group", "routed_scaling_factor"})
      if (Attribute attr = op->getAttr(name))
        routeAttrs.push_back(rewriter.getNamedAttr(name, attr));
    SmallVector<Value> routeOperands = {op.getRouterLogits()};
    if (Value bias = op.getCorrectionBias())
      routeOperands.push_back(bias);
    auto route = MoeRouteOp::create(
        rewriter, loc,
        TypeRange{RankedTensorType::get({tokens, topK}, i32),
                  RankedTensorType::get({tokens, topK}, rewriter.getF32Type())},
        routeOperands, routeAttrs);
    auto permute = MoePermuteOp::create(
        rewriter, loc, RankedTensorType::get({tokens * topK, hidden}, elem),
        RankedTensorType::get({tokens, topK}, i32),
        RankedTensorType::get({experts + 1}, i32), op.getX(),
        route.getExpertIds(), experts);
    auto gateUp = GroupedGemmOp::create(
        rewriter, loc, RankedTensorType::get({tokens * topK, inter}, elem),
        permute.getPermuted(), op.getWGate(), permute.getExpertOffsets(),
        op.getWUp(), scalesOf({op.getWGateScale(), op.getWUpScale()}),
        op.getActivation(), op.getGateUpConfigAttr());
    auto down = GroupedGemmOp::create(
        rewriter, loc, RankedTensorType::get({tokens * topK, hidden}, elem),
        gateUp.getD(), op.getWDown(), permute.getExpertOffsets(),
        /*b_up=*/Value(), scalesOf({op.getWDownScale()}), Activation::none,
        op.getDownConfigAttr());

    // The shared expert: every token in one group.
    Value sharedOut;
    if (Value sg = op.getSharedGate()) {
      int64_t sInter = cast<RankedTensorType>(sg.getType()).getDimSize(1);
      auto all = arith::ConstantOp::create(
          rewriter, loc,
          DenseIntElementsAttr::get(RankedTensorType::get({2}, i32),
                                    ArrayRef<int32_t>{0, int32_t(tokens)}));
      // In operand order, one at a time (argument evaluation order is
      // unspecified, and the IR should not depend on it).
      SmallVector<Value> w;
      for (Value v : {sg, op.getSharedUp(), op.getSharedDown(),
                      op.getSharedGateScale(), op.getSharedUpScale(),
                      op.getSharedDownScale()})
        w.push_back(asOneExpert(rewriter, loc, v));
      auto sharedGateUp = GroupedGemmOp::create(
          rewriter, loc, RankedTensorType::get({tokens, sInter}, elem),
          op.getX(), w[0], all, w[1], scalesOf({w[3], w[4]}),
          op.getActivation(), GroupedGemmConfigAttr());
      sharedOut = GroupedGemmOp::create(
          rewriter, loc, RankedTensorType::get({tokens, hidden}, elem),
          sharedGateUp.getD(), w[2], all, /*b_up=*/Value(), scalesOf({w[5]}),
          Activation::none, GroupedGemmConfigAttr());
    }
    rewriter.replaceOpWithNewOp<MoeCombineOp>(
        op, op.getY().getType(), down.getD(), permute.getPositions(),
        route.getWeights(), sharedOut);
    return success();
  }
};

struct KgenDecomposeMoePass
    : mlir::kgen::impl::KgenDecomposeMoeBase<KgenDecomposeMoePass> {
  using KgenDecomposeMoeBase::KgenDecomposeMoeBase;

  /// A shared expert needs arith.constant offsets and tensor.expand_shape.
  void getDependentDialects(DialectRegistry &registry) const override {
    KgenDecomposeMoeBase::getDependentDialects(registry);
    registry.insert<arith::ArithDialect, tensor::TensorDialect>();
  }

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeMoeOp>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
