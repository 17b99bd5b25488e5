//===- EmitCuda.cpp - tile-level kernels -> CUDA C++ ----------------------===//
//
// Prints a kgen.kernel as one CUDA C++ kernel that reads like hand-written
// code: the parameters named as in the op (A, B, bias, C, D), the block's
// index arithmetic as named constants, the shared-memory stage buffers and
// the accumulator with their shapes in comments, and each tile op as a call
// of the block-level primitives in codegen/include/kgen/block/Gemm.cuh with
// the tile sizes as template arguments. The kgen.tile.pipeline prints as
// the cp.async prologue and steady state whose order the CPU check runs.
//
// Families, each with its pipeline printer: simt and mma_sync
// (kgen/block/Gemm.cuh: cp.async stages printed as loops,
// PrintCpAsyncPipeline.cpp) and wgmma (kgen/block/GemmSm90.cuh: the pipeline
// becomes one call of a warp-specialised TMA + wgmma mainloop, the kernel
// takes a CUtensorMap per operand, PrintWgmmaPipeline.cpp). What a family
// lowers is its legality's answer (dialect/GemmLegality.h), asked once per
// kernel; the printers have no rules of their own. Package assembly is in
// AssemblePackage.cpp.
//
//===----------------------------------------------------------------------===//

#include "codegen/emit/KernelPrinter.h"
#include "dialect/AttentionLegality.h"
#include "dialect/GemmLegality.h"
#include "dialect/GroupedGemmLegality.h"

#include "kgen/runtime/Package.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::kgen;
using namespace mlir::kgen::detail;
namespace rt = ::kgen::rt;

std::string mlir::kgen::detail::typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream(s) << t;
  return s;
}

std::string mlir::kgen::detail::cudaType(Type t) {
  std::optional<rt::ElemType> e = rt::parseElemType(typeName(t));
  return e ? rt::cudaTypeName(*e) : "";
}

std::string mlir::kgen::detail::shapeComment(ArrayRef<int64_t> shape) {
  std::string s = "(";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + std::to_string(d);
  return s + ")";
}

bool mlir::kgen::detail::hasPipelineIn(KernelOp kernel) {
  return !kernel.getBody().front().getOps<TilePipelineOp>().empty();
}

const char *mlir::kgen::detail::activationName(Activation act) {
  switch (act) {
  case Activation::none:
    return "kgen::cuda::Act::None";
  case Activation::relu:
    return "kgen::cuda::Act::Relu";
  case Activation::gelu:
    return "kgen::cuda::Act::GeluTanh";
  case Activation::silu:
    return "kgen::cuda::Act::Silu";
  }
  return "";
}


std::string mlir::kgen::detail::floatLiteral(float v) {
  std::string s = llvm::formatv("{0:e9}", v).str();
  return s + "f";
}

KernelPrinter::KernelPrinter(KernelOp kernel, llvm::raw_ostream &os,
                             EmittedKernel &info)
    : kernel(kernel),
      config(dyn_cast_or_null<GemmConfigAttr>(kernel.getConfigAttr())),
      attention(dyn_cast_or_null<AttentionConfigAttr>(kernel.getConfigAttr())),
      grouped(dyn_cast_or_null<GroupedGemmConfigAttr>(kernel.getConfigAttr())),
      os(os), info(info) {
  // A grouped GEMM block runs the main loop of the equivalent gemm
  // (dialect/GroupedGemmLegality.h): its accumulators and pipeline print
  // from that config.
  if (grouped) {
    bool wgmma = grouped.getInstruction() == InstructionFamily::wgmma;
    config = GemmConfigAttr::get(
        kernel.getContext(), grouped.getTarget(), grouped.getInstruction(),
        grouped.getBlockM(), grouped.getBlockN(), grouped.getBlockK(),
        grouped.getWarpsM(), grouped.getWarpsN(), grouped.getStages(),
        /*tma=*/wgmma, /*warp_specialized=*/wgmma, /*cluster_m=*/1,
        /*cluster_n=*/1, /*split_k=*/1, /*raster_group=*/1,
        /*epilogue_vector=*/1, grouped.getSource(), grouped.getEntry());
  }
}

std::string KernelPrinter::matrixBase(Value mem, ValueRange indices) {
  // The leading indices pick the matrix; the last two address inside it.
  return elementBase(mem, indices.drop_back(2), 0);
}

