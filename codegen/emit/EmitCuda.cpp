//===- EmitCuda.cpp - tile-level kernels -> CUDA C++ and packages ---------===//
//
// Prints a kgen.kernel as one CUDA C++ kernel that reads like hand-written
// code: the parameters named as in the op (A, B, bias, C, D), the block's
// index arithmetic as named constants, the shared-memory stage buffers and
// the accumulator with their shapes in comments, and each tile op as a call
// of the block-level primitives in codegen/include/kgen/block/Gemm.cuh with
// the tile sizes as template arguments. The kgen.tile.pipeline prints as
// the cp.async prologue and steady state whose order the CPU check runs.
//
// Families: simt and mma_sync (kgen/block/Gemm.cuh: cp.async stages printed
// as loops), and wgmma for 16-bit operands (kgen/block/GemmSm90.cuh: the
// pipeline becomes one call of a warp-specialised TMA + wgmma mainloop, the
// kernel takes a CUtensorMap per operand). Refused with a diagnostic, for
// now: wgmma with fp8 operands, block_k != 64, warps_n != 1, batches or
// clusters.
//
//===----------------------------------------------------------------------===//

#include "codegen/emit/EmitCuda.h"
#include "codegen/emit/GemmJson.h"
#include "dialect/GemmLegality.h"

#include "kgen/runtime/Package.h"
#if KGEN_HAVE_NVRTC
#include "kgen/runtime/Nvrtc.h"
#endif

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::kgen;
namespace rt = ::kgen::rt;

namespace {
constexpr unsigned kSharedSpace = 3;
constexpr unsigned kRegisterSpace = 5;

std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream(s) << t;
  return s;
}

/// CUDA spelling of an element type (the runtime's); empty when there is
/// none.
std::string cudaType(Type t) {
  std::optional<rt::ElemType> e = rt::parseElemType(typeName(t));
  return e ? rt::cudaTypeName(*e) : "";
}

std::string shapeComment(ArrayRef<int64_t> shape) {
  std::string s = "(";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + std::to_string(d);
  return s + ")";
}

const char *activationName(Activation act) {
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

std::string floatLiteral(float v) {
  std::string s = llvm::formatv("{0:e9}", v).str();
  return s + "f";
}

/// True for a main kernel (the K-tile pipeline); false for a split-K
/// reduction.
bool hasPipelineIn(KernelOp kernel) {
  return !kernel.getBody().front().getOps<TilePipelineOp>().empty();
}

/// Prints one kernel. Values get C++ names: block coordinates bx/by/bz,
/// parameters their param_names, index values v0, v1, ..., constants inline.
class KernelPrinter {
public:
  KernelPrinter(KernelOp kernel, llvm::raw_ostream &os, EmittedKernel &info)
      : kernel(kernel), config(kernel.getConfigAttr()), os(os), info(info) {}

  LogicalResult print();

private:
  LogicalResult printBlock(Block &block);
  LogicalResult printOp(Operation *op);
  LogicalResult printPipeline(TilePipelineOp op);
  LogicalResult printWgmmaPipeline(TilePipelineOp op);
  /// The wgmma family's warp-specialised mainloop applies to kernels with a
  /// pipeline; a split-K reduction kernel of a wgmma gemm has none.
  bool usesWgmma() {
    return config.getInstruction() == InstructionFamily::wgmma && hasPipeline;
  }
  /// Prefix of statements only the consumer warpgroups run.
  const char *consumerGuard() { return usesWgmma() ? "if (consumer) " : ""; }
  LogicalResult printAlloca(memref::AllocaOp op);
  LogicalResult printBox(Operation *op, StringRef call, Value acc, Value mem,
                         ValueRange indices, Value rows, Value cols,
                         StringRef extra);

  std::string name(Value v) { return names.lookup(v); }
  /// Names the values whose role the tile ops reveal: stage buffers after
  /// the parameter they hold (sA, sB), accumulators, tile origins (m0, n0)
  /// and the K-tile range.
  void nameRoles(Block &body);
  /// A fresh C++ name for `v` from its role, or v<N>.
  std::string varFor(Value v) {
    auto it = roles.find(v);
    return it != roles.end() ? it->second : fresh();
  }
  llvm::DenseMap<Value, std::string> roles;
  llvm::raw_ostream &line() { return os.indent(2 * depth); }
  std::string fresh() { return "v" + std::to_string(nextId++); }
  /// Pointer to the 2-D matrix that `indices` (all but the last two)
  /// select in parameter `mem`, its leading dimension, and the origin.
  std::string matrixBase(Value mem, ValueRange indices);

  KernelOp kernel;
  GemmConfigAttr config;
  llvm::raw_ostream &os;
  EmittedKernel &info;
  bool hasPipeline = false;
  llvm::DenseMap<Value, std::string> names;
  int nextId = 0;
  unsigned depth = 1;
  int64_t smemOffset = 0;
};

std::string KernelPrinter::matrixBase(Value mem, ValueRange indices) {
  auto t = cast<MemRefType>(mem.getType());
  ArrayRef<int64_t> shape = t.getShape();
  std::string offset;
  int64_t stride = shape[shape.size() - 1] * shape[shape.size() - 2];
  for (int i = int(shape.size()) - 3; i >= 0; --i) {
    offset = name(indices[i]) + " * " + std::to_string(stride) +
             (offset.empty() ? "" : " + " + offset);
    stride *= shape[i];
  }
  return offset.empty() ? name(mem) : "(" + name(mem) + " + " + offset + ")";
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
    return success();
  }
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
      {"tma_" + nameA, nameA, ta ? bk : bm, rowElems, batchedA});
  info.tmaParams.push_back(
      {"tma_" + nameB, nameB, tb ? bn / cluster : bk, rowElems, batchedB});
  info.clusterM = cluster;
  return success();
}

