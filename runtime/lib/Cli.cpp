//===- Cli.cpp - kgen-bench's command line and tables ---------------------===//

#include "kgen/runtime/Cli.h"

#include "kgen/runtime/Names.h"
#include "kgen/runtime/Package.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

namespace kgen::rt {

namespace {

constexpr const char *kHelp = R"(usage: kgen-bench <mode> [options]

Verifies kgen kernel packages against cuBLASLt and times them on the GPU.
All GPU work runs in child processes; a fault or hang costs one result.

modes:
  run PKG_DIR... --out F.json [--ceilings C.json] [--timeout S] [--seed N]
                 [--cache DIR] [timing options]
      compile each package (NVRTC), check it against the cuBLASLt reference
      on seeded random inputs, time it and its cuBLASLt baseline; results
      are rewritten (atomically) after every package
  run --emulate PKG_DIR... --out F.json [--seed N]
      no GPU: run each package's kernel.cu on the emulated device (the host
      C++ compiler, every CUDA thread a fiber, races, bounds and deadlocks
      checked; docs/emulated-device.md) on the same seeded inputs, checked
      against the host reference under the same tolerance; not timed, and
      the results file's device says "emulated"
  compile PKG_DIR... [--arch sm_90a] [--cache DIR] [--out F.json]
      compile only (no GPU needed): registers, shared memory, stack, spills
  ceilings --out C.json [--timeout S] [--seed N] [timing options]
      measure the device-to-device copy bandwidth and the bf16 8192^3
      cuBLASLt rate (the ceilings that results are fractions of)
  baseline --suite S.json --out F.json [--ceilings C.json] [--timeout S]
           [--seed N] [timing options]
      time cuBLASLt alone over a GEMM shape suite (bench/suites/gemm.json)
  tune PKG_DIR... --db DB.json --out F.json [--max-seconds S]
       [--batch B] [--finalists F] [--rounds R] [--ceilings C.json]
       [--cache DIR] [--timeout S] [--seed N] [timing options]
      the measured search over candidate packages of one op, ranked best
      first (kgen-tune --packages writes them so, the default strategy
      first): compile them in parallel, measure them as run does in
      batches of B (8; one child each) within S seconds (default 60,
      compiling included), measure the best F (3) again in R (3)
      interleaved rounds and compare them paired; every candidate
      goes into the tuning database DB (merged with what it holds), every
      run into F.json; prints the winner's speed-up over the first package
  report F.json... [--html OUT] [--markdown OUT] [--csv OUT] [--compare BASE]
         [--db PATH]
      print the results table of results files; with --html, --markdown or
      --csv write a report instead: summary, regressions and their causes
      against BASE, roofline, speed-ups, history charts with change points
      (kgen-bench report --help)
  compare BASE NEW [--json | --markdown] [--threshold PCT] [--db PATH]
      compare two runs (results files or history runs) kernel by kernel:
      verdicts with confidence intervals and, for each regression, the
      differences that can explain it; exit 1 when a kernel regressed
      (kgen-bench compare --help)
  history add|list|show|series|ack [--db PATH] ...
      keep runs in an SQLite history, find change points in a kernel's
      series, acknowledge known steps (kgen-bench history --help)
  campaign task PLAN.json --shard N | campaign merge PLAN.json
      the steps of a tuning campaign that run on a cluster's nodes: one
      shard of the measured searches, the merge of the shards into one
      database (kgen-bench campaign --help; kgen-tune campaign submits them)

options:
  --out F          results file (schema kgen.results, docs/results-schema.md)
  --ceilings C     a ceilings file from `kgen-bench ceilings`
  --timeout S      seconds per package or suite shape before its child is
                   killed (default 120)
  --seed N         seed of the random inputs (default: fresh, printed)
  --cache DIR      NVRTC cubin cache (default $KGEN_CACHE_DIR, else
                   $XDG_CACHE_HOME/kgen/nvrtc or ~/.cache/kgen/nvrtc)
  --arch A         compile for A instead of each package's target
  --emulate        run: on the emulated device instead of the GPU
  --synthetic      tune, ceilings: no GPU, nothing compiled or run: a
                   stand-in measurement for testing the workflows around
                   the tuner (campaigns), labelled as such: the device is
                   synthetic (no GPU); a candidate's time is its
                   package's predicted_ms scaled by a factor in [0.8, 1.25]
                   drawn from its source hash (the same package, the same
                   time), the ceilings fixed
  --synthetic-delay-ms MS  tune --synthetic: wait MS per candidate measured,
                   as a measurement would take time
  --min-samples N  timing: at least N samples (default 20)
  --max-samples N  timing: at most N samples (default 200)
  --target-ms T    timing: stop after T ms of measured GPU time once
                   min-samples are in (default 500)
  -h, --help       this text

exit codes:
  0  every kernel ran and was right (skipped ones included)
  1  a kernel failed to compile or launch, faulted, timed out or was wrong
  2  usage or input error (bad option, missing or invalid package or file)
  3  no CUDA device (run, ceilings, baseline and tune print one line and stop)
)";

