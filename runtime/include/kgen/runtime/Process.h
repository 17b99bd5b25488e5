//===- Process.h - run another program and read what it printed -*- C++ -*-===//
//
// For the tools that drive other programs (kgen-tune campaign drives
// sbatch, squeue, scancel and kgen-bench): argv is passed as is, never
// through a shell, so names in it are never interpreted.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_PROCESS_H
#define KGEN_RUNTIME_PROCESS_H

#include <string>
#include <vector>

namespace kgen::rt {

struct ProcessResult {
  bool started = false;  // false: the program could not be run (see error)
  int exitCode = -1;     // its exit status; -1 when killed by a signal
  int signal = 0;        // the signal that killed it, 0 if none
  std::string out;       // what it wrote to stdout (capture only)
  std::string errText;   // what it wrote to stderr (capture only)
  std::string error;     // why it could not be run

  bool ok() const { return started && exitCode == 0; }
  /// "exit 3", "killed by signal 9", or the start error: for messages.
  std::string describe() const;
};

enum class Output {
  Capture, // stdout and stderr read into `out` and `errText` (at most
           // kMaxCapturedBytes each; more is read and dropped)
  Inherit, // both go where this process's go
};

constexpr size_t kMaxCapturedBytes = 16u << 20;

/// Runs argv[0] (searched on PATH when it has no '/') with argv, waits for
/// it and returns what happened. Precondition: argv non-empty.
ProcessResult runProcess(const std::vector<std::string> &argv,
                         Output output = Output::Capture);

/// The path of the running executable (/proc/self/exe), "" if unknown: a
/// tool re-runs itself through it.
std::string selfExecutable();

} // namespace kgen::rt

#endif // KGEN_RUNTIME_PROCESS_H
