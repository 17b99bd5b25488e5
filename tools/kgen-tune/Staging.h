//===- Staging.h - where kgen-tune --packages builds a gemm's packages -*- C++ -*-===//
//
// One temporary folder per gemm being packaged, beside DIR/gemm<i>, that
// replaces DIR/gemm<i> whole once its packages are built: a run leaves its
// own packages and nothing of an earlier run, and a failed or interrupted
// run leaves the earlier DIR/gemm<i> as it was. The folder is a
// kgen::rt::Temporary (FileUtil.h): removed on failure, and what a killed
// run left is removed by the next run's sweep of DIR. On SIGINT, SIGTERM
// and SIGHUP the folder is removed with everything in it (FileUtil's
// handler only removes registered files and empty folders), with
// async-signal-safe calls, before the signal goes on to FileUtil's handler.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_TOOLS_KGEN_TUNE_STAGING_H
#define KGEN_TOOLS_KGEN_TUNE_STAGING_H

#include "kgen/runtime/FileUtil.h"

#include <string>

namespace kgen::tune {

/// The staging folder of one gemm's packages. One at a time per process.
class PackageStaging {
public:
  PackageStaging() = default;
  PackageStaging(const PackageStaging &) = delete;
  PackageStaging &operator=(const PackageStaging &) = delete;
  /// Removes the folder (with everything in it) unless commit() succeeded.
  ~PackageStaging();

  /// Creates the temporary folder for `target` (DIR/gemm<i>), first
  /// removing what dead runs left beside it.
  bool create(const std::string &target, std::string &err);
  /// The folder to build the packages in.
  const std::string &path() const { return folder.path(); }
  /// Puts the folder in place of `target` (the earlier one removed); on
  /// failure the folder is removed, `target` untouched.
  bool commit(const std::string &target, std::string &err);

private:
  kgen::rt::Temporary folder;
};

/// Removes `path`, a file or a folder with everything in it (to a depth of
/// 16), with async-signal-safe calls only (openat, getdents64, unlinkat).
/// True when nothing is left at `path`.
bool removeTreeSignalSafe(const char *path);

} // namespace kgen::tune

#endif // KGEN_TOOLS_KGEN_TUNE_STAGING_H