LogicalResult KernelPrinter::printAlloca(memref::AllocaOp op) {
  MemRefType t = op.getType();
  auto space = dyn_cast_or_null<IntegerAttr>(t.getMemorySpace());
  std::string elem = cudaType(t.getElementType());
  std::string var = varFor(op.getResult());
  names[op.getResult()] = var;
  if (space && space.getInt() == kSharedSpace && t.getRank() == 3 &&
      usesWgmma()) {
    line() << "// " << shapeComment(t.getShape())
           << " stage buffer: owned by the wgmma pipeline (TMA layout)\n";
    return success();
  }
  if (space && space.getInt() == kSharedSpace && t.getRank() == 3) {
    int64_t bytes = t.getNumElements() * (t.getElementTypeBitWidth() / 8);
    line() << "// " << shapeComment(t.getShape())
           << " stage buffer: stages x rows x cols, in shared memory\n";
    line() << elem << " *" << var << " = reinterpret_cast<" << elem
           << " *>(smem + " << smemOffset << ");\n";
    smemOffset += (bytes + 127) / 128 * 128;
    stageBufferTerms.push_back(llvm::formatv(
        "kgen::block::stage_buffer_bytes<{0}>({1}, {2}, {3})", elem,
        t.getDimSize(0), t.getDimSize(1), t.getDimSize(2)));
    return success();
  }
  if (space && space.getInt() == kRegisterSpace && t.getRank() == 2 &&
      attention)
    return printAttentionRegisters(op);
  if (space && space.getInt() == kRegisterSpace && t.getRank() == 2) {
    line() << "// " << shapeComment(t.getShape())
           << " f32 accumulator, distributed over the warps' registers\n";
    if (usesWgmma()) {
      line() << "kgen::block::WgmmaAccumulator<" << t.getDimSize(1) << "> "
             << var << "; // 64 rows per consumer warpgroup\n";
      return success();
    }
    // A split-K reduction of a wgmma gemm only adds and stores: SIMT layout.
    std::string family =
        config.getInstruction() == InstructionFamily::mma_sync ? "MmaSync"
                                                               : "Simt";
    line() << "kgen::block::" << family << "Accumulator<" << t.getDimSize(0)
           << ", " << t.getDimSize(1) << ", " << config.getWarpsM() << ", "
           << config.getWarpsN() << "> " << var << ";\n";
    return success();
  }
  return op.emitOpError("the CUDA emitter expects stage buffers (memory "
                        "space 3, rank 3) or accumulators (space 5, rank 2)");
}

LogicalResult KernelPrinter::printBox(Operation *op, StringRef call, Value acc,
                                      Value mem, ValueRange indices,
                                      Value rows, Value cols,
                                      StringRef extra) {
  auto t = cast<MemRefType>(mem.getType());
  size_t r = indices.size();
  line() << consumerGuard() << name(acc) << "." << call << "("
         << matrixBase(mem, indices)
         << ", " << t.getShape().back() << ", " << name(indices[r - 2])
         << ", " << name(indices[r - 1]) << ", " << name(rows) << ", "
         << name(cols) << extra << ");\n";
  return success();
}

LogicalResult KernelPrinter::printPipeline(TilePipelineOp op) {
  return usesWgmma() ? printWgmmaPipeline(op) : printCpAsyncPipeline(op);
}

