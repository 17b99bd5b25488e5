//===- LowerTilesToLoops.cpp - run tile-level kernels on the CPU ----------===//
//
// Precondition: verified kgen.kernel / kgen.launch / kgen.tile ops.
// Postcondition: none of them is left. Each kernel became
//
//   func.func private @kernel(params...)        (params: any-layout memrefs)
//     <tile buffers: the body's memref.allocas, in plain memory>
//     for bz, by, bx in grid: <body of the kernel for block (bx, by, bz)>
//
// with the tile buffers allocated once for the whole grid (stack use does
// not grow with it), every kgen.tile.pipeline expanded into
// its prologue and steady state (loads of tile k + stages - 1 issued before
// the computation on tile k, as on the GPU) and every tile op replaced by
// loops that implement its definition (KgenTileOps.td) literally. Each
// launch became a call on buffers, its outputs first filled with NaN
// (integers: zero) so that an element the schedule forgets stays visible.
// Out-of-bounds box elements are never read: indices are clamped and the
// value replaced, and stores are guarded.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/RefBuilder.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/SymbolTable.h"

#include <limits>

namespace mlir::kgen {
#define GEN_PASS_DEF_KGENLOWERTILESTOLOOPS
#include "passes/Passes.h.inc"
} // namespace mlir::kgen

using namespace mlir;
using namespace mlir::kgen;

namespace {
/// The same memref type with a fully dynamic strided layout and no memory
/// space: what a kernel parameter becomes on the CPU, so any buffer fits.
MemRefType anyLayout(MemRefType t) {
  SmallVector<int64_t> strides(t.getRank(), ShapedType::kDynamic);
  auto layout =
      StridedLayoutAttr::get(t.getContext(), ShapedType::kDynamic, strides);
  return MemRefType::get(t.getShape(), t.getElementType(), layout);
}

//===----------------------------------------------------------------------===//
// Kernels and launches
//===----------------------------------------------------------------------===//

/// kgen.kernel -> func.func looping over the grid around a copy of the body.
void lowerKernel(KernelOp kernel) {
  OpBuilder top(kernel);
  Location loc = kernel.getLoc();
  SmallVector<Type> params;
  for (BlockArgument arg : kernel.getParams())
    params.push_back(anyLayout(cast<MemRefType>(arg.getType())));
  auto func = func::FuncOp::create(top, loc, kernel.getSymName(),
                                   top.getFunctionType(params, {}));
  func.setPrivate();
  Block *entry = func.addEntryBlock();
  ImplicitLocOpBuilder b(loc, top.getContext());
  b.setInsertionPointToStart(entry);
  RefBuilder rb(b);
  ArrayRef<int64_t> grid = kernel.getGrid();
  Block &body = kernel.getBody().front();
  rb.loop(grid[2], [&](Value bz) {
    rb.loop(grid[1], [&](Value by) {
      rb.loop(grid[0], [&](Value bx) {
        IRMapping map;
        map.map(body.getArguments().take_front(3), ValueRange{bx, by, bz});
        map.map(body.getArguments().drop_front(3), entry->getArguments());
        for (Operation &op : body)
          b.clone(op, map);
      });
    });
  });
  func::ReturnOp::create(b);
  // A view of a parameter (a variable-length attention's [T, H, D] tokens
  // as [T, H * D] rows) takes the parameter's strided layout.
  func.walk([&](memref::CollapseShapeOp view) {
    view.getResult().setType(memref::CollapseShapeOp::computeCollapsedType(
        cast<MemRefType>(view.getSrc().getType()),
        view.getReassociationIndices()));
  });
  // Shared memory and registers are plain memory here, allocated once before
  // the grid loops. scf.for is an allocation scope, but its lowering to LLVM
  // frees nothing at the end of an iteration: an alloca inside the loops
  // took new stack at every block until the function returned (a 1024 x
  // 1024 gemm's 64 blocks of 128 KiB overflowed 8 MiB). One buffer reused
  // by every block is what the GPU gives a block: memory of undefined
  // contents (here the last block's), which the body initialises itself.
  // Allocas of static shape move, from any depth (an inner loop's reused
  // the same way); a dynamically sized one stays where it is.
  SmallVector<memref::AllocaOp> allocas;
  func.walk([&](memref::AllocaOp alloca) {
    MemRefType t = alloca.getType();
    if (t.getMemorySpace())
      alloca.getResult().setType(
          MemRefType::get(t.getShape(), t.getElementType()));
    if (alloca->getNumOperands() == 0)
      allocas.push_back(alloca);
  });
  Operation *gridLoops = &entry->front();
  for (memref::AllocaOp alloca : allocas)
    alloca->moveBefore(gridLoops);
  kernel.erase();
}

/// kgen.launch -> buffers, poisoned outputs, func.call, tensors.
void lowerLaunch(LaunchOp launch) {
  ImplicitLocOpBuilder b(launch.getLoc(), launch);
  RefBuilder rb(b);
  SmallVector<Value> args, outputs;
  for (Value input : launch.getInputs())
    args.push_back(rb.buffer(input));
  for (Type t : launch.getResultTypes()) {
    Value buf = rb.alloc(t);
    Type elem = cast<RankedTensorType>(t).getElementType();
    Value poison =
        isa<FloatType>(elem)
            ? Value(arith::ConstantOp::create(
                  b, b.getFloatAttr(elem, std::numeric_limits<double>::quiet_NaN())))
            : rb.zero(elem);
    rb.fill(buf, poison);
    outputs.push_back(buf);
    args.push_back(memref::CastOp::create(
        b, anyLayout(cast<MemRefType>(buf.getType())), buf));
  }
  func::CallOp::create(b, launch.getKernel(), TypeRange{}, args);
  SmallVector<Value> results;
  for (auto [buf, t] : llvm::zip(outputs, launch.getResultTypes()))
    results.push_back(rb.tensor(buf, t));
  launch.replaceAllUsesWith(results);
  launch.erase();
}

//===----------------------------------------------------------------------===//
// Tile ops
//===----------------------------------------------------------------------===//

/// Box addressing shared by the tile ops: element (r, c) of the box at
/// `indices` of `mem` (any rank >= 2), its bounds and whether it is inside.
struct Box {
  RefBuilder &rb;
  Value mem;
  ValueRange indices;
  Value rows, cols;

