//===- TensorMap.h - the emulated device's tensor-map encoding -*- C++ -*-===//
//
// What the emulated device keeps in the 128 bytes of a CUtensorMap (the
// kernel's `const __grid_constant__ CUtensorMap` parameters). The driver's
// encoding is opaque; the emulator has its own, written by the host side
// (runtime/emulate/Emulate.cpp, from the package's TMA descriptors, the
// arguments the GPU path gives cuTensorMapEncodeTiled) and read by the
// emulated cp.async.bulk.tensor (kgen/emulate/Sm90.h). Plain C++17, no CUDA:
// the host driver includes it too.
//
// The geometry is cuTensorMapEncodeTiled's: dimension 0 innermost (the
// manifest's last), strides in bytes, box extents in elements, element
// strides 1, no interleave, out-of-bounds elements filled with zeros, the
// swizzle as CUtensorMapSwizzle numbers it (0 none, 1 32B, 2 64B, 3 128B).
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_EMULATE_TENSORMAP_H
#define KGEN_EMULATE_TENSORMAP_H

#include <cstdint>
#include <cstring>

namespace kgen::emu {

constexpr uint32_t kTensorMapMagic = 0x4d544b45u; // "EKTM"

struct TensorMapDesc {
  uint32_t magic = kTensorMapMagic;
  uint32_t rank = 0;      // 1..5
  uint32_t elemBytes = 0; // 1, 2, 4 or 8
  uint32_t swizzle = 0;   // CUtensorMapSwizzle: 0 none, 1 32B, 2 64B, 3 128B
  uint64_t base = 0;      // global address, 16-byte aligned
  uint64_t dims[5] = {};  // elements, dimension 0 innermost
  uint64_t strides[5] = {}; // bytes; strides[0] = elemBytes
  uint32_t box[5] = {};   // elements
};
static_assert(sizeof(TensorMapDesc) <= 128, "fits a CUtensorMap");

/// Writes `d` into the 128 bytes at `map` (the rest zero).
inline void encodeTensorMapDesc(const TensorMapDesc &d, void *map) {
  std::memset(map, 0, 128);
  std::memcpy(map, &d, sizeof d);
}

/// Reads the descriptor at `map`; false if it is not one this encoding
/// wrote (wrong magic or rank).
inline bool decodeTensorMapDesc(const void *map, TensorMapDesc &d) {
  std::memcpy(&d, map, sizeof d);
  return d.magic == kTensorMapMagic && d.rank >= 1 && d.rank <= 5;
}

} // namespace kgen::emu

#endif // KGEN_EMULATE_TENSORMAP_H
