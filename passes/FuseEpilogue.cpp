//===- FuseEpilogue.cpp - fold elementwise ops into gemm epilogues --------===//
//
// Precondition: verified IR. Each rewrite replaces an elementwise op whose
// operand is the single-use result of a kgen.gemm by a new kgen.gemm with
// that op folded into its epilogue; repeated to a fixed point, so
// gemm -> +bias -> +residual -> relu becomes one op.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::kgen {
#define GEN_PASS_DEF_KGENFUSEEPILOGUE
#include "passes/Passes.h.inc"
} // namespace mlir::kgen

using namespace mlir;
using namespace mlir::kgen;

namespace {
/// The gemm producing `v`, if `v` is its only use's operand and its
/// epilogue can still take a term before the activation.
GemmOp foldableGemm(Value v) {
  auto gemm = v.getDefiningOp<GemmOp>();
  if (!gemm || !gemm->hasOneUse() || gemm.getActivation() != Activation::none)
    return {};
  return gemm;
}

/// `bias` if `v` broadcasts a [N] vector over the rows (and batch) of `like`.
Value broadcastBias(Value v, RankedTensorType like) {
  auto broadcast = v.getDefiningOp<linalg::BroadcastOp>();
  if (!broadcast || broadcast->getNumResults() != 1)
    return {};
  Value input = broadcast.getInput();
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> rows;
  for (int64_t d = 0; d < like.getRank() - 1; ++d)
    rows.push_back(d);
  if (!inputType || inputType.getRank() != 1 ||
      inputType.getDimSize(0) != like.getShape().back() ||
      broadcast.getDimensions() != ArrayRef<int64_t>(rows))
    return {};
  return input;
}

/// A copy of `gemm` with a changed bias, residual or activation, replacing
/// `root` (the folded op).
void replaceWithGemm(PatternRewriter &rewriter, Operation *root, GemmOp gemm,
                     Value bias, Value residual, Activation act) {
  auto fused = GemmOp::create(
      rewriter, root->getLoc(), root->getResultTypes()[0], gemm.getA(),
      gemm.getB(), bias, residual, gemm.getTransposeAAttr(),
      gemm.getTransposeBAttr(), gemm.getAlphaAttr(), gemm.getBetaAttr(),
      ActivationAttr::get(rewriter.getContext(), act), gemm.getAccTypeAttr(),
      gemm.getConfigAttr());
  rewriter.replaceOp(root, fused.getResult());
  rewriter.eraseOp(gemm);
}

/// gemm + broadcast(bias) -> bias(...); gemm + C -> residual(C).
struct FoldAdd : OpRewritePattern<arith::AddFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::AddFOp add,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(add.getType());
    if (!type)
      return failure();
    for (auto [lhs, rhs] : {std::pair(add.getLhs(), add.getRhs()),
                            std::pair(add.getRhs(), add.getLhs())}) {
      GemmOp gemm = foldableGemm(lhs);
      if (!gemm)
        continue;
      if (Value bias = broadcastBias(rhs, type); bias && !gemm.getBias()) {
        replaceWithGemm(rewriter, add, gemm, bias, gemm.getC(),
                        Activation::none);
        return success();
      }
      if (rhs.getType() == type && !gemm.getC() && !gemm.getBias() &&
          !broadcastBias(rhs, type)) {
        // The residual joins before the bias in the epilogue; only fold it
        // where no bias was folded yet, keeping the sum's order.
        replaceWithGemm(rewriter, add, gemm, Value(), rhs, Activation::none);
        return success();
      }
    }
    return failure();
  }
};

/// max(gemm, 0) -> activation relu.
struct FoldRelu : OpRewritePattern<arith::MaximumFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::MaximumFOp max,
                                PatternRewriter &rewriter) const override {
    for (auto [x, zero] : {std::pair(max.getLhs(), max.getRhs()),
                           std::pair(max.getRhs(), max.getLhs())}) {
      GemmOp gemm = foldableGemm(x);
      if (!gemm || !matchPattern(zero, m_AnyZeroFloat()))
        continue;
      replaceWithGemm(rewriter, max, gemm, gemm.getBias(), gemm.getC(),
                      Activation::relu);
      return success();
    }
    return failure();
  }
};

struct KgenFuseEpiloguePass
    : mlir::kgen::impl::KgenFuseEpilogueBase<KgenFuseEpiloguePass> {
  using KgenFuseEpilogueBase::KgenFuseEpilogueBase;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldAdd, FoldRelu>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
