//===- WgmmaIsa.h - wgmma.mma_async semantics for the emulator -*- C++ -*-===//
//
// What one wgmma.mma_async with both operands in shared memory, or with A
// in registers (the register or "RS" form, f16/bf16 and e4m3), computes,
// written from the PTX ISA (v9.x section numbers):
//   9.7.15.5.2        the instruction: D = A * B (+ D when scale-d), A is
//                     M x K = 64 x K, B is K x N; imm-trans only for
//                     f16/bf16; imm-scale-a/b in {1, -1} negate an input;
//                     the register form "d, a, b-desc, scale-d,
//                     imm-scale-a, imm-scale-b, imm-trans-b" has no
//                     imm-trans-a
//   9.7.15.5.1.1      register fragments: Figure 149/153, accumulator D;
//                     Figure 148 (9.7.15.5.1.1.1), A of m64nNk16 in four
//                     .f16x2 registers per thread; Figure 152, A of
//                     m64nNk32 (e4m3) in four registers of four bytes (an
//                     image: read from CUTLASS's ALayout_64x32, see
//                     aFragmentElement8)
//   9.7.15.5.1.2      shared memory matrix layout: K-major vs MN-major,
//                     LBO/SBO definitions, the canonical layouts (CuTe
//                     notation, one row per swizzle mode and major-ness)
//   9.7.15.5.1.2.2    the 64-bit matrix descriptor
// and nothing from kgen/cuda (Wgmma.cuh, Layout.cuh): the emulator checks
// the kernels' descriptors and layouts against this independent reading.
//
// Shapes: m64nNk16 for bf16/f16, m64nNk32 for e4m3, N in {8, 16, .., 256};
// one K slice is always 32 bytes of K. f32 accumulators: each of the 128
// threads of the warpgroup holds N / 2 of them.
//
// Addresses are shared-window addresses (cvta.to.shared / smem_u32): byte
// offsets into the window the caller passes, whose base counts as aligned
// to every swizzle pattern (Swizzle.h). The swizzle is applied to the
// absolute address start + layout offset, which is what the ISA's canonical
// layouts say when the pattern starts aligned (base offset 0).
//
// Accumulation: the ISA leaves order and rounding unspecified ("at least
// single precision"; for e4m3 the hardware accumulates at less than single
// precision). Here each product is added to D in k order with one f32
// rounding per step (products of bf16, f16 and e4m3 values are exact in
// f32), as the emulated mma.sync does: the order of kgen's reference
// semantics, so a kernel whose k loop is right equals the reference bit
// for bit. The GPU may differ within its verification tolerance.
//
// Entry points (all header-only, C++17, never abort):
//   decodeMatrixDesc / encodeMatrixDesc        the descriptor fields
//   canonicalOffset / operandAddress           where element (mn, k) lives
//   accumulatorElement                         (row, col) of d[i] of thread t
//   aFragmentElement / aFragmentElement8       (row, col) of A element e of t
//                                              (16-bit / 8-bit A)
//   checkWgmma(instr, windowBytes)             "" or what is illegal
//   wgmmaReads(instr)                          the shared bytes it reads
//   runWgmma(instr, window, acc)               check, then execute
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_EMULATE_WGMMAISA_H
#define KGEN_EMULATE_WGMMAISA_H

#include "kgen/emulate/Numerics.h"
#include "kgen/emulate/Swizzle.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace kgen::emu::isa {

//===----------------------------------------------------------------------===//
// Types and shapes
//===----------------------------------------------------------------------===//

/// The input types kgen's kernels use (.atype = .btype).
enum class WgmmaType : uint8_t { BF16, F16, E4M3 };

constexpr uint32_t wgmmaElemBytes(WgmmaType t) {
  return t == WgmmaType::E4M3 ? 1u : 2u;
}
/// K of one instruction: 16 (k16, 16-bit types) or 32 (k32, e4m3).
constexpr uint32_t wgmmaK(WgmmaType t) { return 32u / wgmmaElemBytes(t); }
constexpr uint32_t kWgmmaM = 64;
constexpr uint32_t kWarpgroupThreads = 128;

constexpr const char *wgmmaTypeName(WgmmaType t) {
  return t == WgmmaType::BF16 ? "bf16" : t == WgmmaType::F16 ? "f16" : "e4m3";
}