LogicalResult KernelPrinter::printOp(Operation *op) {
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](arith::ConstantIndexOp c) -> LogicalResult {
        names[c.getResult()] = std::to_string(c.value());
        return success();
      })
      .Case<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::DivUIOp,
            arith::RemUIOp>([&](auto o) -> LogicalResult {
        StringRef sym = llvm::TypeSwitch<Operation *, StringRef>(op)
                            .Case([](arith::AddIOp) { return "+"; })
                            .Case([](arith::SubIOp) { return "-"; })
                            .Case([](arith::MulIOp) { return "*"; })
                            .Case([](arith::DivUIOp) { return "/"; })
                            .Default([](Operation *) { return "%"; });
        std::string var = varFor(o.getResult());
        line() << "const long " << var << " = " << name(o.getLhs()) << " "
               << sym << " " << name(o.getRhs()) << ";\n";
        names[o.getResult()] = var;
        return success();
      })
      .Case<arith::MinUIOp, arith::MaxUIOp, arith::MinSIOp, arith::MaxSIOp>(
          [&](auto o) -> LogicalResult {
            bool isMin = isa<arith::MinUIOp, arith::MinSIOp>(op);
            std::string var = varFor(o.getResult());
            line() << "const long " << var << " = kgen::block::"
                   << (isMin ? "lmin" : "lmax") << "(" << name(o.getLhs())
                   << ", " << name(o.getRhs()) << ");\n";
            names[o.getResult()] = var;
            return success();
          })
      .Case([&](memref::AllocaOp o) { return printAlloca(o); })
      .Case([&](memref::LoadOp o) -> LogicalResult {
        // A scalar of a 1-D parameter (an attention's kv_lens[b], an f32
        // descale factor): integers as long, f32 as float.
        Type t = o.getResult().getType();
        if (o.getIndices().size() != 1 || names.lookup(o.getMemref()).empty() ||
            !(t.isInteger() || t.isF32()))
          return o.emitOpError("the CUDA emitter loads integer or f32 "
                               "scalars of 1-D parameters only");
        std::string var = varFor(o.getResult());
        line() << (t.isF32() ? "const float " : "const long ") << var
               << " = " << name(o.getMemref()) << "["
               << name(o.getIndices()[0]) << "];\n";
        names[o.getResult()] = var;
        return success();
      })
      .Case([&](arith::MulFOp o) -> LogicalResult {
        if (!o.getType().isF32())
          return o.emitOpError("the CUDA emitter multiplies f32 scalars only");
        std::string var = varFor(o.getResult());
        line() << "const float " << var << " = " << name(o.getLhs()) << " * "
               << name(o.getRhs()) << ";\n";
        names[o.getResult()] = var;
        return success();
      })
      .Case([&](memref::CollapseShapeOp o) -> LogicalResult {
        // A parameter viewed with fewer dimensions (a variable-length
        // attention's [T, H, D] tokens as [T, H * D] rows): the same
        // pointer; the ops that read it take their strides from the view.
        if (names.lookup(o.getSrc()).empty())
          return o.emitOpError("the CUDA emitter views parameters only");
        names[o.getResult()] = name(o.getSrc());
        return success();
      })
      .Case([&](arith::IndexCastOp o) -> LogicalResult {
        names[o.getResult()] = name(o.getIn()); // printed as long already
        return success();
      })
      .Case<TileSoftmaxInitOp, TileQkOp, TileOnlineSoftmaxOp, TilePvOp,
            TileAttentionStoreOp, TileAttentionCombineOp, TileWidenOp,
            TileSequenceTileOp>(
          [&](Operation *o) { return printAttentionStep(o); })
      .Case<TileMoeRouteOp, TileMoeRankOp, TileMoeGatherOp, TileGroupTileOp,
            TileGatedEpilogueOp, TileMoeCombineOp, TileMoeSingleGroupOp,
            TileActQuantOp, TileBlockScaleOp>(
          [&](Operation *o) { return printMoeStep(o); })
      .Case([&](TileZeroOp o) -> LogicalResult {
        line() << name(o.getTile()) << ".zero();\n";
        return success();
      })
      .Case([&](TileLoadOp o) -> LogicalResult {
        auto dst = cast<MemRefType>(o.getDst().getType());
        int64_t rows = dst.getDimSize(1), cols = dst.getDimSize(2);
        auto src = cast<MemRefType>(o.getSrc().getType());
        size_t r = o.getIndices().size();
        line() << "kgen::block::load_box<" << rows << ", " << cols << ", "
               << kernel.getThreads() << ">(" << name(o.getDst()) << " + "
               << name(o.getStage()) << " * " << rows * cols << ", "
               << matrixBase(o.getSrc(), o.getIndices()) << ", "
               << src.getShape().back() << ", " << name(o.getIndices()[r - 2])
               << ", " << name(o.getIndices()[r - 1]) << ", "
               << name(o.getRows()) << ", " << name(o.getCols()) << ");\n";
        return success();
      })
      .Case([&](TileLoadPagedOp o) -> LogicalResult {
        auto dst = cast<MemRefType>(o.getDst().getType());
        auto src = cast<MemRefType>(o.getSrc().getType());
        int64_t rows = dst.getDimSize(1), cols = dst.getDimSize(2);
        int64_t slots = dimOf(o.getTable(), 1);
        bool nhd = o.getNhd(); // [N, P, H, C] instead of [N, H, P, C]
        line() << "kgen::block::load_paged_box<" << rows << ", " << cols << ", "
               << kernel.getThreads() << (nhd ? ", true" : "") << ">("
               << name(o.getDst()) << " + "
               << name(o.getStage()) << " * " << rows * cols << ", "
               << name(o.getSrc()) << ", " << src.getDimSize(nhd ? 2 : 1)
               << ", " << src.getDimSize(nhd ? 1 : 2) << ", "
               << src.getDimSize(3) << ", "
               << name(o.getHead()) << ", " << name(o.getTable()) << " + "
               << name(o.getBatch()) << " * " << slots << ", "
               << name(o.getKey0()) << ", " << name(o.getRows()) << ", "
               << name(o.getCols()) << ");\n";
        return success();
      })
      .Case([&](TileMmaOp o) -> LogicalResult {
        auto a = cast<MemRefType>(o.getA().getType());
        auto b = cast<MemRefType>(o.getB().getType());
        int64_t bk = a.getDimSize(o.getTransposeA() ? 1 : 2);
        int64_t sizeA = a.getDimSize(1) * a.getDimSize(2);
        int64_t sizeB = b.getDimSize(1) * b.getDimSize(2);
        line() << name(o.getAcc()) << ".mma<" << bk << ", "
               << (o.getTransposeA() ? "true" : "false") << ", "
               << (o.getTransposeB() ? "true" : "false") << ">("
               << name(o.getA()) << " + " << name(o.getStage()) << " * "
               << sizeA << ", " << name(o.getB()) << " + "
               << name(o.getStage()) << " * " << sizeB << ");\n";
        return success();
      })
      .Case([&](TileEpilogueOp o) -> LogicalResult {
        auto dst = cast<MemRefType>(o.getDst().getType());
        std::string extra;
        auto ptr = [&](Value v, StringRef fallback) -> std::string {
          if (!v)
            return ("static_cast<const " + fallback + " *>(nullptr)").str();
          return name(v);
        };
        std::string residual = "static_cast<const " +
                               cudaType(dst.getElementType()) + " *>(nullptr)";
        if (o.getResidual())
          residual = matrixBase(o.getResidual(), o.getIndices());
        extra = ", " + ptr(o.getBias(), "float") + ", " + residual + ", " +
                floatLiteral(o.getAlpha().convertToFloat()) + ", " +
                floatLiteral(o.getBeta().convertToFloat());
        std::string call = std::string("epilogue<") +
                           activationName(o.getActivation()) + ", " +
                           (o.getBias() ? "true" : "false") + ", " +
                           (o.getResidual() ? "true" : "false") + ">";
        return printBox(op, call, o.getAcc(), o.getDst(), o.getIndices(),
                        o.getRows(), o.getCols(), extra);
      })
      .Case([&](TileStoreOp o) -> LogicalResult {
        return printBox(op, "store_f32", o.getAcc(), o.getDst(),
                        o.getIndices(), o.getRows(), o.getCols(), "");
      })
      .Case([&](TileAccumulateOp o) -> LogicalResult {
        return printBox(op, "accumulate_f32", o.getAcc(), o.getSrc(),
                        o.getIndices(), o.getRows(), o.getCols(), "");
      })
      .Case([&](TilePipelineOp o) { return printPipeline(o); })
      .Case([&](scf::ForOp o) -> LogicalResult {
        if (o.getNumRegionIterArgs() != 0)
          return o.emitOpError("the CUDA emitter prints loops without "
                               "iter_args only");
        std::string iv = fresh();
        names[o.getInductionVar()] = iv;
        line() << "for (long " << iv << " = " << name(o.getLowerBound())
               << "; " << iv << " < " << name(o.getUpperBound()) << "; " << iv
               << " += " << name(o.getStep()) << ") {\n";
        ++depth;
        LogicalResult r = printBlock(*o.getBody());
        --depth;
        line() << "}\n";
        return r;
      })
      .Case([&](scf::YieldOp) -> LogicalResult { return success(); })
      .Default([&](Operation *o) -> LogicalResult {
        return o->emitOpError("the CUDA emitter cannot print this op");
      });
}

