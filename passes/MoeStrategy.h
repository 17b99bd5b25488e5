//===- MoeStrategy.h - grouped GEMM heuristic, search space, model -*- C++ -*-===//
//
// How kgen-select-strategy picks the #kgen.grouped_gemm_config of each
// expert GEMM of a kgen.moe (and of a kgen.grouped_gemm) when no
// measurement decides: the built-in heuristic (source = default) and the
// configs the cost model ranks (source = model). Both answer to
// dialect/GroupedGemmLegality.h. Kept apart from the pass so that
// selection, tuning and tests share them.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_PASSES_MOESTRATEGY_H
#define KGEN_PASSES_MOESTRATEGY_H

#include "dialect/GroupedGemmLegality.h"
#include "dialect/KgenOps.h"
#include "passes/CostModel.h"

namespace mlir::kgen {

/// One grouped GEMM: `rows` rows (a layer's T * k token copies) over
/// `experts` groups, [rows, k] x [experts, k, n], gated or not.
struct GroupedGemmProblem {
  int64_t rows = 0, k = 0, n = 0, experts = 0;
  bool gated = false;
  /// Block-scaled e4m3 weights (`elem` is then f8E4M3FN, what the kernel's
  /// quantised A and B hold).
  bool blockScaled = false;
  Type elem, out;
  Type aElem; // block-scaled: the activations' type (bf16, f16)

  /// kgen.moe's two expert GEMMs: [T * k, H] x [E, H, I] gated, and
  /// [T * k, I] x [E, I, H].
  static GroupedGemmProblem gateUp(MoeOp op);
  static GroupedGemmProblem down(MoeOp op);
  static GroupedGemmProblem of(GroupedGemmOp op);
  GroupedGemmOperands operands() const {
    return {elem, out, k, n, gated, blockScaled, aElem};
  }
  /// The experts the rows can reach: min(E, rows).
  int64_t expertsHit() const { return std::min(experts, rows); }
  /// Rows per expert hit with uniform routing.
  double rowsPerExpert() const {
    return double(rows) / double(std::max<int64_t>(1, expertsHit()));
  }
};

/// The heuristic's config: block_m the smallest of 16, 32, 64 and 128 that
/// holds the rows an expert gets with uniform routing (a decode step's
/// one or two rows per expert take 16-row tiles, not 128), then the first
/// tile of a short list per block_m that the legality accepts (wide N
/// tiles and 3 to 4 stages: a light load is bound by reading the experts'
/// weights, so the blocks keep many loads in flight); block-scaled e4m3
/// weights have their own list (tiles inside the 128-wide scale blocks,
/// two accumulators a product). Nullopt, with the first refusal, when none
/// is legal (f32 operands; block-scaled weights on sm_80).
std::optional<GroupedGemmConfigFields>
defaultGroupedGemmFields(const GroupedGemmProblem &problem, Target target,
                         GroupedGemmLegalityError *refusal = nullptr);

/// Every config of the grouped GEMM search space the legality accepts:
/// mma_sync, block_m 16 to 128, block_n 32 to 256, block_k 16 to 64 (to
/// 128 block-scaled), and on sm_90a wgmma for the ungated forms (block_m
/// 64 or 128, block_n 64 to 256, 2 to 5 stages),
/// warps 1 to 4 each way, 2 to 4 stages.
SmallVector<GroupedGemmConfigFields>
enumerateGroupedGemmConfigs(const GroupedGemmProblem &problem, Target target);

/// The predicted time of `problem` under `config`: the gemm model
/// (CostModel.h) of the batched gemm of the experts hit, each with its
/// uniform share of the rows (padded to block_m per expert), the gated
/// form as twice the columns.
double predictGroupedGemmMs(const GroupedGemmProblem &problem,
                            const GroupedGemmConfigFields &config,
                            const MachineModel &machine, MLIRContext *ctx);

/// The attribute of `fields`.
GroupedGemmConfigAttr groupedGemmConfigAttr(MLIRContext *ctx,
                                            const GroupedGemmConfigFields &f,
                                            ConfigSource source,
                                            StringRef entry);
} // namespace mlir::kgen

#endif // KGEN_PASSES_MOESTRATEGY_H
