//===- Nvrtc.cpp - compile CUDA with NVRTC, with a disk cache -------------===//
//
// NVRTC is reached only when a function here is called (nothing happens at
// static initialisation), so a binary that never compiles needs no working
// NVRTC at startup beyond the linked library.
//
// Cache layout, for a key K (the SHA-256 of everything that determines the
// output, see cacheKeyText):
//   <cacheDir>/K.cubin  the cubin bytes
//   <cacheDir>/K.log    "kgen-nvrtc-cache 1 <cubin bytes> <cubin sha256>\n"
//                       followed by NVRTC's program log
// The cubin is written before the log and the log's first line vouches for
// the cubin, so a reader that finds both consistent has a complete entry;
// anything else (missing, short, corrupt, another format) is a miss. Both
// files are written atomically, so concurrent compilers of one key are safe.
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/Nvrtc.h"

#include "kgen/runtime/FileUtil.h"
#include "kgen/runtime/PtxasReport.h"
#include "kgen/runtime/Sha256.h"

#include <nvrtc.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#ifndef KGEN_CUDA_HOME
#define KGEN_CUDA_HOME "/usr/local/cuda"
#endif

namespace kgen::rt {
namespace {

constexpr const char *kCacheFormat = "kgen-nvrtc-cache 1";
constexpr int64_t kMaxCubinBytes = int64_t{1} << 30;
constexpr int64_t kMaxLogBytes = int64_t{64} << 20;
constexpr std::string_view kElfMagic{"\x7f" "ELF", 4};

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

/// Destroys the NVRTC program it owns.
class Program {
public:
  Program() = default;
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;
  ~Program() {
    if (program)
      nvrtcDestroyProgram(&program);
  }
  nvrtcProgram *out() { return &program; }
  nvrtcProgram get() const { return program; }

private:
  nvrtcProgram program = nullptr;
};

/// The options NVRTC gets, in order: architecture, language, ptxas report,
/// include dirs, then the caller's extras.
std::vector<std::string> nvrtcOptions(const CompileOptions &options) {
  std::vector<std::string> out = {"--gpu-architecture=" + options.arch,
                                  "-std=c++17", "--ptxas-options=-v"};
  const std::vector<std::string> dirs = options.includeDirs.empty()
                                            ? defaultCudaIncludeDirs()
                                            : options.includeDirs;
  for (const std::string &dir : dirs)
    out.push_back("--include-path=" + dir);
  out.insert(out.end(), options.extraOptions.begin(),
             options.extraOptions.end());
  return out;
}

/// What the cache key hashes: every input as a length-prefixed field, so
/// that different inputs never give the same text. The options stay in the
/// order given (the last of two -D for one macro wins), so reordered
/// options are a miss, never a wrong hit.
std::string cacheKeyText(const std::string &source, const std::string &name,
                         const std::string &entry,
                         const std::vector<std::string> &nvrtcOpts) {
  std::string text = "kgen-nvrtc-cache-key 1\n";
  auto field = [&](const std::string &tag, const std::string &value) {
    text += tag + " " + std::to_string(value.size()) + ":" + value + "\n";
  };
  field("nvrtc", nvrtcVersionString());
  field("name", name);
  field("entry", entry);
  for (const std::string &opt : nvrtcOpts)
    field("option", opt);
  field("source", source);
  return text;
}

std::string programLog(nvrtcProgram program) {
  size_t size = 0;
  if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size == 0)
    return "";
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS)
    return "";
  while (!log.empty() && log.back() == '\0')
    log.pop_back();
  return log;
}

/// Runs NVRTC; on success fills result.cubin and result.log.
bool runNvrtc(const std::string &source, const std::string &name,
              const std::vector<std::string> &opts, CompileResult &result,
              std::string &err) {
  Program program;
  nvrtcResult rc = nvrtcCreateProgram(program.out(), source.c_str(),
                                      name.c_str(), 0, nullptr, nullptr);
  if (rc != NVRTC_SUCCESS) {
    err = name + ": nvrtcCreateProgram failed: " + nvrtcGetErrorString(rc);
    return false;
  }
  std::vector<const char *> argv;
  for (const std::string &opt : opts)
    argv.push_back(opt.c_str());
  rc = nvrtcCompileProgram(program.get(), static_cast<int>(argv.size()),
                           argv.data());
  result.log = programLog(program.get());
  if (rc != NVRTC_SUCCESS) {
    err = name + ": NVRTC compilation failed (" + nvrtcGetErrorString(rc) +
          "):\n" + result.log;
    return false;
  }
  size_t size = 0;
  rc = nvrtcGetCUBINSize(program.get(), &size);
  std::vector<char> cubin(size);
  if (rc == NVRTC_SUCCESS && size > 0)
    rc = nvrtcGetCUBIN(program.get(), cubin.data());
  if (rc != NVRTC_SUCCESS || size == 0) {
    err = name + ": NVRTC produced no cubin: " + nvrtcGetErrorString(rc);
    return false;
  }
  result.cubin = std::move(cubin);
  return true;
}

std::string cachePath(const std::string &dir, const std::string &key,
                      const char *extension) {
  return (std::filesystem::path(dir) / (key + extension)).string();
}

