//===- FileUtil.h - POSIX file helpers shared by the runtime ----*- C++ -*-===//
//
// Whole-file reads with a size limit and atomic whole-file writes, over raw
// POSIX descriptors. Messages in `err` are one line and do not name the
// file: callers prefix the path they were given.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_FILEUTIL_H
#define KGEN_RUNTIME_FILEUTIL_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kgen::rt {

/// Owns a file descriptor (-1: none) and closes it on destruction.
class UniqueFd {
public:
  explicit UniqueFd(int descriptor = -1) : fd(descriptor) {}
  UniqueFd(const UniqueFd &) = delete;
  UniqueFd &operator=(const UniqueFd &) = delete;
  ~UniqueFd();
  int get() const { return fd; }
  /// Closes the descriptor held, if any, and takes ownership of `descriptor`.
  void reset(int descriptor);
  /// Closes now, reporting the result (close can report a failed write).
  bool close();

private:
  int fd;
};

/// strerror(errno).
std::string errnoText();

/// Reads exactly `n` bytes. Returns false on an error or end of file; errno
/// is 0 for the latter.
bool readFully(int fd, void *buf, size_t n);

/// Writes exactly `n` bytes. Returns false with errno set on an error.
bool writeFully(int fd, const void *buf, size_t n);

/// Opens `path` read-only as a regular file, giving its descriptor and size
/// in bytes. Refuses directories ("is a directory"), FIFOs and devices
/// ("is not a regular file") without blocking.
bool openRegularFile(const std::string &path, UniqueFd &fd, int64_t &size,
                     std::string &err);

/// Reads the whole regular file at `path` into `out`; refuses files larger
/// than `maxBytes`. `out` is unchanged on failure.
bool readWholeFile(const std::string &path, std::string &out, std::string &err,
                   int64_t maxBytes);

/// Writes the concatenation of `parts` to `path` atomically: a new temporary
/// file `path + ".tmp.<pid>.<n>"` in the same folder is written, fsynced and
/// renamed over `path`, so readers (and a crash) see the old file or the
/// whole new one. Safe for concurrent writers of one path, in one process or
/// several. On failure the temporary file is removed, `path` is untouched,
/// and `err` starts with "cannot create temporary file", "cannot write" or
/// "cannot rename".
bool writeFileAtomic(const std::string &path,
                     const std::vector<std::string_view> &parts,
                     std::string &err);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_FILEUTIL_H
