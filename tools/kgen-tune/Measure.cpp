//===- Measure.cpp - kgen-tune's measured search --------------------------===//
//
// Per gemm, in order:
//   1. candidates: the default heuristic's config, then the cost model's
//      ranking, up to the budget (measurementBudget);
//   2. packages: lowered and emitted one by one (fast), compiled with NVRTC
//      on `jobs` threads (slow), dropped on a compile error, a stack frame
//      or spills;
//   3. measurement: kgen-bench in batches, each a child process, until the
//      candidates or the seconds run out. kgen-bench times cuBLASLt on the
//      same problem just before each kernel, in the same process: a kernel's
//      time over that baseline's is free of the drift between runs (clocks,
//      temperature, neighbours), and candidates are compared on it;
//   4. re-measurement: the best few (pickFinalists) in `rounds` interleaved
//      rounds, rotating their order; pairedScores over all their runs
//      decides;
//   5. every measured candidate into the database, at its drift-corrected
//      time: its ratio to the baseline times the baseline's median over all
//      the runs (raw times when a baseline is missing).
//
//===----------------------------------------------------------------------===//

#include "tools/kgen-tune/Measure.h"

#include "passes/CostModelFile.h"

#include "codegen/emit/EmitCuda.h"
#include "dialect/AttentionJson.h"
#include "dialect/GemmJson.h"
#include "kgen/runtime/Package.h"
#include "kgen/runtime/Results.h"
#include "kgen/runtime/Search.h"
#include "dialect/MoeJson.h"
#include "dialect/MoeLegality.h"
#include "passes/AttentionStrategy.h"
#include "passes/MoeStrategy.h"
#include "passes/Passes.h"
#include "passes/Strategy.h"

#if KGEN_HAVE_NVRTC
#include "kgen/runtime/Nvrtc.h"
#endif

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <chrono>
#include <cmath>
#include <thread>

using namespace mlir;
using mlir::kgen::GemmConfigAttr;
using mlir::kgen::GemmOp;
namespace rt = ::kgen::rt;

namespace kgen::tune {
namespace {
using Clock = std::chrono::steady_clock;

/// kgen-bench's exit code when it finds no CUDA device.
constexpr int kBenchNoDevice = 3;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// A candidate of the search and what became of it: the op it is a config
/// of is known only to `emit`.
struct Candidate {
  std::string summary;          // configSummary of its config
  bool isDefault = false;
  double predictedMs = 0;
  /// Writes its package, uncompiled, under the folder given.
  std::function<bool(const std::string &, std::string &)> emit;
  std::string dir;              // its package
  std::string dropped;          // why it was not measured, if it was not
};

/// Runs kgen-bench on `dirs` into `out`. Returns its exit code, or -1 when
/// it could not be started or was killed (with `err`).
int runBench(const MeasureOptions &o, const std::vector<std::string> &dirs,
             const std::string &out, double timeoutSeconds, std::string &err) {
  std::vector<std::string> args = {o.benchPath, "run"};
  args.insert(args.end(), dirs.begin(), dirs.end());
  for (const char *a : {"--min-samples", "10", "--target-ms", "200"})
    args.push_back(a);
  args.insert(args.end(), {"--out", out, "--seed", std::to_string(o.seed),
                           "--timeout", "60"});
  if (!o.cacheDir.empty())
    args.insert(args.end(), {"--cache", o.cacheDir});
  if (!o.ceilingsPath.empty())
    args.insert(args.end(), {"--ceilings", o.ceilingsPath});
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  bool failedToStart = false;
  int code = llvm::sys::ExecuteAndWait(
      o.benchPath, argRefs, /*Env=*/std::nullopt, /*Redirects=*/{},
      static_cast<unsigned>(std::max(1.0, std::ceil(timeoutSeconds))),
      /*MemoryLimit=*/0, &err, &failedToStart);
  if (failedToStart || code < 0) {
    err = o.benchPath + ": " + (err.empty() ? "did not finish" : err);
    return -1;
  }
  return code;
}

/// The measured search of one op (a gemm, or one expert GEMM of a kgen.moe)
/// over `candidates`, in order, already cut to the budget; its packages and
/// results under workDir/`name`.
class Search {
public:
  Search(std::string name, std::vector<Candidate> candidates,
         const MeasureOptions &o, rt::TuningDb &db,
         GemmSearchSummary &summary)
      : name_(std::move(name)), o_(o), db_(db), summary_(summary),
        candidates_(std::move(candidates)) {}

