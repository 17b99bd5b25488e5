//===- kgen-tune.cpp - candidate strategies, packages, measurements -------===//
//
// kgen-tune FILE.mlir [--target=sm_90a] [--top=N | --all] [--packages=DIR]
//           [--jobs=J] [--cache=DIR]
//     For each kgen.gemm: enumerate the gemm_configs that can work, rank
//     them by the analytical cost model (passes/CostModel.cpp) and print the
//     top N (--all: every one) with their predicted time. With --packages,
//     write them as kernel packages DIR/gemm<i>/c<j> for kgen-bench tune:
//     the default strategy first, as many as a measured search measures
//     (--max-candidates, default 15% of the space) unless --top or --all
//     say otherwise, compiled with NVRTC on J threads; candidates that do
//     not compile, or have spills or a stack frame, are dropped and the
//     next in rank takes their place. Each DIR/gemm<i> is built in a
//     temporary folder beside it, which then replaces it whole
//     (Staging.h): an interrupted run leaves the earlier one and no debris.
//     Each kgen.attention likewise: its legal attention_configs
//     (passes/AttentionStrategy.h) ranked by the attention cost model, the
//     default heuristic's first with --packages, as DIR/attention<i>/c<j>.
//     Each kgen.moe: its two expert GEMMs (roles gate_up and down) ranked
//     by the grouped GEMM cost model (passes/MoeStrategy.h), one role at a
//     time with the other at its heuristic config (a moe package is the
//     whole layer, so a candidate is a pair), as DIR/moe<i>/<role>/c<j>,
//     the manifest's config holding both roles' configs and "tuned_role".
//     Every package's manifest config records the model's predicted_ms.
// kgen-tune FILE.mlir --json [--top=N | --all]
//     The same ranking as JSON on stdout (schema "kgen.tune-ranking",
//     version 1): {target, gemms: [{index, op, space, candidates: [{rank,
//     config, predicted_ms, default}]}], attentions: [the same], moes: [the
//     same per role, with role, key_op and paired_with]}, the
//     candidates in the order a measured search takes them (the default
//     strategy first).
// kgen-tune FILE.mlir --measure --db=DB.json [--max-candidates=N]
//           [--max-seconds=S] [--jobs=J] [--finalists=F] [--rounds=R]
//           [--work-dir=DIR] [--bench=PATH] [--cache=DIR] [--ceilings=C]
//     For each kgen.gemm: the default config and the model's best, up to N
//     candidates (default 15% of the space), compiled in parallel and
//     measured with kgen-bench within S seconds per gemm; the best F are
//     measured again in R interleaved rounds and compared paired, so drift
//     does not pick the winner; every measured candidate goes into DB
//     (merged with what it holds). Prints progress, then per gemm the tuned
//     config's speed-up over the default. Each kgen.moe likewise, one
//     search per role, recorded under the role's grouped GEMM key
//     (docs/tuning-db.md). Exit 3 when kgen-bench finds no GPU (nothing
//     measured, DB untouched). Not attention: its candidates are measured
//     by kgen-bench tune over --packages.
// kgen-tune FILE.mlir --report --db=DB.json
//     For each kgen.gemm, every correct measured candidate of its database
//     entries beside the cost model's prediction, and the model's relative
//     error over them (median and worst): the model's quality, measured.
//     On a sweep (an entry holding more of the space than a search
//     measures), also the search replayed: which of the entry's
//     measurements the search's candidates under this model include, the
//     best of them (the search's choice) against the best of the space.
// kgen-tune FILE.mlir --report --db=DB.json --fit [--model-out=M.json]
//     Also fits the cost model's scales (per-family compute, memory) to
//     those measurements and prints the error after the fit, in-sample and
//     held out (fitted on half, judged on the other half); --model-out
//     writes the fitted model, which --model=M.json then ranks with.
// kgen-tune --import=RESULTS.json --db=DB.json
//     Add every kgen result of a kgen-bench results file (the packages
//     measured on a GPU: `kgen-bench run DIR/*/* --out RESULTS.json`) to a
//     tuning database, which kgen-select-strategy{db=...} reads: gemm,
//     attention and moe results alike (a moe result under its tuned role's
//     grouped GEMM key). A result
//     the database records already is not added again; one that would make
//     an invalid entry (an incomplete op, a time no measurement gives, a
//     config the gemm or attention legality refuses for every op of its
//     kind) refuses the import,
//     naming the field, the database left as it was.
// kgen-tune campaign plan|submit|status|wait|resume|merge ...
//     Such searches over a Slurm cluster: a plan of shards prepared here,
//     a job array of kgen-bench campaign tasks, a merged database
//     (Campaign.h, docs/campaigns.md; `kgen-tune campaign --help`).
// Exit codes: 0 ok, 1 a step failed, 2 bad input or options, 3 no GPU.
//
//===----------------------------------------------------------------------===//

#include "tools/Register.h"
#include "passes/CostModelFile.h"
#include "tools/kgen-tune/Campaign.h"
#include "tools/kgen-tune/Measure.h"
#include "tools/kgen-tune/Staging.h"

#include "codegen/emit/EmitCuda.h"
#include "dialect/AttentionJson.h"
#include "dialect/GemmJson.h"
#include "dialect/KgenTarget.h"
#include "dialect/MoeJson.h"
#include "dialect/MoeLegality.h"
#include "kgen/runtime/Package.h"
#include "kgen/runtime/Results.h"
#include "kgen/runtime/Search.h"
#include "kgen/runtime/TuningDb.h"
#include "passes/Passes.h"
#include "passes/CostModel.h"
#include "passes/MoeStrategy.h"
#include "passes/SearchSpace.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <cmath>
#include <cstring>
#include <map>
#include <set>

using namespace mlir;
namespace cl = llvm::cl;
namespace rt = ::kgen::rt;

