//===- AttentionLegality.cpp - what each attention kernel family lowers ---===//
//
// The rules every config obeys, then one function per family. Each rule
// cites the block-layer header whose static_assert states the same limit
// (kgen/block/Attention.cuh for mma_sync).
//
//===----------------------------------------------------------------------===//

#include "dialect/AttentionLegality.h"
#include "dialect/KgenOps.h"
#include "dialect/KgenTarget.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::kgen;

AttentionConfigFields AttentionConfigFields::of(AttentionConfigAttr c) {
  AttentionConfigFields f;
  f.target = c.getTarget();
  f.instruction = c.getInstruction();
  f.blockM = c.getBlockM();
  f.blockN = c.getBlockN();
  f.warpsM = c.getWarpsM();
  f.stages = c.getStages();
  f.consumerWarpgroups = c.getConsumerWarpgroups();
  f.pingPong = c.getPingPong();
  f.overlapSoftmax = c.getOverlapSoftmax();
  f.packGqa = c.getPackGqa();
  f.splitKv = c.getSplitKv();
  return f;
}

AttentionOperands AttentionOperands::of(AttentionOp op) {
  AttentionOperands o;
  o.elem = op.getQ().getType().getElementType();
  o.kvElem = op.getK().getType().getElementType();
  o.headDim = op.getHeadDim();
  o.groups = op.getQueryHeads() / std::max<int64_t>(1, op.getKvHeads());
  o.seqQ = op.getSeqQ();
  o.seqKv = op.getSeqKv();
  o.paged = bool(op.getBlockTable());
  o.varlen = op.isVarlen();
  return o;
}

int64_t AttentionOperands::elemBytes() const {
  return std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8);
}

int64_t AttentionOperands::kvElemBytes() const {
  Type t = kvElem ? kvElem : elem;
  return std::max<int64_t>(1, t.getIntOrFloatBitWidth() / 8);
}

bool AttentionOperands::widensQ() const {
  return isa<Float8E4M3FNType>(elem);
}

bool AttentionOperands::widensKv() const {
  return kvElem && isa<Float8E4M3FNType>(kvElem);
}

bool AttentionOperands::allE4m3() const {
  return widensQ(); // (e4m3 queries take e4m3 keys and values: the verifier)
}

Type mlir::kgen::attentionMmaElem(InstructionFamily instruction,
                                  const AttentionOperands &o) {
  if (instruction == InstructionFamily::wgmma && o.allE4m3())
    return o.elem;
  return o.computeElem();
}

Type AttentionOperands::computeElem() const {
  if (elem.isBF16() || elem.isF16())
    return elem;
  if (widensQ())
    return Float16Type::get(elem.getContext());
  return {};
}

std::string AttentionLegalityError::str() const {
  return "attention_config '" + field + "': " + message;
}

int64_t mlir::kgen::attentionTileHeadDim(int64_t headDim,
                                         InstructionFamily instruction) {
  // wgmma tiles are whole 128-byte swizzle blocks (64 columns of 2 bytes).
  return llvm::alignTo(headDim,
                       instruction == InstructionFamily::wgmma ? 64 : 16);
}

int64_t mlir::kgen::attentionSharedMemoryBytes(const AttentionConfigFields &c,
                                               const AttentionOperands &o) {
  int64_t dp = attentionTileHeadDim(o.headDim, c.instruction);
  int64_t elemBytes = o.elemBytes();
  if (c.instruction == InstructionFamily::wgmma) {
    // AttentionSm90.cuh's kSmemBytes: 1 KiB of alignment slack, the Q tile,
    // the K and V stages (whole swizzle atoms), 1 + 3 * stages mbarriers;
    // all-e4m3, a transposed V tile per stage and its `full` barrier.
    int64_t kvTiles = o.allE4m3() ? 3 : 2;
    return 1024 + (c.blockM + kvTiles * c.stages * c.blockN) * dp * elemBytes +
           8 * (1 + (kvTiles + 1) * c.stages);
  }
  auto buffer = [&](int64_t stages, int64_t rows, int64_t bytes) {
    return int64_t(llvm::alignTo(stages * rows * dp * bytes, 128));
  };
  int64_t wide = o.computeElem() ? 2 : elemBytes; // the tensor cores' type
  int64_t smem = buffer(1, c.blockM, wide) +
                 2 * buffer(c.stages, c.blockN, o.kvElemBytes());
  if (o.widensQ()) // Q's e4m3 tile, widened once into the first
    smem += buffer(1, c.blockM, 1);
  if (o.widensKv()) // one K and one V tile of the current stage, widened
    smem += 2 * buffer(1, c.blockN, wide);
  return smem;
}

