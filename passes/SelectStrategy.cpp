//===- SelectStrategy.cpp - write a config on every gemm and attention ----===//
//
// Precondition: verified kgen ops. Postcondition: every kgen.gemm carries a
// config, and so does every kgen.attention that some config lowers;
// existing configs are untouched. Measured configs come from tuning
// databases (runtime/include/kgen/runtime/TuningDb.h: gemm, attention and
// grouped GEMM keys alike, each expert GEMM of a kgen.moe its own key);
// otherwise the cost model of CostModel.h (when databases or a fitted model
// are given) or the heuristic of Strategy.cpp (AttentionStrategy.cpp for
// attention, MoeStrategy.cpp for grouped GEMMs) decides. See Passes.td for
// the rules.
//
//===----------------------------------------------------------------------===//

#include "passes/AttentionStrategy.h"
#include "passes/CostModel.h"
#include "passes/CostModelFile.h"
#include "passes/MoeStrategy.h"
#include "passes/Passes.h"
#include "passes/SearchSpace.h"
#include "passes/Strategy.h"

#include "dialect/AttentionJson.h"
#include "dialect/GemmJson.h"
#include "dialect/GemmLegality.h"
#include "dialect/KgenTarget.h"
#include "dialect/MoeJson.h"
#include "dialect/MoeLegality.h"
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

/// The sizes of a gemm signature and of an attention signature: what "the
/// same op at other sizes" may differ in (the nearest measured shape).
constexpr const char *kGemmSizes[] = {"m", "n", "k", "batch"};
constexpr const char *kAttentionSizes[] = {"seq_kv", "seq_q", "batch"};
/// A grouped GEMM key's one size: its tokens bucket (rt::tokensBucket).
constexpr const char *kGroupedGemmSizes[] = {"tokens_bucket"};

/// One grouped GEMM being configured (an expert GEMM of a kgen.moe, or a
/// kgen.grouped_gemm), as the tuning lookup sees it: its problem, for the
/// legality, and its key op (rt::groupedGemmKeyOp: role, sizes, types and
/// tokens bucket).
struct GroupedGemmSite {
  Operation *op;
  GroupedGemmProblem problem;
  nlohmann::json keyOp;
  MLIRContext *getContext() const { return op->getContext(); }
};

/// The op signature without `sizes`.
nlohmann::json withoutSizes(nlohmann::json op, ArrayRef<const char *> sizes) {
  for (const char *size : sizes)
    op.erase(size);
  return op;
}