static cl::OptionCategory category("kgen-tune options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::init(""), cl::cat(category));
static cl::opt<std::string> targetName("target", cl::desc("sm_80 or sm_90a"),
                                       cl::init("sm_90a"), cl::cat(category));
static cl::opt<unsigned>
    top("top",
        cl::desc("Candidates kept per gemm (default 8; with --packages, "
                 "--max-candidates)"),
        cl::init(8), cl::cat(category));
static cl::opt<bool>
    all("all",
        cl::desc("Keep every valid config, not --top of them (with "
                 "--packages: the whole space, for an exhaustive sweep)"),
        cl::cat(category));
static cl::opt<bool>
    jsonOut("json",
            cl::desc("Print the ranking as JSON (schema kgen.tune-ranking): "
                     "per gemm its op, the size of the space and --top (or "
                     "--all) candidates in the order a search measures them"),
            cl::cat(category));
static cl::opt<std::string>
    packagesDir("packages",
                cl::desc("Write the candidates as packages DIR/gemm<i>/c<j> "
                         "(for kgen-bench tune)"),
                cl::cat(category));
static cl::opt<std::string>
    importResults("import",
                  cl::desc("kgen-bench results file to add to --db"),
                  cl::cat(category));
static cl::opt<std::string> dbPath("db", cl::desc("Tuning database file"),
                                   cl::cat(category));
static cl::opt<bool>
    measure("measure",
            cl::desc("Measure candidates with kgen-bench and add them to --db"),
            cl::cat(category));
static cl::opt<unsigned>
    maxCandidates("max-candidates",
                  cl::desc("--measure, --packages: candidates measured per "
                           "gemm (0: 15% of the space)"),
                  cl::init(0), cl::cat(category));
static cl::opt<double>
    maxSeconds("max-seconds",
               cl::desc("--measure: seconds per gemm, compiling and "
                        "measuring"),
               cl::init(60), cl::cat(category));
static cl::opt<unsigned> jobs("jobs",
                              cl::desc("--measure, --packages: parallel "
                                       "compiles (0: one per hardware "
                                       "thread)"),
                              cl::init(0), cl::cat(category));
static cl::opt<unsigned>
    finalists("finalists",
              cl::desc("--measure: candidates measured again"), cl::init(3),
              cl::cat(category));
static cl::opt<unsigned> rounds("rounds",
                                cl::desc("--measure: interleaved rounds of "
                                         "re-measurement"),
                                cl::init(3), cl::cat(category));
static cl::opt<std::string>
    workDir("work-dir",
            cl::desc("--measure: folder for packages and results (default "
                     "kgen-tune-work)"),
            cl::init("kgen-tune-work"), cl::cat(category));
static cl::opt<std::string>
    benchPath("bench",
              cl::desc("--measure: kgen-bench to run (default: the one "
                       "beside kgen-tune)"),
              cl::cat(category));
static cl::opt<std::string> cacheDir("cache",
                                     cl::desc("--measure, --packages: NVRTC "
                                              "cache folder"),
                                     cl::cat(category));
static cl::opt<std::string>
    ceilingsPath("ceilings",
                 cl::desc("--measure: kgen-bench ceilings file"),
                 cl::cat(category));
static cl::opt<unsigned long long>
    seed("seed", cl::desc("--measure: seed of the random inputs"),
         cl::init(1), cl::cat(category));
static cl::opt<bool>
    fit("fit",
        cl::desc("With --report: fit the cost model's scales to the measured "
                 "candidates, and show its error after the fit"),
        cl::cat(category));
static cl::opt<std::string>
    modelPath("model",
              cl::desc("Cost model file (from --fit --model-out) to rank "
                       "and predict with"),
              cl::cat(category));
static cl::opt<std::string>
    modelOut("model-out", cl::desc("With --fit: write the fitted model here"),
             cl::cat(category));
static cl::opt<bool>
    report("report",
           cl::desc("With --db: the cost model's prediction against every "
                    "measured candidate of the module's gemms, and its error"),
           cl::cat(category));

namespace {
using mlir::kgen::GemmConfigAttr;
using mlir::kgen::GemmOp;
using mlir::kgen::stringifyInstructionFamily;

std::string attentionShape(mlir::kgen::AttentionOp attention);

int fail(const llvm::Twine &msg, int code = 1) {
  llvm::errs() << "kgen-tune: error: " << msg << "\n";
  return code;
}

void reportGemm(GemmOp gemm, const rt::TuningDb &db,
                const mlir::kgen::MachineModel &machine,
                SmallVectorImpl<mlir::kgen::GemmMeasurement> &measured);
void replayGemm(GemmOp gemm, const rt::TuningDb &db,
                const mlir::kgen::MachineModel &machine, StringRef label);

/// Median and worst relative error of `model` over `measured`; false when
/// there is none.
bool modelError(ArrayRef<mlir::kgen::GemmMeasurement> measured,
                const mlir::kgen::MachineModel &model, double &median,
                double &worst) {
  SmallVector<double> errors;
  for (const mlir::kgen::GemmMeasurement &g : measured) {
    double predicted =
        mlir::kgen::predictGemmCost(g.problem, g.config, model).ms;
    errors.push_back(std::fabs(predicted - g.ms) / g.ms);
  }
  if (errors.empty())
    return false;
  llvm::sort(errors);
  median = errors[errors.size() / 2];
  worst = errors.back();
  return true;
}

/// --report [--fit]: prediction against measurement for every measured
/// candidate of the module's gemms, the model's error, and with --fit the
/// fitted scales and their error, in-sample and held out.
int reportModule(ModuleOp module, const mlir::kgen::MachineModel &machine) {
  if (dbPath.empty())
    return fail("--report needs --db", 2);
  std::string err;
  rt::TuningDb db;
  if (!rt::readTuningDb(dbPath, db, err))
    return fail(err, 2);
  SmallVector<mlir::kgen::GemmMeasurement> measured;
  int index = 0;
  module.walk([&](GemmOp gemm) {
    llvm::outs() << "gemm " << index++ << ": " << gemm.getBatch() << "x"
                 << gemm.getM() << "x" << gemm.getN() << "x" << gemm.getK()
                 << "\n";
    reportGemm(gemm, db, machine, measured);
    replayGemm(gemm, db, machine, "");
  });
  double median = 0, worst = 0;
  if (!modelError(measured, machine, median, worst)) {
    llvm::outs() << "no measured candidate of these gemms in " << dbPath
                 << "\n";
    return 0;
  }
  llvm::outs() << llvm::format("cost model error over %zu measured "
                               "candidates: median %.1f%%, worst %.1f%%\n",
                               measured.size(), 100 * median, 100 * worst);
  if (!fit)
    return 0;
  mlir::kgen::MachineModel fitted =
      mlir::kgen::fitMachineModel(measured, machine);
  llvm::outs() << "fitted on " << measured.size() << " measured candidates: "
               << llvm::format("compute scale simt %.3f, mma_sync %.3f, "
                               "wgmma %.3f; memory scale %.3f\n",
                               fitted.computeScale[0], fitted.computeScale[1],
                               fitted.computeScale[2], fitted.memoryScale);
  modelError(measured, fitted, median, worst);
  llvm::outs() << llvm::format("  after the fit, in-sample: median %.1f%%, "
                               "worst %.1f%%\n",
                               100 * median, 100 * worst);
  // Held out: fitted on every other measurement, judged on the rest, both
  // ways: what the fit does for candidates it has not seen.
  SmallVector<mlir::kgen::GemmMeasurement> half[2];
  for (auto [i, g] : llvm::enumerate(measured))
    half[i % 2].push_back(g);
  if (!half[0].empty() && !half[1].empty()) {
    SmallVector<double> heldOut;
    for (int h = 0; h < 2; ++h) {
      mlir::kgen::MachineModel m =
          mlir::kgen::fitMachineModel(half[h], machine);
      double med, bad;
      modelError(half[1 - h], m, med, bad);
      heldOut.append({med, bad});
    }
    llvm::outs() << llvm::format("  after the fit, held out (2-fold): median "
                                 "%.1f%% and %.1f%%, worst %.1f%%\n",
                                 100 * heldOut[0], 100 * heldOut[2],
                                 100 * std::max(heldOut[1], heldOut[3]));
  }
  // The ranking of the fitted model, replayed on the sweeps it was fitted
  // to: in-sample, so an upper bound of what the fit does for the search.
  module.walk([&](GemmOp gemm) {
    replayGemm(gemm, db, fitted, "after the fit (in-sample): ");
  });
  if (!modelOut.empty()) {
    if (!mlir::kgen::writeCostModel(modelOut, fitted, measured.size(), err))
      return fail(err);
    llvm::outs() << "kgen-tune: wrote the fitted model to " << modelOut
                 << "\n";
  }
  return 0;
}


/// --measure: the measured search of every gemm of `module`, then the
/// database written (merged with the file's entries) and a closing table.
int measureModule(ModuleOp module, mlir::kgen::Target target,
                  const mlir::kgen::MachineModel &machine) {
  if (dbPath.empty())
    return fail("--measure needs --db", 2);
  if (maxSeconds <= 0)
    return fail("--max-seconds must be positive", 2);
  SmallVector<GemmOp> gemms;
  module.walk([&](GemmOp gemm) { gemms.push_back(gemm); });
  SmallVector<mlir::kgen::MoeOp> moes;
  module.walk([&](mlir::kgen::MoeOp moe) { moes.push_back(moe); });
  if (gemms.empty() && moes.empty())
    return fail("no kgen.gemm or kgen.moe in " + inputFile +
                    ": --measure measures gemms and MoE layers (for "
                    "kgen.attention, write --packages and measure them with "
                    "kgen-bench tune)",
                2);
  std::string err;
  rt::TuningDb db;
  if (llvm::sys::fs::exists(dbPath) && !rt::readTuningDb(dbPath, db, err))
    return fail(err + " (not overwritten)", 2);
  ::kgen::tune::MeasureOptions o;
  o.target = target;
  o.workDir = workDir;
  o.benchPath = benchPath;
  if (o.benchPath.empty()) {
    // kgen-bench beside this executable.
    std::string self = llvm::sys::fs::getMainExecutable(
        "kgen-tune", reinterpret_cast<void *>(&fail));
    llvm::SmallString<256> path(llvm::sys::path::parent_path(self));
    llvm::sys::path::append(path, "kgen-bench");
    o.benchPath = path.str().str();
  }
  if (!llvm::sys::fs::can_execute(o.benchPath))
    return fail("cannot run " + o.benchPath + " (--bench)", 2);
  o.cacheDir = cacheDir;
  o.ceilingsPath = ceilingsPath;
  // The roofline against this GPU's measured ceilings; measuring them first
  // also finds out, before any compile, whether there is a GPU at all.
  mlir::kgen::MachineModel model = machine;
  if (o.ceilingsPath.empty()) {
    (void)llvm::sys::fs::create_directories(o.workDir);
    o.ceilingsPath = o.workDir + "/ceilings.json";
    switch (::kgen::tune::measureCeilings(o, o.ceilingsPath, err)) {
    case rt::SearchStatus::NoDevice:
      return fail("kgen-bench found no CUDA device: nothing measured, " +
                      dbPath + " left as it was",
                  3);
    case rt::SearchStatus::Failed:
      return fail(err);
    case rt::SearchStatus::Ok:
      break;
    }
  }
  if (!::kgen::tune::applyCeilings(o.ceilingsPath, model, err))
    return fail(err, 2);
  llvm::outs() << llvm::formatv("ceilings: {0:F0} TFLOP/s matmul, {1:F0} GB/s "
                                "copy, {2} SMs ({3})\n",
                                model.matmulTflops, model.copyGBps,
                                model.smCount, o.ceilingsPath);
  o.maxCandidates = maxCandidates;
  o.maxSeconds = maxSeconds;
  o.jobs = jobs;
  o.finalists = finalists;
  o.rounds = rounds;
  o.seed = seed;
  // One search per gemm, and per expert GEMM of a kgen.moe: its role's
  // candidates in whole-layer packages, the other role at its heuristic
  // config (a candidate is a pair; the roles are searched one at a time).
  SmallVector<std::pair<std::string, ::kgen::tune::GemmSearchSummary>>
      summaries;
  int status = 0;
  auto account = [&](rt::SearchStatus s) {
    if (s == rt::SearchStatus::Failed)
      status = 1;
    return s != rt::SearchStatus::NoDevice;
  };
  for (auto [index, gemm] : llvm::enumerate(gemms)) {
    summaries.push_back({"gemm" + std::to_string(index), {}});
    if (!account(::kgen::tune::searchGemm(gemm, int(index), o, model, db,
                                          summaries.back().second)))
      return fail("kgen-bench found no CUDA device: nothing measured, " +
                      dbPath + " left as it was",
                  3);
  }
  for (auto [index, moe] : llvm::enumerate(moes))
    for (StringRef role : {"gate_up", "down"}) {
      summaries.push_back({llvm::formatv("moe{0}/{1}", index, role).str(), {}});
      if (!account(::kgen::tune::searchMoeRole(moe, int(index), role, o,
                                               model, db,
                                               summaries.back().second)))
        return fail("kgen-bench found no CUDA device: nothing measured, " +
                        dbPath + " left as it was",
                    3);
    }
  if (!rt::writeTuningDb(dbPath, db, err))
    return fail(err);
  llvm::outs() << "\nop            space  measured     s   default ms     "
                  "tuned ms  speed-up  tuned config\n";
  for (const auto &[label, s] : summaries) {
    auto ms = [](std::optional<double> v) {
      return v ? llvm::formatv("{0,11:F4}", *v).str() : std::string(11, '-');
    };
    std::string speedup = s.defaultMs && s.bestMs
                              ? llvm::formatv("{0,8:F3}x", *s.defaultMs / *s.bestMs)
                                    .str()
                              : std::string(9, '-');
    llvm::outs() << llvm::formatv("{0,-12}  {1,5}  {2,8}  {3,4:F0}  {4}  {5}  "
                                  "{6}  {7}\n",
                                  label, s.space, s.measured, s.seconds,
                                  ms(s.defaultMs), ms(s.bestMs), speedup,
                                  s.bestConfig);
  }
  llvm::outs() << "kgen-tune: " << dbPath << ": " << db.entries.size()
               << " entries\n";
  return status;
}

/// One ranked candidate's line: its config, predicted time and rate.
/// One expert GEMM of a kgen.moe as kgen-tune lists and packages it: its
/// role's candidates, the other role at `paired` (its heuristic config).
struct MoeRole {
  mlir::kgen::MoeOp moe;
  std::string role; // "gate_up" or "down"
  mlir::kgen::GroupedGemmConfigAttr paired;
  double pairedMs = 0;
};

double flopsOf(Operation *op) {
  return mlir::kgen::estimateFlops(op).value_or(0);
}
/// The role's GEMM's FLOPs (the gated form's two products).
double flopsOf(const MoeRole &r) {
  mlir::kgen::GroupedGemmProblem p =
      r.role == "gate_up" ? mlir::kgen::GroupedGemmProblem::gateUp(r.moe)
                          : mlir::kgen::GroupedGemmProblem::down(r.moe);
  return 2.0 * double(p.rows) * double(p.k) * double(p.n) * (p.gated ? 2 : 1);
}

/// The folder of the `index`-th op of its kind under --packages.
std::string folderOf(GemmOp, int index) { return "gemm" + std::to_string(index); }
std::string folderOf(mlir::kgen::AttentionOp, int index) {
  return "attention" + std::to_string(index);
}
std::string folderOf(const MoeRole &r, int index) {
  return "moe" + std::to_string(index) + "/" + r.role;
}

template <typename Op, typename Config>
bool emitFor(Op op, Config config, double predictedMs, const std::string &dir,
             std::string &why) {
  return ::kgen::tune::emitCandidate(op, config, predictedMs, dir, why);
}
bool emitFor(const MoeRole &r, mlir::kgen::GroupedGemmConfigAttr config,
             double predictedMs, const std::string &dir, std::string &why) {
  return ::kgen::tune::emitMoeCandidate(r.moe, r.role, config, predictedMs,
                                        r.paired, r.pairedMs, dir, why);
}

template <typename Op, typename Config>
void printCandidate(const Op &op, unsigned rank,
                    const ::kgen::tune::Ranked<Config> &r, StringRef note) {
  double flops = flopsOf(op);
  llvm::outs() << llvm::format("  %2u  %-40s %9.4f ms %8.1f TFLOP/s", rank,
                               ::kgen::tune::configSummary(r.config).c_str(),
                               r.predictedMs,
                               flops / (r.predictedMs * 1e-3) / 1e12)
               << (r.isDefault ? "  (default)" : "") << note << "\n";
}

/// The first `wanted` of `ranked`, printed; how many.
template <typename Op, typename Config>
unsigned listCandidates(const Op &op,
                        ArrayRef<::kgen::tune::Ranked<Config>> ranked,
                        size_t wanted) {
  for (size_t i = 0; i < wanted; ++i)
    printCandidate(op, unsigned(i), ranked[i], "");
  return unsigned(wanted);
}

/// --packages: the first `wanted` of `ranked` that compile cleanly, as
/// packages DIR/<kind><index>/c<rank> (DIR/gemm0/c0, DIR/attention0/c0; c0
/// the first kept, numbered without gaps), each manifest's config holding
/// the cost model's predicted_ms. Emitted one by one (fast), compiled with NVRTC on --jobs threads
/// (slow), in rounds until `wanted` are kept or the ranking runs out; a
/// candidate that does not lower, does not compile, or has a stack frame or
/// spills is dropped and the next in rank takes their place. How many kept;
/// `failed` set when DIR/gemm<index> could not be written.
///
/// Everything is staged in one temporary folder beside DIR/gemm<index>
/// (Staging.h), which then replaces it whole: a run leaves this run's
/// packages and nothing of an earlier one, and an interrupted or failed run
/// leaves the earlier DIR/gemm<index> as it was and no staging debris (the
/// folder is removed on failure and on SIGINT, SIGTERM and SIGHUP, and what
/// a killed run left is removed by the next).
template <typename Op, typename Config>
unsigned packageCandidates(const Op &op,
                           ArrayRef<::kgen::tune::Ranked<Config>> ranked,
                           size_t wanted, int index, bool &failed) {
  llvm::SmallString<256> gemmDir(packagesDir);
  llvm::sys::path::append(gemmDir, folderOf(op, index));
  // DIR/moe<i>/<role>: the layer's folder first.
  (void)llvm::sys::fs::create_directories(
      llvm::sys::path::parent_path(gemmDir));
  ::kgen::tune::PackageStaging staging;
  std::string err;
  if (!staging.create(gemmDir.str().str(), err)) {
    llvm::errs() << "kgen-tune: error: " << gemmDir << ": " << err << "\n";
    failed = true;
    return 0;
  }
  unsigned kept = 0;
  size_t next = 0;
  while (kept < wanted && next < ranked.size()) {
    // This round: as many as are still wanted, emitted under a scratch
    // name, then compiled together.
    std::vector<std::string> dirs;
    std::vector<size_t> which;
    for (; next < ranked.size() && dirs.size() < wanted - kept; ++next) {
      llvm::SmallString<256> dir(staging.path());
      llvm::sys::path::append(dir, "pending" + std::to_string(next));
      std::string why;
      if (!emitFor(op, ranked[next].config, ranked[next].predictedMs,
                   dir.str().str(), why)) {
        (void)llvm::sys::fs::remove_directories(dir);
        llvm::outs() << "  dropped  "
                     << ::kgen::tune::configSummary(ranked[next].config)
                     << ": " << why << "\n";
        continue;
      }
      dirs.push_back(dir.str().str());
      which.push_back(next);
    }
    unsigned threads = 0;
    std::vector<::kgen::tune::CompiledCandidate> compiled =
        ::kgen::tune::compileCandidates(dirs, {}, cacheDir, jobs, threads);
    for (auto [dir, i, c] : llvm::zip(dirs, which, compiled)) {
      const ::kgen::tune::Ranked<Config> &r = ranked[i];
      const std::string name = "c" + std::to_string(kept);
      llvm::SmallString<256> staged(staging.path());
      llvm::sys::path::append(staged, name);
      if (c.dropped.empty()) {
        if (std::error_code ec = llvm::sys::fs::rename(dir, staged))
          c.dropped = "cannot rename " + dir + " to " + staged.str().str() +
                      ": " + ec.message();
      }
      if (!c.dropped.empty()) {
        (void)llvm::sys::fs::remove_directories(dir);
        llvm::outs() << "  dropped  "
                     << ::kgen::tune::configSummary(r.config) << ": "
                     << c.dropped << "\n";
        continue;
      }
      llvm::SmallString<256> final(gemmDir);
      llvm::sys::path::append(final, name);
      printCandidate(op, kept, r, ("  -> " + final).str());
      ++kept;
    }
  }
  if (!staging.commit(gemmDir.str().str(), err)) {
    llvm::errs() << "kgen-tune: error: " << gemmDir << ": " << err << "\n";
    failed = true;
    return 0;
  }
  return kept;
}

/// The candidates of the `index`-th op of its kind kept: listed, or with
/// --packages written; how many.
template <typename Op, typename Config>
unsigned keepCandidates(const Op &op,
                        ArrayRef<::kgen::tune::Ranked<Config>> ranked,
                        int index, bool &failed) {
  // Packages feed kgen-bench tune: unless told otherwise, as many as a
  // measured search measures.
  const size_t wanted =
      all ? ranked.size()
      : !packagesDir.empty() && top.getNumOccurrences() == 0
          ? rt::measurementBudget(ranked.size(), maxCandidates)
          : std::min<size_t>(top, ranked.size());
  return packagesDir.empty()
             ? listCandidates(op, ranked, wanted)
             : packageCandidates(op, ranked, wanted, index, failed);
}

/// One op's entry of --json: its signature, the size of its space and
/// --top (or --all) of `ranked`.
template <typename Config>
nlohmann::json rankingJson(size_t index, DictionaryAttr signature,
                           size_t space,
                           ArrayRef<::kgen::tune::Ranked<Config>> ranked) {
  size_t wanted = all ? ranked.size() : std::min<size_t>(top, ranked.size());
  nlohmann::json candidates = nlohmann::json::array();
  for (size_t i = 0; i < wanted; ++i)
    candidates.push_back({{"rank", i},
                          {"config", mlir::kgen::toJson(ranked[i].config)},
                          {"predicted_ms", ranked[i].predictedMs},
                          {"default", ranked[i].isDefault}});
  return {{"index", index},
          {"op", mlir::kgen::toJson(signature)},
          {"space", space},
          {"candidates", std::move(candidates)}};
}

/// --json: every gemm's and attention's candidates in the order a measured
/// search takes them (the default strategy first, then the model's
/// ranking), --top or --all of them, as one JSON document (schema
/// kgen.tune-ranking v1).
int printRankingJson(ModuleOp module, mlir::kgen::Target target,
                     const mlir::kgen::MachineModel &machine) {
  nlohmann::json gemms = nlohmann::json::array();
  module.walk([&](GemmOp gemm) {
    size_t space = 0;
    SmallVector<::kgen::tune::RankedConfig> ranked =
        ::kgen::tune::rankCandidates(gemm, target, machine,
                                     /*defaultFirst=*/true, space);
    gemms.push_back(rankingJson<GemmConfigAttr>(
        gemms.size(), mlir::kgen::gemmSignature(gemm), space, ranked));
  });
  nlohmann::json attentions = nlohmann::json::array();
  module.walk([&](mlir::kgen::AttentionOp attention) {
    size_t space = 0;
    SmallVector<::kgen::tune::RankedAttentionConfig> ranked =
        ::kgen::tune::rankAttentionCandidates(attention, target, machine,
                                              /*defaultFirst=*/true, space);
    attentions.push_back(rankingJson<mlir::kgen::AttentionConfigAttr>(
        attentions.size(), mlir::kgen::attentionSignature(attention), space,
        ranked));
  });
  // Per kgen.moe, one entry per role: its op the layer's signature, with
  // "role", the key op the database records it under, and the other
  // role's heuristic config it is measured with.
  nlohmann::json moes = nlohmann::json::array();
  int moeIndex = 0;
  module.walk([&](mlir::kgen::MoeOp moe) {
    for (StringRef role : {"gate_up", "down"}) {
      std::optional<::kgen::tune::MoeRoleRanking> ranking =
          ::kgen::tune::rankMoeRole(moe, role, target, machine,
                                    /*defaultFirst=*/true);
      if (!ranking)
        continue;
      nlohmann::json entry = rankingJson<mlir::kgen::GroupedGemmConfigAttr>(
          moeIndex, mlir::kgen::moeSignature(moe), ranking->space,
          ranking->ranked);
      entry["role"] = role.str();
      std::string err;
      nlohmann::json keyOp;
      if (rt::groupedGemmKeyOp(entry["op"], role.str(), keyOp, err))
        entry["key_op"] = keyOp;
      entry["paired_with"] = mlir::kgen::toJson(ranking->paired);
      entry["paired_with"]["predicted_ms"] = ranking->pairedMs;
      moes.push_back(std::move(entry));
    }
    ++moeIndex;
  });
  nlohmann::json doc = {{"schema", "kgen.tune-ranking"},
                        {"version", 1},
                        {"target", targetName.getValue()},
                        {"gemms", std::move(gemms)},
                        {"attentions", std::move(attentions)},
                        {"moes", std::move(moes)}};
  llvm::outs() << doc.dump(1) << "\n";
  return 0;
}

int tuneModule() {
  DialectRegistry registry;
  mlir::kgen::registerKgenDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false); // one line per diagnostic, not the IR
  context.loadAllAvailableDialects();
  std::optional<mlir::kgen::Target> target = mlir::kgen::parseTarget(targetName);
  if (!target)
    return fail("--target must be sm_80 or sm_90a; got '" + targetName + "'",
                2);
  std::string err;
  // Only a regular file or stdin, within the size and nesting limits.
  std::unique_ptr<llvm::MemoryBuffer> file =
      mlir::kgen::readToolInput(inputFile, err);
  if (!file)
    return fail(err, 2);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return fail("could not parse " + inputFile, 2);
  if (!module
           ->walk([](Operation *op) {
             return isa<GemmOp, mlir::kgen::AttentionOp, mlir::kgen::MoeOp>(op)
                        ? WalkResult::interrupt()
                        : WalkResult::advance();
           })
           .wasInterrupted())
    return fail(inputFile +
                    ": no kgen.gemm, kgen.attention or kgen.moe in the "
                    "module: nothing to tune",
                2);

  mlir::kgen::MachineModel machine;
  if (!modelPath.empty() && !mlir::kgen::readCostModel(modelPath, machine, err))
    return fail(err, 2);
  if (measure)
    return measureModule(*module, *target, machine);
  if (report)
    return reportModule(*module, machine);
  if (jsonOut)
    return printRankingJson(*module, *target, machine);
  // The packages' folder, once: a path that is a file is one error, not
  // one per gemm.
  if (!packagesDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(packagesDir))
      return fail("--packages " + packagesDir + ": cannot make the folder: " +
                      ec.message(),
                  2);
    if (!llvm::sys::fs::is_directory(packagesDir)) // create_ accepts a file
      return fail("--packages " + packagesDir + ": is a file, not a folder",
                  2);
  }
  int status = 0, index = 0;
  WalkResult gemms = module->walk([&](GemmOp gemm) {
    // With packages (for kgen-bench tune), the default strategy leads:
    // the speed-up of tuning is over it.
    size_t space = 0;
    SmallVector<::kgen::tune::RankedConfig> ranked =
        ::kgen::tune::rankCandidates(gemm, *target, machine,
                                     /*defaultFirst=*/!packagesDir.empty(),
                                     space);
    llvm::outs() << "gemm " << index << ": " << gemm.getBatch() << "x"
                 << gemm.getM() << "x" << gemm.getN() << "x" << gemm.getK()
                 << " " << gemm.getA().getType().getElementType() << ", "
                 << space << " valid configs for " << targetName << "\n";
    bool failed = false;
    unsigned kept = keepCandidates<GemmOp, GemmConfigAttr>(gemm, ranked,
                                                           index, failed);
    ++index;
    if (failed) { // the folder cannot be written: neither can the next
      status = 1;
      return WalkResult::interrupt();
    }
    if (kept == 0) {
      llvm::outs() << "  no candidate\n";
      status = 1;
    }
    return WalkResult::advance();
  });
  if (gemms.wasInterrupted()) // the packages' folder cannot be written
    return status;
  index = 0;
  module->walk([&](mlir::kgen::AttentionOp attention) {
    size_t space = 0;
    SmallVector<::kgen::tune::RankedAttentionConfig> ranked =
        ::kgen::tune::rankAttentionCandidates(
            attention, *target, machine,
            /*defaultFirst=*/!packagesDir.empty(), space);
    llvm::outs() << "attention " << index << ": " << attentionShape(attention)
                 << ", " << space << " valid configs for " << targetName
                 << "\n";
    bool failed = false;
    unsigned kept =
        keepCandidates<mlir::kgen::AttentionOp, mlir::kgen::AttentionConfigAttr>(
            attention, ranked, index, failed);
    ++index;
    if (failed) {
      status = 1;
      return WalkResult::interrupt();
    }
    if (kept == 0) { // f32: no config lowers it, nothing to measure
      llvm::outs() << "  no candidate\n";
      status = 1;
    }
    return WalkResult::advance();
  });
  index = 0;
  module->walk([&](mlir::kgen::MoeOp moe) {
    // A moe package is the whole layer: each role's candidates with the
    // other role at its heuristic config.
    const int moeIndex = index++;
    for (StringRef role : {"gate_up", "down"}) {
      std::optional<::kgen::tune::MoeRoleRanking> ranking =
          ::kgen::tune::rankMoeRole(moe, role, *target, machine,
                                    /*defaultFirst=*/!packagesDir.empty());
      if (!ranking) {
        llvm::outs() << "moe " << moeIndex << ": " << ::kgen::tune::moeShape(moe)
                     << ": no kernel lowers it (kgen-select-strategy says "
                        "why): no candidate\n";
        status = 1;
        return WalkResult::advance();
      }
      MoeRole site{moe, role.str(), ranking->paired, ranking->pairedMs};
      llvm::outs() << "moe " << moeIndex << " " << role << ": "
                   << ::kgen::tune::moeShape(moe) << ", " << ranking->space
                   << " valid configs for " << targetName << " (the "
                   << (role == "gate_up" ? "down" : "gate_up")
                   << " GEMM at its heuristic config "
                   << ::kgen::tune::configSummary(ranking->paired) << ")\n";
      bool failed = false;
      unsigned kept = keepCandidates<MoeRole, mlir::kgen::GroupedGemmConfigAttr>(
          site, ranking->ranked, moeIndex, failed);
      if (failed) {
        status = 1;
        return WalkResult::interrupt();
      }
      if (kept == 0) {
        llvm::outs() << "  no candidate\n";
        status = 1;
      }
    }
    return WalkResult::advance();
  });
  return status;
}

