//===- NvrtcTest.cpp - Tests of NVRTC compilation and its cache -----------===//
//
// Needs the CUDA toolkit's NVRTC, no GPU.
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/Nvrtc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <thread>

using namespace kgen::rt;
namespace fs = std::filesystem;

namespace {

const std::string kNaiveGemm =
    std::string(KGEN_RUNTIME_TEST_DATA) + "/packages/naive_gemm_f32";

/// A small kernel without wgmma that uses the CCCL headers CUDA 13 keeps in
/// include/cccl.
const char *const kTinyKernel = R"(
#include <cuda/std/cstdint>
extern "C" __global__ void kgen_tiny(cuda::std::uint32_t *out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x * 3u;
}
)";

/// Each thread fills a large local array indexed at run time, which lives
/// in the stack frame.
const char *const kLocalArrayKernel = R"(
extern "C" __global__ void kgen_local_array(const float *in, float *out, int n) {
  float scratch[4096];
  for (int i = 0; i < 4096; ++i)
    scratch[(i * 7 + n) % 4096] = in[i];
  out[threadIdx.x] = scratch[(threadIdx.x * n) % 4096];
}
)";

bool isElf(const std::vector<char> &cubin) {
  return cubin.size() > 4 && std::string(cubin.data(), 4) == "\x7f" "ELF";
}

class NvrtcTest : public testing::Test {
protected:
  void SetUp() override {
    std::string pattern = testing::TempDir() + "kgen-nvrtc-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    cacheDir = pattern + "/cache";
    std::string err;
    ASSERT_TRUE(loadPackage(kNaiveGemm, gemm, err)) << err;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(fs::path(cacheDir).parent_path(), ec);
  }

  CompileResult compileGemm(const std::string &arch, bool cached) {
    CompileOptions options;
    options.arch = arch;
    if (cached)
      options.cacheDir = cacheDir;
    CompileResult result;
    std::string err;
    EXPECT_TRUE(compileCuda(gemm.source, gemm.sourceFile, gemm.kernels.at(0).entry, options,
                            result, err))
        << err;
    return result;
  }

  std::vector<std::string> cacheFiles() const {
    std::vector<std::string> names;
    for (const auto &entry : fs::directory_iterator(cacheDir))
      names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  KernelPackage gemm;
  std::string cacheDir;
};

TEST_F(NvrtcTest, CompilesTheNaiveGemmForAmpereAndHopper) {
  for (const char *arch : {"sm_80", "sm_90a"}) {
    const CompileResult r = compileGemm(arch, /*cached=*/false);
    EXPECT_TRUE(isElf(r.cubin)) << arch;
    EXPECT_GT(r.resources.registers, 0) << arch;
    EXPECT_EQ(r.resources.spillStoreBytes, 0) << arch;
    EXPECT_EQ(r.resources.spillLoadBytes, 0) << arch;
    EXPECT_EQ(r.resources.stackBytes, 0) << arch;
    EXPECT_NE(r.log.find("Compiling entry function 'kgen_naive_gemm_f32' for '" +
                         std::string(arch) + "'"),
              std::string::npos)
        << r.log;
    EXPECT_FALSE(r.fromCache);
    EXPECT_TRUE(std::regex_match(r.cacheKey, std::regex("[0-9a-f]{64}")));
    EXPECT_GT(r.compileMs, 0);
  }
  EXPECT_NE(compileGemm("sm_80", false).cacheKey,
            compileGemm("sm_90a", false).cacheKey);
}

TEST_F(NvrtcTest, CompilesTheFaultingPackage) {
  // Its store through a null pointer must survive compilation, so that it
  // faults on a GPU.
  KernelPackage faulting;
  std::string err;
  ASSERT_TRUE(loadPackage(std::string(KGEN_RUNTIME_TEST_DATA) +
                              "/packages/faulting_kernel",
                          faulting, err))
      << err;
  CompileOptions options;
  options.arch = faulting.target;
  CompileResult r;
  ASSERT_TRUE(compileCuda(faulting.source, faulting.sourceFile, faulting.kernels.at(0).entry,
                          options, r, err))
      << err;
  EXPECT_TRUE(isElf(r.cubin));
}

TEST_F(NvrtcTest, CompilesWithTheCcclHeaders) {
  CompileOptions options; // sm_90a
  CompileResult r;
  std::string err;
  ASSERT_TRUE(compileCuda(kTinyKernel, "tiny.cu", "kgen_tiny", options, r, err))
      << err;
  EXPECT_TRUE(isElf(r.cubin));
  EXPECT_GT(r.resources.registers, 0);
  EXPECT_EQ(r.resources.spillStoreBytes, 0);
}

TEST_F(NvrtcTest, ReportsStackOfALargeLocalArray) {
  CompileOptions options;
  options.arch = "sm_80";
  CompileResult r;
  std::string err;
  ASSERT_TRUE(compileCuda(kLocalArrayKernel, "local.cu", "kgen_local_array",
                          options, r, err))
      << err;
  EXPECT_GE(r.resources.stackBytes, 4096 * 4);
  EXPECT_GT(r.resources.stackBytes + r.resources.spillStoreBytes, 0);
}

TEST_F(NvrtcTest, SecondCompileHitsTheCache) {
  const CompileResult first = compileGemm("sm_90a", /*cached=*/true);
  ASSERT_FALSE(first.fromCache);
  EXPECT_EQ(cacheFiles(), (std::vector<std::string>{first.cacheKey + ".cubin",
                                                    first.cacheKey + ".log"}));
  const CompileResult second = compileGemm("sm_90a", /*cached=*/true);
  EXPECT_TRUE(second.fromCache);
  EXPECT_EQ(second.cubin, first.cubin);
  EXPECT_EQ(second.log, first.log);
  EXPECT_EQ(second.cacheKey, first.cacheKey);
  EXPECT_EQ(toJson(second.resources), toJson(first.resources));

  // Anything else that changes the output is another key.
  CompileOptions options;
  options.cacheDir = cacheDir;
  options.extraOptions = {"-DKGEN_UNUSED=1"};
  CompileResult other;
  std::string err;
  ASSERT_TRUE(compileCuda(gemm.source, gemm.sourceFile, gemm.kernels.at(0).entry, options,
                          other, err))
      << err;
  EXPECT_FALSE(other.fromCache);
  EXPECT_NE(other.cacheKey, first.cacheKey);
}

TEST_F(NvrtcTest, CorruptCacheEntriesAreMisses) {
  const CompileResult first = compileGemm("sm_80", /*cached=*/true);
  const std::string cubinPath = cacheDir + "/" + first.cacheKey + ".cubin";
  const std::string logPath = cacheDir + "/" + first.cacheKey + ".log";
  const std::vector<std::pair<std::string, std::string>> damage = {
      {cubinPath, std::string(first.cubin.data(), first.cubin.size() / 2)},
      {cubinPath, ""},
      {logPath, ""},
      {logPath, "not a cache log\n"},
  };
  for (const auto &[path, content] : damage) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
    const CompileResult again = compileGemm("sm_80", /*cached=*/true);
    EXPECT_FALSE(again.fromCache) << path << " <- " << content.size();
    EXPECT_EQ(again.cubin, first.cubin);
    // The entry was rewritten: the next compile hits.
    EXPECT_TRUE(compileGemm("sm_80", /*cached=*/true).fromCache);
  }
  // A cubin with the same length but other bytes.
  std::vector<char> flipped = first.cubin;
  flipped[flipped.size() / 2] ^= 1;
  std::ofstream(cubinPath, std::ios::binary | std::ios::trunc)
      .write(flipped.data(), static_cast<std::streamsize>(flipped.size()));
  EXPECT_FALSE(compileGemm("sm_80", /*cached=*/true).fromCache);

