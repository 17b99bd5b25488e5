//===- GemmLegality.cpp - what each GEMM kernel family can lower ----------===//
//
// One function per family (simt, mma_sync, wgmma) after the rules every
// config obeys. Each rule cites the block-layer header whose static_assert
// states the same limit.
//
//===----------------------------------------------------------------------===//

#include "dialect/GemmLegality.h"
#include "dialect/KgenOps.h"
#include "dialect/KgenTarget.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <tuple>

using namespace mlir;
using namespace mlir::kgen;

GemmConfigFields GemmConfigFields::of(GemmConfigAttr c) {
  GemmConfigFields f;
  f.target = c.getTarget();
  f.instruction = c.getInstruction();
  f.blockM = c.getBlockM();
  f.blockN = c.getBlockN();
  f.blockK = c.getBlockK();
  f.warpsM = c.getWarpsM();
  f.warpsN = c.getWarpsN();
  f.stages = c.getStages();
  f.tma = c.getTma();
  f.warpSpecialized = c.getWarpSpecialized();
  f.clusterM = c.getClusterM();
  f.clusterN = c.getClusterN();
  f.splitK = c.getSplitK();
  f.rasterGroup = c.getRasterGroup();
  f.epilogueVector = c.getEpilogueVector();
  return f;
}

GemmOperands GemmOperands::of(GemmOp op) {
  GemmOperands o;
  RankedTensorType a = op.getA().getType(), b = op.getB().getType();
  o.elem = a.getElementType();
  o.transA = op.getTransposeA();
  o.transB = op.getTransposeB();
  o.batchedA = a.getRank() == 3;
  o.batchedB = b.getRank() == 3;
  o.rowElemsA = a.getShape().back();
  o.rowElemsB = b.getShape().back();
  std::optional<Type> acc = op.getAccType();
  o.accF16 = acc && acc->isF16();
  o.outElem = op.getD().getType().getElementType();
  if (Value c = op.getC())
    o.cElem = cast<ShapedType>(c.getType()).getElementType();
  if (Value bias = op.getBias())
    o.biasElem = cast<ShapedType>(bias.getType()).getElementType();
  return o;
}

int64_t GemmOperands::elemBytes() const {
  return std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8);
}

std::string GemmLegalityError::str() const {
  return "gemm_config '" + field + "': " + message;
}

int64_t mlir::kgen::stageBufferBytes(int64_t stages, int64_t rows,
                                     int64_t cols, int64_t elemBytes) {
  return llvm::alignTo(stages * rows * cols * elemBytes, 128);
}

int64_t mlir::kgen::gemmSharedMemoryBytes(const GemmConfigFields &c,
                                          int64_t elemBytes) {
  if (c.instruction == InstructionFamily::wgmma) // GemmSm90.cuh kSmemBytes
    return 1024 + c.stages * (c.blockM + c.blockN) * c.blockK * elemBytes +
           16 * c.stages;
  return stageBufferBytes(c.stages, c.blockM, c.blockK, elemBytes) +
         stageBufferBytes(c.stages, c.blockK, c.blockN, elemBytes);
}