/// "b1 h32/8 q4096 kv4096 d128 bf16 causal": an attention on one line.
std::string attentionShape(mlir::kgen::AttentionOp a) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "b" << a.getBatch() << " h" << a.getQueryHeads() << "/"
     << a.getKvHeads() << " q" << a.getSeqQ() << " kv" << a.getSeqKv() << " d"
     << a.getHeadDim() << " "
     << cast<RankedTensorType>(a.getQ().getType()).getElementType();
  Type kv = cast<RankedTensorType>(a.getK().getType()).getElementType();
  if (kv != cast<RankedTensorType>(a.getQ().getType()).getElementType())
    os << " kv " << kv; // an e4m3 cache
  // varlen: q is the token total, kv too but over pages (both named:
  // "varlen paged P") each sequence's key capacity M * P. NHD pages
  // ([N, P, Hkv, D]): "paged P NHD".
  if (a.isVarlen())
    os << " varlen";
  if (a.getBlockTable())
    os << " paged " << a.getPageSize();
  if (a.getBlockTable() && a.getPagesNhd())
    os << " NHD";
  if (a.getCausal())
    os << " causal";
  if (std::optional<int64_t> w = a.getSlidingWindow())
    os << " window " << *w;
  return text;
}

/// Prediction against measurement for every measured candidate of `gemm`.
void reportGemm(GemmOp gemm, const rt::TuningDb &db,
                const mlir::kgen::MachineModel &machine,
                SmallVectorImpl<mlir::kgen::GemmMeasurement> &measured) {
  nlohmann::json op = mlir::kgen::toJson(mlir::kgen::gemmSignature(gemm));
  for (const rt::TuningEntry &entry : db.entries) {
    rt::TuningKey probe = entry.key;
    probe.op = op;
    if (!entry.key.sameOpAndTarget(probe))
      continue;
    for (const rt::TuningCandidate &c : entry.candidates) {
      if (c.status != rt::RunStatus::Ok || !c.correct || !c.time)
        continue;
      ScopedDiagnosticHandler quiet(gemm.getContext(),
                                    [](Diagnostic &) { return success(); });
      GemmConfigAttr config = mlir::kgen::configFromJson(
          c.config, gemm.getContext(), mlir::kgen::ConfigSource::measured, "");
      if (!config)
        continue;
      double predicted = mlir::kgen::predictGemmMs(gemm, config, machine);
      double ms = c.time->medianMs;
      double error = std::fabs(predicted - ms) / ms;
      measured.push_back({mlir::kgen::GemmProblem::of(gemm), config, ms});
      llvm::outs() << llvm::format("  %-40s predicted %9.4f ms  measured "
                                   "%9.4f ms  error %6.1f%%",
                                   ::kgen::tune::configSummary(config).c_str(), predicted,
                                   ms, 100 * error)
                   << "  (" << entry.key.device << ")\n";
    }
  }
}

