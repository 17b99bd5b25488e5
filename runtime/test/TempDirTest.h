//===- TempDirTest.h - a test fixture with a fresh temporary folder -*- C++ -*-===//
#ifndef KGEN_RUNTIME_TEST_TEMPDIRTEST_H
#define KGEN_RUNTIME_TEST_TEMPDIRTEST_H

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace kgen::rt::test {

/// Each test gets its own folder `dir` under the test temp dir, removed
/// (with everything in it) after the test.
class TempDirTest : public testing::Test {
protected:
  void SetUp() override {
    std::string pattern = testing::TempDir() + "kgen-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }

  std::string pathOf(const std::string &name) const { return dir + "/" + name; }

  /// Writes `bytes` to pathOf(name) and returns that path.
  std::string writeRaw(const std::string &name, const std::string &bytes) {
    std::ofstream(pathOf(name), std::ios::binary) << bytes;
    return pathOf(name);
  }

  /// The names in `dir`, sorted.
  std::vector<std::string> listDir() const {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto &entry : std::filesystem::directory_iterator(dir, ec))
      names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  static std::string readRaw(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  std::string dir;
};

} // namespace kgen::rt::test

#endif // KGEN_RUNTIME_TEST_TEMPDIRTEST_H
