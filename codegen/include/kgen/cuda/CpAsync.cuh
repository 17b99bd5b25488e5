//===- CpAsync.cuh - cp.async tile stages (sm_80+) ---------------*- CUDA -*-===//
//
// Global -> shared copies for multi-stage mainloops without TMA.
//
//   cp_async_cg_16(dst, src, src_bytes)  one 16-byte cp.async.cg; bytes past
//       src_bytes (0..16) are zero-filled and never read: the masked load of
//       partial tiles. src_bytes == 0 reads nothing but `src` must still be a
//       valid global address (pass the tile origin).
//   cp_async_commit(), cp_async_wait<N>(), cp_async_wait_all()
//       commit the calling thread's outstanding copies as one group; wait
//       until at most N groups are pending. A __syncthreads() after the wait
//       makes other threads' copies visible.
//   TileLoader<Layout, Threads>          a whole Rows x Cols tile (the layout's
//       shape) by `Threads` threads:
//       load_async  16-byte cp.async per chunk, zero-filled outside
//                   (rows_left, cols_left). Preconditions: the global tile
//                   origin and the row pitch `ld * sizeof(T)` are 16-byte
//                   aligned (check with can_use_cp_async_16; the kernel picks
//                   the path at launch), Cols * sizeof(T) % 16 == 0.
//       load_sync   the safe path for any alignment: element loads, zero
//                   fill, 16-byte shared stores. Synchronous.
//
// Shapes: Rows x Cols from the Layout (RowMajorPadded or RowMajorSwizzled);
// 16 / sizeof(T) elements per chunk; thread t copies chunks t, t + Threads,...
// in row-major chunk order, so a warp's 32 chunks are consecutive in global
// memory (coalesced) and, for the provided layouts, spread over all banks.
//
// Targets: cp.async needs sm_80+; using load_async or cp_async_* on an older
// target is a compile error. load_sync works everywhere.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_CUDA_CPASYNC_CUH
#define KGEN_CUDA_CPASYNC_CUH

#include "kgen/cuda/Common.cuh"
#include "kgen/cuda/Layout.cuh"
#include "kgen/cuda/Ptx.cuh"

namespace kgen::cuda {

/// True when a tile at `ptr` with a row pitch of `ld` elements of
/// `elem_bytes` bytes can take the 16-byte cp.async path.
KGEN_HD inline bool can_use_cp_async_16(const void *ptr, long long ld,
                                        int elem_bytes) {
  return (reinterpret_cast<unsigned long long>(ptr) % 16 == 0) &&
         ((ld * elem_bytes) % 16 == 0);
}

/// How many of a 16-byte chunk's `vec` elements starting at column `col` are
/// inside `cols_left` columns, in bytes (0..16).
KGEN_HD constexpr int chunk_src_bytes(int col, int cols_left, int vec,
                                      int elem_bytes) {
  return (cols_left - col >= vec ? vec
          : cols_left - col > 0  ? cols_left - col
                                 : 0) *
         elem_bytes;
}

#if KGEN_CUDA_COMPILER

namespace detail {
template <int Bytes> struct UintOfSize;
template <> struct UintOfSize<1> { using type = unsigned char; };
template <> struct UintOfSize<2> { using type = unsigned short; };
template <> struct UintOfSize<4> { using type = unsigned int; };
} // namespace detail

/// Copies a Layout-shaped tile from global to shared memory.
template <class Layout, int Threads> struct TileLoader {
  using T = typename Layout::Element;
  static constexpr int kElemBytes = int(sizeof(T));
  static constexpr int kVec = 16 / kElemBytes; // elements per chunk
  static_assert(Layout::kCols % kVec == 0,
                "tile width must be a whole number of 16-byte chunks");
  static_assert(Layout::kRowsAligned16,
                "every shared-memory row must start 16-byte aligned "
                "(pad RowMajorPadded by a multiple of 16 bytes)");
  static_assert(Threads > 0 && Threads % 32 == 0, "whole warps");
  static constexpr int kChunksPerRow = Layout::kCols / kVec;
  static constexpr int kChunks = Layout::kRows * kChunksPerRow;
  static constexpr int kIters = (kChunks + Threads - 1) / Threads;

  /// `gmem_tile` points at the tile's element (0, 0); `ld` is the global row
  /// pitch in elements; rows >= rows_left and cols >= cols_left read as zero.
  /// Commit (cp_async_commit) after this and the loads of the same stage.
  KGEN_DEVICE static void load_async(void *smem_tile, const T *gmem_tile,
                                     long long ld, int rows_left,
                                     int cols_left, int tid) {
    char *smem = static_cast<char *>(smem_tile);
#pragma unroll
    for (int it = 0; it < kIters; ++it) {
      const int chunk = tid + it * Threads;
      if (kChunks % Threads != 0 && chunk >= kChunks)
        break;
      const int row = chunk / kChunksPerRow;
      const int col = (chunk % kChunksPerRow) * kVec;
      const int bytes = row < rows_left
                            ? chunk_src_bytes(col, cols_left, kVec, kElemBytes)
                            : 0;
      const T *src = bytes > 0 ? gmem_tile + row * ld + col : gmem_tile;
      cp_async_cg_16(smem + Layout::byte_offset(row, col), src, bytes);
    }
  }

  /// The safe path: any alignment of `gmem_tile` and `ld`.
  KGEN_DEVICE static void load_sync(void *smem_tile, const T *gmem_tile,
                                    long long ld, int rows_left, int cols_left,
                                    int tid) {
    using U = typename detail::UintOfSize<kElemBytes>::type;
    static_assert(sizeof(U) == sizeof(T), "unsupported element size");
    const U *g = reinterpret_cast<const U *>(gmem_tile);
    char *smem = static_cast<char *>(smem_tile);
#pragma unroll
    for (int it = 0; it < kIters; ++it) {
      const int chunk = tid + it * Threads;
      if (kChunks % Threads != 0 && chunk >= kChunks)
        break;
      const int row = chunk / kChunksPerRow;
      const int col = (chunk % kChunksPerRow) * kVec;
      union {
        uint4 v;
        U e[kVec];
      } buf;
      buf.v = make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
      for (int i = 0; i < kVec; ++i)
        if (row < rows_left && col + i < cols_left)
          buf.e[i] = g[row * ld + col + i];
      *reinterpret_cast<uint4 *>(smem + Layout::byte_offset(row, col)) = buf.v;
    }
  }
};

#endif // KGEN_CUDA_COMPILER

} // namespace kgen::cuda

#endif // KGEN_CUDA_CPASYNC_CUH
