//===- Gemm.cuh - block-level GEMM steps that emitted kernels call -*- CUDA -*-===//
//
// The layer between kgen's CUDA emitter (codegen/emit/EmitCuda.cpp) and the
// tile primitives of kgen/cuda/: one call per tile op of a kgen.kernel, with
// the tile sizes as template arguments. Each function is the GPU realisation
// of the op's definition in dialect/KgenTileOps.td (which the CPU check runs).
//
//   load_box<Rows, Cols, Threads>(dst, src, ld, row0, col0, rows, cols)
//       kgen.tile.load: the (Rows, Cols) box at (row0, col0) of the
//       row-major matrix `src` (leading dimension `ld`) into a row-major
//       shared tile, zero outside (rows, cols). 16-byte cp.async when the box
//       origin and the row pitch are 16-byte aligned, else the synchronous
//       element path (the safe path for unaligned operands, chosen per call,
//       uniformly for the block).
//   commit_stage(), wait_stage<Pending>()
//       the cp.async group of one pipeline stage; wait until at most
//       `Pending` stages are in flight, then a block barrier. The ring's
//       stage indices: PipelineState<Stages> (Pipeline.cuh, included here),
//       one for the loads and one for the MMAs, each advanced per k tile.
//   SimtAccumulator<BM, BN, WarpsM, WarpsN>      (instruction family simt)
//   MmaSyncAccumulator<BM, BN, WarpsM, WarpsN>   (instruction family mma_sync)
//       the (BM, BN) f32 accumulator tile of the block in registers:
//       zero(); mma<BK, TransA, TransB>(a, b) for kgen.tile.mma;
//       epilogue<Act, HasBias, HasC>(...) for kgen.tile.epilogue;
//       gated_epilogue<Act>(up, ...) for kgen.tile.gated_epilogue;
//       add_block_scaled(part, ...) for kgen.tile.block_scale;
//       store_f32 / accumulate_f32 for split-K (kgen.tile.store/accumulate).
//
// Shapes: stage tiles are row-major (A: (BM, BK), or (BK, BM) with TransA;
// B: (BK, BN), or (BN, BK) with TransB), unpadded, 16-byte aligned rows.
// Threads = 32 * WarpsM * WarpsN, warps laid out row-major over the tile.
// Targets: sm_80 and later (cp.async, mma.sync).
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_BLOCK_GEMM_CUH
#define KGEN_BLOCK_GEMM_CUH

#include "kgen/block/Pipeline.cuh"
#include "kgen/cuda/CpAsync.cuh"
#include "kgen/cuda/Epilogue.cuh"
#include "kgen/cuda/Layout.cuh"
#include "kgen/cuda/Mma.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