namespace {
using Error = std::optional<GemmLegalityError>;

Error fail(StringRef field, const llvm::Twine &message) {
  return GemmLegalityError{field.str(), message.str()};
}

/// `value` % `unit` == 0, or the error "FIELD (VALUE) must be a multiple of
/// UNIT WHY".
Error multiple(StringRef field, int64_t value, int64_t unit, StringRef why) {
  if (value % unit == 0)
    return std::nullopt;
  return fail(field, llvm::formatv("{0} must be a multiple of {1} {2}", value,
                                   unit, why));
}

bool isFp8(Type t) { return isa<Float8E4M3FNType>(t); }

/// Registers a thread may hold with `threads` per block and at least one
/// block per SM (the emitted __launch_bounds__(threads, 1)): 64K over the
/// block, at most 255, in steps of 8.
int64_t registerCap(int64_t threads) {
  return std::min<int64_t>(255, 65536 / std::max<int64_t>(1, threads) / 8 * 8);
}

/// Registers a thread spends besides its accumulators and operand values:
/// addresses, indices, loop state (ptxas's reports of the emitted kernels
/// leave about this much).
constexpr int64_t kRegisterOverhead = 40;

/// The SIMT accumulator map (kgen/block/Gemm.cuh SimtAccMap) of a (bm, bn)
/// tile over warpsM x warpsN warps: a (TM, TN) tile per thread. The simt
/// family's main kernel and every family's split-K reduction use it.
Error checkSimtMap(StringRef what, bool reduction, int64_t bm, int64_t bn,
                   int64_t warpsM, int64_t warpsN) {
  if (Error e = multiple("block_m", bm, 4 * warpsM,
                         (llvm::Twine("(") + what +
                          ": 4 lane rows per warp row, 4 x warps_m)")
                             .str()))
    return e;
  if (Error e = multiple("block_n", bn, 16 * warpsN,
                         (llvm::Twine("(") + what +
                          ": 8 lanes of an even column count per warp "
                          "column, 16 x warps_n)")
                             .str()))
    return e;
  int64_t tm = bm / (4 * warpsM), tn = bn / (8 * warpsN);
  // The MMA loop holds a column of A and a row of B, and the epilogue's
  // activation some more (a simt f32 tile of 64 accumulators with a gelu
  // epilogue spilled at 128 registers); the reduction's loads of the
  // partials are hoisted ahead of their adds, about one register per
  // accumulator more.
  int64_t need = reduction ? 2 * tm * tn + kRegisterOverhead + 8
                           : tm * tn + tm + tn + kRegisterOverhead + 16;
  int64_t cap = registerCap(32 * warpsM * warpsN);
  if (tm * tn > 64 || need > cap)
    return fail("block_n",
                llvm::formatv("{0}x{1} over {2}x{3} warps gives the {4} {5} "
                              "accumulators per thread; at most 64, and {6} "
                              "registers with operands and addresses of at "
                              "most {7}",
                              bm, bn, warpsM, warpsN, what, tm * tn, need,
                              cap));
  return std::nullopt;
}

/// The rules of every family: value ranges, what needs Hopper, the block
/// size.
Error checkCommon(const GemmConfigFields &c) {
  std::pair<StringRef, int64_t> positives[] = {
      {"block_m", c.blockM},         {"block_n", c.blockN},
      {"block_k", c.blockK},         {"warps_m", c.warpsM},
      {"warps_n", c.warpsN},         {"stages", c.stages},
      {"cluster_m", c.clusterM},     {"cluster_n", c.clusterN},
      {"split_k", c.splitK},         {"raster_group", c.rasterGroup},
      {"epilogue_vector", c.epilogueVector}};
  for (auto [name, value] : positives)
    if (value < 1)
      return fail(name, llvm::formatv("{0}; expected at least 1", value));
  // Upper bounds that keep every product below in range and every grid
  // launchable: no tile, pipeline or split here is near them.
  std::pair<StringRef, int64_t> bounded[] = {
      {"block_m", c.blockM},   {"block_n", c.blockN}, {"block_k", c.blockK},
      {"warps_m", c.warpsM},   {"warps_n", c.warpsN}, {"stages", c.stages},
      {"split_k", c.splitK},   {"raster_group", c.rasterGroup}};
  for (auto [name, value] : bounded)
    if (value > 65535)
      return fail(name, llvm::formatv("{0}; expected at most 65535", value));
  if (!llvm::is_contained({1, 2, 4, 8, 16}, c.epilogueVector))
    return fail("epilogue_vector",
                llvm::formatv("{0}; expected 1, 2, 4, 8 or 16",
                              c.epilogueVector));
  const TargetInfo &info = getTargetInfo(c.target);
  bool hopper = c.target == Target::sm_90a;
  if (c.instruction == InstructionFamily::wgmma && !hopper)
    return fail("instruction", "wgmma needs target sm_90a; got " +
                                   info.name.str());
  if (c.tma && !hopper)
    return fail("tma", "TMA needs target sm_90a; got " + info.name.str());
  if (c.clusterM * c.clusterN > info.maxClusterSize)
    return fail("cluster_m",
                llvm::formatv("a {0}x{1} cluster has more than the {2} "
                              "blocks {3} allows",
                              c.clusterM, c.clusterN, info.maxClusterSize,
                              info.name));
  if (c.clusterN != 1)
    return fail("cluster_n", llvm::formatv("{0}; clusters run along M only "
                                           "(blocks sharing B): expected 1",
                                           c.clusterN));
  if (c.warpSpecialized && !c.tma)
    return fail("warp_specialized",
                "needs tma (the producer warpgroup issues TMA loads): "
                "expected tma = true");
  if (c.threads() > 1024)
    return fail("warps_m", llvm::formatv("{0} threads per block; at most 1024",
                                         c.threads()));
  return std::nullopt;
}

/// The cp.async stage tiles (kgen/block/Gemm.cuh load_box): each row of A's
/// (BM, BK) tile (or (BK, BM) when A is transposed) and of B's (BK, BN) (or
/// (BN, BK)) is whole 16-byte chunks.
Error checkStageRows(const GemmConfigFields &c, const GemmOperands &o) {
  int64_t bytes = o.elemBytes();
  int64_t rowA = o.transA ? c.blockM : c.blockK;
  int64_t rowB = o.transB ? c.blockK : c.blockN;
  StringRef fieldA = o.transA ? "block_m" : "block_k";
  StringRef fieldB = o.transB ? "block_k" : "block_n";
  if (rowA * bytes % 16 != 0)
    return fail(fieldA, llvm::formatv("{0} gives A's stage tile rows of {1} "
                                      "bytes; they must be a multiple of 16 "
                                      "(cp.async chunks)",
                                      rowA, rowA * bytes));
  if (rowB * bytes % 16 != 0)
    return fail(fieldB, llvm::formatv("{0} gives B's stage tile rows of {1} "
                                      "bytes; they must be a multiple of 16 "
                                      "(cp.async chunks)",
                                      rowB, rowB * bytes));
  return std::nullopt;
}

/// What the cp.async families (simt, mma_sync) share: no TMA, no producer,
/// no cluster.
Error checkCpAsync(const GemmConfigFields &c) {
  StringRef family = stringifyInstructionFamily(c.instruction);
  if (c.tma)
    return fail("tma", family + " loads with cp.async: expected tma = false");
  if (c.clusterM != 1)
    return fail("cluster_m", llvm::formatv("{0}; clusters multicast TMA loads "
                                           "(wgmma only): expected 1 for {1}",
                                           c.clusterM, family));
  return std::nullopt;
}

/// The cp.async loads of a stage (kgen/cuda/CpAsync.cuh TileLoader): each
/// thread copies its share of each operand tile's 16-byte chunks in an
/// unrolled loop; past 4 chunks per thread and tile, ptxas spills. B's stage
/// may be several tiles loaded apart (GemmOperands::bTiles).
Error checkLoads(const GemmConfigFields &c, const GemmOperands &o) {
  int64_t threads = c.threads(), bytes = o.elemBytes();
  for (auto [name, rows, cols] :
       {std::tuple<StringRef, int64_t, int64_t>{"A", c.blockM, c.blockK},
        {"B", c.blockK, c.blockN / std::max<int64_t>(1, o.bTiles)}}) {
    int64_t chunks = rows * cols * bytes / 16;
    int64_t perThread = llvm::divideCeil(chunks, threads);
    if (perThread > 4)
      return fail("block_k",
                  llvm::formatv("{0}: {1}'s {2}x{3} stage tile is {4} 16-byte "
                                "chunks, {5} per thread of {6}; at most 4",
                                c.blockK, name, rows, cols, chunks, perThread,
                                threads));
  }
  return std::nullopt;
}

/// simt: kgen/block/Gemm.cuh SimtAccMap (a 4 x 8 lane grid per warp, an even
/// number of columns per lane).
Error checkSimt(const GemmConfigFields &c, const GemmOperands *o) {
  if (Error e = checkCpAsync(c))
    return e;
  if (Error e = checkSimtMap("simt", /*reduction=*/false, c.blockM, c.blockN,
                             c.warpsM, c.warpsN))
    return e;
  if (!o)
    return std::nullopt;
  if (Error e = checkLoads(c, *o))
    return e;
  return checkStageRows(c, *o);
}

/// The registers of an mma_sync main loop: `acc` accumulators, the
/// fragments (`perStep` registers) of each of the `steps` unrolled K steps
/// of a stage, the overhead and `slack` more, within the cap of the
/// config's threads.
Error checkMmaRegisters(const GemmConfigFields &c, int64_t acc, int64_t steps,
                        int64_t perStep, int64_t slack) {
  int64_t need = acc + steps * perStep + kRegisterOverhead + slack;
  int64_t cap = registerCap(c.threads());
  if (need <= cap)
    return std::nullopt;
  return fail("block_k",
              llvm::formatv("{0}: {1} accumulators and the fragments of {2} "
                            "K steps need about {3} registers per thread; "
                            "{4} threads have {5}",
                            c.blockK, acc, steps, need, c.threads(), cap));
}

/// mma_sync: kgen/cuda/Mma.cuh WarpMma (warp tiles of whole 16 x 16
/// ldmatrix tiles, K a multiple of the instruction's, 8-bit operands
/// K-major).
Error checkMmaSync(const GemmConfigFields &c, const GemmOperands *o) {
  if (Error e = checkCpAsync(c))
    return e;
  if (Error e = multiple("block_m", c.blockM, 16 * c.warpsM,
                         "(16-row mma tiles per warp: 16 x warps_m)"))
    return e;
  if (Error e = multiple("block_n", c.blockN, 16 * c.warpsN,
                         "(16-column ldmatrix tiles per warp: 16 x warps_n)"))
    return e;
  if (Error e = multiple("block_k", c.blockK, 8, "(the smallest mma K)"))
    return e;
  int64_t wm = c.blockM / c.warpsM, wn = c.blockN / c.warpsN;
  int64_t acc = wm * wn / 32;
  if (acc > 128)
    return fail("block_n",
                llvm::formatv("{0}x{1} over {2}x{3} warps gives {4} "
                              "accumulators per thread; at most 128",
                              c.blockM, c.blockN, c.warpsM, c.warpsN, acc));
  if (!o)
    return std::nullopt;
  Type elem = o->elem;
  if (isFp8(elem) && c.target == Target::sm_80)
    return fail("instruction", "mma_sync has no f8E4M3FN form on sm_80 (it "
                               "needs sm_89+): use simt, or target sm_90a");
  if (isFp8(elem) && (o->transA || !o->transB))
    return fail("instruction", "mma_sync on f8E4M3FN needs both operands "
                               "K-major: A [M, K] and B transposed [N, K]");
  int64_t instrK = elem.isF32() ? 8 : isFp8(elem) ? 32 : 16;
  if (Error e = multiple("block_k", c.blockK, instrK,
                         llvm::formatv("(the K of one mma_sync for {0})",
                                       elem)
                             .str()))
    return e;
  // Registers: the accumulators, and the A and B fragments of every K step
  // of a stage (the steps are unrolled; m16: 4 registers, n8: 2; e4m3's
  // fragments cost about 3 times as many in ptxas's reports).
  int64_t steps = c.blockK / instrK;
  int64_t perStep = (wm / 16 * 4 + wn / 8 * 2) * (isFp8(elem) ? 3 : 1);
  if (Error e = checkMmaRegisters(c, acc, steps, perStep, /*slack=*/8))
    return e;
  if (Error e = checkLoads(c, *o))
    return e;
  return checkStageRows(c, *o);
}

/// wgmma: kgen/block/GemmSm90.cuh WgmmaPipeline (a TMA producer warpgroup,
/// 1 to 3 consumer warpgroups of 64 rows, 128-byte swizzled K rows, B tiles
/// of whole swizzle blocks, clusters multicasting B along M).
Error checkWgmma(const GemmConfigFields &c, const GemmOperands *o) {
  if (!c.tma || !c.warpSpecialized)
    return fail(c.tma ? "warp_specialized" : "tma",
                "wgmma kernels are warp-specialised TMA pipelines: expected "
                "tma = true and warp_specialized = true");
  if (c.warpsN != 1)
    return fail("warps_n", llvm::formatv("{0}; wgmma consumer warpgroups split "
                                         "M only: expected 1",
                                         c.warpsN));
  if (c.warpsM % 4 != 0 || c.warpsM < 4 || c.warpsM > 12)
    return fail("warps_m",
                llvm::formatv("{0}; wgmma runs 1 to 3 consumer warpgroups of "
                              "4 warps: expected 4, 8 or 12",
                              c.warpsM));
  int64_t consumers = c.warpsM / 4;
  if (c.blockM != 64 * consumers)
    return fail("block_m",
                llvm::formatv("{0}; {1} consumer warpgroup(s) of 64 rows "
                              "(warps_m = {2}) need block_m = {3}",
                              c.blockM, consumers, c.warpsM, 64 * consumers));
  if (c.blockN > 256)
    return fail("block_n", llvm::formatv("{0}; a wgmma's N is at most 256",
                                         c.blockN));
  if (Error e = multiple("block_n", c.blockN, 8, "(a wgmma's N step)"))
    return e;
  // Registers: ptxas compiles the whole kernel within what a thread has at
  // launch (65536 / threads: 128 with 3 consumer warpgroups; setmaxnreg
  // does not raise it), and a consumer's wgmma needs about BN / 2 + 26
  // (GemmSm90.cuh; BN 208 fails to compile there).
  if (consumers == 3 && c.blockN > 192)
    return fail("block_n",
                llvm::formatv("{0}; with 3 consumer warpgroups (128 registers "
                              "per thread at launch, BN / 2 accumulators) "
                              "block_n is at most 192",
                              c.blockN));
  if (c.stages < 2)
    return fail("stages", llvm::formatv("{0}; the wgmma pipeline needs at "
                                        "least 2 (a consumer frees a stage "
                                        "only after waiting for the next)",
                                        c.stages));
  if (c.blockN % c.clusterM != 0)
    return fail("cluster_m",
                llvm::formatv("{0} does not divide block_n ({1}): the cluster "
                              "splits the B tile",
                              c.clusterM, c.blockN));
  if (!o)
    return std::nullopt;

  Type elem = o->elem;
  bool fp8 = isFp8(elem);
  if (!elem.isBF16() && !elem.isF16() && !fp8)
    return fail("instruction",
                llvm::formatv("wgmma takes bf16, f16 or f8E4M3FN operands; "
                              "got {0}",
                              elem));
  if (fp8 && (o->transA || !o->transB))
    return fail("instruction", "wgmma on f8E4M3FN needs both operands "
                               "K-major: A [M, K] and B transposed [N, K]");
  int64_t bytes = o->elemBytes();
  if (c.blockK * bytes != 128)
    return fail("block_k", llvm::formatv("{0}; wgmma tiles have 128-byte "
                                         "swizzled K rows: expected {1} for "
                                         "{2}",
                                         c.blockK, 128 / bytes, elem));
  // MN-major B (K, N) is loaded in whole 64-column (128-byte) swizzle blocks.
  int64_t blockCols = 128 / bytes;
  if (!o->transB)
    if (Error e = multiple("block_n", c.blockN, blockCols,
                           "with an MN-major B (whole 128-byte swizzle "
                           "blocks)"))
      return e;
  if (c.clusterM > 1) {
    if (o->batchedB)
      return fail("cluster_m", llvm::formatv("{0}; a batched B is not "
                                             "multicast: expected 1",
                                             c.clusterM));
    if (o->transB && (c.blockN / c.clusterM) % 8 != 0)
      return fail("cluster_m",
                  llvm::formatv("{0} splits block_n ({1}) into bands of {2} "
                                "rows; they must be whole 8-row swizzle atoms",
                                c.clusterM, c.blockN, c.blockN / c.clusterM));
    if (!o->transB && (c.blockN / blockCols) % c.clusterM != 0)
      return fail("cluster_m",
                  llvm::formatv("{0} does not divide block_n's {1} swizzle "
                                "blocks of an MN-major B",
                                c.clusterM, c.blockN / blockCols));
  }
  return std::nullopt;
}

/// TMA reads rows whose pitch is a multiple of 16 bytes (a tensor map's
/// strides).
Error checkTmaRows(const GemmOperands &o) {
  int64_t bytes = o.elemBytes();
  for (auto [name, row] : {std::pair<StringRef, int64_t>{"a", o.rowElemsA},
                           {"b", o.rowElemsB}})
    if (row * bytes % 16 != 0)
      return fail("tma", llvm::formatv("TMA needs rows of a multiple of 16 "
                                       "bytes; '{0}' has rows of {1} bytes",
                                       name, row * bytes));
  return std::nullopt;
}
} // namespace

