//===- FuzzUtil.h - helpers shared by kgen's libFuzzer harnesses -*- C++ -*-===//
//
// Readers that only take a path are fuzzed through a file: each process
// (libFuzzer's -jobs/-fork workers included) writes its inputs into a
// folder of its own under $TMPDIR, removed at exit. A harness states what
// must hold after a read with KGEN_FUZZ_CHECK: a failed check aborts, which
// libFuzzer reports as a crash with the input saved.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_FUZZ_FUZZUTIL_H
#define KGEN_FUZZ_FUZZUTIL_H

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <system_error>

#include <fcntl.h>
#include <filesystem>
#include <unistd.h>

namespace kgen::fuzz {

/// Aborts with a message naming the harness line: a property every input
/// must satisfy was broken.
#define KGEN_FUZZ_CHECK(cond, what)                                           \
  do {                                                                        \
    if (!(cond)) {                                                            \
      std::fprintf(stderr, "%s:%d: fuzz check failed: %s: %s\n", __FILE__,    \
                   __LINE__, #cond, std::string(what).c_str());               \
      std::abort();                                                           \
    }                                                                         \
  } while (false)

/// This process's scratch folder ($TMPDIR or /tmp), created on first use
/// and removed when the process exits normally.
inline const std::string &scratchDir() {
  static const std::string dir = [] {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") +
                          "/kgen-fuzz-" + std::to_string(::getpid()) + "-XXXXXX";
    if (!::mkdtemp(pattern.data())) {
      std::perror("kgen-fuzz: mkdtemp");
      std::abort();
    }
    static std::string removeAtExit = pattern;
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(removeAtExit, ec);
    });
    return pattern;
  }();
  return dir;
}

/// Replaces the file `name` in the scratch folder (or a subfolder, created)
/// by `bytes`; returns its path.
inline std::string writeScratch(const std::string &name, std::string_view bytes) {
  const std::filesystem::path path = std::filesystem::path(scratchDir()) / name;
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  std::filesystem::remove(path, ec); // a symlink or folder a previous input left
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::perror(("kgen-fuzz: " + path.string()).c_str());
    std::abort();
  }
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) {
      std::perror("kgen-fuzz: write");
      std::abort();
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  return path.string();
}

/// An empty subfolder `name` of the scratch folder (emptied if it exists).
inline std::string freshScratchDir(const std::string &name) {
  const std::filesystem::path path = std::filesystem::path(scratchDir()) / name;
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  std::filesystem::create_directories(path, ec);
  return path.string();
}

/// `j` on one line, invalid UTF-8 replaced: for comparing documents (NaN
/// numbers, unequal to themselves, print as null).
inline std::string jsonText(const nlohmann::json &j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace kgen::fuzz

#endif // KGEN_FUZZ_FUZZUTIL_H
