//===- FileUtil.h - POSIX file helpers shared by the runtime ----*- C++ -*-===//
//
// Whole-file reads with a size limit, and atomic outputs: files and folders
// are written under a temporary name in the same folder and renamed into
// place on success. Temporaries in flight are registered, so that SIGINT,
// SIGTERM and SIGHUP remove them before the process dies, and the first
// write into a folder removes what dead processes left there. Messages in
// `err` are one line and do not name the file: callers prefix the path they
// were given.
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

/// Whether the last component of a path may be a symbolic link.
enum class Symlinks { Follow, Refuse };

/// Opens `path` read-only as a regular file, giving its descriptor and size
/// in bytes. Refuses directories ("is a directory"), FIFOs and devices
/// ("is not a regular file") without blocking, and with Symlinks::Refuse a
/// symbolic link ("is a symbolic link"; links in the folders above are
/// followed).
bool openRegularFile(const std::string &path, UniqueFd &fd, int64_t &size,
                     std::string &err, Symlinks symlinks = Symlinks::Follow);

/// Reads the whole regular file at `path` into `out`; refuses files larger
/// than `maxBytes` before reading them. `out` is unchanged on failure.
bool readWholeFile(const std::string &path, std::string &out, std::string &err,
                   int64_t maxBytes, Symlinks symlinks = Symlinks::Follow);

//===----------------------------------------------------------------------===//
// Temporaries and atomic outputs
//===----------------------------------------------------------------------===//

/// How many temporaries of one process the signal handler can remove; more
/// in flight at once still work and are still removed on failure, but an
/// interrupt may leave them for the next run's sweep.
constexpr size_t kMaxLiveTemporaries = 256;

/// A temporary file or folder that will replace `target`: named
/// `target + ".tmp.<pid>.<n>@<host>"`, a sibling of the target, so that the
/// final rename stays in one file system. While an object holds it, the
/// path is in the registry of live temporaries (removed on SIGINT, SIGTERM
/// and SIGHUP by the handlers installTemporaryCleanup installs); the
/// destructor removes it (a folder with everything in it) unless commit()
/// renamed it into place or release() gave it up.
class Temporary {
public:
  Temporary() = default;
  Temporary(Temporary &&other) noexcept;
  Temporary &operator=(Temporary &&other) noexcept;
  Temporary(const Temporary &) = delete;
  Temporary &operator=(const Temporary &) = delete;
  ~Temporary();

  /// Creates a new, empty file for `target` (mode 0644) and opens it for
  /// writing into `fd`. Unique among threads and processes (O_EXCL).
  bool createFile(const std::string &target, UniqueFd &fd, std::string &err);
  /// Creates a new, empty folder for `target` (mode 0755).
  bool createDirectory(const std::string &target, std::string &err);
  /// Registers a file created inside a temporary folder, so that an
  /// interrupt removes it before the folder. Removed with the folder.
  bool adoptFile(const std::string &path);

  /// Renames the temporary over `target` and makes the rename durable. A
  /// file replaces a file; a folder takes the place of a missing or empty
  /// folder, or is exchanged with a non-empty one (renameat2
  /// RENAME_EXCHANGE), which is then removed with everything in it. On
  /// failure the temporary is removed, `target` is untouched and `err`
  /// says why.
  bool commit(const std::string &target, std::string &err);
  /// Removes the temporary now (a folder with everything in it).
  void remove();
  /// Forgets the temporary without removing it.
  void release();

  const std::string &path() const { return tmpPath; }
  bool active() const { return !tmpPath.empty(); }

private:
  bool registerPath(const std::string &path, bool isDirectory);
  std::string tmpPath;
  bool isDirectory = false;
  std::vector<int> slots; // registry slots: the path, then adopted files
};

/// Installs the handlers of SIGINT, SIGTERM and SIGHUP that remove this
/// process's live temporaries, then let the signal do what it did before
/// (the previous handler is called; a default action ends the process).
/// A signal the process ignores is left alone. Idempotent and thread-safe;
/// creating the first temporary calls it.
void installTemporaryCleanup();

/// Removes the live temporaries this process registered, as the signal
/// handler does (async-signal-safe): files, then folders with everything
/// in them. For tests and for tools that end the process some other way.
void removeLiveTemporaries();

/// Removes, in `folder`, the temporaries (files or folders named as
/// Temporary names them, or `<name>.tmp.<pid>.<n>` from older versions)
/// left by processes of this host that no longer run. Other hosts' and
/// live processes' temporaries are left alone. Returns how many were
/// removed. Every Temporary::create* calls it once per folder and process.
size_t removeStaleTemporaries(const std::string &folder);

/// Writes the concatenation of `parts` to `path` atomically: a Temporary
/// file beside `path` is written, fsynced and renamed over `path`, so
/// readers (and a crash) see the old file or the whole new one. Safe for
/// concurrent writers of one path, in one process or several. On failure or
/// an interrupt the temporary file is removed, `path` is untouched, and
/// `err` starts with "cannot create temporary file", "cannot write" or
/// "cannot rename". A device, FIFO or socket (/dev/null, /dev/stdout on a
/// pipe), or any path under /dev or /proc, is written into directly, never
/// replaced; a symbolic link is replaced, not written through.
bool writeFileAtomic(const std::string &path,
                     const std::vector<std::string_view> &parts,
                     std::string &err);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_FILEUTIL_H
