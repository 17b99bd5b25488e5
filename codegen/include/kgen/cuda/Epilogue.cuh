//===- Epilogue.cuh - fused GEMM epilogues and split-K -----------*- CUDA -*-===//
//
// What happens to the f32 accumulators after the mainloop:
//   v = act(alpha * acc + beta * C[row, col] + bias), cast to OutT, stored.
//
// Host and device (KGEN_HD, checked on the CPU):
//   relu, gelu_tanh (0.5 x (1 + tanh(0.7978845608028654 (x + 0.044715 x^3)))),
//   silu (x / (1 + exp(-x))), activate<Act>, epilogue_math<Act>;
//   f32_to_bf16_rne, f32_to_f16_rne, f32_to_e4m3_satfinite: the bit-exact
//   host path of the device casts (round to nearest even; e4m3 saturates to
//   +-448 like cvt.rn.satfinite, NaN stays NaN), and their inverses.
//
// Device:
//   Epilogue<OutT, Act, BiasMode, HasC, VecElems, CT, BiasT>
//     ::store_pair(args, row, col, v0, v1)   D[row, col..col+1] with bounds
//     ::store_fragment<Map>(args, acc, row0, col0, thread)
//         a whole accumulator fragment; Map is WarpTileAccMap (Mma.cuh) or
//         WgmmaAccMap (Wgmma.cuh): acc(thread, i) -> (row, col) relative to
//         (row0, col0), accumulators i, i + 1 (even i) adjacent columns.
//     ::stage_fragment<Map, Layout>(smem, args, acc, row0, col0, thread)
//         the same values, cast, into a shared-memory tile (for a TMA store
//         or store_staged_tile)
//   store_staged_tile<Layout, Threads>(d, ldd, smem, rows_left, cols_left,
//       tid)   16-byte coalesced stores of a staged tile, masked; the scalar
//       path when D or ldd is not 16-byte aligned.
//   Split-K (deterministic): each split stores its raw f32 partial tile
//   (splitk_store_partial) to workspace slice `split`; then either the last
//   block to arrive for the tile (splitk_last_block, then
//   splitk_reduce_region over its tile) or a second kernel
//   (splitk_reduce_pass) sums the slices in split order 0, 1, ..., S-1 and
//   applies the epilogue. Both orders are the same, so are the bits.
//
// Preconditions: D (and C) row-major with leading dimensions ldd (ldc) in
// elements (a column-major result is the transposed problem: swap A and B).
// VecElems == 2 (pair stores) needs ldd and ldc even and D, C aligned to two
// elements; VecElems == 1 has no alignment needs. Bounds: rows < m and
// cols < n are written, nothing else. beta == 0 never reads C (it may hold
// NaN). The workspace is f32, row-major, ldws even, 8-byte aligned.
//
// Targets: sm_80+ for f32/bf16/f16 outputs; e4m3 outputs need sm_89+
// (cvt.rn.satfinite.e4m3x2.f32; sm_90a on Hopper), a compile error below.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_CUDA_EPILOGUE_CUH
#define KGEN_CUDA_EPILOGUE_CUH

#include "kgen/cuda/Common.cuh"
#include "kgen/cuda/Layout.cuh"
#include "kgen/cuda/Ptx.cuh"

#if KGEN_CUDA_COMPILER
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#endif
#if !defined(__CUDACC_RTC__)
#include <cmath>
#include <cstring>
#endif