  rt::SearchStatus run();

private:
  void emitPackages();
  void compilePackages();
  rt::SearchStatus measureBatch(const std::vector<size_t> &indices,
                                std::vector<rt::CandidateRun> &runs,
                                std::string &err);
  void printProgress(const std::vector<size_t> &indices);
  void printRounds();
  void record();
  std::string packageDir(size_t i) const;
  /// The name kgen-bench reports candidate i's package under.
  std::string packageName(size_t i) const {
    std::string name = name_;
    std::replace(name.begin(), name.end(), '/', '_');
    return name + "_c" + std::to_string(i);
  }
  double remaining() const { return o_.maxSeconds - secondsSince(start_); }

  std::string name_; // "gemm0", "moe0/gate_up"
  const MeasureOptions &o_;
  rt::TuningDb &db_;
  GemmSearchSummary &summary_;
  Clock::time_point start_ = Clock::now();
  std::vector<Candidate> candidates_;
  // Measured indices -> their package dirs, for kgen-bench; what the
  // search found.
  std::vector<size_t> measuredOrder_; // the search's candidates, in order
  rt::SearchOutcome outcome_;
  rt::DeviceInfo device_;
  std::string createdAt_, host_;
  size_t batchNumber_ = 0;
};

std::string Search::packageDir(size_t i) const {
  llvm::SmallString<256> dir(o_.workDir);
  llvm::sys::path::append(dir, name_, "c" + std::to_string(i));
  return dir.str().str();
}

/// The first `budget` of `ranked` (at least one) as candidates, each
/// emitted by `emit(config, predictedMs, dir, why)`; the header line
/// printed: `what`, the space and the share measured.
template <typename Config, typename Emit>
std::vector<Candidate> firstCandidates(ArrayRef<Ranked<Config>> ranked,
                                       size_t space, const MeasureOptions &o,
                                       const std::string &what, Emit emit) {
  std::vector<Candidate> out;
  size_t budget = std::max<size_t>(
      1, rt::measurementBudget(space, o.maxCandidates));
  for (const Ranked<Config> &r : ranked) {
    if (out.size() >= budget)
      break;
    Config config = r.config;
    double predicted = r.predictedMs;
    out.push_back({configSummary(config), r.isDefault, predicted,
                   [=](const std::string &dir, std::string &why) {
                     return emit(config, predicted, dir, why);
                   }});
  }
  llvm::outs() << llvm::formatv(
      "{0}: {1} valid configs; measuring {2} ({3:P0} of the space): the "
      "default and the model's best\n",
      what, space, out.size(),
      space == 0 ? 0.0 : double(out.size()) / double(space));
  return out;
}

void Search::emitPackages() {
  for (size_t i = 0; i < candidates_.size(); ++i) {
    Candidate &c = candidates_[i];
    c.dir = packageDir(i);
    (void)llvm::sys::fs::remove_directories(c.dir);
    std::string why;
    // compilePackages compiles them, in parallel.
    if (!c.emit(c.dir, why))
      c.dropped = "not emitted: " + why;
  }
}

void Search::compilePackages() {
  Clock::time_point begin = Clock::now();
  std::vector<std::string> dirs, names;
  std::vector<size_t> which;
  for (size_t i = 0; i < candidates_.size(); ++i)
    if (candidates_[i].dropped.empty()) {
      dirs.push_back(candidates_[i].dir);
      // Named apart, for the results and the reader.
      names.push_back(packageName(i));
      which.push_back(i);
    }
  unsigned threads = 0;
  std::vector<CompiledCandidate> compiled =
      compileCandidates(dirs, names, o_.cacheDir, o_.jobs, threads);
  for (auto [i, c] : llvm::zip(which, compiled)) {
    candidates_[i].dropped = c.dropped;
    candidates_[i].dir = c.packageDir;
  }
  size_t dropped = llvm::count_if(
      candidates_, [](const Candidate &c) { return !c.dropped.empty(); });
  llvm::outs() << llvm::formatv(
      "  compiled {0} packages in {1:F1} s on {2} threads; {3} dropped\n",
      candidates_.size() - dropped, secondsSince(begin), threads, dropped);
  for (const Candidate &c : candidates_)
    if (!c.dropped.empty())
      llvm::outs() << "  dropped  " << c.summary << ": " << c.dropped
                   << "\n";
}

rt::SearchStatus Search::measureBatch(const std::vector<size_t> &indices,
                                          std::vector<rt::CandidateRun> &runs,
                                          std::string &err) {
  std::vector<std::string> dirs;
  for (size_t i : indices)
    dirs.push_back(candidates_[measuredOrder_[i]].dir);
  std::string out = o_.workDir + "/" + name_ + "/run-" +
                    std::to_string(batchNumber_++) + ".json";
  // Room for the device probe and kgen-bench's own limit per package.
  double limit = 60 + 60 * double(dirs.size()) + std::max(0.0, remaining());
  int code = runBench(o_, dirs, out, limit, err);
  if (code == kBenchNoDevice)
    return rt::SearchStatus::NoDevice;
  rt::ResultsFile file;
  std::string readErr;
  if (!rt::readResults(out, file, readErr)) {
    // Nothing reported (it failed before the first package): a usage or
    // setup error stops the search.
    err = "kgen-bench failed (exit " + std::to_string(code) + "): " + err +
          (err.empty() ? "" : "; ") + readErr;
    return rt::SearchStatus::Failed;
  }
  if (code != 0 && code != 1)
    llvm::outs() << "  kgen-bench stopped early (exit " << code << "; " << err
                 << "): the packages it did not report stay unmeasured\n";
  device_ = file.device;
  createdAt_ = file.createdAt;
  host_ = file.host;
  std::map<std::string, const rt::KernelResult *> byName;
  for (const rt::KernelResult &r : file.results)
    byName[r.name] = &r;
  for (size_t k = 0; k < indices.size(); ++k) {
    auto kernel = byName.find(packageName(measuredOrder_[indices[k]]));
    if (kernel == byName.end())
      continue; // reported nothing: stays unmeasured
    runs[k].result = *kernel->second;
    auto base = byName.find(kernel->second->baseline);
    if (base != byName.end() && base->second->time)
      runs[k].baselineMs = base->second->time->medianMs;
  }
  return rt::SearchStatus::Ok;
}

void Search::printProgress(const std::vector<size_t> &indices) {
  for (size_t i : indices) {
    const rt::CandidateRun &run = outcome_.first[i];
    const Candidate &c = candidates_[measuredOrder_[i]];
    std::string what;
    if (!run.result)
      what = "kgen-bench reported nothing for it";
    else if (!rt::correctRun(run))
      what = std::string(rt::runStatusName(run.result->status)) + ": " +
             run.result->reason.substr(0, 80);
    else
      what = llvm::formatv("{0,9:F4} ms  (model {1:F4} ms)",
                           run.result->time->medianMs, c.predictedMs)
                 .str() +
             (std::isnan(run.baselineMs)
                  ? std::string()
                  : llvm::formatv("  cuBLASLt {0:F4} ms", run.baselineMs)
                        .str());
    llvm::outs() << llvm::formatv("  [{0}/{1}] {2,-36} {3}{4}\n", i + 1,
                                  measuredOrder_.size(),
                                  c.summary, what,
                                  c.isDefault ? "  (default)" : "");
  }
  llvm::outs().flush();
}

void Search::printRounds() {
  const rt::SearchOutcome &o = outcome_;
  size_t rounds = o.finalistRuns.empty() ? 0 : o.finalistRuns.front().size() - 1;
  if (o.budgetSpent)
    llvm::outs() << "  time budget of " << llvm::format("%g", o_.maxSeconds)
                 << " s spent: " << o.measured << " of "
                 << measuredOrder_.size() << " candidates measured, "
                 << rounds << " re-measurement rounds\n";
  if (o.finalistRuns.empty())
    return;
  llvm::outs() << llvm::formatv(
      "  re-measured the best {0} in {1} more interleaved rounds; paired "
      "scores (1 = the runs' median){2}:\n",
      o.finalists.size(), rounds,
      o.usesBaselines ? ", on time over cuBLASLt in the same process" : "");
  double scale = o.scale();
  for (size_t f = 0; f < o.finalists.size(); ++f) {
    if (std::isnan(o.scores[f]))
      continue;
    std::string runs;
    for (double v : o.finalistRuns[f])
      runs += llvm::formatv(" {0:F4}", v * scale).str();
    llvm::outs() << llvm::formatv(
        "    {0,-36} {1:F3}  -> {2:F4} ms   runs:{3}\n",
        candidates_[measuredOrder_[o.finalists[f]]].summary,
        o.scores[f], o.correctedMs(o.finalists[f]), runs);
  }
}

void Search::record() {
  rt::addToDb(outcome_, device_, createdAt_, host_, db_);
  for (size_t i = 0; i < measuredOrder_.size(); ++i) {
    double ms = outcome_.correctedMs(i);
    if (std::isnan(ms))
      continue;
    const Candidate &c = candidates_[measuredOrder_[i]];
    if (c.isDefault)
      summary_.defaultMs = ms;
    if (!summary_.bestMs || ms < *summary_.bestMs) {
      summary_.bestMs = ms;
      summary_.bestConfig = c.summary;
    }
  }
  summary_.measured = outcome_.measured;
  // The database may hold this op from earlier runs (or an identical gemm
  // of the module): selection takes its best over all of them.
  std::optional<size_t> best = outcome_.best();
  if (!best)
    return;
  const rt::KernelResult &mine = *outcome_.first[*best].result;
  const rt::TuningEntry *entry = db_.find(rt::tuningKeyFor(mine, device_));
  const rt::TuningCandidate *dbBest = entry ? entry->best() : nullptr;
  nlohmann::json keyOp, myConfig = mine.config;
  std::string err;
  (void)rt::tuningRecordOf(mine.op, mine.config, keyOp, myConfig, err);
  if (dbBest && strategyOf(dbBest->config) != strategyOf(myConfig))
    llvm::outs() << "  note: the database's best for this op is another "
                    "config, measured "
                 << dbBest->measuredAt << " on " << dbBest->host << " ("
                 << llvm::format("%.4f", dbBest->time->medianMs)
                 << " ms): kgen-select-strategy takes that one\n";
}

rt::SearchStatus Search::run() {
  summary_.space = std::max(summary_.space, candidates_.size());
  if (candidates_.empty()) {
    llvm::outs() << "  no candidate\n";
    return rt::SearchStatus::Failed;
  }
  emitPackages();
  compilePackages();
  for (size_t i = 0; i < candidates_.size(); ++i)
    if (candidates_[i].dropped.empty())
      measuredOrder_.push_back(i);
  rt::SearchOptions options;
  options.maxSeconds = remaining();
  options.finalists = o_.finalists;
  options.rounds = o_.rounds;
  options.window = o_.finalistWindow;
  std::string err;
  rt::SearchStatus status = rt::searchCandidates(
      measuredOrder_.size(), options,
      [&](const std::vector<size_t> &indices,
          std::vector<rt::CandidateRun> &runs, std::string &e) {
        return measureBatch(indices, runs, e);
      },
      [&](const std::vector<size_t> &indices) { printProgress(indices); },
      outcome_, err);
  summary_.seconds = secondsSince(start_);
  if (status == rt::SearchStatus::NoDevice)
    return status;
  if (status == rt::SearchStatus::Failed) {
    llvm::outs() << "  " << err << "\n";
    return rt::SearchStatus::Failed;
  }
  printRounds();
  record();
  if (!summary_.bestMs) {
    llvm::outs() << (measuredOrder_.empty() ? "  every candidate was dropped "
                                              "before measuring\n"
                     : outcome_.measured == 0
                         ? "  the time budget was spent before measuring "
                           "(compiling took it)\n"
                         : "  no candidate ran correctly\n");
    return rt::SearchStatus::Failed;
  }
  return rt::SearchStatus::Ok;
}

} // namespace

/// `op` alone in a new module, as `func @main`, its clone given its
/// configs by `configure`.
template <typename Op, typename Configure>
static OwningOpRef<ModuleOp> isolateWith(Op op, Configure configure) {
  OpBuilder b(op.getContext());
  Location loc = op.getLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(
      b, loc, "main",
      b.getFunctionType(op->getOperandTypes(), op->getResultTypes()));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  IRMapping map;
  map.map(op->getOperands(), entry->getArguments());
  auto clone = cast<Op>(b.clone(*op, map));
  configure(clone);
  func::ReturnOp::create(b, loc, clone->getResults());
  return module;
}

/// `op` alone in a new module, as `func @main`, with `config`.
template <typename Op, typename Config>
static OwningOpRef<ModuleOp> isolate(Op op, Config config) {
  return isolateWith(op, [&](Op clone) { clone.setConfigAttr(config); });
}

OwningOpRef<ModuleOp> isolateGemm(GemmOp gemm, GemmConfigAttr config) {
  return isolate(gemm, config);
}

SmallVector<RankedConfig> rankCandidates(GemmOp gemm, mlir::kgen::Target target,
                                         const mlir::kgen::MachineModel &machine,
                                         bool defaultFirst, size_t &spaceSize) {
  SmallVector<GemmConfigAttr> configs =
      mlir::kgen::enumerateGemmConfigs(gemm, target);
  spaceSize = configs.size();
  SmallVector<RankedConfig> out;
  GemmConfigAttr def;
  if (defaultFirst) {
    FailureOr<GemmConfigAttr> fallback =
        mlir::kgen::defaultGemmConfig(gemm, target);
    if (succeeded(fallback))
      def = *fallback;
  }
  nlohmann::json defStrategy = def ? strategyOf(def) : nlohmann::json();
  if (def)
    out.push_back({def, mlir::kgen::predictGemmMs(gemm, def, machine), true});
  SmallVector<RankedConfig> ranked;
  for (GemmConfigAttr c : configs)
    if (!def || strategyOf(c) != defStrategy)
      ranked.push_back({c, mlir::kgen::predictGemmMs(gemm, c, machine), false});
  llvm::stable_sort(ranked, [](const RankedConfig &x, const RankedConfig &y) {
    return x.predictedMs < y.predictedMs;
  });
  // Diversity first: the model ranks the stages and rasterisations of one
  // tile almost alike, and is not trusted to 25%. So the best config of
  // each tile class (family, block tile, split, cluster) predicted within
  // kTrust of the best comes first, then the rest in predicted order.
  constexpr double kTrust = 1.25;
  SmallVector<RankedConfig> leaders, rest;
  std::set<std::string> classes;
  for (const RankedConfig &r : ranked) {
    GemmConfigAttr c = r.config;
    std::string key = llvm::formatv(
        "{0} {1}x{2}x{3} k{4} c{5}",
        mlir::kgen::stringifyInstructionFamily(c.getInstruction()),
        c.getBlockM(), c.getBlockN(), c.getBlockK(), c.getSplitK(),
        c.getClusterM());
    bool trusted = !ranked.empty() &&
                   r.predictedMs <= kTrust * ranked.front().predictedMs;
    if (trusted && classes.insert(key).second)
      leaders.push_back(r);
    else
      rest.push_back(r);
  }
  out.append(leaders.begin(), leaders.end());
  out.append(rest.begin(), rest.end());
  return out;
}

/// Records the model's prediction in a flat config.
static std::function<void(nlohmann::json &)> predictedAs(double ms) {
  return [ms](nlohmann::json &config) { config["predicted_ms"] = ms; };
}

/// The one package folder under a candidate's folder.
static std::string onlyPackage(const std::string &dir) {
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    return it->path();
  return "";
}

/// Lowers `module` (one op with its config) with `lower`, writes its
/// package under `dir` uncompiled, and lets `annotate` add to the
/// manifest's config (the model's predictions).
static bool
emitIsolated(ModuleOp module, std::unique_ptr<Pass> lower,
             const std::function<void(nlohmann::json &)> &annotate,
             const std::string &dir, std::string &why) {
  MLIRContext *ctx = module.getContext();
  std::string diagnostics;
  llvm::raw_string_ostream diagStream(diagnostics);
  ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &d) {
    diagStream << d << "; ";
    return success();
  });
  PassManager pm(ctx);
  pm.addPass(std::move(lower));
  mlir::kgen::KgenEmitPackagesOptions emit;
  emit.outputDir = dir;
  emit.compile = false; // compileCandidates compiles them in parallel
  pm.addPass(mlir::kgen::createKgenEmitPackages(emit));
  if (failed(pm.run(module))) {
    why = diagnostics;
    return false;
  }
  rt::KernelPackage pkg;
  std::string package = onlyPackage(dir);
  if (package.empty() || !rt::loadPackage(package, pkg, why)) {
    why = "no package written under " + dir + (why.empty() ? "" : ": " + why);
    return false;
  }
  if (pkg.config.is_object())
    annotate(pkg.config);
  return rt::writePackage(package, pkg, why);
}

