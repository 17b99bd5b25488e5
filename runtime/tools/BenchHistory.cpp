//===- BenchHistory.cpp - kgen-bench history ------------------------------===//

#include "BenchPerf.h"
#include "BenchPerfArgs.h"

#include "kgen/runtime/ChangePoint.h"
#include "kgen/runtime/Cli.h"
#include "kgen/runtime/History.h"
#include "kgen/runtime/Names.h"
#include "kgen/runtime/Results.h"
#include "kgen/runtime/Series.h"

#include <cmath>
#include <cstdio>
#include <filesystem>

namespace kgen::rt {
namespace {

constexpr const char *kHistoryHelp = R"(usage: kgen-bench history <command> [--db PATH] ...

Keeps benchmark runs in one SQLite file (safe with concurrent writers) and
finds where a kernel's performance changed (docs/performance-history.md).

commands:
  add F.json... [--label TEXT]   add results files, one run each (in one
                                 transaction per file); prints their numbers
  list                           every run: number, date, commit, device,
                                 kernels, label
  show RUN [--out F.json]        a run's results table (RUN: a number, last
                                 or last~N); --out writes its results file
  series NAME [--implementation I] [--json] [--penalty P] [--min-shift PCT]
         [--check]               a kernel's median time run after run (and
                                 over its cuBLASLt baseline when every run
                                 has one), with change points found by PELT
                                 on log time: P the penalty per change in
                                 units of log(n) (default 3), PCT the
                                 smallest change kept (default 2); --check
                                 exits 1 when a slowdown is not acknowledged
  ack NAME RUN [--implementation I] [--note TEXT]
                                 acknowledge the step of kernel NAME at RUN
                                 (the first run after it): series marks it,
                                 --check lets it pass, later steps are still
                                 found

options:
  --db PATH   the history file (default $KGEN_HISTORY_DB, else
              $XDG_DATA_HOME/kgen/history.sqlite or
              ~/.local/share/kgen/history.sqlite); add creates it

exit codes:
  0  done
  1  the history file is refused: not SQLite, another application's
     database, a newer schema, corrupt, or locked past 30 s; series
     --check: a slowdown nobody acknowledged
  2  usage or input error (bad option, unreadable results file, no such run)
)";

/// Says `err` and returns 1: the history file is the problem.
int historyError(const std::string &err) {
  std::fprintf(stderr, "kgen-bench: %s\n", escapeForTerminal(err).c_str());
  return 1;
}

std::string pct(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * (ratio - 1));
  return buf;
}

int addCommand(History &history, const ArgParser &p,
               const std::vector<ResultsFile> &files) {
  std::string err;
  const std::string label = p.has("--label") ? p.value("--label") : "";
  for (size_t i = 0; i < files.size(); ++i) {
    int64_t id = 0;
    if (!history.add(files[i], label, id, err))
      return historyError(err);
    std::printf("added run %lld: %s\n", static_cast<long long>(id),
                escapeForTerminal(p.inputs[i + 1]).c_str());
  }
  return 0;
}

int listCommand(History &history) {
  std::vector<HistoryRun> runs;
  std::string err;
  if (!history.list(runs, err))
    return historyError(err);
  std::printf("%-5s %-20s %-12s %-8s %-36s %s\n", "run", "created", "commit",
              "kernels", "device", "label");
  for (const HistoryRun &r : runs)
    std::printf("%-5lld %-20s %-12s %-8lld %-36s %s\n",
                static_cast<long long>(r.id),
                escapeForTerminal(r.createdAt).c_str(),
                escapeForTerminal(r.commit.substr(0, 12)).c_str(),
                static_cast<long long>(r.kernels),
                escapeForTerminal(r.device.empty() ? "-" : r.device).c_str(),
                escapeForTerminal(r.label).c_str());
  return 0;
}

int showCommand(History &history, const ArgParser &p) {
  if (p.inputs.size() != 2)
    return usageError("history show takes one run", "history");
  std::string err;
  int64_t id = 0;
  if (!history.resolve(p.inputs[1], id, err))
    return inputError(err);
  ResultsFile file;
  HistoryRun run;
  if (!history.show(id, file, run, err))
    return err.find("no run ") != std::string::npos ? inputError(err)
                                                    : historyError(err);
  std::printf("run %lld: created %s, added %s, commit %s, %s%s%s\n",
              static_cast<long long>(run.id),
              escapeForTerminal(run.createdAt).c_str(),
              escapeForTerminal(run.addedAt).c_str(),
              escapeForTerminal(run.commit.empty() ? "-" : run.commit).c_str(),
              escapeForTerminal(run.device.empty() ? "no device" : run.device).c_str(),
              run.label.empty() ? "" : ", label ",
              escapeForTerminal(run.label).c_str());
  std::fputs(formatResultsTable(file.results).c_str(), stdout);
  if (p.has("--out") && !writeResults(p.value("--out"), file, err))
    return inputError(err);
  return 0;
}