enum class Opt {
  Out, Ceilings, Suite, Arch, Cache, Timeout, Seed, MinSamples, MaxSamples, TargetMs,
  Db, MaxSeconds, Batch, Finalists, Rounds, Emulate, Synthetic, SyntheticDelay
};

/// Options that take no value.
bool isFlag(Opt opt) { return opt == Opt::Emulate || opt == Opt::Synthetic; }

const std::map<std::string, Opt> &optionNames() {
  static const std::map<std::string, Opt> names = {
      {"--out", Opt::Out},           {"--ceilings", Opt::Ceilings},
      {"--suite", Opt::Suite},       {"--arch", Opt::Arch},
      {"--cache", Opt::Cache},       {"--timeout", Opt::Timeout},
      {"--seed", Opt::Seed},         {"--min-samples", Opt::MinSamples},
      {"--max-samples", Opt::MaxSamples}, {"--target-ms", Opt::TargetMs},
      {"--db", Opt::Db},             {"--max-seconds", Opt::MaxSeconds},
      {"--batch", Opt::Batch},       {"--finalists", Opt::Finalists},
      {"--rounds", Opt::Rounds},     {"--emulate", Opt::Emulate},
      {"--synthetic", Opt::Synthetic},
      {"--synthetic-delay-ms", Opt::SyntheticDelay}};
  return names;
}

/// The options each mode accepts.
std::set<Opt> allowedOptions(Mode mode) {
  const std::set<Opt> timing = {Opt::MinSamples, Opt::MaxSamples, Opt::TargetMs};
  std::set<Opt> allowed;
  switch (mode) {
  case Mode::Run:
    allowed = {Opt::Out, Opt::Ceilings, Opt::Timeout, Opt::Seed, Opt::Cache,
               Opt::Emulate};
    break;
  case Mode::Compile:
    return {Opt::Arch, Opt::Cache, Opt::Out};
  case Mode::Ceilings:
    allowed = {Opt::Out, Opt::Timeout, Opt::Seed, Opt::Synthetic};
    break;
  case Mode::Baseline:
    allowed = {Opt::Suite, Opt::Out, Opt::Ceilings, Opt::Timeout, Opt::Seed};
    break;
  case Mode::Tune:
    allowed = {Opt::Out,       Opt::Ceilings,   Opt::Timeout,
               Opt::Seed,      Opt::Cache,      Opt::Db,
               Opt::MaxSeconds, Opt::Batch, Opt::Finalists, Opt::Rounds,
               Opt::Synthetic, Opt::SyntheticDelay};
    break;
  case Mode::Help:
  case Mode::Report:
    return {};
  }
  allowed.insert(timing.begin(), timing.end());
  return allowed;
}

