//===- select-db.cpp - fuzz strategy selection from a tuning database -----===//
//
// The input is a tuning database file (docs/tuning-db.md) given to
// kgen-select-strategy as `db=` on sm_90a; the strategies it picks for two
// gemms (GemmModule.h: one with an exact entry in the seeds, one with only a
// nearest shape; stale or missing entries fall to the cost model) are then
// lowered to tile kernels. The reader alone is tuning-db.cpp's.
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"
#include "GemmModule.h"
#include "MlirHarness.h"

#include "kgen/runtime/TuningDb.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string path = kgen::fuzz::writeScratch(
      "db.json", {reinterpret_cast<const char *>(data), size});
  // A database the reader refuses only costs the pass a warning and leaves
  // both gemms to the cost model (slow here); tuning-db.cpp covers those.
  kgen::rt::TuningDb db;
  std::string err;
  if (!kgen::rt::readTuningDb(path, db, err))
    return -1;
  auto context = kgen::fuzz::makeContext();
  auto module = kgen::fuzz::parseModule(*context, kgen::fuzz::kDbGemms);
  KGEN_FUZZ_CHECK(module, "GemmModule.h parses");
  kgen::fuzz::GemmPath gemmPath;
  gemmPath.fuse = false;
  gemmPath.databases = {path};
  (void)kgen::fuzz::runGemmPath(*module, gemmPath);
  return 0;
}
