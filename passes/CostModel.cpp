//===- CostModel.cpp - the analytical cost model of a strategy ------------===//

#include "passes/CostModel.h"

#include "dialect/KgenTarget.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::kgen;

unsigned mlir::kgen::familyIndex(InstructionFamily family) {
  switch (family) {
  case InstructionFamily::simt:
    return 0;
  case InstructionFamily::mma_sync:
    return 1;
  case InstructionFamily::wgmma:
    return 2;
  }
  return 0;
}

GemmProblem GemmProblem::of(GemmOp op) {
  GemmProblem p;
  p.batch = double(op.getBatch());
  p.m = double(op.getM());
  p.n = double(op.getN());
  p.k = double(op.getK());
  p.aBytes = op.getA().getType().getElementTypeBitWidth() / 8.0;
  p.dBytes = op.getD().getType().getElementTypeBitWidth() / 8.0;
  p.f32 = op.getA().getType().getElementType().isF32();
  if (Value c = op.getC())
    p.cBytes = cast<ShapedType>(c.getType()).getElementTypeBitWidth() / 8.0;
  if (Value bias = op.getBias())
    p.biasBytes =
        cast<ShapedType>(bias.getType()).getElementTypeBitWidth() / 8.0;
  p.activation = op.getActivation() != Activation::none;
  return p;
}

GemmCost mlir::kgen::predictGemmCost(const GemmProblem &p, GemmConfigAttr c,
                                     const MachineModel &machine) {
  double m = p.m, n = p.n, k = p.k, batch = p.batch;
  double eb = p.aBytes, ob = p.dBytes;
  double flops = 2 * batch * m * n * k;

  // Share of the 16-bit tensor-core rate each family reaches at best.
  double family = 0;
  switch (c.getInstruction()) {
  case InstructionFamily::wgmma:
    family = eb == 1 ? 1.7 : 0.9; // fp8 runs at twice the 16-bit rate
    break;
  case InstructionFamily::mma_sync:
    family = p.f32 ? 0.25 : 0.6;
    break;
  case InstructionFamily::simt:
    family = 0.07;
    break;
  }
  double bm = double(c.getBlockM()), bn = double(c.getBlockN());
  double tileShare = std::pow(std::min(1.0, bm * bn / (128.0 * 256.0)), 0.2);
  // Tile rows padded to whole clusters (kgen-lower-gemm-to-tiles).
  double cluster = double(c.getClusterM());
  double tileRows = std::ceil(std::ceil(m / bm) / cluster) * cluster;
  double tiles = batch * tileRows * std::ceil(n / bn);
  double blocks = tiles * double(c.getSplitK());
  // Wave quantisation: the last wave of blocks runs on part of the SMs.
  int64_t perSm = c.getWarpSpecialized() ? 1 : 2;
  double slots = double(machine.smCount * perSm);
  double waves = std::ceil(blocks / slots);
  double quantisation = waves * slots / blocks;
  // Padding of partial tiles does work on zeros.
  double padding = std::ceil(m / bm) * bm / m * std::ceil(n / bn) * bn / n;
  // The epilogue on the CUDA cores (about 1/12 of the tensor-core rate):
  // alpha, beta C, bias, the cast; an activation's exp/tanh about 20 more.
  double epilogueFlops =
      batch * m * n * (4 + (p.activation ? 20 : 0));
  GemmCost cost;
  cost.computeMs = (flops * padding * quantisation /
                        (machine.matmulTflops * 1e12 * family * tileShare) +
                    epilogueFlops / (machine.matmulTflops * 1e12 / 12)) *
                   1e3 * machine.computeScale[familyIndex(c.getInstruction())];

  // Each tile reads its A and B strips; L2 catches most re-reads within a
  // raster group.
  double minBytes = batch * ((m * k + k * n) * eb + m * n * (ob + p.cBytes)) +
                    n * p.biasBytes;
  // A cluster loads each B tile once for its blocks (multicast).
  double tileBytes = tiles * (bm + bn / cluster) * k * eb + batch * m * n * ob;
  double l2Miss = c.getRasterGroup() > 1 ? 0.1 : 0.25;
  double bytes = minBytes + std::max(0.0, tileBytes - minBytes) * l2Miss;
  cost.memoryMs =
      bytes / (machine.copyGBps * 1e9) * 1e3 * machine.memoryScale;

  // Pipeline fill: the first stages - 1 tiles are exposed per block.
  double kTiles = std::ceil(k / double(c.getBlockK()) / double(c.getSplitK()));
  double fill = std::min(1.0, double(c.getStages() - 1) / std::max(1.0, kTiles));
  double shallow = c.getStages() < 3 ? 1.15 : 1.0;
  cost.pipeline = shallow * (1 + 0.1 * fill);
  cost.overheadMs = machine.launchUs * 1e-3;
  if (c.getSplitK() > 1) // partials written and read back, one more launch
    cost.overheadMs += double(c.getSplitK()) * batch * m * n * 4 * 2 /
                           (machine.copyGBps * 1e9) * 1e3 +
                       machine.launchUs * 1e-3;
  cost.ms = std::max(cost.computeMs, cost.memoryMs) * cost.pipeline +
            cost.overheadMs;
  return cost;
}

