//===- PrintWgmmaPipeline.cpp - the wgmma family's pipeline ---------------===//
//
// A kgen.tile.pipeline of the wgmma family as one call of
// kgen::block::WgmmaPipeline (kgen/block/GemmSm90.cuh): a TMA producer
// warpgroup and 1 to 3 wgmma consumer warpgroups, tensor maps of A and B as
// kernel parameters, clusters multicasting B along M. The config is legal
// (dialect/GemmLegality.h, checked by KernelPrinter::print); the printed
// static_asserts hold the block layer to the threads and shared memory the
// legality computed.
//
//===----------------------------------------------------------------------===//

#include "codegen/emit/KernelPrinter.h"

using namespace mlir;
using namespace mlir::kgen;
using namespace mlir::kgen::detail;

LogicalResult KernelPrinter::printWgmmaPipeline(TilePipelineOp op) {
  SmallVector<TileLoadOp> loads(op.getLoad().getOps<TileLoadOp>());
  SmallVector<TileMmaOp> mmas(op.getCompute().getOps<TileMmaOp>());
  if (loads.size() != 2 || mmas.size() != 1)
    return op.emitOpError("the wgmma pipeline expects two tile loads (A, B) "
                          "and one tile MMA");
  TileMmaOp mma = mmas.front();
  auto a = cast<MemRefType>(mma.getA().getType());
  auto acc = cast<MemRefType>(mma.getAcc().getType());
  int64_t bm = acc.getDimSize(0), bn = acc.getDimSize(1);
  Type elem = a.getElementType();
  bool fp8 = isa<Float8E4M3FNType>(elem);
  int64_t rowElems = fp8 ? 128 : 64; // 128-byte swizzled rows
  // Clusters pair blocks along M that share B (multicast); the raster of
  // kgen-lower-gemm-to-tiles keeps them in one tile column.
  int64_t cluster = config.getClusterM();
  bool ta = mma.getTransposeA(), tb = mma.getTransposeB();
  // Tile origins: A's box starts at m0 (column when transposed), B's at n0;
  // a batched operand's indices start with the batch (a 3-D tensor map).
  TileLoadOp loadA = loads[0].getDst() == mma.getA() ? loads[0] : loads[1];
  TileLoadOp loadB = loadA == loads[0] ? loads[1] : loads[0];
  bool batchedA = loadA.getIndices().size() == 3;
  bool batchedB = loadB.getIndices().size() == 3;
  ValueRange ia = loadA.getIndices().take_back(2);
  ValueRange ib = loadB.getIndices().take_back(2);
  std::string m0 = name(ia[ta ? 1 : 0]);
  std::string n0 = name(ib[tb ? 0 : 1]);
  std::string bz = batchedA ? name(loadA.getIndices()[0])
                   : batchedB ? name(loadB.getIndices()[0])
                              : std::string();
  std::string nameA = name(loadA.getSrc()), nameB = name(loadB.getSrc());
  if (m0.empty() || n0.empty() || ((batchedA || batchedB) && bz.empty()))
    return op.emitOpError("tile origins must be defined before the pipeline");

  int64_t stages = op.getStages();
  line() << "// K tiles [" << name(op.getLower()) << ", "
         << name(op.getUpper()) << ") through " << stages
         << " stages: a TMA producer warpgroup and " << bm / 64
         << " wgmma consumer warpgroup(s).\n";
  line() << "using Pipeline = kgen::block::WgmmaPipeline<" << cudaType(elem)
         << ", " << bm << ", " << bn << ", " << stages << ", "
         << (ta ? "true" : "false") << ", " << (tb ? "true" : "false")
         << (cluster > 1 || batchedA || batchedB
                 ? ", " + std::to_string(cluster)
                 : std::string())
         << (batchedA || batchedB
                 ? std::string(", ") + (batchedA ? "true" : "false") + ", " +
                       (batchedB ? "true" : "false")
                 : std::string())
         << ">;\n";
  // What the legality computed (dialect/GemmLegality.h), stated again by
  // the block layer: a disagreement fails to compile.
  line() << "static_assert(Pipeline::kThreads == " << kernel.getThreads()
         << ", \"block size of the warp-specialised pipeline\");\n";
  line() << "static_assert(Pipeline::kSmemBytes == " << kernel.getSmemBytes()
         << ", \"dynamic shared memory of the pipeline\");\n";
  line() << "const bool consumer = Pipeline::run(&tma_" << nameA << ", &tma_"
         << nameB << ", " << m0 << ", " << n0 << ", " << name(op.getLower())
         << ", " << name(op.getUpper()) << ", " << name(mma.getAcc()) << ".v"
         << (bz.empty() ? "" : ", " + bz) << ");\n";
  // Boxes {outer, inner}: the swizzled shared tiles' 128-byte rows; in a
  // cluster, K-major B's box is this block's band of rows.
  int64_t bk = rowElems;
  info.tmaParams.push_back(
      {"tma_" + nameA, nameA, ta ? bk : bm, rowElems, batchedA ? 1 : 0});
  info.tmaParams.push_back({"tma_" + nameB, nameB, tb ? bn / cluster : bk,
                            rowElems, batchedB ? 1 : 0});
  info.clusterM = cluster;
  return success();
}
