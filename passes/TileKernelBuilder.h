//===- TileKernelBuilder.h - building tile-level kernels -------*- C++ -*-===//
//
// What the lowerings to the tile-level form (LowerGemmToTiles.cpp,
// LowerAttentionToTiles.cpp) share: memory spaces of tile buffers, index
// arithmetic, kernel and pipeline-step creation. Private to passes/.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_PASSES_TILEKERNELBUILDER_H
#define KGEN_PASSES_TILEKERNELBUILDER_H

#include "dialect/KgenOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::kgen::tiles {
constexpr unsigned kSharedSpace = 3;   // NVVM shared memory
constexpr unsigned kRegisterSpace = 5; // NVVM local: per-thread registers

/// Index arithmetic at the builder's position. `div`, `rem` and `min` are
/// unsigned (operands known non-negative); `smin`, `smax` signed.
struct Ix {
  ImplicitLocOpBuilder &b;
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value add(Value x, int64_t y) { return add(x, c(y)); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  Value mul(Value x, int64_t y) { return mul(x, c(y)); }
  Value div(Value x, Value y) { return arith::DivUIOp::create(b, x, y); }
  Value div(Value x, int64_t y) { return div(x, c(y)); }
  Value rem(Value x, Value y) { return arith::RemUIOp::create(b, x, y); }
  Value rem(Value x, int64_t y) { return rem(x, c(y)); }
  Value min(Value x, Value y) { return arith::MinUIOp::create(b, x, y); }
  Value smin(Value x, Value y) { return arith::MinSIOp::create(b, x, y); }
  Value smax(Value x, Value y) { return arith::MaxSIOp::create(b, x, y); }
  /// An integer scalar of a kernel parameter as an index (kv_lens[b],
  /// cu_seqlens[b]).
  Value load(Value mem, Value at) {
    Value stored = memref::LoadOp::create(b, mem, ValueRange{at});
    return arith::IndexCastOp::create(b, b.getIndexType(), stored);
  }
  /// ceil(x / y) for x >= 0.
  Value ceilDiv(Value x, int64_t y) { return div(add(x, y - 1), y); }
};

/// The memref a kernel takes for a tensor of `tensorType`.
inline MemRefType memrefFor(Type tensorType) {
  auto t = cast<RankedTensorType>(tensorType);
  return MemRefType::get(t.getShape(), t.getElementType());
}

/// A tile buffer of `shape` in `space` (shared memory or registers).
inline Value tileBuffer(ImplicitLocOpBuilder &b, ArrayRef<int64_t> shape,
                        Type elem, unsigned space) {
  return memref::AllocaOp::create(
      b, MemRefType::get(shape, elem, AffineMap(), b.getI64IntegerAttr(space)));
}

/// Starts a kernel at `moduleBuilder`'s position, renamed on a clash: the
/// op, and its entry block with (bx, by, bz, params...).
inline std::pair<KernelOp, Block *>
createKernel(OpBuilder &moduleBuilder, SymbolTable &symbols, Location loc,
             StringRef name, ArrayRef<int64_t> grid, int64_t threads,
             int64_t smem, Attribute config, ArrayRef<Type> params) {
  auto kernel = KernelOp::create(moduleBuilder, loc, name, grid, threads,
                                 smem, config, /*param_names=*/nullptr,
                                 /*num_outputs=*/1, /*signature=*/nullptr);
  symbols.insert(kernel);
  Block *body = new Block();
  kernel.getBody().push_back(body);
  Type index = moduleBuilder.getIndexType();
  body->addArguments({index, index, index}, {loc, loc, loc});
  for (Type t : params)
    body->addArgument(t, loc);
  return {kernel, body};
}

/// Names a kernel's parameters and its outputs (the last `outputs` of
/// them) and, for the first kernel of a package, records the op it computes
/// (`signature`; the kernels that continue it have none).
inline void describe(KernelOp kernel, ArrayRef<StringRef> names,
                     int64_t outputs, DictionaryAttr signature = {}) {
  Builder b(kernel.getContext());
  kernel.setParamNamesAttr(b.getStrArrayAttr(names));
  kernel.setNumOutputs(outputs);
  if (signature)
    kernel.setSignatureAttr(signature);
}

/// The block of a kgen.tile.pipeline region (load or compute), with its
/// (k, stage) arguments.
inline Block *addPipelineStep(Region &region, Location loc) {
  Block *block = new Block();
  region.push_back(block);
  Type index = IndexType::get(loc.getContext());
  block->addArguments({index, index}, {loc, loc});
  return block;
}
} // namespace mlir::kgen::tiles

#endif // KGEN_PASSES_TILEKERNELBUILDER_H
