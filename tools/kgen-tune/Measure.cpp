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

#include "codegen/emit/EmitCuda.h"
#include "codegen/emit/GemmJson.h"
#include "kgen/runtime/Package.h"
#include "kgen/runtime/Results.h"
#include "kgen/runtime/Search.h"
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

#include <atomic>
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

/// Packages kgen-bench measures per child-process batch: small enough for
/// progress and the time budget to act between batches.
constexpr size_t kBatch = 4;

/// kgen-bench's exit code when it finds no CUDA device.
constexpr int kBenchNoDevice = 3;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// The config's fields without where it came from: equal for the same
/// strategy chosen by different sources.
nlohmann::json strategyOf(GemmConfigAttr config) {
  nlohmann::json j = mlir::kgen::toJson(config);
  for (const char *key : {"source", "entry", "attribute"})
    j.erase(key);
  return j;
}

/// A candidate of the search and what became of it.
struct Candidate {
  GemmConfigAttr config;
  bool isDefault = false;
  double predictedMs = 0;
  std::string dir;              // its package
  std::string dropped;          // why it was not measured, if it was not
  std::optional<rt::KernelResult> result; // kgen-bench's, first run
  double baselineMs = std::nan(""); // cuBLASLt beside it, same process
  /// Its drift-free value: time over the baseline beside it (or the time,
  /// without baselines); for finalists, their paired score on the typical
  /// run. NaN when it did not run correctly.
  double relative = std::nan("");
};

/// The median of a correct result, else NaN.
double correctMedian(const rt::KernelResult &r) {
  return r.status == rt::RunStatus::Ok && r.relError >= 0 && r.time
             ? r.time->medianMs
             : std::nan("");
}

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

/// The kgen results of a results file, by package name.
bool readKgenResults(const std::string &path, rt::ResultsFile &file,
                     std::map<std::string, rt::KernelResult> &byName,
                     std::map<std::string, double> &baselineMs,
                     std::string &err) {
  if (!rt::readResults(path, file, err))
    return false;
  for (const rt::KernelResult &r : file.results) {
    if (r.implementation == "kgen")
      byName[r.name] = r;
    else if (r.time)
      baselineMs[r.name] = r.time->medianMs;
  }
  return true;
}

class GemmSearch {
public:
  GemmSearch(GemmOp gemm, int index, const MeasureOptions &o,
             const mlir::kgen::MachineModel &machine, rt::TuningDb &db,
             GemmSearchSummary &summary)
      : gemm_(gemm), index_(index), o_(o), machine_(machine), db_(db),
        summary_(summary) {}

  SearchStatus run();

private:
  void chooseCandidates();
  void emitPackages();
  void compilePackages();
  SearchStatus measure();
  SearchStatus remeasure();
  void record();
  std::string packageDir(size_t i) const;
  double remaining() const { return o_.maxSeconds - secondsSince(start_); }

  GemmOp gemm_;
  int index_;
  const MeasureOptions &o_;
  const mlir::kgen::MachineModel &machine_;
  rt::TuningDb &db_;
  GemmSearchSummary &summary_;
  Clock::time_point start_ = Clock::now();
  std::vector<Candidate> candidates_;
  rt::DeviceInfo device_;
  std::string createdAt_, host_;
  // Every baseline median seen for this gemm: their median is the scale of
  // the drift-corrected times.
  std::vector<double> baselineMs_;
  /// What candidates are compared on: time over the baseline beside it
  /// when every measured candidate has one, else the time.
  double relative(double ms, double baselineMs) const {
    return useBaselines_ ? ms / baselineMs : ms;
  }
  bool useBaselines_ = true;
  /// What turns relative values into ms: the baselines' median over all
  /// runs so far (1 without baselines).
  double msScale() const {
    return useBaselines_ ? rt::median(baselineMs_) : 1.0;
  }
};

std::string GemmSearch::packageDir(size_t i) const {
  llvm::SmallString<256> dir(o_.workDir);
  llvm::sys::path::append(dir, "gemm" + std::to_string(index_),
                          "c" + std::to_string(i));
  return dir.str().str();
}

