//===- HistoryTest.cpp - the SQLite history -------------------------------===//

#include "kgen/runtime/History.h"

#include "TempDirTest.h"

#include <gtest/gtest.h>

#include <set>

#include <sys/wait.h>
#include <unistd.h>

#ifdef KGEN_HAVE_SQLITE
#include <sqlite3.h>
#endif

using namespace kgen::rt;
using kgen::rt::test::TempDirTest;

namespace {

class HistoryTest : public TempDirTest {
protected:
  void SetUp() override {
    TempDirTest::SetUp();
#ifndef KGEN_HAVE_SQLITE
    GTEST_SKIP() << "built without SQLite";
#endif
  }

  /// A run of one kernel (median `ms`) and its baseline (median 1 ms).
  static ResultsFile run(const std::string &createdAt, double ms,
                         const std::string &sha = "aa") {
    ResultsFile f;
    f.createdAt = createdAt;
    f.commit = "c" + createdAt.substr(11, 2);
    f.machineId = "m1";
    f.device.name = "NVIDIA H200";
    f.device.smCount = 132;
    KernelResult b;
    b.name = "cublaslt_g";
    b.implementation = "cublaslt";
    b.status = RunStatus::Ok;
    b.time = summarize({1.0, 1.0, 1.0});
    b.samplesMs = {1.0, 1.0, 1.0};
    KernelResult k;
    k.name = "g";
    k.implementation = "kgen";
    k.status = RunStatus::Ok;
    k.time = summarize({ms, ms, ms});
    k.samplesMs = {ms, ms, ms};
    k.baseline = "cublaslt_g";
    k.sourceSha256 = sha;
    f.results = {b, k};
    return f;
  }

  std::string expectRefused(const std::string &path, bool create = false) {
    History h;
    std::string err;
    EXPECT_FALSE(h.open(path, create, err));
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
    EXPECT_EQ(err.rfind(path + ": ", 0), 0u) << err;
    return err;
  }
};

TEST_F(HistoryTest, RoundTrip) {
  const std::string path = pathOf("h.sqlite");
  History h;
  std::string err;
  ASSERT_TRUE(h.open(path, /*create=*/true, err)) << err;
  int64_t first = 0, second = 0, third = 0;
  ASSERT_TRUE(h.add(run("2026-12-01T02:00:00Z", 2.0), "nightly", first, err)) << err;
  ASSERT_TRUE(h.add(run("2026-12-01T03:00:00Z", 2.2, "bb"), "", second, err)) << err;
  // Added later but made earlier: ordered by when it was made.
  ASSERT_TRUE(h.add(run("2026-12-01T01:00:00Z", 1.9), "", third, err)) << err;
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);

  std::vector<HistoryRun> runs;
  ASSERT_TRUE(h.list(runs, err)) << err;
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].id, third);
  EXPECT_EQ(runs[1].id, first);
  EXPECT_EQ(runs[1].label, "nightly");
  EXPECT_EQ(runs[1].commit, "c02");
  EXPECT_EQ(runs[1].kernels, 2);
  EXPECT_EQ(runs[1].device, "NVIDIA H200 (132 SMs, CC 0.0)");

  ResultsFile back;
  HistoryRun row;
  ASSERT_TRUE(h.show(second, back, row, err)) << err;
  EXPECT_EQ(toJson(back), toJson(run("2026-12-01T03:00:00Z", 2.2, "bb")));
  EXPECT_EQ(row.id, second);
  EXPECT_FALSE(h.show(999, back, row, err));
  EXPECT_NE(err.find("no run 999"), std::string::npos) << err;

  int64_t id = 0;
  ASSERT_TRUE(h.recent(0, id, err)) << err;
  EXPECT_EQ(id, second);
  ASSERT_TRUE(h.recent(2, id, err)) << err;
  EXPECT_EQ(id, third);
  EXPECT_FALSE(h.recent(3, id, err));
  ASSERT_TRUE(h.resolve("last", id, err)) << err;
  EXPECT_EQ(id, second);
  ASSERT_TRUE(h.resolve("last~2", id, err)) << err;
  EXPECT_EQ(id, third);
  ASSERT_TRUE(h.resolve("17", id, err)) << err;
  EXPECT_EQ(id, 17);
  for (const char *bad : {"last~", "last~x", "x", "-1", "", "last~9"})
    EXPECT_FALSE(h.resolve(bad, id, err)) << bad;

  std::vector<SeriesPoint> points;
  ASSERT_TRUE(h.series("kgen", "g", points, err)) << err;
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[0].runId, third);
  ASSERT_TRUE(points[2].medianMs && points[2].baselineMedianMs);
  EXPECT_DOUBLE_EQ(*points[2].medianMs, 2.2);
  EXPECT_DOUBLE_EQ(*points[2].baselineMedianMs, 1.0);
  EXPECT_EQ(points[2].sourceSha256, "bb");
  ASSERT_TRUE(h.series("kgen", "nothing", points, err)) << err;
  EXPECT_TRUE(points.empty());

  // Opened again, as another command would.
  History again;
  ASSERT_TRUE(again.open(path, /*create=*/false, err)) << err;
  ASSERT_TRUE(again.list(runs, err)) << err;
  EXPECT_EQ(runs.size(), 3u);
}

