//===- BenchCompare.cpp - kgen-bench compare ------------------------------===//

#include "BenchPerf.h"
#include "BenchPerfArgs.h"

#include "kgen/runtime/Compare.h"
#include "kgen/runtime/History.h"
#include "kgen/runtime/Names.h"
#include "kgen/runtime/Results.h"

#include <cstdio>

namespace kgen::rt {
namespace {

constexpr const char *kCompareHelp = R"(usage: kgen-bench compare BASE NEW [--json | --markdown] [--threshold PCT]
                         [--level L] [--min-samples N] [--db PATH]

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

exit codes:
  0  nothing regressed
  1  a kernel regressed (its cuBLASLt baseline moving is not counted)
  2  usage or input error
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

} // namespace

int compareMain(const std::vector<std::string> &args) {
  ArgParser parser("compare", {"--json", "--markdown", "-h", "--help"},
                   {"--threshold", "--level", "--min-samples", "--db"});
  std::string err;
  if (!parser.parse(args, err))
    return usageError(err, "compare");
  if (parser.has("-h") || parser.has("--help")) {
    std::fputs(kCompareHelp, stdout);
    return 0;
  }
  if (parser.inputs.size() != 2)
    return usageError("compare takes two runs, BASE and NEW, got " +
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