/// Which dimension is contiguous (9.7.15.5.1.2): K-major is the default
/// (imm-trans = 0: A row-major, B column-major), MN-major is imm-trans = 1.
enum class Major : uint8_t { K, MN };

//===----------------------------------------------------------------------===//
// Matrix descriptor (9.7.15.5.1.2.2)
//===----------------------------------------------------------------------===//

/// The descriptor's fields, addresses and offsets in bytes.
///   bits  0-13  start address  >> 4
///   bits 16-29  leading dimension byte offset (LBO) >> 4
///   bits 32-45  stride dimension byte offset (SBO) >> 4
///   bits 49-51  matrix base offset (0 when the swizzle pattern is aligned)
///   bits 62-63  swizzle: 0 none, 1 128B, 2 64B, 3 32B
/// The other bits (14-15, 30-31, 46-48, 52-61) have no meaning in the ISA.
struct MatrixDesc {
  uint32_t start = 0;
  uint32_t lbo = 0;
  uint32_t sbo = 0;
  uint32_t baseOffset = 0;
  SwizzleMode swizzle = SwizzleMode::None;
  uint64_t unusedBits = 0; ///< the descriptor's bits outside every field
};

constexpr uint64_t kMatrixDescFieldBits = 0x3FFFull | (0x3FFFull << 16) |
                                          (0x3FFFull << 32) | (0x7ull << 49) |
                                          (0x3ull << 62);

constexpr MatrixDesc decodeMatrixDesc(uint64_t d) {
  MatrixDesc m;
  m.start = uint32_t(d & 0x3FFF) << 4;
  m.lbo = uint32_t((d >> 16) & 0x3FFF) << 4;
  m.sbo = uint32_t((d >> 32) & 0x3FFF) << 4;
  m.baseOffset = uint32_t((d >> 49) & 0x7);
  swizzleFromWgmmaField(uint32_t(d >> 62), m.swizzle); // 2 bits: always valid
  m.unusedBits = d & ~kMatrixDescFieldBits;
  return m;
}

/// matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4 for each byte field.
constexpr uint64_t encodeMatrixDesc(uint32_t start, uint32_t lbo, uint32_t sbo,
                                    SwizzleMode s, uint32_t baseOffset = 0) {
  auto enc = [](uint32_t x) { return uint64_t((x & 0x3FFFFu) >> 4); };
  return enc(start) | (enc(lbo) << 16) | (enc(sbo) << 32) |
         (uint64_t(baseOffset & 7u) << 49) |
         (uint64_t(wgmmaFieldFromSwizzle(s)) << 62);
}

//===----------------------------------------------------------------------===//
// Canonical layouts (9.7.15.5.1.2.1.3)
//===----------------------------------------------------------------------===//

/// Byte offset of element (mn, k) of an operand from the descriptor's start
/// address, before the swizzle; mn is M (operand A) or N (operand B), e the
/// element size, T = 16 / e elements per 16-byte chunk, S the swizzle width.
/// The ISA's CuTe layouts ((shape):(stride), strides in elements unless
/// named LBO/SBO, which are bytes), read out:
///   K-major,  none:  ((8,m),(T,2k)):((1T,SBO),(1,LBO))
///       (mn%8)*16 + (mn/8)*SBO + (k%T)*e + (k/T)*LBO
///       core matrices of 8 rows x 16 bytes; LBO steps along K, SBO along MN
///   K-major,  S:     ((8,m),(T,2k)):((S/16*T,SBO),(1,T))
///       (mn%8)*S + (mn/8)*SBO + k*e          (LBO unused, "assumed 1")
///   MN-major, none:  ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
///       (mn%T)*e + (mn/T)*SBO + (k%8)*16 + (k/8)*LBO
///   MN-major, S:     ((T,S/16,m),(8,k)):((1,T,LBO),(S/16*T,SBO))
///       (mn%(S/e))*e + (mn/(S/e))*LBO + (k%8)*S + (k/8)*SBO
/// Note LBO and SBO trade roles between the MN-major none and swizzled rows.
/// Preconditions: e divides 16; with a swizzle and K-major, k * e < S (the
/// instruction's 32 bytes of K stay in one swizzle row, true for every mode).
constexpr uint32_t canonicalOffset(const MatrixDesc &d, Major major, uint32_t e,
                                   uint32_t mn, uint32_t k) {
  const uint32_t t = 16u / e;
  const uint32_t s = swizzleBytes(d.swizzle);
  if (major == Major::K) {
    if (d.swizzle == SwizzleMode::None)
      return (mn % 8) * 16 + (mn / 8) * d.sbo + (k % t) * e + (k / t) * d.lbo;
    return (mn % 8) * s + (mn / 8) * d.sbo + k * e;
  }
  if (d.swizzle == SwizzleMode::None)
    return (mn % t) * e + (mn / t) * d.sbo + (k % 8) * 16 + (k / 8) * d.lbo;
  const uint32_t perRow = s / e; // MN elements in one S-byte row
  return (mn % perRow) * e + (mn / perRow) * d.lbo + (k % 8) * s +
         (k / 8) * d.sbo;
}