namespace kgen::cuda {

//===----------------------------------------------------------------------===//
// Activations and the epilogue formula (host and device)
//===----------------------------------------------------------------------===//

enum class Act { None, Relu, GeluTanh, Silu };
enum class BiasMode { None, PerCol, PerRow };

KGEN_HD inline float relu(float x) { return x > 0.f ? x : 0.f; }

KGEN_HD inline float gelu_tanh(float x) {
  const float inner = 0.7978845608028654f * (x + 0.044715f * x * x * x);
  return 0.5f * x * (1.f + ::tanhf(inner));
}

KGEN_HD inline float silu(float x) { return x / (1.f + ::expf(-x)); }

template <Act A> KGEN_HD inline float activate(float x) {
  if constexpr (A == Act::Relu)
    return relu(x);
  else if constexpr (A == Act::GeluTanh)
    return gelu_tanh(x);
  else if constexpr (A == Act::Silu)
    return silu(x);
  else
    return x;
}

/// act(alpha * acc + beta_c + bias), beta_c = beta * C (0 when unused).
template <Act A>
KGEN_HD inline float epilogue_math(float acc, float alpha, float beta_c,
                                   float bias) {
  return activate<A>(alpha * acc + beta_c + bias);
}

//===----------------------------------------------------------------------===//
// Rounding, bit-exact (host and device)
//===----------------------------------------------------------------------===//

KGEN_HD inline unsigned float_to_bits(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  unsigned u;
  std::memcpy(&u, &x, sizeof u);
  return u;
#endif
}

KGEN_HD inline float bits_to_float(unsigned u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
#endif
}

/// f32 -> bf16 bits, round to nearest even; NaN stays a (quiet) NaN.
KGEN_HD inline unsigned short f32_to_bf16_rne(float x) {
  const unsigned u = float_to_bits(x);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<unsigned short>((u >> 16) | 0x0040u);
  return static_cast<unsigned short>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

KGEN_HD inline float bf16_to_f32(unsigned short b) {
  return bits_to_float(static_cast<unsigned>(b) << 16);
}

/// Rounds the integer m >> s to nearest even (s >= 1).
KGEN_HD constexpr unsigned shift_rne(unsigned m, int s) {
  return (m >> s) + (((m & ((1u << s) - 1u)) > (1u << (s - 1))) ||
                     (((m & ((1u << s) - 1u)) == (1u << (s - 1))) &&
                      ((m >> s) & 1u)));
}

/// f32 -> IEEE binary16 bits, round to nearest even, overflow to infinity.
KGEN_HD inline unsigned short f32_to_f16_rne(float x) {
  const unsigned u = float_to_bits(x);
  const unsigned sign = (u >> 16) & 0x8000u;
  const unsigned a = u & 0x7fffffffu;
  if (a > 0x7f800000u) // NaN
    return static_cast<unsigned short>(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  if (a >= 0x477ff000u) // >= 65520 rounds to infinity
    return static_cast<unsigned short>(sign | 0x7c00u);
  const int e = int(a >> 23) - 127;
  const unsigned m = (a & 0x7fffffu) | 0x800000u;
  if (e >= -14) // normal: 10 mantissa bits kept; a carry bumps the exponent
    return static_cast<unsigned short>(
        sign + ((unsigned(e + 15) << 10) + shift_rne(m, 13) - 0x400u));
  if (e < -25)
    return static_cast<unsigned short>(sign);
  return static_cast<unsigned short>(sign | shift_rne(m, -e - 1));
}

KGEN_HD inline float f16_to_f32(unsigned short h) {
  const unsigned sign = (static_cast<unsigned>(h) & 0x8000u) << 16;
  const unsigned e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1f)
    return bits_to_float(sign | 0x7f800000u | (m << 13));
  if (e == 0) { // subnormal: m * 2^-24
    const float v = float(m) * bits_to_float(0x33800000u);
    return sign ? -v : v;
  }
  return bits_to_float(sign | ((e + 112u) << 23) | (m << 13));
}

/// f32 -> OCP e4m3 (E4M3FN) bits, round to nearest even, saturating to
/// +-448 (cvt.rn.satfinite); NaN -> 0x7f with the sign.
KGEN_HD inline unsigned char f32_to_e4m3_satfinite(float x) {
  const unsigned u = float_to_bits(x);
  const unsigned sign = (u >> 24) & 0x80u;
  const unsigned a = u & 0x7fffffffu;
  if (a > 0x7f800000u)
    return static_cast<unsigned char>(sign | 0x7fu);
  if (a >= 0x43e00000u) // >= 448 (and infinity) saturate
    return static_cast<unsigned char>(sign | 0x7eu);
  const int e = int(a >> 23) - 127;
  const unsigned m = (a & 0x7fffffu) | 0x800000u;
  if (e >= -6) // normal: 3 mantissa bits kept; a carry bumps the exponent
    return static_cast<unsigned char>(
        sign | ((unsigned(e + 7) << 3) + shift_rne(m, 20) - 8u));
  if (e < -10)
    return static_cast<unsigned char>(sign);
  return static_cast<unsigned char>(sign | shift_rne(m, 14 - e));
}

KGEN_HD inline float e4m3_to_f32(unsigned char b) {
  const unsigned e = (b >> 3) & 0xfu, m = b & 7u;
  float v;
  if (e == 15 && m == 7)
    v = bits_to_float(0x7fc00000u);
  else if (e == 0)
    v = float(m) * bits_to_float(0x3b000000u); // m * 2^-9
  else
    v = bits_to_float(((e + 120u) << 23) | (m << 20));
  return (b & 0x80u) ? -v : v;
}

//===----------------------------------------------------------------------===//
// Device epilogue
//===----------------------------------------------------------------------===//

#if KGEN_CUDA_COMPILER

/// Cast and store of one or two adjacent output elements.
template <class OutT> struct OutputCast {
  static_assert(kFalseT<OutT>,
                "output type must be float, __nv_bfloat16, __half or "
                "__nv_fp8_e4m3");
};
template <> struct OutputCast<float> {
  KGEN_DEVICE static void store1(float *p, float v) { *p = v; }
  KGEN_DEVICE static void store2(float *p, float v0, float v1) {
    *reinterpret_cast<float2 *>(p) = make_float2(v0, v1);
  }
};
template <> struct OutputCast<__nv_bfloat16> {
  KGEN_DEVICE static void store1(__nv_bfloat16 *p, float v) {
    *p = __float2bfloat16_rn(v);
  }
  KGEN_DEVICE static void store2(__nv_bfloat16 *p, float v0, float v1) {
    *reinterpret_cast<__nv_bfloat162 *>(p) = __floats2bfloat162_rn(v0, v1);
  }
};
template <> struct OutputCast<__half> {
  KGEN_DEVICE static void store1(__half *p, float v) { *p = __float2half_rn(v); }
  KGEN_DEVICE static void store2(__half *p, float v0, float v1) {
    *reinterpret_cast<__half2 *>(p) = __floats2half2_rn(v0, v1);
  }
};
template <> struct OutputCast<__nv_fp8_e4m3> {
  // Templates so that the arch check fires only where e4m3 output is used.
  template <int kDummy = 0>
  KGEN_DEVICE static void store1(__nv_fp8_e4m3 *p, float v) {
    *reinterpret_cast<unsigned char *>(p) =
        static_cast<unsigned char>(cvt_e4m3x2<kDummy>(0.f, v) & 0xffu);
  }
  template <int kDummy = 0>
  KGEN_DEVICE static void store2(__nv_fp8_e4m3 *p, float v0, float v1) {
    *reinterpret_cast<unsigned short *>(p) = cvt_e4m3x2<kDummy>(v1, v0);
  }
};

/// Reads of C and bias as f32.
template <class T> struct InputLoad {
  static_assert(kFalseT<T>, "C / bias type must be float, __nv_bfloat16 or "
                            "__half");
};
template <> struct InputLoad<float> {
  KGEN_DEVICE static float load1(const float *p) { return *p; }
  KGEN_DEVICE static float2 load2(const float *p) {
    return *reinterpret_cast<const float2 *>(p);
  }
};
template <> struct InputLoad<__nv_bfloat16> {
  KGEN_DEVICE static float load1(const __nv_bfloat16 *p) {
    return __bfloat162float(*p);
  }
  KGEN_DEVICE static float2 load2(const __nv_bfloat16 *p) {
    return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(p));
  }
};
template <> struct InputLoad<__half> {
  KGEN_DEVICE static float load1(const __half *p) { return __half2float(*p); }
  KGEN_DEVICE static float2 load2(const __half *p) {
    return __half22float2(*reinterpret_cast<const __half2 *>(p));
  }
};

template <class OutT, Act A = Act::None, BiasMode Bias = BiasMode::None,
          bool HasC = false, int VecElems = 2, class CT = OutT,
          class BiasT = float>
struct Epilogue {
  static_assert(VecElems == 1 || VecElems == 2,
                "fragment stores are 1 or 2 elements wide (use "
                "stage_fragment + store_staged_tile for 16-byte stores)");
  using Out = OutT;

