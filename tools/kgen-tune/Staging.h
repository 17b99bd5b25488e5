//===- Staging.h - where kgen-tune --packages builds a gemm's packages -*- C++ -*-===//
//
// One temporary folder per gemm being packaged, beside DIR/gemm<i>, that
// replaces DIR/gemm<i> whole once its packages are built: a run leaves its
// own packages and nothing of an earlier run, and a failed or interrupted
// run leaves the earlier DIR/gemm<i> as it was. The folder is a
// kgen::rt::Temporary (FileUtil.h): removed on failure, on SIGINT, SIGTERM
// and SIGHUP (FileUtil's handler, with everything in it), and what a
// killed run left is removed by the next run's sweep of DIR.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_TOOLS_KGEN_TUNE_STAGING_H
#define KGEN_TOOLS_KGEN_TUNE_STAGING_H

#include "kgen/runtime/FileUtil.h"

#include <string>

namespace kgen::tune {

/// The staging folder of one gemm's packages.
class PackageStaging {
public:
  PackageStaging() = default;
  PackageStaging(const PackageStaging &) = delete;
  PackageStaging &operator=(const PackageStaging &) = delete;
  // Destruction removes the folder (with everything in it) unless commit()
  // succeeded: the Temporary's.

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

} // namespace kgen::tune

#endif // KGEN_TOOLS_KGEN_TUNE_STAGING_H
