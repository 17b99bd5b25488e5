//===- History.cpp - benchmark runs kept in an SQLite file ----------------===//
//
// Schema version 1:
//   meta(key, value)           ('schema', 'kgen.history'), ('version', '1')
//   runs(id, added_at, created_at, label, commit_id, host, machine_id,
//        device, results)      results: the run's results file (JSON text)
//   kernels(run_id, implementation, name, status, median_ms,
//           baseline_median_ms, source_sha256)
//                              one row per counted result (countedResults)
//   acks(implementation, name, run_id, note, added_at)
//                              steps a person acknowledged
// PRAGMA application_id is 'kgen' (0x6b67656e) and user_version the schema
// version, so `file` and other tools can tell the file apart.
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/History.h"

#include "kgen/runtime/Compare.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#ifdef KGEN_HAVE_SQLITE
#include <sqlite3.h>
#endif

namespace kgen::rt {

std::string defaultHistoryPath() {
  if (const char *db = std::getenv("KGEN_HISTORY_DB"); db && *db)
    return db;
  if (const char *xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg)
    return std::string(xdg) + "/kgen/history.sqlite";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.local/share/kgen/history.sqlite";
  return "kgen-history.sqlite";
}

#ifdef KGEN_HAVE_SQLITE

namespace {

constexpr int kApplicationId = 0x6b67656e; // 'kgen'
constexpr int kBusyTimeoutMs = 30000;
constexpr const char *kSchemaName = "kgen.history";

constexpr const char *kCreateSchema = R"(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  added_at TEXT NOT NULL, created_at TEXT NOT NULL, label TEXT NOT NULL,
  commit_id TEXT NOT NULL, host TEXT NOT NULL, machine_id TEXT NOT NULL,
  device TEXT NOT NULL, results TEXT NOT NULL);
CREATE TABLE kernels(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  implementation TEXT NOT NULL, name TEXT NOT NULL, status TEXT NOT NULL,
  median_ms REAL, baseline_median_ms REAL, source_sha256 TEXT NOT NULL,
  PRIMARY KEY (run_id, implementation, name));
CREATE INDEX kernels_by_name ON kernels(implementation, name, run_id);
)";

/// Acknowledged steps (added in schema version 1 after its first files:
/// created when missing).
constexpr const char *kCreateAcks = R"(
CREATE TABLE IF NOT EXISTS acks(
  implementation TEXT NOT NULL, name TEXT NOT NULL,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  note TEXT NOT NULL, added_at TEXT NOT NULL,
  PRIMARY KEY (implementation, name, run_id));
)";

/// A prepared statement, finalised on scope exit.
class Statement {
public:
  Statement(sqlite3 *db, const char *sql) { rc = sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr); }
  ~Statement() { sqlite3_finalize(stmt); }
  Statement(const Statement &) = delete;
  Statement &operator=(const Statement &) = delete;
  bool ok() const { return rc == SQLITE_OK; }
  void bind(int i, const std::string &s) {
    sqlite3_bind_text(stmt, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
  }
  void bind(int i, int64_t v) { sqlite3_bind_int64(stmt, i, v); }
  void bind(int i, std::optional<double> v) {
    if (v)
      sqlite3_bind_double(stmt, i, *v);
    else
      sqlite3_bind_null(stmt, i);
  }
  int step() { return sqlite3_step(stmt); }
  void reset() {
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
  }
  std::string text(int i) const {
    const unsigned char *t = sqlite3_column_text(stmt, i);
    return t ? std::string(reinterpret_cast<const char *>(t),
                           static_cast<size_t>(sqlite3_column_bytes(stmt, i)))
             : std::string();
  }
  int64_t integer(int i) const { return sqlite3_column_int64(stmt, i); }
  std::optional<double> real(int i) const {
    if (sqlite3_column_type(stmt, i) == SQLITE_NULL)
      return std::nullopt;
    return sqlite3_column_double(stmt, i);
  }

private:
  sqlite3_stmt *stmt = nullptr;
  int rc = SQLITE_ERROR;
};

