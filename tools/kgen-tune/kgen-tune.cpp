//===- kgen-tune.cpp - candidate strategies, packages, measurements -------===//
//
// kgen-tune FILE.mlir [--target=sm_90a] [--top=N] [--packages=DIR]
//     For each kgen.gemm: enumerate the gemm_configs that can work, rank
//     them by the analytical cost model (passes/Tuner.cpp) and print the
//     top N with their predicted time. With --packages, write the top N
//     (single-kernel, split_k = 1) as kernel packages under DIR, compiled
//     with NVRTC: candidates with spills or a stack frame are dropped.
// kgen-tune FILE.mlir --report --db=DB.json
//     For each kgen.gemm, every correct measured candidate of its database
//     entries beside the cost model's prediction, and the model's relative
//     error over them (median and worst): the model's quality, measured.
// kgen-tune --import=RESULTS.json --db=DB.json
//     Add every kgen result of a kgen-bench results file (the packages
//     measured on a GPU: `kgen-bench run DIR/*/* --out RESULTS.json`) to a
//     tuning database, which kgen-select-strategy{db=...} reads.
// Exit codes: 0 ok, 1 a step failed, 2 bad input or options.
//
//===----------------------------------------------------------------------===//

#include "tools/Register.h"

#include "codegen/emit/EmitCuda.h"
#include "codegen/emit/GemmJson.h"
#include "dialect/KgenTarget.h"
#include "kgen/runtime/Package.h"
#include "kgen/runtime/Results.h"
#include "kgen/runtime/TuningDb.h"
#include "passes/Passes.h"
#include "passes/Tuner.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <cmath>

using namespace mlir;
namespace cl = llvm::cl;
namespace rt = ::kgen::rt;

