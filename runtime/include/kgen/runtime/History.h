//===- History.h - benchmark runs kept in an SQLite file --------*- C++ -*-===//
//
// `kgen-bench history` (docs/performance-history.md): one SQLite file holds
// every run added (its whole results file) and, per kernel, the numbers its
// series needs. Safe with concurrent writers (WAL journal, a busy timeout,
// every write one transaction); the schema is versioned (application_id
// 'kgen', user_version and a meta table); a file that is not an SQLite
// database, another application's database, a newer schema or a corrupt
// file is refused with a one-line message. Without SQLite at build time
// (KGEN_HAVE_SQLITE unset) every call fails saying so.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_HISTORY_H
#define KGEN_RUNTIME_HISTORY_H

#include "kgen/runtime/Results.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kgen::rt {

constexpr int kHistoryVersion = 1;

/// $KGEN_HISTORY_DB, else $XDG_DATA_HOME/kgen/history.sqlite, else
/// $HOME/.local/share/kgen/history.sqlite, else "kgen-history.sqlite".
std::string defaultHistoryPath();

/// One run in the history.
struct HistoryRun {
  int64_t id = 0;
  std::string addedAt, createdAt, label, commit, host, machineId, device;
  int64_t kernels = 0; // results it holds (one per implementation and name)
};

/// One run's numbers for one kernel.
struct SeriesPoint {
  int64_t runId = 0;
  std::string createdAt, commit, status, sourceSha256;
  std::optional<double> medianMs;         // when timed
  std::optional<double> baselineMedianMs; // its baseline's, when timed
};

/// A step a person looked at and accepted (a known change of strategy, a
/// new driver): `history series` marks it and `--check` lets it pass.
struct Ack {
  int64_t runId = 0; // the first run after the step
  std::string note, addedAt;
};

class History {
public:
  History();
  ~History();
  History(History &&) noexcept;
  History &operator=(History &&) noexcept;

  /// Opens `path`; a missing or empty file is created (with its schema)
  /// only when `create`. False with a one-line message naming the file.
  bool open(const std::string &path, bool create, std::string &err);

  /// Adds a run in one transaction; `id` is its number.
  bool add(const ResultsFile &file, const std::string &label, int64_t &id,
           std::string &err);
  /// Every run, oldest first (by created_at, then id).
  bool list(std::vector<HistoryRun> &runs, std::string &err);
  /// The results file of run `id`, and its row.
  bool show(int64_t id, ResultsFile &file, HistoryRun &run, std::string &err);
  /// The id of the newest run `back` runs before the last (0: the last),
  /// by created_at then id; false when there are not that many.
  bool recent(int64_t back, int64_t &id, std::string &err);
  /// The run `what` names: a run number (not checked to exist), `last`,
  /// or `last~N` (recent(N)). False with a message otherwise.
  bool resolve(const std::string &what, int64_t &id, std::string &err);
  /// A kernel's points over the runs, oldest first.
  bool series(const std::string &implementation, const std::string &name,
              std::vector<SeriesPoint> &points, std::string &err);

  /// Records that the step of `implementation` `name` at run `runId` is
  /// known (replacing an earlier note); false when that run does not
  /// hold the kernel.
  bool acknowledge(const std::string &implementation, const std::string &name,
                   int64_t runId, const std::string &note, std::string &err);
  /// A kernel's acknowledged steps, by run.
  bool acknowledgements(const std::string &implementation,
                        const std::string &name, std::vector<Ack> &acks,
                        std::string &err);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

} // namespace kgen::rt

#endif // KGEN_RUNTIME_HISTORY_H
