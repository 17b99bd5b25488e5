//===- Layout.cuh - shared-memory tile layouts ------------------*- CUDA -*-===//
//
// Where element (row, col) of a shared-memory tile lives. A tile here is
// always "row-major in its own coordinates": Rows x Cols with Cols the
// contiguous dimension. For a K-major operand (A row-major, B column-major)
// the tile is (MN rows, K cols); for an MN-major operand it is (K rows,
// MN cols). The kernels, not the layouts, know which is which.
//
// Layouts:
//   RowMajorPadded<T, Rows, Cols, Pad>   rows of Cols + Pad elements. For the
//       cp.async + ldmatrix path; Pad = 16 bytes makes a warp's 16-byte
//       accesses down a column bank-conflict-free, and along rows too when a
//       row is at least 128 bytes (narrower rows: a 2-way conflict in the
//       row-major copy; prefer RowMajorSwizzled there).
//   RowMajorXor<T, Rows, Cols>           rows packed, each row's 16-byte
//       chunks XOR-permuted by the row so that 8 rows down a column and 8
//       chunks along a row are bank-conflict-free for any row width: what
//       the sm_80 stage tiles use (cp.async writes, ldmatrix reads), with
//       no padding, so the shared-memory budget is the tile's bytes.
//   RowMajorSwizzled<T, Rows, Cols, S>   the Hopper swizzle, exactly as TMA
//       writes it (CU_TENSOR_MAP_SWIZZLE_32B/64B/128B) and as wgmma matrix
//       descriptors read it. Cols is split into column blocks of S bytes
//       (S / sizeof(T) elements, the TMA box's inner extent); block b is a
//       Rows x S-byte slab at b * Rows * S; inside a slab, row r starts at
//       r * S and its 16-byte chunks are permuted by the address swizzle
//           byte_offset bits [4, 4+b) ^= bits [7, 7+b),  b = log2(S / 16)
//       For S = 128 that is: chunk index XOR (row % 8) within each 1024-byte
//       atom of 8 rows x 128 bytes.
//
// Preconditions (static_asserts where compile-time):
//   - sizeof(T) divides 16, so a 16-byte chunk holds whole elements and
//     swizzling never splits an element;
//   - RowMajorSwizzled: Cols * sizeof(T) is a multiple of S and Rows a
//     multiple of 8 (whole atoms);
//   - the tile's shared-memory base is aligned to kAlignBytes (the swizzle is
//     a function of the absolute address; 8 * S bytes keeps this layout's
//     offsets and the hardware's pattern identical).
//
// Offsets are `KGEN_HD constexpr`, so the CPU unit tests check them and the
// emitter can fold them. Targets: any (no device code).
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_CUDA_LAYOUT_CUH
#define KGEN_CUDA_LAYOUT_CUH

#include "kgen/cuda/Common.cuh"

namespace kgen::cuda {

/// Which dimension of a GEMM operand is contiguous in its tile: K-major is
/// A row-major / B column-major (tile = MN rows x K cols), MN-major the
/// transpose (tile = K rows x MN cols).
enum class Major { K, MN };

/// Swizzle modes, valued in bytes (the TMA names: CU_TENSOR_MAP_SWIZZLE_<S>B).
enum class Swizzle : int { None = 0, B32 = 32, B64 = 64, B128 = 128 };

/// log2(S / 16): how many 16-byte-chunk index bits the swizzle XORs (0..3).
KGEN_HD constexpr int swizzle_bits(Swizzle s) {
  return s == Swizzle::B128  ? 3
         : s == Swizzle::B64 ? 2
         : s == Swizzle::B32 ? 1
                             : 0;
}

/// The swizzle TMA and wgmma apply to a shared-memory byte offset (relative
/// to a base aligned to 8 * S bytes): bits [4, 4+b) ^= bits [7, 7+b).
/// An involution: applying it twice gives the offset back.
KGEN_HD constexpr unsigned swizzle_offset(Swizzle s, unsigned byte_offset) {
  const unsigned mask = (1u << swizzle_bits(s)) - 1u;
  return byte_offset ^ (((byte_offset >> 7) & mask) << 4);
}

/// Rows x Cols, Cols contiguous, each row padded by PadElems elements.
template <class T, int Rows, int Cols, int PadElems = 0>
struct RowMajorPadded {
  static_assert(Rows > 0 && Cols > 0 && PadElems >= 0, "bad tile shape");
  static_assert(16 % sizeof(T) == 0, "element size must divide 16 bytes");
  using Element = T;
  static constexpr int kRows = Rows;
  static constexpr int kCols = Cols;
  static constexpr Swizzle kSwizzle = Swizzle::None;
  static constexpr int kElemBytes = int(sizeof(T));
  static constexpr int kRowStride = Cols + PadElems; // elements
  static constexpr int kRowBytes = kRowStride * kElemBytes;
  static constexpr int kBytes = Rows * kRowBytes;
  static constexpr int kAlignBytes = 16;
  /// 16-byte vector accesses need every row to start 16-byte aligned.
  static constexpr bool kRowsAligned16 = kRowBytes % 16 == 0;

