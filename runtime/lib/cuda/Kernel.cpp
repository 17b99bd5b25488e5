//===- Kernel.cpp - load a cubin, build arguments, launch -----------------===//

#include "kgen/runtime/cuda/Kernel.h"

#include "kgen/runtime/cuda/Device.h"

#include <cudaTypedefs.h>

#include <cstring>

namespace kgen::rt {

namespace {

constexpr uint64_t kTmaMaxDim = uint64_t{1} << 32;
constexpr uint64_t kTmaMaxStride = uint64_t{1} << 40;
constexpr int64_t kTmaMaxBox = 256;

bool tmaSwizzle(int swizzleBytes, CUtensorMapSwizzle &out) {
  switch (swizzleBytes) {
  case 0:
    out = CU_TENSOR_MAP_SWIZZLE_NONE;
    return true;
  case 32:
    out = CU_TENSOR_MAP_SWIZZLE_32B;
    return true;
  case 64:
    out = CU_TENSOR_MAP_SWIZZLE_64B;
    return true;
  case 128:
    out = CU_TENSOR_MAP_SWIZZLE_128B;
    return true;
  default:
    return false;
  }
}

/// Stores the bytes of `value` at the start of an 8-byte argument slot.
template <typename T> uint64_t argWord(T value) {
  static_assert(sizeof(T) <= sizeof(uint64_t), "argument wider than a slot");
  uint64_t word = 0;
  std::memcpy(&word, &value, sizeof(T));
  return word;
}

bool scalarWord(const KernelParam &param, uint64_t &word, std::string &err) {
  switch (param.dtype) {
  case ElemType::F32:
    word = argWord(static_cast<float>(param.value));
    return true;
  case ElemType::I32:
    word = argWord(static_cast<int32_t>(param.value));
    return true;
  case ElemType::I64:
    word = argWord(static_cast<int64_t>(param.value));
    return true;
  default:
    err = "scalar parameter '" + param.name + "' has dtype " +
          elemTypeName(param.dtype) + " (f32, i32 or i64 expected)";
    return false;
  }
}

} // namespace

bool tmaGeometry(const std::vector<int64_t> &shape, size_t elemBytes,
                 const std::vector<int64_t> &box, int swizzleBytes,
                 TmaGeometry &geometry, std::string &err) {
  const size_t rank = shape.size();
  if (rank < 1 || rank > 5) {
    err = "TMA tensors have rank 1..5, not " + std::to_string(rank);
    return false;
  }
  if (box.size() != rank) {
    err = "TMA box of rank " + std::to_string(box.size()) +
          " for a tensor of rank " + std::to_string(rank);
    return false;
  }
  CUtensorMapSwizzle swizzle;
  if (!tmaSwizzle(swizzleBytes, swizzle)) {
    err = "TMA swizzle of " + std::to_string(swizzleBytes) +
          " bytes (0, 32, 64 or 128 expected)";
    return false;
  }
  geometry = TmaGeometry{};
  geometry.rank = static_cast<uint32_t>(rank);
  for (size_t i = 0; i < rank; ++i) {
    const size_t d = rank - 1 - i; // driver order: innermost first
    const int64_t extent = box[i];
    if (shape[i] < 1 || static_cast<uint64_t>(shape[i]) > kTmaMaxDim) {
      err = "TMA tensor dimension " + std::to_string(i) + " is " +
            std::to_string(shape[i]) + " (1..2^32 allowed)";
      return false;
    }
    if (extent < 1 || extent > kTmaMaxBox) {
      err = "TMA box extent " + std::to_string(extent) + " in dimension " +
            std::to_string(i) + " (1..256 allowed)";
      return false;
    }
    geometry.globalDim[d] = static_cast<cuuint64_t>(shape[i]);
    geometry.boxDim[d] = static_cast<cuuint32_t>(extent);
    geometry.elementStrides[d] = 1;
  }
  uint64_t stride = elemBytes;
  for (size_t d = 0; d + 1 < rank; ++d) {
    stride *= geometry.globalDim[d];
    if (stride % 16 != 0 || stride >= kTmaMaxStride) {
      err = "TMA stride of dimension " + std::to_string(rank - 2 - d) + " is " +
            std::to_string(stride) +
            " bytes (a multiple of 16 below 2^40 needed)";
      return false;
    }
    geometry.globalStrides[d] = stride;
  }
  const uint64_t innerBoxBytes = geometry.boxDim[0] * elemBytes;
  if (innerBoxBytes % 16 != 0) {
    err = "TMA box rows are " + std::to_string(innerBoxBytes) +
          " bytes (a multiple of 16 needed)";
    return false;
  }
  if (swizzleBytes != 0 && innerBoxBytes > static_cast<uint64_t>(swizzleBytes)) {
    err = "TMA box rows of " + std::to_string(innerBoxBytes) +
          " bytes exceed the " + std::to_string(swizzleBytes) +
          "-byte swizzle span";
    return false;
  }
  return true;
}

bool tmaDataType(ElemType type, CUtensorMapDataType &out) {
  switch (type) {
  case ElemType::F32:
    out = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    return true;
  case ElemType::F16:
    out = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    return true;
  case ElemType::BF16:
    out = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    return true;
  case ElemType::F64:
    out = CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
    return true;
  case ElemType::F8E4M3FN:
  case ElemType::I8:
  case ElemType::I1:
    out = CU_TENSOR_MAP_DATA_TYPE_UINT8;
    return true;
  case ElemType::I16:
    out = CU_TENSOR_MAP_DATA_TYPE_UINT16;
    return true;
  case ElemType::I32:
    out = CU_TENSOR_MAP_DATA_TYPE_INT32;
    return true;
  case ElemType::I64:
    out = CU_TENSOR_MAP_DATA_TYPE_INT64;
    return true;
  }
  return false;
}

bool encodeTensorMap(const TmaGeometry &geometry, CUtensorMapDataType type,
                     int swizzleBytes, void *base, CUtensorMap &map,
                     std::string &err) {
  CUtensorMapSwizzle swizzle;
  if (!tmaSwizzle(swizzleBytes, swizzle)) {
    err = "TMA swizzle of " + std::to_string(swizzleBytes) + " bytes";
    return false;
  }
  if (reinterpret_cast<uintptr_t>(base) % 16 != 0) {
    err = "TMA base address is not 16-byte aligned";
    return false;
  }
  void *fn = nullptr;
  if (!driverEntryPoint("cuTensorMapEncodeTiled", 12000, &fn, err))
    return false;
  const CUresult result =
      reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn)(
          &map, type, geometry.rank, base, geometry.globalDim.data(),
          geometry.globalStrides.data(), geometry.boxDim.data(),
          geometry.elementStrides.data(), CU_TENSOR_MAP_INTERLEAVE_NONE,
          swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    err = "cuTensorMapEncodeTiled: " + driverErrorText(result);
    return false;
  }
  return true;
}