  struct Args {
    OutT *d;
    long long ldd;
    const CT *c;       // read only when HasC and beta != 0
    long long ldc;
    const BiasT *bias; // [n] (PerCol) or [m] (PerRow)
    float alpha;
    float beta;
    int m; // rows in bounds
    int n; // cols in bounds
  };

  /// The two epilogue values for D[row, col], D[row, col + 1] (the second
  /// only meaningful when col + 1 < n). Out-of-bounds inputs read as zero.
  KGEN_DEVICE static float2 values(const Args &a, int row, int col, float v0,
                                   float v1) {
    const bool in0 = row < a.m && col < a.n;
    const bool in1 = row < a.m && col + 1 < a.n;
    float c0 = 0.f, c1 = 0.f;
    if constexpr (HasC) {
      if (a.beta != 0.f) {
        const CT *p = a.c + row * a.ldc + col;
        if (VecElems == 2 && in1) {
          const float2 c = InputLoad<CT>::load2(p);
          c0 = c.x;
          c1 = c.y;
        } else {
          if (in0)
            c0 = InputLoad<CT>::load1(p);
          if (in1)
            c1 = InputLoad<CT>::load1(p + 1);
        }
        c0 *= a.beta;
        c1 *= a.beta;
      }
    }
    float b0 = 0.f, b1 = 0.f;
    if constexpr (Bias == BiasMode::PerCol) {
      if (in0)
        b0 = InputLoad<BiasT>::load1(a.bias + col);
      if (in1)
        b1 = InputLoad<BiasT>::load1(a.bias + col + 1);
    } else if constexpr (Bias == BiasMode::PerRow) {
      if (in0)
        b0 = b1 = InputLoad<BiasT>::load1(a.bias + row);
    }
    return make_float2(epilogue_math<A>(v0, a.alpha, c0, b0),
                       epilogue_math<A>(v1, a.alpha, c1, b1));
  }