/// --report on a sweep: the measured search replayed on recorded
/// measurements. For each database entry of `gemm`'s op that holds more of
/// the space than a search measures (a sweep), the candidates the search
/// would measure under `machine` (the default, then the ranking: the first
/// measurementBudget of the space) are looked up in the entry, and the best
/// of them, the search's choice, is compared with the best of the whole
/// space: how the ranking does, without a GPU. A candidate the entry lacks
/// is one the search would not have had either.
void replayGemm(GemmOp gemm, const rt::TuningDb &db,
                const mlir::kgen::MachineModel &machine, StringRef label) {
  nlohmann::json op = mlir::kgen::toJson(mlir::kgen::gemmSignature(gemm));
  for (const rt::TuningEntry &entry : db.entries) {
    rt::TuningKey probe = entry.key;
    probe.op = op;
    std::optional<mlir::kgen::Target> target =
        mlir::kgen::parseTarget(entry.key.arch);
    if (!target || !entry.key.sameOpAndTarget(probe))
      continue;
    // The entry's correct, timed measurements by strategy (the fastest of
    // repeated ones).
    std::map<std::string, double> measuredMs;
    for (const rt::TuningCandidate &c : entry.candidates) {
      if (c.status != rt::RunStatus::Ok || !c.correct || !c.time ||
          !(c.time->medianMs > 0))
        continue;
      std::string key = ::kgen::tune::strategyOf(c.config).dump();
      auto [it, fresh] = measuredMs.try_emplace(key, c.time->medianMs);
      if (!fresh)
        it->second = std::min(it->second, c.time->medianMs);
    }
    size_t space = 0;
    SmallVector<::kgen::tune::RankedConfig> ranked =
        ::kgen::tune::rankCandidates(gemm, *target, machine,
                                     /*defaultFirst=*/true, space);
    const size_t budget = rt::measurementBudget(ranked.size(), maxCandidates);
    // Per ranked config: its measured time, if the entry has it.
    SmallVector<std::optional<double>> times;
    size_t covered = 0;
    for (const ::kgen::tune::RankedConfig &r : ranked) {
      auto it = measuredMs.find(::kgen::tune::strategyOf(r.config).dump());
      times.push_back(it == measuredMs.end() ? std::nullopt
                                             : std::optional(it->second));
      covered += times.back().has_value();
    }
    if (covered <= budget)
      continue; // not a sweep: the search would see all of it
    auto fastest = [&](size_t end) {
      std::optional<size_t> best;
      for (size_t i = 0; i < end; ++i)
        if (times[i] && (!best || *times[i] < *times[*best]))
          best = i;
      return best;
    };
    std::optional<size_t> chosen = fastest(budget), best = fastest(ranked.size());
    size_t seen = llvm::count_if(ArrayRef(times).take_front(budget),
                                 [](auto t) { return t.has_value(); });
    llvm::outs() << llvm::formatv(
        "  {0}search replay ({1} of the {2} configs measured, {3}): the "
        "search's {4} candidates ({5:P0} of the space; {6} measured here) ",
        label, covered, ranked.size(), entry.key.device, budget,
        double(budget) / double(ranked.size()), seen);
    if (!chosen) {
      llvm::outs() << "hold no correct measurement\n";
      continue;
    }
    llvm::outs() << llvm::formatv(
        "would choose {0} at {1:F4} ms: {2:F1}% over the best, {3} at "
        "{4:F4} ms\n",
        ::kgen::tune::configSummary(ranked[*chosen].config), *times[*chosen],
        100 * (*times[*chosen] / *times[*best] - 1),
        ::kgen::tune::configSummary(ranked[*best].config), *times[*best]);
  }
}