bool KernelArgs::build(const KernelPackage &pkg, const PackageKernel &kernel,
                       const std::vector<void *> &tensors, std::string &err) {
  const size_t count = kernel.args.size();
  words_.assign(count, 0);
  maps_.assign(count, CUtensorMap{});
  pointers_.assign(count, nullptr);
  for (size_t i = 0; i < count; ++i) {
    const KernelParam &param = pkg.params[kernel.args[i]];
    switch (param.kind) {
    case ParamKind::Tensor:
      words_[i] = argWord(tensors[kernel.args[i]]);
      pointers_[i] = &words_[i];
      break;
    case ParamKind::Scalar:
      if (!scalarWord(param, words_[i], err))
        return false;
      pointers_[i] = &words_[i];
      break;
    case ParamKind::TmaDescriptor: {
      const std::optional<size_t> t = pkg.findParam(param.tmaTensor);
      if (!t || pkg.params[*t].kind != ParamKind::Tensor) {
        err = "TMA descriptor '" + param.name + "' names no tensor parameter";
        return false;
      }
      const KernelParam &tensor = pkg.params[*t];
      TmaGeometry geometry;
      CUtensorMapDataType type;
      if (!tmaDataType(tensor.dtype, type)) {
        err = "TMA cannot move " + std::string(elemTypeName(tensor.dtype));
        return false;
      }
      if (!tmaGeometry(tensor.shape, elemTypeBytes(tensor.dtype), param.tmaBox,
                       param.tmaSwizzleBytes, geometry, err) ||
          !encodeTensorMap(geometry, type, param.tmaSwizzleBytes, tensors[*t],
                           maps_[i], err)) {
        err = "TMA descriptor '" + param.name + "': " + err;
        return false;
      }
      pointers_[i] = &maps_[i];
      break;
    }
    }
  }
  return true;
}

