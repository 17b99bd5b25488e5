//===- PrintAttention.cpp - the attention steps of a kernel ---------------===//
//
// The attention tile ops (docs/attention.md) as calls of the block-level
// steps of kgen/block/Attention.cuh: register tiles for the scores, the
// row statistics and the output accumulator, one call per tile op. The
// K/V pipeline is the cp.async one of the gemm families
// (PrintCpAsyncPipeline.cpp).
//
//===----------------------------------------------------------------------===//

#include "codegen/emit/KernelPrinter.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::kgen;
using namespace mlir::kgen::detail;

namespace {
/// Elements between consecutive indices of dimension `d` of `mem`.
int64_t strideOf(Value mem, unsigned d) {
  ArrayRef<int64_t> shape = cast<MemRefType>(mem.getType()).getShape();
  int64_t stride = 1;
  for (unsigned i = d + 1; i < shape.size(); ++i)
    stride *= shape[i];
  return stride;
}
} // namespace

std::string KernelPrinter::elementBase(Value mem, ValueRange leading,
                                       unsigned firstDim) {
  std::string offset;
  for (auto [i, index] : llvm::enumerate(leading)) {
    std::string term =
        name(index) + " * " + std::to_string(strideOf(mem, firstDim + i));
    offset = offset.empty() ? term : offset + " + " + term;
  }
  return offset.empty() ? name(mem) : "(" + name(mem) + " + " + offset + ")";
}

LogicalResult KernelPrinter::printAttentionRegisters(memref::AllocaOp op) {
  MemRefType t = op.getType();
  std::string var = varFor(op.getResult());
  names[op.getResult()] = var;
  int64_t warps = attention.getWarpsM();
  bool isScores = false, isStats = false;
  for (Operation *user : op->getUsers()) {
    if (auto qk = dyn_cast<TileQkOp>(user))
      isScores |= qk.getS() == op.getResult();
    if (isa<TileSoftmaxInitOp>(user))
      isStats = true;
  }
  if (isScores) {
    line() << "// " << shapeComment(t.getShape())
           << " f32 scores, then probabilities: each warp's rows in mma.sync "
              "fragments\n";
    line() << "kgen::block::AttentionScores<" << t.getDimSize(0) << ", "
           << t.getDimSize(1) << ", " << warps << "> " << var << ";\n";
  } else if (isStats) {
    line() << "// running max and sum of each row\n";
    line() << "kgen::block::AttentionRowStats<" << t.getDimSize(1) << ", "
           << warps << "> " << var << ";\n";
  } else {
    line() << "// " << shapeComment(t.getShape())
           << " f32 output accumulator, in mma.sync fragments\n";
    line() << "kgen::block::AttentionAccumulator<" << t.getDimSize(0) << ", "
           << t.getDimSize(1) << ", " << warps << "> " << var << ";\n";
  }
  return success();
}

LogicalResult KernelPrinter::printAttentionStep(Operation *op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](TileSoftmaxInitOp o) {
        line() << name(o.getStats()) << ".init();\n";
        return success();
      })
      .Case([&](TileQkOp o) {
        int64_t bn = dimOf(o.getK(), 1), dp = dimOf(o.getK(), 2);
        line() << name(o.getS()) << ".qk<" << dp << ">(" << name(o.getQ())
               << ", " << name(o.getK()) << " + " << name(o.getStage())
               << " * " << bn * dp << ");\n";
        return success();
      })
      .Case([&](TileOnlineSoftmaxOp o) {
        std::optional<APFloat> cap = o.getSoftcap();
        std::optional<uint64_t> left = o.getWindowLeft(),
                                right = o.getWindowRight();
        auto flag = [](bool b) { return b ? "true" : "false"; };
        line() << "kgen::block::online_softmax<" << flag(o.getCausal())
               << ", " << flag(bool(cap)) << ", " << flag(bool(left)) << ", "
               << flag(bool(right)) << ", " << flag(bool(o.getAlibi()))
               << ">(" << name(o.getS()) << ", " << name(o.getStats())
               << ", " << name(o.getAcc()) << ", " << name(o.getRow0())
               << ", " << name(o.getCol0()) << ", " << name(o.getKvLen())
               << ", " << o.getSeqQ() << ", "
               << floatLiteral(o.getScale().convertToFloat()) << ", "
               << floatLiteral(cap ? cap->convertToFloat() : 0.0f) << ", "
               << (left ? int64_t(*left) : 0) << ", "
               << (right ? int64_t(*right) : 0) << ", "
               << (o.getAlibi() ? name(o.getAlibi()) : "nullptr") << ", "
               << (o.getHead0() ? name(o.getHead0()) : "0") << ");\n";
        return success();
      })
      .Case([&](TilePvOp o) {
        int64_t bn = dimOf(o.getV(), 1), dp = dimOf(o.getV(), 2);
        line() << name(o.getAcc()) << ".pv<" << bn << ">(" << name(o.getP())
               << ", " << name(o.getV()) << " + " << name(o.getStage())
               << " * " << bn * dp << ");\n";
        return success();
      })
      .Case([&](TileAttentionStoreOp o) {
        ValueRange idx = o.getIndices();
        size_t r = idx.size();
        std::string lse = "nullptr";
        if (Value l = o.getLse())
          lse = elementBase(l, idx.take_front(r - 2), 0);
        line() << name(o.getAcc()) << ".store(" << name(o.getStats()) << ", "
               << matrixBase(o.getDst(), idx) << ", "
               << dimOf(o.getDst(), r - 1) << ", " << name(idx[r - 2]) << ", "
               << name(idx[r - 1]) << ", " << name(o.getRows()) << ", "
               << name(o.getCols()) << ", " << lse << ");\n";
        return success();
      })
      .Case([&](TileAttentionCombineOp o) {
        ValueRange idx = o.getIndices();
        size_t r = idx.size();
        ValueRange leading = idx.take_front(r - 2);
        std::string lse = "nullptr";
        if (Value l = o.getLse())
          lse = elementBase(l, leading, 0);
        int64_t cols = dimOf(o.getDst(), r - 1);
        line() << "kgen::block::attention_combine<" << o.getBoxRows() << ", "
               << cols << ", " << kernel.getThreads() << ">("
               << elementBase(o.getPartial(), leading, 1) << ", "
               << strideOf(o.getPartial(), 0) << ", "
               << elementBase(o.getPartialLse(), leading, 1) << ", "
               << strideOf(o.getPartialLse(), 0) << ", "
               << dimOf(o.getPartial(), 0) << ", " << cols << ", "
               << name(idx[r - 2]) << ", " << name(o.getRows()) << ", "
               << name(o.getCols()) << ", " << matrixBase(o.getDst(), idx)
               << ", " << lse << ");\n";
        return success();
      })
      .Default([&](Operation *o) {
        return o->emitOpError("is not an attention step");
      });
}
