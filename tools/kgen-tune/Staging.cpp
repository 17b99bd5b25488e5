//===- Staging.cpp - where kgen-tune --packages builds a gemm's packages --===//

#include "tools/kgen-tune/Staging.h"

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <iterator>
#include <mutex>

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

namespace kgen::tune {
namespace {

/// The staging folder in use, for the signal handler: a fixed buffer, set
/// before the folder is published in gActive.
char gPath[PATH_MAX];
std::atomic<bool> gActive{false};

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction gPrevious[std::size(kSignals)];

/// Removes `name` in the folder `parent` (a file, or a folder with
/// everything in it to `depth` more levels). Async-signal-safe.
bool removeAt(int parent, const char *name, int depth) {
  if (::unlinkat(parent, name, 0) == 0 || errno == ENOENT)
    return true;
  if (depth == 0)
    return false;
  const int fd =
      ::openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return false;
  // Entries removed while the folder is read may shift what later reads
  // return: read again until a pass removes nothing.
  alignas(8) char buffer[1024];
  for (bool removed = true; removed;) {
    removed = false;
    ::lseek(fd, 0, SEEK_SET);
    ssize_t n;
    while ((n = ::getdents64(fd, buffer, sizeof buffer)) > 0)
      for (ssize_t at = 0; at < n;) {
        const auto *entry = reinterpret_cast<const struct dirent64 *>(buffer + at);
        at += entry->d_reclen;
        if (std::strcmp(entry->d_name, ".") == 0 ||
            std::strcmp(entry->d_name, "..") == 0)
          continue;
        removed = removeAt(fd, entry->d_name, depth - 1) || removed;
      }
  }
  ::close(fd);
  return ::unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno == ENOENT;
}

void onSignal(int sig, siginfo_t *info, void *context) {
  const int savedErrno = errno;
  if (gActive.load(std::memory_order_acquire))
    (void)removeTreeSignalSafe(gPath);
  for (size_t i = 0; i < std::size(kSignals); ++i) {
    if (kSignals[i] != sig)
      continue;
    const struct sigaction &prev = gPrevious[i];
    if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction) {
      prev.sa_sigaction(sig, info, context);
    } else if (!(prev.sa_flags & SA_SIGINFO) && prev.sa_handler != SIG_DFL &&
               prev.sa_handler != SIG_IGN) {
      prev.sa_handler(sig);
    } else { // the default action, so that the exit status says which
      ::sigaction(sig, &prev, nullptr);
      ::raise(sig);
    }
  }
  errno = savedErrno;
}

/// Installs onSignal in front of the handlers there now (FileUtil's, once a
/// Temporary exists); signals the process ignores are left alone.
void installOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (size_t i = 0; i < std::size(kSignals); ++i) {
      struct sigaction current;
      if (::sigaction(kSignals[i], nullptr, &current) != 0 ||
          (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN))
        continue;
      gPrevious[i] = current;
      struct sigaction action;
      std::memset(&action, 0, sizeof action);
      action.sa_sigaction = onSignal;
      action.sa_flags = SA_SIGINFO | SA_RESTART;
      sigemptyset(&action.sa_mask);
      ::sigaction(kSignals[i], &action, nullptr);
    }
  });
}

} // namespace

bool removeTreeSignalSafe(const char *path) {
  return removeAt(AT_FDCWD, path, 16);
}

PackageStaging::~PackageStaging() {
  gActive.store(false, std::memory_order_release);
}

bool PackageStaging::create(const std::string &target, std::string &err) {
  if (!folder.createDirectory(target, err)) // sweeps stale ones first
    return false;
  if (folder.path().size() >= sizeof gPath) {
    err = "path too long: " + folder.path();
    folder.remove();
    return false;
  }
  gActive.store(false, std::memory_order_release);
  std::memcpy(gPath, folder.path().c_str(), folder.path().size() + 1);
  gActive.store(true, std::memory_order_release);
  installOnce(); // after the Temporary installed FileUtil's handlers
  return true;
}

bool PackageStaging::commit(const std::string &target, std::string &err) {
  // From here the folder is the target's, not debris.
  gActive.store(false, std::memory_order_release);
  return folder.commit(target, err);
}

} // namespace kgen::tune
