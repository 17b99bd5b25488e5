//===- BenchReport.cpp - kgen-bench report --------------------------------===//
//
// Without an output option, the results table of each file (what report
// always printed). With --html, --markdown or --csv, the report of
// Report.h: against a base run (--compare) and with each kernel's history
// (--db) when asked.
//
//===----------------------------------------------------------------------===//

#include "BenchPerf.h"
#include "BenchPerfArgs.h"

#include "kgen/runtime/Cli.h"
#include "kgen/runtime/Compare.h"
#include "kgen/runtime/FileUtil.h"
#include "kgen/runtime/History.h"
#include "kgen/runtime/Names.h"
#include "kgen/runtime/Report.h"
#include "kgen/runtime/Results.h"
#include "kgen/runtime/Series.h"

#include <cstdio>
#include <set>

namespace kgen::rt {
namespace {

constexpr const char *kReportHelp = R"(usage: kgen-bench report F.json... [--html OUT] [--markdown OUT] [--csv OUT]
                        [--compare BASE] [--db PATH] [--threshold PCT]
                        [--title TEXT] [--banner TEXT]

Without --html, --markdown or --csv: prints the results table of each file.
With them, writes a report of the runs (OUT "-" is standard output):

  --html OUT       one self-contained HTML page (no network: inline style,
                   SVG and script): summary, regressions with their causes,
                   results with rates, the roofline under the run's measured
                   ceilings, speed-ups over the baselines, cost-model
                   predictions where results record one, history charts
                   with change points
  --markdown OUT   the same, shorter, as a pull-request comment
  --csv OUT        one row per result
  --compare BASE   compare the first file with BASE (as kgen-bench compare:
                   a results file, or with --db a run: number, last, last~N)
  --db PATH        a history (kgen-bench history): charts the series of the
                   first file's kgen kernels
  --threshold PCT  the comparison's practical minimum (compare --help)
  --title TEXT     the report's title
  --banner TEXT    a line shown above everything (e.g. "synthetic results")

exit codes: 0 written (nothing regressed), 1 a kernel regressed against
BASE, 2 usage or input error
)";

/// What report printed before it wrote reports: each file's device,
/// ceilings and results table.
int printTables(const std::vector<std::string> &paths) {
  for (const std::string &path : paths) {
    ResultsFile file;
    std::string err;
    if (!readResults(path, file, err))
      return inputError(err);
    // Every string from the file is escaped: no escape sequences, no
    // forged lines.
    const DeviceInfo &d = file.device;
    const std::string shownPath = escapeForTerminal(path);
    const std::string createdAt = escapeForTerminal(file.createdAt);
    if (d.name.empty())
      std::printf("== %s: no device (compile only), %s\n", shownPath.c_str(),
                  createdAt.c_str());
    else
      std::printf("== %s: %s (%d SMs, CC %d.%d, driver %s, SM clock %d MHz), %s\n",
                  shownPath.c_str(), escapeForTerminal(d.name).c_str(), d.smCount,
                  d.ccMajor, d.ccMinor, escapeForTerminal(d.driverVersion).c_str(),
                  d.smClockKHz / 1000, createdAt.c_str());
    if (file.ceilings)
      std::printf("   ceilings: copy %.0f GB/s, matmul %.1f TFLOP/s\n",
                  file.ceilings->copyGBps, file.ceilings->matmulTflops);
    std::fputs(formatResultsTable(file.results).c_str(), stdout);
  }
  return 0;
}

bool writeOut(const std::string &path, const std::string &text, std::string &err) {
  if (path == "-") {
    std::fputs(text.c_str(), stdout);
    return true;
  }
  return writeFileAtomic(path, {text}, err);
}

} // namespace

int reportMain(const std::vector<std::string> &args) {
  ArgParser p("report", {"-h", "--help"},
              {"--html", "--markdown", "--csv", "--compare", "--db", "--threshold",
               "--title", "--banner"});
  std::string err;
  if (!p.parse(args, err))
    return usageError(err, "report");
  if (p.has("-h") || p.has("--help")) {
    std::fputs(kReportHelp, stdout);
    return 0;
  }
  if (p.inputs.empty())
    return usageError("report: no results files given", "report");
  const bool writes = p.has("--html") || p.has("--markdown") || p.has("--csv");
  if (!writes) {
    for (const char *opt : {"--compare", "--db", "--threshold", "--title", "--banner"})
      if (p.has(opt))
        return usageError(std::string(opt) + " needs --html, --markdown or --csv",
                          "report");
    return printTables(p.inputs);
  }
  std::set<std::string> outs;
  for (const char *opt : {"--html", "--markdown", "--csv"})
    if (p.has(opt) && p.value(opt) != "-" && !outs.insert(p.value(opt)).second)
      return usageError("two reports written to one file", "report");
  CompareOptions options;
  if (p.has("--threshold")) {
    double pct = 0;
    if (!parseNumber(p.value("--threshold"), pct) || pct < 0 || pct > 100)
      return usageError("--threshold: expected a percentage in [0, 100]", "report");
    options.threshold = pct / 100;
  }
  if (p.has("--threshold") && !p.has("--compare"))
    return usageError("--threshold needs --compare", "report");

  ReportInput in;
  if (p.has("--title"))
    in.title = p.value("--title");
  if (p.has("--banner"))
    in.banner = p.value("--banner");
  for (const std::string &path : p.inputs) {
    ReportRun run;
    run.label = path;
    if (!readResults(path, run.file, err))
      return inputError(err);
    in.runs.push_back(std::move(run));
  }
  History history;
  const std::string db = p.has("--db") ? p.value("--db") : "";
  if (!db.empty() && !history.open(db, /*create=*/false, err))
    return inputError(err);
  if (p.has("--compare")) {
    ResultsFile base;
    std::string label;
    if (db.empty()) {
      label = p.value("--compare");
      if (!readResults(label, base, err))
        return inputError(err);
    } else {
      int64_t id = 0;
      HistoryRun run;
      if (!history.resolve(p.value("--compare"), id, err) ||
          !history.show(id, base, run, err))
        return inputError(err);
      label = db + "#" + std::to_string(id);
    }
    in.comparison = compareRuns(base, in.runs.front().file, options);
    in.comparison->baseLabel = label;
    in.comparison->newLabel = in.runs.front().label;
  }
  if (!db.empty()) {
    for (const KernelResult *r : countedResults(in.runs.front().file)) {
      if (r->implementation != "kgen")
        continue;
      ReportSeries s;
      s.implementation = r->implementation;
      s.name = r->name;
      std::vector<SeriesPoint> points;
      std::vector<Ack> acks;
      if (!history.series(s.implementation, s.name, points, err) ||
          !history.acknowledgements(s.implementation, s.name, acks, err))
        return inputError(err);
      if (points.empty())
        continue; // not in the history (yet)
      s.analysis = analyzeSeries(std::move(points), std::move(acks));
      in.series.push_back(std::move(s));
    }
  }
  if ((p.has("--html") && !writeOut(p.value("--html"), formatReportHtml(in), err)) ||
      (p.has("--markdown") &&
       !writeOut(p.value("--markdown"), formatReportMarkdown(in), err)) ||
      (p.has("--csv") && !writeOut(p.value("--csv"), formatReportCsv(in), err)))
    return inputError(err);
  return in.comparison ? comparisonExitCode(*in.comparison) : 0;
}

} // namespace kgen::rt
