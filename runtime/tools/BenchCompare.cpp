//===- BenchCompare.cpp - kgen-bench compare ------------------------------===//

#include "BenchPerf.h"
#include "BenchPerfArgs.h"

#include "kgen/runtime/Cli.h"
#include "kgen/runtime/Compare.h"
#include "kgen/runtime/History.h"
#include "kgen/runtime/Names.h"
#include "kgen/runtime/Package.h"
#include "kgen/runtime/Process.h"
#include "kgen/runtime/Results.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>

namespace kgen::rt {
namespace {

constexpr const char *kCompareHelp = R"(usage: kgen-bench compare BASE NEW [--json | --markdown] [--threshold PCT]
                         [--level L] [--min-samples N] [--db PATH]
                         [--confirm BASE_PKGS NEW_PKGS]

Compares two runs kernel by kernel: the ratio NEW/BASE of the median times
with a confidence interval from the timing samples (Hodges-Lehmann), divided
by the ratio of the cuBLASLt baseline measured beside it when both runs have
one, and a verdict: regressed, improved, same, unknown (too noisy to say) or
not comparable (another device or op, or in one run only). For every
regression the differences between the runs that can explain it are listed:
strategy, generated source, ptxas's report, kgen commit, NVRTC, CUDA runtime,
driver, clocks, machine. docs/performance-history.md has the rule.

BASE and NEW are results files (kgen-bench run --out), or with --db runs of
a history: a run number, `last`, or `last~N` (N runs before the last).

options:
  --json           the comparison as JSON (schema kgen.comparison)
  --markdown       the comparison as Markdown (a pull-request comment)
  --threshold PCT  practical minimum for every kernel, in percent (default
                   per kind: gemm and attention 3, others 5)
  --level L        confidence level of the intervals (default 0.95)
  --min-samples N  fewer timing samples a side give `unknown` (default 6)
  --db PATH        the history BASE and NEW are taken from
  --confirm BASE_PKGS NEW_PKGS
                   on a GPU, measure each regressed or unknown kgen kernel's
                   package from BASE_PKGS and from NEW_PKGS (folders of
                   packages, found by name) again, interleaved in paired
                   rounds (ABAB..., 6 rounds, 12 for unknown ones, each a
                   `kgen-bench run` of both); the rounds' verdict replaces
                   the comparison's unless it is unknown

exit codes:
  0  nothing regressed
  1  a kernel regressed (its cuBLASLt baseline moving is not counted)
  2  usage or input error (with --confirm: a missing folder or package,
     packages of other ops)
  3  --confirm found no CUDA device
)";

/// A run named on the command line: a results file, or a history entry.
bool loadRun(const std::string &what, const std::string &db, History *history,
             ResultsFile &file, std::string &label, std::string &err) {
  if (!history) {
    label = what;
    return readResults(what, file, err);
  }
  int64_t id = 0;
  HistoryRun run;
  if (!history->resolve(what, id, err) || !history->show(id, file, run, err))
    return false;
  label = db + "#" + std::to_string(id);
  return true;
}

//===----------------------------------------------------------------------===//
// --confirm
//===----------------------------------------------------------------------===//

/// The packages in `dir` (its subfolders holding a manifest.json), by name;
/// false with a message on a missing folder, a bad package or a name twice.
bool packagesIn(const std::string &dir, std::map<std::string, KernelPackage> &out,
                std::string &err) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    err = dir + ": not a folder of packages";
    return false;
  }
  std::vector<std::string> dirs;
  for (const fs::directory_entry &e : fs::directory_iterator(dir, ec))
    if (fs::is_regular_file(e.path() / "manifest.json", ec))
      dirs.push_back(e.path().string());
  if (ec) {
    err = dir + ": " + ec.message();
    return false;
  }
  std::sort(dirs.begin(), dirs.end());
  for (const std::string &d : dirs) {
    KernelPackage pkg;
    if (!loadPackage(d, pkg, err))
      return false;
    const std::string name = pkg.name;
    if (!out.emplace(name, std::move(pkg)).second) {
      err = dir + ": two packages of kernel '" + name + "'";
      return false;
    }
  }
  return true;
}

/// The kind of a result's or package's op ("" when it does not say).
std::string opKind(const nlohmann::json &op) {
  return op.is_object() && op.contains("kind") && op["kind"].is_string()
             ? op["kind"].get<std::string>()
             : "";
}

/// One kernel to confirm with its two packages (BASE's, NEW's).
struct ConfirmJob {
  ConfirmItem item;
  const KernelPackage *packages[2] = {nullptr, nullptr};
};

