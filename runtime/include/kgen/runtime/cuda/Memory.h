//===- Memory.h - device buffers and rotation arenas ------------*- C++ -*-===//
//
// Plain cudaMalloc allocations (never managed memory), freed on destruction.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_CUDA_MEMORY_H
#define KGEN_RUNTIME_CUDA_MEMORY_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace kgen::rt {

/// Slots of an arena start at multiples of this many bytes: enough for TMA
/// (16), cuBLASLt's fastest kernels (16) and 128-byte vector loads.
constexpr size_t kSlotAlignment = 256;

/// `bytes` rounded up to a multiple of `alignment`. Precondition:
/// alignment > 0.
constexpr size_t alignUp(size_t bytes, size_t alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

/// One device allocation, move-only.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  ~DeviceBuffer();

  /// Frees any previous allocation, then allocates `bytes` (at least 1).
  bool allocate(size_t bytes, std::string &err);
  void *get() const { return ptr_; }
  size_t bytes() const { return bytes_; }

private:
  void release();
  void *ptr_ = nullptr;
  size_t bytes_ = 0;
};

/// `sets` copies ("slots") of one tensor in a single allocation, slot i at
/// i * slotStride bytes, each slot holding `tensorBytes`. Timed runs rotate
/// over the slots so that a launch finds its inputs evicted from L2.
struct Arena {
  DeviceBuffer buffer;
  size_t tensorBytes = 0;
  size_t slotStride = 0;
  int sets = 0;

  void *slot(int set) const {
    return static_cast<char *>(buffer.get()) + slotStride * static_cast<size_t>(set);
  }
};

/// Allocates `sets` slots of `tensorBytes` each. Precondition: sets >= 1.
bool allocateArena(size_t tensorBytes, int sets, Arena &arena, std::string &err);

/// Copies slot 0 into every other slot (device to device, on the legacy
/// default stream: asynchronous to the host and to non-blocking streams, so
/// synchronise the device before other streams use the copies).
bool replicateSlotZero(const Arena &arena, std::string &err);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_CUDA_MEMORY_H