bool emitCandidate(GemmOp gemm, GemmConfigAttr config, double predictedMs,
                   const std::string &dir, std::string &why) {
  OwningOpRef<ModuleOp> module = isolate(gemm, config);
  return emitIsolated(*module, mlir::kgen::createKgenLowerGemmToTiles(),
                      predictedAs(predictedMs), dir, why);
}

bool emitCandidate(mlir::kgen::AttentionOp attention,
                   mlir::kgen::AttentionConfigAttr config, double predictedMs,
                   const std::string &dir, std::string &why) {
  OwningOpRef<ModuleOp> module = isolate(attention, config);
  return emitIsolated(*module, mlir::kgen::createKgenLowerAttentionToTiles(),
                      predictedAs(predictedMs), dir, why);
}

bool emitMoeCandidate(mlir::kgen::MoeOp moe, llvm::StringRef role,
                      mlir::kgen::GroupedGemmConfigAttr config,
                      double predictedMs,
                      mlir::kgen::GroupedGemmConfigAttr paired,
                      double pairedMs, const std::string &dir,
                      std::string &why) {
  const bool gateUp = role == "gate_up";
  OwningOpRef<ModuleOp> module =
      isolateWith(moe, [&](mlir::kgen::MoeOp clone) {
        clone.setGateUpConfigAttr(gateUp ? config : paired);
        clone.setDownConfigAttr(gateUp ? paired : config);
      });
  std::string tuned = role.str();
  auto annotate = [&](nlohmann::json &c) {
    const std::string other = gateUp ? "down" : "gate_up";
    if (c.contains(tuned) && c[tuned].is_object())
      c[tuned]["predicted_ms"] = predictedMs;
    if (c.contains(other) && c[other].is_object())
      c[other]["predicted_ms"] = pairedMs;
    c["tuned_role"] = tuned; // the database key's role (rt::tuningRecordOf)
  };
  return emitIsolated(*module, mlir::kgen::createKgenLowerMoeToTiles(),
                      annotate, dir, why);
}

