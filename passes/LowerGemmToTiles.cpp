//===- LowerGemmToTiles.cpp - kgen.gemm + config -> tile-level kernel -----===//
//
// Precondition: verified kgen.gemm ops, each with a #kgen.gemm_config.
// Postcondition: no kgen.gemm is left; each became kgen.launch of one kernel
// (split_k == 1) or of a main kernel and a split-K reduction kernel.
//
// The block program of the main kernel, for block (bx, by, bz):
//   (tm, tn)   = raster(bx)   tiles grouped raster_group rows at a time
//   (m0, n0)   = (tm * BM, tn * BN); batch bz; split by
//   k tiles    = [by * perSplit, min((by + 1) * perSplit, ceil(K / BK)))
//   acc (BM, BN) f32 = 0
//   pipeline over k tiles, `stages` deep:
//     load:    A box at (m0, k * BK) -> sA[stage], B box at (k * BK, n0) -> sB[stage]
//     compute: acc += sA[stage] x sB[stage]
//   epilogue(acc) -> D at (m0, n0)      or, split-K: acc -> W[by, bz] at (m0, n0)
// The reduction kernel sums W over the splits in order and applies the
// epilogue; it runs the consumer warps of the config (the accumulator's
// threads), no producer. Boxes are masked at the matrix edges, so any M, N, K >= 1 works.
//
// Clusters (cluster_m = C > 1): the C blocks of a cluster are consecutive
// in bx and must hold tiles of one column (same n0: they share the B tile
// through TMA multicast). The raster counts tile rows rounded up to a
// multiple of C, in groups of a multiple of C, so they do; blocks on the
// padding rows (m0 >= M) load zeros (masked / TMA-filled boxes), take part
// in their cluster's loads and store nothing.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "dialect/GemmLegality.h"

#include "dialect/GemmJson.h"
#include "passes/TileKernelBuilder.h"

#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::kgen {
#define GEN_PASS_DEF_KGENLOWERGEMMTOTILES
#include "passes/Passes.h.inc"
} // namespace mlir::kgen

using namespace mlir;
using namespace mlir::kgen;
using namespace mlir::kgen::tiles;

namespace {
/// Shapes of one gemm and its config, read once.
struct GemmPlan {
  GemmOp op;
  GemmConfigAttr config;
  int64_t batch, m, n, k, bm, bn, bk, stages, split, group;
  int64_t tilesM, tilesN, kTiles, perSplit;
  bool batchedA, batchedB;