std::optional<GemmLegalityError>
mlir::kgen::checkWidenedE4m3MainLoop(const GemmConfigFields &c, Type elem,
                                     int64_t bTiles, int64_t accumulators) {
  if (Error e = checkCommon(c))
    return e;
  if (!isFp8(elem))
    return fail("instruction",
                llvm::formatv("the widened main loop reads f8E4M3FN tiles; "
                              "got {0}",
                              elem));
  if (c.instruction != InstructionFamily::mma_sync)
    return fail("instruction",
                llvm::formatv("{0}; the widened e4m3 main loop is mma_sync's",
                              stringifyInstructionFamily(c.instruction)));
  if (Error e = checkCpAsync(c))
    return e;
  if (c.target == Target::sm_80)
    return fail("target", "e4m3 tiles are widened by cvt.rn.f16x2.e4m3x2, "
                          "which needs sm_89+: expected target sm_90a");
  if (Error e = multiple("block_m", c.blockM, 16 * c.warpsM,
                         "(16-row mma tiles per warp: 16 x warps_m)"))
    return e;
  if (Error e = multiple("block_n", c.blockN, 16 * c.warpsN,
                         "(16-column fragment pairs per warp: 16 x warps_n)"))
    return e;
  if (Error e = multiple("block_k", c.blockK, 16,
                         "(the K of one f16 mma_sync)"))
    return e;
  // Registers: the accumulators, and the f16 fragments of every K step of a
  // stage (unrolled, as checkMmaSync counts them), plus the promotion's
  // scales and row bounds.
  int64_t wm = c.blockM / c.warpsM, wn = c.blockN / c.warpsN;
  // At most 64 accumulators: ptxas's reports (bench/moe-legality-sweep.py,
  // every accepted config compiled) put the widened loop 20 to 47
  // registers above this estimate once a thread holds 128, at 237 to 255
  // registers, two configs spilling; at 64 and fewer none spilled, the
  // highest at 247 of 255 (gated, 32x32 tiles, block_k 128, 2 warps).
  int64_t acc = accumulators * wm * wn / 32;
  if (acc > 64)
    return fail("block_n",
                llvm::formatv("{0} f32 tiles of {1}x{2} over {3}x{4} warps "
                              "give {5} accumulators per thread; at most 64 "
                              "in the widened e4m3 loop",
                              accumulators, c.blockM, c.blockN, c.warpsM,
                              c.warpsN, acc));
  int64_t perStep = wm / 16 * 4 + bTiles * (wn / 8 * 2);
  if (Error e = checkMmaRegisters(c, acc, c.blockK / 16, perStep,
                                  /*slack=*/16))
    return e;
  GemmOperands o;
  o.elem = elem;
  o.bTiles = bTiles;
  GemmConfigFields loads = c;
  loads.blockN = c.blockN * bTiles;
  if (Error e = checkLoads(loads, o))
    return e;
  if (Error e = checkStageRows(c, o))
    return e;
  int64_t smem = stageBufferBytes(c.stages, c.blockM, c.blockK, 1) +
                 bTiles * stageBufferBytes(c.stages, c.blockK, c.blockN, 1);
  const TargetInfo &info = getTargetInfo(c.target);
  if (smem > info.maxSharedBytesPerBlock)
    return fail("stages",
                llvm::formatv("{0} stages of {1}x{2} and {3} {2}x{4} e4m3 "
                              "tiles need {5} bytes of shared memory; {6} "
                              "allows {7} per block",
                              c.stages, c.blockM, c.blockK, bTiles, c.blockN,
                              smem, info.name, info.maxSharedBytesPerBlock));
  return std::nullopt;
}