/// The first line of a cache log for `cubin`.
std::string cacheHeader(const std::vector<char> &cubin) {
  return std::string(kCacheFormat) + " " + std::to_string(cubin.size()) + " " +
         sha256Hex(std::string_view(cubin.data(), cubin.size())) + "\n";
}

/// Reads the entry for `key`; false (a miss) unless both files are there
/// and consistent.
bool loadFromCache(const std::string &dir, const std::string &key,
                   CompileResult &result) {
  std::string cubin, log, unused;
  if (!readWholeFile(cachePath(dir, key, ".log"), log, unused, kMaxLogBytes) ||
      !readWholeFile(cachePath(dir, key, ".cubin"), cubin, unused,
                     kMaxCubinBytes))
    return false;
  const size_t newline = log.find('\n');
  std::vector<char> bytes(cubin.begin(), cubin.end());
  if (newline == std::string::npos ||
      cubin.compare(0, kElfMagic.size(), kElfMagic) != 0 ||
      log.compare(0, newline + 1, cacheHeader(bytes)) != 0)
    return false;
  result.cubin = std::move(bytes);
  result.log = log.substr(newline + 1);
  return true;
}

bool storeInCache(const std::string &dir, const std::string &key,
                  const CompileResult &result, std::string &err) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    err = dir + ": cannot create the compile cache folder: " + ec.message();
    return false;
  }
  const std::string cubinPath = cachePath(dir, key, ".cubin");
  const std::string logPath = cachePath(dir, key, ".log");
  const std::string header = cacheHeader(result.cubin);
  if (!writeFileAtomic(
          cubinPath,
          {std::string_view(result.cubin.data(), result.cubin.size())}, err)) {
    err = cubinPath + ": " + err;
    return false;
  }
  if (!writeFileAtomic(logPath, {header, result.log}, err)) {
    err = logPath + ": " + err;
    return false;
  }
  return true;
}

} // namespace

std::string nvrtcVersionString() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
    return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<std::string> defaultCudaIncludeDirs() {
  std::string home;
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"}) {
    const char *value = std::getenv(var);
    if (value && *value) {
      home = value;
      break;
    }
  }
  if (home.empty()) {
    // The toolkit this library was built against, else the usual place.
    std::error_code ec;
    home = std::filesystem::is_directory(KGEN_CUDA_HOME "/include", ec)
               ? KGEN_CUDA_HOME
               : "/usr/local/cuda";
  }
  return {home + "/include", home + "/include/cccl"};
}

bool compileCuda(const std::string &source, const std::string &name,
                 const std::string &entry, const CompileOptions &options,
                 CompileResult &result, std::string &err) {
  const Clock::time_point start = Clock::now();
  if (options.arch.rfind("sm_", 0) != 0) {
    err = name + ": arch " + options.arch +
          " is not a real architecture (sm_XX): NVRTC gives a cubin only "
          "for those";
    return false;
  }
  const std::vector<std::string> opts = nvrtcOptions(options);
  CompileResult r;
  r.cacheKey = sha256Hex(cacheKeyText(source, name, entry, opts));
  const bool useCache = !options.cacheDir.empty();
  r.fromCache = useCache && loadFromCache(options.cacheDir, r.cacheKey, r);
  if (!r.fromCache && !runNvrtc(source, name, opts, r, err))
    return false;
  if (!parsePtxasReport(r.log, entry, r.resources)) {
    err = name + ": the ptxas report has no kernel '" + entry +
          "' (is it an extern \"C\" __global__ function of that name?)";
    return false;
  }
  if (useCache && !r.fromCache &&
      !storeInCache(options.cacheDir, r.cacheKey, r, err))
    return false;
  r.compileMs = msSince(start);
  result = std::move(r);
  return true;
}

bool compilePackage(const KernelPackage &pkg, const CompileOptions &options,
                    CompileResult &result, std::string &err) {
  if (pkg.kernels.empty()) {
    err = pkg.name + ": the package has no kernel";
    return false;
  }
  if (!compileCuda(pkg.source, pkg.sourceFile, pkg.kernels.front().entry,
                   options, result, err))
    return false;
  result.perKernel.clear();
  for (const PackageKernel &kernel : pkg.kernels) {
    ResourceUsage usage;
    if (!parsePtxasReport(result.log, kernel.entry, usage)) {
      err = pkg.sourceFile + ": the ptxas report has no kernel '" +
            kernel.entry + "' (is it an extern \"C\" __global__ function of "
            "that name?)";
      return false;
    }
    result.perKernel.push_back(usage);
  }
  result.resources = worstOf(result.perKernel);
  return true;
}

std::vector<PackageCompile>
compilePackages(const std::vector<const KernelPackage *> &packages,
                const std::vector<CompileOptions> &options, unsigned jobs) {
  std::vector<PackageCompile> out(packages.size());
  if (options.size() != packages.size()) {
    for (PackageCompile &c : out)
      c.error = "compilePackages: " + std::to_string(options.size()) +
                " options for " + std::to_string(packages.size()) + " packages";
    return out;
  }
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < packages.size();)
      out[i].ok = compilePackage(*packages[i], options[i], out[i].result,
                                 out[i].error);
  };
  const size_t threads = std::min<size_t>(
      packages.size(),
      jobs > 0 ? jobs : std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t)
    pool.emplace_back(work);
  work(); // this thread is one of them
  for (std::thread &t : pool)
    t.join();
  return out;
}

} // namespace kgen::rt