namespace kgen::block {

KGEN_DEVICE constexpr long lmin(long a, long b) { return a < b ? a : b; }
KGEN_DEVICE constexpr long lmax(long a, long b) { return a > b ? a : b; }

/// Bytes of a (Stages, Rows, Cols) stage buffer of T in dynamic shared
/// memory, rounded up to 128 (where the next buffer starts): the emitted
/// kernels' buffers add up to what kgen-lower-gemm-to-tiles declares
/// (dialect/GemmLegality.h, gemmSharedMemoryBytes), and say so in a
/// static_assert.
template <class T>
KGEN_HD constexpr long stage_buffer_bytes(long stages, long rows, long cols) {
  return (stages * rows * cols * long(sizeof(T)) + 127) / 128 * 128;
}

/// An element widened to f32.
KGEN_DEVICE float to_f32(float x) { return x; }
KGEN_DEVICE float to_f32(__nv_bfloat16 x) { return __bfloat162float(x); }
KGEN_DEVICE float to_f32(__half x) { return __half2float(x); }
KGEN_DEVICE float to_f32(__nv_fp8_e4m3 x) { return static_cast<float>(x); }

//===----------------------------------------------------------------------===//
// Loads and the stage pipeline
//===----------------------------------------------------------------------===//

template <int Rows, int Cols, int Threads, class T>
KGEN_DEVICE void load_box(T *dst, const T *src, long ld, long row0, long col0,
                          long rows, long cols) {
  static_assert(Cols * sizeof(T) % 16 == 0,
                "a stage tile's rows must be whole 16-byte chunks: raise the "
                "tile's column count");
  using Layout = kgen::cuda::RowMajorPadded<T, Rows, Cols>;
  using Loader = kgen::cuda::TileLoader<Layout, Threads>;
  const T *origin = src + row0 * ld + col0;
  const int rowsLeft = int(lmin(rows - row0, Rows));
  const int colsLeft = int(lmin(cols - col0, Cols));
  if (kgen::cuda::can_use_cp_async_16(origin, ld, int(sizeof(T))))
    Loader::load_async(dst, origin, ld, rowsLeft, colsLeft, threadIdx.x);
  else
    Loader::load_sync(dst, origin, ld, rowsLeft, colsLeft, threadIdx.x);
}

KGEN_DEVICE void commit_stage() { kgen::cuda::cp_async_commit(); }

template <int Pending> KGEN_DEVICE void wait_stage() {
  kgen::cuda::cp_async_wait<Pending>();
  __syncthreads();
}

//===----------------------------------------------------------------------===//
// Accumulators
//===----------------------------------------------------------------------===//

/// The f32 split-K steps and the fused epilogue over any accumulator map
/// (`Map::acc(thread, i)`: element i's (row, col) from the map's origin).
/// `Derived` says which thread of the map this is (mapThread) and where the
/// map's tile sits in the block tile (mapOrigin).
template <class Map, class Derived> struct AccumulatorBase {
  float v[Map::kAccPerThread];

  KGEN_DEVICE void zero() {
#pragma unroll
    for (int i = 0; i < Map::kAccPerThread; ++i)
      v[i] = 0.f;
  }

  /// w[row, col] = acc for the elements inside (rows, cols); (row0, col0) is
  /// the block tile's origin.
  KGEN_DEVICE void store_f32(float *w, long ld, long row0, long col0,
                             long rows, long cols) const {
    const int thread = Derived::mapThread();
    const kgen::cuda::RowCol origin = Derived::mapOrigin();
#pragma unroll
    for (int i = 0; i < Map::kAccPerThread; ++i) {
      const kgen::cuda::RowCol rc = Map::acc(thread, i);
      const long row = row0 + origin.row + rc.row;
      const long col = col0 + origin.col + rc.col;
      if (row < rows && col < cols)
        w[row * ld + col] = v[i];
    }
  }

  /// acc += w[row, col] for the elements inside (rows, cols).
  KGEN_DEVICE void accumulate_f32(const float *w, long ld, long row0,
                                  long col0, long rows, long cols) {
    const int thread = Derived::mapThread();
    const kgen::cuda::RowCol origin = Derived::mapOrigin();
#pragma unroll
    for (int i = 0; i < Map::kAccPerThread; ++i) {
      const kgen::cuda::RowCol rc = Map::acc(thread, i);
      const long row = row0 + origin.row + rc.row;
      const long col = col0 + origin.col + rc.col;
      if (row < rows && col < cols)
        v[i] += w[row * ld + col];
    }
  }

  /// D = act(alpha * acc + beta * C + bias[col]) inside (rows, cols).
  template <kgen::cuda::Act A, bool HasBias, bool HasC, class OutT,
            class BiasT, class CT>
  KGEN_DEVICE void epilogue(OutT *d, long ld, long row0, long col0,
                            long rows, long cols, const BiasT *bias,
                            const CT *c, float alpha, float beta) const {
    constexpr kgen::cuda::BiasMode kBias =
        HasBias ? kgen::cuda::BiasMode::PerCol : kgen::cuda::BiasMode::None;
    const kgen::cuda::RowCol origin = Derived::mapOrigin();
    row0 += origin.row;
    col0 += origin.col;
    // Pairs of adjacent columns go out together when D (and C) allow it.
    const bool pairs =
        ld % 2 == 0 &&
        reinterpret_cast<unsigned long long>(d) % (2 * sizeof(OutT)) == 0 &&
        (!HasC ||
         reinterpret_cast<unsigned long long>(c) % (2 * sizeof(CT)) == 0);
    if (pairs)
      store<kgen::cuda::Epilogue<OutT, A, kBias, HasC, 2, CT, BiasT>>(
          d, ld, row0, col0, rows, cols, bias, c, alpha, beta);
    else
      store<kgen::cuda::Epilogue<OutT, A, kBias, HasC, 1, CT, BiasT>>(
          d, ld, row0, col0, rows, cols, bias, c, alpha, beta);
  }

  /// The block-scaled promotion of one 128-wide K block (kgen.tile.
  /// block_scale): v += part * (a_scale[row * ld] * b_scale) per element, in
  /// f32 with one rounding per operation, then part = 0. a_scale points at
  /// the block's column of the activations' scales [rows, ceil(K / 128)]
  /// (ld = ceil(K / 128)); row0 is the block tile's first row; rows at or
  /// past `rows` (not loaded: their part is 0) take scale 0. b_scale is the
  /// weights' scale of the tile's (K block, 128 columns), one value as the
  /// tile lies in one 128-column block (the caller reads it at col0 / 128).
  KGEN_DEVICE void add_block_scaled(Derived &part, const float *a_scale,
                                    long ld, long row0, long rows,
                                    float b_scale) {
    const int thread = Derived::mapThread();
    const kgen::cuda::RowCol origin = Derived::mapOrigin();
#pragma unroll
    for (int i = 0; i < Map::kAccPerThread; ++i) {
      const long row = row0 + origin.row + Map::acc(thread, i).row;
      const float sa = row < rows ? a_scale[row * ld] : 0.f;
      v[i] = kgen::cuda::fadd_rn(
          v[i], kgen::cuda::fmul_rn(part.v[i], kgen::cuda::fmul_rn(sa, b_scale)));
      part.v[i] = 0.f;
    }
  }

  /// D = act(acc) * up inside (rows, cols), in f32 and rounded once: the
  /// gated linear unit of an MoE expert (kgen.tile.gated_epilogue). `up`
  /// is the accumulator of the same tile against the up projection; this
  /// accumulator (the gate's) is consumed.
  template <kgen::cuda::Act A, class OutT>
  KGEN_DEVICE void gated_epilogue(const Derived &up, OutT *d, long ld,
                                  long row0, long col0, long rows,
                                  long cols) {
#pragma unroll
    for (int i = 0; i < Map::kAccPerThread; ++i)
      v[i] = kgen::cuda::fmul_rn(kgen::cuda::activate<A>(v[i]), up.v[i]);
    epilogue<kgen::cuda::Act::None, false, false>(
        d, ld, row0, col0, rows, cols, static_cast<const float *>(nullptr),
        static_cast<const OutT *>(nullptr), 1.f, 0.f);
  }

private:
  template <class Epi, class OutT, class BiasT, class CT>
  KGEN_DEVICE void store(OutT *d, long ld, long row0, long col0, long rows,
                         long cols, const BiasT *bias, const CT *c,
                         float alpha, float beta) const {
    typename Epi::Args args{d, ld, c, ld, bias, alpha, beta, int(rows),
                            int(cols)};
    Epi::template store_fragment<Map>(args, v, int(row0), int(col0),
                                      Derived::mapThread());
  }
};

/// Thread t of a SIMT block owns a (TM, TN) register tile: warp (wm, wn) of
/// a WarpsM x WarpsN grid covers (BM / WarpsM, BN / WarpsN), its lanes a
/// 4 x 8 grid of (TM, TN) tiles.
template <int BM, int BN, int WarpsM, int WarpsN> struct SimtAccMap {
  static_assert(BM % (4 * WarpsM) == 0, "BM must split into 4 lanes per warp row");
  static_assert(BN % (16 * WarpsN) == 0,
                "BN must give each lane an even number of columns");
  static constexpr int kTM = BM / (4 * WarpsM);
  static constexpr int kTN = BN / (8 * WarpsN);
  static constexpr int kAccPerThread = kTM * kTN;
  KGEN_HD static constexpr kgen::cuda::RowCol acc(int thread, int i) {
    const int warp = thread / 32, lane = thread % 32;
    const int wm = warp / WarpsN, wn = warp % WarpsN;
    return {wm * (BM / WarpsM) + (lane / 8) * kTM + i / kTN,
            wn * (BN / WarpsN) + (lane % 8) * kTN + i % kTN};
  }
};

template <int BM, int BN, int WarpsM, int WarpsN>
struct SimtAccumulator
    : AccumulatorBase<SimtAccMap<BM, BN, WarpsM, WarpsN>,
                      SimtAccumulator<BM, BN, WarpsM, WarpsN>> {
  using Map = SimtAccMap<BM, BN, WarpsM, WarpsN>;
  /// The map covers the whole block tile, thread by thread.
  KGEN_DEVICE static int mapThread() { return int(threadIdx.x); }
  KGEN_DEVICE static kgen::cuda::RowCol mapOrigin() { return {0, 0}; }

  /// acc += A x B over one (BK) stage: outer products of a TM column of A
  /// and a TN row of B per k. a and b point into shared memory (read
  /// through the instruction layer's ld_shared).
  template <int BK, bool TransA, bool TransB, class T>
  KGEN_DEVICE void mma(const T *a, const T *b) {
    const kgen::cuda::RowCol origin = Map::acc(threadIdx.x, 0);
#pragma unroll 4
    for (int k = 0; k < BK; ++k) {
      float av[Map::kTM], bv[Map::kTN];
#pragma unroll
      for (int i = 0; i < Map::kTM; ++i) {
        const int m = origin.row + i;
        av[i] = to_f32(kgen::cuda::ld_shared(TransA ? &a[k * BM + m] : &a[m * BK + k]));
      }
#pragma unroll
      for (int j = 0; j < Map::kTN; ++j) {
        const int n = origin.col + j;
        bv[j] = to_f32(kgen::cuda::ld_shared(TransB ? &b[n * BK + k] : &b[k * BN + n]));
      }
#pragma unroll
      for (int i = 0; i < Map::kTM; ++i)
#pragma unroll
        for (int j = 0; j < Map::kTN; ++j)
          this->v[i * Map::kTN + j] =
              fmaf(av[i], bv[j], this->v[i * Map::kTN + j]);
    }
  }
};

/// The mma.sync operation for an operand type.
template <class T> struct MmaOpFor;
template <> struct MmaOpFor<__nv_bfloat16> { using type = kgen::cuda::MmaBf16; };
template <> struct MmaOpFor<__half> { using type = kgen::cuda::MmaF16; };
template <> struct MmaOpFor<float> { using type = kgen::cuda::MmaTf32; };
template <> struct MmaOpFor<__nv_fp8_e4m3> { using type = kgen::cuda::MmaE4m3; };

/// Warp (wm, wn) of a WarpsM x WarpsN grid owns the (BM / WarpsM, BN /
/// WarpsN) warp tile; its lanes hold it in mma.sync m16n8 fragments.
template <int BM, int BN, int WarpsM, int WarpsN>
struct MmaSyncAccumulator
    : AccumulatorBase<kgen::cuda::WarpTileAccMap<BM / WarpsM, BN / WarpsN>,
                      MmaSyncAccumulator<BM, BN, WarpsM, WarpsN>> {
  static constexpr int kWM = BM / WarpsM, kWN = BN / WarpsN;
  static_assert(BM % WarpsM == 0 && BN % WarpsN == 0, "whole warp tiles");
  using Map = kgen::cuda::WarpTileAccMap<kWM, kWN>;

  /// The map covers one warp tile: the lane, at the warp tile's origin.
  KGEN_DEVICE static int mapThread() { return int(threadIdx.x % 32); }
  KGEN_DEVICE static kgen::cuda::RowCol mapOrigin() {
    const int warp = int(threadIdx.x / 32);
    return {warp / WarpsN * kWM, warp % WarpsN * kWN};
  }

  /// acc += A x B over one (BK) stage with ldmatrix + mma.sync; a transposed
  /// operand is read MN-major (ldmatrix .trans). e4m3 with B MN-major (a
  /// block-scaled grouped GEMM's [E, K, N] weights) is widened to f16
  /// fragments (kgen::cuda::WarpMmaE4m3F16): e4m3 mma.sync reads K-major
  /// operands only.
  template <int BK, bool TransA, bool TransB, class T>
  KGEN_DEVICE void mma(const T *a, const T *b) {
    if constexpr (kgen::cuda::kIsSame<T, __nv_fp8_e4m3> && !TransB) {
      static_assert(!TransA, "widened e4m3: A (BM, BK) K-major");
      using Warp = kgen::cuda::WarpMmaE4m3F16<
          kWM, kWN, kgen::cuda::RowMajorPadded<T, BM, BK>,
          kgen::cuda::RowMajorPadded<T, BK, BN>>;
      const kgen::cuda::RowCol origin = mapOrigin();
      Warp::template run<BK>(this->v,
                             reinterpret_cast<const unsigned char *>(a),
                             reinterpret_cast<const unsigned char *>(b),
                             origin.row, origin.col, mapThread());
    } else {
      mma_ldmatrix<BK, TransA, TransB>(a, b);
    }
  }

private:
  template <int BK, bool TransA, bool TransB, class T>
  KGEN_DEVICE void mma_ldmatrix(const T *a, const T *b) {
    using Op = typename MmaOpFor<T>::type;
    using kgen::cuda::Major;
    using LayoutA = kgen::cuda::RowMajorPadded<T, TransA ? BK : BM,
                                               TransA ? BM : BK>;
    using LayoutB = kgen::cuda::RowMajorPadded<T, TransB ? BN : BK,
                                               TransB ? BK : BN>;
    using Warp = kgen::cuda::WarpMma<Op, kWM, kWN, LayoutA,
                                     TransA ? Major::MN : Major::K, LayoutB,
                                     TransB ? Major::K : Major::MN>;
    const kgen::cuda::RowCol origin = mapOrigin();
    Warp::template run<BK>(this->v, kgen::cuda::smem_u32(a),
                           kgen::cuda::smem_u32(b), origin.row, origin.col,
                           mapThread());
  }
};

} // namespace kgen::block

#endif // KGEN_BLOCK_GEMM_CUH