  int64_t rank() { return cast<MemRefType>(mem.getType()).getRank(); }
  /// Inside the op's bounds and the buffer itself (leading indices too:
  /// hand-written tile IR may address any batch).
  Value inside(Value y, Value x) {
    auto t = cast<MemRefType>(mem.getType());
    Value hiY = arith::MinSIOp::create(rb.b, rows,
                                       rb.idx(t.getDimSize(rank() - 2)));
    Value hiX = arith::MinSIOp::create(rb.b, cols,
                                       rb.idx(t.getDimSize(rank() - 1)));
    Value in = rb.andi(rb.inRange(y, rb.idx(0), hiY),
                       rb.inRange(x, rb.idx(0), hiX));
    for (int64_t d = 0; d < rank() - 2; ++d)
      in = rb.andi(in, rb.inRange(indices[d], rb.idx(0),
                                  rb.idx(t.getDimSize(d))));
    return in;
  }
  /// (y, x) of box element (r, c).
  std::pair<Value, Value> at(Value r, Value c) {
    return {rb.addi(indices[rank() - 2], r), rb.addi(indices[rank() - 1], c)};
  }
  /// Full index list for (y, x); leading indices clamped into the buffer
  /// (an out-of-range one is never read: `inside` is false there).
  SmallVector<Value> address(Value y, Value x) {
    auto t = cast<MemRefType>(mem.getType());
    SmallVector<Value> full;
    for (int64_t d = 0; d < rank() - 2; ++d)
      full.push_back(rb.clamp(indices[d], rb.idx(0),
                              rb.idx(t.getDimSize(d) - 1)));
    full.append({y, x});
    return full;
  }
  /// For each box element: body(in-bounds flag, address clamped to 0 when out).
  void forEach(int64_t boxRows, int64_t boxCols,
               function_ref<void(Value r, Value c, Value in,
                                 SmallVector<Value> addr, Value x)>
                   body) {
    rb.loop(boxRows, [&](Value r) {
      rb.loop(boxCols, [&](Value c) {
        auto [y, x] = at(r, c);
        Value in = inside(y, x);
        Value zero = rb.idx(0);
        body(r, c, in, address(rb.select(in, y, zero), rb.select(in, x, zero)),
             x);
      });
    });
  }
};

int64_t dim(Value mem, unsigned i) {
  return cast<MemRefType>(mem.getType()).getDimSize(i);
}

/// `stage` lies inside the stage buffer `buf` ([S, R, C]); tile ops on a
/// stage outside it (hand-written tile IR) do nothing.
Value validStage(RefBuilder &rb, Value stage, Value buf) {
  return rb.inRange(stage, rb.idx(0), rb.idx(dim(buf, 0)));
}

void lowerLoad(TileLoadOp op, RefBuilder &rb) {
  OpBuilder::InsertionGuard guard(rb.b);
  auto ifOp = scf::IfOp::create(rb.b, validStage(rb, op.getStage(), op.getDst()),
                                /*withElseRegion=*/false);
  rb.b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  Box box{rb, op.getSrc(), op.getIndices(), op.getRows(), op.getCols()};
  Type elem = cast<MemRefType>(op.getDst().getType()).getElementType();
  box.forEach(dim(op.getDst(), 1), dim(op.getDst(), 2),
              [&](Value r, Value c, Value in, SmallVector<Value> addr, Value) {
                Value v = memref::LoadOp::create(rb.b, op.getSrc(), addr);
                v = rb.select(in, v, rb.zero(elem));
                memref::StoreOp::create(rb.b, v, op.getDst(),
                                        ValueRange{op.getStage(), r, c});
              });
}

/// kgen.tile.load_paged: every index clamped into its dimension before the
/// load and the element selected only where the definition reads it, so
/// bad table entries or hand-written indices never read out of bounds.
void lowerLoadPaged(TileLoadPagedOp op, RefBuilder &rb) {
  OpBuilder::InsertionGuard guard(rb.b);
  auto ifOp = scf::IfOp::create(rb.b, validStage(rb, op.getStage(), op.getDst()),
                                /*withElseRegion=*/false);
  rb.b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  Value src = op.getSrc(), table = op.getTable(), dst = op.getDst();
  bool nhd = op.getNhd(); // [N, P, H, C] instead of [N, H, P, C]
  int64_t pages = dim(src, 0), heads = dim(src, nhd ? 2 : 1),
          pageSize = dim(src, nhd ? 1 : 2), width = dim(src, 3);
  int64_t batches = dim(table, 0), slots = dim(table, 1);
  Type elem = cast<MemRefType>(dst.getType()).getElementType();
  auto within = [&](Value x, int64_t n) {
    return rb.clamp(x, rb.idx(0), rb.idx(n - 1));
  };
  Value head = within(op.getHead(), heads);
  Value batch = within(op.getBatch(), batches);
  Value planeOk = rb.andi(rb.inRange(op.getHead(), rb.idx(0), rb.idx(heads)),
                          rb.inRange(op.getBatch(), rb.idx(0), rb.idx(batches)));
  rb.loop(dim(dst, 1), [&](Value r) {
    Value j = rb.addi(op.getKey0(), r);
    Value slot = rb.divi(j, pageSize);
    Value rowOk = rb.andi(
        planeOk, rb.andi(rb.inRange(j, rb.idx(0), op.getRows()),
                         rb.inRange(slot, rb.idx(0), rb.idx(slots))));
    // The entry counts only for a key the definition reads (the load itself
    // is of a clamped, in-bounds slot).
    Value entry = rb.select(
        rowOk, rb.loadIndex(table, {batch, within(slot, slots)}), rb.idx(0));
    Value page = within(entry, pages);
    Value inPage = within(rb.remi(rb.select(rowOk, j, rb.idx(0)), pageSize),
                          pageSize);
    rb.loop(dim(dst, 2), [&](Value c) {
      Value in = rb.andi(rowOk, rb.andi(rb.inRange(c, rb.idx(0), op.getCols()),
                                        rb.inRange(c, rb.idx(0), rb.idx(width))));
      Value col = within(c, width);
      Value v = memref::LoadOp::create(
          rb.b, src,
          nhd ? ValueRange{page, inPage, head, col}
              : ValueRange{page, head, inPage, col});
      memref::StoreOp::create(rb.b, rb.select(in, v, rb.zero(elem)), dst,
                              ValueRange{op.getStage(), r, c});
    });
  });
}

void lowerMma(TileMmaOp op, RefBuilder &rb) {
  OpBuilder::InsertionGuard guard(rb.b);
  auto ifOp = scf::IfOp::create(
      rb.b,
      rb.andi(validStage(rb, op.getStage(), op.getA()),
              validStage(rb, op.getStage(), op.getB())),
      /*withElseRegion=*/false);
  rb.b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  bool ta = op.getTransposeA(), tb = op.getTransposeB();
  int64_t bk = dim(op.getA(), ta ? 1 : 2);
  Value a = op.getA(), b = op.getB(), acc = op.getAcc(), s = op.getStage();
  rb.loop(dim(acc, 0), [&](Value m) {
    rb.loop(dim(acc, 1), [&](Value n) {
      Value cur = memref::LoadOp::create(rb.b, acc, ValueRange{m, n});
      Value sum = rb.reduce(bk, cur, [&](Value k, Value sum) {
        Value av = rb.loadF32(a, ta ? ValueRange{s, k, m} : ValueRange{s, m, k});
        Value bv = rb.loadF32(b, tb ? ValueRange{s, n, k} : ValueRange{s, k, n});
        Value next = rb.addf(sum, rb.mulf(av, bv));
        if (!op.getAccF16())
          return next;
        Value h = arith::TruncFOp::create(rb.b, rb.b.getF16Type(), next);
        return Value(arith::ExtFOp::create(rb.b, rb.b.getF32Type(), h));
      });
      memref::StoreOp::create(rb.b, sum, acc, ValueRange{m, n});
    });
  });
}

void lowerAccumulate(TileAccumulateOp op, RefBuilder &rb) {
  Box box{rb, op.getSrc(), op.getIndices(), op.getRows(), op.getCols()};
  Value acc = op.getAcc();
  box.forEach(dim(acc, 0), dim(acc, 1),
              [&](Value r, Value c, Value in, SmallVector<Value> addr, Value) {
                Value cur = memref::LoadOp::create(rb.b, acc, ValueRange{r, c});
                Value v = memref::LoadOp::create(rb.b, op.getSrc(), addr);
                memref::StoreOp::create(rb.b,
                                        rb.select(in, rb.addf(cur, v), cur),
                                        acc, ValueRange{r, c});
              });
}

void lowerStore(TileStoreOp op, RefBuilder &rb) {
  Box box{rb, op.getDst(), op.getIndices(), op.getRows(), op.getCols()};
  Value acc = op.getAcc();
  box.forEach(dim(acc, 0), dim(acc, 1),
              [&](Value r, Value c, Value in, SmallVector<Value> addr, Value) {
                rb.when(in, [&] {
                  Value v = memref::LoadOp::create(rb.b, acc, ValueRange{r, c});
                  memref::StoreOp::create(rb.b, v, op.getDst(), addr);
                });
              });
}

/// Same f32 expression, in the same order, as kgen.gemm's reference
/// (LowerToLoops.cpp), so a schedule with one K split matches it exactly.
void lowerEpilogue(TileEpilogueOp op, RefBuilder &rb) {
  Box box{rb, op.getDst(), op.getIndices(), op.getRows(), op.getCols()};
  Value acc = op.getAcc();
  float alpha = op.getAlpha().convertToFloat();
  float beta = op.getBeta().convertToFloat();
  box.forEach(dim(acc, 0), dim(acc, 1),
              [&](Value r, Value c, Value in, SmallVector<Value> addr, Value x) {
                rb.when(in, [&] {
                  Value a = memref::LoadOp::create(rb.b, acc, ValueRange{r, c});
                  Value v = rb.mulf(rb.f32(alpha), a);
                  if (Value residual = op.getResidual())
                    v = rb.addf(v, rb.mulf(rb.f32(beta),
                                           rb.loadF32(residual, addr)));
                  if (Value bias = op.getBias())
                    v = rb.addf(v, rb.loadF32(bias, x));
                  rb.storeF32(rb.activation(op.getActivation(), v),
                              op.getDst(), addr);
                });
              });
}


//===----------------------------------------------------------------------===//
// Attention steps (docs/attention.md): the definitions of KgenTileOps.td
//===----------------------------------------------------------------------===//

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

void lowerSoftmaxInit(TileSoftmaxInitOp op, RefBuilder &rb) {
  Value stats = op.getStats();
  rb.loop(dim(stats, 1), [&](Value m) {
    memref::StoreOp::create(rb.b, rb.f32(kNegInf), stats,
                            ValueRange{rb.idx(0), m});
    memref::StoreOp::create(rb.b, rb.f32(0.0), stats, ValueRange{rb.idx(1), m});
  });
}

/// kgen.tile.widen: e4m3 elements to bf16 or f16, exactly (through f32).
void lowerWiden(TileWidenOp op, RefBuilder &rb) {
  OpBuilder::InsertionGuard guard(rb.b);
  Value valid = rb.andi(validStage(rb, op.getStage(), op.getSrc()),
                        validStage(rb, op.getTo(), op.getDst()));
  auto ifOp = scf::IfOp::create(rb.b, valid, /*withElseRegion=*/false);
  rb.b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  rb.loop(dim(op.getDst(), 1), [&](Value r) {
    rb.loop(dim(op.getDst(), 2), [&](Value c) {
      rb.storeF32(rb.loadF32(op.getSrc(), {op.getStage(), r, c}), op.getDst(),
                  {op.getTo(), r, c});
    });
  });
}

void lowerQk(TileQkOp op, RefBuilder &rb) {
  OpBuilder::InsertionGuard guard(rb.b);
  auto ifOp = scf::IfOp::create(rb.b, validStage(rb, op.getStage(), op.getK()),
                                /*withElseRegion=*/false);
  rb.b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  Value q = op.getQ(), k = op.getK(), s = op.getS(), st = op.getStage();
  Value zero = rb.idx(0);
  rb.loop(dim(s, 0), [&](Value m) {
    rb.loop(dim(s, 1), [&](Value n) {
      Value dot = rb.reduce(dim(q, 2), rb.f32(0.0), [&](Value d, Value sum) {
        return rb.addf(sum, rb.mulf(rb.loadF32(q, {zero, m, d}),
                                    rb.loadF32(k, {st, n, d})));
      });
      memref::StoreOp::create(rb.b, dot, s, ValueRange{m, n});
    });
  });
}

void lowerOnlineSoftmax(TileOnlineSoftmaxOp op, RefBuilder &rb) {
  Value s = op.getS(), stats = op.getStats(), acc = op.getAcc();
  Value len = op.getKvLen();
  // (A runtime seq_q below 1 counts as 1: KgenTileOps.td.)
  Value seqQ = arith::MaxSIOp::create(rb.b, op.getSeqQ(), rb.idx(1));
  Value scale = rb.f32(op.getScale().convertToFloat());
  if (Value descale = op.getDescale())
    scale = rb.mulf(scale, descale);
  std::optional<APFloat> cap = op.getSoftcap();
  std::optional<uint64_t> left = op.getWindowLeft(),
                          right = op.getWindowRight();
  Value c0 = rb.idx(0), c1 = rb.idx(1);
  rb.loop(dim(s, 0), [&](Value m) {
    Value r = rb.addi(op.getRow0(), m);
    Value i = arith::RemUIOp::create(rb.b, r, seqQ);
    Value pos = rb.subi(rb.addi(i, len), seqQ); // bottom-right
    Value slope;
    if (Value alibi = op.getAlibi()) { // of query head head0 + r / seq_q
      Value head =
          rb.addi(op.getHead0(), arith::DivUIOp::create(rb.b, r, seqQ));
      slope = rb.loadF32(alibi, {rb.clamp(head, c0, rb.idx(dim(alibi, 0) - 1))});
    }
    Value old = memref::LoadOp::create(rb.b, stats, ValueRange{c0, m});
    // t_n, into s, and their max.
    Value mx = rb.reduce(dim(s, 1), rb.f32(kNegInf), [&](Value n, Value mx) {
      Value j = rb.addi(op.getCol0(), n);
      Value t =
          rb.mulf(scale, memref::LoadOp::create(rb.b, s, ValueRange{m, n}));
      if (cap) {
        Value c = rb.f32(cap->convertToFloat());
        t = rb.mulf(c, math::TanhOp::create(rb.b, rb.divf(t, c)));
      }
      if (slope) // ALiBi
        t = rb.subf(t, rb.alibiBias(slope, pos, j));
      std::optional<int64_t> l, r;
      if (left)
        l = int64_t(*left);
      if (right)
        r = int64_t(*right);
      Value visible = rb.attentionVisible(j, len, pos, op.getCausal(), l, r);
      t = rb.select(visible, t, rb.f32(kNegInf));
      memref::StoreOp::create(rb.b, t, s, ValueRange{m, n});
      return rb.maxf(mx, t);
    });
    auto finite = [&](Value x) {
      return rb.cmpf(arith::CmpFPredicate::OGT, x, rb.f32(kNegInf));
    };
    Value mn = rb.maxf(old, mx);
    Value shift = rb.select(finite(mn), mn, rb.f32(0.0));
    Value alpha =
        rb.select(finite(old), rb.exp(rb.subf(old, shift)), rb.f32(0.0));
    Value sum = rb.reduce(dim(s, 1), rb.f32(0.0), [&](Value n, Value sum) {
      Value p = rb.exp(
          rb.subf(memref::LoadOp::create(rb.b, s, ValueRange{m, n}), shift));
      memref::StoreOp::create(rb.b, p, s, ValueRange{m, n});
      return rb.addf(sum, p);
    });
    rb.loop(dim(acc, 1), [&](Value c) {
      Value a = memref::LoadOp::create(rb.b, acc, ValueRange{m, c});
      memref::StoreOp::create(rb.b, rb.mulf(alpha, a), acc, ValueRange{m, c});
    });
    Value l = memref::LoadOp::create(rb.b, stats, ValueRange{c1, m});
    memref::StoreOp::create(rb.b, mn, stats, ValueRange{c0, m});
    memref::StoreOp::create(rb.b, rb.addf(rb.mulf(alpha, l), sum), stats,
                            ValueRange{c1, m});
  });
}

void lowerPv(TilePvOp op, RefBuilder &rb) {
  OpBuilder::InsertionGuard guard(rb.b);
  auto ifOp = scf::IfOp::create(rb.b, validStage(rb, op.getStage(), op.getV()),
                                /*withElseRegion=*/false);
  rb.b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  Value p = op.getP(), v = op.getV(), acc = op.getAcc(), st = op.getStage();
  Type elem = cast<MemRefType>(v.getType()).getElementType();
  rb.loop(dim(acc, 0), [&](Value m) {
    rb.loop(dim(acc, 1), [&](Value d) {
      Value cur = memref::LoadOp::create(rb.b, acc, ValueRange{m, d});
      Value sum = rb.reduce(dim(p, 1), cur, [&](Value n, Value sum) {
        Value pv = memref::LoadOp::create(rb.b, p, ValueRange{m, n});
        if (!elem.isF32()) // the operand the tensor cores take
          pv = arith::ExtFOp::create(
              rb.b, rb.b.getF32Type(),
              Value(arith::TruncFOp::create(rb.b, elem, pv)));
        return rb.addf(sum, rb.mulf(pv, rb.loadF32(v, {st, n, d})));
      });
      memref::StoreOp::create(rb.b, sum, acc, ValueRange{m, d});
    });
  });
}

/// lse[leading..., y] for the rows y = indices[rank - 2] + r inside the
/// bounds of the box `box` (of `rows` rows).
void forEachRow(Box &box, int64_t rows,
                function_ref<void(Value r, SmallVector<Value> lseAt)> body) {
  RefBuilder &rb = box.rb;
  rb.loop(rows, [&](Value r) {
    auto [y, x] = box.at(r, rb.idx(0));
    (void)x;
    Value in = box.inside(y, box.indices.back());
    rb.when(in, [&] {
      SmallVector<Value> at = box.address(y, rb.idx(0));
      at.pop_back(); // the lse has no column
      body(r, at);
    });
  });
}

/// lse[at] = the log-sum-exp of row r of `stats` (-inf when its sum is 0).
void storeLse(RefBuilder &rb, Value stats, Value r, Value lse,
              ArrayRef<Value> at) {
  Value mx = memref::LoadOp::create(rb.b, stats, ValueRange{rb.idx(0), r});
  Value l = memref::LoadOp::create(rb.b, stats, ValueRange{rb.idx(1), r});
  Value finite = rb.cmpf(arith::CmpFPredicate::OGT, mx, rb.f32(kNegInf));
  Value shift = rb.select(finite, mx, rb.f32(0.0));
  Value any = rb.cmpf(arith::CmpFPredicate::OGT, l, rb.f32(0.0));
  Value v = rb.addf(shift, math::LogOp::create(rb.b, l));
  memref::StoreOp::create(rb.b, rb.select(any, v, rb.f32(kNegInf)), lse, at);
}

void lowerAttentionStore(TileAttentionStoreOp op, RefBuilder &rb) {
  Box box{rb, op.getDst(), op.getIndices(), op.getRows(), op.getCols()};
  Value acc = op.getAcc(), stats = op.getStats();
  Value c1 = rb.idx(1);
  box.forEach(dim(acc, 0), dim(acc, 1),
              [&](Value r, Value c, Value in, SmallVector<Value> addr, Value) {
                rb.when(in, [&] {
                  Value l = memref::LoadOp::create(rb.b, stats, ValueRange{c1, r});
                  Value a = memref::LoadOp::create(rb.b, acc, ValueRange{r, c});
                  if (Value descale = op.getDescale())
                    a = rb.mulf(a, descale);
                  Value any = rb.cmpf(arith::CmpFPredicate::OGT, l, rb.f32(0.0));
                  rb.storeF32(rb.select(any, rb.divf(a, l), rb.f32(0.0)),
                              op.getDst(), addr);
                });
              });
  Value lse = op.getLse();
  if (!lse)
    return;
  forEachRow(box, dim(acc, 0), [&](Value r, SmallVector<Value> at) {
    if (!op.getLseIndices().empty()) { // lse_at: its own place, row kr + r
      at.assign(op.getLseIndices().begin(), op.getLseIndices().end());
      at.back() = rb.addi(at.back(), r);
      auto t = cast<MemRefType>(lse.getType());
      Value inside = arith::ConstantOp::create(rb.b, rb.b.getBoolAttr(true));
      for (auto [d, x] : llvm::enumerate(at))
        inside = rb.andi(inside, rb.inRange(x, rb.idx(0),
                                            rb.idx(t.getDimSize(d))));
      rb.when(inside, [&] { storeLse(rb, stats, r, lse, at); });
      return;
    }
    storeLse(rb, stats, r, lse, at);
  });
}

/// kgen.tile.sequence_tile: the sequences' tile counts summed in order until
/// the one holding `tile`.
void lowerSequenceTile(TileSequenceTileOp op, RefBuilder &rb) {
  Value offsets = op.getOffsets();
  int64_t batch = dim(offsets, 0) - 1, bm = op.getBlockM();
  Value zero = rb.idx(0), one = rb.idx(1), t = op.getTile();
  // (first tile of sequence b, seq, row, valid)
  SmallVector<Value> found = rb.reduce(
      zero, rb.idx(batch), {zero, zero, zero, zero},
      [&](Value b, ValueRange cur) {
        Value len = rb.subi(rb.loadIndex(offsets, {rb.addi(b, one)}),
                            rb.loadIndex(offsets, {b}));
        Value tiles = rb.divi(
            rb.addi(arith::MaxSIOp::create(rb.b, len, zero), rb.idx(bm - 1)),
            bm);
        Value next = rb.addi(cur[0], tiles);
        Value here = rb.andi(
            rb.cmpi(arith::CmpIPredicate::sge, t, cur[0]),
            rb.cmpi(arith::CmpIPredicate::slt, t, next));
        return SmallVector<Value>{
            next, rb.select(here, b, cur[1]),
            rb.select(here, rb.muli(rb.subi(t, cur[0]), bm), cur[2]),
            rb.select(here, one, cur[3])};
      });
  op.getSeq().replaceAllUsesWith(found[1]);
  op.getRow().replaceAllUsesWith(found[2]);
  op.getValid().replaceAllUsesWith(found[3]);
}

void lowerAttentionCombine(TileAttentionCombineOp op, RefBuilder &rb) {
  Box box{rb, op.getDst(), op.getIndices(), op.getRows(), op.getCols()};
  Value partial = op.getPartial(), partialLse = op.getPartialLse();
  int64_t splits = dim(partial, 0);
  int64_t cols = dim(op.getDst(), cast<MemRefType>(op.getDst().getType())
                                      .getRank() - 1);
  auto prepend = [](Value s, ArrayRef<Value> at) {
    SmallVector<Value> full = {s};
    full.append(at.begin(), at.end());
    return full;
  };
  forEachRow(box, op.getBoxRows(), [&](Value r, SmallVector<Value> at) {
    Value mx = rb.reduce(splits, rb.f32(kNegInf), [&](Value s, Value mx) {
      return rb.maxf(mx, memref::LoadOp::create(rb.b, partialLse,
                                                prepend(s, at)));
    });
    Value any = rb.cmpf(arith::CmpFPredicate::OGT, mx, rb.f32(kNegInf));
    Value shift = rb.select(any, mx, rb.f32(0.0));
    auto weight = [&](Value s) {
      return rb.exp(rb.subf(
          memref::LoadOp::create(rb.b, partialLse, prepend(s, at)), shift));
    };
    Value total = rb.reduce(splits, rb.f32(0.0), [&](Value s, Value sum) {
      return rb.addf(sum, weight(s));
    });
    rb.loop(cols, [&](Value c) {
      Value x = rb.addi(op.getIndices().back(), c);
      rb.when(rb.cmpi(arith::CmpIPredicate::slt, x,
                      arith::MinSIOp::create(rb.b, op.getCols(),
                                             rb.idx(cols))),
              [&] {
                SmallVector<Value> o = at;
                o.push_back(x);
                Value sum = rb.reduce(splits, rb.f32(0.0), [&](Value s, Value sum) {
                  return rb.addf(sum, rb.mulf(weight(s),
                                              memref::LoadOp::create(
                                                  rb.b, partial, prepend(s, o))));
                });
                rb.storeF32(rb.select(any, rb.divf(sum, total), rb.f32(0.0)),
                            op.getDst(), o);
              });
    });
    if (Value lse = op.getLse()) {
      Value v = rb.addf(shift, math::LogOp::create(rb.b, total));
      memref::StoreOp::create(rb.b, rb.select(any, v, rb.f32(kNegInf)), lse,
                              at);
    }
  });
}

//===----------------------------------------------------------------------===//
// Mixture of experts (docs/moe.md): the definitions of KgenTileOps.td
//===----------------------------------------------------------------------===//

void lowerMoeRoute(TileMoeRouteOp op, RefBuilder &rb) {
  Value logits = op.getLogits();
  int64_t tokens = dim(logits, 0), experts = dim(logits, 1);
  Value end = arith::MinSIOp::create(
      rb.b, rb.addi(op.getT0(), rb.idx(op.getRows())), rb.idx(tokens));
  RouteParams p = op.getRouteParams();
  RouteScratch scratch = allocRouteScratch(rb, experts, p, op.getBias());
  rb.loop(op.getT0(), end, [&](Value t) {
    emitRoute(rb, logits, t, experts, p, scratch, op.getIds(),
              op.getWeights());
  });
  deallocRouteScratch(rb, scratch);
}

/// Calls body(t, s, i) for every copy i = t * k + s of a [T, k] buffer.
void forEachCopy(RefBuilder &rb, Value copies,
                 function_ref<void(Value t, Value s, Value i)> body) {
  int64_t k = dim(copies, 1);
  rb.loop(dim(copies, 0), [&](Value t) {
    rb.loop(k, [&](Value s) {
      body(t, s, rb.addi(arith::MulIOp::create(rb.b, t, rb.idx(k)), s));
    });
  });
}

void lowerMoeRank(TileMoeRankOp op, RefBuilder &rb) {
  using P = arith::CmpIPredicate;
  Value ids = op.getIds(), positions = op.getPositions(),
        offsets = op.getOffsets(), e = op.getExpert();
  int64_t tokens = dim(ids, 0), k = dim(ids, 1);
  int64_t experts = dim(offsets, 0) - 1;
  Value one = rb.idx(1), zero = rb.idx(0);
  auto count = [&](function_ref<Value(Value id)> pred) {
    return rb.reduce(zero, rb.idx(tokens * k), {zero},
                     [&](Value i, ValueRange n) -> SmallVector<Value> {
                       Value id = rb.loadIndex(
                           ids, {rb.divi(i, k), arith::RemUIOp::create(
                                                    rb.b, i, rb.idx(k))});
                       return {rb.select(pred(id), rb.addi(n[0], one), n[0])};
                     })[0];
  };
  Value below = count([&](Value id) { return rb.inRange(id, zero, e); });
  rb.storeIndex(below, offsets, e);
  rb.when(rb.cmpi(P::eq, e, rb.idx(experts - 1)), [&] {
    Value valid =
        count([&](Value id) { return rb.inRange(id, zero, rb.idx(experts)); });
    rb.storeIndex(valid, offsets, rb.idx(experts));
  });
  // The copies of `e`, in order: below, below + 1, ...
  Value cursor = rb.alloc({1}, rb.b.getIndexType());
  memref::StoreOp::create(rb.b, below, cursor, zero);
  forEachCopy(rb, ids, [&](Value t, Value s, Value) {
    Value id = rb.loadIndex(ids, {t, s});
    rb.when(rb.cmpi(P::eq, id, e), [&] {
      Value p = memref::LoadOp::create(rb.b, cursor, zero);
      rb.storeIndex(p, positions, {t, s});
      memref::StoreOp::create(rb.b, rb.addi(p, one), cursor, zero);
    });
    rb.when(rb.andi(rb.cmpi(P::eq, e, zero),
                    arith::XOrIOp::create(
                        rb.b, rb.inRange(id, zero, rb.idx(experts)),
                        rb.boolean(true))),
            [&] { rb.storeIndex(rb.idx(-1), positions, {t, s}); });
  });
  memref::DeallocOp::create(rb.b, cursor);
}

void lowerMoeGather(TileMoeGatherOp op, RefBuilder &rb) {
  using P = arith::CmpIPredicate;
  Value x = op.getX(), positions = op.getPositions(),
        permuted = op.getPermuted();
  int64_t k = dim(positions, 1), rows = dim(permuted, 0),
          hidden = dim(x, 1);
  int64_t experts = dim(op.getOffsets(), 0) - 1;
  Value end = arith::MinSIOp::create(
      rb.b, rb.addi(op.getC0(), rb.idx(op.getCopies())), rb.idx(rows));
  Value filled = rb.loadIndex(op.getOffsets(), rb.idx(experts));
  Type elem = cast<MemRefType>(x.getType()).getElementType();
  rb.loop(op.getC0(), end, [&](Value i) {
    Value t = rb.divi(i, k);
    Value p = rb.loadIndex(positions,
                           {t, arith::RemUIOp::create(rb.b, i, rb.idx(k))});
    rb.when(rb.inRange(p, rb.idx(0), rb.idx(rows)), [&] {
      rb.loop(hidden, [&](Value h) {
        Value v = memref::LoadOp::create(rb.b, x, ValueRange{t, h});
        memref::StoreOp::create(rb.b, v, permuted, ValueRange{p, h});
      });
    });
    rb.when(rb.cmpi(P::sge, i, filled), [&] {
      rb.loop(hidden, [&](Value h) {
        memref::StoreOp::create(rb.b, rb.zero(elem), permuted,
                                ValueRange{i, h});
      });
    });
  });
}

/// The scan of KgenTileOps.td's definition: the head, each expert's group
/// and the tail, counting tiles until the one asked for.
void lowerGroupTile(TileGroupTileOp op, RefBuilder &rb) {
  using P = arith::CmpIPredicate;
  Value offsets = op.getOffsets(), tile = op.getTile(), rows = op.getRows();
  int64_t experts = dim(offsets, 0) - 1, bm = op.getBlockM();
  Value zero = rb.idx(0), one = rb.idx(1);
  // state: tiles before, found, expert, row0, row_end, live
  SmallVector<Value> state = {zero, zero, zero, rows, rows, zero};
  auto visit = [&](ValueRange st, Value start, Value end, Value expert,
                   Value live) -> SmallVector<Value> {
    Value n = rb.subi(end, start);
    Value tiles = rb.divi(rb.addi(n, rb.idx(bm - 1)), bm);
    Value next = rb.addi(st[0], tiles);
    Value hit = rb.andi(rb.cmpi(P::eq, st[1], zero),
                        rb.cmpi(P::ult, tile, next));
    Value row0 = rb.addi(
        start, arith::MulIOp::create(rb.b, rb.subi(tile, st[0]), rb.idx(bm)));
    return {next,
            rb.select(hit, one, st[1]),
            rb.select(hit, expert, st[2]),
            rb.select(hit, row0, st[3]),
            rb.select(hit, end, st[4]),
            rb.select(hit, live, st[5])};
  };
  auto lo = [&](Value e) {
    return rb.clamp(rb.loadIndex(offsets, e), zero, rows);
  };
  Value lo0 = lo(zero);
  state = visit(state, zero, lo0, zero, zero); // the head
  // Expert groups; the carried bound is the previous group's end.
  state.push_back(lo0);
  state = rb.reduce(zero, rb.idx(experts), state,
                    [&](Value e, ValueRange st) -> SmallVector<Value> {
                      Value start = lo(e);
                      Value end = rb.clamp(
                          rb.loadIndex(offsets, rb.addi(e, one)), start, rows);
                      SmallVector<Value> next =
                          visit(st.drop_back(), start, end, e, one);
                      next.push_back(end);
                      return next;
                    });
  Value tailStart = state.pop_back_val();
  state = visit(state, tailStart, rows, zero, zero); // the tail
  op.getExpert().replaceAllUsesWith(state[2]);
  op.getRow0().replaceAllUsesWith(state[3]);
  op.getRowEnd().replaceAllUsesWith(state[4]);
  op.getLive().replaceAllUsesWith(state[5]);
}

/// The same f32 expression as kgen.grouped_gemm's reference (emitExpertRow
/// in LowerToLoops.cpp): act(gate) * up, rounded once.
void lowerGatedEpilogue(TileGatedEpilogueOp op, RefBuilder &rb) {
  Box box{rb, op.getDst(), op.getIndices(), op.getRows(), op.getCols()};
  Value gate = op.getGate(), up = op.getUp();
  box.forEach(dim(gate, 0), dim(gate, 1),
              [&](Value r, Value c, Value in, SmallVector<Value> addr, Value) {
                rb.when(in, [&] {
                  Value g = memref::LoadOp::create(rb.b, gate, ValueRange{r, c});
                  Value u = memref::LoadOp::create(rb.b, up, ValueRange{r, c});
                  rb.storeF32(rb.mulf(rb.activation(op.getActivation(), g), u),
                              op.getDst(), addr);
                });
              });
}

/// The reference's quantisation (emitQuantiseRow), row by row.
void lowerActQuant(TileActQuantOp op, RefBuilder &rb) {
  Value a = op.getA();
  Value end = arith::MinSIOp::create(rb.b,
                                     rb.addi(op.getR0(), rb.idx(op.getRows())),
                                     rb.idx(dim(a, 0)));
  rb.loop(op.getR0(), end, [&](Value r) {
    emitQuantiseRow(rb, a, r, dim(a, 1), op.getQ(), r, op.getScale(), r);
  });
}

/// KgenTileOps.td's promotion, in the reference's f32 order (emitExpertRow:
/// acc + part * (sa * sb)).
void lowerBlockScale(TileBlockScaleOp op, RefBuilder &rb) {
  using P = arith::CmpIPredicate;
  int64_t bk = op.getBlockK(), perBlock = kScaleBlock / bk;
  Value kt = op.getKt(), next = rb.addi(kt, rb.idx(1));
  Value ends = arith::OrIOp::create(
      rb.b,
      rb.cmpi(P::eq, arith::RemUIOp::create(rb.b, next, rb.idx(perBlock)),
              rb.idx(0)),
      rb.cmpi(P::eq, next, rb.idx(op.getKTiles())));
  rb.when(ends, [&] {
    Value blk = rb.divi(kt, perBlock);
    Value part = op.getPart(), acc = op.getAcc();
    Value sb = memref::LoadOp::create(
        rb.b, op.getBScale(),
        ValueRange{op.getExpert(), blk, rb.divi(op.getCol0(), kScaleBlock)});
    rb.loop(dim(acc, 0), [&](Value r) {
      Value row = rb.addi(op.getRow0(), r);
      // Rows past `rows` were not loaded (part is 0) and may lie past the
      // scales: they take scale 0.
      Value inside = rb.cmpi(P::slt, row, op.getRows());
      Value safeRow = rb.select(inside, row, rb.idx(0));
      Value sa = rb.select(
          inside,
          memref::LoadOp::create(rb.b, op.getAScale(), ValueRange{safeRow, blk}),
          rb.f32(0.0));
      Value s = rb.mulf(sa, sb);
      rb.loop(dim(acc, 1), [&](Value c) {
        Value p = memref::LoadOp::create(rb.b, part, ValueRange{r, c});
        Value cur = memref::LoadOp::create(rb.b, acc, ValueRange{r, c});
        memref::StoreOp::create(rb.b, rb.addf(cur, rb.mulf(p, s)), acc,
                                ValueRange{r, c});
        memref::StoreOp::create(rb.b, rb.f32(0.0), part, ValueRange{r, c});
      });
    });
  });
}

void lowerMoeCombine(TileMoeCombineOp op, RefBuilder &rb) {
  Value end = arith::MinSIOp::create(
      rb.b, rb.addi(op.getT0(), rb.idx(op.getTokens())),
      rb.idx(dim(op.getPositions(), 0)));
  rb.loop(op.getT0(), end, [&](Value t) {
    emitCombineRow(rb, op.getExpertOut(), op.getPositions(), op.getWeights(),
                   op.getShared(), op.getY(), t);
  });
}

void lowerMoeSingleGroup(TileMoeSingleGroupOp op, RefBuilder &rb) {
  Value offsets = op.getOffsets();
  rb.storeIndex(rb.idx(0), offsets, rb.idx(0));
  rb.storeIndex(rb.idx(op.getRows()), offsets, rb.idx(1));
}

/// Copies the ops of `region`'s block with its (k, stage) arguments bound.
void inlineStep(ImplicitLocOpBuilder &b, Region &region, Value k,
                Value stage) {
  IRMapping map;
  Block &block = region.front();
  map.map(block.getArgument(0), k);
  map.map(block.getArgument(1), stage);
  for (Operation &op : block)
    b.clone(op, map);
}

/// Prologue: load tiles lower .. lower + S - 2. Steady state, per k: load
/// tile k + S - 1 (when it exists) into the stage it will reuse, then
/// compute tile k from stage (k - lower) % S.
void lowerPipeline(TilePipelineOp op, RefBuilder &rb) {
  ImplicitLocOpBuilder &b = rb.b;
  int64_t stages = op.getStages();
  Value lower = op.getLower(), upper = op.getUpper();
  Value count = arith::MaxSIOp::create(b, rb.subi(upper, lower), rb.idx(0));
  Value prologue = arith::MinSIOp::create(b, count, rb.idx(stages - 1));
  auto stageOf = [&](Value k) {
    return arith::RemUIOp::create(b, rb.subi(k, lower), rb.idx(stages));
  };
  rb.loop(rb.idx(0), prologue, [&](Value i) {
    Value k = rb.addi(lower, i);
    inlineStep(b, op.getLoad(), k, stageOf(k));
  });
  rb.loop(lower, upper, [&](Value k) {
    Value ahead = rb.addi(k, rb.idx(stages - 1));
    rb.when(rb.cmpi(arith::CmpIPredicate::slt, ahead, upper),
            [&] { inlineStep(b, op.getLoad(), ahead, stageOf(ahead)); });
    inlineStep(b, op.getCompute(), k, stageOf(k));
  });
}

struct KgenLowerTilesToLoopsPass
    : mlir::kgen::impl::KgenLowerTilesToLoopsBase<KgenLowerTilesToLoopsPass> {
  using KgenLowerTilesToLoopsBase::KgenLowerTilesToLoopsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (KernelOp kernel : llvm::to_vector(module.getOps<KernelOp>()))
      lowerKernel(kernel);
    SmallVector<LaunchOp> launches;
    module.walk([&](LaunchOp op) { launches.push_back(op); });
    for (LaunchOp op : launches)
      lowerLaunch(op);

    // Pipelines first: they copy the tile ops of their regions.
    SmallVector<TilePipelineOp> pipelines;
    module.walk([&](TilePipelineOp op) { pipelines.push_back(op); });
    for (TilePipelineOp op : pipelines) {
      ImplicitLocOpBuilder b(op.getLoc(), op);
      RefBuilder rb(b);
      lowerPipeline(op, rb);
      op.erase();
    }
    SmallVector<Operation *> tileOps;
    module.walk([&](Operation *op) {
      if (isa<TileZeroOp, TileLoadOp, TileLoadPagedOp, TileWidenOp, TileMmaOp,
              TileAccumulateOp,
              TileStoreOp, TileEpilogueOp, TileSoftmaxInitOp, TileQkOp,
              TileOnlineSoftmaxOp, TilePvOp, TileAttentionStoreOp,
              TileSequenceTileOp,
              TileAttentionCombineOp, TileMoeRouteOp, TileMoeRankOp,
              TileMoeGatherOp, TileGroupTileOp, TileGatedEpilogueOp,
              TileMoeCombineOp, TileMoeSingleGroupOp, TileActQuantOp,
              TileBlockScaleOp>(op))
        tileOps.push_back(op);
    });
    for (Operation *op : tileOps) {
      ImplicitLocOpBuilder b(op->getLoc(), op);
      RefBuilder rb(b);
      llvm::TypeSwitch<Operation *, void>(op)
          .Case([&](TileZeroOp o) {
            Type elem = cast<MemRefType>(o.getTile().getType()).getElementType();
            rb.fill(o.getTile(), rb.zero(elem));
          })
          .Case([&](TileLoadOp o) { lowerLoad(o, rb); })
          .Case([&](TileLoadPagedOp o) { lowerLoadPaged(o, rb); })
          .Case([&](TileWidenOp o) { lowerWiden(o, rb); })
          .Case([&](TileMmaOp o) { lowerMma(o, rb); })
          .Case([&](TileAccumulateOp o) { lowerAccumulate(o, rb); })
          .Case([&](TileStoreOp o) { lowerStore(o, rb); })
          .Case([&](TileEpilogueOp o) { lowerEpilogue(o, rb); })
          .Case([&](TileSoftmaxInitOp o) { lowerSoftmaxInit(o, rb); })
          .Case([&](TileQkOp o) { lowerQk(o, rb); })
          .Case([&](TileOnlineSoftmaxOp o) { lowerOnlineSoftmax(o, rb); })
          .Case([&](TilePvOp o) { lowerPv(o, rb); })
          .Case([&](TileAttentionStoreOp o) { lowerAttentionStore(o, rb); })
          .Case([&](TileSequenceTileOp o) { lowerSequenceTile(o, rb); })
          .Case([&](TileAttentionCombineOp o) {
            lowerAttentionCombine(o, rb);
          })
          .Case([&](TileMoeRouteOp o) { lowerMoeRoute(o, rb); })
          .Case([&](TileMoeRankOp o) { lowerMoeRank(o, rb); })
          .Case([&](TileMoeGatherOp o) { lowerMoeGather(o, rb); })
          .Case([&](TileGroupTileOp o) { lowerGroupTile(o, rb); })
          .Case([&](TileGatedEpilogueOp o) { lowerGatedEpilogue(o, rb); })
          .Case([&](TileMoeCombineOp o) { lowerMoeCombine(o, rb); })
          .Case([&](TileMoeSingleGroupOp o) { lowerMoeSingleGroup(o, rb); })
          .Case([&](TileActQuantOp o) { lowerActQuant(o, rb); })
          .Case([&](TileBlockScaleOp o) { lowerBlockScale(o, rb); });
      op->erase();
    }
  }
};
} // namespace
