//===- CostModel.h - the analytical cost model of a gemm_config -*- C++ -*-===//
//
// How fast a gemm_config should run: what kgen-tune ranks its search space
// (passes/SearchSpace.h) by, and what kgen-select-strategy asks when no
// measurement decides. Fitted to measurements by fitMachineModel.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_PASSES_COSTMODEL_H
#define KGEN_PASSES_COSTMODEL_H

#include "dialect/KgenOps.h"

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

} // namespace mlir::kgen

#endif // KGEN_PASSES_COSTMODEL_H