/// The first 16 bytes of an SQLite 3 database.
constexpr char kSqliteMagic[] = "SQLite format 3";

/// Columns 1-7 of a runs query: added_at, created_at, label, commit_id,
/// host, machine_id, device.
void readRunColumns(const Statement &s, HistoryRun &r) {
  r.addedAt = s.text(1);
  r.createdAt = s.text(2);
  r.label = s.text(3);
  r.commit = s.text(4);
  r.host = s.text(5);
  r.machineId = s.text(6);
  r.device = s.text(7);
}

std::string deviceText(const DeviceInfo &d) {
  if (d.name.empty())
    return "";
  return d.name + " (" + std::to_string(d.smCount) + " SMs, CC " +
         std::to_string(d.ccMajor) + "." + std::to_string(d.ccMinor) + ")";
}

} // namespace

struct History::Impl {
  sqlite3 *db = nullptr;
  std::string path;

  ~Impl() { sqlite3_close(db); }

  /// `what` failed: err names the file and SQLite's reason, on one line.
  bool fail(const std::string &what, std::string &err) const {
    const int code = db ? sqlite3_errcode(db) : SQLITE_ERROR;
    std::string reason = db ? sqlite3_errmsg(db) : "cannot open";
    if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
      reason = "corrupt or not a database (" + reason + ")";
    for (char &c : reason)
      if (c == '\n' || c == '\r')
        c = ' ';
    err = path + ": " + what + ": " + reason;
    return false;
  }

  bool exec(const char *sql, const std::string &what, std::string &err) {
    return sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK ||
           fail(what, err);
  }

  bool pragmaInt(const char *sql, int64_t &out, std::string &err) {
    Statement s(db, sql);
    if (!s.ok() || s.step() != SQLITE_ROW)
      return fail("reading its header", err);
    out = s.integer(0);
    return true;
  }

  /// Creates the schema in a fresh file, or checks an existing one's.
  bool prepareSchema(bool create, std::string &err) {
    // IMMEDIATE: two processes creating the same new file do it in turn.
    if (!exec("BEGIN IMMEDIATE", "locking", err))
      return false;
    int64_t appId = 0, version = 0, tables = 0;
    bool ok = pragmaInt("PRAGMA application_id", appId, err) &&
              pragmaInt("PRAGMA user_version", version, err) &&
              pragmaInt("SELECT count(*) FROM sqlite_master", tables, err);
    if (ok && appId == 0 && version == 0 && tables == 0) {
      if (!create) {
        err = path + ": an empty database, not a kgen history (add a run "
                     "first: kgen-bench history add)";
        ok = false;
      } else {
        const std::string setup =
            std::string(kCreateSchema) +
            "INSERT INTO meta VALUES ('schema', '" + kSchemaName +
            "'), ('version', '" + std::to_string(kHistoryVersion) +
            "');\nPRAGMA application_id = " + std::to_string(kApplicationId) +
            ";\nPRAGMA user_version = " + std::to_string(kHistoryVersion) + ";";
        ok = exec(setup.c_str(), "creating the schema", err);
      }
    } else if (ok && appId != kApplicationId) {
      err = path + ": not a kgen history database (an SQLite file of "
                   "another application)";
      ok = false;
    } else if (ok && version != kHistoryVersion) {
      err = path + ": history schema version " + std::to_string(version) +
            ", this kgen-bench reads version " +
            std::to_string(kHistoryVersion);
      ok = false;
    } else if (ok) {
      Statement s(db, "SELECT value FROM meta WHERE key = 'schema'");
      const int rc = s.ok() ? s.step() : SQLITE_ERROR;
      if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        ok = fail("reading its meta table", err);
      } else if (rc == SQLITE_DONE || s.text(0) != kSchemaName) {
        err = path + ": not a kgen history database (no kgen.history "
                     "schema in its meta table)";
        ok = false;
      }
    }
    if (!ok) {
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
      return false;
    }
    return exec(kCreateAcks, "creating the acks table", err) &&
           exec("COMMIT", "committing the schema", err);
  }
};

