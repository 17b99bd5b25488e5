//===- SelectStrategy.cpp - write a config on every gemm and attention ----===//
//
// Precondition: verified kgen ops. Postcondition: every kgen.gemm carries a
// config, and so does every kgen.attention that some config lowers;
// existing configs are untouched. Measured gemm configs come from tuning
// databases (runtime/include/kgen/runtime/TuningDb.h); otherwise the cost
// model of CostModel.h (when databases or a fitted model are given) or the
// heuristic of Strategy.cpp (AttentionStrategy.cpp for attention) decides.
// Tuning databases hold gemm keys only (docs/tuning-db.md), so attention is
// never measured: the model or the heuristic. See Passes.td for the rules.
//
//===----------------------------------------------------------------------===//

#include "passes/AttentionStrategy.h"
#include "passes/CostModel.h"
#include "passes/CostModelFile.h"
#include "passes/Passes.h"
#include "passes/SearchSpace.h"
#include "passes/Strategy.h"

#include "dialect/GemmJson.h"
#include "dialect/GemmLegality.h"
#include "dialect/KgenTarget.h"
#include "kgen/runtime/TuningDb.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <set>

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

/// The legality's fields of a stored config (as GemmJson.cpp's toJson
/// writes it), or, in `refusal`, the first field that is missing, mistyped
/// or unknown.
std::optional<GemmConfigFields> configFields(const nlohmann::json &config,
                                             GemmLegalityError &refusal) {
  if (!config.is_object()) {
    refusal = {"", "expected an object"};
    return std::nullopt;
  }
  GemmConfigFields f;
  auto field = [&](const char *key) -> const nlohmann::json * {
    auto it = config.find(key);
    if (it == config.end()) {
      refusal = {key, "missing"};
      return nullptr;
    }
    return &*it;
  };
  auto integer = [&](const char *key, int64_t &out) {
    const nlohmann::json *j = field(key);
    if (j && !j->is_number_integer())
      refusal = {key, "expected an integer"};
    if (!j || !j->is_number_integer())
      return false;
    out = j->get<int64_t>();
    return true;
  };
  auto flag = [&](const char *key, bool &out) {
    const nlohmann::json *j = field(key);
    if (j && !j->is_boolean())
      refusal = {key, "expected true or false"};
    if (!j || !j->is_boolean())
      return false;
    out = j->get<bool>();
    return true;
  };
  auto name = [&](const char *key) -> std::optional<std::string> {
    const nlohmann::json *j = field(key);
    if (j && !j->is_string())
      refusal = {key, "expected a string"};
    if (!j || !j->is_string())
      return std::nullopt;
    return j->get<std::string>();
  };
  std::optional<std::string> target = name("target");
  if (!target)
    return std::nullopt;
  std::optional<Target> t = symbolizeTarget(*target);
  if (!t) {
    refusal = {"target", "unknown target"};
    return std::nullopt;
  }
  f.target = *t;
  std::optional<std::string> family = name("instruction");
  if (!family)
    return std::nullopt;
  std::optional<InstructionFamily> i = symbolizeInstructionFamily(*family);
  if (!i) {
    refusal = {"instruction", "unknown instruction family"};
    return std::nullopt;
  }
  f.instruction = *i;
  if (!integer("block_m", f.blockM) || !integer("block_n", f.blockN) ||
      !integer("block_k", f.blockK) || !integer("warps_m", f.warpsM) ||
      !integer("warps_n", f.warpsN) || !integer("stages", f.stages) ||
      !flag("tma", f.tma) || !flag("warp_specialized", f.warpSpecialized) ||
      !integer("cluster_m", f.clusterM) || !integer("cluster_n", f.clusterN) ||
      !integer("split_k", f.splitK) ||
      !integer("raster_group", f.rasterGroup) ||
      !integer("epilogue_vector", f.epilogueVector))
    return std::nullopt;
  return f;
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
    // Diagnostics about files go to the module's location without the
    // module attached: one line each, never the IR, whatever
    // --mlir-print-op-on-diagnostic says.
    moduleLoc = getOperation()->getLoc();
    warnedEntries.clear();
    std::vector<NamedDb> dbs;
    for (const std::string &path : databases) {
      NamedDb named{path, {}};
      std::string err;
      if (!rt::readTuningDb(path, named.db, err)) {
        emitWarning(moduleLoc)
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
        emitError(moduleLoc) << "kgen-select-strategy: " << err;
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
      return signalPassFailure();
    getOperation()->walk([&](AttentionOp op) {
      if (op.getConfigAttr())
        return;
      AttentionLegalityError refusal;
      AttentionConfigAttr config =
          useModel ? modelChoice(op, *parsed) : AttentionConfigAttr();
      if (!config)
        config = defaultAttentionConfig(op, *parsed, &refusal);
      if (config)
        op.setConfigAttr(config);
      else // not an error: the reference semantics still run it
        emitRemark(op.getLoc())
            << "no kernel family lowers this attention on "
            << stringifyTarget(*parsed) << " (" << refusal.str()
            << "): it stays without a config, on the reference path";
    });
  }

  bool useModel = false;
  MachineModel machine;
  std::string modelLabel;
  LocationAttr moduleLoc; // set by runOnOperation
  /// The database entries (file, entry) warned about: once each.
  std::set<std::pair<std::string, size_t>> warnedEntries;

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

  /// The attention config the cost model predicts fastest for `op`, if any
  /// is legal; the first of equal predictions (the search space's order).
  AttentionConfigAttr modelChoice(AttentionOp op, Target t) {
    AttentionProblem problem = AttentionProblem::of(op);
    std::optional<AttentionConfigFields> best;
    double bestMs = INFINITY;
    for (const AttentionConfigFields &f :
         enumerateAttentionConfigs(problem, t)) {
      double ms = predictAttentionCost(problem, f, machine).ms;
      if (ms < bestMs) {
        best = f;
        bestMs = ms;
      }
    }
    if (!best)
      return {};
    return attentionConfigAttr(
        op.getContext(), *best, ConfigSource::model,
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

  /// Warns that candidate `c` (at `position` in entry `index` of `named`)
  /// is refused for `refusal`, unless that entry was warned about already.
  void warnRefused(const NamedDb &named, size_t index,
                   const rt::TuningCandidate &c, size_t position,
                   const GemmLegalityError &refusal, StringRef rule) {
    if (!warnedEntries.emplace(named.path, index).second)
      return;
    std::string where =
        c.origin.empty() ? llvm::formatv("entries[{0}].candidates[{1}]", index,
                                         position)
                               .str()
                         : c.origin;
    InFlightDiagnostic diag = emitWarning(moduleLoc);
    diag << "kgen-select-strategy: tuning database " << named.path << ": "
         << where << ".config";
    if (!refusal.field.empty())
      diag << "." << refusal.field;
    diag << ": " << refusal.message << rule << "; candidate skipped";
  }

  /// The fastest measured candidate of entry `index` of `named` whose config
  /// is legal for `op`, if any. A config no gemm can have (a field missing,
  /// block_m 7: the legality's rules for every gemm) is a broken database:
  /// warned about, once per entry. One the legality refuses for `op` is
  /// warned about too when the entry is `op`'s own (`exact`); for another
  /// shape (the nearest entry) it may just not fit this one: skipped.
  GemmConfigAttr bestFor(GemmOp op, const NamedDb &named, size_t index,
                         ConfigSource source, StringRef label, bool exact) {
    const rt::TuningEntry &entry = named.db.entries[index];
    GemmOperands operands = GemmOperands::of(op);
    for (const rt::TuningCandidate *c : entry.ranked()) {
      const size_t position = size_t(c - entry.candidates.data());
      GemmLegalityError refusal;
      std::optional<GemmConfigFields> fields = configFields(c->config, refusal);
      if (!fields) {
        warnRefused(named, index, *c, position, refusal, "");
        continue;
      }
      if (std::optional<GemmLegalityError> e = checkGemmLegality(*fields)) {
        warnRefused(named, index, *c, position, *e, " (gemm legality)");
        continue;
      }
      if (std::optional<GemmLegalityError> e =
              checkGemmLegality(*fields, &operands)) {
        if (exact)
          warnRefused(named, index, *c, position, *e,
                      " (gemm legality, for this gemm)");
        continue;
      }
      // Legal: the attribute's verifier (the same legality) passes.
      ScopedDiagnosticHandler quiet(op.getContext(),
                                    [](Diagnostic &) { return success(); });
      if (GemmConfigAttr config =
              configFromJson(c->config, op.getContext(), source, label))
        return config;
    }
    return {};
  }

  GemmConfigAttr choose(GemmOp op, Target t, const std::vector<NamedDb> &dbs) {
    rt::TuningKey key = keyFor(op, t);
    bool stale = false;
    // Exact: same op, target and toolchain; first database wins.
    for (const NamedDb &named : dbs)
      for (auto [index, entry] : llvm::enumerate(named.db.entries)) {
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
        if (GemmConfigAttr c = bestFor(op, named, index,
                                       ConfigSource::measured, label,
                                       /*exact=*/true))
          return c;
      }
    // Nearest: the same op at other sizes, same target and toolchain.
    nlohmann::json unsized = withoutSizes(key.op);
    GemmConfigAttr nearest;
    double nearestDistance = INFINITY;
    for (const NamedDb &named : dbs)
      for (auto [index, entry] : llvm::enumerate(named.db.entries)) {
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
        if (GemmConfigAttr c = bestFor(op, named, index,
                                       ConfigSource::nearest, label,
                                       /*exact=*/false)) {
          nearest = c;
          nearestDistance = d;
        }
      }
    if (nearest)
      return nearest;
    GemmConfigAttr modelled = useModel ? modelChoice(op, t) : GemmConfigAttr();
    if (stale)
      emitRemark(op.getLoc()) << "tuning entries for this gemm were measured with "
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
