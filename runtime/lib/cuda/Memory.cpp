//===- Memory.cpp - device buffers and rotation arenas --------------------===//

#include "kgen/runtime/cuda/Memory.h"

#include "kgen/runtime/cuda/Device.h"

#include <utility>

namespace kgen::rt {

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  if (this != &other) {
    release();
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { release(); }

void DeviceBuffer::release() {
  // cudaFree's status is not actionable here: after a fault it repeats the
  // sticky error that was already reported.
  if (ptr_ != nullptr)
    (void)cudaFree(ptr_);
  ptr_ = nullptr;
  bytes_ = 0;
}

bool DeviceBuffer::allocate(size_t bytes, std::string &err) {
  release();
  const size_t size = bytes == 0 ? 1 : bytes;
  const cudaError_t status = cudaMalloc(&ptr_, size);
  if (status != cudaSuccess) {
    ptr_ = nullptr;
    err = cudaErrorText("cudaMalloc", status) + " (" + std::to_string(size) +
          " bytes)";
    return false;
  }
  bytes_ = size;
  return true;
}

bool allocateArena(size_t tensorBytes, int sets, Arena &arena,
                   std::string &err) {
  arena.tensorBytes = tensorBytes;
  arena.slotStride = alignUp(tensorBytes == 0 ? 1 : tensorBytes, kSlotAlignment);
  arena.sets = sets;
  return arena.buffer.allocate(arena.slotStride * static_cast<size_t>(sets), err);
}

bool replicateSlotZero(const Arena &arena, std::string &err) {
  for (int set = 1; set < arena.sets; ++set)
    KGEN_CUDA_TRY(cudaMemcpy(arena.slot(set), arena.slot(0), arena.tensorBytes,
                             cudaMemcpyDeviceToDevice),
                  err);
  return true;
}

} // namespace kgen::rt