TEST_F(HistoryTest, AcknowledgedSteps) {
  History h;
  std::string err;
  ASSERT_TRUE(h.open(pathOf("h.sqlite"), true, err)) << err;
  int64_t one = 0, two = 0;
  ASSERT_TRUE(h.add(run("2026-12-01T01:00:00Z", 1.0), "", one, err)) << err;
  ASSERT_TRUE(h.add(run("2026-12-01T02:00:00Z", 1.1), "", two, err)) << err;
  ASSERT_TRUE(h.acknowledge("kgen", "g", two, "new tiles", err)) << err;
  ASSERT_TRUE(h.acknowledge("kgen", "g", two, "new tiles, checked", err)) << err;
  EXPECT_FALSE(h.acknowledge("kgen", "other", two, "", err));
  EXPECT_NE(err.find("run 2 holds no kgen other"), std::string::npos) << err;
  EXPECT_FALSE(h.acknowledge("kgen", "g", 99, "", err));
  std::vector<Ack> acks;
  ASSERT_TRUE(h.acknowledgements("kgen", "g", acks, err)) << err;
  ASSERT_EQ(acks.size(), 1u); // the second replaced the first
  EXPECT_EQ(acks[0].runId, two);
  EXPECT_EQ(acks[0].note, "new tiles, checked");
  ASSERT_TRUE(h.acknowledgements("cublaslt", "cublaslt_g", acks, err)) << err;
  EXPECT_TRUE(acks.empty());
}

