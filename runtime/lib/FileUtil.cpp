//===- FileUtil.cpp - POSIX file helpers shared by the runtime -----------===//
//
// The registry of live temporaries is a fixed array of slots, so that a
// signal handler can walk it: a slot is claimed by a compare-and-swap,
// filled, then published; the handler only reads published slots of its
// own process (children forked by the runtime inherit the array, and must
// not remove their parent's files when they are killed).
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/FileUtil.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h> // renameat2
#include <sys/stat.h>
#include <unistd.h>

namespace kgen::rt {

UniqueFd::~UniqueFd() {
  if (fd >= 0)
    ::close(fd);
}

void UniqueFd::reset(int descriptor) {
  if (fd >= 0)
    ::close(fd);
  fd = descriptor;
}

bool UniqueFd::close() {
  const int rc = ::close(fd);
  fd = -1;
  return rc == 0;
}

std::string errnoText() { return std::strerror(errno); }

bool readFully(int fd, void *buf, size_t n) {
  auto *p = static_cast<char *>(buf);
  while (n > 0) {
    errno = 0;
    const ssize_t got = ::read(fd, p, n);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return false;
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

bool writeFully(int fd, const void *buf, size_t n) {
  const auto *p = static_cast<const char *>(buf);
  while (n > 0) {
    const ssize_t put = ::write(fd, p, n);
    if (put < 0 && errno == EINTR)
      continue;
    if (put < 0)
      return false;
    p += put;
    n -= static_cast<size_t>(put);
  }
  return true;
}

bool openRegularFile(const std::string &path, UniqueFd &fd, int64_t &size,
                     std::string &err, Symlinks symlinks) {
  // O_NONBLOCK keeps a FIFO from blocking the open; it is then refused below.
  int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;
  if (symlinks == Symlinks::Refuse)
    flags |= O_NOFOLLOW;
  fd.reset(::open(path.c_str(), flags));
  if (fd.get() < 0) {
    if (errno == ELOOP && symlinks == Symlinks::Refuse) {
      struct stat st;
      if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
        err = "is a symbolic link (refused: it may point outside its folder)";
        return false;
      }
    }
    err = "cannot open: " + errnoText();
    return false;
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) {
    err = "cannot stat: " + errnoText();
    return false;
  }
  if (S_ISDIR(st.st_mode)) {
    err = "is a directory, not a file";
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    err = "is not a regular file";
    return false;
  }
  size = st.st_size;
  return true;
}

bool readWholeFile(const std::string &path, std::string &out, std::string &err,
                   int64_t maxBytes, Symlinks symlinks) {
  UniqueFd fd;
  int64_t size = 0;
  if (!openRegularFile(path, fd, size, err, symlinks))
    return false;
  if (size > maxBytes) {
    err = "file of " + std::to_string(size) + " bytes is larger than the limit of " +
          std::to_string(maxBytes) + " bytes";
    return false;
  }
  std::string text(static_cast<size_t>(size), '\0');
  if (!readFully(fd.get(), text.data(), text.size())) {
    err = "cannot read: " +
          (errno ? errnoText() : std::string("the file shrank while reading"));
    return false;
  }
  out = std::move(text);
  return true;
}

//===----------------------------------------------------------------------===//
// The registry of live temporaries
//===----------------------------------------------------------------------===//

namespace {

enum SlotState : int { kFree = 0, kFilling = 1, kLive = 2 };

struct Slot {
  std::atomic<int> state{kFree};
  pid_t owner = 0;
  bool isDirectory = false;
  char path[PATH_MAX];
};

Slot gSlots[kMaxLiveTemporaries];

static_assert(std::atomic<int>::is_always_lock_free,
              "the signal handler reads the registry without locks");

/// A slot holding `path`, or -1 when the path is too long or every slot
/// is taken.
int claimSlot(const std::string &path, bool isDirectory) {
  if (path.size() >= PATH_MAX)
    return -1;
  for (size_t i = 0; i < kMaxLiveTemporaries; ++i) {
    int expected = kFree;
    if (!gSlots[i].state.compare_exchange_strong(expected, kFilling))
      continue;
    Slot &s = gSlots[i];
    s.owner = ::getpid();
    s.isDirectory = isDirectory;
    std::memcpy(s.path, path.c_str(), path.size() + 1);
    s.state.store(kLive, std::memory_order_release);
    return static_cast<int>(i);
  }
  return -1;
}

void freeSlot(int slot) {
  if (slot >= 0)
    gSlots[slot].state.store(kFree, std::memory_order_release);
}

//===----------------------------------------------------------------------===//
// Signal handlers
//===----------------------------------------------------------------------===//

/// How deep a temporary folder's removal from a signal handler goes.
constexpr int kMaxRemovalDepth = 16;

/// Removes `name` in the folder `parent`: a file, or a folder with
/// everything in it to `depth` more levels. Async-signal-safe (openat,
/// getdents64, unlinkat). True when nothing is left.
bool removeTreeAt(int parent, const char *name, int depth) {
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
        removed = removeTreeAt(fd, entry->d_name, depth - 1) || removed;
      }
  }
  ::close(fd);
  return ::unlinkat(parent, name, AT_REMOVEDIR) == 0 || errno == ENOENT;
}

constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction gPrevious[sizeof kCleanupSignals / sizeof kCleanupSignals[0]];

void cleanupHandler(int sig, siginfo_t *info, void *context) {
  const int savedErrno = errno;
  removeLiveTemporaries();
  for (size_t i = 0; i < std::size(kCleanupSignals); ++i) {
    if (kCleanupSignals[i] != sig)
      continue;
    const struct sigaction &prev = gPrevious[i];
    if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction) {
      prev.sa_sigaction(sig, info, context);
    } else if (!(prev.sa_flags & SA_SIGINFO) && prev.sa_handler != SIG_DFL &&
               prev.sa_handler != SIG_IGN) {
      prev.sa_handler(sig);
    } else {
      // The default action: die of the signal once this handler returns
      // (it is blocked until then), so the exit status says which.
      ::sigaction(sig, &prev, nullptr);
      ::raise(sig);
    }
  }
  errno = savedErrno;
}

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

