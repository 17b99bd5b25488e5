//===- CostModel.h - the analytical cost model of a strategy ----*- C++ -*-===//
//
// How fast a gemm_config or an attention_config should run: what kgen-tune
// ranks its search space (passes/SearchSpace.h) by, and what
// kgen-select-strategy asks when no measurement decides. Fitted to gemm
// measurements by fitMachineModel; the attention model reads the same
// machine rates and mma_sync scale.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_PASSES_COSTMODEL_H
#define KGEN_PASSES_COSTMODEL_H

#include "dialect/AttentionLegality.h"
#include "dialect/KgenOps.h"

#include <optional>

namespace mlir::kgen {

/// Machine rates the model predicts against: measured ceilings when known
/// (kgen-bench ceilings), else these anchors (an H200 measured through torch:
/// ~790 TFLOP/s bf16, ~4.3 TB/s device copy; see shared notes), and the
/// scales fitMachineModel learns from measurements (1: the first guesses).
struct MachineModel {
  double matmulTflops = 790;  // dense 16-bit tensor-core rate
  double copyGBps = 4300;     // bytes read + written per second / 1e9
  int smCount = 132;
  double launchUs = 3;        // per kernel launch
  /// Multiplies the compute time of each family, indexed by familyIndex.
  double computeScale[3] = {1, 1, 1};
  /// Multiplies the memory time.
  double memoryScale = 1;
};

/// 0 simt, 1 mma_sync, 2 wgmma: the index of MachineModel::computeScale.
unsigned familyIndex(InstructionFamily family);

/// What the model needs of a gemm: sizes and element widths.
struct GemmProblem {
  double batch = 1, m = 0, n = 0, k = 0;
  double aBytes = 2, dBytes = 2; // element bytes of A (and B) and of D
  bool f32 = false;              // f32 operands (SIMT or tf32)
  // The fused epilogue: residual C and bias element bytes (0: none), and
  // an activation.
  double cBytes = 0, biasBytes = 0;
  bool activation = false;
  static GemmProblem of(GemmOp op);
};

/// The model's terms for one config: time = max(compute, memory) *
/// pipeline + overhead. The epilogue counts in both: C and bias reads in
/// memory, its arithmetic (FMAs per output, more with an activation) on
/// the CUDA cores in compute.
struct GemmCost {
  double computeMs = 0; // FLOPs over the family's rate, scaled
  double memoryMs = 0;  // traffic over the copy bandwidth, scaled
  double pipeline = 1;  // exposed pipeline fill and shallow pipelines
  double overheadMs = 0; // launches and the split-K reduction
  double ms = 0;
  bool computeBound() const { return computeMs >= memoryMs; }
};

/// The predicted cost of `problem` lowered with `config`: the larger of the
/// compute time (FLOPs over the family's share of the tensor-core rate,
/// scaled by tile size and wave quantisation over the SMs) and the memory
/// time (operand traffic with the tile re-reads that L2 does not catch,
/// over the copy bandwidth), times the pipeline term, plus launches and the
/// split-K reduction.
GemmCost predictGemmCost(const GemmProblem &problem, GemmConfigAttr config,
                         const MachineModel &machine);

/// predictGemmCost(...).ms of `op`, in ms.
double predictGemmMs(GemmOp op, GemmConfigAttr config,
                     const MachineModel &machine);

/// One measured candidate: what fitMachineModel learns from.
struct GemmMeasurement {
  GemmProblem problem;
  GemmConfigAttr config;
  double ms = 0; // measured median
};

/// The model's scales fitted to `measured`, starting from `start`: each
/// measurement is attributed to the term that bounds it (compute of its
/// family, or memory); each scale becomes the median ratio of measured time
/// (less the overhead) to the unscaled term over its measurements, and the
/// attribution is redone with the new scales, a few times. A scale with no
/// measurement keeps its start value. Medians, not means: one outlier
/// (a throttled run) does not move it.
MachineModel fitMachineModel(ArrayRef<GemmMeasurement> measured,
                             MachineModel start);

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// What the attention model and heuristic read of a kgen.attention.
struct AttentionProblem {
  int64_t batch = 1, qHeads = 1, kvHeads = 1, seqQ = 1, seqKv = 1;
  int64_t headDim = 64;
  Type elem;           // Q's element type
  Type kvElem;         // K's and V's (Q's, or f8E4M3FN: an e4m3 cache)
  double outBytes = 2; // element bytes of the output
  bool causal = false, lse = false;
  bool paged = false;            // K and V in a paged cache (block_table)
  bool varlen = false; // cu_seqlens: seqQ, seqKv are the mean lengths
  std::optional<int64_t> window; // sliding_window
  static AttentionProblem of(AttentionOp op);
  int64_t groups() const { return qHeads / kvHeads; }
  /// What the legality reads.
  AttentionOperands operands() const;
};

/// The grid of an attention's main kernel for a tile shape, before the
/// split: blocks own `blockM` rows of a plane (a (b, kv head) plane of
/// G * Sq rows with pack_gqa, a (b, query head) plane of Sq rows without),
/// and step over the key tiles their rows see (kgen-lower-attention-to-
/// tiles: the causal limit of the block's last query, the window's of its
/// first).
struct AttentionGrid {
  int64_t planes = 0;   // B * Hkv (pack_gqa) or B * Hq
  int64_t rowTiles = 0; // row tiles per plane
  int64_t keyTiles = 0; // ceil(Skv / block_n): the most a row tile sees
  int64_t steps = 0;    // key tiles summed over a plane's row tiles
};
AttentionGrid attentionGrid(const AttentionProblem &problem, int64_t blockM,
                            int64_t blockN, bool packGqa);

/// Blocks of `config` resident on one SM: at most 8 warps (the register
/// file: 64K registers at the 144 to 245 registers per thread that
/// kgen/block/Attention.cuh measured), and as many as the target's shared
/// memory holds (its per-block limit standing for the SM's).
int64_t attentionBlocksPerSm(const AttentionConfigFields &config,
                             const AttentionProblem &problem);

/// The model's terms for one attention config, as GemmCost's.
struct AttentionCost {
  double flops = 0;      // tile FLOPs executed, padding included
  double bytes = 0;      // DRAM traffic
  double computeMs = 0;  // tensor-core and softmax time, scaled
  double memoryMs = 0;   // traffic over the copy bandwidth, scaled
  double pipeline = 1;   // loads not overlapped with math
  double overheadMs = 0; // launches (two with split-KV)
  double ms = 0;
};

/// A roofline prediction of `problem` lowered with `config` (mma_sync):
/// - compute: FlashAttention's 4 * D FLOPs per (query, key) pair, counted
///   on the tiles the blocks execute (rows padded to block_m, the key tiles
///   the causal mask and window leave to each row tile: about half of them
///   when causal), over the mma_sync share of the 16-bit tensor-core rate
///   (the gemm model's), plus the online softmax (about 8 operations per
///   score and the accumulator's rescale, block_m * Dp per key tile) on
///   the CUDA cores; each SM's share runs at min(1, resident warps / 4) of
///   its rate, in whole waves of resident blocks;
/// - memory: the larger of DRAM traffic over the copy bandwidth, at
///   min(1, bytes in flight / 24 KiB per SM) of it (the K and V stages of
///   the resident blocks), and every tile load over L2 (3 times the copy
///   bandwidth). DRAM: Q once per split, the output and LSE once (with
///   split-KV, f32 partials instead), K and V once per row tile of a plane
///   (re-read by every row tile, L2 catching all but the gemm model's 10%
///   of the re-reads);
/// - time = (max(compute, memory) + a tenth of the smaller) * pipeline
///   (1.3 with one stage: no copy overlaps the math) + a launch, + with
///   split-KV the combine kernel (a launch, the partials read back and the
///   output written).
AttentionCost predictAttentionCost(const AttentionProblem &problem,
                                   const AttentionConfigFields &config,
                                   const MachineModel &machine);

} // namespace mlir::kgen

#endif // KGEN_PASSES_COSTMODEL_H