  explicit GemmPlan(GemmOp op)
      : op(op), config(op.getConfigAttr()), batch(op.getBatch()),
        m(op.getM()), n(op.getN()), k(op.getK()), bm(config.getBlockM()),
        bn(config.getBlockN()), bk(config.getBlockK()),
        stages(config.getStages()), split(config.getSplitK()),
        group(config.getRasterGroup()) {
    tilesM = llvm::divideCeil(m, bm);
    if (int64_t c = config.getClusterM(); c > 1) {
      tilesM = llvm::alignTo(tilesM, c);
      group = llvm::alignTo(group, c);
    }
    tilesN = llvm::divideCeil(n, bn);
    kTiles = llvm::divideCeil(k, bk);
    perSplit = llvm::divideCeil(kTiles, split);
    batchedA = op.getA().getType().getRank() == 3;
    batchedB = op.getB().getType().getRank() == 3;
  }
  Type elemA() { return op.getA().getType().getElementType(); }
};

/// Tile coordinates of linear block `bx`: tiles are visited in groups of
/// `group` tile rows, column by column inside a group, so consecutive blocks
/// share A and B tiles in L2. Returns (m0, n0).
std::pair<Value, Value> rasterise(Ix &ix, Value bx, GemmPlan &p) {
  Value perGroup = ix.c(p.group * p.tilesN);
  Value firstM = ix.mul(ix.div(bx, perGroup), p.group);
  Value rows = ix.min(arith::SubIOp::create(ix.b, ix.c(p.tilesM), firstM),
                      ix.c(p.group));
  Value inGroup = ix.rem(bx, perGroup);
  Value tm = ix.add(firstM, ix.rem(inGroup, rows));
  Value tn = ix.div(inGroup, rows);
  return {ix.mul(tm, p.bm), ix.mul(tn, p.bn)};
}

/// The main kernel's body: tile loop and epilogue (or partial store).
void buildMainBody(ImplicitLocOpBuilder &b, GemmPlan &p, Block *body,
                   Value bias, Value residual, Value out) {
  Ix ix{b};
  Value bx = body->getArgument(0), by = body->getArgument(1),
        bz = body->getArgument(2);
  Value aMem = body->getArgument(3), bMem = body->getArgument(4);
  auto [m0, n0] = rasterise(ix, bx, p);
  Value ktLo = ix.min(ix.mul(by, p.perSplit), ix.c(p.kTiles));
  Value ktHi = ix.min(ix.add(ktLo, ix.c(p.perSplit)), ix.c(p.kTiles));

  bool ta = p.op.getTransposeA(), tb = p.op.getTransposeB();
  Type elem = p.op.getA().getType().getElementType();
  auto shared = [&](int64_t rows, int64_t cols) {
    return memref::AllocaOp::create(
        b, MemRefType::get({p.stages, rows, cols}, elem, AffineMap(),
                           b.getI64IntegerAttr(kSharedSpace)));
  };
  Value sA = ta ? shared(p.bk, p.bm) : shared(p.bm, p.bk); // (S, BM, BK)
  Value sB = tb ? shared(p.bn, p.bk) : shared(p.bk, p.bn); // (S, BK, BN)
  Value acc = memref::AllocaOp::create(
      b, MemRefType::get({p.bm, p.bn}, b.getF32Type(), AffineMap(),
                         b.getI64IntegerAttr(kRegisterSpace))); // (BM, BN)
  TileZeroOp::create(b, acc);

  auto pipeline = TilePipelineOp::create(b, ktLo, ktHi, p.stages);
  Location loc = b.getLoc();
  Type index = b.getIndexType();
  {
    Block *load = addPipelineStep(pipeline.getLoad(), loc);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(load);
    Value k0 = ix.mul(load->getArgument(0), p.bk);
    Value stage = load->getArgument(1);
    SmallVector<Value> ia, ib;
    if (p.batchedA)
      ia.push_back(bz);
    if (p.batchedB)
      ib.push_back(bz);
    ia.append(ta ? SmallVector<Value>{k0, m0} : SmallVector<Value>{m0, k0});
    ib.append(tb ? SmallVector<Value>{n0, k0} : SmallVector<Value>{k0, n0});
    Value mDim = ix.c(p.m), nDim = ix.c(p.n), kDim = ix.c(p.k);
    TileLoadOp::create(b, aMem, ia, ta ? kDim : mDim, ta ? mDim : kDim, sA,
                       stage);
    TileLoadOp::create(b, bMem, ib, tb ? nDim : kDim, tb ? kDim : nDim, sB,
                       stage);
  }
  {
    Block *compute = addPipelineStep(pipeline.getCompute(), loc);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(compute);
    TileMmaOp::create(b, sA, sB, compute->getArgument(1), acc, ta, tb,
                      p.op.getAccumulatorType().isF16());
  }

  SmallVector<Value> io;
  if (p.split > 1)
    io.append({by, bz}); // W is [split, batch, M, N]
  else if (p.batchedA)
    io.push_back(bz);
  io.append({m0, n0});
  if (p.split > 1)
    TileStoreOp::create(b, acc, out, io, ix.c(p.m), ix.c(p.n));
  else
    TileEpilogueOp::create(b, acc, out, io, ix.c(p.m), ix.c(p.n), bias,
                           residual, p.op.getAlphaAttr(),
                           b.getF32FloatAttr(p.op.getBetaValue()),
                           p.op.getActivationAttr());
}

/// The split-K reduction: acc = sum over splits of W[s, bz] at (m0, n0),
/// then the epilogue into D.
void buildReduceBody(ImplicitLocOpBuilder &b, GemmPlan &p, Block *body,
                     Value w, Value bias, Value residual, Value out) {
  Ix ix{b};
  Value bx = body->getArgument(0), bz = body->getArgument(2);
  auto [m0, n0] = rasterise(ix, bx, p);
  Value acc = memref::AllocaOp::create(
      b, MemRefType::get({p.bm, p.bn}, b.getF32Type(), AffineMap(),
                         b.getI64IntegerAttr(kRegisterSpace))); // (BM, BN)
  TileZeroOp::create(b, acc);
  Value mDim = ix.c(p.m), nDim = ix.c(p.n);
  auto loop = scf::ForOp::create(b, ix.c(0), ix.c(p.split), ix.c(1));
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    TileAccumulateOp::create(
        b, w, ValueRange{loop.getInductionVar(), bz, m0, n0}, mDim, nDim, acc);
  }
  SmallVector<Value> io;
  if (p.batchedA)
    io.push_back(bz);
  io.append({m0, n0});
  TileEpilogueOp::create(b, acc, out, io, mDim, nDim, bias, residual,
                         p.op.getAlphaAttr(),
                         b.getF32FloatAttr(p.op.getBetaValue()),
                         p.op.getActivationAttr());
}

std::string kernelName(GemmPlan &p) {
  std::string elem;
  llvm::raw_string_ostream os(elem);
  os << p.op.getA().getType().getElementType();
  std::string name = "kgen_gemm_" + elem;
  if (p.batch > 1)
    name += "_b" + std::to_string(p.batch);
  name += "_m" + std::to_string(p.m) + "_n" + std::to_string(p.n) + "_k" +
          std::to_string(p.k);
  return name;
}

