//===- Kernel.h - load a cubin, build arguments, launch ---------*- C++ -*-===//
//
// A package's kernel is loaded with the CUDA runtime's library API
// (cudaLibraryLoadData, cudaLibraryGetKernel) and launched with
// cudaLaunchKernelEx; tensor-map (TMA) parameters are encoded with the
// driver's cuTensorMapEncodeTiled, reached through the entry-point query.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_CUDA_KERNEL_H
#define KGEN_RUNTIME_CUDA_KERNEL_H

#include "kgen/runtime/Package.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace kgen::rt {

/// Dynamic shared memory above this needs cudaFuncAttributeMaxDynamicSharedMemorySize.
constexpr uint32_t kDefaultDynamicSmemLimit = 48 * 1024;

/// The arguments of cuTensorMapEncodeTiled for a dense row-major tensor, in
/// the driver's order: dimension 0 is the innermost (the manifest's last).
struct TmaGeometry {
  uint32_t rank = 0;
  std::array<cuuint64_t, 5> globalDim{};     // elements
  std::array<cuuint64_t, 4> globalStrides{}; // bytes, of dimensions 1..rank-1
  std::array<cuuint32_t, 5> boxDim{};        // elements
  std::array<cuuint32_t, 5> elementStrides{};
};

/// Computes and checks the geometry of a TMA descriptor over a dense tensor
/// of `shape` (row-major) and `elemBytes`-byte elements, with a box of
/// `box` (innermost last, the tensor's rank). Checks the driver's documented
/// limits: rank
/// 1..5, dimensions 1..2^32, strides multiples of 16 below 2^40, box
/// extents 1..256 (a box may overhang the tensor: TMA fills with zeros), an
/// inner box row a multiple of 16 bytes and, with swizzling, at most the
/// swizzle span (32, 64 or 128 bytes). False with a message otherwise.
bool tmaGeometry(const std::vector<int64_t> &shape, size_t elemBytes,
                 const std::vector<int64_t> &box, int swizzleBytes,
                 TmaGeometry &geometry, std::string &err);

/// The tensor-map element type for `type` (fp8 and i8 as UINT8, bits being
/// bits to the copy engine); false for types TMA cannot move.
bool tmaDataType(ElemType type, CUtensorMapDataType &out);

/// Encodes a tiled tensor map over `base` (16-byte aligned) with
/// cuTensorMapEncodeTiled: no interleave, 256-byte L2 promotion, no OOB NaN
/// fill. Precondition: a CUDA context is current (the entry-point query).
bool encodeTensorMap(const TmaGeometry &geometry, CUtensorMapDataType type,
                     int swizzleBytes, void *base, CUtensorMap &map,
                     std::string &err);

/// The argument values of one launch of `kernel`, in its argument order: a
/// device pointer per tensor, the value per scalar, a CUtensorMap per TMA
/// descriptor.
class KernelArgs {
public:
  KernelArgs() = default;
  // pointers_ point into this object's own buffers: moved along with them,
  // never copied.
  KernelArgs(const KernelArgs &) = delete;
  KernelArgs &operator=(const KernelArgs &) = delete;
  KernelArgs(KernelArgs &&) = default;
  KernelArgs &operator=(KernelArgs &&) = default;

  /// `tensors[i]` is the device buffer of parameter i when it is a tensor
  /// (ignored otherwise). TMA descriptors are encoded over the buffer of the
  /// tensor they name. Preconditions: tensors.size() == pkg.params.size(),
  /// `kernel` is one of pkg.kernels.
  bool build(const KernelPackage &pkg, const PackageKernel &kernel,
             const std::vector<void *> &tensors, std::string &err);
  /// The kernelParams array for cudaLaunchKernelEx. Valid while this object
  /// lives and is not rebuilt.
  void **data() { return pointers_.data(); }

private:
  std::vector<uint64_t> words_;     // pointers and scalars, 8 bytes each
  std::vector<CUtensorMap> maps_;   // one per parameter (used by TMA ones)
  std::vector<void *> pointers_;    // into words_ or maps_, per parameter
};

/// A kernel loaded from a cubin into the current context.
class LoadedKernel {
public:
  LoadedKernel() = default;
  LoadedKernel(const LoadedKernel &) = delete;
  LoadedKernel &operator=(const LoadedKernel &) = delete;
  ~LoadedKernel();

  /// Loads `cubin`, finds `entry` and prepares `launch`: raises the dynamic
  /// shared-memory limit above 48 KiB (checked against the device's opt-in
  /// limit first, for a clear message) and allows non-portable cluster sizes
  /// above 8 blocks.
  bool load(const std::vector<char> &cubin, const std::string &entry,
            const LaunchConfig &launch, std::string &err);

  /// Launches on `stream` with the cluster attribute when launch.cluster is
  /// not [1,1,1]; checks the launch's status and cudaGetLastError.
  bool launch(void **args, cudaStream_t stream, std::string &err) const;

private:
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t kernel_ = nullptr;
  LaunchConfig launch_;
  std::string entry_;
};

} // namespace kgen::rt

#endif // KGEN_RUNTIME_CUDA_KERNEL_H