/// Each planned kgen kernel's packages in both folders, of one op; false
/// with a message otherwise.
bool matchPackages(const std::vector<ConfirmItem> &plan, const ResultsFile &now,
                   const std::string dirs[2],
                   const std::map<std::string, KernelPackage> found[2],
                   std::vector<ConfirmJob> &jobs, std::string &err) {
  std::map<std::string, std::string> kindOfResult;
  for (const KernelResult &r : now.results)
    if (r.implementation == "kgen")
      kindOfResult[r.name] = opKind(r.op);
  for (const ConfirmItem &item : plan) {
    if (item.implementation != "kgen")
      continue; // only kgen's kernels come as packages
    ConfirmJob job{item, {}};
    for (int side = 0; side < 2; ++side) {
      const auto it = found[side].find(item.name);
      if (it == found[side].end()) {
        err = dirs[side] + ": no package of kernel '" + item.name + "'";
        return false;
      }
      job.packages[side] = &it->second;
    }
    if (job.packages[0]->op != job.packages[1]->op) {
      err = item.name + ": the packages in " + dirs[0] + " and " + dirs[1] +
            " are of other ops (" + job.packages[0]->dir + ", " +
            job.packages[1]->dir + ")";
      return false;
    }
    const std::string kind = kindOfResult[item.name];
    if (!kind.empty() && opKind(job.packages[0]->op) != kind) {
      err = item.name + ": the package " + job.packages[0]->dir + " is a " +
            opKind(job.packages[0]->op) + ", the results' kernel a " + kind;
      return false;
    }
    jobs.push_back(job);
  }
  return true;
}

/// The kgen kernels of a `kgen-bench run` of two packages, in order, each
/// as its time in that process: over the baseline measured just before it
/// when both kernels have one, else its median; NaN when not measured
/// correctly.
std::vector<double> roundTimes(const ResultsFile &file) {
  std::vector<const KernelResult *> kernels, baselines;
  const KernelResult *previous = nullptr;
  for (const KernelResult &r : file.results) {
    if (r.implementation == "kgen") {
      kernels.push_back(&r);
      const bool paired = previous && !r.baseline.empty() &&
                          previous->name == r.baseline &&
                          previous->status == RunStatus::Ok && previous->time;
      baselines.push_back(paired ? previous : nullptr);
    }
    previous = &r;
  }
  const bool relative =
      std::all_of(baselines.begin(), baselines.end(),
                  [](const KernelResult *b) { return b != nullptr; });
  std::vector<double> out;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const KernelResult &k = *kernels[i];
    if (k.status != RunStatus::Ok || !k.time) {
      out.push_back(std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    out.push_back(relative ? k.time->medianMs / baselines[i]->time->medianMs
                           : k.time->medianMs);
  }
  return out;
}

/// Measures the jobs' packages in interleaved rounds (one `kgen-bench run`
/// of both per round, this very executable) and applies the verdicts to
/// `comparison`. Returns kExitNoDevice (after saying so) without a GPU, 2
/// when a round cannot be run at all, else nothing.
std::optional<int> confirm(const std::vector<ConfirmJob> &jobs,
                           const CompareOptions &options, Comparison &comparison) {
  const std::string self = selfExecutable();
  std::error_code ec;
  std::string pattern =
      (std::filesystem::temp_directory_path(ec) / "kgen-confirm-XXXXXX").string();
  const char *tmp = ec ? nullptr : mkdtemp(pattern.data());
  if (self.empty() || tmp == nullptr)
    return inputError("--confirm: cannot run kgen-bench again here");
  const std::string out = std::string(tmp) + "/round.json";
  auto cleanUp = [&] {
    std::error_code ec;
    std::filesystem::remove_all(tmp, ec);
  };
  for (const ConfirmJob &job : jobs) {
    std::vector<ConfirmRound> rounds;
    for (unsigned r = 0; r < job.item.rounds; ++r) {
      const std::vector<size_t> order = confirmOrder(r);
      std::filesystem::remove(out);
      const ProcessResult run = runProcess(
          {self, "run", job.packages[order[0]]->dir, job.packages[order[1]]->dir,
           "--out", out, "--seed", std::to_string(r + 1)});
      if (run.started && run.exitCode == kExitNoDevice) {
        cleanUp();
        std::fprintf(stderr, "kgen-bench: no CUDA device\n");
        return kExitNoDevice;
      }
      ResultsFile file;
      std::string err;
      std::vector<double> times;
      if (!run.started || !readResults(out, file, err) ||
          (times = roundTimes(file)).size() != 2) {
        cleanUp();
        return inputError("--confirm: " + job.item.name + ": round " +
                          std::to_string(r + 1) + " gave no results (" +
                          run.describe() + (err.empty() ? "" : ": " + err) + ")");
      }
      ConfirmRound round;
      (order[0] == 0 ? round.baseMs : round.newMs) = times[0];
      (order[0] == 0 ? round.newMs : round.baseMs) = times[1];
      rounds.push_back(round);
      std::fprintf(stderr, "kgen-bench: confirm %s: round %u/%u: BASE %.4f, NEW %.4f%s\n",
                   escapeForTerminal(job.item.name).c_str(), r + 1, job.item.rounds,
                   round.baseMs, round.newMs,
                   order[0] == 0 ? "" : " (NEW first)");
    }
    const Confirmation verdict =
        decideConfirmation(rounds, job.item.threshold, options.level);
    for (KernelComparison &k : comparison.kernels)
      if (!k.isBaseline && k.implementation == job.item.implementation &&
          k.name == job.item.name)
        applyConfirmation(k, verdict);
  }
  cleanUp();
  return std::nullopt;
}

} // namespace

