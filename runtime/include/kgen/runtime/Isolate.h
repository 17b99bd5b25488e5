//===- Isolate.h - run work in a child process ------------------*- C++ -*-===//
//
// A candidate kernel may fault (illegal address, misaligned access: a sticky
// CUDA error that poisons the whole context) or hang. Each candidate
// therefore runs in a forked child; the parent survives and reports.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_ISOLATE_H
#define KGEN_RUNTIME_ISOLATE_H

#include <functional>
#include <string>

namespace kgen::rt {

struct ChildOutcome {
  enum class Kind { Exited, Signaled, TimedOut, SpawnFailed };
  Kind kind = Kind::SpawnFailed;
  int exitCode = -1;     // Exited
  int signal = 0;        // Signaled
  std::string output;    // everything the child wrote to its result fd
  std::string error;     // SpawnFailed: why; otherwise a readable summary

  bool ok() const { return kind == Kind::Exited && exitCode == 0; }
};

/// What a child's time limit counts from.
enum class Deadline {
  Total,       // the child's start: the whole run
  SinceOutput, // the child's last write to its result fd: a child working
               // through a list reports each item, and only an item that
               // takes too long (a hang) gets it killed
};

/// Forks; the child runs `body(resultFd)` and exits with its return value
/// (an uncaught signal is reported as Signaled). The parent collects what the
/// child writes to `resultFd` and waits at most `timeoutSeconds` (counted as
/// `kind` says), then kills the child (SIGKILL) and reports TimedOut.
/// Precondition: no CUDA context exists in the parent yet if the child will
/// use CUDA (a forked child cannot use its parent's context): create CUDA
/// state in children only.
ChildOutcome runIsolated(const std::function<int(int resultFd)> &body,
                         double timeoutSeconds, Deadline kind = Deadline::Total);

/// Writes all of `data` to `fd` (retrying short writes); false on error.
bool writeAll(int fd, const std::string &data);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_ISOLATE_H
