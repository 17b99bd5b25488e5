//===- Cli.h - kgen-bench's command line and tables -------------*- C++ -*-===//
//
// Host-only: parsing, the help text and the printed tables, kept out of the
// tool's main file so that tests can check them.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_CLI_H
#define KGEN_RUNTIME_CLI_H

#include "kgen/runtime/Results.h"
#include "kgen/runtime/TimingPolicy.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kgen::rt {

/// kgen-bench's exit codes (also in the help text).
enum ExitCode : int {
  kExitOk = 0,
  kExitKernelFailed = 1, // a kernel failed, faulted, timed out or was wrong
  kExitUsage = 2,        // bad options, missing or invalid inputs
  kExitNoDevice = 3,     // a run mode found no CUDA device
};

enum class Mode { Help, Run, Compile, Ceilings, Baseline, Report, Tune };

struct CliOptions {
  Mode mode = Mode::Help;
  std::vector<std::string> inputs; // packages (run, compile), files (report)
  std::string out;                 // --out
  std::string ceilings;            // --ceilings
  std::string suite;               // --suite
  std::string arch;                // --arch (compile; "" = package target)
  std::string cacheDir;            // --cache ("" = defaultCacheDir())
  double timeoutSeconds = 120;     // --timeout
  std::optional<uint64_t> seed;    // --seed (default: fresh per run)
  TimingPolicy timing;             // --min-samples --max-samples --target-ms
  std::string db;                  // --db (tune)
  double maxSeconds = 60;          // --max-seconds (tune)
  int batch = 8;                   // --batch (tune): packages per child
  int finalists = 3;               // --finalists (tune)
  int rounds = 3;                  // --rounds (tune)
  bool emulate = false;            // --emulate (run): the emulated device
  bool synthetic = false;          // --synthetic (tune, ceilings): stand-in
                                   // measurements, no GPU (labelled)
  double syntheticDelayMs = 0;     // --synthetic-delay-ms (tune --synthetic)
};

/// Parses argv[1..]: the mode first, then options and inputs in any order.
/// False with a one-line message (arguments in it escaped for the
/// terminal) on an unknown mode or option, an option given twice, a missing
/// or malformed value (--arch must pass isTargetName; times are finite and
/// at most a week; counts are plain digits), or inputs the mode does not
/// take or lacks. Every such error is a usage error (kExitUsage).
bool parseCli(const std::vector<std::string> &args, CliOptions &options,
              std::string &err);

/// The --help text, exit codes included.
const char *helpText();

/// $KGEN_CACHE_DIR, else $XDG_CACHE_HOME/kgen/nvrtc, else
/// $HOME/.cache/kgen/nvrtc, else "" (no cache).
std::string defaultCacheDir();

/// One row of `kgen-bench compile`.
struct CompileRow {
  std::string name, target;
  bool ok = false;
  ResourceUsage resources;
  uint32_t dynamicSmemBytes = 0;
  double compileMs = 0;
  bool cacheHit = false;
  std::string error; // first line of the log when !ok
};

/// Columns: name, target, registers, shared memory (static + dynamic),
/// stack, spill stores/loads, compile ms, cache hit (or the error). Names,
/// targets and errors are escaped (escapeForTerminal): one row per line.
std::string formatCompileTable(const std::vector<CompileRow> &rows);

/// Columns: implementation, name, status, median and IQR (ms), samples,
/// TFLOP/s, GB/s, best fraction of a ceiling, speedup over the baseline;
/// reasons of failures below the table, their first 20 lines, the second
/// and later indented by four spaces. Every string from the results is
/// escaped (escapeForTerminal), so a results file can neither send escape
/// sequences to the terminal nor print a line that looks like a row.
std::string formatResultsTable(const std::vector<KernelResult> &results);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_CLI_H