int compareMain(const std::vector<std::string> &args) {
  ArgParser parser("compare", {"--json", "--markdown", "--confirm", "-h", "--help"},
                   {"--threshold", "--level", "--min-samples", "--db"});
  std::string err;
  if (!parser.parse(args, err))
    return usageError(err, "compare");
  if (parser.has("-h") || parser.has("--help")) {
    std::fputs(kCompareHelp, stdout);
    return 0;
  }
  const bool confirming = parser.has("--confirm");
  if (parser.inputs.size() != (confirming ? 4u : 2u))
    return usageError(confirming
                          ? "compare --confirm takes two runs and two folders "
                            "of packages, BASE NEW BASE_PKGS NEW_PKGS, got " +
                                std::to_string(parser.inputs.size())
                          : "compare takes two runs, BASE and NEW, got " +
                                std::to_string(parser.inputs.size()),
                      "compare");
  if (parser.has("--json") && parser.has("--markdown"))
    return usageError("--json and --markdown exclude each other", "compare");
  CompareOptions options;
  if (parser.has("--threshold")) {
    double pct = 0;
    if (!parseNumber(parser.value("--threshold"), pct) || pct < 0 || pct > 100)
      return usageError("--threshold: expected a percentage in [0, 100], got '" +
                            escapeForTerminal(parser.value("--threshold")) + "'",
                        "compare");
    options.threshold = pct / 100;
  }
  if (parser.has("--level") &&
      (!parseNumber(parser.value("--level"), options.level) ||
       !(options.level >= 0.5 && options.level < 1)))
    return usageError("--level: expected a number in [0.5, 1), got '" +
                          escapeForTerminal(parser.value("--level")) + "'",
                      "compare");
  if (parser.has("--min-samples")) {
    int64_t n = 0;
    if (!parseCount(parser.value("--min-samples"), n) || n < 3 || n > 1000)
      return usageError("--min-samples: expected a count in [3, 1000], got '" +
                            escapeForTerminal(parser.value("--min-samples")) + "'",
                        "compare");
    options.minSamples = static_cast<size_t>(n);
  }
  History history;
  const std::string db = parser.has("--db") ? parser.value("--db") : "";
  if (!db.empty() && !history.open(db, /*create=*/false, err))
    return inputError(err);
  ResultsFile base, now;
  std::string baseLabel, newLabel;
  History *h = db.empty() ? nullptr : &history;
  if (!loadRun(parser.inputs[0], db, h, base, baseLabel, err) ||
      !loadRun(parser.inputs[1], db, h, now, newLabel, err))
    return inputError(err);
  Comparison comparison = compareRuns(base, now, options);
  comparison.baseLabel = baseLabel;
  comparison.newLabel = newLabel;
  if (confirming) {
    const std::string dirs[2] = {parser.inputs[2], parser.inputs[3]};
    std::map<std::string, KernelPackage> found[2];
    std::vector<ConfirmJob> jobs;
    if (!packagesIn(dirs[0], found[0], err) || !packagesIn(dirs[1], found[1], err) ||
        !matchPackages(confirmPlan(comparison), now, dirs, found, jobs, err))
      return inputError(err);
    if (jobs.empty())
      std::fprintf(stderr, "kgen-bench: --confirm: no kgen kernel regressed or "
                           "is unknown: nothing to measure\n");
    else if (const std::optional<int> stop = confirm(jobs, options, comparison))
      return *stop;
  }
  if (parser.has("--json"))
    std::fputs((toJson(comparison).dump(2, ' ', false,
                                        nlohmann::json::error_handler_t::replace) +
                "\n")
                   .c_str(),
               stdout);
  else if (parser.has("--markdown"))
    std::fputs(formatComparisonMarkdown(comparison).c_str(), stdout);
  else
    std::fputs(formatComparisonText(comparison).c_str(), stdout);
  return comparisonExitCode(comparison);
}

} // namespace kgen::rt