LogicalResult lowerGemm(GemmOp op, SymbolTable &symbols, OpBuilder &top) {
  if (!op.getConfigAttr())
    return op.emitOpError("has no #kgen.gemm_config: run "
                          "kgen-select-strategy first");
  GemmPlan p(op);
  int64_t bytes = p.elemA().getIntOrFloatBitWidth() / 8;
  int64_t smem = gemmSharedMemoryBytes(GemmConfigFields::of(p.config), bytes);
  int64_t threads = p.config.getThreads();
  int64_t tiles = p.tilesM * p.tilesN;
  std::string name = kernelName(p);
  Location loc = op.getLoc();

  SmallVector<Value> inputs = {op.getA(), op.getB()};
  if (op.getBias())
    inputs.push_back(op.getBias());
  if (op.getC())
    inputs.push_back(op.getC());
  SmallVector<Type> params;
  for (Value v : inputs)
    params.push_back(memrefFor(v.getType()));

  auto resultType = cast<RankedTensorType>(op.getD().getType());
  RankedTensorType partialType = RankedTensorType::get(
      {p.split, p.batch, p.m, p.n}, Float32Type::get(op.getContext()));
  RankedTensorType mainOut = p.split > 1 ? partialType : resultType;
  params.push_back(memrefFor(mainOut));

  auto [kernel, body] =
      createKernel(top, symbols, loc, name, {tiles, p.split, p.batch},
                   threads, smem, p.config, params);
  SmallVector<StringRef> names = {"A", "B"};
  if (op.getBias())
    names.push_back("bias");
  if (op.getC())
    names.push_back("C");
  names.push_back(p.split > 1 ? "W" : "D");
  kernel.setParamNamesAttr(top.getStrArrayAttr(names));
  kernel.setSignatureAttr(gemmSignature(p.op));
  {
    ImplicitLocOpBuilder b(loc, op.getContext());
    b.setInsertionPointToStart(body);
    size_t i = 5; // bx, by, bz, A, B
    Value bias = op.getBias() ? body->getArgument(i++) : Value();
    Value residual = op.getC() ? body->getArgument(i++) : Value();
    buildMainBody(b, p, body, p.split > 1 ? Value() : bias,
                  p.split > 1 ? Value() : residual, body->getArgument(i));
  }

  OpBuilder b(op);
  Value result = LaunchOp::create(b, loc, TypeRange{mainOut},
                                  kernel.getSymName(), inputs)
                     .getResult(0);
  if (p.split > 1) {
    SmallVector<Value> reduceInputs = {result};
    SmallVector<Type> reduceParams = {memrefFor(partialType)};
    for (Value v : ArrayRef<Value>(inputs).drop_front(2)) {
      reduceInputs.push_back(v);
      reduceParams.push_back(memrefFor(v.getType()));
    }
    reduceParams.push_back(memrefFor(resultType));
    auto [reduce, rbody] = createKernel(
        top, symbols, loc, name + "_splitk_reduce", {tiles, 1, p.batch},
        /*threads=*/32 * p.config.getWarpsM() * p.config.getWarpsN(),
        /*smem=*/0, p.config, reduceParams);
    SmallVector<StringRef> reduceNames = {"W"};
    if (op.getBias())
      reduceNames.push_back("bias");
    if (op.getC())
      reduceNames.push_back("C");
    reduceNames.push_back("D");
    reduce.setParamNamesAttr(top.getStrArrayAttr(reduceNames));
    ImplicitLocOpBuilder rb(loc, op.getContext());
    rb.setInsertionPointToStart(rbody);
    size_t i = 4; // bx, by, bz, W
    Value bias = op.getBias() ? rbody->getArgument(i++) : Value();
    Value residual = op.getC() ? rbody->getArgument(i++) : Value();
    buildReduceBody(rb, p, rbody, rbody->getArgument(3), bias, residual,
                    rbody->getArgument(i));
    result = LaunchOp::create(b, loc, TypeRange{resultType},
                              reduce.getSymName(), reduceInputs)
                 .getResult(0);
  }
  op.getD().replaceAllUsesWith(result);
  op.erase();
  return success();
}

struct KgenLowerGemmToTilesPass
    : mlir::kgen::impl::KgenLowerGemmToTilesBase<KgenLowerGemmToTilesPass> {
  using KgenLowerGemmToTilesBase::KgenLowerGemmToTilesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<GemmOp> gemms;
    module.walk([&](GemmOp op) { gemms.push_back(op); });
    OpBuilder top(module.getContext());
    top.setInsertionPointToStart(module.getBody());
    for (GemmOp op : gemms)
      if (failed(lowerGemm(op, symbols, top)))
        return signalPassFailure();
  }
};
} // namespace
