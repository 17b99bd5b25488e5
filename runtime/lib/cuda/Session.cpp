//===- Session.cpp - the CUDA state and data movement of one child --------===//

#include "kgen/runtime/cuda/Session.h"

#include "kgen/runtime/cuda/Device.h"
#include "kgen/runtime/cuda/GemmLt.h"

#include <algorithm>

namespace kgen::rt {

CudaSession::~CudaSession() {
  // Teardown statuses repeat any sticky fault that was already reported.
  if (lt_ != nullptr)
    (void)cublasLtDestroy(lt_);
  if (stream_ != nullptr)
    (void)cudaStreamDestroy(stream_);
}

bool CudaSession::open(std::string &err) {
  const DeviceProbe probe = probeDevice(0);
  if (probe.status != ProbeStatus::Present) {
    err = probe.error;
    return false;
  }
  device_ = probe.info;
  KGEN_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), err);
  const cublasStatus_t status = cublasLtCreate(&lt_);
  if (status != CUBLAS_STATUS_SUCCESS) {
    err = cublasErrorText("cublasLtCreate", status);
    return false;
  }
  return workspace_.allocate(kLtWorkspaceBytes, err);
}

bool CudaSession::freeBytes(int64_t &bytes, std::string &err) const {
  size_t freeMem = 0, total = 0;
  KGEN_CUDA_TRY(cudaMemGetInfo(&freeMem, &total), err);
  bytes = static_cast<int64_t>(freeMem);
  return true;
}

bool CudaSession::sync(const std::string &what, std::string &err) const {
  const cudaError_t status = cudaStreamSynchronize(stream_);
  if (status != cudaSuccess) {
    err = cudaErrorText(("cudaStreamSynchronize after " + what).c_str(), status);
    return false;
  }
  return true;
}

void CudaSession::refreshClocks() { readClocks(0, device_); }

bool settle(std::string &err) {
  KGEN_CUDA_TRY(cudaDeviceSynchronize(), err);
  return true;
}

bool upload(const HostTensor &host, void *device, std::string &err) {
  KGEN_CUDA_TRY(cudaMemcpy(device, host.data.data(), host.data.size(),
                           cudaMemcpyHostToDevice),
                err);
  return true;
}

bool download(const void *device, HostTensor &host, std::string &err) {
  KGEN_CUDA_TRY(cudaMemcpy(host.data.data(), device, host.data.size(),
                           cudaMemcpyDeviceToHost),
                err);
  return true;
}

bool downloadElements(const void *device, ElemType type,
                      const std::vector<int64_t> &indices, HostTensor &out,
                      std::string &err) {
  out = makeZeros(type, {static_cast<int64_t>(indices.size())});
  const size_t bytes = elemTypeBytes(type);
  for (size_t j = 0; j < indices.size(); ++j)
    KGEN_CUDA_TRY(cudaMemcpy(&out.data[j * bytes],
                             static_cast<const char *>(device) +
                                 static_cast<size_t>(indices[j]) * bytes,
                             bytes, cudaMemcpyDeviceToHost),
                  err);
  return true;
}

bool RandomPool::create(ElemType type, int64_t elements, uint64_t seed,
                        std::string &err) {
  host_ = makeRandom(type, {elements}, seed);
  return device_.allocate(host_.data.size(), err) &&
         upload(host_, device_.get(), err) && settle(err);
}

bool RandomPool::fill(void *device, int64_t elements, int64_t offset,
                      std::string &err) const {
  const int64_t poolElements = host_.numElements();
  const size_t bytes = elemTypeBytes(host_.type);
  char *dst = static_cast<char *>(device);
  const char *src = static_cast<const char *>(device_.get());
  int64_t done = 0;
  int64_t from = offset;
  while (done < elements) {
    const int64_t chunk = std::min(elements - done, poolElements - from);
    KGEN_CUDA_TRY(cudaMemcpy(dst + static_cast<size_t>(done) * bytes,
                             src + static_cast<size_t>(from) * bytes,
                             static_cast<size_t>(chunk) * bytes,
                             cudaMemcpyDeviceToDevice),
                  err);
    done += chunk;
    from = 0;
  }
  return true;
}

} // namespace kgen::rt