void GemmSearch::chooseCandidates() {
  SmallVector<GemmConfigAttr> configs =
      mlir::kgen::enumerateGemmConfigs(gemm_, o_.target);
  summary_.space = configs.size();
  SmallVector<std::pair<double, GemmConfigAttr>> ranked;
  for (GemmConfigAttr c : configs)
    ranked.push_back({mlir::kgen::predictGemmMs(gemm_, c, machine_), c});
  llvm::stable_sort(ranked, [](auto &x, auto &y) { return x.first < y.first; });
  size_t budget = rt::measurementBudget(configs.size(), o_.maxCandidates);
  // The default strategy is always measured: the speed-up of tuning is
  // over it.
  GemmConfigAttr def = mlir::kgen::defaultGemmConfig(gemm_, o_.target);
  nlohmann::json defStrategy = def ? strategyOf(def) : nlohmann::json();
  if (def)
    candidates_.push_back(
        {def, true, mlir::kgen::predictGemmMs(gemm_, def, machine_)});
  for (auto &[ms, c] : ranked) {
    if (candidates_.size() >= std::max<size_t>(budget, 1))
      break;
    if (def && strategyOf(c) == defStrategy)
      continue;
    candidates_.push_back({c, false, ms});
  }
  llvm::outs() << llvm::formatv(
      "gemm {0}: {1}x{2}x{3}x{4} {5}: {6} valid configs; measuring {7} "
      "({8:P0} of the space): the default and the model's best\n",
      index_, gemm_.getBatch(), gemm_.getM(), gemm_.getN(), gemm_.getK(),
      gemm_.getA().getType().getElementType(), configs.size(),
      candidates_.size(),
      configs.empty() ? 0.0 : double(candidates_.size()) / configs.size());
}

void GemmSearch::emitPackages() {
  for (size_t i = 0; i < candidates_.size(); ++i) {
    Candidate &c = candidates_[i];
    c.dir = packageDir(i);
    (void)llvm::sys::fs::remove_directories(c.dir);
    std::string why;
    // compilePackages compiles them, in parallel.
    if (!emitCandidate(gemm_, c.config, c.dir, /*compile=*/false, why))
      c.dropped = "not emitted: " + why;
  }
}

/// The one package folder under a candidate's folder.
std::string onlyPackage(const std::string &dir) {
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec))
    return it->path();
  return "";
}

void GemmSearch::compilePackages() {
#if KGEN_HAVE_NVRTC
  Clock::time_point begin = Clock::now();
  unsigned jobs = o_.jobs ? o_.jobs : std::max(1u, std::thread::hardware_concurrency());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < candidates_.size();) {
      Candidate &c = candidates_[i];
      if (!c.dropped.empty())
        continue;
      std::string dir = onlyPackage(c.dir), err;
      rt::KernelPackage pkg;
      rt::CompileOptions options;
      options.cacheDir = o_.cacheDir;
      rt::CompileResult compiled;
      if (dir.empty() || !rt::loadPackage(dir, pkg, err)) {
        c.dropped = "no package: " + err;
        continue;
      }
      options.arch = pkg.target;
      if (!rt::compilePackage(pkg, options, compiled, err)) {
        c.dropped = "does not compile: " + err.substr(0, err.find('\n'));
        continue;
      }
      const rt::ResourceUsage &r = compiled.resources;
      if (r.stackBytes > 0 || r.spillStoreBytes > 0) {
        c.dropped = llvm::formatv("ptxas: {0} bytes stack, {1} bytes spilled",
                                  r.stackBytes, r.spillStoreBytes)
                        .str();
        continue;
      }
      // Named apart, with ptxas's report, for the results and the reader.
      pkg.name = "gemm" + std::to_string(index_) + "_c" + std::to_string(i);
      for (auto [k, usage] : llvm::zip(pkg.kernels, compiled.perKernel))
        k.resources = usage;
      if (!rt::writePackage(dir, pkg, err)) {
        c.dropped = err;
        continue;
      }
      c.dir = dir;
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < std::min<size_t>(jobs, candidates_.size()); ++t)
    threads.emplace_back(work);
  for (std::thread &t : threads)
    t.join();
  size_t dropped = llvm::count_if(
      candidates_, [](const Candidate &c) { return !c.dropped.empty(); });
  llvm::outs() << llvm::formatv(
      "  compiled {0} packages in {1:F1} s on {2} threads; {3} dropped\n",
      candidates_.size() - dropped, secondsSince(begin), threads.size(),
      dropped);
  for (const Candidate &c : candidates_)
    if (!c.dropped.empty())
      llvm::outs() << "  dropped  " << configSummary(c.config) << ": "
                   << c.dropped << "\n";