LogicalResult KernelPrinter::printPipeline(TilePipelineOp op) {
  if (usesWgmma())
    return printWgmmaPipeline(op);
  int64_t stages = op.getStages();
  std::string lo = name(op.getLower()), hi = name(op.getUpper());
  auto printRegion = [&](Region &region, StringRef k,
                         StringRef stage) -> LogicalResult {
    Block &block = region.front();
    names[block.getArgument(0)] = k.str();
    names[block.getArgument(1)] = stage.str();
    return printBlock(block);
  };
  line() << "// K tiles [" << lo << ", " << hi << ") through " << stages
         << " stages: loads run " << stages - 1
         << " tiles ahead of the MMAs.\n";
  line() << "for (long i = 0; i < " << stages - 1 << " && " << lo
         << " + i < " << hi << "; ++i) {\n";
  ++depth;
  line() << "const long k = " << lo << " + i, stage = i;\n";
  if (failed(printRegion(op.getLoad(), "k", "stage")))
    return failure();
  line() << "kgen::block::commit_stage();\n";
  --depth;
  line() << "}\n";
  line() << "for (long k = " << lo << "; k < " << hi << "; ++k) {\n";
  ++depth;
  line() << "const long ahead = k + " << stages - 1 << ";\n";
  line() << "if (ahead < " << hi << ") {\n";
  ++depth;
  line() << "const long stage = (ahead - " << lo << ") % " << stages << ";\n";
  if (failed(printRegion(op.getLoad(), "ahead", "stage")))
    return failure();
  --depth;
  line() << "}\n";
  line() << "kgen::block::commit_stage(); // possibly empty: keeps the "
            "group count uniform\n";
  line() << "kgen::block::wait_stage<" << stages - 1
         << ">(); // tile k has landed\n";
  line() << "{\n";
  ++depth;
  line() << "const long stage = (k - " << lo << ") % " << stages << ";\n";
  if (failed(printRegion(op.getCompute(), "k", "stage")))
    return failure();
  --depth;
  line() << "}\n";
  line() << "__syncthreads(); // the stage may be refilled next\n";
  --depth;
  line() << "}\n";
  return success();
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
  body.walk([&](Operation *op) {
    if (auto load = dyn_cast<TileLoadOp>(op)) {
      std::string param = names.lookup(load.getSrc());
      if (!param.empty())
        setRole(load.getDst(), "s" + param);
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

/// What the legality reads of a main kernel's operands, from its tile ops:
/// the MMA's element type, transposes and accumulator, and the loads'
/// global operands (batched when 3-D; their stored rows). Fails for a
/// kernel without one MMA fed by two loads.
FailureOr<GemmOperands> operandsOf(KernelOp kernel) {
  TileMmaOp mma;
  SmallVector<TileLoadOp> loads;
  kernel.walk([&](Operation *op) {
    if (auto m = dyn_cast<TileMmaOp>(op))
      mma = m;
    else if (auto l = dyn_cast<TileLoadOp>(op))
      loads.push_back(l);
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
  return o;
}

LogicalResult KernelPrinter::print() {
  if (!config)
    return kernel.emitOpError("has no config: the emitter needs the family");
  // The emitter trusts the family's legality (dialect/GemmLegality.h) and
  // has no rules of its own: a hand-written kernel gets the same answer as
  // a kgen.gemm.
  if (hasPipelineIn(kernel)) {
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
  os << "// config: " << config << "\n";
  os << "// grid " << shapeComment(kernel.getGrid()) << ", "
     << kernel.getThreads() << " threads, " << kernel.getSmemBytes()
     << " bytes of dynamic shared memory.\n";
  os << (usesWgmma() ? "#include \"kgen/block/GemmSm90.cuh\"\n\n"
                     : "#include \"kgen/block/Gemm.cuh\"\n\n");
  // One block per SM for the warp-specialised kernels: setmaxnreg needs
  // the register cap this gives at entry.
  os << "extern \"C\" __global__ void __launch_bounds__("
     << kernel.getThreads() << (usesWgmma() ? ", 1" : "") << ")\n"
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
  if (usesWgmma()) // tensor maps of the operands, built by the runtime
    for (StringRef operand : {"A", "B"})
      os << ",\n    const __grid_constant__ CUtensorMap tma_" << operand;
  os << ") {\n";
  nameRoles(body);
  if (!usesWgmma()) // the wgmma pipeline lays out its own shared memory
    line() << "extern __shared__ __align__(128) unsigned char smem[];\n";
  line() << "[[maybe_unused]] const long bx = blockIdx.x, by = blockIdx.y, "
            "bz = blockIdx.z;\n";
  if (failed(printBlock(body)))
    return failure();
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

/// `source` with every `#include "kgen/..."` replaced by that header's text
/// (recursively, each header once), so a package's kernel.cu is complete:
/// its SHA-256 and the runtime's compile cache cover all the code, and the
/// GPU machine needs no include path for kgen. System includes stay.
FailureOr<std::string> inlineKgenHeaders(StringRef source,
                                         llvm::StringSet<> &seen,
                                         std::string &err) {
  std::string out;
  llvm::SmallVector<StringRef> lines;
  source.split(lines, '\n');
  for (StringRef line : lines) {
    StringRef trimmed = line.trim();
    if (!trimmed.consume_front("#include \"kgen/")) {
      out += line.str() + "\n";
      continue;
    }
    StringRef rel = trimmed.take_until([](char c) { return c == '"'; });
    std::string path = std::string(KGEN_CUDA_INCLUDE_DIR) + "/kgen/" + rel.str();
    if (!seen.insert(path).second)
      continue;
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer) {
      err = "cannot read " + path + ": " + buffer.getError().message();
      return failure();
    }
    FailureOr<std::string> body =
        inlineKgenHeaders((*buffer)->getBuffer(), seen, err);
    if (failed(body))
      return failure();
    out += "// ---- kgen/" + rel.str() + "\n" + *body;
  }
  return out;
}

/// "bf16" etc. for the manifest; fails for types the runtime cannot hold.
FailureOr<rt::ElemType> runtimeType(Type t) {
  std::optional<rt::ElemType> e = rt::parseElemType(typeName(t));
  if (!e)
    return failure();
  return *e;
}
} // namespace

LogicalResult mlir::kgen::emitCuda(KernelOp kernel, llvm::raw_ostream &os,
                                   EmittedKernel *info) {
  EmittedKernel scratch;
  return KernelPrinter(kernel, os, info ? *info : scratch).print();
}

namespace {
/// Adds `p` to the package's parameters, or checks it against the one of
/// that name another kernel already added; returns its index.
FailureOr<size_t> addParam(KernelOp kernel, rt::KernelPackage &pkg,
                           const rt::KernelParam &p) {
  std::optional<size_t> at = pkg.findParam(p.name);
  if (!at) {
    pkg.params.push_back(p);
    return pkg.params.size() - 1;
  }
  const rt::KernelParam &q = pkg.params[*at];
  if (q.kind != p.kind || q.dtype != p.dtype || q.shape != p.shape ||
      q.tmaTensor != p.tmaTensor || q.tmaBox != p.tmaBox)
    return kernel.emitOpError()
           << "parameter " << p.name
           << " differs from the one of that name in an earlier kernel of "
              "the package";
  return *at;
}
} // namespace

LogicalResult mlir::kgen::emitPackage(ArrayRef<KernelOp> kernels,
                                      StringRef dir, bool compile) {
  assert(!kernels.empty() && "a package has at least one kernel");
  KernelOp first = kernels.front();
  GemmConfigAttr config = first.getConfigAttr();
  if (!config)
    return first.emitOpError("has no config: the emitter needs the family");
  rt::KernelPackage pkg;
  pkg.name = first.getSymName().str();
  pkg.target = stringifyTarget(config.getTarget()).str();
  pkg.sourceFile = "kernel.cu";
  std::string emitted;
  llvm::raw_string_ostream os(emitted);
  // A tensor some kernel writes and a later one reads is a workspace.
  llvm::StringSet<> written;
  for (KernelOp kernel : kernels) {
    EmittedKernel info;
    if (!emitted.empty())
      os << "\n";
    if (failed(emitCuda(kernel, os, &info)))
      return failure();
    rt::PackageKernel k;
    k.entry = kernel.getSymName().str();
    ArrayRef<int64_t> grid = kernel.getGrid();
    k.launch.grid = {uint32_t(grid[0]), uint32_t(grid[1]), uint32_t(grid[2])};
    k.launch.block = {uint32_t(kernel.getThreads()), 1, 1};
    k.launch.cluster = {uint32_t(info.clusterM), 1, 1};
    k.launch.dynamicSmemBytes = uint32_t(info.dynamicSmemBytes);
    ArrayAttr paramNames = *kernel.getParamNames();
    size_t firstOutput = kernel.getParams().size() - kernel.getNumOutputs();
    for (auto [i, param] : llvm::enumerate(kernel.getParams())) {
      auto t = cast<MemRefType>(param.getType());
      FailureOr<rt::ElemType> elem = runtimeType(t.getElementType());
      if (failed(elem))
        return kernel.emitOpError() << "parameter " << i
                                    << " has no runtime element type";
      rt::KernelParam p;
      p.name = cast<StringAttr>(paramNames[i]).str();
      p.kind = rt::ParamKind::Tensor;
      p.dtype = *elem;
      p.shape.assign(t.getShape().begin(), t.getShape().end());
      bool isOutput = i >= firstOutput;
      p.role = isOutput ? rt::ParamRole::Output : rt::ParamRole::Input;
      FailureOr<size_t> index = addParam(kernel, pkg, p);
      if (failed(index))
        return failure();
      if (isOutput)
        written.insert(p.name);
      else if (written.contains(p.name))
        pkg.params[*index].role = rt::ParamRole::Workspace;
      k.args.push_back(*index);
    }
    for (const EmittedKernel::Tma &tma : info.tmaParams) {
      rt::KernelParam p;
      p.name = tma.name;
      p.kind = rt::ParamKind::TmaDescriptor;
      p.tmaTensor = tma.tensor;
      p.tmaBox = {tma.boxOuter, tma.boxInner};
      if (tma.batched) // one plane of (batch, rows, cols)
        p.tmaBox.insert(p.tmaBox.begin(), 1);
      p.tmaSwizzleBytes = 128;
      FailureOr<size_t> index = addParam(kernel, pkg, p);
      if (failed(index))
        return failure();
      k.args.push_back(*index);
    }
    pkg.kernels.push_back(std::move(k));
  }
  llvm::StringSet<> seen;
  std::string err;
  FailureOr<std::string> source = inlineKgenHeaders(emitted, seen, err);
  if (failed(source))
    return first.emitOpError() << "cannot inline the tile primitives: " << err;
  pkg.source = *source;
  // The fewest bytes the op moves: its operands once, no workspace.
  double bytes = 0;
  for (const rt::KernelParam &p : pkg.params)
    if (p.kind == rt::ParamKind::Tensor && p.role != rt::ParamRole::Workspace) {
      double count = 1;
      for (int64_t d : p.shape)
        count *= double(d);
      bytes += count * double(rt::elemTypeBytes(p.dtype));
    }
  // The op signature and the config, as JSON.
  DictionaryAttr signature = first.getSignatureAttr();
  nlohmann::json op =
      signature ? toJson(signature) : nlohmann::json::object();
  pkg.op = op;
  pkg.config = toJson(config);
  if (op.contains("m"))
    pkg.flops = 2.0 * op.value("batch", int64_t(1)) * op["m"].get<int64_t>() *
                op["n"].get<int64_t>() * op["k"].get<int64_t>();
  pkg.bytes = bytes;
#if KGEN_HAVE_NVRTC
  // The resource report of ptxas for the target: registers, shared memory,
  // stack and spills of every kernel, what performance checks read before
  // any GPU run.
  if (compile) {
    rt::CompileOptions options;
    options.arch = pkg.target;
    rt::CompileResult compiled;
    if (!rt::compilePackage(pkg, options, compiled, err))
      return first.emitOpError() << "the emitted CUDA does not compile with "
                                    "NVRTC for "
                                 << pkg.target << ":\n" << err;
    for (auto [k, usage] : llvm::zip(pkg.kernels, compiled.perKernel))
      k.resources = usage;
  }
#else
  (void)compile;
#endif
  if (!rt::writePackage(dir.str(), pkg, err))
    return first.emitOpError() << "cannot write the package: " << err;
  return success();
}
