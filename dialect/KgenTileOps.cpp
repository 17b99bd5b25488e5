//===- KgenTileOps.cpp - tile-level kernel form: verifiers ----------------===//

#include "dialect/KgenOps.h"

#include "kgen/runtime/Names.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::kgen;

namespace {
MemRefType memrefOf(Value v) { return cast<MemRefType>(v.getType()); }

/// A stage buffer: a static [stages, rows, cols] memref.
LogicalResult checkStageBuffer(Operation *op, StringRef name, MemRefType t) {
  if (t.getRank() != 3 || !t.hasStaticShape())
    return op->emitOpError() << "'" << name
                             << "' must be a static [stages, rows, cols] "
                                "buffer; got "
                             << t;
  return success();
}

/// An accumulator: a static [rows, cols] f32 memref.
LogicalResult checkAccumulator(Operation *op, StringRef name, MemRefType t) {
  if (t.getRank() != 2 || !t.hasStaticShape() || !t.getElementType().isF32())
    return op->emitOpError() << "'" << name
                             << "' must be a static [rows, cols] f32 buffer; "
                                "got "
                             << t;
  return success();
}

/// A global operand addressed by `indices`, at least 2-D.
LogicalResult checkGlobal(Operation *op, StringRef name, MemRefType t,
                          size_t numIndices) {
  if (t.getRank() < 2)
    return op->emitOpError() << "'" << name << "' must have rank 2 or more; got "
                             << t;
  if (numIndices != size_t(t.getRank()))
    return op->emitOpError() << "'" << name << "' has rank " << t.getRank()
                             << " but " << numIndices << " indices";
  return success();
}
} // namespace

LogicalResult KernelOp::verify() {
  if (getGrid().size() != 3 || llvm::any_of(getGrid(), [](int64_t d) {
        return d < 1;
      }))
    return emitOpError("'grid' must be three positive extents [x, y, z]");
  // I64Attr getters return uint64_t: read the stored (signed) values as
  // int64_t, or a negative one would pass as a huge unsigned one.
  int64_t threads = getThreads(), smemBytes = getSmemBytes(),
          numOutputs = getNumOutputs();
  if (threads < 1 || threads > 1024)
    return emitOpError() << "'threads' is " << threads
                         << "; expected 1 to 1024";
  if (smemBytes < 0)
    return emitOpError("'smem_bytes' must be non-negative");
  Block &body = getBody().front();
  if (body.getNumArguments() < 3 ||
      !llvm::all_of(body.getArguments().take_front(3),
                    [](BlockArgument a) { return a.getType().isIndex(); }))
    return emitOpError("body must start with three index arguments (the "
                       "block coordinates x, y, z)");
  // Names reach generated CUDA as identifiers: one check for all of them
  // (kgen/runtime/Names.h), before anything is emitted.
  if (std::string why = ::kgen::rt::identifierProblem(getSymName());
      !why.empty())
    return emitOpError() << "name '"
                         << ::kgen::rt::escapeForTerminal(getSymName())
                         << "' cannot name a CUDA kernel: it " << why;
  if (std::optional<ArrayAttr> names = getParamNames()) {
    if (names->size() != getParams().size())
      return emitOpError() << "'param_names' has " << names->size()
                           << " names for " << getParams().size()
                           << " parameters";
    llvm::StringSet<> seen;
    for (auto [i, attr] : llvm::enumerate(*names)) {
      StringRef name = cast<StringAttr>(attr).getValue();
      if (std::string why = ::kgen::rt::identifierProblem(name); !why.empty())
        return emitOpError() << "parameter " << i << "'s name '"
                             << ::kgen::rt::escapeForTerminal(name)
                             << "' cannot be a CUDA identifier: it " << why;
      if (!seen.insert(name).second)
        return emitOpError() << "parameter name '" << name
                             << "' is given twice";
    }
  }
  if (numOutputs < 0 || size_t(numOutputs) > getParams().size())
    return emitOpError("'num_outputs' must be between 0 and the number of "
                       "parameters");
  for (auto [i, param] : llvm::enumerate(getParams()))
    if (!isa<MemRefType>(param.getType()))
      return emitOpError() << "parameter " << i << " must be a memref; got "
                           << param.getType();
  return success();
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto kernel = symbols.lookupNearestSymbolFrom<KernelOp>(*this, getKernelAttr());
  if (!kernel)
    return emitOpError() << "no kgen.kernel named " << getKernelAttr();
  auto params = kernel.getParams();
  size_t expected = getInputs().size() + getResults().size();
  if (params.size() != expected)
    return emitOpError() << "kernel " << getKernelAttr() << " takes "
                         << params.size() << " parameters; the launch passes "
                         << getInputs().size() << " inputs and "
                         << getResults().size() << " results";
  SmallVector<Type> tensors(getInputs().getTypes());
  llvm::append_range(tensors, getResults().getTypes());
  for (auto [i, pair] : llvm::enumerate(llvm::zip(tensors, params))) {
    auto tensor = cast<RankedTensorType>(std::get<0>(pair));
    auto memref = cast<MemRefType>(std::get<1>(pair).getType());
    if (tensor.getShape() != memref.getShape() ||
        tensor.getElementType() != memref.getElementType())
      return emitOpError() << "operand or result " << i << " of type "
                           << tensor << " does not match kernel parameter "
                           << memref;
  }
  return success();
}