/// Shared-window address of element (mn, k): the swizzle of start + the
/// canonical offset (base offset 0 assumed; checkWgmma refuses others).
/// Operand A: mn = row m in [0, 64), k = column. Operand B: mn = column n
/// in [0, N), k = row.
constexpr uint32_t operandAddress(const MatrixDesc &d, Major major, uint32_t e,
                                  uint32_t mn, uint32_t k) {
  return swizzle(d.swizzle, d.start + canonicalOffset(d, major, e, mn, k));
}

//===----------------------------------------------------------------------===//
// Accumulator fragment (9.7.15.5.1.1, Figures 149 and 153)
//===----------------------------------------------------------------------===//

struct RowCol {
  uint32_t row, col;
};

/// The element of the 64 x N f32 D that register d[i] of warpgroup thread
/// `thread` (0..127) holds. Warp w = thread / 32 owns rows [16w, 16w + 16);
/// in it, with g = lane / 4 and q = lane % 4, each 8-column block j = i / 4
/// repeats the m16n8 pattern: d[4j] and d[4j+1] are row g, columns
/// 8j + 2q and 8j + 2q + 1; d[4j+2] and d[4j+3] the same columns of row
/// g + 8. Precondition: i < N / 2.
constexpr RowCol accumulatorElement(uint32_t thread, uint32_t i) {
  const uint32_t warp = thread / 32, lane = thread % 32;
  return {16 * warp + lane / 4 + 8 * ((i / 2) % 2),
          8 * (i / 4) + 2 * (lane % 4) + i % 2};
}

/// The element of the 64 x 16 A (16-bit types) that element e (0..7) of
/// warpgroup thread `thread`'s A registers holds in the register form:
/// register e / 2, its low half for even e (the lower address, as every
/// packed pair). Figure 148 is an image; read out (and as CUTLASS's
/// ALayout_64x16 for its SM90 RS atoms): warp w = thread / 32 holds rows
/// [16w, 16w + 16) the way mma.sync m16n8k16 holds its A (9.7.14.5.8):
/// with g = lane / 4, q = lane % 4, register 0 is row g, columns 2q and
/// 2q + 1; register 1 the same columns of row g + 8; registers 2 and 3 the
/// same rows at columns 2q + 8 and 2q + 9. Precondition: e < 8.
constexpr RowCol aFragmentElement(uint32_t thread, uint32_t e) {
  const uint32_t warp = thread / 32, lane = thread % 32;
  const uint32_t reg = e / 2, half = e % 2;
  return {16 * warp + lane / 4 + (reg % 2 ? 8 : 0),
          2 * (lane % 4) + half + (reg / 2 ? 8 : 0)};
}

/// The element of the 64 x 32 A (e4m3) that byte e (0..15: register e / 4,
/// byte e % 4 from the low end) of warpgroup thread `thread`'s A registers
/// holds in the register form of m64nNk32. Figure 152 is an image; this is
/// CUTLASS's ALayout_64x32 (cute/atom/mma_traits_sm90_gmma.hpp) evaluated
/// as written, a (thread, value) -> m + 64 k layout:
///   Layout<Shape <Shape <  _4,_8, _4>,Shape < _4,_2,   _2>>,
///          Stride<Stride<_256,_1,_16>,Stride<_64,_8,_1024>>>
/// with thread = t0 + 4 t1 + 32 t2 and value e = v0 + 4 v1 + 8 v2 (CuTe's
/// column-major coordinate order). Read out: warp w holds rows [16w,
/// 16w + 16) the way mma.sync m16n8k32 holds its 8-bit A (9.7.14.5.10):
/// register 0 is row g = lane / 4, columns 4q .. 4q + 3 (q = lane % 4);
/// register 1 the same columns of row g + 8; registers 2 and 3 the same
/// rows at columns 4q + 16 .. 4q + 19. Precondition: e < 16.
constexpr RowCol aFragmentElement8(uint32_t thread, uint32_t e) {
  const uint32_t t0 = thread % 4, t1 = (thread / 4) % 8, t2 = thread / 32;
  const uint32_t v0 = e % 4, v1 = (e / 4) % 2, v2 = e / 8;
  const uint32_t mk =
      256 * t0 + 1 * t1 + 16 * t2 + 64 * v0 + 8 * v1 + 1024 * v2;
  return {mk % kWgmmaM, mk / kWgmmaM};
}

