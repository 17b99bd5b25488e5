//===- Strategy.h - default lowering strategies -----------------*- C++ -*-===//
//
// The built-in heuristic that picks a gemm_config when nothing better (a
// measurement, a cost model) is known. Kept apart from the passes so that
// selection, tuning and tests share it.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_PASSES_STRATEGY_H
#define KGEN_PASSES_STRATEGY_H

#include "dialect/KgenOps.h"

namespace mlir::kgen {
/// A config for `op` on `target` that its family's legality accepts, with
/// source = default; an error on `op`, naming the rule, when no family
/// lowers it.
FailureOr<GemmConfigAttr> defaultGemmConfig(GemmOp op, Target target);
} // namespace mlir::kgen

#endif // KGEN_PASSES_STRATEGY_H
