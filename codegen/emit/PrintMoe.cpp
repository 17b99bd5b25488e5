//===- PrintMoe.cpp - the MoE steps of a kernel ----------------------------===//
//
// The MoE tile ops (docs/moe.md) as calls of kgen/block/Moe.cuh: routing,
// ranking, gather and combine are one call each (the block's whole work);
// the grouped GEMM's tile scheduler is a GroupTile whose fields name the
// block's expert and rows, and its gated epilogue one call on the gate
// accumulator. The grouped GEMM's main loop is the gemm family's
// (PrintCpAsyncPipeline.cpp); block-scaled, each 128-wide K block's sums
// are scaled into the accumulator where the block ends (an `if` on the K
// tile), and a quantisation kernel is one act_quant call.
//
//===----------------------------------------------------------------------===//

#include "codegen/emit/KernelPrinter.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::kgen;
using namespace mlir::kgen::detail;

LogicalResult KernelPrinter::printMoeStep(Operation *op) {
  int64_t threads = kernel.getThreads();
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](TileMoeRouteOp o) -> LogicalResult {
        Value logits = o.getLogits();
        RouteParams p = o.getRouteParams();
        std::string rest = std::to_string(dimOf(logits, 0)) + ", " +
                           std::to_string(dimOf(logits, 1)) + ", " +
                           name(o.getT0());
        if (p.isPlainSoftmax()) {
          line() << "kgen::block::moe_route<" << threads << ", "
                 << o.getRows() << ", " << p.topK << ", "
                 << (p.renormalize ? "true" : "false") << ">(" << name(logits)
                 << ", " << rest << ", " << name(o.getIds()) << ", "
                 << name(o.getWeights()) << ");\n";
          return success();
        }
        // The DeepSeek routing: scoring, bias, groups and scale (the
        // shortest decimal that reads back as the same float).
        std::string scale;
        for (int digits = 6; digits <= 9; ++digits) {
          scale.clear();
          llvm::raw_string_ostream(scale) << llvm::format(
              "%.*g", digits, double(p.routedScalingFactor));
          if (std::strtof(scale.c_str(), nullptr) == p.routedScalingFactor)
            break;
        }
        if (!StringRef(scale).contains_insensitive('e') &&
            !StringRef(scale).contains('.'))
          scale += ".";
        line() << "kgen::block::moe_route_ext<" << threads << ", "
               << o.getRows() << ", " << p.topK << ", "
               << (p.renormalize ? "true" : "false") << ", "
               << (p.scoring == Scoring::sigmoid ? "true" : "false") << ", "
               << (o.getBias() ? "true" : "false") << ", " << p.nGroup << ", "
               << p.topkGroup << ">(" << name(logits) << ", "
               << (o.getBias() ? name(o.getBias()) : std::string("nullptr")) << ", "
               << rest << ", " << scale << "f, " << name(o.getIds()) << ", "
               << name(o.getWeights()) << ");\n";
        return success();
      })
      .Case([&](TileMoeRankOp o) -> LogicalResult {
        Value ids = o.getIds();
        line() << "kgen::block::moe_rank<" << threads << ">(" << name(ids)
               << ", " << dimOf(ids, 0) * dimOf(ids, 1) << ", "
               << dimOf(o.getOffsets(), 0) - 1 << ", " << name(o.getExpert())
               << ", " << name(o.getPositions()) << ", "
               << name(o.getOffsets()) << ");\n";
        return success();
      })
      .Case([&](TileMoeGatherOp o) -> LogicalResult {
        Value pos = o.getPositions();
        line() << "kgen::block::moe_gather<" << threads << ", "
               << o.getCopies() << ">(" << name(o.getX()) << ", " << name(pos)
               << ", " << name(o.getOffsets()) << ", " << dimOf(pos, 0) << ", "
               << dimOf(pos, 1) << ", " << dimOf(o.getOffsets(), 0) - 1 << ", "
               << dimOf(o.getX(), 1) << ", " << name(o.getC0()) << ", "
               << name(o.getPermuted()) << ");\n";
        return success();
      })
      .Case([&](TileMoeCombineOp o) -> LogicalResult {
        Value pos = o.getPositions(), eo = o.getExpertOut();
        line() << "kgen::block::moe_combine<" << threads << ", "
               << o.getTokens() << ">(" << name(eo) << ", " << name(pos)
               << ", " << name(o.getWeights()) << ", "
               << (o.getShared() ? name(o.getShared()) : std::string("nullptr"))
               << ", " << dimOf(pos, 0) << ", "
               << dimOf(pos, 1) << ", " << dimOf(eo, 0) << ", " << dimOf(eo, 1)
               << ", " << name(o.getT0()) << ", " << name(o.getY()) << ");\n";
        return success();
      })
      .Case([&](TileMoeSingleGroupOp o) -> LogicalResult {
        line() << "kgen::block::moe_single_group(" << o.getRows() << ", "
               << name(o.getOffsets()) << ");\n";
        return success();
      })
      .Case([&](TileGroupTileOp o) -> LogicalResult {
        line() << "// The block's m tile: one expert's rows [tile.row0, "
                  "tile.row_end), or rows in no\n";
        line() << "// group (live = 0: no K loop, zeros stored), or none "
                  "(row0 = row_end).\n";
        line() << "const kgen::block::GroupTile tile = "
                  "kgen::block::group_tile<"
               << o.getBlockM() << ">(" << name(o.getOffsets()) << ", "
               << dimOf(o.getOffsets(), 0) - 1 << ", " << name(o.getRows())
               << ", " << name(o.getTile()) << ");\n";
        names[o.getExpert()] = "tile.expert";
        names[o.getRow0()] = "tile.row0";
        names[o.getRowEnd()] = "tile.row_end";
        names[o.getLive()] = "tile.live";
        return success();
      })
      .Case([&](TileGatedEpilogueOp o) -> LogicalResult {
        auto t = cast<MemRefType>(o.getDst().getType());
        OperandRange at = o.getIndices();
        size_t r = at.size();
        line() << name(o.getGate()) << ".gated_epilogue<"
               << activationName(o.getActivation()) << ">(" << name(o.getUp())
               << ", " << matrixBase(o.getDst(), at) << ", "
               << t.getShape().back() << ", " << name(at[r - 2]) << ", "
               << name(at[r - 1]) << ", " << name(o.getRows()) << ", "
               << name(o.getCols()) << ");\n";
        return success();
      })
      .Case([&](TileActQuantOp o) -> LogicalResult {
        Value a = o.getA();
        line() << "kgen::block::act_quant<" << threads << ", " << o.getRows()
               << ">(" << name(a) << ", " << dimOf(a, 0) << ", "
               << dimOf(a, 1) << ", " << name(o.getR0()) << ", "
               << name(o.getQ()) << ", " << name(o.getScale()) << ");\n";
        return success();
      })
      .Case([&](TileBlockScaleOp o) -> LogicalResult {
        // The K tiles of one 128-wide scale block, and the scales' strides.
        int64_t perBlock = kScaleBlock / o.getBlockK();
        int64_t blocks = dimOf(o.getAScale(), 1);
        int64_t colBlocks = dimOf(o.getBScale(), 2);
        std::string kt = name(o.getKt());
        // A gated kernel's two promotions (same K tile) share one block.
        auto sameStep = [&](Operation *other) {
          auto p = dyn_cast_or_null<TileBlockScaleOp>(other);
          return p && p.getKt() == o.getKt() &&
                 p.getBlockK() == o.getBlockK() &&
                 p.getKTiles() == o.getKTiles();
        };
        if (!sameStep(o->getPrevNode())) {
          if (perBlock == 1)
            line() << "{ // every K tile is a 128-wide K block: scale its "
                      "sums in\n";
          else
            line() << "if ((" << kt << " + 1) % " << perBlock << " == 0 || "
                   << kt << " + 1 == " << o.getKTiles()
                   << ") { // a 128-wide K block ends: scale its sums in\n";
          ++depth;
          line() << "const long kb = " << kt << " / " << perBlock << ";\n";
        }
        line() << name(o.getAcc()) << ".add_block_scaled(" << name(o.getPart())
               << ", " << name(o.getAScale()) << " + kb, " << blocks << ", "
               << name(o.getRow0()) << ", " << name(o.getRows()) << ", "
               << name(o.getBScale()) << "[(" << name(o.getExpert()) << " * "
               << blocks << " + kb) * " << colBlocks << " + "
               << name(o.getCol0()) << " / " << kScaleBlock << "]);\n";
        if (!sameStep(o->getNextNode())) {
          --depth;
          line() << "}\n";
        }
        return success();
      })
      .Default([](Operation *o) -> LogicalResult {
        return o->emitOpError("is not an MoE step");
      });
}
