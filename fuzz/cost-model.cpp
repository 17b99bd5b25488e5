//===- cost-model.cpp - fuzz the cost model file reader -------------------===//
//
// The input is a cost model file (passes/CostModelFile.h): read with
// readCostModel; one it accepts must survive writeCostModel and a second
// read unchanged, and must drive kgen-select-strategy's `model=` ranking
// and the lowering of one gemm on sm_90a and one on sm_80 (GemmModule.h).
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"
#include "GemmModule.h"
#include "MlirHarness.h"

#include "passes/CostModelFile.h"

#include <cstring>
#include <utility>

using mlir::kgen::MachineModel;

namespace {
bool sameModel(const MachineModel &a, const MachineModel &b) {
  return a.matmulTflops == b.matmulTflops && a.copyGBps == b.copyGBps &&
         a.smCount == b.smCount && a.launchUs == b.launchUs &&
         a.memoryScale == b.memoryScale &&
         std::memcmp(a.computeScale, b.computeScale, sizeof a.computeScale) == 0;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string path = kgen::fuzz::writeScratch(
      "model.json", {reinterpret_cast<const char *>(data), size});
  MachineModel model;
  std::string err;
  if (!mlir::kgen::readCostModel(path, model, err)) {
    KGEN_FUZZ_CHECK(!err.empty(), "a refusal says why");
    return 0;
  }
  const std::string again = kgen::fuzz::scratchDir() + "/model-again.json";
  KGEN_FUZZ_CHECK(mlir::kgen::writeCostModel(again, model, 1, err), err);
  MachineModel reread;
  KGEN_FUZZ_CHECK(mlir::kgen::readCostModel(again, reread, err), err);
  KGEN_FUZZ_CHECK(sameModel(model, reread), "the model written reads back the same");

  for (auto [target, text] : {std::pair{"sm_90a", kgen::fuzz::kModelGemmSm90a},
                              std::pair{"sm_80", kgen::fuzz::kModelGemmSm80}}) {
    auto context = kgen::fuzz::makeContext();
    auto module = kgen::fuzz::parseModule(*context, text);
    KGEN_FUZZ_CHECK(module, "GemmModule.h parses");
    kgen::fuzz::GemmPath gemmPath;
    gemmPath.fuse = false;
    gemmPath.target = target;
    gemmPath.model = path;
    (void)kgen::fuzz::runGemmPath(*module, gemmPath);
  }
  return 0;
}