std::optional<Mode> parseMode(const std::string &word) {
  static const std::map<std::string, Mode> modes = {
      {"run", Mode::Run},           {"compile", Mode::Compile},
      {"ceilings", Mode::Ceilings}, {"baseline", Mode::Baseline},
      {"report", Mode::Report},     {"tune", Mode::Tune},
      {"help", Mode::Help},
      {"--help", Mode::Help},       {"-h", Mode::Help}};
  auto it = modes.find(word);
  return it == modes.end() ? std::nullopt : std::optional<Mode>(it->second);
}

/// Longest time a timeout or a budget may name: a week, in seconds.
constexpr double kMaxSeconds = 7 * 24 * 3600.0;

/// A finite decimal number (no "inf", "nan" or hex).
bool parseDouble(const std::string &text, double &out) {
  if (text.empty() || text.find_first_not_of("0123456789.eE+-") !=
                          std::string::npos)
    return false;
  char *end = nullptr;
  errno = 0;
  out = std::strtod(text.c_str(), &end);
  return errno == 0 && end == text.c_str() + text.size() && std::isfinite(out);
}

/// A number of seconds in (0, kMaxSeconds].
bool parseSeconds(const std::string &text, double &out) {
  return parseDouble(text, out) && out > 0 && out <= kMaxSeconds;
}

bool parseUint(const std::string &text, uint64_t &out) {
  // Digits only: strtoull also takes spaces and a sign (" -1" wraps).
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    return false;
  char *end = nullptr;
  errno = 0;
  out = std::strtoull(text.c_str(), &end, 10);
  return errno == 0 && end == text.c_str() + text.size();
}

bool parseCount(const std::string &text, int &out) {
  uint64_t v = 0;
  if (!parseUint(text, v) || v < 1 || v > 1000000)
    return false;
  out = static_cast<int>(v);
  return true;
}

bool applyOption(Opt opt, const std::string &name, const std::string &value,
                 CliOptions &o, std::string &err) {
  bool ok = true;
  switch (opt) {
  case Opt::Out:
    o.out = value;
    ok = !value.empty();
    break;
  case Opt::Ceilings:
    o.ceilings = value;
    ok = !value.empty();
    break;
  case Opt::Suite:
    o.suite = value;
    ok = !value.empty();
    break;
  case Opt::Arch:
    o.arch = value;
    ok = isTargetName(value);
    break;
  case Opt::Cache:
    o.cacheDir = value;
    break;
  case Opt::Timeout:
    ok = parseSeconds(value, o.timeoutSeconds);
    break;
  case Opt::Seed: {
    uint64_t seed = 0;
    ok = parseUint(value, seed);
    o.seed = seed;
    break;
  }
  case Opt::MinSamples:
    ok = parseCount(value, o.timing.minSamples);
    break;
  case Opt::MaxSamples:
    ok = parseCount(value, o.timing.maxSamples);
    break;
  case Opt::TargetMs:
    ok = parseDouble(value, o.timing.targetMs) && o.timing.targetMs >= 0 &&
         o.timing.targetMs <= kMaxSeconds * 1000;
    break;
  case Opt::Db:
    o.db = value;
    ok = !value.empty();
    break;
  case Opt::MaxSeconds:
    ok = parseSeconds(value, o.maxSeconds);
    break;
  case Opt::Batch:
    ok = parseCount(value, o.batch);
    break;
  case Opt::Finalists:
    ok = parseCount(value, o.finalists);
    break;
  case Opt::Emulate:
    o.emulate = true;
    break;
  case Opt::Synthetic:
    o.synthetic = true;
    break;
  case Opt::SyntheticDelay:
    ok = parseDouble(value, o.syntheticDelayMs) && o.syntheticDelayMs >= 0 &&
         o.syntheticDelayMs <= 60000;
    break;
  case Opt::Rounds: {
    uint64_t v = 0;
    ok = parseUint(value, v) && v <= 100;
    o.rounds = static_cast<int>(v);
    break;
  }
  }
  if (!ok)
    err = "bad value '" + escapeForTerminal(value) + "' for " + name +
          (opt == Opt::Arch ? " (expected sm_ and the compute capability, "
                              "such as sm_80 or sm_90a)"
                            : "");
  return ok;
}

