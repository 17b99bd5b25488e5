//===- KgenAttrs.cpp - kgen attributes: verifiers and targets -------------===//

#include "dialect/KgenDialect.h"
#include "dialect/KgenTarget.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::kgen;

const TargetInfo &mlir::kgen::getTargetInfo(Target target) {
  static const TargetInfo sm80 = {"sm_80", 108, 166912, 1};
  static const TargetInfo sm90a = {"sm_90a", 132, 232448, 8};
  return target == Target::sm_90a ? sm90a : sm80;
}

std::optional<Target> mlir::kgen::parseTarget(StringRef name) {
  return symbolizeTarget(name);
}

int64_t GemmConfigAttr::getThreads() const {
  return 32 * getWarpsM() * getWarpsN() + (getWarpSpecialized() ? 128 : 0);
}

LogicalResult
GemmConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       Target target, InstructionFamily instruction,
                       int64_t blockM, int64_t blockN, int64_t blockK,
                       int64_t warpsM, int64_t warpsN, int64_t stages,
                       bool tma, bool warpSpecialized, int64_t clusterM,
                       int64_t clusterN, int64_t splitK, int64_t rasterGroup,
                       int64_t epilogueVector, ConfigSource source,
                       StringRef entry) {
  const TargetInfo &info = getTargetInfo(target);
  std::pair<StringRef, int64_t> positives[] = {
      {"block_m", blockM},     {"block_n", blockN},   {"block_k", blockK},
      {"warps_m", warpsM},     {"warps_n", warpsN},   {"stages", stages},
      {"cluster_m", clusterM}, {"cluster_n", clusterN}, {"split_k", splitK},
      {"raster_group", rasterGroup}, {"epilogue_vector", epilogueVector}};
  for (auto [name, value] : positives)
    if (value < 1)
      return emitError() << "gemm_config '" << name << "' is " << value
                         << "; expected at least 1";
  if (!llvm::is_contained({1, 2, 4, 8, 16}, epilogueVector))
    return emitError() << "gemm_config 'epilogue_vector' is " << epilogueVector
                       << "; expected 1, 2, 4, 8 or 16";

  bool hopper = target == Target::sm_90a;
  auto needsHopper = [&](StringRef what) -> LogicalResult {
    return emitError() << "gemm_config " << what << " needs target sm_90a; got "
                       << info.name;
  };
  if (instruction == InstructionFamily::wgmma && !hopper)
    return needsHopper("instruction wgmma");
  if (tma && !hopper)
    return needsHopper("tma");
  if (clusterM * clusterN > 1 && !hopper)
    return needsHopper("a thread-block cluster");
  if (clusterM * clusterN > info.maxClusterSize)
    return emitError() << "gemm_config cluster " << clusterM << "x" << clusterN
                       << " has more than " << info.maxClusterSize
                       << " blocks";
  if (warpSpecialized && !tma)
    return emitError() << "gemm_config warp_specialized needs tma (the "
                          "producer warpgroup issues TMA loads)";

  int64_t threads = 32 * warpsM * warpsN + (warpSpecialized ? 128 : 0);
  if (threads > 1024)
    return emitError() << "gemm_config has " << threads
                       << " threads per block; at most 1024";

  // The consumer warps tile the block; each warp (or warpgroup) tile must be
  // a whole number of instruction tiles.
  auto divides = [&](int64_t tile, int64_t unit, StringRef what) -> LogicalResult {
    if (tile % unit == 0)
      return success();
    return emitError() << "gemm_config " << what << " (" << tile
                       << ") must be a multiple of " << unit;
  };
  switch (instruction) {
  case InstructionFamily::simt: // lanes 4 x 8, an even column count each
    if (failed(divides(blockM, 4 * warpsM, "block_m (4 lane rows per warp)")) ||
        failed(divides(blockN, 16 * warpsN,
                       "block_n (8 lane columns of 2 per warp)")))
      return failure();
    break;
  case InstructionFamily::mma_sync: // m16n8k{8,16,32}, ldmatrix x4 on B
    if (failed(divides(blockM, 16 * warpsM, "block_m (16 rows per warp mma)")) ||
        failed(divides(blockN, 16 * warpsN,
                       "block_n (16 columns per warp ldmatrix)")) ||
        failed(divides(blockK, 8, "block_k")))
      return failure();
    break;
  case InstructionFamily::wgmma: { // m64nNk{8,16,32}, N in 8..256 by 8
    if (warpsM % 4 != 0)
      return emitError() << "gemm_config wgmma needs whole warpgroups: "
                            "warps_m ("
                         << warpsM << ") must be a multiple of 4";
    int64_t groupsM = warpsM / 4;
    if (failed(divides(blockM, 64 * groupsM,
                       "block_m (64 rows per warpgroup)")) ||
        failed(divides(blockN, 8 * warpsN, "block_n (8 columns per wgmma N step)")) ||
        failed(divides(blockK, 8, "block_k")))
      return failure();
    if (blockN / warpsN > 256)
      return emitError() << "gemm_config wgmma N per warpgroup is "
                         << blockN / warpsN << "; at most 256";
    break;
  }
  }
  return success();
}