LoadedKernel::~LoadedKernel() {
  // Unloading after a fault repeats the sticky error; nothing to do then.
  if (library_ != nullptr)
    (void)cudaLibraryUnload(library_);
}

bool LoadedKernel::load(const std::vector<char> &cubin, const std::string &entry,
                        const LaunchConfig &launch, std::string &err) {
  if (library_ != nullptr) { // loaded before: this replaces it
    (void)cudaLibraryUnload(library_);
    library_ = nullptr;
  }
  launch_ = launch;
  entry_ = entry;
  KGEN_CUDA_TRY(cudaLibraryLoadData(&library_, cubin.data(), nullptr, nullptr,
                                    0, nullptr, nullptr, 0),
                err);
  KGEN_CUDA_TRY(cudaLibraryGetKernel(&kernel_, library_, entry.c_str()), err);
  const void *fn = reinterpret_cast<const void *>(kernel_);
  // Dynamic shared memory is allowed up to 48 KiB less the kernel's static
  // shared memory unless raised: raised to what the launch asks, always.
  if (launch.dynamicSmemBytes > kDefaultDynamicSmemLimit) {
    int device = 0, optin = 0;
    KGEN_CUDA_TRY(cudaGetDevice(&device), err);
    KGEN_CUDA_TRY(cudaDeviceGetAttribute(
                      &optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
                  err);
    if (launch.dynamicSmemBytes > static_cast<uint32_t>(optin)) {
      err = "kernel '" + entry + "' asks for " +
            std::to_string(launch.dynamicSmemBytes) +
            " bytes of dynamic shared memory; the device allows " +
            std::to_string(optin) + " per block";
      return false;
    }
  }
  if (launch.dynamicSmemBytes > 0)
    KGEN_CUDA_TRY(cudaFuncSetAttribute(fn,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(launch.dynamicSmemBytes)),
                  err);
  const uint32_t clusterBlocks =
      launch.cluster[0] * launch.cluster[1] * launch.cluster[2];
  if (clusterBlocks > 8)
    KGEN_CUDA_TRY(cudaFuncSetAttribute(
                      fn, cudaFuncAttributeNonPortableClusterSizeAllowed, 1),
                  err);
  return true;
}

bool LoadedKernel::launch(void **args, cudaStream_t stream,
                          std::string &err) const {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(launch_.grid[0], launch_.grid[1], launch_.grid[2]);
  config.blockDim = dim3(launch_.block[0], launch_.block[1], launch_.block[2]);
  config.dynamicSmemBytes = launch_.dynamicSmemBytes;
  config.stream = stream;
  cudaLaunchAttribute cluster{};
  if (launch_.cluster != std::array<uint32_t, 3>{1, 1, 1}) {
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = launch_.cluster[0];
    cluster.val.clusterDim.y = launch_.cluster[1];
    cluster.val.clusterDim.z = launch_.cluster[2];
    config.attrs = &cluster;
    config.numAttrs = 1;
  }
  // A stale error of an earlier, refused call (reported by that call) is
  // not this launch's.
  (void)cudaGetLastError();
  const cudaError_t status = cudaLaunchKernelExC(
      &config, reinterpret_cast<const void *>(kernel_), args);
  if (status != cudaSuccess) {
    err = cudaErrorText(("cudaLaunchKernelEx(" + entry_ + ")").c_str(), status);
    return false;
  }
  KGEN_CUDA_TRY(cudaGetLastError(), err);
  return true;
}

} // namespace kgen::rt