/// series --check: 1 (saying so) when a slowdown is not acknowledged.
int checkExit(const ArgParser &p, const SeriesAnalysis &a) {
  if (!p.has("--check"))
    return 0;
  const size_t open = a.openSlowdowns();
  if (open == 0)
    return 0;
  std::fflush(stdout); // the table first, then the verdict
  std::fprintf(stderr,
               "kgen-bench: %zu slowdown%s not acknowledged (kgen-bench history "
               "ack NAME RUN accepts one)\n",
               open, open == 1 ? "" : "s");
  return 1;
}

int ackCommand(History &history, const ArgParser &p) {
  if (p.inputs.size() != 3)
    return usageError("history ack takes a kernel name and a run", "history");
  const std::string implementation =
      p.has("--implementation") ? p.value("--implementation") : "kgen";
  std::string err;
  int64_t id = 0;
  if (!history.resolve(p.inputs[2], id, err))
    return inputError(err);
  if (!history.acknowledge(implementation, p.inputs[1], id,
                           p.has("--note") ? p.value("--note") : "", err))
    return err.find(" holds no ") != std::string::npos ? inputError(err)
                                                       : historyError(err);
  std::printf("acknowledged the step of %s %s at run %lld\n",
              escapeForTerminal(implementation).c_str(),
              escapeForTerminal(p.inputs[1]).c_str(), static_cast<long long>(id));
  return 0;
}

int seriesCommand(History &history, const ArgParser &p) {
  if (p.inputs.size() != 2)
    return usageError("history series takes one kernel name", "history");
  const std::string implementation =
      p.has("--implementation") ? p.value("--implementation") : "kgen";
  ChangePointOptions options;
  if (p.has("--penalty") &&
      (!parseNumber(p.value("--penalty"), options.penaltyPerLogN) ||
       options.penaltyPerLogN <= 0 || options.penaltyPerLogN > 100))
    return usageError("--penalty: expected a number in (0, 100]", "history");
  if (p.has("--min-shift")) {
    double shift = 0;
    if (!parseNumber(p.value("--min-shift"), shift) || shift < 0 || shift > 100)
      return usageError("--min-shift: expected a percentage in [0, 100]", "history");
    options.minShift = std::log1p(shift / 100);
  }
  std::vector<SeriesPoint> points;
  std::string err;
  if (!history.series(implementation, p.inputs[1], points, err))
    return historyError(err);
  if (points.empty())
    return inputError("no run holds " + implementation + " " + p.inputs[1]);
  std::vector<Ack> acks;
  if (!history.acknowledgements(implementation, p.inputs[1], acks, err))
    return historyError(err);
  const SeriesAnalysis a = analyzeSeries(std::move(points), std::move(acks), options);
  std::vector<bool> startsSegment(a.points.size(), false);
  for (const SeriesChange &c : a.changes)
    startsSegment[c.point] = true;

  if (p.has("--json")) {
    nlohmann::json j = {{"implementation", implementation},
                        {"name", p.inputs[1]},
                        {"normalized", a.normalized},
                        {"points", nlohmann::json::array()},
                        {"change_points", nlohmann::json::array()}};
    for (const SeriesPoint &pt : a.points)
      j["points"].push_back(
          {{"run", pt.runId}, {"created_at", pt.createdAt}, {"commit", pt.commit},
           {"status", pt.status}, {"source_sha256", pt.sourceSha256},
           {"median_ms", pt.medianMs ? nlohmann::json(*pt.medianMs) : nlohmann::json()},
           {"baseline_median_ms", pt.baselineMedianMs
                                      ? nlohmann::json(*pt.baselineMedianMs)
                                      : nlohmann::json()}});
    for (const SeriesChange &c : a.changes)
      j["change_points"].push_back(
          {{"run", a.points[c.point].runId},
           {"ratio", c.ratio},
           {"acknowledged", c.ack.has_value()},
           {"note", c.ack ? a.acks[*c.ack].note : ""}});
    std::puts(j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return checkExit(p, a);
  }
  std::printf("%s %s: %zu runs, %zu timed; change points by PELT on log(%s)\n",
              escapeForTerminal(implementation).c_str(),
              escapeForTerminal(p.inputs[1]).c_str(), a.points.size(),
              a.timed.size(),
              a.normalized ? "median / baseline median" : "median");
  std::printf("%-5s %-20s %-12s %-10s %-10s %-12s %s\n", "run", "created",
              "commit", "status", "median ms", "vs baseline", "source");
  for (size_t i = 0; i < a.points.size(); ++i) {
    const SeriesPoint &pt = a.points[i];
    char median[32] = "-", vs[32] = "-";
    if (pt.medianMs)
      std::snprintf(median, sizeof median, "%.4f", *pt.medianMs);
    if (pt.medianMs && pt.baselineMedianMs && *pt.baselineMedianMs > 0)
      std::snprintf(vs, sizeof vs, "%.3f", *pt.medianMs / *pt.baselineMedianMs);
    std::printf("%-5lld %-20s %-12s %-10s %-10s %-12s %s%s\n",
                static_cast<long long>(pt.runId),
                escapeForTerminal(pt.createdAt).c_str(),
                escapeForTerminal(pt.commit.substr(0, 12)).c_str(),
                escapeForTerminal(pt.status).c_str(), median, vs,
                escapeForTerminal(pt.sourceSha256.substr(0, 12)).c_str(),
                startsSegment[i] ? "  <- change" : "");
  }
  for (const SeriesChange &c : a.changes) {
    const std::string note =
        c.ack ? (a.acks[*c.ack].note.empty() ? std::string("(no note)")
                                             : a.acks[*c.ack].note)
              : "";
    std::printf("change at run %lld: %s (segment mean after / before)%s%s\n",
                static_cast<long long>(a.points[c.point].runId),
                pct(c.ratio).c_str(), c.ack ? ", acknowledged: " : "",
                escapeForTerminal(note).c_str());
  }
  if (a.changes.empty())
    std::puts("no change point");
  return checkExit(p, a);
}

} // namespace