bool History::open(const std::string &path, bool create, std::string &err) {
  impl = std::make_unique<Impl>();
  impl->path = path;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (fs::exists(st)) {
    if (!fs::is_regular_file(st)) {
      err = path + ": not a regular file";
      return false;
    }
    // A file that is not SQLite at all is refused before SQLite sees it.
    char head[16] = {};
    std::ifstream in(path, std::ios::binary);
    in.read(head, sizeof head);
    const std::streamsize got = in.gcount();
    if (got > 0 && (got < 16 || std::string(head, 15) != kSqliteMagic)) {
      err = path + ": not a kgen history database (not an SQLite file)";
      return false;
    }
  } else if (!create) {
    err = path + ": no such history (kgen-bench history add creates it)";
    return false;
  }
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) |
                    SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &impl->db, flags, nullptr) != SQLITE_OK)
    return impl->fail("opening", err);
  sqlite3_busy_timeout(impl->db, kBusyTimeoutMs);
  sqlite3_extended_result_codes(impl->db, 0);
  // The schema is checked before anything is set: switching the journal
  // of another application's file would change it.
  if (!impl->exec("PRAGMA foreign_keys = ON", "configuring", err) ||
      !impl->prepareSchema(create, err))
    return false;
  Statement wal(impl->db, "PRAGMA journal_mode = WAL");
  if (!wal.ok() || wal.step() != SQLITE_ROW)
    return impl->fail("switching to the WAL journal", err);
  return true;
}

bool History::add(const ResultsFile &file, const std::string &label,
                  int64_t &id, std::string &err) {
  sqlite3 *db = impl->db;
  if (!impl->exec("BEGIN IMMEDIATE", "locking", err))
    return false;
  auto rollback = [&](const std::string &what) {
    impl->fail(what, err);
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return false;
  };
  {
    Statement run(db, "INSERT INTO runs(added_at, created_at, label, commit_id, "
                      "host, machine_id, device, results) VALUES "
                      "(?, ?, ?, ?, ?, ?, ?, ?)");
    if (!run.ok())
      return rollback("adding a run");
    run.bind(1, utcNow());
    run.bind(2, file.createdAt);
    run.bind(3, label);
    run.bind(4, file.commit);
    run.bind(5, file.host);
    run.bind(6, file.machineId);
    run.bind(7, deviceText(file.device));
    run.bind(8, toJson(file).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    if (run.step() != SQLITE_DONE)
      return rollback("adding a run");
    id = sqlite3_last_insert_rowid(db);
    const std::vector<const KernelResult *> counted = countedResults(file);
    std::map<std::string, const KernelResult *> byName;
    for (const KernelResult *r : counted)
      byName[r->name] = r;
    Statement kernel(db, "INSERT INTO kernels VALUES (?, ?, ?, ?, ?, ?, ?)");
    if (!kernel.ok())
      return rollback("adding its kernels");
    for (const KernelResult *r : counted) {
      std::optional<double> median, baselineMedian;
      if (r->status == RunStatus::Ok && r->time)
        median = r->time->medianMs;
      if (auto b = byName.find(r->baseline);
          !r->baseline.empty() && b != byName.end() && b->second != r &&
          b->second->status == RunStatus::Ok && b->second->time)
        baselineMedian = b->second->time->medianMs;
      kernel.bind(1, id);
      kernel.bind(2, r->implementation);
      kernel.bind(3, r->name);
      kernel.bind(4, std::string(runStatusName(r->status)));
      kernel.bind(5, median);
      kernel.bind(6, baselineMedian);
      kernel.bind(7, r->sourceSha256);
      if (kernel.step() != SQLITE_DONE)
        return rollback("adding its kernels");
      kernel.reset();
    }
  }
  return impl->exec("COMMIT", "committing the run", err);
}

bool History::list(std::vector<HistoryRun> &runs, std::string &err) {
  Statement s(impl->db,
              "SELECT id, added_at, created_at, label, commit_id, host, "
              "machine_id, device, (SELECT count(*) FROM kernels WHERE "
              "run_id = runs.id) FROM runs ORDER BY created_at, id");
  if (!s.ok())
    return impl->fail("listing runs", err);
  runs.clear();
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) {
    HistoryRun r;
    r.id = s.integer(0);
    readRunColumns(s, r);
    r.kernels = s.integer(8);
    runs.push_back(std::move(r));
  }
  return rc == SQLITE_DONE || impl->fail("listing runs", err);
}