#else
  for (Candidate &c : candidates_)
    c.dropped = "kgen-tune was built without the CUDA toolkit (NVRTC)";
#endif
}

SearchStatus GemmSearch::measure() {
  std::vector<size_t> todo;
  for (size_t i = 0; i < candidates_.size(); ++i)
    if (candidates_[i].dropped.empty())
      todo.push_back(i);
  size_t done = 0;
  for (size_t b = 0; b < todo.size(); b += kBatch) {
    if (remaining() <= 0) {
      llvm::outs() << "  time budget of " << llvm::format("%g", o_.maxSeconds)
                   << " s spent: " << done << " of " << todo.size()
                   << " candidates measured\n";
      break;
    }
    std::vector<size_t> batch(todo.begin() + b,
                              todo.begin() + std::min(todo.size(), b + kBatch));
    std::vector<std::string> dirs;
    for (size_t i : batch)
      dirs.push_back(candidates_[i].dir);
    std::string out = o_.workDir + "/gemm" + std::to_string(index_) +
                      "/measure-" + std::to_string(b / kBatch) + ".json";
    std::string err;
    int code = runBench(o_, dirs, out, remaining() + 60, err);
    if (code == kBenchNoDevice)
      return SearchStatus::NoDevice;
    if (code != 0 && code != 1) {
      llvm::outs() << "  kgen-bench failed (exit " << code << "): " << err
                   << "\n";
      return SearchStatus::Failed;
    }
    rt::ResultsFile file;
    std::map<std::string, rt::KernelResult> results;
    std::map<std::string, double> baselines;
    if (!readKgenResults(out, file, results, baselines, err)) {
      llvm::outs() << "  " << err << "\n";
      return SearchStatus::Failed;
    }
    device_ = file.device;
    createdAt_ = file.createdAt;
    host_ = file.host;
    for (size_t i : batch) {
      Candidate &c = candidates_[i];
      std::string name = "gemm" + std::to_string(index_) + "_c" +
                         std::to_string(i);
      auto it = results.find(name);
      ++done;
      if (it == results.end()) {
        c.dropped = "kgen-bench reported nothing for it";
        continue;
      }
      c.result = it->second;
      double ms = correctMedian(*c.result);
      std::string what =
          std::isnan(ms)
              ? std::string(rt::runStatusName(c.result->status)) + ": " +
                    c.result->reason.substr(0, 80)
              : llvm::formatv("{0,9:F4} ms  (model {1:F4} ms)", ms,
                              c.predictedMs)
                    .str();
      auto base = baselines.find(c.result->baseline);
      if (base != baselines.end() && base->second > 0) {
        c.baselineMs = base->second;
        baselineMs_.push_back(base->second);
      } else if (!std::isnan(ms)) {
        useBaselines_ = false; // not comparable on ratios: raw times
      }
      if (!std::isnan(ms) && !std::isnan(c.baselineMs))
        what += llvm::formatv("  cuBLASLt {0:F4} ms", c.baselineMs).str();
      llvm::outs() << llvm::formatv("  [{0}/{1}] {2,-36} {3}{4}\n", done,
                                    todo.size(), configSummary(c.config),
                                    what, c.isDefault ? "  (default)" : "");
      ++summary_.measured;
    }
    llvm::outs().flush();
  }
  return SearchStatus::Ok;
}

