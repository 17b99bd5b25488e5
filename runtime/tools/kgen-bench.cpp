//===- kgen-bench.cpp - verify and time kgen kernel packages --------------===//
//
// `kgen-bench --help` for usage. This process never initialises CUDA: GPU
// work runs in children (Bench.h), so it survives faulting kernels and can
// fork safely; NVRTC compilation (no GPU needed) happens here.
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/Isolate.h"
#include "kgen/runtime/Nvrtc.h"
#include "kgen/runtime/Package.h"
#include "kgen/runtime/Results.h"
#include "kgen/runtime/cuda/Bench.h"
#include "kgen/runtime/cuda/Cli.h"
#include "kgen/runtime/cuda/Device.h"
#include "kgen/runtime/cuda/Reference.h"
#include "kgen/runtime/cuda/Suite.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace kgen::rt;

namespace {

/// How long the device probe may take (driver start-up included).
constexpr double kProbeTimeoutSeconds = 60;

void say(const std::string &line) {
  std::fprintf(stderr, "kgen-bench: %s\n", line.c_str());
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

/// Results a child reported, in order; `device` takes the last device info
/// seen (its clocks are those of the latest measurement).
std::vector<KernelResult> collect(const ChildOutcome &outcome, DeviceInfo &device) {
  std::vector<ResultsFile> fragments;
  std::string err;
  if (!parseFragments(outcome.output, fragments, err))
    say(err);
  std::vector<KernelResult> results;
  for (ResultsFile &fragment : fragments) {
    if (!fragment.device.name.empty())
      device = fragment.device;
    for (KernelResult &r : fragment.results)
      results.push_back(std::move(r));
  }
  return results;
}

const KernelResult *findImplementation(const std::vector<KernelResult> &results,
                                       const std::string &implementation) {
  for (const KernelResult &r : results)
    if (r.implementation == implementation)
      return &r;
  return nullptr;
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

/// Compiles a gemm package for `device` and its reference epilogue. On
/// failure marks `kernel` (compile_failed, or launch_failed for a target
/// the device cannot run) and returns false.
bool preparePackage(const KernelPackage &pkg, const DeviceInfo &device,
                    const std::string &cacheDir, PreparedPackage &prepared,
                    KernelResult &kernel) {
  prepared.pkg = pkg;
  std::string err;
  (void)parseGemmOp(pkg.op, prepared.spec, err); // checked when loading
  prepared.tf32 = usesTf32(prepared.spec, pkg.config);
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
  if (!compileEpilogue(prepared.spec, deviceArch(device), cacheDir,
                       prepared.epilogue, err)) {
    kernel.status = RunStatus::CompileFailed;
    kernel.reason = "the reference epilogue did not compile: " + err;
    return false;
  }
  return true;
}

/// Verifies and times a prepared package and its baseline in a child:
/// {baseline, kernel}, with what the child could not report filled in.
std::vector<KernelResult> runPrepared(const PreparedPackage &prepared,
                                      const BenchOptions &options,
                                      KernelResult kernel, DeviceInfo &device) {
  const KernelPackage &pkg = prepared.pkg;
  const ChildOutcome outcome = runIsolated(
      [&](int fd) { return packageChild(prepared, options, fd); },
      options.timeoutSeconds);
  const std::vector<KernelResult> reported = collect(outcome, device);
  const KernelResult *baselinePtr = findImplementation(reported, "cublaslt");
  const KernelResult *kernelPtr = findImplementation(reported, "kgen");
  KernelResult baseline = baselinePtr != nullptr
                              ? *baselinePtr
                              : missingResult("cublaslt/" + pkg.name, "cublaslt",
                                              pkg.op, outcome);
  if (kernelPtr != nullptr) {
    kernel = *kernelPtr;
  } else {
    const KernelResult missing = missingResult(pkg.name, "kgen", pkg.op, outcome);
    kernel.status = missing.status;
    kernel.reason = missing.reason;
  }
  linkBaseline(kernel, baseline);
  return {baseline, kernel};
}

/// Compiles, verifies and times one package with its baseline.
std::vector<KernelResult> runPackage(const KernelPackage &pkg,
                                     const BenchOptions &options,
                                     const std::string &cacheDir,
                                     DeviceInfo &device) {
  KernelResult kernel = newResult(pkg.name, "kgen", pkg.op, pkg.config);
  const std::string kind = pkg.op.value("kind", "");
  if (kind != "gemm") {
    kernel.reason = "no reference for op kind '" + kind + "' yet: not run";
    return {kernel};
  }
  PreparedPackage prepared;
  if (!preparePackage(pkg, device, cacheDir, prepared, kernel))
    return {kernel};
  return runPrepared(prepared, options, kernel, device);
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

int runMode(const CliOptions &cli) {
  std::vector<KernelPackage> packages;
  std::optional<Ceilings> ceilings;
  if (!loadPackages(cli.inputs, packages) || !checkGemmPackages(packages) ||
      !readCeilings(cli.ceilings, ceilings))
    return kExitUsage;
  ResultsFile file = newResultsFile();
  int exitCode = kExitOk;
  if (!probe(file.device, exitCode))
    return exitCode;
  file.ceilings = ceilings;
  if (!save(cli.out, file))
    return kExitUsage;
  const uint64_t seed = chooseSeed(cli);
  const std::string cacheDir = cli.cacheDir.empty() ? defaultCacheDir() : cli.cacheDir;
  for (size_t i = 0; i < packages.size(); ++i) {
    say("[" + std::to_string(i + 1) + "/" + std::to_string(packages.size()) + "] " +
        packages[i].name);
    const BenchOptions options = benchOptions(cli, seed + i, ceilings);
    for (KernelResult &r : runPackage(packages[i], options, cacheDir, file.device))
      file.results.push_back(std::move(r));
    if (!save(cli.out, file))
      return kExitUsage;
  }
  std::fputs(formatResultsTable(file.results).c_str(), stdout);
  return resultsExitCode(file.results);
}

int ceilingsMode(const CliOptions &cli) {
  ResultsFile file = newResultsFile();
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
              file.ceilings->matmulWhat.c_str());
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
    std::vector<KernelResult> results = collect(outcome, file.device);
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

int reportMode(const CliOptions &cli) {
  for (const std::string &path : cli.inputs) {
    ResultsFile file;
    std::string err;
    if (!readResults(path, file, err)) {
      say(err);
      return kExitUsage;
    }
    const DeviceInfo &d = file.device;
    if (d.name.empty())
      std::printf("== %s: no device (compile only), %s\n", path.c_str(),
                  file.createdAt.c_str());
    else
      std::printf("== %s: %s (%d SMs, CC %d.%d, driver %s, SM clock %d MHz), %s\n",
                  path.c_str(), d.name.c_str(), d.smCount, d.ccMajor, d.ccMinor,
                  d.driverVersion.c_str(), d.smClockKHz / 1000,
                  file.createdAt.c_str());
    if (file.ceilings)
      std::printf("   ceilings: copy %.0f GB/s, matmul %.1f TFLOP/s\n",
                  file.ceilings->copyGBps, file.ceilings->matmulTflops);
    std::fputs(formatResultsTable(file.results).c_str(), stdout);
  }
  return kExitOk;
}

} // namespace

int main(int argc, char **argv) {
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
    return runMode(cli);
  case Mode::Ceilings:
    return ceilingsMode(cli);
  case Mode::Baseline:
    return baselineMode(cli);
  case Mode::Report:
    return reportMode(cli);
  }
  return kExitUsage;
}
