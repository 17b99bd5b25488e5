//===- SelectStrategy.cpp - write a gemm_config on every kgen.gemm --------===//
//
// Precondition: verified kgen ops. Postcondition: every kgen.gemm carries a
// config; existing configs are untouched. The choice itself is made in
// Strategy.cpp (and, with the feedback loop, from measurements).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/Strategy.h"
#include "dialect/KgenTarget.h"

namespace mlir::kgen {
#define GEN_PASS_DEF_KGENSELECTSTRATEGY
#include "passes/Passes.h.inc"
} // namespace mlir::kgen

using namespace mlir;
using namespace mlir::kgen;

namespace {
struct KgenSelectStrategyPass
    : mlir::kgen::impl::KgenSelectStrategyBase<KgenSelectStrategyPass> {
  using KgenSelectStrategyBase::KgenSelectStrategyBase;

  void runOnOperation() override {
    std::optional<Target> parsed = parseTarget(target);
    if (!parsed) {
      getOperation()->emitError() << "kgen-select-strategy: unknown target '"
                                  << target << "'; expected sm_80 or sm_90a";
      return signalPassFailure();
    }
    getOperation()->walk([&](GemmOp op) {
      if (!op.getConfigAttr())
        op.setConfigAttr(defaultGemmConfig(op, *parsed));
    });
  }
};
} // namespace