/// `space` in the order to measure it: `def` first (the heuristic's, its
/// strategy once), then the rest, fastest predicted first (of equal
/// predictions, the space's order). `attr(fields, source)` makes a config.
template <typename Fields, typename Attr, typename MakeAttr, typename Predict>
static SmallVector<Ranked<Attr>>
rankFields(ArrayRef<Fields> space, const std::optional<Fields> &def,
           MakeAttr attr, Predict predict) {
  using mlir::kgen::ConfigSource;
  SmallVector<Ranked<Attr>> out, ranked;
  nlohmann::json defStrategy;
  if (def) {
    Attr c = attr(*def, ConfigSource::default_);
    defStrategy = strategyOf(c);
    out.push_back({c, predict(*def), true});
  }
  for (const Fields &f : space) {
    Attr c = attr(f, ConfigSource::model);
    if (!def || strategyOf(c) != defStrategy)
      ranked.push_back({c, predict(f), false});
  }
  llvm::stable_sort(ranked, [](const Ranked<Attr> &x, const Ranked<Attr> &y) {
    return x.predictedMs < y.predictedMs;
  });
  out.append(ranked.begin(), ranked.end());
  return out;
}

std::string moeShape(mlir::kgen::MoeOp moe) {
  auto x = cast<RankedTensorType>(moe.getX().getType());
  auto wg = cast<RankedTensorType>(moe.getWGate().getType());
  return llvm::formatv("T{0} H{1} I{2} E{3} top{4} {5}{6}", x.getDimSize(0),
                       x.getDimSize(1), wg.getDimSize(2), wg.getDimSize(0),
                       moe.getTopK(), x.getElementType(),
                       moe.getScales().empty() ? ""
                                               : ", e4m3 block-scaled weights")
      .str();
}