SearchStatus GemmSearch::remeasure() {
  std::vector<double> first;
  for (Candidate &c : candidates_) {
    double ms = c.result ? correctMedian(*c.result) : std::nan("");
    c.relative = relative(ms, c.baselineMs);
    first.push_back(c.relative);
  }
  std::vector<size_t> finalists =
      rt::pickFinalists(first, o_.finalists, o_.finalistWindow);
  if (finalists.size() < 2 || o_.rounds == 0)
    return SearchStatus::Ok;
  // values[f][r]: finalist f in run r; run 0 is the first measurement.
  std::vector<std::vector<double>> values(finalists.size());
  for (size_t f = 0; f < finalists.size(); ++f)
    values[f].push_back(first[finalists[f]]);
  for (unsigned r = 1; r <= o_.rounds; ++r) {
    if (remaining() <= 0) {
      llvm::outs() << "  time budget spent after " << (r - 1)
                   << " re-measurement rounds\n";
      break;
    }
    std::vector<size_t> order = rt::roundOrder(finalists.size(), r);
    std::vector<std::string> dirs;
    for (size_t f : order)
      dirs.push_back(candidates_[finalists[f]].dir);
    std::string out = o_.workDir + "/gemm" + std::to_string(index_) +
                      "/round-" + std::to_string(r) + ".json";
    std::string err;
    int code = runBench(o_, dirs, out, remaining() + 60, err);
    if (code == kBenchNoDevice)
      return SearchStatus::NoDevice;
    rt::ResultsFile file;
    std::map<std::string, rt::KernelResult> results;
    std::map<std::string, double> baselines;
    if ((code != 0 && code != 1) ||
        !readKgenResults(out, file, results, baselines, err)) {
      llvm::outs() << "  re-measurement round " << r << " failed: " << err
                   << "\n";
      break;
    }
    for (size_t f = 0; f < finalists.size(); ++f) {
      auto it = results.find("gemm" + std::to_string(index_) + "_c" +
                             std::to_string(finalists[f]));
      double value = std::nan("");
      if (it != results.end()) {
        auto base = baselines.find(it->second.baseline);
        double baseMs = base != baselines.end() ? base->second : std::nan("");
        if (!std::isnan(baseMs))
          baselineMs_.push_back(baseMs);
        value = relative(correctMedian(it->second), baseMs);
      }
      values[f].push_back(value);
    }
  }
  // Each run divided by its median over the finalists, then the median
  // over runs: the paired score. Times back in ms on the typical run.
  double scale = msScale();
  std::vector<double> scores = rt::pairedScores(values);
  double typical = rt::typicalRoundMedian(values);
  llvm::outs() << llvm::formatv(
      "  re-measured the best {0} in {1} more interleaved rounds; paired "
      "scores (1 = the runs' median){2}:\n",
      finalists.size(), values.front().size() - 1,
      useBaselines_ ? ", on time over cuBLASLt in the same process" : "");
  for (size_t f = 0; f < finalists.size(); ++f) {
    if (std::isnan(scores[f]))
      continue;
    Candidate &c = candidates_[finalists[f]];
    c.relative = scores[f] * typical;
    std::string runs;
    for (double v : values[f])
      runs += llvm::formatv(" {0:F4}", v * scale).str();
    llvm::outs() << llvm::formatv("    {0,-36} {1:F3}  -> {2:F4} ms   runs:{3}\n",
                                  configSummary(c.config), scores[f],
                                  c.relative * scale, runs);
  }
  return SearchStatus::Ok;
}

void GemmSearch::record() {
  // One scale for all, from every run: times comparable across batches.
  double scale = msScale();
  for (size_t i = 0; i < candidates_.size(); ++i) {
    Candidate &c = candidates_[i];
    if (!c.result)
      continue;
    double corrected = c.relative * scale;
    rt::TuningCandidate t;
    t.config = c.result->config;
    t.status = c.result->status;
    t.correct = c.result->status == rt::RunStatus::Ok && c.result->relError >= 0;
    t.time = c.result->time;
    if (t.time && !std::isnan(corrected)) {
      // The drift-corrected median, with the first run's relative spread.
      double factor = corrected / t.time->medianMs;
      for (double *v : {&t.time->medianMs, &t.time->q1Ms, &t.time->q3Ms,
                        &t.time->minMs, &t.time->maxMs})
        *v *= factor;
    }
    t.measuredAt = createdAt_;
    t.host = host_;
    db_.add(keyFor(*c.result, device_), t);
    double ms = t.correct && t.time ? t.time->medianMs : std::nan("");
    if (std::isnan(ms))
      continue;
    if (c.isDefault)
      summary_.defaultMs = ms;
    if (!summary_.bestMs || ms < *summary_.bestMs) {
      summary_.bestMs = ms;
      summary_.bestConfig = configSummary(c.config);
    }
  }
}

