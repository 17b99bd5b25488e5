//===- FileUtil.cpp - POSIX file helpers shared by the runtime -----------===//

#include "kgen/runtime/FileUtil.h"

#include <atomic>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
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
                     std::string &err) {
  // O_NONBLOCK keeps a FIFO from blocking the open; it is then refused below.
  fd.reset(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (fd.get() < 0) {
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
                   int64_t maxBytes) {
  UniqueFd fd;
  int64_t size = 0;
  if (!openRegularFile(path, fd, size, err))
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

namespace {

/// Creates a new, empty file next to `path` that no other writer uses, named
/// `path + ".tmp.<pid>.<n>"`; the process-wide counter n keeps threads apart
/// and O_EXCL steps over leftovers of a dead process with the same pid.
bool createTemporary(const std::string &path, UniqueFd &fd,
                     std::string &tmpPath, std::string &err) {
  static std::atomic<uint64_t> counter{0};
  constexpr int kAttempts = 100;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    tmpPath = path + ".tmp." + std::to_string(::getpid()) + "." +
              std::to_string(counter.fetch_add(1));
    const int raw = ::open(tmpPath.c_str(),
                           O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (raw >= 0) {
      fd.reset(raw);
      return true;
    }
    if (errno != EEXIST)
      break;
  }
  err = "cannot create temporary file " + tmpPath + ": " + errnoText();
  return false;
}

/// Makes a completed rename durable; best effort, as some file systems
/// refuse fsync on a directory.
void syncParentDirectory(const std::string &path) {
  const size_t slash = path.rfind('/');
  const std::string parent =
      slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  UniqueFd dir(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() >= 0)
    ::fsync(dir.get());
}

} // namespace

bool writeFileAtomic(const std::string &path,
                     const std::vector<std::string_view> &parts,
                     std::string &err) {
  UniqueFd fd;
  std::string tmpPath;
  if (!createTemporary(path, fd, tmpPath, err))
    return false;
  bool written = true;
  for (std::string_view part : parts)
    written = written && writeFully(fd.get(), part.data(), part.size());
  written = written && ::fsync(fd.get()) == 0;
  written = written && fd.close();
  if (!written) {
    err = "cannot write " + tmpPath + ": " + errnoText();
  } else if (::rename(tmpPath.c_str(), path.c_str()) != 0) {
    err = "cannot rename " + tmpPath + " over it: " + errnoText();
    written = false;
  }
  if (!written) {
    ::unlink(tmpPath.c_str());
    return false;
  }
  syncParentDirectory(path);
  return true;
}

} // namespace kgen::rt