void KernelPrinter::nameRoles(Block &body) {
  auto setRole = [&](Value v, std::string role) {
    if (v.getDefiningOp() && !roles.count(v))
      roles[v] = std::move(role);
  };
  // A gated grouped GEMM's two accumulators, before the MMAs name both acc.
  body.walk([&](TileGatedEpilogueOp op) {
    setRole(op.getGate(), "acc_gate");
    setRole(op.getUp(), "acc_up");
    size_t r = op.getIndices().size();
    setRole(op.getIndices()[r - 1], "n0");
  });
  // A block-scaled grouped GEMM's K-block partial sums, before the MMAs
  // that fill them name them acc.
  SmallVector<TileBlockScaleOp> promotions;
  body.walk([&](TileBlockScaleOp op) { promotions.push_back(op); });
  for (auto [i, op] : llvm::enumerate(promotions))
    setRole(op.getPart(), promotions.size() == 1 ? "part"
                          : i == 0               ? "part_gate"
                                                 : "part_up");
  // A tile loaded from parameter p is s<p>; when it is widened (e4m3), the
  // widened tile the MMAs read is s<p> and the loaded one s<p>_e4m3.
  llvm::DenseMap<Value, Value> widened;
  body.walk([&](TileWidenOp op) { widened[op.getSrc()] = op.getDst(); });
  auto nameLoaded = [&](Value dst, Value src) {
    if (auto view = src.getDefiningOp<memref::CollapseShapeOp>())
      src = view.getSrc();
    std::string param = names.lookup(src);
    if (param.empty())
      return;
    if (Value wide = widened.lookup(dst)) {
      setRole(wide, "s" + param);
      setRole(dst, "s" + param + "_e4m3");
    } else {
      setRole(dst, "s" + param);
    }
  };
  body.walk([&](Operation *op) {
    if (auto load = dyn_cast<TileLoadOp>(op)) {
      nameLoaded(load.getDst(), load.getSrc());
    } else if (auto paged = dyn_cast<TileLoadPagedOp>(op)) {
      nameLoaded(paged.getDst(), paged.getSrc());
    } else if (auto mma = dyn_cast<TileMmaOp>(op)) {
      setRole(mma.getAcc(), "acc");
    } else if (auto epi = dyn_cast<TileEpilogueOp>(op)) {
      size_t r = epi.getIndices().size();
      setRole(epi.getIndices()[r - 2], "m0");
      setRole(epi.getIndices()[r - 1], "n0");
      setRole(epi.getAcc(), "acc");
    } else if (auto store = dyn_cast<TileStoreOp>(op)) {
      size_t r = store.getIndices().size();
      setRole(store.getIndices()[r - 2], "m0");
      setRole(store.getIndices()[r - 1], "n0");
    } else if (auto qk = dyn_cast<TileQkOp>(op)) {
      setRole(qk.getS(), "s");
    } else if (auto init = dyn_cast<TileSoftmaxInitOp>(op)) {
      setRole(init.getStats(), "stats");
    } else if (auto pv = dyn_cast<TilePvOp>(op)) {
      setRole(pv.getAcc(), "acc");
    } else if (auto softmax = dyn_cast<TileOnlineSoftmaxOp>(op)) {
      setRole(softmax.getKvLen(), "kv_len");
    } else if (isa<TileAttentionStoreOp, TileAttentionCombineOp>(op)) {
      // (..., b, hk, r0, 0): the batch, the K/V head, the first row.
      OperandRange at = isa<TileAttentionStoreOp>(op)
                            ? cast<TileAttentionStoreOp>(op).getIndices()
                            : cast<TileAttentionCombineOp>(op).getIndices();
      size_t r = at.size();
      setRole(at[r - 2], "r0");
      if (r >= 4) {
        setRole(at[r - 4], "b");
        setRole(at[r - 3], "hk");
      }
    } else if (auto tile = dyn_cast<TileSequenceTileOp>(op)) {
      setRole(tile.getSeq(), "seq_tile");
    } else if (auto pipe = dyn_cast<TilePipelineOp>(op)) {
      setRole(pipe.getLower(), "kt_begin");
      setRole(pipe.getUpper(), "kt_end");
    }
  });
}

