//===- CostModelFitTest.cpp - the cost model's fit recovers known scales -===//
//
// Measurements made up from a model whose scales are known (SYNTHETIC, with
// +-4% deterministic noise): fitMachineModel must find those scales again,
// and bring the model's median error from far off to within the noise.
//
//===----------------------------------------------------------------------===//

#include "passes/CostModel.h"
#include "passes/SearchSpace.h"
#include "tools/Register.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::kgen;

namespace {
// Compute-bound (bf16 4096^3, f32 for mma_sync/simt) and memory-bound
// (decode) gemms.
const char *const kModule = R"mlir(
func.func @main(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>,
                %x: tensor<16x4096xbf16>, %w: tensor<14336x4096xbf16>,
                %p: tensor<2048x1024xf32>, %q: tensor<1024x2048xf32>)
    -> (tensor<4096x4096xbf16>, tensor<16x14336xbf16>, tensor<2048x2048xf32>) {
  %d = kgen.gemm %a, %b : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xbf16>
  %y = kgen.gemm %x, %w {transpose_b} : tensor<16x4096xbf16>, tensor<14336x4096xbf16> -> tensor<16x14336xbf16>
  %z = kgen.gemm %p, %q : tensor<2048x1024xf32>, tensor<1024x2048xf32> -> tensor<2048x2048xf32>
  return %d, %y, %z : tensor<4096x4096xbf16>, tensor<16x14336xbf16>, tensor<2048x2048xf32>
}
)mlir";

double relativeError(double predicted, double measured) {
  return std::fabs(predicted - measured) / measured;
}

double medianError(ArrayRef<GemmMeasurement> data, const MachineModel &model) {
  std::vector<double> e;
  for (const GemmMeasurement &g : data)
    e.push_back(relativeError(predictGemmCost(g.problem, g.config, model).ms, g.ms));
  std::sort(e.begin(), e.end());
  return e[e.size() / 2];
}

TEST(CostModelFitTest, RecoversKnownScales) {
  DialectRegistry registry;
  registerKgenDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kModule, &context);
  ASSERT_TRUE(module);

  MachineModel truth;
  truth.computeScale[familyIndex(InstructionFamily::simt)] = 2.0;
  truth.computeScale[familyIndex(InstructionFamily::mma_sync)] = 1.4;
  truth.computeScale[familyIndex(InstructionFamily::wgmma)] = 0.8;
  truth.memoryScale = 1.3;

  SmallVector<GemmMeasurement> data;
  unsigned i = 0;
  module->walk([&](GemmOp op) {
    SmallVector<GemmConfigAttr> configs = enumerateGemmConfigs(op, Target::sm_90a);
    ASSERT_FALSE(configs.empty());
    // About 40 configs per gemm, spread over the whole space: all
    // families, tiles, stages, splits.
    size_t stride = std::max<size_t>(1, configs.size() / 40);
    for (size_t c = 0; c < configs.size(); c += stride) {
      GemmProblem p = GemmProblem::of(op);
      double noise = 1 + 0.04 * (double((i++ * 2654435761u) % 9) - 4) / 4;
      data.push_back({p, configs[c], predictGemmCost(p, configs[c], truth).ms * noise});
    }
  });
  ASSERT_GT(data.size(), 60u);

  MachineModel start;
  double before = medianError(data, start);
  MachineModel fitted = fitMachineModel(data, start);
  double after = medianError(data, fitted);
  EXPECT_GT(before, 0.15);
  EXPECT_LT(after, 0.04);
  for (InstructionFamily f : {InstructionFamily::simt, InstructionFamily::mma_sync,
                              InstructionFamily::wgmma})
    EXPECT_NEAR(fitted.computeScale[familyIndex(f)] / truth.computeScale[familyIndex(f)],
                1.0, 0.05)
        << stringifyInstructionFamily(f).str();
  EXPECT_NEAR(fitted.memoryScale / truth.memoryScale, 1.0, 0.05);

  // Fitting the truth's own predictions changes nothing; no data, no change.
  for (GemmMeasurement &g : data)
    g.ms = predictGemmCost(g.problem, g.config, truth).ms;
  MachineModel exact = fitMachineModel(data, truth);
  EXPECT_NEAR(exact.memoryScale, truth.memoryScale, 1e-9);
  EXPECT_NEAR(exact.computeScale[2], truth.computeScale[2], 1e-9);
  MachineModel none = fitMachineModel({}, start);
  EXPECT_EQ(none.memoryScale, 1.0);
}
} // namespace