  KGEN_HD static constexpr int offset(int row, int col) {
    return row * kRowStride + col;
  }
  KGEN_HD static constexpr int byte_offset(int row, int col) {
    return offset(row, col) * kElemBytes;
  }
};

/// Rows x Cols, Cols contiguous, rows packed (no padding: the bytes of
/// RowMajorPadded<T, Rows, Cols>), each row's 16-byte chunks permuted so
/// that 8 consecutive rows read at one column (an ldmatrix phase) and 8
/// consecutive chunks of a row-major copy land in 8 different 16-byte bank
/// groups, whatever the row width: with n = Cols * sizeof(T) / 16 chunks a
/// row and v = min(3, trailing zero bits of n), chunk c of row r is stored
/// at chunk c ^ ((r >> (3 - v)) & (2^v - 1)). The XOR stays inside each
/// aligned group of 2^v chunks, so inside the row. (For n a multiple of 8
/// it is the 128-byte swizzle's "chunk XOR row % 8"; rows with an odd
/// number of chunks need no permutation.) A function of (row, col) only,
/// so any 16-byte-aligned base works.
template <class T, int Rows, int Cols> struct RowMajorXor {
  static_assert(Rows > 0 && Cols > 0, "bad tile shape");
  static_assert(16 % sizeof(T) == 0, "element size must divide 16 bytes");
  static_assert((Cols * int(sizeof(T))) % 16 == 0,
                "a row must be whole 16-byte chunks");
  using Element = T;
  static constexpr int kRows = Rows;
  static constexpr int kCols = Cols;
  static constexpr Swizzle kSwizzle = Swizzle::None;
  static constexpr int kElemBytes = int(sizeof(T));
  static constexpr int kRowBytes = Cols * kElemBytes;
  static constexpr int kBytes = Rows * kRowBytes;
  static constexpr int kAlignBytes = 16;
  static constexpr bool kRowsAligned16 = true;
  static constexpr int kChunks = kRowBytes / 16;
  /// min(3, trailing zero bits of kChunks): how many chunk-index bits vary.
  static constexpr int kXorBits = kChunks % 8 == 0   ? 3
                                  : kChunks % 4 == 0 ? 2
                                  : kChunks % 2 == 0 ? 1
                                                     : 0;

  KGEN_HD static constexpr int chunk_of(int row, int chunk) {
    return chunk ^ ((row >> (3 - kXorBits)) & ((1 << kXorBits) - 1));
  }
  KGEN_HD static constexpr int byte_offset(int row, int col) {
    return row * kRowBytes + chunk_of(row, col * kElemBytes / 16) * 16 +
           col * kElemBytes % 16;
  }
  KGEN_HD static constexpr int offset(int row, int col) {
    return byte_offset(row, col) / kElemBytes;
  }
};

/// Rows x Cols, Cols contiguous, in S-byte column blocks with the TMA/wgmma
/// swizzle (see the file comment).
template <class T, int Rows, int Cols, Swizzle S>
struct RowMajorSwizzled {
  static_assert(S != Swizzle::None,
                "use RowMajorPadded for an unswizzled tile");
  static_assert(16 % sizeof(T) == 0, "element size must divide 16 bytes");
  static_assert(Rows > 0 && Rows % 8 == 0,
                "a swizzled tile is made of whole 8-row atoms");
  static_assert((Cols * int(sizeof(T))) % int(S) == 0,
                "Cols * sizeof(T) must be a multiple of the swizzle width "
                "(pick a narrower swizzle for narrow tiles)");
  using Element = T;
  static constexpr int kRows = Rows;
  static constexpr int kCols = Cols;
  static constexpr Swizzle kSwizzle = S;
  static constexpr int kElemBytes = int(sizeof(T));
  static constexpr int kRowBytes = int(S);                  // within a block
  static constexpr int kBlockCols = kRowBytes / kElemBytes; // TMA box inner
  static constexpr int kBlocks = Cols / kBlockCols;
  static constexpr int kBlockBytes = Rows * kRowBytes; // one TMA box
  static constexpr int kAtomBytes = 8 * kRowBytes;     // swizzle period
  static constexpr int kBytes = kBlocks * kBlockBytes;
  static constexpr int kAlignBytes = kAtomBytes;
  static constexpr bool kRowsAligned16 = true;

  /// The offset before swizzling (where TMA would put it with no swizzle).
  KGEN_HD static constexpr int linear_byte_offset(int row, int col) {
    return (col / kBlockCols) * kBlockBytes + row * kRowBytes +
           (col % kBlockCols) * kElemBytes;
  }
  KGEN_HD static constexpr int byte_offset(int row, int col) {
    return int(swizzle_offset(S, unsigned(linear_byte_offset(row, col))));
  }
  KGEN_HD static constexpr int offset(int row, int col) {
    return byte_offset(row, col) / kElemBytes;
  }
};

/// True for the layouts above (used by static_asserts in the other headers).
template <class L> struct IsSwizzledLayout {
  static constexpr bool value = false;
};
template <class T, int R, int C, Swizzle S>
struct IsSwizzledLayout<RowMajorSwizzled<T, R, C, S>> {
  static constexpr bool value = true;
};

} // namespace kgen::cuda

#endif // KGEN_CUDA_LAYOUT_CUH
