//===- kgen-bench.cpp - verify and time kgen kernel packages --------------===//
//
// `kgen-bench --help` for usage. This process never initialises CUDA: GPU
// work runs in children (cuda/Bench.h, reporting through ChildReports.h),
// so it survives faulting kernels and can fork safely; NVRTC compilation
// (no GPU needed) happens here.
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/Arch.h"
#include "kgen/runtime/ChildReports.h"
#include "kgen/runtime/Cli.h"
#include "kgen/runtime/Isolate.h"
#include "kgen/runtime/Names.h"
#include "kgen/runtime/Nvrtc.h"
#include "kgen/runtime/Package.h"
#include "kgen/runtime/Results.h"
#include "kgen/runtime/Search.h"
#include "kgen/runtime/Suite.h"
#include "kgen/runtime/Synthetic.h"
#include "kgen/runtime/TuningDb.h"
#include "kgen/runtime/Verdict.h"
#include "kgen/runtime/cuda/Bench.h"
#include "kgen/runtime/cuda/GemmLt.h"
#include "kgen/runtime/cuda/Reference.h"

#include "BenchPerf.h"

#include "Emulate.h"

#include <cuda_runtime_api.h> // CUDART_VERSION: no call, no CUDA set-up
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace kgen::rt;

namespace {

/// How long the device probe may take (driver start-up included).
constexpr double kProbeTimeoutSeconds = 60;

/// The most packages of one op `run` measures in one child: the set-up
/// (context, inputs, reference) is paid once per group, and the results
/// file is rewritten after each.
constexpr size_t kGroupPackages = 16;

/// `text` as one line safe on a terminal: unchanged when it is printable
/// ASCII, else escaped whole (escapeForTerminal). Messages quote names,
/// paths and logs from packages and results files.
std::string oneLine(const std::string &text) {
  const bool printable = std::all_of(text.begin(), text.end(), [](char c) {
    return static_cast<unsigned char>(c) >= 0x20 &&
           static_cast<unsigned char>(c) < 0x7f;
  });
  return printable ? text : escapeForTerminal(text);
}

void say(const std::string &line) {
  std::fprintf(stderr, "kgen-bench: %s\n", oneLine(line).c_str());
}

/// The line of a compile log worth showing in a table: the first error.
std::string firstErrorLine(const std::string &log) {
  std::string first;
  size_t start = 0;
  while (start < log.size()) {
    const size_t end = std::min(log.find('\n', start), log.size());
    const std::string line = log.substr(start, end - start);
    if (first.empty() && !line.empty())
      first = line;
    if (line.find("error") != std::string::npos)
      return line;
    start = end + 1;
  }
  return first;
}

std::string hostName() {
  char name[256] = {};
  return gethostname(name, sizeof(name) - 1) == 0 ? name : "";
}

ResultsFile newResultsFile() {
  ResultsFile file;
  file.createdAt = utcNow();
  file.host = hostName();
  file.machineId = hostMachineId();
  file.nvrtcVersion = nvrtcVersionString();
  file.cublasLtVersion = cublasLtVersionString();
  if (const char *commit = std::getenv("KGEN_COMMIT"))
    file.commit = commit;
  return file;
}

bool save(const std::string &path, const ResultsFile &file) {
  std::string err;
  if (writeResults(path, file, err))
    return true;
  say("cannot write results: " + err);
  return false;
}

/// Loads every package; false (after saying why) on the first bad one.
bool loadPackages(const std::vector<std::string> &dirs,
                  std::vector<KernelPackage> &packages) {
  for (const std::string &dir : dirs) {
    KernelPackage pkg;
    std::string err;
    if (!loadPackage(dir, pkg, err)) {
      say(err);
      return false;
    }
    packages.push_back(std::move(pkg));
  }
  return true;
}

bool readCeilings(const std::string &path, std::optional<Ceilings> &ceilings) {
  if (path.empty())
    return true;
  ResultsFile file;
  std::string err;
  if (!readResults(path, file, err)) {
    say(err);
    return false;
  }
  if (!file.ceilings) {
    say(path + ": holds no ceilings (write it with `kgen-bench ceilings`)");
    return false;
  }
  ceilings = file.ceilings;
  return true;
}

/// Probes the device in a child. On failure says why (exactly one line
/// when there is no device) and sets `exitCode` to kExitNoDevice.
bool probe(DeviceInfo &device, int &exitCode) {
  const ChildOutcome outcome = runIsolated(probeChild, kProbeTimeoutSeconds);
  exitCode = kExitNoDevice;
  if (outcome.kind == ChildOutcome::Kind::Exited &&
      outcome.exitCode == kNoDeviceExitCode) {
    say("no CUDA device");
    return false;
  }
  std::vector<ResultsFile> fragments;
  std::string err;
  if (!outcome.ok() || !parseFragments(outcome.output, fragments, err) ||
      fragments.empty()) {
    say("no usable CUDA device: " +
        (outcome.ok() ? err : outcome.output.empty() ? outcome.error : outcome.output));
    return false;
  }
  device = fragments.front().device;
  return true;
}

uint64_t chooseSeed(const CliOptions &options) {
  if (options.seed)
    return *options.seed;
  std::random_device random;
  const uint64_t seed = (uint64_t{random()} << 32) ^ random();
  say("seed " + std::to_string(seed) + " (--seed to repeat)");
  return seed;
}

BenchOptions benchOptions(const CliOptions &cli, uint64_t seed,
                          const std::optional<Ceilings> &ceilings) {
  BenchOptions options;
  options.timing = cli.timing;
  options.seed = seed;
  options.timeoutSeconds = cli.timeoutSeconds;
  options.ceilings = ceilings;
  return options;
}

std::string formatFixed4(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.4f", v);
  return buf;
}

// ------------------------------------------------------------------ modes

int compileMode(const CliOptions &cli) {
  std::vector<KernelPackage> packages;
  if (!loadPackages(cli.inputs, packages))
    return kExitUsage;
  const std::string cacheDir = cli.cacheDir.empty() ? defaultCacheDir() : cli.cacheDir;
  std::vector<CompileRow> rows;
  ResultsFile file = newResultsFile();
  for (const KernelPackage &pkg : packages) {
    CompileOptions options;
    options.arch = cli.arch.empty() ? pkg.target : cli.arch;
    options.cacheDir = cacheDir;
    CompileResult compiled;
    std::string err;
    CompileRow row;
    row.name = pkg.name;
    row.target = options.arch;
    for (const PackageKernel &kernel : pkg.kernels)
      row.dynamicSmemBytes =
          std::max(row.dynamicSmemBytes, kernel.launch.dynamicSmemBytes);
    row.ok = compilePackage(pkg, options, compiled, err);
    row.resources = compiled.resources;
    row.compileMs = compiled.compileMs;
    row.cacheHit = compiled.fromCache;
    row.error = row.ok ? "" : firstErrorLine(err);
    rows.push_back(row);

    KernelResult result = newResult(pkg.name, "kgen", pkg.op, pkg.config);
    result.sourceSha256 = pkg.sourceSha256;
    result.status = row.ok ? RunStatus::Ok : RunStatus::CompileFailed;
    result.reason = row.ok ? "" : err;
    if (row.ok)
      result.resources = compiled.resources;
    file.results.push_back(result);
  }
  std::fputs(formatCompileTable(rows).c_str(), stdout);
  if (!cli.out.empty() && !save(cli.out, file))
    return kExitUsage;
  return resultsExitCode(file.results);
}

/// Compiles a gemm, attention, moe or grouped_gemm package for `device` and the reference
/// epilogue. On
/// failure marks `kernel` (compile_failed, or launch_failed for a target
/// the device cannot run) and returns false.
bool preparePackage(const KernelPackage &pkg, const DeviceInfo &device,
                    const std::string &cacheDir, PreparedPackage &prepared,
                    KernelResult &kernel) {
  prepared.pkg = pkg;
  std::string err;
  if (pkg.op.value("kind", "") == "attention") {
    AttentionSpec spec;
    (void)parseAttentionOp(pkg.op, spec, err); // checked when loading
    prepared.attention = spec;
  } else if (pkg.op.value("kind", "") == "moe") {
    // loadPackage keeps a moe op opaque: read and check it here.
    MoeSpec spec;
    if (!parseMoeOp(pkg.op, spec, err) || !checkMoeParams(pkg, spec, err)) {
      kernel.status = RunStatus::LaunchFailed;
      kernel.reason = err;
      return false;
    }
    prepared.moe = spec;
  } else if (pkg.op.value("kind", "") == "grouped_gemm") {
    GroupedGemmSpec spec;
    (void)parseGroupedGemmOp(pkg.op, spec, err); // checked when loading
    prepared.groupedGemm = spec;
  } else {
    (void)parseGemmOp(pkg.op, prepared.spec, err); // checked when loading
    prepared.tf32 = usesTf32(prepared.spec, pkg.config);
  }
  const std::optional<std::string> arch = runArch(pkg.target, device);
  if (!arch) {
    kernel.status = RunStatus::LaunchFailed;
    kernel.reason = "target " + pkg.target + " cannot run on " + device.name +
                    " (compute capability " + std::to_string(device.ccMajor) +
                    "." + std::to_string(device.ccMinor) + ")";
    return false;
  }
  if (*arch != pkg.target)
    say("compiling " + pkg.name + " for " + *arch + " (target " + pkg.target +
        ": its machine code does not run on this device)");
  CompileOptions compile;
  compile.arch = *arch;
  compile.cacheDir = cacheDir;
  if (!compilePackage(pkg, compile, prepared.kernel, err)) {
    kernel.status = RunStatus::CompileFailed;
    kernel.reason = err;
    return false;
  }
  kernel.resources = prepared.kernel.resources;
  // An attention, moe or grouped_gemm package's child needs only the
  // epilogue cubin's kgen_count_differences: compiled for the default
  // GemmSpec.
  const bool hostChecked =
      prepared.attention || prepared.moe || prepared.groupedGemm;
  if (!compileEpilogue(hostChecked ? GemmSpec{} : prepared.spec,
                       deviceArch(device), cacheDir,
                       prepared.epilogue, err)) {
    kernel.status = RunStatus::CompileFailed;
    kernel.reason = "the reference epilogue did not compile: " + err;
    return false;
  }
  return true;
}

/// What one package's measurement reported: its baseline's result (none
/// when the package did not get that far) and its kernel's.
struct PackageOutcome {
  std::optional<KernelResult> baseline;
  KernelResult kernel;
};

/// Verifies and times prepared packages of one op (equal op and tf32) in as
/// few children as faults allow (runListInChildren): {baseline, kernel} per
/// package, in order. `kernels[i]` is package i's result so far (its ptxas
/// report); what a child could not report is filled in.
std::vector<PackageOutcome>
runPreparedGroup(const std::vector<PreparedPackage> &prepared,
                 const std::vector<KernelResult> &kernels,
                 const BenchOptions &options, DeviceInfo &device) {
  const std::vector<ItemReport> reports = runListInChildren(
      prepared.size(),
      [&](size_t from, int fd) {
        std::vector<const PreparedPackage *> rest;
        for (size_t i = from; i < prepared.size(); ++i)
          rest.push_back(&prepared[i]);
        return packageGroupChild(rest, options, fd);
      },
      [](const KernelResult &r) { return r.implementation == "kgen"; },
      options.timeoutSeconds, device);
  std::vector<PackageOutcome> out;
  for (size_t i = 0; i < reports.size(); ++i) {
    const ItemReport &report = reports[i];
    const KernelPackage &pkg = prepared[i].pkg;
    PackageOutcome one{std::nullopt, kernels[i]};
    for (const KernelResult &r : report.results)
      (r.implementation == "kgen" ? one.kernel : one.baseline.emplace()) = r;
    if (!one.kernel.resources) // ptxas's report, from the compile here
      one.kernel.resources = kernels[i].resources;
    if (!report.complete) {
      const KernelResult missing = missingResult(pkg.name, "kgen", pkg.op, report.child);
      one.kernel.status = report.ran ? missing.status : RunStatus::Skipped;
      one.kernel.reason = report.ran ? missing.reason
                              : "not run: children of its group die before "
                                "reporting (" + report.child.error + ")";
    }
    if (prepared[i].attention || prepared[i].moe ||
        prepared[i].groupedGemm) { // no baseline
      out.push_back(std::move(one));
      continue;
    }
    if (!one.baseline)
      one.baseline = missingResult(baselineNameFor(prepared[i]), "cublaslt",
                                   pkg.op, report.child);
    linkBaseline(one.kernel, *one.baseline);
    out.push_back(std::move(one));
  }
  return out;
}

/// Compiles, verifies and times packages (gemms of one op measure in one
/// child, see runPreparedGroup); an outcome per package, in order.
std::vector<PackageOutcome> runPackages(const std::vector<const KernelPackage *> &packages,
                                        const BenchOptions &options,
                                        const std::string &cacheDir,
                                        DeviceInfo &device) {
  std::vector<PackageOutcome> out;
  std::vector<PreparedPackage> group;
  std::vector<KernelResult> groupKernels;
  auto flush = [&] {
    for (PackageOutcome &o : runPreparedGroup(group, groupKernels, options, device))
      out.push_back(std::move(o));
    group.clear();
    groupKernels.clear();
  };
  for (const KernelPackage *pkg : packages) {
    KernelResult kernel = newResult(pkg->name, "kgen", pkg->op, pkg->config);
    kernel.sourceSha256 = pkg->sourceSha256;
    const std::string kind = pkg->op.value("kind", "");
    PreparedPackage prepared;
    if (kind != "gemm" && kind != "attention" && kind != "moe" &&
        kind != "grouped_gemm") {
      kernel.reason = "no reference for op kind '" + kind + "' yet: not run";
    } else if (preparePackage(*pkg, device, cacheDir, prepared, kernel)) {
      // A group shares inputs and a reference: one op, one tf32 use, the
      // same tensors.
      if (!group.empty() && (prepared.pkg.op != group.front().pkg.op ||
                             prepared.tf32 != group.front().tf32 ||
                             !sameTensorParams(prepared.pkg, group.front().pkg)))
        flush();
      group.push_back(std::move(prepared));
      groupKernels.push_back(std::move(kernel));
      continue;
    }
    flush(); // keeps the packages' order
    out.push_back({std::nullopt, std::move(kernel)});
  }
  flush();
  return out;
}

bool checkGemmPackages(const std::vector<KernelPackage> &packages) {
  for (const KernelPackage &pkg : packages) {
    if (pkg.op.value("kind", "") != "gemm")
      continue;
    GemmSpec spec;
    std::string err;
    if (!parseGemmOp(pkg.op, spec, err) || !checkGemmParams(pkg, spec, err)) {
      say(pkg.dir + ": " + err);
      return false;
    }
  }
  return true;
}

/// The inputs of run and tune: packages (gemms checked) and ceilings.
bool loadRunInputs(const CliOptions &cli, std::vector<KernelPackage> &packages,
                   std::optional<Ceilings> &ceilings) {
  return loadPackages(cli.inputs, packages) && checkGemmPackages(packages) &&
         readCeilings(cli.ceilings, ceilings);
}

/// Probes the device and writes the results file, empty, before anything
/// runs. Returns the exit code to stop with, if any.
std::optional<int> openResults(const CliOptions &cli,
                               const std::optional<Ceilings> &ceilings,
                               ResultsFile &file) {
  file = newResultsFile();
  int exitCode = kExitOk;
  if (!probe(file.device, exitCode))
    return exitCode;
  file.ceilings = ceilings;
  if (!save(cli.out, file))
    return kExitUsage;
  return std::nullopt;
}

int runMode(const CliOptions &cli) {
  std::vector<KernelPackage> packages;
  std::optional<Ceilings> ceilings;
  if (!loadRunInputs(cli, packages, ceilings))
    return kExitUsage;
  ResultsFile file;
  if (std::optional<int> stop = openResults(cli, ceilings, file))
    return *stop;
  const uint64_t seed = chooseSeed(cli);
  const std::string cacheDir = cli.cacheDir.empty() ? defaultCacheDir() : cli.cacheDir;
  // Consecutive packages of one op, up to kGroupPackages, share a child,
  // its inputs and its reference; the results file is rewritten after each
  // such group, so an interrupted run loses at most the group in flight.
  for (size_t i = 0, end; i < packages.size(); i = end) {
    end = i + 1;
    while (end < packages.size() && end - i < kGroupPackages &&
           packages[end].op == packages[i].op)
      ++end;
    std::vector<const KernelPackage *> group;
    for (size_t k = i; k < end; ++k)
      group.push_back(&packages[k]);
    say("[" + std::to_string(i + 1) +
        (end - i > 1 ? "-" + std::to_string(end) : "") + "/" +
        std::to_string(packages.size()) + "] " + packages[i].name +
        (end - i > 1 ? " and " + std::to_string(end - i - 1) +
                           " more of its op"
                     : ""));
    const BenchOptions options = benchOptions(cli, seed + i, ceilings);
    for (PackageOutcome &o : runPackages(group, options, cacheDir, file.device)) {
      if (o.baseline)
        file.results.push_back(std::move(*o.baseline));
      file.results.push_back(std::move(o.kernel));
    }
    if (!save(cli.out, file))
      return kExitUsage;
  }
  std::fputs(formatResultsTable(file.results).c_str(), stdout);
  return resultsExitCode(file.results);
}

/// What `run --emulate` calls the device: not timed, nothing measured.
constexpr const char *kEmulatedDeviceName = "emulated (host CPU, kgen-emulate)";

/// One package on the emulated device, in a child: a kernel that faults
/// (the emulator exits on a guard-page fault), hangs past --timeout or
/// crashes the host compiler costs one result, not the run.
KernelResult emulateOne(const KernelPackage &pkg, uint64_t seed,
                        double timeoutSeconds) {
  KernelResult result;
  result.name = pkg.name;
  result.implementation = "kgen";
  result.op = pkg.op;
  result.config = pkg.config;
  // The emulator's reports (races, hazards, deadlocks, faults) go to the
  // child's stderr: an unlinked temporary file, read back here, shown and
  // kept as the reason. No file is left behind, whatever happens.
  std::unique_ptr<FILE, int (*)(FILE *)> log(std::tmpfile(), &std::fclose);
  const ChildOutcome outcome = runIsolated(
      [&](int fd) {
        if (log)
          ::dup2(::fileno(log.get()), STDERR_FILENO);
        kgen::emu::EmulateOptions options;
        options.seed = seed;
        kgen::emu::EmulateResult r;
        kgen::emu::emulatePackage(pkg, options, r);
        const nlohmann::json j = {{"compiled", r.compiled}, {"ran", r.ran},
                                  {"correct", r.correct},   {"error", r.error},
                                  {"rel_error", r.relError}};
        return writeAll(fd, j.dump()) ? 0 : 1;
      },
      timeoutSeconds);
  std::string report;
  if (log) {
    constexpr size_t kMaxReport = 64 * 1024;
    report.resize(kMaxReport);
    std::rewind(log.get());
    report.resize(std::fread(report.data(), 1, kMaxReport, log.get()));
    // Shown line by line, each escaped for the terminal.
    for (size_t start = 0; start < report.size();) {
      const size_t end = std::min(report.find('\n', start), report.size());
      std::fprintf(stderr, "%s\n", oneLine(report.substr(start, end - start)).c_str());
      start = end + 1;
    }
  }
  // The report's first error line says more than an exit code.
  std::string firstReport = firstErrorLine(report);
  nlohmann::json j;
  if (outcome.ok())
    j = nlohmann::json::parse(outcome.output, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    result.status = outcome.kind == ChildOutcome::Kind::TimedOut
                        ? RunStatus::TimedOut
                        : RunStatus::Faulted;
    result.reason = "emulated: " + (!firstReport.empty() ? firstReport
                                    : !outcome.error.empty() ? outcome.error
                                                             : outcome.output);
    return result;
  }
  const double relError = j.value("rel_error", -1.0);
  if (j.value("ran", false))
    result.relError = std::isfinite(relError) && relError >= 0 ? relError : -1;
  result.status = j.value("correct", false) ? RunStatus::Ok
                  : j.value("ran", false)   ? RunStatus::Wrong
                  : j.value("compiled", false) ? RunStatus::LaunchFailed
                                               : RunStatus::CompileFailed;
  if (result.status != RunStatus::Ok)
    result.reason = "emulated: " + j.value("error", std::string()) +
                    (firstReport.empty() ? "" : "\n" + firstReport);
  return result;
}

/// `run --emulate`: every package on the emulated device, one child each,
/// the results file rewritten after each. No GPU, driver or NVRTC needed.
int emulateMode(const CliOptions &cli) {
  std::vector<KernelPackage> packages;
  if (!loadPackages(cli.inputs, packages) || !checkGemmPackages(packages))
    return kExitUsage;
  ResultsFile file = newResultsFile();
  file.device.name = kEmulatedDeviceName;
  if (!save(cli.out, file))
    return kExitUsage;
  const uint64_t seed = chooseSeed(cli);
  for (size_t i = 0; i < packages.size(); ++i) {
    say("[" + std::to_string(i + 1) + "/" + std::to_string(packages.size()) +
        "] " + packages[i].name + " (emulated)");
    file.results.push_back(emulateOne(packages[i], seed + i, cli.timeoutSeconds));
    if (!save(cli.out, file))
      return kExitUsage;
  }
  std::fputs(formatResultsTable(file.results).c_str(), stdout);
  return resultsExitCode(file.results);
}

/// Compiles every package into the cache on all hardware threads, so that
/// the measured search finds them there. Errors are reported when the
/// package is measured (preparePackage compiles again, from the cache).
void precompile(const std::vector<KernelPackage> &packages,
                const DeviceInfo &device, const std::string &cacheDir) {
  std::vector<const KernelPackage *> runnable;
  std::vector<CompileOptions> options;
  for (const KernelPackage &pkg : packages)
    if (const std::optional<std::string> arch = runArch(pkg.target, device)) {
      runnable.push_back(&pkg);
      options.emplace_back();
      options.back().arch = *arch;
      options.back().cacheDir = cacheDir;
    }
  (void)compilePackages(runnable, options, /*jobs=*/0);
}

/// kgen-bench tune: the measured search (kgen/runtime/Search.h) over
/// candidate packages of one op, ranked best first.
int tuneMode(const CliOptions &cli) {
  std::vector<KernelPackage> packages;
  std::optional<Ceilings> ceilings;
  if (!loadRunInputs(cli, packages, ceilings))
    return kExitUsage;
  for (const KernelPackage &pkg : packages)
    if (pkg.op != packages.front().op) {
      say(pkg.dir + ": another op than " + packages.front().dir +
          " (tune compares candidates of one op)");
      return kExitUsage;
    }
  TuningDb db;
  std::string err;
  if (std::filesystem::exists(cli.db) && !readTuningDb(cli.db, db, err)) {
    say(err + " (not overwritten)");
    return kExitUsage;
  }
  ResultsFile file;
  if (cli.synthetic) { // a stand-in: no device, nothing compiled or run
    file = newResultsFile();
    file.device = syntheticDevice(formatCudaVersion(CUDART_VERSION));
    file.ceilings = ceilings;
    say("synthetic: stand-in measurements, no GPU (--synthetic)");
    if (!save(cli.out, file))
      return kExitUsage;
  } else if (std::optional<int> stop = openResults(cli, ceilings, file)) {
    return *stop;
  }
  const std::string cacheDir = cli.cacheDir.empty() ? defaultCacheDir() : cli.cacheDir;
  const auto compileStart = std::chrono::steady_clock::now();
  if (!cli.synthetic)
    precompile(packages, file.device, cacheDir);
  const double compileSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                    compileStart)
          .count();
  char compiled[96];
  std::snprintf(compiled, sizeof(compiled), "compiled %zu packages in %.1f s",
                packages.size(), compileSeconds);
  say(compiled);
  const uint64_t seed = chooseSeed(cli);
  SearchOptions options;
  // The budget is the whole tuning of the op: compiling took part of it.
  options.maxSeconds = cli.maxSeconds - compileSeconds;
  options.batch = static_cast<size_t>(cli.batch);
  options.finalists = static_cast<unsigned>(cli.finalists);
  options.rounds = static_cast<unsigned>(cli.rounds);
  int runs = 0;
  const MeasureFn measure = [&](const std::vector<size_t> &indices,
                                std::vector<CandidateRun> &out,
                                std::string &e) {
    // One child for the batch: one op, one set of inputs.
    const BenchOptions bench =
        benchOptions(cli, seed + static_cast<uint64_t>(runs++), ceilings);
    std::vector<const KernelPackage *> batch;
    for (size_t i : indices)
      batch.push_back(&packages[i]);
    std::vector<PackageOutcome> results;
    if (cli.synthetic)
      for (const KernelPackage *pkg : batch) {
        std::this_thread::sleep_for(
            std::chrono::duration<double, std::milli>(cli.syntheticDelayMs));
        results.push_back({std::nullopt, syntheticRun(*pkg)});
      }
    else
      results = runPackages(batch, bench, cacheDir, file.device);
    for (size_t k = 0; k < results.size() && k < out.size(); ++k) {
      out[k].result = results[k].kernel;
      if (results[k].baseline && results[k].baseline->time)
        out[k].baselineMs = results[k].baseline->time->medianMs;
      if (results[k].baseline)
        file.results.push_back(*results[k].baseline);
      file.results.push_back(results[k].kernel);
    }
    if (!save(cli.out, file)) {
      e = "cannot write " + cli.out;
      return SearchStatus::Failed;
    }
    return SearchStatus::Ok;
  };
  SearchOutcome outcome;
  const SearchStatus status = searchCandidates(
      packages.size(), options, measure,
      [&](const std::vector<size_t> &indices) {
        for (size_t i : indices) {
          const CandidateRun &run = outcome.first[i];
          std::string what =
              !run.result         ? "not run"
              : !correctRun(run)  ? runStatusName(run.result->status)
                                  : formatFixed4(run.result->time->medianMs) +
                                        " ms" +
                                        (std::isfinite(run.baselineMs)
                                             ? " (cuBLASLt " +
                                                   formatFixed4(run.baselineMs) +
                                                   " ms)"
                                             : std::string(" (no baseline)"));
          say("[" + std::to_string(i + 1) + "/" +
              std::to_string(packages.size()) + "] " + packages[i].dir +
              ": " + what);
        }
      },
      outcome, err);
  if (status == SearchStatus::Failed) {
    say(err);
    return kExitKernelFailed;
  }
  addToDb(outcome, file.device, file.createdAt, file.host, db);
  if (!writeTuningDb(cli.db, db, err)) {
    say(err);
    return kExitUsage;
  }
  if (outcome.budgetSpent)
    say("time budget spent: " + std::to_string(outcome.measured) + " of " +
        std::to_string(packages.size()) + " candidates measured");
  for (size_t f = 0; f < outcome.finalists.size(); ++f)
    std::printf("finalist %s: paired score %.3f over %zu runs -> %.4f ms\n",
                escapeForTerminal(packages[outcome.finalists[f]].dir).c_str(),
                outcome.scores.empty() ? 1.0 : outcome.scores[f],
                outcome.finalistRuns.empty()
                    ? size_t{1}
                    : outcome.finalistRuns[f].size(),
                outcome.correctedMs(outcome.finalists[f]));
  const std::optional<size_t> best = outcome.best();
  if (!best) {
    say("no candidate ran correctly");
    return kExitKernelFailed;
  }
  const double first = outcome.correctedMs(0), winner = outcome.correctedMs(*best);
  std::printf("best: %s, %.4f ms (drift-corrected); %s over the first "
              "package\n",
              escapeForTerminal(packages[*best].dir).c_str(), winner,
              std::isfinite(first)
                  ? (formatFixed4(first / winner) + "x").c_str()
                  : "no speed-up known (the first package did not run correctly)");
  // A wrong or faulting candidate is kept out of the choice, and is still
  // a kernel that failed.
  return resultsExitCode(file.results);
}