double mlir::kgen::predictGemmMs(GemmOp op, GemmConfigAttr c,
                                 const MachineModel &machine) {
  return predictGemmCost(GemmProblem::of(op), c, machine).ms;
}

namespace {
/// Share of the 16-bit tensor-core rate mma.sync reaches at best (the gemm
/// model's), and the CUDA cores' rate relative to the tensor cores'.
constexpr double kMmaSyncShare = 0.6;
/// wgmma's share (the gemm model's, 16-bit).
constexpr double kWgmmaShare = 0.9;
constexpr double kCudaCoreRatio = 1.0 / 12;
/// Re-reads of a tile that L2 does not catch (the gemm model's, rastered).
constexpr double kL2Miss = 0.1;
/// L2's bandwidth over the copy (HBM) bandwidth's, roughly (A100, H100).
constexpr double kL2Ratio = 3;
/// Share of the smaller of compute and memory time that does not overlap.
constexpr double kUnoverlapped = 0.1;
/// Bytes in flight per SM that keep HBM busy (about 4.3 TB/s times a
/// microsecond of latency over 132 SMs, rounded down).
constexpr double kInFlightPerSm = 24 * 1024;
} // namespace

AttentionProblem AttentionProblem::of(AttentionOp op) {
  AttentionProblem p;
  p.batch = op.getBatch();
  p.qHeads = op.getQueryHeads();
  p.kvHeads = std::max<int64_t>(1, op.getKvHeads());
  p.seqQ = op.getSeqQ();
  p.seqKv = op.getSeqKv();
  p.headDim = op.getHeadDim();
  p.elem = op.getQ().getType().getElementType();
  p.kvElem = op.getK().getType().getElementType();
  p.outBytes = op.getOut().getType().getElementTypeBitWidth() / 8.0;
  p.causal = op.getCausal();
  p.lse = bool(op.getLse());
  p.window = op.getSlidingWindow();
  p.paged = bool(op.getBlockTable());
  p.varlen = op.isVarlen();
  if (p.varlen) { // B sequences of the mean lengths (runtime values)
    p.seqQ = llvm::divideCeil(p.seqQ, p.batch);
    if (!p.paged) // (over pages: seqKv is each sequence's M * P already)
      p.seqKv = llvm::divideCeil(p.seqKv, p.batch);
  }
  return p;
}

AttentionOperands AttentionProblem::operands() const {
  AttentionOperands o;
  o.elem = elem;
  o.kvElem = kvElem ? kvElem : elem;
  o.headDim = headDim;
  o.groups = groups();
  o.seqQ = seqQ;
  o.seqKv = seqKv;
  o.paged = paged;
  o.varlen = varlen;
  return o;
}