/// The field of a results file that `why` (a checkKey or checkCandidate
/// message about the key and candidate made from results[index]) is about.
std::string resultsField(size_t index, const std::string &why) {
  // A key's target comes from the result's config and the file's device.
  if (why.rfind("target.arch", 0) == 0)
    return llvm::formatv("results[{0}].config.target{1}", index,
                         why.substr(strlen("target.arch")))
        .str();
  if (why.rfind("target.sm_count", 0) == 0)
    return "device.sm_count" + why.substr(strlen("target.sm_count"));
  return llvm::formatv("results[{0}].{1}", index, why).str();
}

/// --import: every kgen result of a results file merged into --db. A
/// result that would make an invalid entry (an incomplete op, a time no
/// measurement gives) refuses the whole import, the database untouched;
/// one already in the database (the same file imported again) is not added
/// twice.
int importIntoDb() {
  if (dbPath.empty())
    return fail("--import needs --db", 2);
  rt::ResultsFile results;
  std::string err;
  if (!rt::readResults(importResults, results, err))
    return fail(err, 2);
  rt::TuningDb db;
  if (llvm::sys::fs::exists(dbPath) && !rt::readTuningDb(dbPath, db, err))
    return fail(err + " (not overwritten)", 2);
  // The measurements already recorded: a result imported again is not
  // added twice.
  std::set<std::string> recorded;
  for (const rt::TuningEntry &e : db.entries)
    for (const rt::TuningCandidate &c : e.candidates)
      recorded.insert(e.key.canonical() + "\n" + c.identity());
  size_t added = 0, duplicates = 0, skipped = 0;
  // Configs are checked as gemm_config attributes: the legality's rules for
  // every gemm.
  DialectRegistry registry;
  mlir::kgen::registerKgenDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  for (auto [index, r] : llvm::enumerate(results.results)) {
    if (r.implementation != "kgen")
      continue; // a baseline
    // Results of other ops, or of packages that never loaded (no config),
    // are not measurements of a gemm or attention config.
    auto kind = r.op.is_object() ? r.op.find("kind") : r.op.end();
    const bool attention = kind != r.op.end() && *kind == "attention";
    // A moe layer's result (a kgen-tune candidate: its config names the
    // tuned role) or a grouped GEMM's: recorded under the grouped GEMM key.
    const bool grouped = kind != r.op.end() &&
                         (*kind == "moe" || *kind == "grouped_gemm");
    if (!r.config.is_object() ||
        (kind != r.op.end() && kind->is_string() && *kind != "gemm" &&
         !attention && !grouped)) {
      ++skipped;
      continue;
    }
    rt::TuningKey key = rt::tuningKeyFor(r, results.device);
    rt::TuningCandidate c;
    std::string why;
    nlohmann::json keyOp;
    if (!rt::tuningRecordOf(r.op, r.config, keyOp, c.config, why))
      return fail(importResults + ": " + resultsField(index, why) +
                      "; nothing imported, " + dbPath + " left as it was",
                  2);
    c.status = r.status;
    c.correct = r.status == rt::RunStatus::Ok && r.relError >= 0;
    c.time = r.time;
    c.measuredAt = results.createdAt;
    c.host = results.host;
    if (grouped && rt::checkKey(key, why) && rt::checkCandidate(c, why)) {
      // The grouped GEMM legality's rules for every grouped GEMM.
      mlir::kgen::GroupedGemmLegalityError refusal;
      std::optional<mlir::kgen::GroupedGemmConfigFields> f =
          mlir::kgen::groupedGemmFieldsFromJson(c.config, refusal);
      if (f)
        if (std::optional<mlir::kgen::GroupedGemmLegalityError> e =
                mlir::kgen::checkGroupedGemmLegality(*f))
          refusal = *e;
      if (!f || !refusal.message.empty())
        why = "config" + (refusal.field.empty() ? "" : "." + refusal.field) +
              ": " + refusal.message;
    } else if (attention && rt::checkKey(key, why) &&
               rt::checkCandidate(c, why)) {
      // The attention legality's rules for every attention.
      mlir::kgen::AttentionLegalityError refusal;
      if (!mlir::kgen::attentionConfigFromJson(
              r.config, &context, mlir::kgen::ConfigSource::measured, "",
              refusal))
        why = "config" + (refusal.field.empty() ? "" : "." + refusal.field) +
              ": " + refusal.message;
    } else if (rt::checkKey(key, why) && rt::checkCandidate(c, why)) {
      ScopedDiagnosticHandler capture(&context, [&](Diagnostic &d) {
        if (why.empty())
          why = "config: " + d.str();
        return success();
      });
      if (!mlir::kgen::configFromJson(r.config, &context,
                                      mlir::kgen::ConfigSource::measured,
                                      "") &&
          why.empty())
        why = "config: not a complete gemm_config (a field is missing or "
              "mistyped)";
    }
    if (!why.empty())
      return fail(importResults + ": " + resultsField(index, why) +
                      "; nothing imported, " + dbPath + " left as it was",
                  2);
    if (!recorded.insert(key.canonical() + "\n" + c.identity()).second) {
      ++duplicates;
      continue;
    }
    db.add(key, c);
    ++added;
  }
  if (!rt::writeTuningDb(dbPath, db, err))
    return fail(err);
  llvm::outs() << "kgen-tune: added " << added << " measured candidates to "
               << dbPath << " (" << db.entries.size() << " entries)";
  if (duplicates)
    llvm::outs() << "; " << duplicates
                 << " already recorded (same config, time and host), not "
                    "added again";
  if (skipped)
    llvm::outs() << "; skipped " << skipped
                 << " results that are not of a gemm, attention or MoE "
                    "config";
  llvm::outs() << "\n";
  return 0;
}
} // namespace