SearchStatus GemmSearch::run() {
  chooseCandidates();
  if (candidates_.empty()) {
    llvm::outs() << "  no candidate\n";
    return SearchStatus::Failed;
  }
  emitPackages();
  compilePackages();
  SearchStatus status = measure();
  if (status == SearchStatus::Ok)
    status = remeasure();
  record();
  summary_.seconds = secondsSince(start_);
  if (status == SearchStatus::Ok && !summary_.bestMs) {
    llvm::outs() << "  no candidate ran correctly\n";
    return SearchStatus::Failed;
  }
  return status;
}
} // namespace

/// `gemm` alone in a new module, as `func @main`, with `config`.
OwningOpRef<ModuleOp> isolateGemm(GemmOp gemm, GemmConfigAttr config) {
  OpBuilder b(gemm.getContext());
  Location loc = gemm.getLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(
      b, loc, "main",
      b.getFunctionType(gemm->getOperandTypes(), gemm->getResultTypes()));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  IRMapping map;
  map.map(gemm->getOperands(), entry->getArguments());
  auto clone = cast<GemmOp>(b.clone(*gemm, map));
  clone.setConfigAttr(config);
  func::ReturnOp::create(b, loc, clone->getResults());
  return module;
}

bool emitCandidate(GemmOp gemm, GemmConfigAttr config, const std::string &dir,
                   bool compile, std::string &why) {
  OwningOpRef<ModuleOp> module = isolateGemm(gemm, config);
  std::string diagnostics;
  llvm::raw_string_ostream diagStream(diagnostics);
  ScopedDiagnosticHandler handler(gemm.getContext(), [&](Diagnostic &d) {
    diagStream << d << "; ";
    return success();
  });
  PassManager pm(gemm.getContext());
  pm.addPass(mlir::kgen::createKgenLowerGemmToTiles());
  mlir::kgen::KgenEmitPackagesOptions emit;
  emit.outputDir = dir;
  emit.compile = compile;
  pm.addPass(mlir::kgen::createKgenEmitPackages(emit));
  if (succeeded(pm.run(*module)))
    return true;
  why = diagnostics;
  return false;
}

SearchStatus measureCeilings(const MeasureOptions &o, const std::string &path,
                             std::string &err) {
  std::vector<std::string> args = {o.benchPath, "ceilings", "--out", path,
                                   "--timeout", "120"};
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  bool failedToStart = false;
  int code = llvm::sys::ExecuteAndWait(o.benchPath, argRefs, std::nullopt, {},
                                       /*SecondsToWait=*/300, 0, &err,
                                       &failedToStart);
  if (code == kBenchNoDevice)
    return SearchStatus::NoDevice;
  if (failedToStart || code != 0) {
    err = o.benchPath + " ceilings failed (exit " + std::to_string(code) +
          ")" + (err.empty() ? "" : ": " + err);
    return SearchStatus::Failed;
  }
  return SearchStatus::Ok;
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
  model.matmulTflops = file.ceilings->matmulTflops;
  model.copyGBps = file.ceilings->copyGBps;
  if (file.device.smCount > 0)
    model.smCount = file.device.smCount;
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

rt::TuningKey keyFor(const rt::KernelResult &result,
                     const rt::DeviceInfo &device) {
  rt::TuningKey key;
  key.op = result.op;
  auto target = result.config.find("target");
  key.arch = target != result.config.end() && target->is_string()
                 ? target->get<std::string>()
                 : "";
  key.smCount = device.smCount;
  key.device = device.name;
  key.cudaVersion = device.runtimeVersion;
  key.emitterVersion = mlir::kgen::kEmitterVersion;
  return key;
}

SearchStatus searchGemm(GemmOp gemm, int index, const MeasureOptions &options,
                        const mlir::kgen::MachineModel &machine,
                        rt::TuningDb &db, GemmSearchSummary &summary) {
  return GemmSearch(gemm, index, options, machine, db, summary).run();
}

} // namespace kgen::tune
