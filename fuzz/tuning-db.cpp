//===- tuning-db.cpp - fuzz the tuning database reader --------------------===//
//
// The input is a tuning database file (docs/tuning-db.md), read with
// readTuningDb. A database it accepts must be written back by writeTuningDb
// (which refuses what the reader would) and read again to the same JSON;
// best(), canonical keys, find() and merge() must work on it.
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"

#include "kgen/runtime/TuningDb.h"

using namespace kgen::rt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string path = kgen::fuzz::writeScratch(
      "db.json", {reinterpret_cast<const char *>(data), size});
  TuningDb db;
  std::string err;
  if (!readTuningDb(path, db, err)) {
    KGEN_FUZZ_CHECK(err.rfind(path, 0) == 0, "the message names the file: " + err);
    return 0;
  }
  for (const TuningEntry &entry : db.entries) {
    (void)entry.best();
    (void)entry.key.canonical();
    KGEN_FUZZ_CHECK(db.find(entry.key) != nullptr, "an entry's key is found");
    (void)entry.key.sameOpAndTarget(db.entries.front().key);
    (void)entry.key.sameToolchain(db.entries.front().key);
  }
  const std::string again = kgen::fuzz::scratchDir() + "/db-again.json";
  KGEN_FUZZ_CHECK(writeTuningDb(again, db, err), err);
  TuningDb reread;
  KGEN_FUZZ_CHECK(readTuningDb(again, reread, err), err);
  KGEN_FUZZ_CHECK(kgen::fuzz::jsonText(toJson(reread)) ==
                      kgen::fuzz::jsonText(toJson(db)),
                  "a database written reads back the same");

  TuningDb merged = db;
  merged.merge(reread);
  merged.merge(TuningDb{});
  for (const TuningEntry &entry : db.entries)
    KGEN_FUZZ_CHECK(merged.find(entry.key) != nullptr, "merging keeps every key");
  return 0;
}