  fs::remove(logPath);
  EXPECT_FALSE(compileGemm("sm_80", /*cached=*/true).fromCache);
}

TEST_F(NvrtcTest, ConcurrentCompilersShareTheCache) {
  std::vector<CompileResult> results(4);
  std::vector<std::thread> threads;
  for (CompileResult &r : results)
    threads.emplace_back([&] { r = compileGemm("sm_80", /*cached=*/true); });
  for (std::thread &t : threads)
    t.join();
  for (const CompileResult &r : results)
    EXPECT_EQ(r.cubin, results[0].cubin);
  EXPECT_EQ(cacheFiles().size(), 2u); // no temporary files left
  EXPECT_TRUE(compileGemm("sm_80", /*cached=*/true).fromCache);
}

TEST_F(NvrtcTest, SyntaxErrorsGiveTheLog) {
  CompileOptions options;
  options.cacheDir = cacheDir;
  CompileResult r;
  std::string err;
  EXPECT_FALSE(compileCuda("extern \"C\" __global__ void k() { int x = ; }",
                           "broken.cu", "k", options, r, err));
  EXPECT_EQ(err.rfind("broken.cu: NVRTC compilation failed", 0), 0u) << err;
  EXPECT_NE(err.find("expected an expression"), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(cacheDir)); // nothing cached
}

TEST_F(NvrtcTest, RefusesMissingEntriesAndVirtualArchitectures) {
  CompileOptions options;
  CompileResult r;
  std::string err;
  EXPECT_FALSE(compileCuda(gemm.source, "kernel.cu", "kgen_no_such_kernel",
                           options, r, err));
  EXPECT_NE(err.find("no kernel 'kgen_no_such_kernel'"), std::string::npos)
      << err;

  options.arch = "compute_90a";
  EXPECT_FALSE(compileCuda(gemm.source, "kernel.cu", gemm.kernels.at(0).entry, options, r,
                           err));
  EXPECT_NE(err.find("not a real architecture"), std::string::npos) << err;

  options.arch = "sm_1";
  EXPECT_FALSE(compileCuda(gemm.source, "kernel.cu", gemm.kernels.at(0).entry, options, r,
                           err));
  EXPECT_NE(err.find("NVRTC"), std::string::npos) << err;
}

TEST(NvrtcInfoTest, VersionAndIncludeDirs) {
  EXPECT_TRUE(std::regex_match(nvrtcVersionString(), std::regex(R"(\d+\.\d+)")))
      << nvrtcVersionString();

  const char *saved = std::getenv("CUDA_HOME");
  const std::string savedValue = saved ? saved : "";
  ::setenv("CUDA_HOME", "/opt/my-cuda", 1);
  EXPECT_EQ(defaultCudaIncludeDirs(),
            (std::vector<std::string>{"/opt/my-cuda/include",
                                      "/opt/my-cuda/include/cccl"}));
  if (saved)
    ::setenv("CUDA_HOME", savedValue.c_str(), 1);
  else
    ::unsetenv("CUDA_HOME");
  for (const std::string &dir : defaultCudaIncludeDirs())
    EXPECT_TRUE(fs::is_directory(dir)) << dir;
}

} // namespace
