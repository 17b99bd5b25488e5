//===- Measure.h - kgen-tune's measured search ------------------*- C++ -*-===//
//
// For one kgen.gemm: the default heuristic's config and the cost model's
// best-ranked ones, as packages compiled in parallel, measured with
// kgen-bench in child processes within a budget of candidates and seconds,
// the best few measured again in interleaved rounds, everything added to a
// tuning database. The arithmetic of the search is kgen/runtime/Search.h.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_TOOLS_KGEN_TUNE_MEASURE_H
#define KGEN_TOOLS_KGEN_TUNE_MEASURE_H

#include "dialect/KgenOps.h"
#include "kgen/runtime/Search.h"
#include "kgen/runtime/TuningDb.h"
#include "passes/CostModel.h"
#include "passes/SearchSpace.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kgen::tune {

struct MeasureOptions {
  mlir::kgen::Target target = mlir::kgen::Target::sm_90a;
  std::string workDir;        // packages and results files go under it
  std::string benchPath;      // kgen-bench (or a stand-in with its CLI)
  std::string cacheDir;       // NVRTC cache shared with kgen-bench
  std::string ceilingsPath;   // optional, passed on to kgen-bench
  size_t maxCandidates = 0;   // 0: kDefaultMeasuredShare of the space
  double maxSeconds = 60;     // per gemm, compile and measure together
  unsigned jobs = 0;          // parallel compiles; 0: hardware threads
  unsigned finalists = 3;     // re-measured in interleaved rounds
  unsigned rounds = 3;
  double finalistWindow = 1.10; // finalists lie within this of the best
  uint64_t seed = 1;
};

/// What one gemm's search found, for the closing table.
struct GemmSearchSummary {
  size_t space = 0;          // valid configs
  size_t measured = 0;       // candidates kgen-bench timed
  double seconds = 0;
  std::optional<double> defaultMs, bestMs; // drift-corrected medians
  std::string bestConfig;    // configSummary of the winner
};

/// Runs the measured search of `gemm` (the `index`-th of its module) and
/// adds every measured candidate to `db`. Prints progress on stdout. On
/// NoDevice nothing was measured (kgen-bench found no GPU); on Failed the
/// reason was printed.
::kgen::rt::SearchStatus searchGemm(mlir::kgen::GemmOp gemm, int index,
                        const MeasureOptions &options,
                        const mlir::kgen::MachineModel &machine,
                        ::kgen::rt::TuningDb &db, GemmSearchSummary &summary);

/// `gemm` alone in a new module, as `func @main`, with `config`.
mlir::OwningOpRef<mlir::ModuleOp> isolateGemm(mlir::kgen::GemmOp gemm,
                                              mlir::kgen::GemmConfigAttr config);

/// Runs `kgen-bench ceilings --out path`: NoDevice without a GPU, Failed
/// (with `err`) when it fails otherwise.
::kgen::rt::SearchStatus measureCeilings(const MeasureOptions &options,
                             const std::string &path, std::string &err);

/// Sets the model's matmul and copy rates and SM count from a ceilings
/// file (a kgen-bench results file holding ceilings); false with a message
/// naming the file when it cannot.
bool applyCeilings(const std::string &path, mlir::kgen::MachineModel &model,
                   std::string &err);

/// A candidate config (a gemm_config or an attention_config) with the cost
/// model's prediction.
template <typename Config> struct Ranked {
  Config config;
  double predictedMs = 0;
  bool isDefault = false; // the default heuristic's choice
};
using RankedConfig = Ranked<mlir::kgen::GemmConfigAttr>;
using RankedAttentionConfig = Ranked<mlir::kgen::AttentionConfigAttr>;
using RankedGroupedConfig = Ranked<mlir::kgen::GroupedGemmConfigAttr>;

/// One expert GEMM ("gate_up" or "down") of a kgen.moe, ranked: a moe
/// package is the whole layer, so a candidate is a (gate_up, down) pair;
/// one role is searched at a time, the other at its heuristic config
/// (`paired`, its prediction `pairedMs`).
struct MoeRoleRanking {
  llvm::SmallVector<RankedGroupedConfig> ranked;
  size_t space = 0;
  mlir::kgen::GroupedGemmConfigAttr paired;
  double pairedMs = 0;
};

/// Every legal grouped_gemm_config of `moe`'s `role` GEMM on `target` (the
/// search space of passes/MoeStrategy.h) in the order to measure them:
/// with `defaultFirst`, the heuristic's config, then the rest, fastest
/// predicted by the grouped GEMM cost model first (of equal predictions,
/// the space's order). Nullopt when no kernel lowers the layer
/// (moeKernelsRefuse) or the other role has no config.
std::optional<MoeRoleRanking>
rankMoeRole(mlir::kgen::MoeOp moe, llvm::StringRef role,
            mlir::kgen::Target target, const mlir::kgen::MachineModel &machine,
            bool defaultFirst);

/// "T64 H4096 I14336 E8 top2 bf16": a kgen.moe on one line.
std::string moeShape(mlir::kgen::MoeOp moe);