/// This host's name as temporaries carry it: letters, digits and '-', at
/// most 32 of them ("host" when it has none).
const std::string &hostTag() {
  static const std::string tag = [] {
    char name[256] = {};
    std::string out;
    if (::gethostname(name, sizeof name - 1) == 0)
      for (const char *c = name; *c && out.size() < 32; ++c)
        if (std::isalnum(static_cast<unsigned char>(*c)) || *c == '-')
          out += *c;
    return out.empty() ? std::string("host") : out;
  }();
  return tag;
}

bool allDigits(std::string_view s) {
  return !s.empty() && s.size() <= 10 &&
         std::all_of(s.begin(), s.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

/// The pid and host of a temporary's file name
/// `<name>.tmp.<pid>.<n>@<host>`, or of what older versions wrote,
/// `<name>.tmp.<pid>.<n>` and `<name>.tmp.<pid>` (host ""); false for any
/// other name.
bool parseTemporaryName(std::string_view name, pid_t &pid,
                        std::string_view &host) {
  host = {};
  const size_t at = name.rfind('@');
  if (at != std::string_view::npos) {
    host = name.substr(at + 1);
    if (host.empty())
      return false;
    name = name.substr(0, at);
  }
  constexpr std::string_view kTmp = ".tmp.";
  // The last one or two dot-separated fields are numbers, after ".tmp.".
  std::string_view pidText;
  for (int fields = 1; fields <= 2; ++fields) {
    const size_t dot = name.rfind('.');
    if (dot == std::string_view::npos || !allDigits(name.substr(dot + 1)))
      return false;
    pidText = name.substr(dot + 1);
    name = name.substr(0, dot + 1); // keeps the '.'
    if (name.size() > kTmp.size() &&
        name.substr(name.size() - kTmp.size()) == kTmp)
      break;
    if (fields == 2)
      return false;
    name.remove_suffix(1);
  }
  if (!(name.size() > kTmp.size() &&
        name.substr(name.size() - kTmp.size()) == kTmp))
    return false;
  const long long value = std::stoll(std::string(pidText));
  if (value <= 0 || value > INT_MAX)
    return false;
  pid = static_cast<pid_t>(value);
  return true;
}

std::string parentOf(const std::string &path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

/// Sweeps the folder of `target` once per process.
void sweepOnce(const std::string &target) {
  static std::mutex mutex;
  static std::set<std::string> swept;
  const std::string folder = parentOf(target);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!swept.insert(folder).second)
      return;
  }
  (void)removeStaleTemporaries(folder);
}

/// Makes a completed rename durable; best effort, as some file systems
/// refuse fsync on a directory.
void syncParentDirectory(const std::string &path) {
  UniqueFd dir(::open(parentOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() >= 0)
    ::fsync(dir.get());
}

/// A fresh name for a temporary of `target`; the process-wide counter keeps
/// threads apart, O_EXCL or mkdir's EEXIST other processes.
std::string nextTemporaryName(const std::string &target) {
  static std::atomic<uint64_t> counter{0};
  return target + ".tmp." + std::to_string(::getpid()) + "." +
         std::to_string(counter.fetch_add(1)) + "@" + hostTag();
}

} // namespace

void installTemporaryCleanup() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (size_t i = 0; i < std::size(kCleanupSignals); ++i) {
      struct sigaction current;
      if (::sigaction(kCleanupSignals[i], nullptr, &current) != 0 ||
          (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN))
        continue;
      gPrevious[i] = current;
      struct sigaction action;
      std::memset(&action, 0, sizeof action);
      action.sa_sigaction = cleanupHandler;
      action.sa_flags = SA_SIGINFO | SA_RESTART;
      sigemptyset(&action.sa_mask);
      ::sigaction(kCleanupSignals[i], &action, nullptr);
    }
  });
}