static cl::OptionCategory category("kgen-tune options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::init(""), cl::cat(category));
static cl::opt<std::string> targetName("target", cl::desc("sm_80 or sm_90a"),
                                       cl::init("sm_90a"), cl::cat(category));
static cl::opt<unsigned> top("top", cl::desc("Candidates kept per gemm"),
                             cl::init(8), cl::cat(category));
static cl::opt<std::string>
    packagesDir("packages",
                cl::desc("Write the top candidates as packages under DIR"),
                cl::cat(category));
static cl::opt<std::string>
    importResults("import",
                  cl::desc("kgen-bench results file to add to --db"),
                  cl::cat(category));
static cl::opt<std::string> dbPath("db", cl::desc("Tuning database file"),
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

int fail(const llvm::Twine &msg, int code = 1) {
  llvm::errs() << "kgen-tune: error: " << msg << "\n";
  return code;
}

std::string configSummary(GemmConfigAttr c) {
  return llvm::formatv("{0} {1}x{2}x{3} w{4}x{5} s{6} k{7} r{8}",
                       stringifyInstructionFamily(c.getInstruction()),
                       c.getBlockM(), c.getBlockN(), c.getBlockK(),
                       c.getWarpsM(), c.getWarpsN(), c.getStages(),
                       c.getSplitK(), c.getRasterGroup())
      .str();
}

/// `gemm` alone in a new module, as `func @main`, with `config`.
OwningOpRef<ModuleOp> isolate(GemmOp gemm, GemmConfigAttr config) {
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

/// Lowers and packages one candidate into `dir`; false (with the reason)
/// when it fails or ptxas reports a stack frame or spills.
bool packageCandidate(GemmOp gemm, GemmConfigAttr config, StringRef dir,
                      std::string &why) {
  OwningOpRef<ModuleOp> module = isolate(gemm, config);
  std::string diagnostics;
  llvm::raw_string_ostream diagStream(diagnostics);
  ScopedDiagnosticHandler handler(gemm.getContext(), [&](Diagnostic &d) {
    diagStream << d << "; ";
    return success();
  });
  PassManager pm(gemm.getContext());
  pm.addPass(mlir::kgen::createKgenLowerGemmToTiles());
  mlir::kgen::KgenEmitPackagesOptions emit;
  emit.outputDir = dir.str();
  pm.addPass(mlir::kgen::createKgenEmitPackages(emit));
  if (failed(pm.run(*module))) {
    why = diagnostics;
    return false;
  }
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    rt::KernelPackage pkg;
    std::string err;
    if (!rt::loadPackage(it->path(), pkg, err)) {
      why = err;
      return false;
    }
    std::vector<rt::ResourceUsage> usages;
    for (const rt::PackageKernel &kernel : pkg.kernels)
      if (kernel.resources)
        usages.push_back(*kernel.resources);
    rt::ResourceUsage worst = rt::worstOf(usages);
    if (worst.spillStoreBytes > 0 || worst.stackBytes > 0) {
      why = llvm::formatv("ptxas: {0} bytes stack, {1} bytes spilled",
                          worst.stackBytes, worst.spillStoreBytes)
                .str();
      return false;
    }
  }
  return true;
}

void reportGemm(GemmOp gemm, const rt::TuningDb &db,
                const mlir::kgen::MachineModel &machine,
                SmallVectorImpl<double> &errors);

int tuneModule() {
  DialectRegistry registry;
  mlir::kgen::registerKgenDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  std::optional<mlir::kgen::Target> target = mlir::kgen::parseTarget(targetName);
  if (!target)
    return fail("--target must be sm_80 or sm_90a; got '" + targetName + "'",
                2);
  std::string err;
  auto file = openInputFile(inputFile, &err);
  if (!file)
    return fail(err, 2);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return fail("could not parse " + inputFile, 2);

  mlir::kgen::MachineModel machine;
  if (report) {
    if (dbPath.empty())
      return fail("--report needs --db", 2);
    rt::TuningDb db;
    if (!rt::readTuningDb(dbPath, db, err))
      return fail(err, 2);
    SmallVector<double> errors;
    int index = 0;
    module->walk([&](GemmOp gemm) {
      llvm::outs() << "gemm " << index++ << ": " << gemm.getBatch() << "x"
                   << gemm.getM() << "x" << gemm.getN() << "x" << gemm.getK()
                   << "\n";
      reportGemm(gemm, db, machine, errors);
    });
    if (errors.empty()) {
      llvm::outs() << "no measured candidate of these gemms in " << dbPath
                   << "\n";
      return 0;
    }
    llvm::sort(errors);
    llvm::outs() << llvm::format("cost model error over %zu measured "
                                 "candidates: median %.1f%%, worst %.1f%%\n",
                                 errors.size(),
                                 100 * errors[errors.size() / 2],
                                 100 * errors.back());
    return 0;
  }
  int status = 0, index = 0;
  module->walk([&](GemmOp gemm) {
    SmallVector<GemmConfigAttr> configs =
        mlir::kgen::enumerateGemmConfigs(gemm, *target);
    SmallVector<std::pair<double, GemmConfigAttr>> ranked;
    for (GemmConfigAttr c : configs)
      ranked.push_back({mlir::kgen::predictGemmMs(gemm, c, machine), c});
    llvm::stable_sort(ranked, [](auto &x, auto &y) { return x.first < y.first; });
    double flops = *mlir::kgen::estimateFlops(gemm);
    llvm::outs() << "gemm " << index << ": " << gemm.getBatch() << "x"
                 << gemm.getM() << "x" << gemm.getN() << "x" << gemm.getK()
                 << " " << gemm.getA().getType().getElementType() << ", "
                 << configs.size() << " valid configs for " << targetName
                 << "\n";
    unsigned kept = 0;
    for (auto &[ms, c] : ranked) {
      if (kept == top)
        break;
      std::string note;
      if (!packagesDir.empty()) {
        if (c.getSplitK() > 1)
          continue; // a package holds one kernel
        llvm::SmallString<256> dir(packagesDir);
        llvm::sys::path::append(dir, "gemm" + std::to_string(index),
                                "c" + std::to_string(kept));
        std::string why;
        if (!packageCandidate(gemm, c, dir, why)) {
          llvm::outs() << "  dropped  " << configSummary(c) << ": " << why
                       << "\n";
          continue;
        }
        note = "  -> " + dir.str().str();
      }
      llvm::outs() << llvm::format("  %2u  %-40s %9.4f ms %8.1f TFLOP/s",
                                   kept, configSummary(c).c_str(), ms,
                                   flops / (ms * 1e-3) / 1e12)
                   << note << "\n";
      ++kept;
    }
    if (kept == 0) {
      llvm::outs() << "  no candidate\n";
      status = 1;
    }
    ++index;
  });
  return status;
}

/// Prediction against measurement for every measured candidate of `gemm`.
void reportGemm(GemmOp gemm, const rt::TuningDb &db,
                const mlir::kgen::MachineModel &machine,
                SmallVectorImpl<double> &errors) {
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
      double measured = c.time->medianMs;
      double error = std::fabs(predicted - measured) / measured;
      errors.push_back(error);
      llvm::outs() << llvm::format("  %-40s predicted %9.4f ms  measured "
                                   "%9.4f ms  error %6.1f%%",
                                   configSummary(config).c_str(), predicted,
                                   measured, 100 * error)
                   << "  (" << entry.key.device << ")\n";
    }
  }
}

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
  int added = 0;
  for (const rt::KernelResult &r : results.results) {
    if (r.implementation != "kgen" || !r.op.is_object() ||
        !r.config.is_object())
      continue;
    rt::TuningKey key;
    key.op = r.op;
    auto target = r.config.find("target");
    key.arch = target != r.config.end() && target->is_string()
                   ? target->get<std::string>()
                   : "";
    key.smCount = results.device.smCount;
    key.device = results.device.name;
    key.cudaVersion = results.device.runtimeVersion;
    key.emitterVersion = mlir::kgen::kEmitterVersion;
    rt::TuningCandidate c;
    c.config = r.config;
    c.status = r.status;
    c.correct = r.status == rt::RunStatus::Ok && r.relError >= 0;
    c.time = r.time;
    c.measuredAt = results.createdAt;
    c.host = results.host;
    db.add(key, c);
    ++added;
  }
  if (!rt::writeTuningDb(dbPath, db, err))
    return fail(err);
  llvm::outs() << "kgen-tune: added " << added << " measured candidates to "
               << dbPath << " (" << db.entries.size() << " entries)\n";
  return 0;
}
} // namespace

int main(int argc, char **argv) {
  mlir::kgen::containCrashes("kgen-tune");
  llvm::InitLLVM init(argc, argv);
  mlir::kgen::registerAllKgenPasses();
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "kgen-tune: candidate strategies, their packages, and measurements "
      "into a tuning database\n");
  if (!importResults.empty())
    return importIntoDb();
  if (inputFile.empty())
    return fail("give a module to tune, or --import=RESULTS --db=DB", 2);
  return tuneModule();
}
