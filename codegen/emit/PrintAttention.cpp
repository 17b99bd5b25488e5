//===- PrintAttention.cpp - the attention steps of a kernel ---------------===//
//
// The attention tile ops (docs/attention.md) as calls of the block-level
// steps of kgen/block/Attention.cuh: register tiles for the scores, the
// row statistics and the output accumulator, one call per tile op. The
// K/V pipeline is the cp.async one of the gemm families
// (PrintCpAsyncPipeline.cpp). With wgmma (sm_90a) the same tile ops print
// as FlashAttention-3's warp-specialised kernel (kgen/block/
// AttentionSm90.cuh, printAttentionWgmma): the loads become a TMA producer
// warpgroup's, the QK^T and PV steps the consumer warpgroups' wgmmas, and
// every row origin the consumer warpgroup's.
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
  // The wgmma kernel's consumer warpgroups each hold 64 rows over 4 warps
  // (the same types: kgen/block/AttentionSm90.cuh).
  bool wgmma = usesAttentionWgmma();
  if (wgmma)
    warps = 4;
  const char *fragments = wgmma ? "wgmma accumulators" : "mma.sync fragments";
  bool isScores = false, isStats = false;
  for (Operation *user : op->getUsers()) {
    if (auto qk = dyn_cast<TileQkOp>(user))
      isScores |= qk.getS() == op.getResult();
    if (isa<TileSoftmaxInitOp>(user))
      isStats = true;
  }
  // The rows the tile's threads hold: the block's ([rows, cols] tiles,
  // [2, rows] statistics), a consumer warpgroup's 64 with wgmma.
  int64_t rows = wgmma ? 64 : t.getDimSize(isStats ? 1 : 0);
  if (isScores) {
    line() << "// " << shapeComment(t.getShape())
           << " f32 scores, then probabilities: each warp's rows in "
           << fragments << "\n";
    line() << "kgen::block::AttentionScores<" << rows << ", "
           << t.getDimSize(1) << ", " << warps << "> " << var << ";\n";
  } else if (isStats) {
    line() << "// running max and sum of each row\n";
    line() << "kgen::block::AttentionRowStats<" << rows << ", " << warps
           << "> " << var << ";\n";
  } else {
    line() << "// " << shapeComment(t.getShape())
           << " f32 output accumulator, in " << fragments << "\n";
    line() << "kgen::block::AttentionAccumulator<" << rows << ", "
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
        if (usesAttentionWgmma()) {
          if (!deferredRescale.empty()) {
            TilePvOp pv;
            for (Operation *user : o.getS().getUsers())
              if (auto p = dyn_cast<TilePvOp>(user))
                pv = p;
            if (!pv) {
              o.emitOpError("overlap_softmax needs the scores' P V");
              return failure();
            }
            line() << "attn.qk_over_pv(" << name(o.getS()) << ", "
                   << name(pv.getAcc()) << ", " << name(o.getStage())
                   << ", more); // and the previous key tile's P V\n";
            return success();
          }
          line() << "attn.qk(" << name(o.getS()) << ", " << name(o.getStage())
                 << ", more);\n";
          return success();
        }
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
               << ", "
               << (deferredRescale.empty() ? name(o.getAcc()) : deferredRescale)
               << ", " << name(o.getRow0())
               << rowOffset << ", " << name(o.getCol0()) << ", " << name(o.getKvLen())
               << ", " << name(o.getSeqQ()) << ", "
               << floatLiteral(o.getScale().convertToFloat())
               << (o.getDescale() ? " * " + name(o.getDescale()) : "") << ", "
               << floatLiteral(cap ? cap->convertToFloat() : 0.0f) << ", "
               << (left ? int64_t(*left) : 0) << ", "
               << (right ? int64_t(*right) : 0) << ", "
               << (o.getAlibi() ? name(o.getAlibi()) : "nullptr") << ", "
               << (o.getHead0() ? name(o.getHead0()) : "0");
        if (Value alibi = o.getAlibi()) // the slopes' count (a clamp)
          os << ", " << dimOf(alibi, 0);
        os << ");\n";
        return success();
      })
      .Case([&](TilePvOp o) {
        if (usesAttentionWgmma()) {
          if (!deferredRescale.empty())
            line() << "attn.pv_next(" << name(o.getAcc()) << ", "
                   << name(o.getP()) << ", " << deferredRescale << ", "
                   << name(o.getStage())
                   << "); // rescale, pack P: its P V goes with the next "
                      "QK^T\n";
          else
            line() << "attn.pv(" << name(o.getAcc()) << ", " << name(o.getP())
                   << ", " << name(o.getStage()) << ");\n";
          return success();
        }
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
        if (ValueRange at = o.getLseIndices(); !at.empty()) {
          // lse_at [k..., kr]: the store writes lse[row0 + m] (row0 the
          // box's first row), so the pointer is at row kr - row0.
          lse = elementBase(o.getLse(), at.drop_back(), 0);
          if (at.back() != idx[r - 2])
            lse = "(" + lse + " + (" + name(at.back()) + " - " +
                  name(idx[r - 2]) + "))";
        }
        line() << name(o.getAcc()) << ".store(" << name(o.getStats()) << ", "
               << matrixBase(o.getDst(), idx) << ", "
               << dimOf(o.getDst(), r - 1) << ", " << name(idx[r - 2])
               << rowOffset << ", " << name(idx[r - 1]) << ", " << name(o.getRows()) << ", "
               << name(o.getCols()) << ", " << lse
               << (o.getDescale() ? ", " + name(o.getDescale()) : "")
               << ");\n";
        return success();
      })
      .Case([&](TileSequenceTileOp o) -> LogicalResult {
        std::string var = varFor(o.getSeq());
        line() << "const kgen::block::SequenceTile " << var
               << " = kgen::block::sequence_tile<" << o.getBlockM() << ">("
               << name(o.getOffsets()) << ", "
               << dimOf(o.getOffsets(), 0) - 1 << ", " << name(o.getTile())
               << ");\n";
        names[o.getSeq()] = var + ".seq";
        names[o.getRow()] = var + ".row";
        names[o.getValid()] = var + ".valid";
        return success();
      })
      .Case([&](TileWidenOp o) -> LogicalResult {
        if (usesAttentionWgmma())
          return o.emitOpError("wgmma attention reads bf16 or f16 tiles: "
                               "no widening");
        // Outside a pipeline's compute step (the e4m3 Q tile) the copies
        // in flight are waited for first; inside, the step's wait_stage
        // has landed the stage.
        if (!o->getParentOfType<TilePipelineOp>()) {
          line() << "kgen::block::commit_stage();\n";
          line() << "kgen::block::wait_stage<0>(); // the e4m3 tile has "
                    "landed\n";
        }
        int64_t rows = dimOf(o.getDst(), 1), cols = dimOf(o.getDst(), 2);
        line() << "kgen::block::widen_tile<" << rows << ", " << cols << ", "
               << kernel.getThreads() << ">(" << name(o.getDst()) << " + "
               << name(o.getTo()) << " * " << rows * cols << ", "
               << name(o.getSrc()) << " + " << name(o.getStage()) << " * "
               << rows * cols << ");\n";
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

LogicalResult KernelPrinter::printAttentionWgmma(Block &body) {
  // Before the pipeline: the index arithmetic prints for every thread; the
  // Q load moves to the producer, the register tiles and their
  // initialisation to the consumers.
  TilePipelineOp pipe;
  TileLoadOp loadQ;
  SmallVector<Operation *> consumerPrelude, epilogue;
  for (Operation &op : body) {
    if (pipe) {
      epilogue.push_back(&op);
      continue;
    }
    if (auto p = dyn_cast<TilePipelineOp>(op)) {
      pipe = p;
    } else if (auto l = dyn_cast<TileLoadOp>(op)) {
      loadQ = l;
    } else if (isa<TileZeroOp, TileSoftmaxInitOp>(op)) {
      consumerPrelude.push_back(&op);
    } else if (auto a = dyn_cast<memref::AllocaOp>(op)) {
      auto space = dyn_cast_or_null<IntegerAttr>(a.getType().getMemorySpace());
      if (space && space.getInt() == kRegisterSpace) {
        consumerPrelude.push_back(&op);
      } else {
        names[a.getResult()] = varFor(a.getResult());
        line() << "// " << shapeComment(a.getType().getShape())
               << " tile in shared memory: owned by the attention pipeline "
                  "(TMA layout)\n";
      }
    } else if (failed(printOp(&op))) {
      return failure();
    }
  }
  if (!pipe || !loadQ)
    return kernel.emitOpError("the wgmma attention kernel expects a Q tile "
                              "load and a key-tile pipeline");
  TileQkOp qk;
  TilePvOp pv;
  for (Operation &op : pipe.getCompute().front()) {
    if (auto o = dyn_cast<TileQkOp>(op))
      qk = o;
    if (auto o = dyn_cast<TilePvOp>(op))
      pv = o;
  }
  if (!qk || !pv)
    return pipe.emitOpError("the wgmma attention pipeline expects a "
                            "kgen.tile.qk and a kgen.tile.pv");
  // The TMA boxes start at (b, hk, row, 0) of the 4-D views.
  SmallVector<TileLoadOp> boxes(pipe.getLoad().getOps<TileLoadOp>());
  boxes.push_back(loadQ);
  for (TileLoadOp l : boxes)
    if (l.getIndices().size() != 4 || name(l.getIndices()[3]) != "0")
      return l.emitOpError("the wgmma attention kernel loads boxes at "
                           "(b, hk, row, 0) of 4-D tensors");
  Type elem = cast<MemRefType>(qk.getQ().getType()).getElementType();
  int64_t bn = dimOf(qk.getK(), 1), dp = dimOf(qk.getK(), 2);
  int64_t groups = attention.getConsumerWarpgroups();
  bool pingPong = attention.getPingPong();
  std::string lo = name(pipe.getLower()), hi = name(pipe.getUpper());
  // (b, hk, row, 0) of a tile load: the box's coordinates, innermost first.
  auto coords = [&](TileLoadOp l) {
    ValueRange i = l.getIndices();
    return name(i[2]) + ", " + name(i[1]) + ", " + name(i[0]);
  };

  bool fp8 = isa<Float8E4M3FNType>(elem);
  line() << "// FlashAttention-3's schedule: a TMA producer warpgroup"
         << (fp8 ? " (its warps 1 to 3 transposing each V tile: e4m3 wgmma "
                   "reads K-major operands only)"
                 : "")
         << " and " << groups << " wgmma consumer warpgroup(s) of 64 rows"
         << (pingPong ? ", taking turns (ping-pong)" : "")
         << (attention.getOverlapSoftmax()
                 ? ", each tile's softmax under the previous tile's P V"
                 : "")
         << "; key tiles ["
         << lo << ", " << hi << ") through " << pipe.getStages()
         << " stage(s).\n";
  line() << "using Attn = kgen::block::AttentionSm90<" << cudaType(elem)
         << ", " << bn << ", " << dp << ", " << pipe.getStages() << ", "
         << groups << ", " << (pingPong ? "true" : "false") << ">;\n";
  // What the legality computed (dialect/AttentionLegality.h), stated again
  // by the block layer: a disagreement fails to compile.
  line() << "static_assert(Attn::kThreads == " << kernel.getThreads()
         << ", \"block size of the warp-specialised kernel\");\n";
  line() << "static_assert(Attn::kSmemBytes == " << kernel.getSmemBytes()
         << ", \"dynamic shared memory of the kernel\");\n";
  line() << "Attn attn; // shared tiles and barriers\n";
  line() << "if (Attn::producer()) {\n";
  ++depth;
  line() << "if (Attn::start_producer()) { // one thread issues the loads\n";
  ++depth;
  line() << "attn.load_q(&tma_" << name(loadQ.getSrc()) << ", "
         << coords(loadQ) << ");\n";
  line() << "for (long kt = " << lo << "; kt < " << hi << "; ++kt) {\n";
  ++depth;
  Block &load = pipe.getLoad().front();
  names[load.getArgument(0)] = "kt";
  names[load.getArgument(1)] = "stage";
  line() << "const int stage = attn.acquire();\n";
  for (Operation &op : load) {
    auto l = dyn_cast<TileLoadOp>(op);
    if (!l) {
      if (failed(printOp(&op)))
        return failure();
      continue;
    }
    const char *which = l.getDst() == qk.getK()   ? "load_k"
                        : l.getDst() == pv.getV() ? "load_v"
                                                  : nullptr;
    if (!which)
      return l.emitOpError("the wgmma attention pipeline loads K and V "
                           "stages only");
    line() << "attn." << which << "(&tma_" << name(l.getSrc())
           << ", stage, " << coords(l) << ");\n";
  }
  line() << "attn.loaded();\n";
  --depth;
  line() << "}\n";
  --depth;
  if (fp8) {
    // e4m3 wgmma reads K-major operands only: the producer's other warps
    // transpose each V tile for P V (AttentionSm90.cuh).
    line() << "} else if (Attn::transposer()) { // V^T for the e4m3 P V\n";
    ++depth;
    line() << "for (long kt = " << lo << "; kt < " << hi << "; ++kt) {\n";
    ++depth;
    line() << "attn.transpose_v();\n";
    --depth;
    line() << "}\n";
    --depth;
  }
  line() << "}\n";
  --depth;
  line() << "} else {\n";
  ++depth;
  line() << "attn.start_consumer(" << lo << ", " << hi << ");\n";
  rowOffset = " + attn.rows0()";
  for (Operation *op : consumerPrelude)
    if (failed(printOp(op)))
      return failure();
  bool overlap = attention.getOverlapSoftmax();
  if (overlap) {
    deferredRescale = "row_scale";
    line() << "// each row's rescale of the output, applied once the previous "
              "key tile's P V is done\n";
    line() << "Attn::Scale " << deferredRescale << ";\n";
  }
  line() << "for (long kt = " << lo << "; kt < " << hi << "; ++kt) {\n";
  ++depth;
  Block &compute = pipe.getCompute().front();
  names[compute.getArgument(0)] = "kt";
  names[compute.getArgument(1)] = "stage";
  line() << "const int stage = attn.read_stage();\n";
  line() << "const bool more = kt + 1 < " << hi << "; // a later key tile\n";
  if (failed(printBlock(compute)))
    return failure();
  if (!overlap)
    line() << "attn.release(stage);\n";
  --depth;
  line() << "}\n";
  if (overlap)
    line() << "attn.finish_pv(" << name(pv.getAcc())
           << "); // the last key tile's P V\n";
  deferredRescale.clear();
  for (Operation *op : epilogue)
    if (failed(printOp(op)))
      return failure();
  rowOffset.clear();
  --depth;
  line() << "}\n";
  // The tensor maps in the kernel's parameter order (q, k, v), boxes {1, 1,
  // rows, 64}: rows of one (b, hk) plane, 128-byte rows (64-byte e4m3 ones,
  // with the 64-byte swizzle).
  int64_t elemBytes = std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8);
  auto mapOf = [&](Value tile, int64_t rows) -> LogicalResult {
    for (Block *block : {&body, &load})
      for (TileLoadOp l : block->getOps<TileLoadOp>())
        if (l.getDst() == tile) {
          std::string src = name(l.getSrc());
          info.tmaParams.push_back(
              {"tma_" + src, src, rows, 64, 2, 64 * elemBytes});
          return success();
        }
    return kernel.emitOpError("no tile load fills the attention's Q, K or "
                              "V tile");
  };
  if (failed(mapOf(qk.getQ(), 64 * groups)) || failed(mapOf(qk.getK(), bn)) ||
      failed(mapOf(pv.getV(), bn)))
    return failure();
  return success();
}
