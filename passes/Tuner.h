//===- Tuner.h - candidate strategies and their predicted cost --*- C++ -*-===//
//
// The search space and the analytical cost model of kgen-tune: which
// gemm_configs can work for an op, and how fast each should be.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_PASSES_TUNER_H
#define KGEN_PASSES_TUNER_H

#include "dialect/KgenOps.h"

namespace mlir::kgen {

/// Machine rates the model predicts against: measured ceilings when known
/// (kgen-bench ceilings), else these anchors (an H200 measured through torch:
/// ~790 TFLOP/s bf16, ~4.3 TB/s device copy; see shared notes).
struct MachineModel {
  double matmulTflops = 790;  // dense 16-bit tensor-core rate
  double copyGBps = 4300;     // bytes read + written per second / 1e9
  int smCount = 132;
  double launchUs = 3;        // per kernel launch
};

/// Every config of the search space for `op` on `target` that the verifiers
/// accept: per instruction family available for the operands, block tiles,
/// warp grids, stages, split-K and rasterisation. Source = model.
SmallVector<GemmConfigAttr> enumerateGemmConfigs(GemmOp op, Target target);

/// Predicted time (ms) of `op` lowered with `config`: the larger of the
/// compute time (FLOPs over the family's share of the tensor-core rate,
/// scaled by tile size and wave quantisation over the SMs) and the memory
/// time (operand traffic with the tile re-reads that L2 does not catch,
/// over the copy bandwidth), plus launch and pipeline-fill terms and the
/// split-K reduction. Uncalibrated: its parameters are first guesses until
/// measurements fit them.
double predictGemmMs(GemmOp op, GemmConfigAttr config,
                     const MachineModel &machine);

} // namespace mlir::kgen

#endif // KGEN_PASSES_TUNER_H