//===----------------------------------------------------------------------===//
// The instruction
//===----------------------------------------------------------------------===//

/// One wgmma.mma_async.sync.aligned.m64nNkK.f32.T.T d, a-desc, b-desc,
/// scale-d, imm-scale-a, imm-scale-b[, imm-trans-a, imm-trans-b], or, with
/// aInRegisters, d, a, b-desc, scale-d, imm-scale-a, imm-scale-b[,
/// imm-trans-b]: A is then the 128 threads' registers aRegs (values, not
/// where they live: the issuing emulator copies them at issue, as the
/// hardware's operand is the registers' content at issue), and descA and
/// transA are unused (transA must stay false). f16/bf16 registers hold two
/// elements (aFragmentElement), e4m3 registers four (aFragmentElement8).
struct WgmmaInstr {
  WgmmaType type = WgmmaType::BF16;
  uint32_t n = 0;                ///< N: a multiple of 8 in [8, 256]
  bool transA = false;           ///< A MN-major (f16/bf16 only)
  bool transB = false;           ///< B MN-major (f16/bf16 only)
  uint64_t descA = 0, descB = 0; ///< matrix descriptors
  bool scaleD = true;            ///< false: D = A * B
  int scaleA = 1, scaleB = 1;    ///< imm-scale-a/b: 1 or -1 (negate)
  bool aInRegisters = false;     ///< the register form
  /// aRegs[t][r]: register a<r> of warpgroup thread t (aFragmentElement,
  /// aFragmentElement8 for e4m3).
  uint32_t aRegs[kWarpgroupThreads][4] = {};
};

/// A byte range [addr, addr + bytes) of the shared window.
struct SharedRange {
  uint32_t addr, bytes;
};

/// The shared window the instruction reads: data[0 .. bytes).
struct SharedWindow {
  const unsigned char *data;
  uint32_t bytes;
};