namespace {
using Error = std::optional<AttentionLegalityError>;

Error fail(StringRef field, std::string message) {
  return AttentionLegalityError{field.str(), std::move(message)};
}

/// Rules of every family, for any attention.
Error checkCommon(const AttentionConfigFields &c) {
  if (c.blockM < 16 || c.blockM > 256)
    return fail("block_m", llvm::formatv("is {0}; expected 16 to 256 rows",
                                         c.blockM));
  if (c.blockN < 16 || c.blockN > 256 || c.blockN % 16 != 0)
    return fail("block_n",
                llvm::formatv("is {0}; expected a multiple of 16 (the MMA's "
                              "k for P V) from 16 to 256",
                              c.blockN));
  if (c.stages < 1 || c.stages > 8)
    return fail("stages", llvm::formatv("is {0}; expected 1 to 8", c.stages));
  if (c.splitKv < 1 || c.splitKv > 128)
    return fail("split_kv",
                llvm::formatv("is {0}; expected 1 to 128", c.splitKv));
  if (c.consumerWarpgroups < 1 || c.consumerWarpgroups > 3)
    return fail("consumer_warpgroups",
                llvm::formatv("is {0}; expected 1 to 3",
                              c.consumerWarpgroups));
  return std::nullopt;
}

/// The Q tile and the K and V stages within the target's shared memory.
Error checkSharedMemory(const AttentionConfigFields &c,
                        const AttentionOperands &o, int64_t dp) {
  const TargetInfo &info = getTargetInfo(c.target);
  int64_t smem = attentionSharedMemoryBytes(c, o);
  if (smem > info.maxSharedBytesPerBlock)
    return fail("stages",
                llvm::formatv("is {0}; the Q tile and {0} K and V stages of "
                              "{1} x {2} take {3} bytes of shared memory, "
                              "more than the {4} of {5}",
                              c.stages, c.blockN, dp, smem,
                              info.maxSharedBytesPerBlock, info.name));
  return std::nullopt;
}

/// FlashAttention-2's schedule (kgen/block/Attention.cuh): warps along M,
/// 16 rows each, S and O in mma.sync m16n8 fragments.
Error checkMmaSync(const AttentionConfigFields &c,
                   const AttentionOperands *o) {
  if (c.warpsM != 1 && c.warpsM != 2 && c.warpsM != 4 && c.warpsM != 8)
    return fail("warps_m",
                llvm::formatv("is {0}; expected 1, 2, 4 or 8", c.warpsM));
  if (c.blockM != 16 * c.warpsM)
    return fail("block_m",
                llvm::formatv("is {0}; mma_sync attention gives each of the "
                              "{1} warps 16 rows: expected {2}",
                              c.blockM, c.warpsM, 16 * c.warpsM));
  if (c.blockN > 128)
    return fail("block_n",
                llvm::formatv("is {0}; mma_sync attention keeps a warp's S "
                              "row block in registers: at most 128",
                              c.blockN));
  if (c.stages > 4)
    return fail("stages",
                llvm::formatv("is {0}; mma_sync attention takes 1 to 4",
                              c.stages));
  if (c.consumerWarpgroups != 1 || c.pingPong || c.overlapSoftmax)
    return fail(c.consumerWarpgroups != 1 ? "consumer_warpgroups"
                : c.pingPong              ? "ping_pong"
                                          : "overlap_softmax",
                "is FlashAttention-3's schedule (wgmma): with mma_sync, "
                "consumer_warpgroups = 1, ping_pong = false and "
                "overlap_softmax = false");
  if (!o)
    return std::nullopt;
  if (!o->computeElem())
    return fail("instruction", "mma_sync attention takes bf16, f16 or e4m3 "
                               "operands (m16n8k16; e4m3 widened)");
  // Variable-length sequences: one block per (sequence row tile, query
  // head), found at run time (kgen.tile.sequence_tile); the packed-GQA
  // view and split-KV's workspaces are per (batch, KV head) planes.
  if (o->varlen && (c.packGqa || c.splitKv != 1))
    return fail(c.packGqa ? "pack_gqa" : "split_kv",
                "variable-length sequences (cu_seqlens) take pack_gqa = "
                "false and split_kv = 1");
  if ((o->widensQ() || o->widensKv()) && c.target != Target::sm_90a)
    return fail("instruction",
                "e4m3 operands are widened by cvt.rn.f16x2.e4m3x2 (sm_89 "
                "and later): target sm_90a");
  int64_t dp = attentionTileHeadDim(o->headDim, c.instruction);
  // Attention.cuh: a thread holds Dp / 2 output and block_n / 2 score
  // accumulators; beyond 288 of both together ptxas spills.
  if (dp + c.blockN > 288)
    return fail("block_n",
                llvm::formatv("is {0}; with head dim {1} (tiles of {2}) a "
                              "thread would hold {3} f32 accumulators: "
                              "block_n must be at most {4}",
                              c.blockN, o->headDim, dp, (dp + c.blockN) / 2,
                              288 - dp));
  // Attention.cuh: each thread issues block_n * Dp / (256 * warps_m)
  // 16-byte copies per K and per V tile (half as many for an e4m3 cache),
  // whose addresses stay live across the key loop. Measured with ptxas (nvcc 13, sm_80 and sm_90a, every
  // mask, kv_lens; test/Codegen/attention-kernels-compile.mlir holds the
  // edges): 16 copies spill nothing up to Dp 128 (one warp, block_n 32);
  // beyond Dp 128 the output accumulator leaves less room: 14 spilled at
  // Dp 224 (one warp, block_n 16: 52 bytes; two, block_n 32: 68), 15 at
  // Dp 160 with 3 stages (two warps, block_n 48: 80), 12 spilled nowhere
  // with 2 stages. More stages cost registers too: with 3 or 4, 12 copies
  // spilled at Dp 192 and 16 at Dp 128 (one warp), 8 at Dp 256 (two
  // warps), while 8 at Dp 128 spill nowhere.
  if (c.stages > 2 && dp > 128)
    return fail("stages",
                llvm::formatv("is {0}; beyond head dim 128 (tiles of {1}) "
                              "a third K/V stage spills registers: at most 2",
                              c.stages, dp));
  // Elements of K per thread and copy: 8 of 16 bits, 16 of e4m3 (the
  // e4m3 edges: test/Codegen/attention-e4m3-compile.mlir).
  int64_t perCopy = 32 * (16 / o->kvElemBytes());
  int64_t copies = c.blockN * dp / (perCopy * c.warpsM);
  int64_t maxCopies = c.stages > 2 ? 8 : dp <= 128 ? 16 : 12;
  if (c.blockN * dp > maxCopies * perCopy * c.warpsM) {
    int64_t maxBlockN = maxCopies * perCopy * c.warpsM / dp / 16 * 16;
    std::string fix =
        maxBlockN >= 16
            ? llvm::formatv("block_n must be at most {0}", maxBlockN).str()
            : llvm::formatv("no block_n fits: block_m = 16 x warps_m with "
                            "warps_m at least {0}",
                            llvm::divideCeil(16 * dp, maxCopies * perCopy))
                  .str();
    return fail("block_n",
                llvm::formatv("is {0}; with {1} warps and head dim {2} "
                              "(tiles of {3}) a thread would issue {4} "
                              "copies per K tile, more than the {5} that "
                              "compile without spills: {6}",
                              c.blockN, c.warpsM, o->headDim, dp, copies,
                              maxCopies, fix));
  }
  return checkSharedMemory(c, *o, dp);
}
/// FlashAttention-3's schedule (kgen/block/AttentionSm90.cuh): a TMA
/// producer warpgroup, consumer warpgroups of 64 rows, S and O in wgmma
/// accumulators, P from registers.
Error checkWgmma(const AttentionConfigFields &c, const AttentionOperands *o) {
  if (c.target != Target::sm_90a)
    return fail("instruction", "wgmma needs target sm_90a");
  int64_t groups = c.consumerWarpgroups;
  if (c.blockM != 64 * groups)
    return fail("block_m",
                llvm::formatv("is {0}; wgmma attention gives each of the {1} "
                              "consumer warpgroup(s) 64 rows: expected {2}",
                              c.blockM, groups, 64 * groups));
  if (c.warpsM != 4 * groups)
    return fail("warps_m",
                llvm::formatv("is {0}; wgmma attention's consumer warps are "
                              "4 per warpgroup: expected {1}",
                              c.warpsM, 4 * groups));
  if (c.pingPong && groups < 2)
    return fail("ping_pong", "takes turns between consumer warpgroups: "
                             "consumer_warpgroups must be 2 or 3");
  // overlap_softmax holds a key tile's stage until its P V runs with the
  // next tile's QK^T: two stages at least (AttentionSm90.cuh).
  if (c.overlapSoftmax && c.stages < 2)
    return fail("stages", llvm::formatv("is {0}; overlap_softmax holds two "
                                        "stages at once: at least 2",
                                        c.stages));
  if (c.stages > 4)
    return fail("stages", llvm::formatv("is {0}; wgmma attention takes 1 to "
                                        "4",
                                        c.stages));
  if (!o)
    return std::nullopt;
  bool fp8 = o->allE4m3();
  if (!fp8 && ((!o->elem.isBF16() && !o->elem.isF16()) || o->widensKv()))
    return fail("instruction", "wgmma attention takes bf16 or f16 operands "
                               "(m64nNk16) or e4m3 Q, K and V (m64nNk32); "
                               "an e4m3 cache under 16-bit queries runs on "
                               "mma_sync, widened in shared memory");
  // FP8 (AttentionSm90.cuh): P V's B operand is V transposed in shared
  // memory into rows of block_n keys in 64-byte swizzle blocks (e4m3 wgmma
  // reads K-major operands only), and its k is 32.
  if (fp8 && c.blockN % 64 != 0)
    return fail("block_n",
                llvm::formatv("is {0}; e4m3 wgmma attention transposes V "
                              "into rows of block_n keys in 64-byte swizzle "
                              "blocks: a multiple of 64",
                              c.blockN));
  if (o->paged || o->varlen)
    return fail("instruction",
                o->paged ? "wgmma attention loads K and V as TMA boxes of "
                           "consecutive rows; a paged cache (block_table) "
                           "gathers rows page by page: use mma_sync"
                         : "wgmma attention's TMA maps are over [B, H, S, D] "
                           "planes; variable-length sequences (cu_seqlens) "
                           "run on mma_sync");
  // TMA's global row strides are multiples of 16 bytes: the op's head_dim
  // is a multiple of 8 (its verifier), 16 bytes of bf16 or f16; e4m3 rows
  // need 16 elements.
  if (fp8 && o->headDim % 16 != 0)
    return fail("instruction",
                llvm::formatv("e4m3 wgmma attention loads Q, K and V by TMA, "
                              "whose row strides are multiples of 16 bytes: "
                              "head dim {0} is not a multiple of 16 (use "
                              "mma_sync)",
                              o->headDim));
  int64_t dp = attentionTileHeadDim(o->headDim, c.instruction);
  if (dp > 256)
    return fail("instruction",
                llvm::formatv("wgmma attention's P V has N = the tile head "
                              "dim, at most 256; head dim {0} (tiles of {1})",
                              o->headDim, dp));
  // AttentionSm90.cuh: a consumer thread holds block_n / 2 score and Dp / 2
  // output accumulators and packs block_n / 4 registers of P. Measured with
  // ptxas (nvcc 13, sm_90a, causal + window + softcap, 1 and 2 stages,
  // overlap_softmax or not: the same edges compile clean with it;
  // test/Codegen/attention-wgmma-compile.mlir holds the edges): with one or
  // two consumer warpgroups 3 block_n / 4 + Dp / 2 up to 200 spills nothing
  // (Dp 64 block_n 224, Dp 128 block_n 176, Dp 256 block_n 80 and 96), 208
  // and more spill (Dp 128 block_n 192: 16 bytes; Dp 256 block_n 112: 32;
  // Dp 192 block_n 160: 272); with three (128 registers a thread) up to
  // 132 (Dp 192 block_n 48, Dp 64 block_n 128), and 136 spill (Dp 128
  // block_n 96: 16 bytes; Dp 64 block_n 144: 88).
  // FP8 (e4m3 P packs four probabilities a register, but the e4m3
  // conversions and V^T's key order cost as much) follows the same rule,
  // with 120 for three warpgroups and block_n in 64s (ptxas, nvcc 13, every
  // mask, ALiBi, kv_lens, descales, 1 to 4 stages; the edges are in
  // test/Codegen/attention-wgmma-e4m3-compile.mlir): Dp 64 block_n 256 and
  // Dp 128 block_n 192 (both 224 and 208) spill, even with one warpgroup's
  // 232 registers; Dp 64 block_n 128 on three (128) spills 16 bytes with
  // overlap_softmax.
  int64_t need = 3 * c.blockN / 4 + dp / 2;
  int64_t most = groups == 3 ? (fp8 ? 120 : 132) : 200;
  if (need > most) {
    int64_t align = fp8 ? 64 : 16; // block_n's granule
    int64_t maxBlockN =
        std::max<int64_t>(0, most - dp / 2) * 4 / 3 / align * align;
    std::string fix =
        maxBlockN >= align
            ? llvm::formatv("block_n must be at most {0}", maxBlockN).str()
            : std::string("no block_n fits: at most two consumer "
                          "warpgroups");
    return fail("block_n",
                llvm::formatv("is {0}; with head dim {1} (tiles of {2}) and "
                              "{3} consumer warpgroup(s) a thread would need "
                              "3 block_n / 4 + Dp / 2 = {4} registers of "
                              "accumulators and P, more than the {5} that "
                              "compile without spills: {6}",
                              c.blockN, o->headDim, dp, groups, need, most,
                              fix));
  }
  return checkSharedMemory(c, *o, dp);
}
} // namespace

std::optional<AttentionLegalityError>
mlir::kgen::checkAttentionLegality(const AttentionConfigFields &c,
                                   const AttentionOperands *o) {
  if (Error e = checkCommon(c))
    return e;
  switch (c.instruction) {
  case InstructionFamily::mma_sync:
    return checkMmaSync(c, o);
  case InstructionFamily::wgmma:
    return checkWgmma(c, o);
  case InstructionFamily::simt:
    return fail("instruction",
                "attention runs on the tensor cores: mma_sync or wgmma");
  }
  return std::nullopt;
}