LogicalResult KernelPrinter::printBlock(Block &block) {
  for (Operation &op : block)
    if (failed(printOp(&op)))
      return failure();
  return success();
}

namespace {
/// The names of the parameters whose tiles the pipeline's MMA reads, A's
/// then B's (the wgmma pipeline's tensor maps, tma_<name>); empty when the
/// kernel has no such pipeline.
SmallVector<std::string> wgmmaOperandNames(Block &body,
                                           const llvm::DenseMap<Value, std::string> &names) {
  SmallVector<std::string> out;
  body.walk([&](TilePipelineOp pipe) {
    for (TileMmaOp mma : pipe.getCompute().getOps<TileMmaOp>())
      for (Value tile : {mma.getA(), mma.getB()})
        for (TileLoadOp load : pipe.getLoad().getOps<TileLoadOp>())
          if (load.getDst() == tile)
            out.push_back(names.lookup(load.getSrc()));
  });
  return out;
}

/// The parameters an attention kernel's Q, K and V tiles are loaded from,
/// in that order (the wgmma kernel's tensor maps, tma_<name>); fewer when
/// the kernel has no kgen.tile.qk and kgen.tile.pv fed by tile loads.
SmallVector<std::string>
attentionOperandNames(Block &body,
                      const llvm::DenseMap<Value, std::string> &names) {
  SmallVector<std::string> out;
  TileQkOp qk;
  TilePvOp pv;
  body.walk([&](Operation *op) {
    if (auto o = dyn_cast<TileQkOp>(op))
      qk = o;
    else if (auto o = dyn_cast<TilePvOp>(op))
      pv = o;
  });
  if (!qk || !pv)
    return out;
  for (Value tile : {qk.getQ(), qk.getK(), pv.getV()})
    body.walk([&](TileLoadOp load) {
      if (load.getDst() == tile)
        out.push_back(names.lookup(load.getSrc()));
    });
  return out;
}

/// What the legality reads of a main kernel's operands, from its tile ops:
/// the MMA's element type, transposes and accumulator, the loads' global
/// operands (batched when 3-D; their stored rows) and the epilogue's
/// residual and bias. Fails for a kernel without one MMA fed by two loads.
FailureOr<GemmOperands> operandsOf(KernelOp kernel) {
  TileMmaOp mma;
  TileEpilogueOp epilogue;
  SmallVector<TileLoadOp> loads;
  kernel.walk([&](Operation *op) {
    if (auto m = dyn_cast<TileMmaOp>(op))
      mma = m;
    else if (auto l = dyn_cast<TileLoadOp>(op))
      loads.push_back(l);
    else if (auto e = dyn_cast<TileEpilogueOp>(op))
      epilogue = e;
  });
  if (!mma)
    return failure();
  auto loadOf = [&](Value stage) -> TileLoadOp {
    for (TileLoadOp l : loads)
      if (l.getDst() == stage)
        return l;
    return {};
  };
  TileLoadOp loadA = loadOf(mma.getA()), loadB = loadOf(mma.getB());
  if (!loadA || !loadB)
    return failure();
  auto srcA = cast<MemRefType>(loadA.getSrc().getType());
  auto srcB = cast<MemRefType>(loadB.getSrc().getType());
  GemmOperands o;
  o.elem = srcA.getElementType();
  o.transA = mma.getTransposeA();
  o.transB = mma.getTransposeB();
  o.batchedA = srcA.getRank() == 3;
  o.batchedB = srcB.getRank() == 3;
  o.rowElemsA = srcA.getShape().back();
  o.rowElemsB = srcB.getShape().back();
  o.accF16 = mma.getAccF16();
  auto elemOf = [](Value v) {
    return v ? cast<MemRefType>(v.getType()).getElementType() : Type();
  };
  if (epilogue) {
    o.outElem = elemOf(epilogue.getDst());
    o.cElem = elemOf(epilogue.getResidual());
    o.biasElem = elemOf(epilogue.getBias());
  }
  return o;
}

/// What the grouped GEMM legality reads of a grouped GEMM kernel: the gemm
/// operands of its main loop, and whether its epilogue is gated.
FailureOr<GroupedGemmOperands> groupedOperandsOf(KernelOp kernel) {
  FailureOr<GemmOperands> gemm = operandsOf(kernel);
  if (failed(gemm))
    return failure();
  GroupedGemmOperands o;
  o.elem = gemm->elem;
  o.k = gemm->rowElemsA;
  o.n = gemm->rowElemsB;
  o.outElem = gemm->outElem;
  kernel.walk([&](TileGatedEpilogueOp op) {
    o.gated = true;
    o.outElem = cast<MemRefType>(op.getDst().getType()).getElementType();
  });
  kernel.walk([&](TileBlockScaleOp) { o.blockScaled = true; });
  if (!o.outElem)
    return failure();
  return o;
}

/// What the attention legality reads of a main kernel: the element type of
/// the Q tile its kgen.tile.qk reads, and the head dim of its signature (or
/// of the tiles, when hand-written without one).
FailureOr<AttentionOperands> attentionOperandsOf(KernelOp kernel) {
  TileQkOp qk;
  kernel.walk([&](TileQkOp op) { qk = op; });
  if (!qk)
    return failure();
  AttentionOperands o;
  kernel.walk([&](TileLoadPagedOp) { o.paged = true; });
  kernel.walk([&](TileSequenceTileOp) { o.varlen = true; });
  // The element type a tile was loaded as: its own, or the e4m3 it was
  // widened from.
  auto loadedAs = [&](Value tile) {
    Type t = cast<MemRefType>(tile.getType()).getElementType();
    kernel.walk([&](TileWidenOp w) {
      if (w.getDst() == tile)
        t = cast<MemRefType>(w.getSrc().getType()).getElementType();
    });
    return t;
  };
  auto q = cast<MemRefType>(qk.getQ().getType());
  o.elem = loadedAs(qk.getQ());
  o.kvElem = loadedAs(qk.getK());
  o.headDim = q.getDimSize(2);
  if (DictionaryAttr sig = kernel.getSignatureAttr())
    if (auto d = dyn_cast_or_null<IntegerAttr>(sig.get("head_dim")))
      o.headDim = d.getInt();
  return o;
}
} // namespace

