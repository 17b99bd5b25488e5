//===- DeviceTest.cpp - device layer: pure parts, and probing in a child --===//
//
// Anything that calls CUDA runs in a child (runIsolated), as in kgen-bench,
// so that this test process never holds a CUDA context.
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/Isolate.h"
#include "kgen/runtime/cuda/Device.h"
#include "kgen/runtime/cuda/Kernel.h"

#include <gtest/gtest.h>

using namespace kgen::rt;

namespace {

TEST(Device, ErrorKinds) {
  EXPECT_TRUE(isNoDeviceError(cudaErrorInsufficientDriver)); // error 35
  EXPECT_TRUE(isNoDeviceError(cudaErrorNoDevice));
  EXPECT_FALSE(isNoDeviceError(cudaErrorMemoryAllocation));
  EXPECT_TRUE(isStickyError(cudaErrorIllegalAddress));
  EXPECT_TRUE(isStickyError(cudaErrorMisalignedAddress));
  EXPECT_TRUE(isStickyError(cudaErrorLaunchTimeout));
  EXPECT_FALSE(isStickyError(cudaErrorLaunchOutOfResources));
  EXPECT_FALSE(isStickyError(cudaErrorInvalidValue));
  const std::string text = cudaErrorText("cudaMalloc(&p, 8)", cudaErrorMemoryAllocation);
  EXPECT_EQ(text.rfind("cudaMalloc(&p, 8): cudaErrorMemoryAllocation: ", 0), 0u) << text;
}

TEST(Device, ProbeInAChild) {
  const ChildOutcome outcome = runIsolated(
      [](int fd) {
        const DeviceProbe probe = probeDevice(0);
        if (probe.status == ProbeStatus::Present)
          return writeAll(fd, probe.info.name) && !probe.info.name.empty() &&
                         probe.info.smCount > 0 && probe.info.l2Bytes > 0
                     ? 0
                     : 1;
        writeAll(fd, probe.error);
        return probe.status == ProbeStatus::NoDevice ? 3 : 2;
      },
      60);
  ASSERT_EQ(outcome.kind, ChildOutcome::Kind::Exited) << outcome.error;
  if (outcome.exitCode == 3) {
    // No GPU here: the error names the call and CUDA's reason.
    EXPECT_NE(outcome.output.find("cudaGetDeviceCount"), std::string::npos)
        << outcome.output;
  } else {
    EXPECT_EQ(outcome.exitCode, 0) << outcome.output;
  }
}

TEST(Device, DriverEntryPointsFailCleanlyWithoutADriver) {
  const ChildOutcome outcome = runIsolated(
      [](int fd) {
        if (probeDevice(0).status == ProbeStatus::Present)
          return 0; // covered by the device check
        void *fn = nullptr;
        std::string err;
        const bool found = driverEntryPoint("cuTensorMapEncodeTiled", 12000, &fn, err);
        writeAll(fd, err);
        return found ? 1 : 0;
      },
      60);
  EXPECT_TRUE(outcome.ok()) << outcome.error << ": " << outcome.output;
}

// A later kernel of a package (split-K's reduction) takes some of the
// package's parameters: each argument is the buffer of the parameter it
// names, not of the parameter at its position.
TEST(KernelArgs, ArgumentsAreTheirParametersBuffers) {
  KernelPackage pkg;
  for (const char *name : {"A", "B", "W", "C", "bias", "D"}) {
    KernelParam param;
    param.name = name;
    param.shape = {4, 4};
    pkg.params.push_back(param);
  }
  KernelParam k;
  k.name = "k";
  k.kind = ParamKind::Scalar;
  k.dtype = ElemType::I32;
  k.value = 7;
  pkg.params.push_back(k);
  PackageKernel reduce;
  reduce.entry = "reduce";
  reduce.args = {2, 6, 5}; // W, k, D
  pkg.kernels.push_back(reduce);
  std::vector<void *> buffers;
  for (uintptr_t i = 0; i < pkg.params.size(); ++i)
    buffers.push_back(reinterpret_cast<void *>(0x1000 * (i + 1)));
  KernelArgs args;
  std::string err;
  ASSERT_TRUE(args.build(pkg, pkg.kernels[0], buffers, err)) << err;
  auto word = [&](size_t i) { return *static_cast<uint64_t *>(args.data()[i]); };
  EXPECT_EQ(word(0), 0x3000u); // W, parameter 2
  EXPECT_EQ(static_cast<int32_t>(word(1)), 7);
  EXPECT_EQ(word(2), 0x6000u); // D, parameter 5
}

TEST(Tma, GeometryOfARowMajorTile) {
  TmaGeometry g;
  std::string err;
  // bf16 A [4096, 8192], box 64 rows x 64 columns, 128-byte swizzle.
  ASSERT_TRUE(tmaGeometry({4096, 8192}, 2, {64, 64}, 128, g, err)) << err;
  EXPECT_EQ(g.rank, 2u);
  EXPECT_EQ(g.globalDim[0], 8192u); // innermost first
  EXPECT_EQ(g.globalDim[1], 4096u);
  EXPECT_EQ(g.globalStrides[0], 8192u * 2);
  EXPECT_EQ(g.boxDim[0], 64u);
  EXPECT_EQ(g.boxDim[1], 64u);
  EXPECT_EQ(g.elementStrides[0], 1u);
  EXPECT_EQ(g.elementStrides[1], 1u);
  // Rank 3: strides of dimensions 1 and 2.
  ASSERT_TRUE(tmaGeometry({2, 64, 128}, 4, {1, 16, 32}, 128, g, err)) << err;
  EXPECT_EQ(g.globalStrides[0], 128u * 4);
  EXPECT_EQ(g.globalStrides[1], 64u * 128 * 4);
  // A box may overhang the tensor (decode: M = 1 under a 64-row box).
  EXPECT_TRUE(tmaGeometry({1, 4096}, 2, {64, 64}, 128, g, err)) << err;
}

TEST(Tma, GeometryLimits) {
  TmaGeometry g;
  std::string err;
  EXPECT_FALSE(tmaGeometry({64, 64}, 2, {64}, 0, g, err)); // box rank
  EXPECT_NE(err.find("rank"), std::string::npos);
  EXPECT_FALSE(tmaGeometry({64, 64}, 2, {64, 512}, 0, g, err)); // box > 256
  EXPECT_NE(err.find("256"), std::string::npos);
  EXPECT_FALSE(tmaGeometry({64, 7}, 2, {8, 8}, 0, g, err)); // 14-byte rows
  EXPECT_NE(err.find("multiple of 16"), std::string::npos);
  EXPECT_FALSE(tmaGeometry({64, 64}, 2, {8, 4}, 0, g, err)); // 8-byte box rows
  EXPECT_NE(err.find("box rows"), std::string::npos);
  EXPECT_FALSE(tmaGeometry({64, 256}, 2, {64, 128}, 128, g, err)); // 256 B > 128
  EXPECT_NE(err.find("swizzle"), std::string::npos);
  EXPECT_FALSE(tmaGeometry({64, 64}, 2, {64, 64}, 96, g, err));
  EXPECT_FALSE(tmaGeometry({1, 1, 1, 1, 1, 16}, 1, {1, 1, 1, 1, 1, 16}, 0, g, err));
  EXPECT_FALSE(tmaGeometry({0, 64}, 2, {1, 64}, 0, g, err));
}

TEST(Tma, DataTypes) {
  CUtensorMapDataType t;
  ASSERT_TRUE(tmaDataType(ElemType::BF16, t));
  EXPECT_EQ(t, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
  ASSERT_TRUE(tmaDataType(ElemType::F8E4M3FN, t));
  EXPECT_EQ(t, CU_TENSOR_MAP_DATA_TYPE_UINT8);
  ASSERT_TRUE(tmaDataType(ElemType::F32, t));
  EXPECT_EQ(t, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
}

} // namespace