  /// D[row, col] = f(v0), D[row, col + 1] = f(v1), each if in bounds.
  KGEN_DEVICE static void store_pair(const Args &a, int row, int col, float v0,
                                     float v1) {
    if (row >= a.m || col >= a.n)
      return;
    const float2 v = values(a, row, col, v0, v1);
    OutT *p = a.d + row * a.ldd + col;
    if (VecElems == 2 && col + 1 < a.n) {
      OutputCast<OutT>::store2(p, v.x, v.y);
    } else {
      OutputCast<OutT>::store1(p, v.x);
      if (col + 1 < a.n)
        OutputCast<OutT>::store1(p + 1, v.y);
    }
  }

  /// Stores a fragment whose accumulator i sits at (row0, col0) +
  /// Map::acc(thread, i).
  template <class Map>
  KGEN_DEVICE static void store_fragment(const Args &a,
                                         const float (&acc)[Map::kAccPerThread],
                                         int row0, int col0, int thread) {
    static_assert(Map::kAccPerThread % 2 == 0, "pairs of accumulators");
#pragma unroll
    for (int i = 0; i < Map::kAccPerThread; i += 2) {
      const RowCol rc = Map::acc(thread, i);
      store_pair(a, row0 + rc.row, col0 + rc.col, acc[i], acc[i + 1]);
    }
  }