bool History::show(int64_t id, ResultsFile &file, HistoryRun &run,
                   std::string &err) {
  Statement s(impl->db, "SELECT results, added_at, created_at, label, "
                        "commit_id, host, machine_id, device FROM runs "
                        "WHERE id = ?");
  if (!s.ok())
    return impl->fail("reading run " + std::to_string(id), err);
  s.bind(1, id);
  const int rc = s.step();
  if (rc == SQLITE_DONE) {
    err = impl->path + ": no run " + std::to_string(id) +
          " (kgen-bench history list shows them)";
    return false;
  }
  if (rc != SQLITE_ROW)
    return impl->fail("reading run " + std::to_string(id), err);
  nlohmann::json j = nlohmann::json::parse(s.text(0), nullptr, false);
  std::string why;
  if (j.is_discarded() || !fromJson(j, file, why)) {
    err = impl->path + ": run " + std::to_string(id) +
          ": stored results unreadable" + (why.empty() ? "" : ": " + why);
    return false;
  }
  run.id = id;
  readRunColumns(s, run);
  run.kernels = static_cast<int64_t>(countedResults(file).size());
  return true;
}

bool History::resolve(const std::string &what, int64_t &id, std::string &err) {
  const bool recentRun = what == "last" || what.rfind("last~", 0) == 0;
  const std::string digits = recentRun ? what.substr(std::min<size_t>(5, what.size()))
                                       : what;
  if ((recentRun && what == "last") ||
      (!digits.empty() && digits.size() <= 15 &&
       digits.find_first_not_of("0123456789") == std::string::npos)) {
    const int64_t n = digits.empty() ? 0 : std::stoll(digits);
    if (!recentRun) {
      id = n;
      return true;
    }
    return recent(n, id, err);
  }
  err = "expected a run number, last or last~N, got '" + what + "'";
  return false;
}

bool History::recent(int64_t back, int64_t &id, std::string &err) {
  Statement s(impl->db, "SELECT id FROM runs ORDER BY created_at DESC, id DESC "
                        "LIMIT 1 OFFSET ?");
  if (!s.ok())
    return impl->fail("finding recent runs", err);
  s.bind(1, back);
  const int rc = s.step();
  if (rc == SQLITE_ROW) {
    id = s.integer(0);
    return true;
  }
  if (rc == SQLITE_DONE) {
    err = impl->path + ": holds fewer than " + std::to_string(back + 1) + " runs";
    return false;
  }
  return impl->fail("finding recent runs", err);
}

bool History::series(const std::string &implementation, const std::string &name,
                     std::vector<SeriesPoint> &points, std::string &err) {
  Statement s(impl->db,
              "SELECT k.run_id, r.created_at, r.commit_id, k.status, "
              "k.source_sha256, k.median_ms, k.baseline_median_ms FROM "
              "kernels k JOIN runs r ON r.id = k.run_id WHERE "
              "k.implementation = ? AND k.name = ? ORDER BY r.created_at, r.id");
  if (!s.ok())
    return impl->fail("reading a series", err);
  s.bind(1, implementation);
  s.bind(2, name);
  points.clear();
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) {
    SeriesPoint p;
    p.runId = s.integer(0);
    p.createdAt = s.text(1);
    p.commit = s.text(2);
    p.status = s.text(3);
    p.sourceSha256 = s.text(4);
    p.medianMs = s.real(5);
    p.baselineMedianMs = s.real(6);
    points.push_back(std::move(p));
  }
  return rc == SQLITE_DONE || impl->fail("reading a series", err);
}

