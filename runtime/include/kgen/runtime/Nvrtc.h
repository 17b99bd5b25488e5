//===- Nvrtc.h - compile CUDA with NVRTC, with a disk cache -----*- C++ -*-===//
//
// Needs the CUDA toolkit's NVRTC library but no GPU and no driver.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_NVRTC_H
#define KGEN_RUNTIME_NVRTC_H

#include "kgen/runtime/Package.h"

#include <string>
#include <vector>

namespace kgen::rt {

struct CompileOptions {
  std::string arch = "sm_90a";           // -arch=<arch>; sm_90a etc. give SASS
  std::vector<std::string> includeDirs;  // empty: defaultCudaIncludeDirs()
  std::vector<std::string> extraOptions; // e.g. "-DNDEBUG", "--use_fast_math"
  std::string cacheDir;                  // empty: no cache
};

struct CompileResult {
  std::vector<char> cubin;
  std::string log;             // NVRTC program log, with the ptxas report
  ResourceUsage resources;     // parsed from the log for the entry kernel
                               // (compilePackage: the worst of its kernels)
  std::vector<ResourceUsage> perKernel; // compilePackage: each kernel's
  std::string cacheKey;        // sha256 of source, name, arch, options, NVRTC version
  bool fromCache = false;
  double compileMs = 0;
};

/// "13.0" for the linked NVRTC.
std::string nvrtcVersionString();

/// <cuda>/include and <cuda>/include/cccl (CUDA 13 moved cuda/std there),
/// with <cuda> from $CUDA_HOME, $CUDA_PATH or /usr/local/cuda.
std::vector<std::string> defaultCudaIncludeDirs();

/// Compiles `source` (named `name` in messages) to a cubin for
/// `options.arch` with `-std=c++17 --ptxas-options=-v` and the include
/// dirs, and reads the resource report of kernel `entry` into
/// result.resources. With a cache dir, a hit returns the stored cubin and
/// log; a miss compiles and stores them atomically (concurrent compilers of
/// the same key are safe). False on a compile error, with the log in `err`.
bool compileCuda(const std::string &source, const std::string &name,
                 const std::string &entry, const CompileOptions &options,
                 CompileResult &result, std::string &err);

/// compileCuda for a package: its source, named by its source file, with
/// the report of every kernel of the package in result.perKernel and their
/// worst case (worstOf) in result.resources. False when it does not compile
/// or the report lacks one of the kernels.
bool compilePackage(const KernelPackage &pkg, const CompileOptions &options,
                    CompileResult &result, std::string &err);

/// One package's compilation by compilePackages.
struct PackageCompile {
  bool ok = false;
  CompileResult result;
  std::string error; // why it did not compile (the log), when !ok
};

/// compilePackage of packages[i] with options[i] (as many options as
/// packages) on `jobs` threads (0: one per hardware thread; never more
/// threads than packages): a search's candidates compile at once, into the
/// cache the measurement then reads. NVRTC is thread-safe, and so is the
/// cache. One outcome per package, in order.
std::vector<PackageCompile>
compilePackages(const std::vector<const KernelPackage *> &packages,
                const std::vector<CompileOptions> &options, unsigned jobs);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_NVRTC_H