std::optional<MoeRoleRanking>
rankMoeRole(mlir::kgen::MoeOp moe, llvm::StringRef role,
            mlir::kgen::Target target,
            const mlir::kgen::MachineModel &machine, bool defaultFirst) {
  using namespace mlir::kgen;
  if (moeKernelsRefuse(moe))
    return std::nullopt;
  const bool gateUp = role == "gate_up";
  GroupedGemmProblem problem = gateUp ? GroupedGemmProblem::gateUp(moe)
                                      : GroupedGemmProblem::down(moe);
  GroupedGemmProblem other = gateUp ? GroupedGemmProblem::down(moe)
                                    : GroupedGemmProblem::gateUp(moe);
  MLIRContext *ctx = moe.getContext();
  std::optional<GroupedGemmConfigFields> paired =
      defaultGroupedGemmFields(other, target);
  if (!paired)
    return std::nullopt;
  MoeRoleRanking out;
  out.paired = groupedGemmConfigAttr(ctx, *paired, ConfigSource::default_, "");
  out.pairedMs = predictGroupedGemmMs(other, *paired, machine, ctx);
  SmallVector<GroupedGemmConfigFields> space =
      enumerateGroupedGemmConfigs(problem, target);
  out.space = space.size();
  auto predict = [&](const GroupedGemmConfigFields &f) {
    return predictGroupedGemmMs(problem, f, machine, ctx);
  };
  std::optional<GroupedGemmConfigFields> def;
  if (defaultFirst)
    def = defaultGroupedGemmFields(problem, target);
  out.ranked = rankFields<GroupedGemmConfigFields, GroupedGemmConfigAttr>(
      space, def,
      [&](const GroupedGemmConfigFields &f, ConfigSource source) {
        return groupedGemmConfigAttr(ctx, f, source, "");
      },
      predict);
  return out;
}

