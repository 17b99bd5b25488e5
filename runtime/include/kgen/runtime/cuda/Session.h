//===- Session.h - the CUDA state and data movement of one child -*- C++ -*-===//
//
// Used only inside kgen-bench's children (Bench.h).
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_CUDA_SESSION_H
#define KGEN_RUNTIME_CUDA_SESSION_H

#include "kgen/runtime/Gemm.h"
#include "kgen/runtime/HostTensor.h"
#include "kgen/runtime/Results.h"
#include "kgen/runtime/cuda/Memory.h"

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

namespace kgen::rt {

/// Device 0 made current, a non-blocking stream (graphs cannot capture the
/// legacy default stream), a cuBLASLt handle and its workspace.
class CudaSession {
public:
  CudaSession() = default;
  CudaSession(const CudaSession &) = delete;
  CudaSession &operator=(const CudaSession &) = delete;
  ~CudaSession();

  bool open(std::string &err);

  const DeviceInfo &device() const { return device_; }
  cudaStream_t stream() const { return stream_; }
  cublasLtHandle_t lt() const { return lt_; }
  void *workspace() const { return workspace_.get(); }
  size_t workspaceBytes() const { return workspace_.bytes(); }

  /// Device memory free now, in bytes.
  bool freeBytes(int64_t &bytes, std::string &err) const;
  /// Waits for the stream; on failure err names `what`.
  bool sync(const std::string &what, std::string &err) const;
  /// Re-reads the clocks (readClocks) into device().
  void refreshClocks();

private:
  DeviceInfo device_;
  cudaStream_t stream_ = nullptr;
  cublasLtHandle_t lt_ = nullptr;
  DeviceBuffer workspace_;
};

/// Waits for all work on the device. The plain cudaMemcpy/cudaMemset calls
/// of the set-up run on the legacy default stream, which the session's
/// non-blocking stream does not wait for (device-to-device copies and
/// memsets may even return before they finish): settle after them.
bool settle(std::string &err);

/// Copies between a host tensor and device memory of the same byte size, on
/// the legacy default stream (settle before another stream reads an upload;
/// a download returns once its data is on the host, but does not wait for
/// the session's stream).
bool upload(const HostTensor &host, void *device, std::string &err);
bool download(const void *device, HostTensor &host, std::string &err);

/// Elements `indices` of a device tensor of `type`, as a host tensor
/// [indices.size()] (one small copy each; for spot checks).
bool downloadElements(const void *device, ElemType type,
                      const std::vector<int64_t> &indices, HostTensor &out,
                      std::string &err);

/// Random values of one element type, on the host and on the device. A
/// tensor is filled by repeating the pool from an offset (fillFromPool), so
/// large suites need no per-tensor random generation; HostView reads the
/// same values on the host.
class RandomPool {
public:
  /// `elements` values from makeRandom(type, {elements}, seed), uploaded
  /// and settled.
  bool create(ElemType type, int64_t elements, uint64_t seed, std::string &err);
  HostView view(int64_t offset) const { return {&host_, offset}; }

  /// Writes elements 0..elements-1 of a tensor at `device`: element i is
  /// pool[(offset + i) mod pool size], by device-to-device copies on the
  /// legacy default stream (settle before use). Precondition:
  /// 0 <= offset < pool size.
  bool fill(void *device, int64_t elements, int64_t offset, std::string &err) const;

private:
  HostTensor host_;
  DeviceBuffer device_;
};

} // namespace kgen::rt

#endif // KGEN_RUNTIME_CUDA_SESSION_H