int ceilingsMode(const CliOptions &cli) {
  ResultsFile file = newResultsFile();
  if (cli.synthetic) { // a stand-in: fixed figures, labelled
    file.device = syntheticDevice(formatCudaVersion(CUDART_VERSION));
    file.ceilings = syntheticCeilings();
    if (!save(cli.out, file))
      return kExitUsage;
    std::printf("ceilings: copy %.0f GB/s, matmul %.1f TFLOP/s (%s)\n",
                file.ceilings->copyGBps, file.ceilings->matmulTflops,
                file.ceilings->matmulWhat.c_str());
    return kExitOk;
  }
  int exitCode = kExitOk;
  if (!probe(file.device, exitCode))
    return exitCode;
  const BenchOptions options = benchOptions(cli, chooseSeed(cli), std::nullopt);
  const ChildOutcome outcome = runIsolated(
      [&](int fd) { return ceilingsChild(options, fd); }, cli.timeoutSeconds);
  std::vector<ResultsFile> fragments;
  std::string err;
  if (!parseFragments(outcome.output, fragments, err) || fragments.empty() ||
      !fragments.back().ceilings) {
    say("measuring the ceilings failed: " +
        (err.empty() ? outcome.error : err));
    return kExitKernelFailed;
  }
  file.device = fragments.back().device;
  file.ceilings = fragments.back().ceilings;
  file.results = fragments.back().results;
  if (!save(cli.out, file))
    return kExitUsage;
  std::fputs(formatResultsTable(file.results).c_str(), stdout);
  std::printf("ceilings: copy %.0f GB/s, matmul %.1f TFLOP/s (%s)\n",
              file.ceilings->copyGBps, file.ceilings->matmulTflops,
              escapeForTerminal(file.ceilings->matmulWhat).c_str());
  return resultsExitCode(file.results);
}