SmallVector<RankedAttentionConfig>
rankAttentionCandidates(mlir::kgen::AttentionOp attention,
                        mlir::kgen::Target target,
                        const mlir::kgen::MachineModel &machine,
                        bool defaultFirst, size_t &spaceSize) {
  using namespace mlir::kgen;
  MLIRContext *ctx = attention.getContext();
  AttentionProblem problem = AttentionProblem::of(attention);
  SmallVector<AttentionConfigFields> space =
      enumerateAttentionConfigs(problem, target);
  spaceSize = space.size();
  auto predict = [&](const AttentionConfigFields &f) {
    return predictAttentionCost(problem, f, machine).ms;
  };
  std::optional<AttentionConfigFields> def;
  if (defaultFirst)
    def = defaultAttentionFields(problem, target);
  return rankFields<AttentionConfigFields, AttentionConfigAttr>(
      space, def,
      [&](const AttentionConfigFields &f, ConfigSource source) {
        return attentionConfigAttr(ctx, f, source, "");
      },
      predict);
}

rt::SearchStatus measureCeilings(const MeasureOptions &o, const std::string &path,
                             std::string &err) {
  std::vector<std::string> args = {o.benchPath, "ceilings", "--out", path,
                                   "--timeout", "120"};
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  bool failedToStart = false;
  int code = llvm::sys::ExecuteAndWait(o.benchPath, argRefs, std::nullopt, {},
                                       /*SecondsToWait=*/300, 0, &err,
                                       &failedToStart);
  if (code == kBenchNoDevice)
    return rt::SearchStatus::NoDevice;
  if (failedToStart || code != 0) {
    err = o.benchPath + " ceilings failed (exit " + std::to_string(code) +
          ")" + (err.empty() ? "" : ": " + err);
    return rt::SearchStatus::Failed;
  }
  return rt::SearchStatus::Ok;
}

