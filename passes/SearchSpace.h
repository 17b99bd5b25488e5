//===- SearchSpace.h - the gemm_configs kgen-tune searches ------*- C++ -*-===//
//
// The candidate strategies of a gemm: a product of tiles, stages, splits,
// rasters and clusters per instruction family, filtered by the family's
// legality (dialect/GemmLegality.h), so every candidate lowers, emits and
// compiles.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_PASSES_SEARCHSPACE_H
#define KGEN_PASSES_SEARCHSPACE_H

#include "dialect/KgenOps.h"

namespace mlir::kgen {
/// Every config of the search space for `op` on `target` that the family's
/// legality accepts, with source = model: per instruction family available
/// for the operands, block tiles and warp grids (wgmma: 1 to 3 consumer
/// warpgroups, N from 64 to 256 in steps of 32 where the layout allows),
/// K tiles, stages, split-K, rasterisation and (wgmma) clusters along M.
SmallVector<GemmConfigAttr> enumerateGemmConfigs(GemmOp op, Target target);
} // namespace mlir::kgen

#endif // KGEN_PASSES_SEARCHSPACE_H