TEST_F(HistoryTest, MissingFileIsCreatedOnlyWhenAsked) {
  const std::string err = expectRefused(pathOf("none.sqlite"));
  EXPECT_NE(err.find("no such history"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(pathOf("none.sqlite")));
  const std::string empty = writeRaw("empty.sqlite", "");
  History h;
  std::string e;
  EXPECT_TRUE(h.open(empty, /*create=*/true, e)) << e;
}

TEST_F(HistoryTest, RefusesFilesThatAreNotAHistory) {
  EXPECT_NE(expectRefused(writeRaw("text.sqlite", "hello, world\n"))
                .find("not a kgen history database (not an SQLite file)"),
            std::string::npos);
  EXPECT_NE(expectRefused(writeRaw("short.sqlite", "SQL")).find("not an SQLite file"),
            std::string::npos);
  std::filesystem::create_directory(pathOf("folder"));
  EXPECT_NE(expectRefused(pathOf("folder"), true).find("not a regular file"),
            std::string::npos);
  // The header of SQLite, then garbage.
  std::string fake = std::string("SQLite format 3") + '\0' + std::string(4080, '\x5a');
  const std::string err = expectRefused(writeRaw("fake.sqlite", fake), true);
  EXPECT_NE(err.find("corrupt or not a database"), std::string::npos) << err;
}

#ifdef KGEN_HAVE_SQLITE
void sqlExec(const std::string &path, const char *sql) {
  sqlite3 *db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
}

TEST_F(HistoryTest, RefusesForeignAndNewerDatabases) {
  const std::string foreign = pathOf("foreign.sqlite");
  sqlExec(foreign, "CREATE TABLE songs(title TEXT); INSERT INTO songs VALUES ('x');");
  EXPECT_NE(expectRefused(foreign, true).find("an SQLite file of another application"),
            std::string::npos);

  const std::string newer = pathOf("newer.sqlite");
  {
    History h;
    std::string err;
    ASSERT_TRUE(h.open(newer, true, err)) << err;
  }
  sqlExec(newer, "PRAGMA user_version = 2;");
  EXPECT_NE(expectRefused(newer).find("history schema version 2, this kgen-bench "
                                      "reads version 1"),
            std::string::npos);

  const std::string noMeta = pathOf("nometa.sqlite");
  sqlExec(noMeta, "CREATE TABLE meta(key TEXT, value TEXT); "
                  "PRAGMA application_id = 1801938286; PRAGMA user_version = 1;");
  EXPECT_NE(expectRefused(noMeta).find("no kgen.history schema"), std::string::npos);
}

// A history made before the acks table existed gets it when opened.
TEST_F(HistoryTest, OlderFilesGainTheAcksTable) {
  const std::string path = pathOf("h.sqlite");
  {
    History h;
    std::string err;
    ASSERT_TRUE(h.open(path, true, err)) << err;
    int64_t id = 0;
    ASSERT_TRUE(h.add(run("2026-12-01T01:00:00Z", 1.0), "", id, err)) << err;
  }
  sqlExec(path, "DROP TABLE acks;");
  History h;
  std::string err;
  ASSERT_TRUE(h.open(path, false, err)) << err;
  EXPECT_TRUE(h.acknowledge("kgen", "g", 1, "", err)) << err;
}

TEST_F(HistoryTest, RefusesACorruptedHistory) {
  const std::string path = pathOf("h.sqlite");
  {
    History h;
    std::string err;
    ASSERT_TRUE(h.open(path, true, err)) << err;
    for (int i = 0; i < 20; ++i) {
      int64_t id = 0;
      ASSERT_TRUE(h.add(run("2026-12-01T02:00:00Z", 2.0 + i), "", id, err)) << err;
    }
  }
  sqlExec(path, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode = DELETE;");
  std::string bytes = readRaw(path);
  ASSERT_GT(bytes.size(), 8192u);
  // Every page after the first overwritten: the schema page survives, the
  // tables do not.
  for (size_t i = 4096; i < bytes.size(); ++i)
    bytes[i] = static_cast<char>(0xA5);
  writeRaw("h.sqlite", bytes);
  History h;
  std::string err;
  bool ok = h.open(path, false, err);
  std::vector<HistoryRun> runs;
  if (ok)
    ok = h.list(runs, err);
  EXPECT_FALSE(ok);
  EXPECT_NE(err.find("corrupt or not a database"), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
}
#endif

// Two processes adding at once: every run kept, none twice.
TEST_F(HistoryTest, ConcurrentAddsFromTwoProcesses) {
  const std::string path = pathOf("h.sqlite");
  constexpr int kRuns = 25;
  auto addMany = [&](int offset) {
    History h;
    std::string err;
    if (!h.open(path, true, err))
      return false;
    for (int i = 0; i < kRuns; ++i) {
      int64_t id = 0;
      if (!h.add(run("2026-12-01T02:00:00Z", 1.0 + offset + i), "", id, err))
        return false;
    }
    return true;
  };
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0)
    ::_exit(addMany(1000) ? 0 : 1);
  EXPECT_TRUE(addMany(0));
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  History h;
  std::string err;
  ASSERT_TRUE(h.open(path, false, err)) << err;
  std::vector<SeriesPoint> points;
  ASSERT_TRUE(h.series("kgen", "g", points, err)) << err;
  ASSERT_EQ(points.size(), 2u * kRuns);
  std::set<double> medians;
  for (const SeriesPoint &p : points)
    medians.insert(*p.medianMs);
  EXPECT_EQ(medians.size(), 2u * kRuns);
}

TEST(HistoryPathTest, DefaultPath) {
  ::setenv("KGEN_HISTORY_DB", "/x/h.sqlite", 1);
  EXPECT_EQ(defaultHistoryPath(), "/x/h.sqlite");
  ::unsetenv("KGEN_HISTORY_DB");
  ::setenv("XDG_DATA_HOME", "/data", 1);
  EXPECT_EQ(defaultHistoryPath(), "/data/kgen/history.sqlite");
  ::unsetenv("XDG_DATA_HOME");
}

} // namespace