void removeLiveTemporaries() {
  const pid_t self = ::getpid();
  // Files first, then the folders they were in (with whatever else is in
  // them: files a tool wrote there without adopting them).
  for (bool directories : {false, true})
    for (Slot &s : gSlots) {
      if (s.state.load(std::memory_order_acquire) != kLive ||
          s.owner != self || s.isDirectory != directories)
        continue;
      if (directories)
        (void)removeTreeAt(AT_FDCWD, s.path, kMaxRemovalDepth);
      else
        ::unlink(s.path);
    }
}

size_t removeStaleTemporaries(const std::string &folder) {
  DIR *dir = ::opendir(folder.c_str());
  if (!dir)
    return 0;
  std::vector<std::string> stale;
  while (const dirent *entry = ::readdir(dir)) {
    pid_t pid = 0;
    std::string_view host;
    if (!parseTemporaryName(entry->d_name, pid, host))
      continue;
    if (!host.empty() && host != hostTag())
      continue; // another machine's: its pids mean nothing here
    if (pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH)
      continue; // alive (EPERM: alive, someone else's)
    stale.push_back(entry->d_name);
  }
  ::closedir(dir);
  size_t removed = 0;
  for (const std::string &name : stale) {
    std::error_code ec;
    // remove_all does not follow symbolic links.
    if (std::filesystem::remove_all(folder + "/" + name, ec) > 0 && !ec)
      ++removed;
  }
  return removed;
}

//===----------------------------------------------------------------------===//
// Temporary
//===----------------------------------------------------------------------===//

Temporary::Temporary(Temporary &&other) noexcept
    : tmpPath(std::move(other.tmpPath)), isDirectory(other.isDirectory),
      slots(std::move(other.slots)) {
  other.tmpPath.clear();
  other.slots.clear();
}

Temporary &Temporary::operator=(Temporary &&other) noexcept {
  if (this != &other) {
    remove();
    tmpPath = std::move(other.tmpPath);
    isDirectory = other.isDirectory;
    slots = std::move(other.slots);
    other.tmpPath.clear();
    other.slots.clear();
  }
  return *this;
}

Temporary::~Temporary() { remove(); }

bool Temporary::registerPath(const std::string &path, bool directory) {
  installTemporaryCleanup();
  const int slot = claimSlot(path, directory);
  if (slot >= 0)
    slots.push_back(slot);
  return slot >= 0;
}