/// What the mode needs once all arguments are read.
bool checkComplete(const CliOptions &o, std::string &err) {
  const bool needsInputs = o.mode == Mode::Run || o.mode == Mode::Compile ||
                           o.mode == Mode::Report || o.mode == Mode::Tune;
  if (needsInputs && o.inputs.empty())
    err = o.mode == Mode::Report ? "report: no results files given"
                                 : "no package folders given";
  else if (!needsInputs && o.mode != Mode::Help && !o.inputs.empty())
    err = "unexpected argument '" + escapeForTerminal(o.inputs.front()) + "'";
  else if ((o.mode == Mode::Run || o.mode == Mode::Ceilings ||
            o.mode == Mode::Baseline || o.mode == Mode::Tune) && o.out.empty())
    err = "--out is required";
  else if (o.mode == Mode::Tune && o.db.empty())
    err = "--db is required";
  else if (o.mode == Mode::Baseline && o.suite.empty())
    err = "--suite is required";
  else if (o.timing.maxSamples < o.timing.minSamples)
    err = "--max-samples is below --min-samples";
  else if (o.emulate && !o.ceilings.empty())
    err = "--ceilings has no meaning with --emulate (nothing is timed)";
  else if (o.syntheticDelayMs > 0 && !o.synthetic)
    err = "--synthetic-delay-ms needs --synthetic";
  return err.empty();
}

std::string formatFixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

/// Lines of a failure's reason shown below the results table.
constexpr size_t kMaxReasonLines = 20;

/// `reason` below the table: the first line after `head`, the others
/// indented by four spaces, each escaped (escapeForTerminal), so no reason
/// can print an escape sequence or a line that looks like a table row or a
/// report's header; at most kMaxReasonLines lines.
std::string formatReason(const std::string &head, const std::string &reason) {
  std::string_view rest(reason);
  while (!rest.empty() && rest.back() == '\n')
    rest.remove_suffix(1);
  std::string text;
  size_t start = 0, lines = 0, total = 0;
  while (start <= rest.size()) {
    size_t end = rest.find('\n', start);
    if (end == std::string_view::npos)
      end = rest.size();
    ++total;
    if (lines < kMaxReasonLines) {
      text += (lines == 0 ? head : "    ") +
              escapeForTerminal(rest.substr(start, end - start)) +
              "\n";
      ++lines;
    }
    start = end + 1;
  }
  if (total > lines)
    text += "    (" + std::to_string(total - lines) +
            " more lines in the results file)\n";
  return text;
}

/// Left-aligned columns separated by two spaces.
std::string formatTable(const std::vector<std::vector<std::string>> &rows) {
  std::vector<size_t> widths;
  for (const auto &row : rows)
    for (size_t i = 0; i < row.size(); ++i) {
      widths.resize(std::max(widths.size(), row.size()), 0);
      widths[i] = std::max(widths[i], row[i].size());
    }
  std::string text;
  for (const auto &row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size())
        line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    text += line + "\n";
  }
  return text;
}

} // namespace

bool parseCli(const std::vector<std::string> &args, CliOptions &o,
              std::string &err) {
  o = CliOptions{};
  if (args.empty()) {
    err = "no mode given (run, compile, ceilings, baseline, tune, report; "
          "--help)";
    return false;
  }
  const std::optional<Mode> mode = parseMode(args[0]);
  if (!mode) {
    err = "unknown mode '" + escapeForTerminal(args[0]) +
          "' (run, compile, ceilings, baseline, tune, report)";
    return false;
  }
  o.mode = *mode;
  const std::set<Opt> allowed = allowedOptions(o.mode);
  std::set<Opt> given;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string &arg = args[i];
    if (arg == "--help" || arg == "-h") {
      o.mode = Mode::Help;
      return true;
    }
    if (arg.empty() || arg[0] != '-') {
      o.inputs.push_back(arg);
      continue;
    }
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    auto it = optionNames().find(name);
    if (it == optionNames().end() || !allowed.count(it->second)) {
      err = (it == optionNames().end() ? "unknown option " : "option not taken by " +
                                                                 args[0] + ": ") +
            escapeForTerminal(name);
      return false;
    }
    if (!given.insert(it->second).second) {
      err = name + " given twice";
      return false;
    }
    std::string value;
    if (isFlag(it->second)) {
      if (eq != std::string::npos) {
        err = name + " takes no value";
        return false;
      }
    } else if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      err = name + " needs a value";
      return false;
    }
    if (!applyOption(it->second, name, value, o, err))
      return false;
  }
  return o.mode == Mode::Help || checkComplete(o, err);
}