bool History::acknowledge(const std::string &implementation,
                          const std::string &name, int64_t runId,
                          const std::string &note, std::string &err) {
  {
    Statement has(impl->db, "SELECT count(*) FROM kernels WHERE run_id = ? "
                            "AND implementation = ? AND name = ?");
    if (!has.ok())
      return impl->fail("acknowledging", err);
    has.bind(1, runId);
    has.bind(2, implementation);
    has.bind(3, name);
    if (has.step() != SQLITE_ROW)
      return impl->fail("acknowledging", err);
    if (has.integer(0) == 0) {
      err = impl->path + ": run " + std::to_string(runId) + " holds no " +
            implementation + " " + name;
      return false;
    }
  }
  Statement s(impl->db, "INSERT OR REPLACE INTO acks VALUES (?, ?, ?, ?, ?)");
  if (!s.ok())
    return impl->fail("acknowledging", err);
  s.bind(1, implementation);
  s.bind(2, name);
  s.bind(3, runId);
  s.bind(4, note);
  s.bind(5, utcNow());
  return s.step() == SQLITE_DONE || impl->fail("acknowledging", err);
}

bool History::acknowledgements(const std::string &implementation,
                               const std::string &name, std::vector<Ack> &acks,
                               std::string &err) {
  Statement s(impl->db, "SELECT run_id, note, added_at FROM acks WHERE "
                        "implementation = ? AND name = ? ORDER BY run_id");
  if (!s.ok())
    return impl->fail("reading acknowledgements", err);
  s.bind(1, implementation);
  s.bind(2, name);
  acks.clear();
  int rc;
  while ((rc = s.step()) == SQLITE_ROW)
    acks.push_back({s.integer(0), s.text(1), s.text(2)});
  return rc == SQLITE_DONE || impl->fail("reading acknowledgements", err);
}

#else // !KGEN_HAVE_SQLITE

struct History::Impl {};

namespace {
bool noSqlite(std::string &err) {
  err = "this kgen-bench was built without SQLite (install libsqlite3-dev "
        "and rebuild): no history";
  return false;
}
} // namespace

bool History::open(const std::string &, bool, std::string &err) { return noSqlite(err); }
bool History::add(const ResultsFile &, const std::string &, int64_t &, std::string &err) {
  return noSqlite(err);
}
bool History::list(std::vector<HistoryRun> &, std::string &err) { return noSqlite(err); }
bool History::show(int64_t, ResultsFile &, HistoryRun &, std::string &err) {
  return noSqlite(err);
}
bool History::recent(int64_t, int64_t &, std::string &err) { return noSqlite(err); }
bool History::resolve(const std::string &, int64_t &, std::string &err) {
  return noSqlite(err);
}
bool History::series(const std::string &, const std::string &,
                     std::vector<SeriesPoint> &, std::string &err) {
  return noSqlite(err);
}
bool History::acknowledge(const std::string &, const std::string &, int64_t,
                          const std::string &, std::string &err) {
  return noSqlite(err);
}
bool History::acknowledgements(const std::string &, const std::string &,
                               std::vector<Ack> &, std::string &err) {
  return noSqlite(err);
}

#endif // KGEN_HAVE_SQLITE

// Here, where Impl is complete in either build.
History::History() = default;
History::~History() = default;
History::History(History &&) noexcept = default;
History &History::operator=(History &&) noexcept = default;

} // namespace kgen::rt