namespace detail {

inline std::string format(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
inline std::string format(const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

/// Calls fn(mn, k, addr) for every element of operand A (isB false: 64 x K)
/// or B (K x N) of `in`.
template <class Fn>
void forEachElement(const WgmmaInstr &in, bool isB, Fn &&fn) {
  const MatrixDesc d = decodeMatrixDesc(isB ? in.descB : in.descA);
  const Major major = (isB ? in.transB : in.transA) ? Major::MN : Major::K;
  const uint32_t e = wgmmaElemBytes(in.type), kk = wgmmaK(in.type);
  const uint32_t mnCount = isB ? in.n : kWgmmaM;
  for (uint32_t mn = 0; mn < mnCount; ++mn)
    for (uint32_t k = 0; k < kk; ++k)
      fn(mn, k, operandAddress(d, major, e, mn, k));
}

inline std::string checkDesc(const char *name, uint64_t raw) {
  const MatrixDesc d = decodeMatrixDesc(raw);
  if (d.unusedBits)
    return format("wgmma: %s descriptor 0x%016llx sets bits 0x%016llx that "
                  "no descriptor field uses (9.7.15.5.1.2.2)",
                  name, (unsigned long long)raw,
                  (unsigned long long)d.unusedBits);
  if (d.swizzle == SwizzleMode::None) {
    if (d.baseOffset)
      return format("wgmma: %s descriptor has base offset %u with no "
                    "swizzle, where the field is not valid "
                    "(9.7.15.5.1.2.2)",
                    name, d.baseOffset);
    return {};
  }
  if (d.baseOffset)
    return format("wgmma: %s descriptor has base offset %u (swizzle %s): a "
                  "pattern not aligned to %u bytes is not emulated (the ISA "
                  "gives the field's value, not how it moves the addresses)",
                  name, d.baseOffset, swizzleName(d.swizzle),
                  swizzlePatternBytes(d.swizzle));
  // Base offset 0 declares that the repeating pattern starts on a
  // swizzlePatternBytes boundary; the start may then lie inside the
  // pattern's first 128-byte span (a K slice), not further in.
  const uint32_t span = (d.start >> 7) & swizzleMask(d.swizzle);
  if (span)
    return format("wgmma: %s descriptor start address %u is in 128-byte "
                  "span %u of a %s swizzle pattern (%u-byte aligned) but "
                  "the base offset is 0, which says the pattern starts "
                  "there: misaligned tile, or base offset %u needed "
                  "(9.7.15.5.1.2.2)",
                  name, d.start, span, swizzleName(d.swizzle),
                  swizzlePatternBytes(d.swizzle), (d.start >> 7) & 7u);
  return {};
}

/// Checks that operand A or B lies in the window and that no two of its
/// elements share a byte (every canonical layout is one-to-one; an overlap
/// means a wrong LBO/SBO).
inline std::string checkOperand(const WgmmaInstr &in, bool isB,
                                uint32_t windowBytes) {
  const char *name = isB ? "B" : "A";
  const uint32_t e = wgmmaElemBytes(in.type);
  std::vector<uint32_t> addrs;
  addrs.reserve(size_t(isB ? in.n : kWgmmaM) * wgmmaK(in.type));
  std::string err;
  forEachElement(in, isB, [&](uint32_t mn, uint32_t k, uint32_t a) {
    if (err.empty() && uint64_t(a) + e > windowBytes)
      err = format("wgmma: %s element (%s %u, k %u) at shared address %u, "
                   "outside the %u-byte shared window",
                   name, isB ? "n" : "m", mn, k, a, windowBytes);
    addrs.push_back(a);
  });
  if (!err.empty())
    return err;
  std::sort(addrs.begin(), addrs.end());
  for (size_t i = 1; i < addrs.size(); ++i)
    if (addrs[i] < addrs[i - 1] + e)
      return format("wgmma: two elements of %s overlap at shared address %u: "
                    "LBO/SBO do not describe a canonical layout "
                    "(9.7.15.5.1.2.1)",
                    name, addrs[i]);
  return {};
}

inline float decode(WgmmaType t, const unsigned char *p) {
  if (t == WgmmaType::E4M3)
    return e4m3ToF32(p[0]);
  const uint16_t h = uint16_t(p[0] | (p[1] << 8)); // little-endian b16
  return t == WgmmaType::BF16 ? bf16ToF32(h) : f16ToF32(h);
}

} // namespace detail

/// "" if `in` is a legal instruction whose operands lie inside a shared
/// window of `windowBytes`, else one line saying what is wrong: N not a
/// multiple of 8 in [8, 256]; a transpose with e4m3 (A in registers or
/// not); A in registers with imm-trans-a (which the register form does not
/// have); imm-scale not +-1;
/// descriptor bits outside every field; a base offset (not emulated, or
/// meaningless without swizzle); a swizzled start that is not where an
/// aligned pattern begins; an element outside the window; overlapping
/// elements (LBO/SBO wrong). Start, LBO and SBO are 16-byte aligned by
/// construction (the descriptor drops their low 4 bits).
inline std::string checkWgmma(const WgmmaInstr &in, uint32_t windowBytes) {
  if (in.n < 8 || in.n > 256 || in.n % 8)
    return detail::format("wgmma: N = %u; m64nNk%u takes N = 8, 16, .., 256",
                          in.n, wgmmaK(in.type));
  if (in.type == WgmmaType::E4M3 && (in.transA || in.transB))
    return "wgmma: e4m3 operands must be K-major: imm-trans-a/b exist only "
           "for f16/bf16 (9.7.15.5.2)";
  if (in.aInRegisters && in.transA)
    return "wgmma: imm-trans-a with A in registers: the register form has "
           "no imm-trans-a operand (9.7.15.5.2)";
  if ((in.scaleA != 1 && in.scaleA != -1) ||
      (in.scaleB != 1 && in.scaleB != -1))
    return detail::format("wgmma: imm-scale-a = %d, imm-scale-b = %d; each "
                          "must be 1 or -1",
                          in.scaleA, in.scaleB);
  for (bool isB : {false, true}) {
    if (!isB && in.aInRegisters)
      continue;
    std::string err =
        detail::checkDesc(isB ? "B" : "A", isB ? in.descB : in.descA);
    if (err.empty())
      err = detail::checkOperand(in, isB, windowBytes);
    if (!err.empty())
      return err;
  }
  return {};
}

/// Every shared byte the instruction reads (A then B together; B alone with
/// A in registers), as sorted, disjoint, maximal ranges. Precondition:
/// checkWgmma(in, ..) is "".
inline std::vector<SharedRange> wgmmaReads(const WgmmaInstr &in) {
  const uint32_t e = wgmmaElemBytes(in.type);
  std::vector<uint32_t> addrs;
  for (bool isB : {false, true})
    if (isB || !in.aInRegisters)
      detail::forEachElement(in, isB, [&](uint32_t, uint32_t, uint32_t a) {
        addrs.push_back(a);
      });
  std::sort(addrs.begin(), addrs.end());
  std::vector<SharedRange> out;
  for (uint32_t a : addrs) {
    if (!out.empty() && out.back().addr + out.back().bytes >= a) {
      const uint32_t end = std::max(out.back().addr + out.back().bytes, a + e);
      out.back().bytes = end - out.back().addr;
    } else {
      out.push_back({a, e});
    }
  }
  return out;
}

/// Executes `in` over `window`: acc[t][i] (t in [0, 128), i in [0, N/2),
/// element accumulatorElement(t, i) of D) becomes
///     sum_k scaleA*A[row][k] * scaleB*B[k][col]  (+ acc[t][i] if scaleD)
/// with A and B read through the descriptors (A from aRegs by
/// aFragmentElement, or aFragmentElement8 for e4m3, in the register form).
/// Returns checkWgmma's message (and leaves acc untouched) if the
/// instruction is illegal, else "".
inline std::string runWgmma(const WgmmaInstr &in, SharedWindow window,
                            float *const acc[kWarpgroupThreads]) {
  if (std::string err = checkWgmma(in, window.bytes); !err.empty())
    return err;
  const uint32_t kk = wgmmaK(in.type);
  std::vector<float> a(size_t(kWgmmaM) * kk), b(size_t(kk) * in.n);
  if (in.aInRegisters) {
    // Each register holds 4 / eb elements, the lowest-numbered in its low
    // bytes (little-endian, as a packed pair or quad).
    const uint32_t eb = wgmmaElemBytes(in.type), perReg = 4 / eb;
    for (uint32_t t = 0; t < kWarpgroupThreads; ++t)
      for (uint32_t e = 0; e < 4 * perReg; ++e) {
        const RowCol rc =
            eb == 1 ? aFragmentElement8(t, e) : aFragmentElement(t, e);
        const uint64_t reg = in.aRegs[t][e / perReg]; // shifts up to 32
        const uint32_t shift = 8 * eb * (e % perReg);
        const unsigned char h[2] = {uint8_t(reg >> shift),
                                    uint8_t(reg >> (shift + 8))};
        a[rc.row * kk + rc.col] = float(in.scaleA) * detail::decode(in.type, h);
      }
  } else {
    detail::forEachElement(in, false, [&](uint32_t m, uint32_t k, uint32_t p) {
      a[m * kk + k] =
          float(in.scaleA) * detail::decode(in.type, window.data + p);
    });
  }
  detail::forEachElement(in, true, [&](uint32_t n, uint32_t k, uint32_t p) {
    b[k * in.n + n] = float(in.scaleB) * detail::decode(in.type, window.data + p);
  });
  for (uint32_t t = 0; t < kWarpgroupThreads; ++t)
    for (uint32_t i = 0; i < in.n / 2; ++i) {
      const RowCol rc = accumulatorElement(t, i);
      float s = in.scaleD ? acc[t][i] : 0.0f;
      for (uint32_t k = 0; k < kk; ++k)
        s = std::fma(a[rc.row * kk + k], b[k * in.n + rc.col], s);
      acc[t][i] = s;
    }
  return {};
}

} // namespace kgen::emu::isa

#endif // KGEN_EMULATE_WGMMAISA_H