bool applyCeilings(const std::string &path, mlir::kgen::MachineModel &model,
                   std::string &err) {
  rt::ResultsFile file;
  if (!rt::readResults(path, file, err))
    return false;
  if (!file.ceilings || !(file.ceilings->matmulTflops > 0) ||
      !(file.ceilings->copyGBps > 0)) {
    err = path + ": holds no ceilings (write it with `kgen-bench ceilings`)";
    return false;
  }
  mlir::kgen::MachineModel measured = model;
  measured.matmulTflops = file.ceilings->matmulTflops;
  measured.copyGBps = file.ceilings->copyGBps;
  if (file.device.smCount > 0)
    measured.smCount = file.device.smCount;
  // The cost model's ranges (what a model file may hold), the fields named
  // as in the ceilings file.
  std::string why;
  if (!mlir::kgen::checkCostModel(measured, why)) {
    err = path + ": " +
          (why.rfind("sm_count", 0) == 0 ? "device." : "ceilings.") + why;
    return false;
  }
  model = measured;
  return true;
}

std::string configSummary(GemmConfigAttr c) {
  std::string text =
      llvm::formatv("{0} {1}x{2}x{3} w{4}x{5} s{6} k{7} r{8}",
                    mlir::kgen::stringifyInstructionFamily(c.getInstruction()),
                    c.getBlockM(), c.getBlockN(), c.getBlockK(), c.getWarpsM(),
                    c.getWarpsN(), c.getStages(), c.getSplitK(),
                    c.getRasterGroup())
          .str();
  if (c.getClusterM() * c.getClusterN() > 1) // blocks per cluster, M x N
    text += llvm::formatv(" c{0}x{1}", c.getClusterM(), c.getClusterN()).str();
  return text;
}

nlohmann::json strategyOf(nlohmann::json config) {
  if (config.is_object())
    for (const char *key : {"source", "entry", "attribute", "predicted_ms",
                            "paired_with", "paired_predicted_ms"})
      config.erase(key);
  return config;
}

nlohmann::json strategyOf(GemmConfigAttr config) {
  return strategyOf(mlir::kgen::toJson(config));
}

nlohmann::json strategyOf(mlir::kgen::AttentionConfigAttr config) {
  return strategyOf(mlir::kgen::toJson(config));
}

nlohmann::json strategyOf(mlir::kgen::GroupedGemmConfigAttr config) {
  return strategyOf(mlir::kgen::toJson(config));
}

std::string configSummary(mlir::kgen::GroupedGemmConfigAttr c) {
  return llvm::formatv("{0} {1}x{2}x{3} w{4}x{5} s{6}",
                       mlir::kgen::stringifyInstructionFamily(c.getInstruction()),
                       c.getBlockM(), c.getBlockN(), c.getBlockK(),
                       c.getWarpsM(), c.getWarpsN(), c.getStages())
      .str();
}

std::string configSummary(mlir::kgen::AttentionConfigAttr c) {
  return llvm::formatv("{0} {1}x{2} w{3} s{4} split{5}{6}",
                       mlir::kgen::stringifyInstructionFamily(c.getInstruction()),
                       c.getBlockM(), c.getBlockN(), c.getWarpsM(),
                       c.getStages(), c.getSplitKv(),
                       c.getPackGqa() ? " pack" : "")
      .str();
}