LogicalResult KernelPrinter::print() {
  if (!config && !attention)
    return kernel.emitOpError("has no config: the emitter needs the family");
  // The emitter trusts the family's legality (dialect/GemmLegality.h,
  // dialect/AttentionLegality.h) and has no rules of its own: a
  // hand-written kernel gets the same answer as a kgen.gemm or a
  // kgen.attention.
  if (attention && hasPipelineIn(kernel)) {
    FailureOr<AttentionOperands> operands = attentionOperandsOf(kernel);
    if (failed(operands))
      return kernel.emitOpError("the CUDA emitter expects the pipeline's "
                                "kgen.tile.qk to read a Q tile and a K stage");
    if (std::optional<AttentionLegalityError> e = checkAttentionLegality(
            AttentionConfigFields::of(attention), &*operands))
      return kernel.emitOpError() << "config does not lower: " << e->str();
  } else if (grouped && hasPipelineIn(kernel)) {
    FailureOr<GroupedGemmOperands> operands = groupedOperandsOf(kernel);
    if (failed(operands))
      return kernel.emitOpError("the CUDA emitter expects a grouped GEMM's "
                                "pipeline to read A and B tile loads and "
                                "store through an epilogue");
    if (std::optional<GroupedGemmLegalityError> e = checkGroupedGemmLegality(
            GroupedGemmConfigFields::of(grouped), &*operands))
      return kernel.emitOpError() << "config does not lower: " << e->str();
  } else if (hasPipelineIn(kernel)) {
    FailureOr<GemmOperands> operands = operandsOf(kernel);
    if (failed(operands))
      return kernel.emitOpError("the CUDA emitter expects the pipeline's "
                                "tile MMA to read two tile loads (A, B)");
    if (std::optional<GemmLegalityError> e =
            checkGemmLegality(GemmConfigFields::of(config), &*operands))
      return kernel.emitOpError() << "config does not lower: " << e->str();
  }
  std::optional<ArrayAttr> paramNames = kernel.getParamNames();
  if (!paramNames)
    return kernel.emitOpError("has no param_names");
  // Parameters keep their names (verified C identifiers); the kernel's own
  // values are named from a fixed set, stage buffers s<param> and tensor
  // maps tma_<param>: a parameter may not take one of those.
  llvm::StringSet<> params;
  for (Attribute a : *paramNames)
    params.insert(cast<StringAttr>(a).getValue());
  static constexpr llvm::StringLiteral kOwnNames[] = {
      "bx",    "by",       "bz",     "smem", "Pipeline", "consumer",
      "load",  "read",     "stage",  "kt",   "i",        "ahead",
      "acc",   "m0",       "n0",     "kt_begin", "kt_end", "kgen",
      "s",     "stats",    "r0",     "b",    "hk",       "kv_len",
      "tile",  "acc_gate", "acc_up", "Attn", "attn", "more", "row_scale"};
  for (Attribute a : *paramNames) {
    StringRef p = cast<StringAttr>(a).getValue();
    bool fresh = p.size() > 1 && p[0] == 'v' &&
                 llvm::all_of(p.drop_front(), llvm::isDigit);
    if (llvm::is_contained(kOwnNames, p) || fresh || p.starts_with("tma_") ||
        (p.size() > 1 && p[0] == 's' && params.contains(p.drop_front())))
      return kernel.emitOpError()
             << "parameter name '" << p
             << "' is one the emitted kernel gives its own values (block "
                "coordinates, buffers, loop indices): rename the parameter";
  }

  Block &body = kernel.getBody().front();
  hasPipeline = hasPipelineIn(kernel);
  info.dynamicSmemBytes = kernel.getSmemBytes();
  names[body.getArgument(0)] = "bx";
  names[body.getArgument(1)] = "by";
  names[body.getArgument(2)] = "bz";
  size_t firstOutput = kernel.getParams().size() - kernel.getNumOutputs();

  os << "// Generated by kgen from kgen.kernel @" << kernel.getSymName()
     << ": do not edit.\n";
  if (DictionaryAttr sig = kernel.getSignatureAttr())
    os << "// op: " << sig << "\n";
  os << "// config: " << kernel.getConfigAttr() << "\n";
  os << "// grid " << shapeComment(kernel.getGrid()) << ", "
     << kernel.getThreads() << " threads, " << kernel.getSmemBytes()
     << " bytes of dynamic shared memory.\n";
  os << (usesAttentionWgmma() ? "#include \"kgen/block/AttentionSm90.cuh\"\n\n"
         : attention            ? "#include \"kgen/block/Attention.cuh\"\n\n"
         : grouped && usesWgmma()
             ? "#include \"kgen/block/GemmSm90.cuh\"\n"
               "#include \"kgen/block/Moe.cuh\"\n\n"
         : grouped     ? "#include \"kgen/block/Gemm.cuh\"\n"
                         "#include \"kgen/block/Moe.cuh\"\n\n"
         : usesWgmma() ? "#include \"kgen/block/GemmSm90.cuh\"\n\n"
                       : "#include \"kgen/block/Gemm.cuh\"\n\n");
  // At least one block per SM, as CUTLASS declares its kernels: without a
  // minimum, ptxas aims at an occupancy of its own and may spill to reach
  // it (NVRTC's code for a simt tile spilled 8 bytes at 80 registers, and
  // none at 92 with the minimum). The warp-specialised kernels need the
  // register cap this gives at entry for setmaxnreg.
  os << "extern \"C\" __global__ void __launch_bounds__("
     << kernel.getThreads() << ", 1)\n"
     << kernel.getSymName() << "(";
  for (auto [i, param] : llvm::enumerate(kernel.getParams())) {
    auto t = cast<MemRefType>(param.getType());
    std::string elem = cudaType(t.getElementType());
    if (elem.empty())
      return kernel.emitOpError() << "parameter " << i
                                  << " has no CUDA element type: " << t;
    std::string pname = cast<StringAttr>((*paramNames)[i]).str();
    names[param] = pname;
    os << (i ? ",\n    " : "") << (i < firstOutput ? "const " : "") << elem
       << " *__restrict__ " << pname << " /* " << shapeComment(t.getShape())
       << " " << typeName(t.getElementType()) << " */";
  }
  // Tensor maps of the TMA-loaded operands, built by the runtime: the wgmma
  // gemm pipeline's A and B, the wgmma attention kernel's q, k and v.
  if (usesWgmma() || usesAttentionWgmma()) {
    bool gemm = usesWgmma();
    SmallVector<std::string> mapped = gemm
                                          ? wgmmaOperandNames(body, names)
                                          : attentionOperandNames(body, names);
    if (mapped.size() != (gemm ? 2u : 3u))
      return kernel.emitOpError(
          gemm ? "the wgmma pipeline expects its MMA's A and B tiles loaded "
                 "from two parameters"
               : "the wgmma attention kernel expects Q, K and V tiles loaded "
                 "from three parameters");
    for (const std::string &operand : mapped)
      os << ",\n    const __grid_constant__ CUtensorMap tma_" << operand;
  }
  os << ") {\n";
  nameRoles(body);
  // The wgmma pipelines lay out their own shared memory.
  if (!usesWgmma() && !usesAttentionWgmma())
    line() << "extern __shared__ __align__(128) unsigned char smem[];\n";
  line() << "[[maybe_unused]] const long bx = blockIdx.x, by = blockIdx.y, "
            "bz = blockIdx.z;\n";
  if (failed(usesAttentionWgmma() ? printAttentionWgmma(body)
                                  : printBlock(body)))
    return failure();
  if (!stageBufferTerms.empty()) {
    // What the legality computed (dialect/GemmLegality.h), stated again by
    // the block layer: a disagreement fails to compile.
    line() << "static_assert(" << llvm::join(stageBufferTerms, " + ")
           << " == " << kernel.getSmemBytes()
           << ", \"dynamic shared memory of the stage buffers\");\n";
  }
  if (info.clusterM > 1) // the pipeline's alias, at the top level
    line() << "Pipeline::finish(); // the cluster's blocks leave together\n";
  os << "}\n";
  if (smemOffset > int64_t(kernel.getSmemBytes()))
    return kernel.emitOpError() << "stage buffers need " << smemOffset
                                << " bytes of shared memory; the kernel "
                                   "declares "
                                << kernel.getSmemBytes();
  return success();
}

LogicalResult mlir::kgen::emitCuda(KernelOp kernel, llvm::raw_ostream &os,
                                   EmittedKernel *info) {
  EmittedKernel scratch;
  return KernelPrinter(kernel, os, info ? *info : scratch).print();
}
