//===- KgenPipeline.cpp - kgen-pipeline: kgen ops to kernel packages ------===//

#include "codegen/emit/KgenPipeline.h"

#include "passes/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace {
struct KgenPipelineOptions : PassPipelineOptions<KgenPipelineOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("GPU target: sm_80 or sm_90a"),
                             llvm::cl::init("sm_90a")};
  Option<std::string> outputDir{
      *this, "output-dir",
      llvm::cl::desc("Folder receiving one kernel package per kernel"),
      llvm::cl::init("kgen-packages")};
  ListOption<std::string> databases{
      *this, "db",
      llvm::cl::desc("Tuning databases for kgen-select-strategy, searched "
                     "in order")};
};
} // namespace

void mlir::kgen::buildKgenPipeline(OpPassManager &pm, StringRef target,
                                   StringRef outputDir,
                                   ArrayRef<std::string> databases) {
  pm.addPass(createKgenFuseEpilogue());
  KgenSelectStrategyOptions select;
  select.target = target.str();
  select.databases = llvm::to_vector(databases);
  pm.addPass(createKgenSelectStrategy(select));
  pm.addPass(createKgenLowerGemmToTiles());
  pm.addPass(createKgenLowerAttentionToTiles());
  pm.addPass(createKgenLowerMoeToTiles());
  KgenEmitPackagesOptions emit;
  emit.outputDir = outputDir.str();
  pm.addPass(createKgenEmitPackages(emit));
}

void mlir::kgen::registerKgenPipeline() {
  PassPipelineRegistration<KgenPipelineOptions>(
      "kgen-pipeline",
      "Compile every kgen.gemm and kgen.attention to a CUDA kernel package: "
      "fold elementwise epilogues, select a strategy for the target, lower "
      "to tile-level kernels, emit .cu + manifest.json",
      [](OpPassManager &pm, const KgenPipelineOptions &options) {
        buildKgenPipeline(pm, options.target, options.outputDir,
                          options.databases);
      });
}