  /// Writes the cast epilogue values of a fragment into a shared tile with
  /// Layout (tile coordinates = Map coordinates); (row0, col0) is the tile's
  /// global origin, used for C, bias and bounds (out-of-bounds elements get
  /// values computed from zero inputs; the store masks them).
  template <class Map, class Layout>
  KGEN_DEVICE static void stage_fragment(void *smem_tile, const Args &a,
                                         const float (&acc)[Map::kAccPerThread],
                                         int row0, int col0, int thread) {
    static_assert(sizeof(typename Layout::Element) == sizeof(OutT),
                  "staging layout element must be the output type");
    char *smem = static_cast<char *>(smem_tile);
#pragma unroll
    for (int i = 0; i < Map::kAccPerThread; i += 2) {
      const RowCol rc = Map::acc(thread, i);
      const float2 v =
          values(a, row0 + rc.row, col0 + rc.col, acc[i], acc[i + 1]);
      // Cast in registers, then one shared store through the layer.
      struct alignas(2 * sizeof(OutT)) Pair { OutT e[2]; } pair;
      OutputCast<OutT>::store2(pair.e, v.x, v.y);
      st_shared(reinterpret_cast<Pair *>(smem + Layout::byte_offset(rc.row, rc.col)),
                pair);
    }
  }
};

namespace detail {
template <int Bytes> struct StoreUint;
template <> struct StoreUint<1> { using type = unsigned char; };
template <> struct StoreUint<2> { using type = unsigned short; };
template <> struct StoreUint<4> { using type = unsigned int; };
} // namespace detail

/// Copies a staged Layout-shaped OutT tile to D (origin `d`, pitch ldd) with
/// 16-byte stores; rows >= rows_left and cols >= cols_left are not written.
/// Scalar stores where a 16-byte chunk is partial or D / ldd unaligned.
template <class Layout, int Threads, class OutT>
KGEN_DEVICE void store_staged_tile(OutT *d, long long ldd,
                                   const void *smem_tile, int rows_left,
                                   int cols_left, int tid) {
  static_assert(sizeof(typename Layout::Element) == sizeof(OutT),
                "staging layout element must be the output type");
  constexpr int kVec = 16 / int(sizeof(OutT));
  static_assert(Layout::kCols % kVec == 0, "whole 16-byte chunks per row");
  constexpr int kChunksPerRow = Layout::kCols / kVec;
  constexpr int kChunks = Layout::kRows * kChunksPerRow;
  const bool aligned =
      (reinterpret_cast<unsigned long long>(d) % 16 == 0) &&
      ((ldd * (long long)sizeof(OutT)) % 16 == 0);
  const char *smem = static_cast<const char *>(smem_tile);
#pragma unroll 4
  for (int chunk = tid; chunk < kChunks; chunk += Threads) {
    const int row = chunk / kChunksPerRow;
    const int col = (chunk % kChunksPerRow) * kVec;
    if (row >= rows_left || col >= cols_left)
      continue;
    const uint4 v = ld_shared(
        reinterpret_cast<const uint4 *>(smem + Layout::byte_offset(row, col)));
    OutT *p = d + row * ldd + col;
    if (aligned && col + kVec <= cols_left) {
      *reinterpret_cast<uint4 *>(p) = v;
    } else { // element stores (unrolled: v stays in registers)
      using U = typename detail::StoreUint<sizeof(OutT)>::type;
      const unsigned w[4] = {v.x, v.y, v.z, v.w};
      U *q = reinterpret_cast<U *>(p);
#pragma unroll
      for (int i = 0; i < kVec; ++i)
        if (col + i < cols_left)
          q[i] = U(w[i * sizeof(OutT) / 4] >>
                   (8 * ((i * sizeof(OutT)) % 4)));
    }
  }
}

//===----------------------------------------------------------------------===//
// Split-K
//===----------------------------------------------------------------------===//

/// Stores a fragment's raw f32 accumulators to this split's workspace slice
/// `ws` (row-major, pitch ldws, m x n in bounds).
template <class Map>
KGEN_DEVICE void splitk_store_partial(float *ws, long long ldws,
                                      const float (&acc)[Map::kAccPerThread],
                                      int row0, int col0, int thread, int m,
                                      int n) {
#pragma unroll
  for (int i = 0; i < Map::kAccPerThread; i += 2) {
    const RowCol rc = Map::acc(thread, i);
    const int row = row0 + rc.row, col = col0 + rc.col;
    if (row >= m || col >= n)
      continue;
    float *p = ws + row * ldws + col;
    if (col + 1 < n) {
      *reinterpret_cast<float2 *>(p) = make_float2(acc[i], acc[i + 1]);
    } else {
      *p = acc[i];
    }
  }
}

/// Every thread of the block calls this after storing its partials. Returns
/// true (in all threads) in the block that arrived last for the tile whose
/// ticket is *counter; that block then reads all partials. The counter is
/// re-armed to 0, so the next launch needs no memset.
KGEN_DEVICE bool splitk_last_block(unsigned *counter, int splits) {
  static __shared__ unsigned s_last; // static: one per block (and per
                                    // block on the emulated device)
  __threadfence(); // this thread's partial stores, device-wide, before...
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    const unsigned prev = atomicAdd(counter, 1u); // ...the ticket
    const unsigned last = prev == unsigned(splits - 1);
    if (last) {
      __threadfence();
      atomicExch(counter, 0u);
    }
    s_last = last;
  }
  __syncthreads();
  const bool last = s_last != 0;
  if (last)
    __threadfence();
  return last;
}

