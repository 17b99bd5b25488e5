//===- SelectStrategy.cpp - write a gemm_config on every kgen.gemm --------===//
//
// Precondition: verified kgen ops. Postcondition: every kgen.gemm carries a
// config; existing configs are untouched. Measured configs come from tuning
// databases (runtime/include/kgen/runtime/TuningDb.h); otherwise the cost
// model of CostModel.h (when databases or a fitted model are given) or the
// heuristic of Strategy.cpp decides. See Passes.td for the rules.
//
//===----------------------------------------------------------------------===//

#include "passes/CostModelFile.h"
#include "passes/Passes.h"
#include "passes/Strategy.h"
#include "passes/CostModel.h"
#include "passes/SearchSpace.h"

#include "dialect/GemmJson.h"
#include "dialect/KgenTarget.h"
#include "kgen/runtime/TuningDb.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace mlir::kgen {
#define GEN_PASS_DEF_KGENSELECTSTRATEGY
#include "passes/Passes.h.inc"
} // namespace mlir::kgen

using namespace mlir;
using namespace mlir::kgen;
namespace rt = ::kgen::rt;

#ifndef KGEN_CUDA_VERSION
#define KGEN_CUDA_VERSION "unknown"
#endif

namespace {
/// A loaded database and the file it came from.
struct NamedDb {
  std::string path;
  rt::TuningDb db;
};

/// The op signature without the sizes: what "the same op at other sizes"
/// compares.
nlohmann::json withoutSizes(nlohmann::json op) {
  for (const char *size : {"m", "n", "k", "batch"})
    op.erase(size);
  return op;
}

/// log-distance between two shapes; sizes are >= 1.
double shapeDistance(const nlohmann::json &a, const nlohmann::json &b) {
  double d = 0;
  for (const char *size : {"m", "n", "k", "batch"}) {
    auto x = a.find(size), y = b.find(size);
    if (x == a.end() || y == b.end() || !x->is_number() || !y->is_number())
      return INFINITY;
    d += std::fabs(std::log(x->get<double>()) - std::log(y->get<double>()));
  }
  return d;
}

std::string shapeText(const nlohmann::json &op) {
  auto get = [&](const char *k) {
    auto it = op.find(k);
    return it != op.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
  };
  return llvm::formatv("{0}x{1}x{2}", get("m"), get("n"), get("k")).str();
}

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
    std::vector<NamedDb> dbs;
    for (const std::string &path : databases) {
      NamedDb named{path, {}};
      std::string err;
      if (!rt::readTuningDb(path, named.db, err)) {
        getOperation()->emitWarning()
            << "kgen-select-strategy: skipping tuning database: " << err;
        continue;
      }
      dbs.push_back(std::move(named));
    }
    // The cost model decides what measurements do not: fitted from a file,
    // or the first guesses when only databases are given.
    useModel = !databases.empty() || !model.empty();
    modelLabel = "cost model";
    if (!model.empty()) {
      std::string err;
      if (!readCostModel(model, machine, err)) {
        getOperation()->emitError() << "kgen-select-strategy: " << err;
        return signalPassFailure();
      }
      modelLabel = "cost model " + model;
    }
    WalkResult walk = getOperation()->walk([&](GemmOp op) {
      if (op.getConfigAttr())
        return WalkResult::advance();
      GemmConfigAttr config = choose(op, *parsed, dbs);
      if (!config) // no family lowers it: the error names the rule
        return WalkResult::interrupt();
      op.setConfigAttr(config);
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }

  bool useModel = false;
  MachineModel machine;
  std::string modelLabel;

  /// The config the cost model predicts fastest for `op`, if any is valid.
  GemmConfigAttr modelChoice(GemmOp op, Target t) {
    GemmConfigAttr best;
    double bestMs = INFINITY;
    for (GemmConfigAttr c : enumerateGemmConfigs(op, t)) {
      double ms = predictGemmMs(op, c, machine);
      if (ms < bestMs) {
        best = c;
        bestMs = ms;
      }
    }
    if (!best)
      return {};
    return GemmConfigAttr::get(
        op.getContext(), best.getTarget(), best.getInstruction(),
        best.getBlockM(), best.getBlockN(), best.getBlockK(), best.getWarpsM(),
        best.getWarpsN(), best.getStages(), best.getTma(),
        best.getWarpSpecialized(), best.getClusterM(), best.getClusterN(),
        best.getSplitK(), best.getRasterGroup(), best.getEpilogueVector(),
        ConfigSource::model,
        llvm::formatv("{0}: {1:F4} ms predicted", modelLabel, bestMs).str());
  }

  /// The key a measurement of `op` on this target and toolchain has.
  rt::TuningKey keyFor(GemmOp op, Target t) {
    rt::TuningKey key;
    key.op = toJson(gemmSignature(op));
    key.arch = stringifyTarget(t).str();
    key.device = device;
    key.cudaVersion = KGEN_CUDA_VERSION;
    key.emitterVersion = kEmitterVersion;
    return key;
  }

  /// The best candidate of `entry` as a config valid for `op`, if any.
  GemmConfigAttr bestFor(GemmOp op, const rt::TuningEntry &entry,
                         ConfigSource source, StringRef label) {
    const rt::TuningCandidate *best = entry.best();
    if (!best)
      return {};
    // A stored config that no longer verifies (another shape, a stricter
    // verifier) is not an answer: check it silently.
    ScopedDiagnosticHandler quiet(op.getContext(),
                                  [](Diagnostic &) { return success(); });
    GemmConfigAttr config =
        configFromJson(best->config, op.getContext(), source, label);
    if (!config || failed(verifyGemmConfig(op, config)))
      return {};
    return config;
  }

  GemmConfigAttr choose(GemmOp op, Target t, const std::vector<NamedDb> &dbs) {
    rt::TuningKey key = keyFor(op, t);
    bool stale = false;
    // Exact: same op, target and toolchain; first database wins.
    for (const NamedDb &named : dbs)
      for (const rt::TuningEntry &entry : named.db.entries) {
        if (!entry.key.sameOpAndTarget(key))
          continue;
        if (!entry.key.sameToolchain(key)) {
          stale = true;
          continue;
        }
        std::string label = named.path + ": " + shapeText(entry.key.op) +
                            " on " +
                            (entry.key.device.empty() ? entry.key.arch
                                                      : entry.key.device);
        if (GemmConfigAttr c =
                bestFor(op, entry, ConfigSource::measured, label))
          return c;
      }
    // Nearest: the same op at other sizes, same target and toolchain.
    nlohmann::json unsized = withoutSizes(key.op);
    GemmConfigAttr nearest;
    double nearestDistance = INFINITY;
    for (const NamedDb &named : dbs)
      for (const rt::TuningEntry &entry : named.db.entries) {
        if (entry.key.arch != key.arch || !entry.key.sameToolchain(key) ||
            (!key.device.empty() && !entry.key.device.empty() &&
             entry.key.device != key.device) ||
            withoutSizes(entry.key.op) != unsized)
          continue;
        double d = shapeDistance(entry.key.op, key.op);
        if (d >= nearestDistance)
          continue;
        std::string label =
            named.path + ": nearest " + shapeText(entry.key.op) + " on " +
            (entry.key.device.empty() ? entry.key.arch : entry.key.device);
        if (GemmConfigAttr c =
                bestFor(op, entry, ConfigSource::nearest, label)) {
          nearest = c;
          nearestDistance = d;
        }
      }
    if (nearest)
      return nearest;
    GemmConfigAttr modelled = useModel ? modelChoice(op, t) : GemmConfigAttr();
    if (stale)
      op.emitRemark() << "tuning entries for this gemm were measured with "
                         "another toolchain (now CUDA "
                      << KGEN_CUDA_VERSION << ", emitter " << kEmitterVersion
                      << "): stale, "
                      << (modelled ? "the cost model decides"
                                   : "using the default strategy");
    if (modelled)
      return modelled;
    FailureOr<GemmConfigAttr> fallback = defaultGemmConfig(op, t);
    return succeeded(fallback) ? *fallback : GemmConfigAttr();
  }
};
} // namespace