/// Usage errors the option parser lets through (exit 2): an option that
/// takes a value given more than once (the tool reads and writes one
/// database, one model, one target: the last of several would win
/// silently), more than one mode, and options that do nothing in the mode
/// they are given in.
static int checkUsage() {
  for (auto &entry : cl::getRegisteredOptions()) {
    cl::Option *option = entry.second;
    if (option->getNumOccurrences() > 1 &&
        option->getValueExpectedFlag() == cl::ValueRequired &&
        llvm::is_contained(option->Categories, &category))
      return fail(llvm::formatv("--{0} is given {1} times; give it once",
                                option->ArgStr, option->getNumOccurrences()),
                  2);
  }
  if (jsonOut && !packagesDir.empty())
    return fail("--json lists the ranking; it does not go with --packages", 2);
  int modes = !importResults.empty() + measure + report + jsonOut +
              !packagesDir.empty();
  if (modes > 1)
    return fail("--import, --measure, --report, --json and --packages are "
                "separate modes: give one",
                2);
  if (!importResults.empty() && !inputFile.empty())
    return fail("--import adds results to --db and reads no module; got " +
                    inputFile,
                2);
  if (top.getNumOccurrences() && all)
    return fail("--top and --all both say how many candidates to keep: give "
                "one",
                2);
  if (fit && !report)
    return fail("--fit goes with --report", 2);
  if (!modelOut.empty() && !fit)
    return fail("--model-out writes the model --fit fits: give --report "
                "--fit too",
                2);
  return 0;
}

int main(int argc, char **argv) {
  mlir::kgen::containCrashes("kgen-tune");
  // Campaigns (Campaign.h) parse their own command lines.
  if (argc > 1 && llvm::StringRef(argv[1]) == "campaign")
    return ::kgen::tune::campaignMain(
        std::vector<std::string>(argv + 2, argv + argc));
  llvm::InitLLVM init(argc, argv);
  mlir::kgen::registerAllKgenPasses();
  cl::HideUnrelatedOptions({&category, &mlir::kgen::inputLimitsCategory()});
  // With an error stream the parser returns instead of exiting with 1: a
  // bad command line is a usage error, exit 2.
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "kgen-tune: candidate strategies, their packages, and measurements "
          "into a tuning database\n",
          &llvm::errs()))
    return 2;
  if (int usage = checkUsage())
    return usage;
  if (!importResults.empty())
    return importIntoDb();
  if (inputFile.empty())
    return fail("give a module to tune, or --import=RESULTS --db=DB", 2);
  return tuneModule();
}