std::vector<CompiledCandidate>
compileCandidates(const std::vector<std::string> &dirs,
                  const std::vector<std::string> &names,
                  const std::string &cacheDir, unsigned jobs,
                  unsigned &threads) {
  std::vector<CompiledCandidate> out(dirs.size());
  threads = 0;
#if KGEN_HAVE_NVRTC
  // Loaded one by one (small files), compiled at once, checked one by one.
  std::vector<rt::KernelPackage> packages(dirs.size());
  std::vector<const rt::KernelPackage *> toCompile;
  std::vector<rt::CompileOptions> options;
  std::vector<size_t> which;
  for (size_t i = 0; i < dirs.size(); ++i) {
    out[i].packageDir = onlyPackage(dirs[i]);
    std::string err;
    if (out[i].packageDir.empty() ||
        !rt::loadPackage(out[i].packageDir, packages[i], err)) {
      out[i].dropped = "no package: " + err;
      continue;
    }
    rt::CompileOptions o;
    o.arch = packages[i].target;
    o.cacheDir = cacheDir;
    toCompile.push_back(&packages[i]);
    options.push_back(o);
    which.push_back(i);
  }
  if (toCompile.empty())
    return out;
  unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(
      std::min<size_t>(jobs ? jobs : hardware, toCompile.size()));
  std::vector<rt::PackageCompile> compiled =
      rt::compilePackages(toCompile, options, threads);
  for (auto [i, c] : llvm::zip(which, compiled)) {
    CompiledCandidate &cand = out[i];
    if (!c.ok) {
      cand.dropped = "does not compile: " + c.error.substr(0, c.error.find('\n'));
      continue;
    }
    const rt::ResourceUsage &r = c.result.resources;
    if (r.stackBytes > 0 || r.spillStoreBytes > 0) {
      cand.dropped = llvm::formatv("ptxas: {0} bytes stack, {1} bytes spilled",
                                   r.stackBytes, r.spillStoreBytes)
                         .str();
      continue;
    }
    // ptxas's report per kernel into the manifest, for the results.
    rt::KernelPackage &pkg = packages[i];
    if (i < names.size() && !names[i].empty())
      pkg.name = names[i];
    for (auto [k, usage] : llvm::zip(pkg.kernels, c.result.perKernel))
      k.resources = usage;
    std::string err;
    if (!rt::writePackage(cand.packageDir, pkg, err))
      cand.dropped = err;
  }
#else
  for (CompiledCandidate &c : out)
    c.dropped = "kgen-tune was built without the CUDA toolkit (NVRTC)";
#endif
  return out;
}

rt::SearchStatus searchGemm(GemmOp gemm, int index, const MeasureOptions &options,
                        const mlir::kgen::MachineModel &machine,
                        rt::TuningDb &db, GemmSearchSummary &summary) {
  size_t space = 0;
  SmallVector<RankedConfig> ranked = rankCandidates(
      gemm, options.target, machine, /*defaultFirst=*/true, space);
  summary.space = space;
  std::string what =
      llvm::formatv("gemm {0}: {1}x{2}x{3}x{4} {5}", index, gemm.getBatch(),
                    gemm.getM(), gemm.getN(), gemm.getK(),
                    gemm.getA().getType().getElementType())
          .str();
  std::vector<Candidate> candidates = firstCandidates<GemmConfigAttr>(
      ranked, space, options, what,
      [gemm](GemmConfigAttr c, double ms, const std::string &dir,
             std::string &why) { return emitCandidate(gemm, c, ms, dir, why); });
  return Search("gemm" + std::to_string(index), std::move(candidates),
                options, db, summary)
      .run();
}

rt::SearchStatus searchMoeRole(mlir::kgen::MoeOp moe, int index,
                               llvm::StringRef role,
                               const MeasureOptions &options,
                               const mlir::kgen::MachineModel &machine,
                               rt::TuningDb &db, GemmSearchSummary &summary) {
  size_t space = 0;
  std::optional<MoeRoleRanking> ranking =
      rankMoeRole(moe, role, options.target, machine, /*defaultFirst=*/true);
  if (!ranking) {
    llvm::outs() << "moe " << index << " " << role
                 << ": no kernel lowers it: nothing to measure\n";
    return rt::SearchStatus::Failed;
  }
  space = ranking->space;
  summary.space = space;
  std::string what =
      llvm::formatv("moe {0} {1}: {2} (the {3} at its heuristic config {4})",
                    index, role, moeShape(moe),
                    role == "gate_up" ? "down" : "gate_up",
                    configSummary(ranking->paired))
          .str();
  std::string tuned = role.str();
  mlir::kgen::GroupedGemmConfigAttr paired = ranking->paired;
  double pairedMs = ranking->pairedMs;
  std::vector<Candidate> candidates =
      firstCandidates<mlir::kgen::GroupedGemmConfigAttr>(
          ranking->ranked, space, options, what,
          [=](mlir::kgen::GroupedGemmConfigAttr c, double ms,
              const std::string &dir, std::string &why) {
            return emitMoeCandidate(moe, tuned, c, ms, paired, pairedMs, dir,
                                    why);
          });
  return Search("moe" + std::to_string(index) + "/" + tuned,
                std::move(candidates), options, db, summary)
      .run();
}

} // namespace kgen::tune