LogicalResult TileLoadOp::verify() {
  MemRefType src = memrefOf(getSrc()), dst = memrefOf(getDst());
  if (failed(checkGlobal(*this, "src", src, getIndices().size())) ||
      failed(checkStageBuffer(*this, "dst", dst)))
    return failure();
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "'dst' element type " << dst.getElementType()
                         << " differs from 'src' element type "
                         << src.getElementType();
  return success();
}

LogicalResult TileLoadPagedOp::verify() {
  MemRefType src = memrefOf(getSrc()), table = memrefOf(getTable()),
             dst = memrefOf(getDst());
  if (failed(checkStageBuffer(*this, "dst", dst)))
    return failure();
  if (src.getRank() != 4)
    return emitOpError() << "'src' must be a paged cache [N, H, P, C]; got "
                         << src;
  if (table.getRank() != 2 || !table.getElementType().isInteger(32))
    return emitOpError() << "'table' must be a block table [B, M] of i32; got "
                         << table;
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "'dst' element type " << dst.getElementType()
                         << " differs from 'src' element type "
                         << src.getElementType();
  return success();
}

LogicalResult TileWidenOp::verify() {
  MemRefType src = memrefOf(getSrc()), dst = memrefOf(getDst());
  if (failed(checkStageBuffer(*this, "src", src)) ||
      failed(checkStageBuffer(*this, "dst", dst)))
    return failure();
  if (!isa<Float8E4M3FNType>(src.getElementType()))
    return emitOpError() << "'src' must hold f8E4M3FN elements; got "
                         << src.getElementType();
  if (!dst.getElementType().isBF16() && !dst.getElementType().isF16())
    return emitOpError() << "'dst' must hold bf16 or f16 elements; got "
                         << dst.getElementType();
  if (src.getShape().drop_front() != dst.getShape().drop_front())
    return emitOpError() << "'src' tiles " << src << " and 'dst' tiles "
                         << dst << " differ in rows or columns";
  if (dst.getDimSize(2) % 16 != 0)
    return emitOpError() << "widened tiles have rows of whole 16-element "
                            "chunks; got "
                         << dst.getDimSize(2) << " columns";
  // Inside a pipeline, a widen reads the stage its compute step has landed
  // (the GPU waits for that stage only).
  if (auto pipeline = (*this)->getParentOfType<TilePipelineOp>()) {
    Region *region = (*this)->getParentRegion();
    if (region != &pipeline.getCompute())
      return emitOpError("widens a landed stage: in a pipeline, only in its "
                         "compute step");
    Block &step = pipeline.getCompute().front();
    if (step.getNumArguments() < 2 || getStage() != step.getArgument(1))
      return emitOpError("in a pipeline's compute step, widens the step's "
                         "stage (its second argument)");
  }
  return success();
}

