//===- CudaToolkitTest.cpp - checks that need the CUDA toolkit, no GPU ----===//
//
// 1. The epilogue's host rounding is bit-identical to the CUDA headers' own
//    host conversions (__float2bfloat16_rn, __float2half_rn,
//    __nv_cvt_float_to_fp8(.., __NV_SATFINITE, __NV_E4M3)).
// 2. Every test kernel compiles with NVRTC, which is how the runtime builds
//    emitted kernels (no host headers, -std=c++17, the CUDA and CCCL include
//    dirs), to PTX for the newest target its // TARGETS: line names; the
//    misuse kernels fail there with their expected message.
//
//===----------------------------------------------------------------------===//

#include "kgen/cuda/Epilogue.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <nvrtc.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#ifndef KGEN_CODEGEN_KERNEL_DIR
#error "KGEN_CODEGEN_KERNEL_DIR must name codegen/test/kernels"
#endif
#ifndef KGEN_CODEGEN_INCLUDE_DIR
#error "KGEN_CODEGEN_INCLUDE_DIR must name codegen/include"
#endif
#ifndef KGEN_CUDA_INCLUDE_DIR
#error "KGEN_CUDA_INCLUDE_DIR must name the CUDA toolkit's include dir"
#endif

using namespace kgen::cuda;

namespace {

std::vector<float> probeFloats() {
  std::vector<float> xs;
  std::uint32_t s = 987654321u;
  for (int i = 0; i < 300000; ++i) {
    s = s * 1664525u + 1013904223u;
    xs.push_back(bits_to_float(s));
  }
  // Dense around the small formats' ranges, with exact ties.
  for (int i = -70000; i <= 70000; ++i)
    xs.push_back(std::ldexp(float(i), -12));
  for (int e = -30; e <= 20; ++e)
    for (int m = 0; m < 64; ++m)
      xs.push_back(std::ldexp(1.f + m / 64.f + 1.f / 128.f, e));
  return xs;
}

TEST(HostRounding, Bf16MatchesCudaBf16) {
  for (float x : probeFloats()) {
    const __nv_bfloat16 ref = __float2bfloat16_rn(x);
    std::uint16_t refBits;
    std::memcpy(&refBits, &ref, 2);
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16_rne(x))));
      continue;
    }
    ASSERT_EQ(f32_to_bf16_rne(x), refBits) << x;
  }
}

TEST(HostRounding, F16MatchesCudaFp16) {
  for (float x : probeFloats()) {
    const __half ref = __float2half_rn(x);
    std::uint16_t refBits;
    std::memcpy(&refBits, &ref, 2);
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(f16_to_f32(f32_to_f16_rne(x))));
      continue;
    }
    ASSERT_EQ(f32_to_f16_rne(x), refBits) << x;
  }
}

TEST(HostRounding, E4m3MatchesCudaFp8Satfinite) {
  for (float x : probeFloats()) {
    const __nv_fp8_storage_t ref =
        __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
    if (std::isnan(x)) {
      EXPECT_EQ(f32_to_e4m3_satfinite(x) & 0x7f, 0x7f);
      EXPECT_EQ(ref & 0x7f, 0x7f);
      continue;
    }
    ASSERT_EQ(f32_to_e4m3_satfinite(x), ref) << x;
  }
}

//===----------------------------------------------------------------------===//
// NVRTC
//===----------------------------------------------------------------------===//

std::string readFile(const std::filesystem::path &p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The last target on the file's "// TARGETS:" line (the newest).
std::string newestTarget(const std::string &src) {
  std::istringstream in(src);
  std::string line;
  while (std::getline(in, line)) {
    const auto pos = line.find("// TARGETS:");
    if (pos == std::string::npos)
      continue;
    std::istringstream words(line.substr(pos + 11));
    std::string t, last;
    while (words >> t)
      last = t;
    return last;
  }
  return "";
}

std::vector<std::string> expectedErrors(const std::string &src) {
  std::vector<std::string> out;
  std::istringstream in(src);
  std::string line;
  const std::string key = "// EXPECT-ERROR: ";
  while (std::getline(in, line)) {
    const auto pos = line.find(key);
    if (pos != std::string::npos)
      out.push_back(line.substr(pos + key.size()));
  }
  return out;
}

struct NvrtcResult {
  bool ok = false;
  std::string log;
};

NvrtcResult compile(const std::string &src, const std::string &name,
                    const std::string &arch) {
  NvrtcResult r;
  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, src.c_str(), name.c_str(), 0, nullptr,
                         nullptr) != NVRTC_SUCCESS) {
    r.log = "nvrtcCreateProgram failed";
    return r;
  }
  // PTX only (compute_XX): ptxas and its resource checks are the nvcc
  // tests' job; this is about the source compiling under NVRTC.
  const std::string virt = "compute_" + arch.substr(arch.find('_') + 1);
  const std::string opts[] = {
      "--gpu-architecture=" + virt,
      "-std=c++17",
      "--include-path=" KGEN_CODEGEN_INCLUDE_DIR,
      "--include-path=" KGEN_CODEGEN_KERNEL_DIR, // the kernels' shared header
      "--include-path=" KGEN_CUDA_INCLUDE_DIR,
      "--include-path=" KGEN_CUDA_INCLUDE_DIR "/cccl",
  };
  std::vector<const char *> argv;
  for (const std::string &o : opts)
    argv.push_back(o.c_str());
  r.ok = nvrtcCompileProgram(prog, int(argv.size()), argv.data()) ==
         NVRTC_SUCCESS;
  size_t n = 0;
  nvrtcGetProgramLogSize(prog, &n);
  r.log.assign(n, '\0');
  if (n)
    nvrtcGetProgramLog(prog, r.log.data());
  nvrtcDestroyProgram(&prog);
  return r;
}

std::vector<std::string> kernelFiles() {
  std::vector<std::string> out;
  for (const char *dir : {"", "errors"})
    for (const auto &e : std::filesystem::directory_iterator(
             std::filesystem::path(KGEN_CODEGEN_KERNEL_DIR) / dir))
      if (e.path().extension() == ".cu")
        out.push_back((std::filesystem::path(dir) / e.path().filename()).string());
  std::sort(out.begin(), out.end());
  return out;
}

class Nvrtc : public ::testing::TestWithParam<std::string> {};

TEST_P(Nvrtc, CompilesForItsNewestTarget) {
  const std::filesystem::path path =
      std::filesystem::path(KGEN_CODEGEN_KERNEL_DIR) / GetParam();
  const std::string src = readFile(path);
  const std::string arch = newestTarget(src);
  ASSERT_FALSE(arch.empty()) << GetParam() << " has no // TARGETS: line";
  const NvrtcResult r = compile(src, GetParam(), arch);
  const std::vector<std::string> errors = expectedErrors(src);
  if (errors.empty()) {
    EXPECT_TRUE(r.ok) << GetParam() << " (" << arch << "):\n" << r.log;
  } else {
    EXPECT_FALSE(r.ok) << GetParam() << " (" << arch << ") must not compile";
    for (const std::string &e : errors)
      EXPECT_NE(r.log.find(e), std::string::npos)
          << GetParam() << ": the log does not say \"" << e << "\":\n"
          << r.log;
  }
}

std::string testName(const ::testing::TestParamInfo<std::string> &info) {
  std::string n = info.param;
  for (char &c : n)
    if (!std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Kernels, Nvrtc, ::testing::ValuesIn(kernelFiles()),
                         testName);

} // namespace
