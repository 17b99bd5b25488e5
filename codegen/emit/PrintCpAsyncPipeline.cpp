//===- PrintCpAsyncPipeline.cpp - the simt and mma_sync pipeline ----------===//
//
// A kgen.tile.pipeline of the cp.async families (simt, mma_sync) as the
// prologue and steady state the CPU check runs (kgen-lower-tiles-to-loops):
// loads run stages - 1 K tiles ahead of the MMAs, one cp.async group per
// stage, and the tile ops of each region print through
// KernelPrinter::printBlock.
//
//===----------------------------------------------------------------------===//

#include "codegen/emit/KernelPrinter.h"

using namespace mlir;
using namespace mlir::kgen;
using namespace mlir::kgen::detail;

LogicalResult KernelPrinter::printCpAsyncPipeline(TilePipelineOp op) {
  int64_t stages = op.getStages();
  std::string lo = name(op.getLower()), hi = name(op.getUpper());
  auto printRegion = [&](Region &region, StringRef k,
                         StringRef stage) -> LogicalResult {
    Block &block = region.front();
    names[block.getArgument(0)] = k.str();
    names[block.getArgument(1)] = stage.str();
    return printBlock(block);
  };
  // The stage ring's bookkeeping is kgen::block::PipelineState's
  // (Pipeline.cuh): `load` walks the stages the loads fill, `read` the ones
  // the MMAs consume.
  line() << "// K tiles [" << lo << ", " << hi << ") through " << stages
         << " stages: loads run " << stages - 1
         << " tiles ahead of the MMAs.\n";
  line() << "kgen::block::PipelineState<" << stages << "> load{}, read{};\n";
  // The prologue commits stages - 1 groups even when fewer K tiles exist
  // (the others empty): wait_stage<stages - 1> below counts on exactly
  // stages - 1 groups committed ahead of tile k's. With fewer, tile k's
  // copies could still be in flight when the MMAs read them (the emulated
  // device reported it: test/Run/emulate-sm80-families.mlir, few_k_tiles).
  line() << "for (long i = 0; i < " << stages - 1 << "; ++i) {\n";
  ++depth;
  line() << "if (" << lo << " + i < " << hi << ") {\n";
  ++depth;
  line() << "const long kt = " << lo << " + i, stage = load.index;\n";
  if (failed(printRegion(op.getLoad(), "kt", "stage")))
    return failure();
  line() << "++load;\n";
  --depth;
  line() << "}\n";
  line() << "kgen::block::commit_stage(); // possibly empty: one group per "
            "stage\n";
  --depth;
  line() << "}\n";
  line() << "for (long kt = " << lo << "; kt < " << hi
         << "; ++kt, ++read) {\n";
  ++depth;
  line() << "const long ahead = kt + " << stages - 1 << ";\n";
  line() << "if (ahead < " << hi << ") {\n";
  ++depth;
  line() << "const long stage = load.index;\n";
  if (failed(printRegion(op.getLoad(), "ahead", "stage")))
    return failure();
  line() << "++load;\n";
  --depth;
  line() << "}\n";
  line() << "kgen::block::commit_stage(); // possibly empty: keeps the "
            "group count uniform\n";
  line() << "kgen::block::wait_stage<" << stages - 1
         << ">(); // tile kt has landed\n";
  line() << "{\n";
  ++depth;
  line() << "const long stage = read.index;\n";
  if (failed(printRegion(op.getCompute(), "kt", "stage")))
    return failure();
  --depth;
  line() << "}\n";
  line() << "__syncthreads(); // the stage may be refilled next\n";
  --depth;
  line() << "}\n";
  return success();
}