/// log-distance between two shapes over `sizes` (each >= 1): the sum of
/// |log a - log b|, so that twice and half as large are equally near.
double shapeDistance(const nlohmann::json &a, const nlohmann::json &b,
                     ArrayRef<const char *> sizes) {
  double d = 0;
  for (const char *size : sizes) {
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

int64_t sizeOf(const nlohmann::json &op, const char *k) {
  auto it = op.find(k);
  return it != op.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

std::string shapeText(GemmOp, const nlohmann::json &op) {
  return llvm::formatv("{0}x{1}x{2}", sizeOf(op, "m"), sizeOf(op, "n"),
                       sizeOf(op, "k"))
      .str();
}

/// "b1 q4096 kv4096 h32/8 d128".
std::string shapeText(AttentionOp, const nlohmann::json &op) {
  return llvm::formatv("b{0} q{1} kv{2} h{3}/{4} d{5}", sizeOf(op, "batch"),
                       sizeOf(op, "seq_q"), sizeOf(op, "seq_kv"),
                       sizeOf(op, "q_heads"), sizeOf(op, "kv_heads"),
                       sizeOf(op, "head_dim"))
      .str();
}

/// "gate_up e8 top2 k4096 n14336 T33-64": a grouped GEMM key, its tokens
/// bucket as the token counts it holds.
std::string shapeText(const GroupedGemmSite &, const nlohmann::json &op) {
  int64_t bucket = sizeOf(op, "tokens_bucket");
  std::string tokens = bucket <= 1 ? "T1"
                                   : llvm::formatv("T{0}-{1}", bucket / 2 + 1,
                                                   bucket)
                                         .str();
  auto role = op.find("role");
  return llvm::formatv("{0} e{1} top{2} k{3} n{4} {5}",
                       role != op.end() && role->is_string()
                           ? role->get<std::string>()
                           : std::string("?"),
                       sizeOf(op, "experts"), sizeOf(op, "top_k"),
                       sizeOf(op, "k"), sizeOf(op, "n"), tokens)
      .str();
}

/// Whether a grouped GEMM key is decode-like: at its tokens bucket, with
/// uniform routing, every expert hit gets at most 16 rows (one 16-row tile
/// each: the blocks stream the experts' weights), against prefill-like
/// (many row tiles per expert, bound by the MMAs). A tile measured in one
/// regime is no guide to the other.
bool isDecodeGroupedGemm(const nlohmann::json &keyOp) {
  double rows = double(sizeOf(keyOp, "tokens_bucket")) *
                double(std::max<int64_t>(1, sizeOf(keyOp, "top_k")));
  double hit = std::max(1.0, std::min(double(sizeOf(keyOp, "experts")), rows));
  return rows / hit <= 16;
}

/// Whether a measurement of `stored` may stand for `op` at other sizes:
/// any gemm; an attention of the same regime (decode-shaped or not,
/// isDecodeAttention), whose tiles differ in kind (one packed row tile and
/// a split key range against many row tiles).
bool sameRegime(GemmOp, const nlohmann::json &) { return true; }
bool sameRegime(AttentionOp op, const nlohmann::json &stored) {
  AttentionProblem other = AttentionProblem::of(op);
  // A stored variable-length batch's seq_q is its token total: B
  // sequences of the mean length, as AttentionProblem::of has it.
  int64_t storedQ = sizeOf(stored, "seq_q");
  auto varlen = stored.find("varlen");
  if (varlen != stored.end() && varlen->is_boolean() && varlen->get<bool>())
    storedQ = llvm::divideCeil(storedQ,
                               std::max<int64_t>(1, sizeOf(stored, "batch")));
  other.seqQ = storedQ;
  return isDecodeAttention(AttentionProblem::of(op)) ==
         isDecodeAttention(other);
}

bool sameRegime(const GroupedGemmSite &site, const nlohmann::json &stored) {
  return isDecodeGroupedGemm(site.keyOp) == isDecodeGroupedGemm(stored);
}

DictionaryAttr signatureOf(GemmOp op) { return gemmSignature(op); }
DictionaryAttr signatureOf(AttentionOp op) { return attentionSignature(op); }
ArrayRef<const char *> sizesOf(GemmOp) { return kGemmSizes; }
ArrayRef<const char *> sizesOf(AttentionOp) { return kAttentionSizes; }
ArrayRef<const char *> sizesOf(const GroupedGemmSite &) {
  return kGroupedGemmSizes;
}

/// A refusal of a stored config: the config field and why.
struct ConfigRefusal {
  std::string field, message;
};

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
    tuningDbs = &dbs; // for chooseGrouped, during this run
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
      bool stale = false;
      AttentionConfigAttr config = measuredChoice(op, *parsed, dbs, stale);
      if (!config && useModel)
        config = modelChoice(op, *parsed);
      if (!config)
        config = defaultAttentionConfig(op, *parsed, &refusal);
      if (stale && config &&
          !llvm::is_contained({ConfigSource::measured, ConfigSource::nearest},
                              config.getSource()))
        remarkStale(op, config.getSource() == ConfigSource::model);
      if (config)
        op.setConfigAttr(config);
      else // not an error: the reference semantics still run it
        emitRemark(op.getLoc())
            << "no kernel family lowers this attention on "
            << stringifyTarget(*parsed) << " (" << refusal.str()
            << "): it stays without a config, on the reference path";
    });
    getOperation()->walk([&](Operation *op) {
      if (auto moe = dyn_cast<MoeOp>(op)) {
        if (moe.getGateUpConfigAttr() && moe.getDownConfigAttr())
          return;
        if (std::optional<std::string> why = moeKernelsRefuse(moe)) {
          emitRemark(op->getLoc())
              << *why << ": it stays without configs, on the reference path";
          return;
        }
        GroupedGemmConfigAttr gateUp = chooseGrouped(
            op, "MoE layer's gated expert GEMM",
            GroupedGemmProblem::gateUp(moe), *parsed);
        GroupedGemmConfigAttr down =
            gateUp ? chooseGrouped(op, "MoE layer's down expert GEMM",
                                   GroupedGemmProblem::down(moe), *parsed)
                   : GroupedGemmConfigAttr();
        if (gateUp && down) {
          bool setGateUp = !moe.getGateUpConfigAttr(),
               setDown = !moe.getDownConfigAttr();
          if (setGateUp)
            moe.setGateUpConfigAttr(gateUp);
          if (setDown)
            moe.setDownConfigAttr(down);
          // A shared expert runs on these configs too: legal for its shapes?
          if (std::optional<std::string> why = moeKernelsRefuse(moe)) {
            emitRemark(op->getLoc())
                << *why << ": it stays without configs, on the reference path";
            if (setGateUp)
              moe.removeGateUpConfigAttr();
            if (setDown)
              moe.removeDownConfigAttr();
          }
        }
      } else if (auto g = dyn_cast<GroupedGemmOp>(op); g && !g.getConfigAttr()) {
        if (GroupedGemmConfigAttr c = chooseGrouped(
                op, "grouped GEMM", GroupedGemmProblem::of(g), *parsed))
          g.setConfigAttr(c);
      }
    });
  }

  /// The config of one grouped GEMM (a kgen.moe's expert GEMM or a
  /// kgen.grouped_gemm), as for gemm: measured (an entry of its grouped
  /// GEMM key: role, sizes, types and tokens bucket, same target and
  /// toolchain), else nearest (another tokens bucket of the same regime,
  /// isDecodeGroupedGemm), each re-checked against the grouped GEMM
  /// legality for this op; else the cost model's fastest legal config when
  /// it decides (source = model, its prediction in the entry); else the
  /// heuristic's (source = default). Null, with a remark that says why,
  /// when none lowers it (it stays on the reference path).
  GroupedGemmConfigAttr chooseGrouped(Operation *op, StringRef what,
                                      const GroupedGemmProblem &problem,
                                      Target t) {
    MLIRContext *ctx = op->getContext();
    bool stale = false;
    if (tuningDbs && !tuningDbs->empty())
      if (std::optional<GroupedGemmSite> site = groupedSite(op, problem))
        if (GroupedGemmConfigAttr measured =
                measuredChoice<GroupedGemmSite, GroupedGemmConfigAttr>(
                    *site, t, *tuningDbs, stale))
          return measured;
    GroupedGemmConfigAttr modelled;
    if (useModel) {
      std::optional<GroupedGemmConfigFields> best;
      double bestMs = INFINITY;
      for (const GroupedGemmConfigFields &f :
           enumerateGroupedGemmConfigs(problem, t)) {
        double ms = predictGroupedGemmMs(problem, f, machine, ctx);
        if (ms < bestMs) {
          best = f;
          bestMs = ms;
        }
      }
      if (best)
        modelled = groupedGemmConfigAttr(
            ctx, *best, ConfigSource::model,
            llvm::formatv("{0}: {1:F4} ms predicted", modelLabel, bestMs)
                .str());
    }
    if (stale)
      remarkStale(op, bool(modelled), what);
    if (modelled)
      return modelled;
    GroupedGemmLegalityError refusal;
    if (std::optional<GroupedGemmConfigFields> f =
            defaultGroupedGemmFields(problem, t, &refusal))
      return groupedGemmConfigAttr(ctx, *f, ConfigSource::default_, "");
    emitRemark(op->getLoc())
        << "no kernel family lowers this " << what << " on "
        << stringifyTarget(t) << " (" << refusal.str()
        << "): it stays without a config, on the reference path";
    return {};
  }

  /// The tuning lookup's view of `problem`, a grouped GEMM of `op`: role
  /// gate_up (gated) or down of a kgen.moe, grouped for a
  /// kgen.grouped_gemm; nullopt when its signature makes no key.
  std::optional<GroupedGemmSite> groupedSite(Operation *op,
                                             const GroupedGemmProblem &problem) {
    nlohmann::json signature;
    std::string role;
    if (auto moe = dyn_cast<MoeOp>(op)) {
      signature = toJson(moeSignature(moe));
      role = problem.gated ? "gate_up" : "down";
    } else if (auto g = dyn_cast<GroupedGemmOp>(op)) {
      signature = toJson(groupedGemmSignature(g));
      role = "grouped";
    } else {
      return std::nullopt;
    }
    GroupedGemmSite site{op, problem, nlohmann::json()};
    std::string err;
    if (!rt::groupedGemmKeyOp(signature, role, site.keyOp, err))
      return std::nullopt;
    return site;
  }

  bool useModel = false;
  /// The databases runOnOperation read, while it runs.
  const std::vector<NamedDb> *tuningDbs = nullptr;
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
  template <typename Op> rt::TuningKey keyFor(Op op, Target t) {
    rt::TuningKey key;
    key.op = toJson(signatureOf(op));
    key.arch = stringifyTarget(t).str();
    key.device = device;
    key.cudaVersion = KGEN_CUDA_VERSION;
    key.emitterVersion = kEmitterVersion;
    return key;
  }

  /// The key a measurement of a grouped GEMM on this target and toolchain
  /// has: its key op.
  rt::TuningKey keyFor(const GroupedGemmSite &site, Target t) {
    rt::TuningKey key;
    key.op = site.keyOp;
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
                   const ConfigRefusal &refusal, StringRef rule) {
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
  /// is legal for `op`, if any. A config no op of the family can have (a
  /// field missing, block_m 7: the legality's rules for every op) is a
  /// broken database: warned about, once per entry. One the legality
  /// refuses for `op` is warned about too when the entry is `op`'s own
  /// (`exact`); for another shape (the nearest entry) it may just not fit
  /// this one: skipped.
  GemmConfigAttr bestFor(GemmOp op, const NamedDb &named, size_t index,
                         ConfigSource source, StringRef label, bool exact) {
    const rt::TuningEntry &entry = named.db.entries[index];
    GemmOperands operands = GemmOperands::of(op);
    for (const rt::TuningCandidate *c : entry.ranked()) {
      const size_t position = size_t(c - entry.candidates.data());
      GemmLegalityError refusal;
      std::optional<GemmConfigFields> fields = configFields(c->config, refusal);
      if (!fields) {
        warnRefused(named, index, *c, position,
                    {refusal.field, refusal.message}, "");
        continue;
      }
      if (std::optional<GemmLegalityError> e = checkGemmLegality(*fields)) {
        warnRefused(named, index, *c, position, {e->field, e->message},
                    " (gemm legality)");
        continue;
      }
      if (std::optional<GemmLegalityError> e =
              checkGemmLegality(*fields, &operands)) {
        if (exact)
          warnRefused(named, index, *c, position, {e->field, e->message},
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

  /// bestFor of an attention: the same rules with the attention legality.
  /// A config borrowed from the nearest shape must also give every split
  /// of the key range a key tile (split_kv at most ceil(seq_kv / block_n),
  /// as the search space): a decode of 128k keys may split 64 ways, one of
  /// 1k keys at block_n 64 has 16 key tiles.
  AttentionConfigAttr bestFor(AttentionOp op, const NamedDb &named,
                              size_t index, ConfigSource source,
                              StringRef label, bool exact) {
    const rt::TuningEntry &entry = named.db.entries[index];
    AttentionOperands operands = AttentionOperands::of(op);
    for (const rt::TuningCandidate *c : entry.ranked()) {
      const size_t position = size_t(c - entry.candidates.data());
      AttentionLegalityError refusal;
      std::optional<AttentionConfigFields> fields =
          attentionFieldsFromJson(c->config, refusal);
      if (!fields) {
        warnRefused(named, index, *c, position,
                    {refusal.field, refusal.message}, "");
        continue;
      }
      if (std::optional<AttentionLegalityError> e =
              checkAttentionLegality(*fields)) {
        warnRefused(named, index, *c, position, {e->field, e->message},
                    " (attention legality)");
        continue;
      }
      if (std::optional<AttentionLegalityError> e =
              checkAttentionLegality(*fields, &operands)) {
        if (exact)
          warnRefused(named, index, *c, position, {e->field, e->message},
                      " (attention legality, for this attention)");
        continue;
      }
      int64_t keyTiles = llvm::divideCeil(op.getSeqKv(), fields->blockN);
      if (!exact && fields->splitKv > 1 && fields->splitKv > keyTiles)
        continue;
      return attentionConfigAttr(op.getContext(), *fields, source, label);
    }
    return {};
  }

  /// bestFor of a grouped GEMM: the same rules with the grouped GEMM
  /// legality (dialect/GroupedGemmLegality.h), for this grouped GEMM's
  /// operands (a borrowed block_m need not fit its rows: it is legal, and
  /// the regime keeps it near).
  GroupedGemmConfigAttr bestFor(const GroupedGemmSite &site,
                                const NamedDb &named, size_t index,
                                ConfigSource source, StringRef label,
                                bool exact) {
    const rt::TuningEntry &entry = named.db.entries[index];
    GroupedGemmOperands operands = site.problem.operands();
    for (const rt::TuningCandidate *c : entry.ranked()) {
      const size_t position = size_t(c - entry.candidates.data());
      GroupedGemmLegalityError refusal;
      std::optional<GroupedGemmConfigFields> fields =
          groupedGemmFieldsFromJson(c->config, refusal);
      if (!fields) {
        warnRefused(named, index, *c, position,
                    {refusal.field, refusal.message}, "");
        continue;
      }
      if (std::optional<GroupedGemmLegalityError> e =
              checkGroupedGemmLegality(*fields)) {
        warnRefused(named, index, *c, position, {e->field, e->message},
                    " (grouped GEMM legality)");
        continue;
      }
      if (std::optional<GroupedGemmLegalityError> e =
              checkGroupedGemmLegality(*fields, &operands)) {
        if (exact)
          warnRefused(named, index, *c, position, {e->field, e->message},
                      " (grouped GEMM legality, for this grouped GEMM)");
        continue;
      }
      return groupedGemmConfigAttr(site.getContext(), *fields, source, label);
    }
    return {};
  }

  /// The measured config of `op`, from databases: the fastest legal
  /// candidate of an entry with the same op, target and toolchain (the
  /// first database that has one wins), else the nearest measured shape:
  /// an entry of the same op but for its sizes (sizesOf) and of its regime
  /// (sameRegime), same target and toolchain, at the smallest shapeDistance
  /// whose candidates hold a config legal for `op`. `stale` set when an entry of the same op and
  /// target was measured with another toolchain.
  template <typename Op,
            typename Attr = decltype(std::declval<Op>().getConfigAttr())>
  Attr measuredChoice(Op op, Target t, const std::vector<NamedDb> &dbs,
                      bool &stale) {
    rt::TuningKey key = keyFor(op, t);
    auto where = [&](const rt::TuningKey &k) {
      return k.device.empty() ? k.arch : k.device;
    };
    // Exact: same op, target and toolchain; first database wins.
    for (const NamedDb &named : dbs)
      for (auto [index, entry] : llvm::enumerate(named.db.entries)) {
        if (!entry.key.sameOpAndTarget(key))
          continue;
        if (!entry.key.sameToolchain(key)) {
          stale = true;
          continue;
        }
        std::string label = named.path + ": " + shapeText(op, entry.key.op) +
                            " on " + where(entry.key);
        if (Attr c = bestFor(op, named, index, ConfigSource::measured, label,
                             /*exact=*/true))
          return c;
      }
    // Nearest: the same op at other sizes, same target and toolchain.
    nlohmann::json unsized = withoutSizes(key.op, sizesOf(op));
    Attr nearest;
    double nearestDistance = INFINITY;
    for (const NamedDb &named : dbs)
      for (auto [index, entry] : llvm::enumerate(named.db.entries)) {
        if (entry.key.arch != key.arch || !entry.key.sameToolchain(key) ||
            (!key.device.empty() && !entry.key.device.empty() &&
             entry.key.device != key.device) ||
            withoutSizes(entry.key.op, sizesOf(op)) != unsized ||
            !sameRegime(op, entry.key.op))
          continue;
        double d = shapeDistance(entry.key.op, key.op, sizesOf(op));
        if (d >= nearestDistance)
          continue;
        std::string label = named.path + ": nearest " +
                            shapeText(op, entry.key.op) + " on " +
                            where(entry.key);
        if (Attr c = bestFor(op, named, index, ConfigSource::nearest, label,
                             /*exact=*/false)) {
          nearest = c;
          nearestDistance = d;
        }
      }
    return nearest;
  }

  /// Says that `op`'s only measurements are of another toolchain (`what`:
  /// which of its GEMMs, when not the op itself).
  void remarkStale(Operation *op, bool modelled, StringRef what = {}) {
    emitRemark(op->getLoc())
        << "tuning entries for this "
        << (!what.empty()      ? what
            : isa<GemmOp>(op) ? StringRef("gemm")
                              : StringRef("attention"))
        << " were measured with another toolchain (now CUDA "
        << KGEN_CUDA_VERSION << ", emitter " << kEmitterVersion << "): stale, "
        << (modelled ? "the cost model decides" : "using the default strategy");
  }

  GemmConfigAttr choose(GemmOp op, Target t, const std::vector<NamedDb> &dbs) {
    bool stale = false;
    if (GemmConfigAttr measured = measuredChoice(op, t, dbs, stale))
      return measured;
    GemmConfigAttr modelled = useModel ? modelChoice(op, t) : GemmConfigAttr();
    if (stale)
      remarkStale(op, bool(modelled));
    if (modelled)
      return modelled;
    FailureOr<GemmConfigAttr> fallback = defaultGemmConfig(op, t);
    return succeeded(fallback) ? *fallback : GemmConfigAttr();
  }
};
} // namespace