AttentionGrid mlir::kgen::attentionGrid(const AttentionProblem &p,
                                        int64_t blockM, int64_t blockN,
                                        bool packGqa) {
  AttentionGrid g;
  int64_t sq = std::max<int64_t>(1, p.seqQ), skv = p.seqKv;
  int64_t rows = packGqa ? p.groups() * sq : sq;
  g.planes = p.batch * (packGqa ? p.kvHeads : p.qHeads);
  g.rowTiles = llvm::divideCeil(rows, blockM);
  g.keyTiles = llvm::divideCeil(skv, blockN);
  if (!p.causal) {
    g.steps = g.rowTiles * g.keyTiles;
    return g;
  }
  for (int64_t t = 0; t < g.rowTiles; ++t) {
    int64_t r0 = t * blockM, last = std::min(r0 + blockM, rows) - 1;
    // The queries of the tile's rows: every one when they span heads.
    int64_t minI = r0 % sq, maxI = last % sq;
    if (r0 / sq != last / sq) {
      minI = 0;
      maxI = sq - 1;
    }
    // Query i sits at position i + Skv - Sq and sees keys up to it.
    int64_t seen = std::clamp<int64_t>(maxI + skv - sq + 1, 0, skv);
    int64_t hi = llvm::divideCeil(seen, blockN), lo = 0;
    if (p.window)
      lo = std::max<int64_t>(0, minI + skv + 1 - (sq + *p.window)) / blockN;
    g.steps += std::max<int64_t>(0, hi - lo);
  }
  return g;
}

int64_t mlir::kgen::attentionBlocksPerSm(const AttentionConfigFields &c,
                                         const AttentionProblem &p) {
  int64_t smem = attentionSharedMemoryBytes(c, p.operands());
  int64_t bySmem = getTargetInfo(c.target).maxSharedBytesPerBlock /
                   std::max<int64_t>(1, smem);
  // A warp-specialised (wgmma) block holds its SM's registers: one per SM.
  int64_t byWarps = c.instruction == InstructionFamily::wgmma
                        ? 1
                        : 8 / std::max<int64_t>(1, c.warpsM);
  return std::max<int64_t>(1, std::min(bySmem, byWarps));
}

AttentionCost mlir::kgen::predictAttentionCost(const AttentionProblem &p,
                                               const AttentionConfigFields &c,
                                               const MachineModel &machine) {
  AttentionGrid g = attentionGrid(p, c.blockM, c.blockN, c.packGqa);
  double bm = double(c.blockM), bn = double(c.blockN);
  double dp = double(attentionTileHeadDim(p.headDim, c.instruction)),
         d = double(p.headDim);
  // Element bytes of Q, and of K and V (an e4m3 cache halves its traffic).
  double eb = double(p.operands().elemBytes());
  double kvEb = double(p.operands().kvElemBytes());
  double split = double(c.splitKv);
  // (row tile, key tile) steps of all planes; a split divides a row tile's
  // steps among its blocks without adding any.
  double steps = double(g.planes) * double(g.steps);
  double blocks = double(g.planes * g.rowTiles) * split;
  AttentionCost cost;
  if (!(blocks > 0) || !(steps > 0)) {
    cost.overheadMs = cost.ms = machine.launchUs * 1e-3;
    return cost;
  }

  // Compute: QK^T and PV on the tensor cores, the online softmax (scale,
  // mask, max, exp, sum, cast: about 8 per score) and the accumulator's
  // rescale on the CUDA cores.
  cost.flops = steps * 4 * bm * bn * dp;
  double softmaxOps = steps * bm * (8 * bn + dp);
  // mma_sync (FA2) or wgmma (FA3: AttentionLegality.h). One warp's or
  // warpgroup's softmax waits for its own GEMMs; ping-pong turns overlap
  // one warpgroup's softmax with the others' GEMMs, overlap_softmax with its
  // own previous P V.
  bool wgmma = c.instruction == InstructionFamily::wgmma;
  // FP8 wgmma (all e4m3) runs at twice the 16-bit rate; mma_sync widens
  // e4m3 operands and runs at the 16-bit one.
  bool fp8 = wgmma && p.operands().allE4m3();
  double tensorRate = machine.matmulTflops * 1e12 * (fp8 ? 2 : 1) *
                      (wgmma ? kWgmmaShare : kMmaSyncShare);
  double gemmS = cost.flops / tensorRate;
  double softmaxS =
      softmaxOps / (machine.matmulTflops * 1e12 * kCudaCoreRatio);
  double workS = c.pingPong || c.overlapSoftmax
                     ? std::max(gemmS, softmaxS) +
                           kUnoverlapped * std::min(gemmS, softmaxS)
                     : gemmS + softmaxS;
  // Waves of resident blocks: a busy SM holds `resident` blocks at once,
  // its tensor cores fed by min(1, resident warps / 4) (one warp per SM
  // sub-partition).
  double sms = double(std::max(1, machine.smCount));
  double resident =
      std::min(double(attentionBlocksPerSm(c, p)), std::ceil(blocks / sms));
  double waves = std::ceil(blocks / (resident * sms));
  double util = std::min(1.0, resident * double(c.warpsM) / 4);
  double blockS = workS * sms / blocks; // one block alone on an SM
  cost.computeMs = waves * resident * blockS / util * 1e3 *
                   machine.computeScale[familyIndex(c.instruction)];

  // Memory: Q once per split (L2 catching the re-reads), the output and
  // LSE once (with split-KV: f32 partials instead, which the combine
  // kernel reads back); K and V re-read by every row tile of a plane, L2
  // catching most re-reads.
  double heads = double(p.batch * p.qHeads), sq = double(p.seqQ);
  double qBytes = heads * sq * d * eb;
  double outBytes = heads * sq * d * p.outBytes + (p.lse ? heads * sq * 4 : 0);
  double partialBytes = split * heads * sq * (d + 1) * 4;
  double kvOnce = 2.0 * double(p.batch * p.kvHeads * p.seqKv) * d * kvEb;
  double kvReads = 2.0 * steps * bn * d * kvEb;
  double dram = qBytes * (1 + (split - 1) * kL2Miss) +
                (c.splitKv > 1 ? partialBytes : outBytes) +
                std::min(kvOnce, kvReads) +
                std::max(0.0, kvReads - kvOnce) * kL2Miss;
  // Every tile load crosses L2: the Q tiles and the K and V tiles of every
  // step (what small block_m pays for).
  double l2 = blocks * bm * d * eb + kvReads;
  cost.bytes = dram;
  // Bytes in flight: the K and V stages of the blocks running at once.
  double inFlight =
      std::min(blocks, resident * sms) * double(c.stages) * 2 * bn * d * kvEb;
  double memUtil = std::min(1.0, inFlight / (kInFlightPerSm * sms));
  double copy = machine.copyGBps * 1e9;
  cost.memoryMs = std::max(dram / memUtil, l2 / kL2Ratio) / copy * 1e3 *
                  machine.memoryScale;

  cost.pipeline = c.stages < 2 ? 1.3 : 1.0;
  // The combine kernel runs after the main one: the partials read back,
  // the output written, one more launch.
  cost.overheadMs = machine.launchUs * 1e-3;
  if (c.splitKv > 1) {
    cost.bytes += partialBytes + outBytes;
    cost.overheadMs += machine.launchUs * 1e-3 + (partialBytes + outBytes) /
                                                     copy * 1e3 *
                                                     machine.memoryScale;
  }
  // The smaller term overlaps the larger one but for a tenth of it (the
  // copies' issue slots, the softmax's wait on its tile).
  double bound = std::max(cost.computeMs, cost.memoryMs) +
                 kUnoverlapped * std::min(cost.computeMs, cost.memoryMs);
  cost.ms = bound * cost.pipeline + cost.overheadMs;
  return cost;
}

