//===- Process.cpp - run another program and read what it printed ---------===//

#include "kgen/runtime/Process.h"

#include "kgen/runtime/FileUtil.h"

#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace kgen::rt {

std::string ProcessResult::describe() const {
  if (!started)
    return error;
  if (signal)
    return "killed by signal " + std::to_string(signal);
  return "exit " + std::to_string(exitCode);
}

std::string selfExecutable() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

namespace {

/// Reads both pipes until both are closed, keeping at most
/// kMaxCapturedBytes of each.
void drain(int outFd, int errFd, std::string &out, std::string &err) {
  pollfd fds[2] = {{outFd, POLLIN, 0}, {errFd, POLLIN, 0}};
  std::string *sinks[2] = {&out, &err};
  int open = 2;
  char buf[65536];
  while (open > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      return;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      const ssize_t n = read(fds[i].fd, buf, sizeof(buf));
      if (n > 0) {
        const size_t room = kMaxCapturedBytes - std::min(kMaxCapturedBytes, sinks[i]->size());
        sinks[i]->append(buf, std::min(room, static_cast<size_t>(n)));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open;
      }
    }
  }
}

} // namespace

ProcessResult runProcess(const std::vector<std::string> &argv, Output output) {
  ProcessResult result;
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);

  int outPipe[2] = {-1, -1}, errPipe[2] = {-1, -1};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (output == Output::Capture) {
    if (pipe2(outPipe, O_CLOEXEC) != 0 || pipe2(errPipe, O_CLOEXEC) != 0) {
      result.error = "cannot make a pipe: " + errnoText();
      for (int fd : {outPipe[0], outPipe[1], errPipe[0], errPipe[1]})
        if (fd >= 0)
          ::close(fd);
      posix_spawn_file_actions_destroy(&actions);
      return result;
    }
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], STDERR_FILENO);
  }
  pid_t pid = 0;
  const int rc = argv[0].find('/') == std::string::npos
                     ? posix_spawnp(&pid, args[0], &actions, nullptr,
                                    args.data(), environ)
                     : posix_spawn(&pid, args[0], &actions, nullptr,
                                   args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (output == Output::Capture) {
    ::close(outPipe[1]);
    ::close(errPipe[1]);
  }
  if (rc != 0) {
    result.error = "cannot run " + argv[0] + ": " + std::strerror(rc);
    if (output == Output::Capture) {
      ::close(outPipe[0]);
      ::close(errPipe[0]);
    }
    return result;
  }
  result.started = true;
  if (output == Output::Capture) {
    drain(outPipe[0], errPipe[0], result.out, result.errText);
    ::close(outPipe[0]);
    ::close(errPipe[0]);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status))
    result.exitCode = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    result.signal = WTERMSIG(status);
  return result;
}

} // namespace kgen::rt