LogicalResult TileMmaOp::verify() {
  MemRefType a = memrefOf(getA()), b = memrefOf(getB()),
             acc = memrefOf(getAcc());
  if (failed(checkStageBuffer(*this, "a", a)) ||
      failed(checkStageBuffer(*this, "b", b)) ||
      failed(checkAccumulator(*this, "acc", acc)))
    return failure();
  int64_t bm = a.getDimSize(getTransposeA() ? 2 : 1);
  int64_t bkA = a.getDimSize(getTransposeA() ? 1 : 2);
  int64_t bkB = b.getDimSize(getTransposeB() ? 2 : 1);
  int64_t bn = b.getDimSize(getTransposeB() ? 1 : 2);
  if (bkA != bkB)
    return emitOpError() << "K of 'a' (" << bkA << ") differs from K of 'b' ("
                         << bkB << ")";
  if (acc.getShape() != ArrayRef<int64_t>{bm, bn})
    return emitOpError() << "'acc' must be [" << bm << ", " << bn
                         << "] for these tiles; got " << acc;
  if (a.getDimSize(0) != b.getDimSize(0))
    return emitOpError("'a' and 'b' must have the same number of stages");
  if (a.getElementType() != b.getElementType())
    return emitOpError("'a' and 'b' must have the same element type");
  return success();
}

LogicalResult TileAccumulateOp::verify() {
  if (failed(checkGlobal(*this, "src", memrefOf(getSrc()),
                         getIndices().size())) ||
      failed(checkAccumulator(*this, "acc", memrefOf(getAcc()))))
    return failure();
  if (!memrefOf(getSrc()).getElementType().isF32())
    return emitOpError("'src' must hold f32 partial sums");
  return success();
}

LogicalResult TileStoreOp::verify() {
  if (failed(checkAccumulator(*this, "acc", memrefOf(getAcc()))) ||
      failed(checkGlobal(*this, "dst", memrefOf(getDst()),
                         getIndices().size())))
    return failure();
  if (!memrefOf(getDst()).getElementType().isF32())
    return emitOpError("'dst' must hold f32 partial sums");
  return success();
}

LogicalResult TileEpilogueOp::verify() {
  MemRefType dst = memrefOf(getDst());
  if (failed(checkAccumulator(*this, "acc", memrefOf(getAcc()))) ||
      failed(checkGlobal(*this, "dst", dst, getIndices().size())))
    return failure();
  if (Value bias = getBias())
    if (memrefOf(bias).getRank() != 1)
      return emitOpError("'bias' must be one value per output column (rank 1)");
  if (Value residual = getResidual())
    if (memrefOf(residual).getShape() != dst.getShape())
      return emitOpError("'residual' must have the shape of 'dst'");
  return success();
}