namespace {
double medianOf(SmallVector<double> v) {
  llvm::sort(v);
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
} // namespace

MachineModel mlir::kgen::fitMachineModel(ArrayRef<GemmMeasurement> measured,
                                         MachineModel start) {
  constexpr int kIterations = 8;
  constexpr double kMinScale = 0.02, kMaxScale = 50;
  MachineModel model = start;
  for (int it = 0; it < kIterations; ++it) {
    // ratios[0..2]: compute-bound measurements per family; [3]: memory.
    SmallVector<double> ratios[4];
    for (const GemmMeasurement &g : measured) {
      if (!(g.ms > 0) || !g.config)
        continue;
      GemmCost cost = predictGemmCost(g.problem, g.config, model);
      double work = (g.ms - cost.overheadMs) / cost.pipeline;
      if (!(work > 0))
        continue; // all overhead: says nothing about the rates
      unsigned f = familyIndex(g.config.getInstruction());
      if (cost.computeBound())
        ratios[f].push_back(work / (cost.computeMs / model.computeScale[f]));
      else
        ratios[3].push_back(work / (cost.memoryMs / model.memoryScale));
    }
    for (unsigned f = 0; f < 3; ++f)
      if (!ratios[f].empty())
        model.computeScale[f] =
            std::clamp(medianOf(ratios[f]), kMinScale, kMaxScale);
    if (!ratios[3].empty())
      model.memoryScale = std::clamp(medianOf(ratios[3]), kMinScale, kMaxScale);
  }
  return model;
}
