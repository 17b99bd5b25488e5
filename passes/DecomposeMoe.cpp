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

    auto route = MoeRouteOp::create(
        rewriter, loc, RankedTensorType::get({tokens, topK}, i32),
        RankedTensorType::get({tokens, topK}, rewriter.getF32Type()),
        op.getRouterLogits(), op.getTopK(), op.getRenormalize());
    auto permute = MoePermuteOp::create(
        rewriter, loc, RankedTensorType::get({tokens * topK, hidden}, elem),
        RankedTensorType::get({tokens, topK}, i32),
        RankedTensorType::get({experts + 1}, i32), op.getX(),
        route.getExpertIds(), experts);
    auto gateUp = GroupedGemmOp::create(
        rewriter, loc, RankedTensorType::get({tokens * topK, inter}, elem),
        permute.getPermuted(), op.getWGate(), permute.getExpertOffsets(),
        op.getWUp(), op.getActivation(), op.getGateUpConfigAttr());
    auto down = GroupedGemmOp::create(
        rewriter, loc, RankedTensorType::get({tokens * topK, hidden}, elem),
        gateUp.getD(), op.getWDown(), permute.getExpertOffsets(),
        /*b_up=*/Value(), Activation::none, op.getDownConfigAttr());
    rewriter.replaceOpWithNewOp<MoeCombineOp>(op, op.getY().getType(),
                                              down.getD(),
                                              permute.getPositions(),
                                              route.getWeights());
    return success();
  }
};

struct KgenDecomposeMoePass
    : mlir::kgen::impl::KgenDecomposeMoeBase<KgenDecomposeMoePass> {
  using KgenDecomposeMoeBase::KgenDecomposeMoeBase;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeMoeOp>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
