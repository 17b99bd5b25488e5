//===- bench-cli.cpp - fuzz kgen-bench's command line ---------------------===//
//
// The input is kgen-bench's argv[1..], one argument per line (an argument
// ends at a NUL, as a C string would), parsed with parseCli
// (runtime/include/kgen/runtime/Cli.h). Accepted options must satisfy
// what the parser promises: a mode, positive limits, min <= max samples.
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"

#include "kgen/runtime/Cli.h"

using namespace kgen::rt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<std::string> args;
  const std::string text(reinterpret_cast<const char *>(data), size);
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    std::string arg = text.substr(start, end - start);
    arg.resize(std::min(arg.size(), arg.find('\0')));
    if (end < text.size() || !arg.empty())
      args.push_back(std::move(arg));
    start = end + 1;
  }
  CliOptions options;
  std::string err;
  if (!parseCli(args, options, err)) {
    KGEN_FUZZ_CHECK(!err.empty(), "a refusal says why");
    KGEN_FUZZ_CHECK(err.find('\n') == std::string::npos, "one line: " + err);
    return 0;
  }
  if (options.mode == Mode::Help)
    return 0;
  KGEN_FUZZ_CHECK(options.timeoutSeconds > 0, "--timeout is positive");
  KGEN_FUZZ_CHECK(options.timing.minSamples >= 1 &&
                      options.timing.minSamples <= options.timing.maxSamples,
                  "1 <= --min-samples <= --max-samples");
  KGEN_FUZZ_CHECK(options.maxSeconds > 0 && options.batch >= 1 &&
                      options.finalists >= 1 && options.rounds >= 0,
                  "tune's limits are positive");
  return 0;
}