int baselineMode(const CliOptions &cli) {
  GemmSuite suite;
  std::string err;
  if (!loadGemmSuite(cli.suite, suite, err)) {
    say(err);
    return kExitUsage;
  }
  std::optional<Ceilings> ceilings;
  if (!readCeilings(cli.ceilings, ceilings))
    return kExitUsage;
  ResultsFile file = newResultsFile();
  int exitCode = kExitOk;
  if (!probe(file.device, exitCode))
    return exitCode;
  file.ceilings = ceilings;
  if (!save(cli.out, file))
    return kExitUsage;
  const BenchOptions options = benchOptions(cli, chooseSeed(cli), ceilings);
  for (const std::vector<SuiteShape> &group :
       groupShapes(distinctShapes(suite.shapes))) {
    say(group.front().group + ": " + std::to_string(group.size()) + " shapes");
    const ChildOutcome outcome = runIsolated(
        [&](int fd) { return suiteChild(group, options, fd); },
        cli.timeoutSeconds * static_cast<double>(group.size()));
    std::vector<KernelResult> results = collectResults(outcome, file.device);
    for (size_t i = results.size(); i < group.size(); ++i)
      results.push_back(missingResult(group[i].name, "cublaslt",
                                      gemmOpJson(group[i].spec), outcome));
    for (KernelResult &r : results)
      file.results.push_back(std::move(r));
    if (!save(cli.out, file))
      return kExitUsage;
  }
  std::fputs(formatResultsTable(file.results).c_str(), stdout);
  return resultsExitCode(file.results);
}

} // namespace

