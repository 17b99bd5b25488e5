//===- results.cpp - fuzz the results and ceilings reader -----------------===//
//
// The input is a results file (docs/results-schema.md; a ceilings file is
// one too), read with readResults as `kgen-bench report` and `--ceilings`
// do. A file it accepts must be written back by writeResults and read again
// to the same JSON, and kgen-bench's results table is printed from it.
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"

#include "kgen/runtime/Cli.h"
#include "kgen/runtime/Results.h"

using namespace kgen::rt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  const std::string path = kgen::fuzz::writeScratch("results.json", text);
  std::string err;
  ResultsFile file;
  if (!readResults(path, file, err)) {
    KGEN_FUZZ_CHECK(err.rfind(path, 0) == 0, "the message names the file: " + err);
    return 0;
  }
  (void)formatResultsTable(file.results);
  const std::string again = kgen::fuzz::scratchDir() + "/results-again.json";
  KGEN_FUZZ_CHECK(writeResults(again, file, err), err);
  ResultsFile reread;
  KGEN_FUZZ_CHECK(readResults(again, reread, err), err);
  KGEN_FUZZ_CHECK(kgen::fuzz::jsonText(toJson(reread)) ==
                      kgen::fuzz::jsonText(toJson(file)),
                  "results written read back the same");
  return 0;
}
