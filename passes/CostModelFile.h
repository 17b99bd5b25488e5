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

/// Writes `model` (fitted on `fittedOn` measurements) atomically.
bool writeCostModel(const std::string &path, const mlir::kgen::MachineModel &model,
                    size_t fittedOn, std::string &err);

/// Reads a cost model file; false with a one-line message naming the file
/// and the field for a missing, corrupt or other-version file, or a rate or
/// scale that is not a positive finite number.
bool readCostModel(const std::string &path, mlir::kgen::MachineModel &model,
                   std::string &err);

} // namespace mlir::kgen

#endif // KGEN_PASSES_COSTMODELFILE_H
