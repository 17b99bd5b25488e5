//===- CostModelFile.h - a fitted cost model on disk ------------*- C++ -*-===//
//
// The machine rates and fitted scales of the cost model (passes/CostModel.h) as
// JSON, so that a fit from one database ranks the candidates of the next
// search:
//   {"schema": "kgen.cost-model", "version": 1, "matmul_tflops": 790,
//    "copy_gbps": 4300, "sm_count": 132, "launch_us": 3,
//    "compute_scale": {"simt": 1, "mma_sync": 1, "wgmma": 1},
//    "memory_scale": 1, "fitted_on": 42}
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_PASSES_COSTMODELFILE_H
#define KGEN_PASSES_COSTMODELFILE_H

#include "passes/CostModel.h"

#include <string>

namespace mlir::kgen {

/// The largest SM count a model may hold (an H200 has 132).
constexpr int kMaxCostModelSmCount = 4096;

/// Whether every value of `model` is one a GPU can have: matmul_tflops in
/// (0, 1e5], copy_gbps in (0, 1e6], sm_count an integer in [1, 4096],
/// launch_us in (0, 1e4], each scale in [1e-3, 1e3] (finite, all of them).
/// False with "<field>: <why>".
bool checkCostModel(const mlir::kgen::MachineModel &model, std::string &err);

/// Writes `model` (fitted on `fittedOn` measurements) atomically; refuses,
/// leaving the file as it was, a model checkCostModel refuses.
bool writeCostModel(const std::string &path, const mlir::kgen::MachineModel &model,
                    size_t fittedOn, std::string &err);

/// Reads a cost model file; false with a one-line message naming the file
/// and the field for a missing, corrupt or other-version file, a missing
/// field, or a value out of checkCostModel's ranges (sm_count 132.5 or 2^62,
/// a negative rate) or a fitted_on that is not an integer in [0, 2^53].
bool readCostModel(const std::string &path, mlir::kgen::MachineModel &model,
                   std::string &err);

} // namespace mlir::kgen

#endif // KGEN_PASSES_COSTMODELFILE_H