/// Sum over splits 0..splits-1, in that order, of ws[s][row][col] and
/// [col + 1] (the second when `two`). L1 is bypassed (__ldcg): other blocks
/// wrote these.
KGEN_DEVICE float2 splitk_sum_pair(const float *ws, long long split_stride,
                                   long long ldws, int splits, int row, int col,
                                   bool two) {
  float s0 = 0.f, s1 = 0.f;
  const float *p = ws + row * ldws + col;
  for (int s = 0; s < splits; ++s, p += split_stride) {
    if (two) {
      const float2 v = __ldcg(reinterpret_cast<const float2 *>(p));
      s0 += v.x;
      s1 += v.y;
    } else {
      s0 += __ldcg(p);
    }
  }
  return make_float2(s0, s1);
}

/// Reduces the splits of the region [row0, row0 + rows) x [col0, col0 +
/// cols) (cols even; clipped to m x n) and applies the epilogue: thread `idx`
/// of `nthreads` takes column pairs in row-major order, so a warp reads 256
/// contiguous bytes per split. Used by the last block on its own tile
/// (idx = threadIdx.x, nthreads = blockDim.x: any thread mapping works, the
/// partials are in the workspace) and by splitk_reduce_pass.
template <class Epi>
KGEN_DEVICE void splitk_reduce_region(const typename Epi::Args &a,
                                      const float *ws, long long split_stride,
                                      long long ldws, int splits, int row0,
                                      int col0, int rows, int cols, long long idx,
                                      long long nthreads) {
  const int pairs_per_row = cols / 2;
  const long long total = (long long)rows * pairs_per_row;
#pragma unroll 4
  for (long long p = idx; p < total; p += nthreads) {
    const int row = row0 + int(p / pairs_per_row);
    const int col = col0 + int(p % pairs_per_row) * 2;
    if (row >= a.m || col >= a.n)
      continue;
    const float2 v =
        splitk_sum_pair(ws, split_stride, ldws, splits, row, col, col + 1 < a.n);
    Epi::store_pair(a, row, col, v.x, v.y);
  }
}

/// Second-pass reduction over the whole m x n output (grid-stride: thread
/// `idx` of `nthreads`).
template <class Epi>
KGEN_DEVICE void splitk_reduce_pass(const typename Epi::Args &a,
                                    const float *ws, long long split_stride,
                                    long long ldws, int splits, long long idx,
                                    long long nthreads) {
  splitk_reduce_region<Epi>(a, ws, split_stride, ldws, splits, 0, 0, a.m,
                            a.n + (a.n & 1), idx, nthreads);
}

#endif // KGEN_CUDA_COMPILER

} // namespace kgen::cuda

#endif // KGEN_CUDA_EPILOGUE_CUH