int historyMain(const std::vector<std::string> &args) {
  ArgParser p("history", {"--json", "--check", "-h", "--help"},
              {"--db", "--label", "--out", "--implementation", "--penalty",
               "--min-shift", "--note"});
  std::string err;
  if (!p.parse(args, err))
    return usageError(err, "history");
  if (p.has("-h") || p.has("--help")) {
    std::fputs(kHistoryHelp, stdout);
    return 0;
  }
  if (p.inputs.empty())
    return usageError("history needs a command: add, list, show, series or ack",
                      "history");
  const std::string command = p.inputs[0];
  // Each option belongs to some commands only.
  const std::map<std::string, std::set<std::string>> allowed = {
      {"add", {"--db", "--label"}},
      {"list", {"--db"}},
      {"show", {"--db", "--out"}},
      {"series", {"--db", "--implementation", "--json", "--penalty", "--min-shift",
                  "--check"}},
      {"ack", {"--db", "--implementation", "--note"}}};
  const auto it = allowed.find(command);
  if (it == allowed.end())
    return usageError("unknown history command '" + command +
                          "' (add, list, show, series, ack)",
                      "history");
  for (const char *opt : {"--db", "--label", "--out", "--implementation",
                          "--json", "--penalty", "--min-shift", "--check",
                          "--note"})
    if (p.has(opt) && !it->second.count(opt))
      return usageError(std::string(opt) + " does not apply to history " + command,
                        "history");
  if (command == "list" && p.inputs.size() != 1)
    return usageError("history list takes no inputs", "history");
  // add reads every file first: a bad one adds nothing, creates nothing.
  std::vector<ResultsFile> files;
  if (command == "add") {
    if (p.inputs.size() < 2)
      return usageError("history add takes results files", "history");
    files.resize(p.inputs.size() - 1);
    for (size_t i = 1; i < p.inputs.size(); ++i)
      if (!readResults(p.inputs[i], files[i - 1], err))
        return inputError(err);
  }
  const std::string path = p.has("--db") ? p.value("--db") : defaultHistoryPath();
  const bool create = command == "add";
  if (create && !p.has("--db") && path.find('/') != std::string::npos) {
    std::error_code ec; // the default folder, made on first use
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  }
  History history;
  if (!history.open(path, create, err))
    return historyError(err);
  if (command == "add")
    return addCommand(history, p, files);
  if (command == "list")
    return listCommand(history);
  if (command == "show")
    return showCommand(history, p);
  if (command == "ack")
    return ackCommand(history, p);
  return seriesCommand(history, p);
}

} // namespace kgen::rt