LogicalResult TilePipelineOp::verify() {
  int64_t stages = getStages(); // stored signed; the getter is unsigned
  if (stages < 1)
    return emitOpError() << "'stages' is " << stages
                         << "; expected at least 1";
  for (Region *region : {&getLoad(), &getCompute()}) {
    Block &block = region->front();
    if (block.getNumArguments() != 2 ||
        !llvm::all_of(block.getArgumentTypes(),
                      [](Type t) { return t.isIndex(); }))
      return emitOpError("each region takes two index arguments (k, stage)");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Attention steps
//===----------------------------------------------------------------------===//

namespace {
/// Running statistics: a static [2, rows] f32 memref.
LogicalResult checkStats(Operation *op, MemRefType t, int64_t rows) {
  if (t.getRank() != 2 || !t.hasStaticShape() || t.getDimSize(0) != 2 ||
      !t.getElementType().isF32() || (rows >= 0 && t.getDimSize(1) != rows))
    return op->emitOpError()
           << "'stats' must be a [2, " << (rows >= 0 ? std::to_string(rows)
                                                      : std::string("rows"))
           << "] f32 buffer (row max, row sum); got " << t;
  return success();
}

/// An LSE operand: f32 of the rank of `dst` less one, its leading shape.
LogicalResult checkLse(Operation *op, Value lse, MemRefType dst) {
  if (!lse)
    return success();
  MemRefType t = memrefOf(lse);
  if (!t.getElementType().isF32() || t.getRank() != dst.getRank() - 1 ||
      t.getShape() != dst.getShape().drop_back())
    return op->emitOpError() << "'lse' must be f32 of shape "
                             << "[dims of 'dst' but the last]; got " << t;
  return success();
}
} // namespace

LogicalResult TileSoftmaxInitOp::verify() {
  return checkStats(*this, memrefOf(getStats()), -1);
}

LogicalResult TileQkOp::verify() {
  MemRefType q = memrefOf(getQ()), k = memrefOf(getK()), s = memrefOf(getS());
  if (failed(checkStageBuffer(*this, "q", q)) ||
      failed(checkStageBuffer(*this, "k", k)) ||
      failed(checkAccumulator(*this, "s", s)))
    return failure();
  if (q.getDimSize(0) != 1)
    return emitOpError() << "'q' must be one tile [1, rows, head_dim]; got "
                         << q;
  if (q.getDimSize(2) != k.getDimSize(2))
    return emitOpError() << "head dim of 'q' (" << q.getDimSize(2)
                         << ") differs from head dim of 'k' ("
                         << k.getDimSize(2) << ")";
  if (q.getElementType() != k.getElementType())
    return emitOpError("'q' and 'k' must have the same element type");
  if (s.getShape() != ArrayRef<int64_t>{q.getDimSize(1), k.getDimSize(1)})
    return emitOpError() << "'s' must be [" << q.getDimSize(1) << ", "
                         << k.getDimSize(1) << "] for these tiles; got " << s;
  return success();
}

LogicalResult TileOnlineSoftmaxOp::verify() {
  MemRefType s = memrefOf(getS()), acc = memrefOf(getAcc());
  if (failed(checkAccumulator(*this, "s", s)) ||
      failed(checkAccumulator(*this, "acc", acc)) ||
      failed(checkStats(*this, memrefOf(getStats()), s.getDimSize(0))))
    return failure();
  if (acc.getDimSize(0) != s.getDimSize(0))
    return emitOpError() << "'acc' must have the " << s.getDimSize(0)
                         << " rows of 's'; got " << acc;
  if (std::optional<int64_t> seqQ = getConstantIntValue(getSeqQ()))
    if (*seqQ < 1)
      return emitOpError() << "'seq_q' is " << *seqQ
                           << "; expected at least 1";
  float scale = getScale().convertToFloat();
  if (!std::isfinite(scale) || scale == 0.0f)
    return emitOpError("'scale' must be finite and non-zero");
  for (auto [name, w] : {std::pair{"window_left", getWindowLeft()},
                         std::pair{"window_right", getWindowRight()}})
    if (w && int64_t(*w) < 0)
      return emitOpError() << "'" << name << "' is " << int64_t(*w)
                           << "; expected at least 0";
  if (bool(getAlibi()) != bool(getHead0()))
    return emitOpError("'alibi' comes with the first query head 'head0'");
  if (Value alibi = getAlibi()) {
    MemRefType t = memrefOf(alibi);
    if (t.getRank() != 1 || !t.getElementType().isF32())
      return emitOpError() << "'alibi' must be f32 slopes [query heads]; "
                              "got "
                           << t;
  }
  if (std::optional<APFloat> cap = getSoftcap()) {
    float c = cap->convertToFloat();
    if (!std::isfinite(c) || c <= 0.0f)
      return emitOpError("'softcap' must be finite and positive");
  }
  return success();
}

LogicalResult TilePvOp::verify() {
  MemRefType p = memrefOf(getP()), v = memrefOf(getV()),
             acc = memrefOf(getAcc());
  if (failed(checkAccumulator(*this, "p", p)) ||
      failed(checkStageBuffer(*this, "v", v)) ||
      failed(checkAccumulator(*this, "acc", acc)))
    return failure();
  if (p.getDimSize(1) != v.getDimSize(1))
    return emitOpError() << "'p' has " << p.getDimSize(1)
                         << " columns but the 'v' stage " << v.getDimSize(1)
                         << " rows";
  if (acc.getShape() != ArrayRef<int64_t>{p.getDimSize(0), v.getDimSize(2)})
    return emitOpError() << "'acc' must be [" << p.getDimSize(0) << ", "
                         << v.getDimSize(2) << "] for these tiles; got "
                         << acc;
  return success();
}

LogicalResult TileAttentionStoreOp::verify() {
  MemRefType acc = memrefOf(getAcc()), dst = memrefOf(getDst());
  if (failed(checkAccumulator(*this, "acc", acc)) ||
      failed(checkStats(*this, memrefOf(getStats()), acc.getDimSize(0))) ||
      failed(checkGlobal(*this, "dst", dst, getIndices().size())))
    return failure();
  if (!getLseIndices().empty()) {
    if (!getLse())
      return emitOpError("'lse_at' places an 'lse': give one");
    MemRefType t = memrefOf(getLse());
    if (!t.getElementType().isF32() ||
        int64_t(getLseIndices().size()) != t.getRank())
      return emitOpError() << "'lse_at' must index every dimension of an f32 "
                              "'lse'; got "
                           << getLseIndices().size() << " indices for " << t;
    return success();
  }
  return checkLse(*this, getLse(), dst);
}

LogicalResult TileSequenceTileOp::verify() {
  MemRefType t = memrefOf(getOffsets());
  if (t.getRank() != 1 || !t.getElementType().isInteger(32) ||
      t.getDimSize(0) < 2)
    return emitOpError() << "'offsets' must be [B + 1] i32 with B >= 1; got "
                         << t;
  if (getBlockM() < 1)
    return emitOpError() << "'block_m' is " << getBlockM()
                         << "; expected at least 1";
  return success();
}

LogicalResult TileAttentionCombineOp::verify() {
  MemRefType partial = memrefOf(getPartial()),
             partialLse = memrefOf(getPartialLse()), dst = memrefOf(getDst());
  if (failed(checkGlobal(*this, "dst", dst, getIndices().size())) ||
      failed(checkLse(*this, getLse(), dst)))
    return failure();
  if (!partial.getElementType().isF32() ||
      partial.getRank() != dst.getRank() + 1 ||
      partial.getShape().drop_front() != dst.getShape())
    return emitOpError() << "'partial' must be f32 [splits, dims of 'dst'...]; "
                            "got "
                         << partial;
  if (!partialLse.getElementType().isF32() ||
      partialLse.getRank() != dst.getRank() ||
      partialLse.getDimSize(0) != partial.getDimSize(0) ||
      partialLse.getShape().drop_front() != dst.getShape().drop_back())
    return emitOpError() << "'partial_lse' must be f32 [splits, dims of 'dst' "
                            "but the last]; got "
                         << partialLse;
  int64_t boxRows = getBoxRows(); // stored signed
  if (boxRows < 1)
    return emitOpError() << "'box_rows' is " << boxRows
                         << "; expected at least 1";
  return success();
}

//===----------------------------------------------------------------------===//
// Mixture of experts
//===----------------------------------------------------------------------===//

namespace {
/// A static memref of `rank` whose element type `ok` accepts (`what` names
/// it in the message).
LogicalResult checkMoeOperand(Operation *op, StringRef name, MemRefType t,
                              int64_t rank, bool ok, StringRef what) {
  if (t.getRank() != rank || !t.hasStaticShape() || !ok)
    return op->emitOpError() << "'" << name << "' must be a static rank-"
                             << rank << " " << what << " buffer; got " << t;
  return success();
}

bool isI32(MemRefType t) { return t.getElementType().isInteger(32); }
bool isFloat(MemRefType t) { return isa<FloatType>(t.getElementType()); }

/// `positions` / `ids` [T, k] i32 and `offsets` [E + 1] i32.
LogicalResult checkRouting(Operation *op, StringRef name, MemRefType copies,
                           MemRefType offsets) {
  if (failed(checkMoeOperand(op, name, copies, 2, isI32(copies),
                             "[T, k] i32")))
    return failure();
  if (offsets &&
      failed(checkMoeOperand(op, "offsets", offsets, 1,
                             isI32(offsets) && offsets.getDimSize(0) >= 2,
                             "[E + 1] i32 (E >= 1)")))
    return failure();
  return success();
}

LogicalResult checkPositive(Operation *op, StringRef name, int64_t v) {
  if (v < 1)
    return op->emitOpError() << "'" << name << "' is " << v
                             << "; expected at least 1";
  return success();
}
} // namespace

LogicalResult TileMoeRouteOp::verify() {
  MemRefType logits = memrefOf(getLogits()), ids = memrefOf(getIds()),
             weights = memrefOf(getWeights());
  if (failed(checkMoeOperand(*this, "logits", logits, 2, isFloat(logits),
                             "[T, E] float")) ||
      failed(checkRouting(*this, "ids", ids, nullptr)) ||
      failed(checkMoeOperand(*this, "weights", weights, 2,
                             weights.getElementType().isF32(), "[T, k] f32")))
    return failure();
  if (ids.getShape() != weights.getShape() ||
      ids.getDimSize(0) != logits.getDimSize(0))
    return emitOpError() << "'ids' and 'weights' must be [T, k] with T of "
                            "'logits'; got "
                         << ids << " and " << weights;
  int64_t experts = logits.getDimSize(1), topK = ids.getDimSize(1);
  if (topK > experts)
    return emitOpError() << "top_k (" << topK
                         << ") exceeds the experts of 'logits' (" << experts
                         << ")";
  if (Value bias = getBias()) {
    MemRefType b = memrefOf(bias);
    if (failed(checkMoeOperand(*this, "bias", b, 1,
                               b.getElementType().isF32() &&
                                   b.getDimSize(0) == experts,
                               "[E] f32")))
      return failure();
  }
  int64_t groups = int64_t(getNGroup()), kept = int64_t(getTopkGroup());
  if (groups < 1 || experts % groups != 0 || kept < 1 || kept > groups)
    return emitOpError() << "n_group (" << groups << ") must divide the "
                         << experts << " experts and topk_group (" << kept
                         << ") be in [1, n_group]";
  if (topK > kept * (experts / groups))
    return emitOpError() << "top_k (" << topK << ") exceeds the "
                         << kept * (experts / groups)
                         << " experts of the kept groups";
  return checkPositive(*this, "rows", int64_t(getRows()));
}

RouteParams TileMoeRouteOp::getRouteParams() {
  RouteParams p;
  p.topK = memrefOf(getIds()).getDimSize(1);
  p.renormalize = getRenormalize();
  p.scoring = getScoring();
  p.correctionBias = getBias();
  p.nGroup = int64_t(getNGroup());
  p.topkGroup = int64_t(getTopkGroup());
  p.routedScalingFactor = getRoutedScalingFactor().convertToFloat();
  return p;
}

LogicalResult TileMoeRankOp::verify() {
  MemRefType ids = memrefOf(getIds()), positions = memrefOf(getPositions());
  if (failed(checkRouting(*this, "ids", ids, memrefOf(getOffsets()))) ||
      failed(checkRouting(*this, "positions", positions, nullptr)))
    return failure();
  if (ids.getShape() != positions.getShape())
    return emitOpError() << "'positions' must have the shape of 'ids'; got "
                         << positions;
  return success();
}

LogicalResult TileMoeGatherOp::verify() {
  MemRefType x = memrefOf(getX()), positions = memrefOf(getPositions()),
             permuted = memrefOf(getPermuted());
  if (failed(checkMoeOperand(*this, "x", x, 2, isFloat(x), "[T, H] float")) ||
      failed(checkRouting(*this, "positions", positions,
                          memrefOf(getOffsets()))) ||
      failed(checkMoeOperand(*this, "permuted", permuted, 2,
                             permuted.getElementType() == x.getElementType(),
                             "[T * k, H] (x's element type)")))
    return failure();
  int64_t tokens = positions.getDimSize(0), k = positions.getDimSize(1);
  if (tokens != x.getDimSize(0) || permuted.getDimSize(0) != tokens * k ||
      permuted.getDimSize(1) != x.getDimSize(1))
    return emitOpError() << "expected x [T, H], positions [T, k] and "
                            "permuted [T * k, H]; got "
                         << x << ", " << positions << ", " << permuted;
  return checkPositive(*this, "copies", int64_t(getCopies()));
}

LogicalResult TileGroupTileOp::verify() {
  MemRefType offsets = memrefOf(getOffsets());
  if (failed(checkMoeOperand(*this, "offsets", offsets, 1,
                             isI32(offsets) && offsets.getDimSize(0) >= 2,
                             "[E + 1] i32 (E >= 1)")))
    return failure();
  return checkPositive(*this, "block_m", int64_t(getBlockM()));
}

LogicalResult TileGatedEpilogueOp::verify() {
  MemRefType gate = memrefOf(getGate()), up = memrefOf(getUp());
  if (failed(checkAccumulator(*this, "gate", gate)) ||
      failed(checkAccumulator(*this, "up", up)) ||
      failed(checkGlobal(*this, "dst", memrefOf(getDst()),
                         getIndices().size())))
    return failure();
  if (gate.getShape() != up.getShape())
    return emitOpError() << "'gate' and 'up' must have one shape; got " << gate
                         << " and " << up;
  return success();
}

LogicalResult TileMoeCombineOp::verify() {
  MemRefType eo = memrefOf(getExpertOut()), positions = memrefOf(getPositions()),
             weights = memrefOf(getWeights()), y = memrefOf(getY());
  if (failed(checkMoeOperand(*this, "expert_out", eo, 2, isFloat(eo),
                             "[T * k, H] float")) ||
      failed(checkRouting(*this, "positions", positions, nullptr)) ||
      failed(checkMoeOperand(*this, "weights", weights, 2, isFloat(weights),
                             "[T, k] float")) ||
      failed(checkMoeOperand(*this, "y", y, 2, isFloat(y), "[T, H] float")))
    return failure();
  int64_t tokens = positions.getDimSize(0), k = positions.getDimSize(1);
  if (weights.getShape() != positions.getShape() ||
      eo.getDimSize(0) != tokens * k || y.getDimSize(0) != tokens ||
      y.getDimSize(1) != eo.getDimSize(1))
    return emitOpError() << "expected expert_out [T * k, H], positions and "
                            "weights [T, k], y [T, H]; got "
                         << eo << ", " << positions << ", " << weights << ", "
                         << y;
  if (Value shared = getShared()) {
    MemRefType z = memrefOf(shared);
    if (failed(checkMoeOperand(*this, "shared", z, 2,
                               isFloat(z) && z.getShape() == y.getShape(),
                               "[T, H] float (y's shape)")))
      return failure();
  }
  return checkPositive(*this, "tokens", int64_t(getTokens()));
}

LogicalResult TileMoeSingleGroupOp::verify() {
  MemRefType offsets = memrefOf(getOffsets());
  if (failed(checkMoeOperand(*this, "offsets", offsets, 1,
                             isI32(offsets) && offsets.getDimSize(0) == 2,
                             "[2] i32")))
    return failure();
  return checkPositive(*this, "rows", int64_t(getRows()));
}

LogicalResult TileActQuantOp::verify() {
  MemRefType a = memrefOf(getA()), q = memrefOf(getQ()),
             scale = memrefOf(getScale());
  Type elem = a.getElementType();
  if (failed(checkMoeOperand(*this, "a", a, 2,
                             elem.isBF16() || elem.isF16() || elem.isF32(),
                             "[R, K] bf16, f16 or f32")) ||
      failed(checkMoeOperand(*this, "q", q, 2,
                             isa<Float8E4M3FNType>(q.getElementType()),
                             "[R, K] f8E4M3FN")) ||
      failed(checkMoeOperand(*this, "scale", scale, 2,
                             scale.getElementType().isF32(),
                             "[R, ceil(K / 128)] f32")))
    return failure();
  int64_t rows = a.getDimSize(0), k = a.getDimSize(1);
  if (q.getShape() != a.getShape() || scale.getDimSize(0) != rows ||
      scale.getDimSize(1) != scaleBlocks(k))
    return emitOpError() << "expected q [R, K] and scale [R, ceil(K / 128)] "
                            "for a [" << rows << ", " << k << "]; got " << q
                         << " and " << scale;
  return checkPositive(*this, "rows", int64_t(getRows()));
}

LogicalResult TileBlockScaleOp::verify() {
  MemRefType part = memrefOf(getPart()), acc = memrefOf(getAcc()),
             sa = memrefOf(getAScale()), sb = memrefOf(getBScale());
  if (failed(checkAccumulator(*this, "part", part)) ||
      failed(checkAccumulator(*this, "acc", acc)) ||
      failed(checkMoeOperand(*this, "a_scale", sa, 2,
                             sa.getElementType().isF32(), "[R, KB] f32")) ||
      failed(checkMoeOperand(*this, "b_scale", sb, 3,
                             sb.getElementType().isF32(), "[E, KB, NB] f32")))
    return failure();
  if (part.getShape() != acc.getShape())
    return emitOpError() << "'part' and 'acc' must have one shape; got "
                         << part << " and " << acc;
  if (sa.getDimSize(1) != sb.getDimSize(1))
    return emitOpError() << "'a_scale' and 'b_scale' must have the same K "
                            "blocks; got "
                         << sa << " and " << sb;
  int64_t bk = getBlockK(), bn = acc.getDimSize(1);
  if (bk <= 0 || kScaleBlock % bk != 0)
    return emitOpError() << "block_k must divide " << kScaleBlock
                         << " (a K tile inside one scale block); got " << bk;
  if (kScaleBlock % bn != 0)
    return emitOpError() << "the tile's " << bn << " columns must divide "
                         << kScaleBlock
                         << " (a tile inside one 128-column scale block)";
  if (getKTiles() <= 0 ||
      int64_t(llvm::divideCeil(getKTiles() * bk, kScaleBlock)) !=
          sa.getDimSize(1))
    return emitOpError() << "k_tiles " << getKTiles() << " of " << bk
                         << " columns do not cover the scales' "
                         << sa.getDimSize(1) << " K blocks";
  return success();
}

#define GET_OP_CLASSES
#include "dialect/KgenTileOps.cpp.inc"