int main(int argc, char **argv) {
  // compare, history and report (BenchPerf.h) parse their own command lines.
  if (argc > 1 && std::string(argv[1]) == "report")
    return reportMain(std::vector<std::string>(argv + 2, argv + argc));
  if (argc > 1 && std::string(argv[1]) == "compare")
    return compareMain(std::vector<std::string>(argv + 2, argv + argc));
  if (argc > 1 && std::string(argv[1]) == "history")
    return historyMain(std::vector<std::string>(argv + 2, argv + argc));
  if (argc > 1 && std::string(argv[1]) == "campaign")
    return campaignMain(std::vector<std::string>(argv + 2, argv + argc));
  CliOptions cli;
  std::string err;
  if (!parseCli(std::vector<std::string>(argv + 1, argv + argc), cli, err)) {
    say(err + " (kgen-bench --help for usage)");
    return kExitUsage;
  }
  switch (cli.mode) {
  case Mode::Help:
    std::fputs(helpText(), stdout);
    return kExitOk;
  case Mode::Compile:
    return compileMode(cli);
  case Mode::Run:
    return cli.emulate ? emulateMode(cli) : runMode(cli);
  case Mode::Ceilings:
    return ceilingsMode(cli);
  case Mode::Baseline:
    return baselineMode(cli);
  case Mode::Report: // reportMain, above
    break;
  case Mode::Tune:
    return tuneMode(cli);
  }
  return kExitUsage;
}