bool Temporary::createFile(const std::string &target, UniqueFd &fd,
                           std::string &err) {
  remove();
  sweepOnce(target);
  constexpr int kAttempts = 100;
  std::string name;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    name = nextTemporaryName(target);
    // Registered once it is ours (never a name another process holds); an
    // interrupt in between leaves it to the next run's sweep.
    const int raw = ::open(name.c_str(),
                           O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (raw >= 0) {
      fd.reset(raw);
      tmpPath = name;
      isDirectory = false;
      registerPath(name, false);
      return true;
    }
    if (errno != EEXIST)
      break;
  }
  err = "cannot create temporary file " + name + ": " + errnoText();
  return false;
}

bool Temporary::createDirectory(const std::string &target, std::string &err) {
  remove();
  sweepOnce(target);
  constexpr int kAttempts = 100;
  std::string name;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    name = nextTemporaryName(target);
    if (::mkdir(name.c_str(), 0755) == 0) {
      tmpPath = name;
      isDirectory = true;
      registerPath(name, true);
      return true;
    }
    if (errno != EEXIST)
      break;
  }
  err = "cannot create temporary folder " + name + ": " + errnoText();
  return false;
}

bool Temporary::adoptFile(const std::string &path) {
  return active() && isDirectory && registerPath(path, false);
}

bool Temporary::commit(const std::string &target, std::string &err) {
  if (!active()) {
    err = "cannot rename: no temporary to rename";
    return false;
  }
  if (::rename(tmpPath.c_str(), target.c_str()) != 0) {
    if (isDirectory && (errno == ENOTEMPTY || errno == EEXIST) &&
        ::renameat2(AT_FDCWD, tmpPath.c_str(), AT_FDCWD, target.c_str(),
                    RENAME_EXCHANGE) == 0) {
      // The old folder now has the temporary's name: remove it as one.
      remove();
      syncParentDirectory(target);
      return true;
    }
    err = "cannot rename " + tmpPath + " over it: " + errnoText();
    remove();
    return false;
  }
  release();
  syncParentDirectory(target);
  return true;
}

void Temporary::remove() {
  if (active()) {
    if (isDirectory) {
      std::error_code ec;
      std::filesystem::remove_all(tmpPath, ec);
    } else {
      ::unlink(tmpPath.c_str());
    }
  }
  release();
}

void Temporary::release() {
  for (int slot : slots)
    freeSlot(slot);
  slots.clear();
  tmpPath.clear();
}

//===----------------------------------------------------------------------===//
// Atomic files
//===----------------------------------------------------------------------===//

namespace {

/// True when `path` names something a rename must not replace: a device,
/// a FIFO or a socket (following links: /dev/stdout on a pipe), or anything
/// under /dev and /proc. Renaming over /dev/null as root makes it a plain
/// file for every process on the machine.
bool isSpecialOutput(const std::string &path) {
  if (path.rfind("/dev/", 0) == 0 || path.rfind("/proc/", 0) == 0)
    return true;
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) &&
         !S_ISDIR(st.st_mode);
}

/// Writes `parts` into the existing special file `path` (no temporary: a
/// device or a pipe has no old contents to keep).
bool writeSpecial(const std::string &path,
                  const std::vector<std::string_view> &parts,
                  std::string &err) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY));
  bool written = fd.get() >= 0;
  for (std::string_view part : parts)
    written = written && writeFully(fd.get(), part.data(), part.size());
  if (!written || !fd.close()) {
    err = "cannot write: " + errnoText();
    return false;
  }
  return true;
}

} // namespace

bool writeFileAtomic(const std::string &path,
                     const std::vector<std::string_view> &parts,
                     std::string &err) {
  if (isSpecialOutput(path))
    return writeSpecial(path, parts, err);
  UniqueFd fd;
  Temporary tmp;
  if (!tmp.createFile(path, fd, err))
    return false;
  bool written = true;
  for (std::string_view part : parts)
    written = written && writeFully(fd.get(), part.data(), part.size());
  written = written && ::fsync(fd.get()) == 0;
  written = written && fd.close();
  if (!written) {
    err = "cannot write " + tmp.path() + ": " + errnoText();
    return false; // ~Temporary removes it
  }
  return tmp.commit(path, err);
}

} // namespace kgen::rt