/// The measured search of `role`'s config of `moe` (the `index`-th kgen.moe
/// of its module), the other role at its heuristic config: searchGemm's
/// steps over rankMoeRole's candidates, each a whole-layer package under
/// workDir/moe<index>/<role>; the results recorded under the role's
/// grouped GEMM key (rt::tuningRecordOf).
::kgen::rt::SearchStatus searchMoeRole(mlir::kgen::MoeOp moe, int index,
                                       llvm::StringRef role,
                                       const MeasureOptions &options,
                                       const mlir::kgen::MachineModel &machine,
                                       ::kgen::rt::TuningDb &db,
                                       GemmSearchSummary &summary);

/// Every valid config of `gemm` on `target` (`spaceSize` of them) in the
/// order to measure them: with `defaultFirst`, the default heuristic's
/// config (its strategy once: tuning's speed-up is measured over it); then
/// the best-predicted config of each tile class the model puts within 25%
/// of its best (diversity where the model is least sure); then the rest,
/// fastest predicted first.
llvm::SmallVector<RankedConfig>
rankCandidates(mlir::kgen::GemmOp gemm, mlir::kgen::Target target,
               const mlir::kgen::MachineModel &machine, bool defaultFirst,
               size_t &spaceSize);

/// Every legal attention_config of `attention` on `target` (the search
/// space of passes/AttentionStrategy.h, `spaceSize` of them) in the order to
/// measure them: with `defaultFirst`, the default heuristic's config (its
/// strategy once), then the rest, fastest predicted by the attention cost
/// model first (of equal predictions, the space's order). No tile classes
/// as for gemm: the attention model has no fitted scales of its own yet.
llvm::SmallVector<RankedAttentionConfig>
rankAttentionCandidates(mlir::kgen::AttentionOp attention,
                        mlir::kgen::Target target,
                        const mlir::kgen::MachineModel &machine,
                        bool defaultFirst, size_t &spaceSize);

/// Lowers `gemm` with `config` and writes its package, not compiled, under
/// `dir` (kgen-lower-gemm-to-tiles, kgen-emit-packages), the cost model's
/// `predictedMs` recorded as the manifest's config.predicted_ms (so the
/// results and the tuning database keep it); false with the diagnostics in
/// `why`. compileCandidates compiles such packages.
bool emitCandidate(mlir::kgen::GemmOp gemm, mlir::kgen::GemmConfigAttr config,
                   double predictedMs, const std::string &dir,
                   std::string &why);
/// The same for an attention (kgen-lower-attention-to-tiles): one package
/// holding its kernels (the combine kernel too with split-KV).
bool emitCandidate(mlir::kgen::AttentionOp attention,
                   mlir::kgen::AttentionConfigAttr config, double predictedMs,
                   const std::string &dir, std::string &why);

/// The same for one role of a kgen.moe: the whole layer with `config` as
/// `role`'s and `paired` as the other's (kgen-lower-moe-to-tiles: one
/// package of six kernels); the manifest's config records both
/// predictions (config.gate_up.predicted_ms, config.down.predicted_ms) and
/// config.tuned_role = `role`.
bool emitMoeCandidate(mlir::kgen::MoeOp moe, llvm::StringRef role,
                      mlir::kgen::GroupedGemmConfigAttr config,
                      double predictedMs,
                      mlir::kgen::GroupedGemmConfigAttr paired,
                      double pairedMs, const std::string &dir,
                      std::string &why);

/// A candidate's package after compileCandidates.
struct CompiledCandidate {
  std::string packageDir; // the package folder under the candidate's folder
  std::string dropped;    // why it is not kept; empty when it is
};

/// Compiles the packages emitted (uncompiled) under `dirs`, a candidate's
/// folder each holding one package, with NVRTC on `jobs` threads (0: one
/// per hardware thread; `threads` says how many ran) into `cacheDir`.
/// Drops those that do not compile or whose ptxas report shows a stack
/// frame or spills; writes ptxas's report per kernel into each kept
/// package's manifest, renamed to names[i] where that is given and not
/// empty. One outcome per folder, in order.
std::vector<CompiledCandidate>
compileCandidates(const std::vector<std::string> &dirs,
                  const std::vector<std::string> &names,
                  const std::string &cacheDir, unsigned jobs,
                  unsigned &threads);

/// A config's JSON without where it came from (source, entry, attribute)
/// and what was predicted of it (predicted_ms): equal for one strategy
/// whoever chose it, so a database's candidates compare with the configs
/// of the space.
nlohmann::json strategyOf(nlohmann::json config);
nlohmann::json strategyOf(mlir::kgen::GemmConfigAttr config);
nlohmann::json strategyOf(mlir::kgen::AttentionConfigAttr config);
nlohmann::json strategyOf(mlir::kgen::GroupedGemmConfigAttr config);

/// "wgmma 128x256x64 w8x1 s4 k1 r8" (and " c2x1" with a cluster): a config
/// on one line.
std::string configSummary(mlir::kgen::GemmConfigAttr config);
/// "mma_sync 64x64 w4 s2 split1" (and " pack" with pack_gqa).
std::string configSummary(mlir::kgen::AttentionConfigAttr config);
/// "mma_sync 16x128x32 w1x4 s4": a grouped GEMM config on one line.
std::string configSummary(mlir::kgen::GroupedGemmConfigAttr config);

} // namespace kgen::tune

#endif // KGEN_TOOLS_KGEN_TUNE_MEASURE_H