const char *helpText() { return kHelp; }

std::string defaultCacheDir() {
  if (const char *dir = std::getenv("KGEN_CACHE_DIR"); dir && *dir)
    return dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/kgen/nvrtc";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/kgen/nvrtc";
  return "";
}

std::string formatCompileTable(const std::vector<CompileRow> &rows) {
  std::vector<std::vector<std::string>> table = {
      {"name", "target", "regs", "smem static+dyn", "stack", "spill st/ld",
       "compile ms", "cache"}};
  for (const CompileRow &r : rows) {
    const std::string name = escapeForTerminal(r.name);
    const std::string target = escapeForTerminal(r.target);
    if (!r.ok) {
      table.push_back({name, target, "-", "-", "-", "-",
                       formatFixed(r.compileMs, 0),
                       "FAILED: " + escapeForTerminal(r.error)});
      continue;
    }
    table.push_back({name, target, std::to_string(r.resources.registers),
                     std::to_string(r.resources.sharedBytes) + "+" +
                         std::to_string(r.dynamicSmemBytes),
                     std::to_string(r.resources.stackBytes),
                     std::to_string(r.resources.spillStoreBytes) + "/" +
                         std::to_string(r.resources.spillLoadBytes),
                     formatFixed(r.compileMs, 0), r.cacheHit ? "hit" : "miss"});
  }
  return formatTable(table);
}

std::string formatResultsTable(const std::vector<KernelResult> &results) {
  std::vector<std::vector<std::string>> table = {
      {"impl", "name", "status", "median ms", "IQR ms", "n", "TFLOP/s", "GB/s",
       "of ceiling", "speedup", "rel err"}};
  std::string reasons;
  for (const KernelResult &r : results) {
    const std::string implementation = escapeForTerminal(r.implementation);
    const std::string name = escapeForTerminal(r.name);
    std::vector<std::string> row = {implementation, name,
                                    runStatusName(r.status)};
    if (r.time) {
      const bool matmulBound =
          r.fractionOfMatmulCeiling >= r.fractionOfCopyCeiling;
      const double fraction = std::max(r.fractionOfMatmulCeiling,
                                       r.fractionOfCopyCeiling);
      row.insert(row.end(),
                 {formatFixed(r.time->medianMs, 4), formatFixed(r.time->iqrMs(), 4),
                  std::to_string(r.time->samples), formatFixed(r.tflops, 1),
                  formatFixed(r.gbps, 0),
                  fraction > 0 ? formatFixed(100 * fraction, 1) +
                                     (matmulBound ? "% mm" : "% bw")
                               : "-",
                  r.speedupOverBaseline > 0
                      ? formatFixed(r.speedupOverBaseline, 2) + "x"
                      : "-"});
    } else {
      row.insert(row.end(), {"-", "-", "-", "-", "-", "-", "-"});
    }
    char relErr[32] = "-";
    if (r.relError >= 0)
      std::snprintf(relErr, sizeof(relErr), "%.2e", r.relError);
    row.push_back(relErr);
    table.push_back(row);
    if (r.status != RunStatus::Ok && !r.reason.empty())
      reasons += formatReason("  " + implementation + " " + name + ": ", r.reason);
  }
  return formatTable(table) + reasons;
}

} // namespace kgen::rt
