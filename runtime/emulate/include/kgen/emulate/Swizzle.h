//===- Swizzle.h - the shared-memory swizzle modes of sm_90 ----*- C++ -*-===//
//
// The address swizzle that TMA applies when it writes shared memory and that
// wgmma applies when it reads a descriptor-addressed operand, written for
// the emulator from the PTX ISA: 5.5.7 (tensor swizzling modes), 9.7.15.5.1.2
// (wgmma "Shared Memory Matrix Layout": the canonical layouts end in
// Swizzle<b,4,3>), 9.7.15.5.1.2.2 (the descriptor's 2-bit mode field), and
// the driver's CUtensorMapSwizzle enum (cuTensorMapEncodeTiled).
//
// The swizzle permutes the 16-byte chunks of each 128-byte span of shared
// memory: with b = log2(S / 16) for a swizzle width of S bytes,
//
//     swizzled = offset ^ (((offset >> 7) & (2^b - 1)) << 4)
//
// i.e. address bits [4, 4+b) (the chunk index) are XORed with bits [7, 7+b)
// (which 128-byte span of the 8 * S-byte repeating pattern the byte is in).
// For 128B: chunk ^= row within the 1024-byte atom of 8 rows x 128 bytes.
// For 64B the pattern is 512 bytes (eight 64-byte rows; bits [7, 9) are
// row / 2), for 32B 256 bytes (bit 7 is row / 4). Mode none is the identity.
//
// `offset` is a shared-window address (what cvta.to.shared / smem_u32 give),
// i.e. relative to a base aligned to the pattern size (1024 bytes covers
// every mode): the hardware swizzles absolute shared addresses, and a
// pattern placed on an unaligned base reads back permuted differently (the
// wgmma descriptor's base-offset field exists for that case; WgmmaIsa.h
// refuses it). The function never moves a byte out of its 16-byte chunk or
// its 128-byte span, and is an involution.
//
// Header-only, C++17, no CUDA. Independent of kgen/cuda/Layout.cuh on
// purpose: the emulator checks the kernels' layouts against this reading.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_EMULATE_SWIZZLE_H
#define KGEN_EMULATE_SWIZZLE_H

#include <cstdint>

namespace kgen::emu::isa {

/// The four swizzle modes sm_90 has (named by their width S in bytes),
/// valued as the driver's CUtensorMapSwizzle (CU_TENSOR_MAP_SWIZZLE_NONE,
/// _32B, _64B, _128B).
enum class SwizzleMode : uint8_t { None = 0, B32 = 1, B64 = 2, B128 = 3 };

/// S / 16 - 1: the mask of pattern-row bits XORed into the chunk index
/// (0 for none, 1, 3, 7).
constexpr uint32_t swizzleMask(SwizzleMode m) {
  return m == SwizzleMode::B128  ? 7u
         : m == SwizzleMode::B64 ? 3u
         : m == SwizzleMode::B32 ? 1u
                                 : 0u;
}

/// The swizzle width S in bytes (16 for none: one chunk, nothing permuted).
constexpr uint32_t swizzleBytes(SwizzleMode m) {
  return 16u * (swizzleMask(m) + 1u);
}

/// The repeating pattern, 8 * S bytes: 256, 512, 1024 (128 for none). A
/// swizzled tile's base must be aligned to it for base offset 0.
constexpr uint32_t swizzlePatternBytes(SwizzleMode m) {
  return 8u * swizzleBytes(m);
}

/// The swizzled shared-window address of shared-window address `offset`
/// (see the file comment; base aligned to swizzlePatternBytes(m)).
constexpr uint32_t swizzle(SwizzleMode m, uint32_t offset) {
  return offset ^ (((offset >> 7) & swizzleMask(m)) << 4);
}

constexpr const char *swizzleName(SwizzleMode m) {
  return m == SwizzleMode::B128  ? "128B"
         : m == SwizzleMode::B64 ? "64B"
         : m == SwizzleMode::B32 ? "32B"
                                 : "none";
}

/// The wgmma matrix descriptor's bits 62-63 (PTX ISA 9.7.15.5.1.2.2):
/// 0 none, 1 128B, 2 64B, 3 32B (the reverse of the TMA order). False for a
/// value that is not 2 bits.
constexpr bool swizzleFromWgmmaField(uint32_t field, SwizzleMode &out) {
  if (field > 3)
    return false;
  out = field == 0 ? SwizzleMode::None : SwizzleMode(4 - field);
  return true;
}

/// The inverse: the 2-bit descriptor field of a mode.
constexpr uint32_t wgmmaFieldFromSwizzle(SwizzleMode m) {
  return m == SwizzleMode::None ? 0u : 4u - uint32_t(m);
}

/// A CUtensorMapSwizzle value (cuTensorMapEncodeTiled): 0 none, 1 32B,
/// 2 64B, 3 128B. Later drivers add 128B variants with 32- and 64-byte
/// atoms (values 4 and up); they are not sm_90 modes and are refused.
constexpr bool swizzleFromTensorMapEnum(int value, SwizzleMode &out) {
  if (value < 0 || value > 3)
    return false;
  out = SwizzleMode(value);
  return true;
}

} // namespace kgen::emu::isa

#endif // KGEN_EMULATE_SWIZZLE_H
