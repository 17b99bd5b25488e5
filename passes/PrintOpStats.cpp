//===- PrintOpStats.cpp - table of kgen ops and their FLOPs ---------------===//
//
// Prints, for every kgen op in the module, one line:
//   <function> <op> <operand types> -> <result types> <GFLOP>
// and a total. Read-only; used by the main job and by tests.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Format.h"

namespace mlir::kgen {
#define GEN_PASS_DEF_KGENPRINTOPSTATS
#include "passes/Passes.h.inc"
} // namespace mlir::kgen

using namespace mlir;
using namespace mlir::kgen;

namespace {
struct KgenPrintOpStatsPass
    : mlir::kgen::impl::KgenPrintOpStatsBase<KgenPrintOpStatsPass> {
  using KgenPrintOpStatsBase::KgenPrintOpStatsBase;

  void runOnOperation() override {
    llvm::raw_ostream &os = llvm::outs();
    double total = 0;
    int64_t count = 0;
    getOperation()->walk([&](Operation *op) {
      if (!isa<KgenDialect>(op->getDialect()))
        return;
      auto func = op->getParentOfType<FunctionOpInterface>();
      os << (func ? func.getName() : StringRef("<module>")) << "  "
         << op->getName().getStringRef() << "  ";
      llvm::interleaveComma(op->getOperandTypes(), os);
      os << " -> ";
      llvm::interleaveComma(op->getResultTypes(), os);
      std::optional<double> flops = estimateFlops(op);
      if (flops) {
        os << llvm::format("  %.3f GFLOP", *flops / 1e9);
        total += *flops;
      }
      os << "\n";
      ++count;
    });
    os << "total: " << count << " kgen ops, "
       << llvm::format("%.3f GFLOP", total / 1e9) << "\n";
    markAllAnalysesPreserved();
  }
};
} // namespace