std::optional<GemmLegalityError>
mlir::kgen::checkGemmLegality(const GemmConfigFields &c,
                              const GemmOperands *o) {
  if (Error e = checkCommon(c))
    return e;
  Error family;
  switch (c.instruction) {
  case InstructionFamily::simt:
    family = checkSimt(c, o);
    break;
  case InstructionFamily::mma_sync:
    family = checkMmaSync(c, o);
    break;
  case InstructionFamily::wgmma:
    family = checkWgmma(c, o);
    break;
  }
  // Split-K: the reduction kernel sums the partials with the consumer warps
  // of the config in the SIMT map (kgen-lower-gemm-to-tiles).
  if (!family && c.splitK > 1)
    family = checkSimtMap("split-K reduction", /*reduction=*/true,
                          c.blockM, c.blockN, c.warpsM,
                          c.warpsN);
  if (family || !o)
    return family;
  if (o->accF16)
    return fail("instruction",
                "acc_type f16: no kernel family accumulates in f16 (the "
                "kernels accumulate in f32); drop acc_type");
  // The epilogue (kgen/cuda/Epilogue.cuh InputLoad) reads C and the bias as
  // f32, bf16 or f16.
  for (auto [name, t] : {std::pair<StringRef, Type>{"residual 'c'", o->cElem},
                         {"'bias'", o->biasElem}})
    if (t && !t.isF32() && !t.isBF16() && !t.isF16())
      return fail("instruction",
                  llvm::formatv("the epilogue of every family reads {0} as "
                                "f32, bf16 or f16; got {1}",
                                name, t));
  if (o->outElem && isFp8(o->outElem) && c.target == Target::sm_80)
    return fail("target", "an f8E4M3FN result is rounded by "
                          "cvt.rn.satfinite.e4m3x2, which needs sm_89+: "
                          "expected target sm_90a");
  if (c.tma)
    if (Error e = checkTmaRows(*o))
      return e;
  const TargetInfo &info = getTargetInfo(c.target);
  int64_t smem = gemmSharedMemoryBytes(c, o->elemBytes());
  if (smem > info.maxSharedBytesPerBlock)
    return fail("stages",
                llvm::formatv("{0} stages of {1}x{2} and {2}x{3} tiles need "
                              "{4} bytes of shared memory; {5} allows {6} per "
                              "block",
                              c.stages, c.blockM, c.blockK, c.blockN, smem,
                              info.name, info.maxSharedBytesPerBlock));
  return std::nullopt;
}
