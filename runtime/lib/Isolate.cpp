//===- Isolate.cpp - run work in a child process --------------------------===//
//
// fork + pipe: the child runs the body with the pipe's write end and leaves
// with _exit (no atexit handlers or static destructors of the parent's state
// run twice); the parent reads the pipe until the child is gone, polling with
// a deadline, and SIGKILLs it when the deadline passes. The child is always
// reaped, so no zombie is left.
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/Isolate.h"

#include "kgen/runtime/FileUtil.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace kgen::rt {
namespace {

using Clock = std::chrono::steady_clock;

/// Exit code of a child whose body threw (EX_SOFTWARE of sysexits.h).
constexpr int kBodyThrewExitCode = 70;
/// Exit code of a child whose body returned a value outside [0, 255]: a
/// status the kernel would truncate (256 would read as success).
constexpr int kBadReturnExitCode = 255;
/// Output kept from a child; more is read (so the child never blocks on a
/// full pipe) but dropped.
constexpr size_t kMaxOutputBytes = size_t{64} << 20;
/// How long the parent waits on the open pipe before checking whether the
/// child exited anyway (a grandchild may hold the pipe open).
constexpr int kPipeWaitMs = 100;
/// How often the parent checks for the child's exit once the pipe closed.
constexpr int kReapPollMs = 2;
/// Longest timeout honoured, in seconds (about 30 years).
constexpr double kMaxTimeoutSeconds = 1e9;

/// In the child: runs the body and leaves, never returning into the caller's
/// stack.
[[noreturn]] void runChild(const std::function<int(int)> &body, int resultFd) {
  int code;
  try {
    code = body(resultFd);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "kgen isolate: the child's body threw: %s\n",
                 e.what());
    code = kBodyThrewExitCode;
  } catch (...) {
    std::fprintf(stderr, "kgen isolate: the child's body threw\n");
    code = kBodyThrewExitCode;
  }
  if (code < 0 || code > 255)
    code = kBadReturnExitCode;
  std::fflush(nullptr); // _exit does not flush stdio
  ::_exit(code);
}

/// Appends what is readable now from the non-blocking `fd` to `out` (up to
/// kMaxOutputBytes; the rest is dropped), adding the bytes read to `bytesRead`.
/// Returns false at end of file or on an error other than EAGAIN.
bool drainPipe(int fd, std::string &out, bool &truncated, size_t &bytesRead) {
  char buf[65536];
  while (true) {
    const ssize_t got = ::read(fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return errno == EAGAIN || errno == EWOULDBLOCK;
    if (got == 0)
      return false;
    bytesRead += static_cast<size_t>(got);
    const size_t keep =
        std::min(static_cast<size_t>(got), kMaxOutputBytes - out.size());
    out.append(buf, keep);
    truncated = truncated || keep < static_cast<size_t>(got);
  }
}

/// waitpid without blocking (hang == false) or blocking; true once `pid`
/// was reaped, its status in `status`.
bool reap(pid_t pid, int &status, bool hang) {
  while (true) {
    const pid_t r = ::waitpid(pid, &status, hang ? 0 : WNOHANG);
    if (r == pid)
      return true;
    if (r < 0 && errno == EINTR)
      continue;
    return false;
  }
}

std::string describeStatus(int status) {
  if (WIFEXITED(status))
    return "exited with code " + std::to_string(WEXITSTATUS(status));
  const int sig = WTERMSIG(status);
  const char *name = ::strsignal(sig);
  return "killed by signal " + std::to_string(sig) + " (" +
         (name ? name : "unknown") + ")";
}

/// "2.5 s".
std::string formatSeconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g s", seconds);
  return text;
}

ChildOutcome spawnFailed(const std::string &why) {
  ChildOutcome outcome;
  outcome.kind = ChildOutcome::Kind::SpawnFailed;
  outcome.error = why + ": " + errnoText();
  return outcome;
}

/// The parent's side: collects the output of child `pid` from `readFd` and
/// reaps it, killing it at `deadline`.
ChildOutcome superviseChild(pid_t pid, int readFd, Clock::time_point deadline,
                            double timeoutSeconds, Deadline kind) {
  const auto limit = deadline - Clock::now();
  ChildOutcome outcome;
  bool pipeOpen = true, truncated = false, timedOut = false;
  int status = 0;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - Clock::now());
    if (left.count() <= 0) {
      timedOut = true;
      ::kill(pid, SIGKILL);
      reap(pid, status, /*hang=*/true);
      break;
    }
    const int waitMs = static_cast<int>(std::min<int64_t>(
        left.count(), pipeOpen ? kPipeWaitMs : kReapPollMs));
    if (pipeOpen) {
      pollfd p{readFd, POLLIN, 0};
      if (::poll(&p, 1, waitMs) > 0) {
        // Bytes read, not kept: past the output cap a report still counts.
        size_t read = 0;
        pipeOpen = drainPipe(readFd, outcome.output, truncated, read);
        if (kind == Deadline::SinceOutput && read > 0)
          deadline = Clock::now() + limit;
      }
    } else {
      ::poll(nullptr, 0, waitMs); // sleeps
    }
    if (reap(pid, status, /*hang=*/false)) {
      size_t read = 0;
      drainPipe(readFd, outcome.output, truncated, read);
      break;
    }
  }
  const std::string note =
      truncated ? " (output beyond " + std::to_string(kMaxOutputBytes) +
                      " bytes dropped)"
                : "";
  if (timedOut) {
    outcome.kind = ChildOutcome::Kind::TimedOut;
    outcome.error = (kind == Deadline::SinceOutput
                         ? "reported nothing for " + formatSeconds(timeoutSeconds)
                         : "timed out after " + formatSeconds(timeoutSeconds)) +
                    " and was killed" + note;
  } else if (WIFEXITED(status)) {
    outcome.kind = ChildOutcome::Kind::Exited;
    outcome.exitCode = WEXITSTATUS(status);
    outcome.error = describeStatus(status) + note;
  } else {
    outcome.kind = ChildOutcome::Kind::Signaled;
    outcome.signal = WTERMSIG(status);
    outcome.error = describeStatus(status) + note;
  }
  return outcome;
}

} // namespace

ChildOutcome runIsolated(const std::function<int(int resultFd)> &body,
                         double timeoutSeconds, Deadline kind) {
  if (!body || !(timeoutSeconds > 0)) {
    ChildOutcome outcome;
    outcome.error = !body ? "no body to run"
                          : "timeout must be positive, got " +
                                formatSeconds(timeoutSeconds);
    return outcome;
  }
  const double seconds = std::min(timeoutSeconds, kMaxTimeoutSeconds);
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(seconds));
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return spawnFailed("cannot create a pipe");
  UniqueFd readEnd(fds[0]), writeEnd(fds[1]);
  std::fflush(nullptr); // or the child would write the parent's buffers too
  const pid_t pid = ::fork();
  if (pid < 0)
    return spawnFailed("cannot fork");
  if (pid == 0) {
    readEnd.close();
    runChild(body, writeEnd.get());
  }
  writeEnd.close(); // so the pipe reaches end of file when the child exits
  if (::fcntl(readEnd.get(), F_SETFL, O_NONBLOCK) != 0) {
    ::kill(pid, SIGKILL);
    int status;
    reap(pid, status, /*hang=*/true);
    return spawnFailed("cannot make the pipe non-blocking");
  }
  return superviseChild(pid, readEnd.get(), deadline, timeoutSeconds, kind);
}

bool writeAll(int fd, const std::string &data) {
  return writeFully(fd, data.data(), data.size());
}

} // namespace kgen::rt
