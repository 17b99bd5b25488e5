//===- PrimitivesGpuTest.cu - the primitives on a GPU vs CPU references ---===//
//
// What the CPU and compile tests cannot show: the instructions computing the
// right numbers. Needs an sm_90 GPU (H100/H200); exits 77 (skipped) without
// one. Built for sm_90a only. Prints "N passed, N failed" at the end.
//
//   mma.sync warp tiles     bf16 (4 transpositions), f16, tf32, e4m3
//   wgmma                   bf16 / f16 / e4m3, K- and MN-major, 128B / 64B
//   TMA                     swizzled boxes, partial-tile zero fill, multicast
//   epilogue casts          device bits == host rounding
//   composed GEMMs          the shipped kgen::block pipelines, as the emitter
//                           composes them (kernels/gemm_sm80.cu and
//                           kernels/gemm_sm90.cu): sm_80 cp.async + mma.sync
//                           (partial tiles, tf32 NN with residual, split-K
//                           partials + reduction twice: bitwise equal); the
//                           sm_90a WgmmaPipeline + WgmmaAccumulator epilogue
//                           (cluster multicast TN, MN-major NN, BN 192, BM 192
//                           with three consumer warpgroups, e4m3 BN 160 in a
//                           cluster, batched 3-D maps with BN 96)
//   --bench                 the sm_90a TN 128x256 cluster-2 pipeline at 8192^3
//                           vs cuBLAS (median of 20)
//
//===----------------------------------------------------------------------===//

#include "kgen/block/Gemm.cuh"
#include "kgen/block/GemmSm90.cuh"
#include "kgen/cuda/CpAsync.cuh"
#include "kgen/cuda/Epilogue.cuh"
#include "kgen/cuda/Mma.cuh"
#include "kgen/cuda/Tma.cuh"
#include "kgen/cuda/Wgmma.cuh"

#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

// The composed kernels (namespaces sm80 and sm90), also nvcc compile tests.
#include "../kernels/gemm_sm80.cu"
#include "../kernels/gemm_sm90.cu"

using namespace kgen::cuda;
using bf16 = __nv_bfloat16;
using e4m3 = __nv_fp8_e4m3;

namespace {

int g_pass = 0, g_fail = 0;

void check(bool ok, const std::string &what) {
  (ok ? g_pass : g_fail)++;
  std::printf("%s %s\n", ok ? "[ PASS ]" : "[ FAIL ]", what.c_str());
}

#define CUDA_OK(x)                                                             \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      std::printf("CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_),        \
                  __FILE__, __LINE__, cudaGetErrorString(e_));                 \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

/// Element encodings on the host (what the device reads).
enum class Ty { Bf16, F16, F32, E4m3 };
int bytesOf(Ty t) { return t == Ty::F32 ? 4 : t == Ty::E4m3 ? 1 : 2; }
/// Rounds v to the type and returns (bits, value).
std::pair<unsigned, float> encode(Ty t, float v) {
  switch (t) {
  case Ty::Bf16: {
    unsigned b = f32_to_bf16_rne(v);
    return {b, bf16_to_f32(b)};
  }
  case Ty::F16: {
    unsigned b = f32_to_f16_rne(v);
    return {b, f16_to_f32(b)};
  }
  case Ty::E4m3: {
    unsigned b = f32_to_e4m3_satfinite(v);
    return {b, e4m3_to_f32(b)};
  }
  case Ty::F32:
    return {float_to_bits(v), v};
  }
  return {0, 0};
}

/// A rows x cols matrix, row-major, random, stored as raw bytes of type t;
/// `val` keeps the decoded values for the reference.
struct HostMat {
  int rows, cols;
  Ty t;
  std::vector<unsigned char> bytes;
  std::vector<float> val;
  HostMat(int r, int c, Ty ty, std::mt19937 &rng, float lo = -1, float hi = 1)
      : rows(r), cols(c), t(ty), bytes(size_t(r) * c * bytesOf(ty)),
        val(size_t(r) * c) {
    std::uniform_real_distribution<float> dist(lo, hi);
    for (size_t i = 0; i < val.size(); ++i) {
      auto [b, v] = encode(t, dist(rng));
      val[i] = v;
      std::memcpy(&bytes[i * bytesOf(t)], &b, bytesOf(t));
    }
  }
  float at(int r, int c) const { return val[size_t(r) * cols + c]; }
};

template <class T> T *toDevice(const std::vector<T> &h) {
  T *d = nullptr;
  CUDA_OK(cudaMalloc(&d, h.size() * sizeof(T) + 16));
  CUDA_OK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}
template <class T> std::vector<T> toHost(const T *d, size_t n) {
  std::vector<T> h(n);
  CUDA_OK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

/// ||got - ref|| / ||ref|| (NaN if any got is NaN).
double relFrob(const std::vector<float> &got, const std::vector<double> &ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (std::isnan(got[i]))
      return NAN;
    num += (got[i] - ref[i]) * (got[i] - ref[i]);
    den += ref[i] * ref[i];
  }
  return std::sqrt(num / std::max(den, 1e-300));
}

/// D = A (m x k) * B (k x n), from logical accessors.
std::vector<double> refGemm(int m, int n, int k,
                            const std::function<float(int, int)> &a,
                            const std::function<float(int, int)> &b) {
  std::vector<double> d(size_t(m) * n, 0.0);
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p) {
      const double av = a(i, p);
      for (int j = 0; j < n; ++j)
        d[size_t(i) * n + j] += av * b(p, j);
    }
  return d;
}

/// Copies a Layout-shaped tile from a row-major byte matrix (the tile's own
/// rows and cols) into shared memory through the layout's offsets.
template <class L>
__device__ void fillTile(unsigned char *smem, const unsigned char *g) {
  constexpr int EB = L::kElemBytes;
  for (int i = threadIdx.x; i < L::kRows * L::kCols; i += blockDim.x) {
    const int r = i / L::kCols, c = i % L::kCols;
    for (int b = 0; b < EB; ++b)
      smem[L::byte_offset(r, c) + b] = g[i * EB + b];
  }
}

//===----------------------------------------------------------------------===//
// mma.sync warp tiles: one warp, (32, 32) += (32, K) x (K, 32)
//===----------------------------------------------------------------------===//

template <class Op, Major MA, Major MB, class LA, class LB, int K>
__global__ void warpMmaKernel(const unsigned char *a, const unsigned char *b,
                              float *d) {
  __shared__ alignas(1024) unsigned char sa[LA::kBytes];
  __shared__ alignas(1024) unsigned char sb[LB::kBytes];
  fillTile<LA>(sa, a);
  fillTile<LB>(sb, b);
  __syncthreads();
  using W = WarpMma<Op, 32, 32, LA, MA, LB, MB>;
  float acc[W::kAccPerThread];
  W::zero(acc);
  W::template run<K>(acc, smem_u32(sa), smem_u32(sb), 0, 0, threadIdx.x);
  using Epi = Epilogue<float>;
  typename Epi::Args args{d, 32, nullptr, 0, nullptr, 1.f, 0.f, 32, 32};
  Epi::store_fragment<typename W::AccMap>(args, acc, 0, 0, threadIdx.x);
}

template <class Op, Major MA, Major MB, class LA, class LB, int K>
void testWarpMma(Ty t, const char *name, double tol, std::mt19937 &rng) {
  // Stored orientation: K-major A is (32, K), MN-major A is (K, 32); B alike.
  HostMat A(MA == Major::K ? 32 : K, MA == Major::K ? K : 32, t, rng);
  HostMat B(MB == Major::K ? 32 : K, MB == Major::K ? K : 32, t, rng);
  auto a = [&](int m, int k) { return MA == Major::K ? A.at(m, k) : A.at(k, m); };
  auto b = [&](int k, int n) { return MB == Major::K ? B.at(n, k) : B.at(k, n); };
  const std::vector<double> ref = refGemm(32, 32, K, a, b);
  unsigned char *da = toDevice(A.bytes), *db = toDevice(B.bytes);
  float *dd = toDevice(std::vector<float>(32 * 32, NAN));
  warpMmaKernel<Op, MA, MB, LA, LB, K><<<1, 32>>>(da, db, dd);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  const double err = relFrob(toHost(dd, 32 * 32), ref);
  check(err < tol, std::string("mma.sync ") + name + " rel err " +
                       std::to_string(err));
  cudaFree(da);
  cudaFree(db);
  cudaFree(dd);
}

void testWarpMmas(std::mt19937 &rng) {
  using PK = RowMajorPadded<bf16, 32, 32, 8>; // (32, K = 32)
  using PM = RowMajorPadded<bf16, 32, 32, 8>; // (K = 32, 32)
  testWarpMma<MmaBf16, Major::K, Major::K, PK, PK, 32>(Ty::Bf16, "bf16 K/K", 1e-5, rng);
  testWarpMma<MmaBf16, Major::MN, Major::K, PM, PK, 32>(Ty::Bf16, "bf16 MN/K", 1e-5, rng);
  testWarpMma<MmaBf16, Major::K, Major::MN, PK, PM, 32>(Ty::Bf16, "bf16 K/MN", 1e-5, rng);
  testWarpMma<MmaBf16, Major::MN, Major::MN, PM, PM, 32>(Ty::Bf16, "bf16 MN/MN", 1e-5, rng);
  using SK = RowMajorSwizzled<__half, 32, 64, Swizzle::B128>; // (32, K = 64)
  using SM = RowMajorSwizzled<__half, 64, 32, Swizzle::B64>;  // (K = 64, 32)
  testWarpMma<MmaF16, Major::K, Major::MN, SK, SM, 64>(Ty::F16, "f16 K/MN swizzled", 1e-5, rng);
  using FK = RowMajorPadded<float, 32, 32, 4>;
  using FM = RowMajorPadded<float, 32, 32, 8>;
  testWarpMma<MmaTf32, Major::K, Major::K, FK, FK, 32>(Ty::F32, "tf32 K/K", 3e-3, rng);
  testWarpMma<MmaTf32, Major::MN, Major::MN, FM, FM, 32>(Ty::F32, "tf32 MN/MN", 3e-3, rng);
  using EK = RowMajorPadded<e4m3, 32, 64, 16>;
  testWarpMma<MmaE4m3, Major::K, Major::K, EK, EK, 64>(Ty::E4m3, "e4m3 K/K", 1e-5, rng);
}

//===----------------------------------------------------------------------===//
// wgmma: one warpgroup, (64, N) = (64, K) x (K, N), operands via descriptors
//===----------------------------------------------------------------------===//

enum class WgTy { Bf16, F16, E4m3 };

template <WgTy T, int N, Major MA, Major MB, class LA, class LB, int KE>
__global__ void wgmmaKernel(const unsigned char *a, const unsigned char *b,
                            float *d) {
  __shared__ alignas(1024) unsigned char sa[LA::kBytes];
  __shared__ alignas(1024) unsigned char sb[LB::kBytes];
  fillTile<LA>(sa, a);
  fillTile<LB>(sb, b);
  fence_proxy_async();
  __syncthreads();
  using OpA = WgmmaOperand<LA, MA, KE>;
  using OpB = WgmmaOperand<LB, MB, KE>;
  float acc[N / 2];
  fence_operand(acc);
  wgmma_fence();
#pragma unroll
  for (int k = 0; k < OpA::kSlices; ++k) {
    const auto da = OpA::desc(smem_u32(sa), k), db = OpB::desc(smem_u32(sb), k);
    if constexpr (T == WgTy::Bf16)
      wgmma_bf16<N, MA == Major::MN, MB == Major::MN>(acc, da, db, k > 0);
    else if constexpr (T == WgTy::F16)
      wgmma_f16<N, MA == Major::MN, MB == Major::MN>(acc, da, db, k > 0);
    else
      wgmma_e4m3<N>(acc, da, db, k > 0);
  }
  wgmma_commit();
  wgmma_wait<0>();
  fence_operand(acc);
  using Epi = Epilogue<float>;
  typename Epi::Args args{d, N, nullptr, 0, nullptr, 1.f, 0.f, 64, N};
  Epi::store_fragment<WgmmaAccMap<N>>(args, acc, 0, 0, threadIdx.x);
}

template <WgTy T, int N, Major MA, Major MB, class LA, class LB, int K>
void testWgmma(const char *name, std::mt19937 &rng) {
  const Ty ty = T == WgTy::Bf16 ? Ty::Bf16 : T == WgTy::F16 ? Ty::F16 : Ty::E4m3;
  HostMat A(MA == Major::K ? 64 : K, MA == Major::K ? K : 64, ty, rng);
  HostMat B(MB == Major::K ? N : K, MB == Major::K ? K : N, ty, rng);
  auto a = [&](int m, int k) { return MA == Major::K ? A.at(m, k) : A.at(k, m); };
  auto b = [&](int k, int n) { return MB == Major::K ? B.at(n, k) : B.at(k, n); };
  const std::vector<double> ref = refGemm(64, N, K, a, b);
  unsigned char *da = toDevice(A.bytes), *db = toDevice(B.bytes);
  float *dd = toDevice(std::vector<float>(64 * N, NAN));
  constexpr int KE = T == WgTy::E4m3 ? 32 : 16;
  wgmmaKernel<T, N, MA, MB, LA, LB, KE><<<1, 128>>>(da, db, dd);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  const double err = relFrob(toHost(dd, size_t(64) * N), ref);
  check(err < 1e-5, std::string("wgmma ") + name + " rel err " +
                        std::to_string(err));
  cudaFree(da);
  cudaFree(db);
  cudaFree(dd);
}

void testWgmmas(std::mt19937 &rng) {
  // bf16, both K-major, 128B swizzle, N = 256.
  testWgmma<WgTy::Bf16, 256, Major::K, Major::K,
            RowMajorSwizzled<bf16, 64, 64, Swizzle::B128>,
            RowMajorSwizzled<bf16, 256, 64, Swizzle::B128>, 64>(
      "bf16 m64n256k16 K/K 128B", rng);
  // f16, both MN-major (transposed), 128B: B spans two column blocks (LBO).
  testWgmma<WgTy::F16, 128, Major::MN, Major::MN,
            RowMajorSwizzled<__half, 64, 64, Swizzle::B128>,
            RowMajorSwizzled<__half, 64, 128, Swizzle::B128>, 64>(
      "f16 m64n128k16 MN/MN 128B", rng);
  // bf16, mixed majors, 64B swizzle (LBO used for both MN-major tiles).
  testWgmma<WgTy::Bf16, 64, Major::MN, Major::K,
            RowMajorSwizzled<bf16, 32, 64, Swizzle::B64>,
            RowMajorSwizzled<bf16, 64, 32, Swizzle::B64>, 32>(
      "bf16 m64n64k16 MN/K 64B", rng);
  testWgmma<WgTy::Bf16, 128, Major::K, Major::MN,
            RowMajorSwizzled<bf16, 64, 16, Swizzle::B32>,
            RowMajorSwizzled<bf16, 16, 128, Swizzle::B32>, 16>(
      "bf16 m64n128k16 K/MN 32B", rng);
  // N beyond {64, 128, 256}: bf16 N = 96, f16 MN-major N = 192 (three
  // column blocks of B), e4m3 N = 40.
  testWgmma<WgTy::Bf16, 96, Major::K, Major::K,
            RowMajorSwizzled<bf16, 64, 64, Swizzle::B128>,
            RowMajorSwizzled<bf16, 96, 64, Swizzle::B128>, 64>(
      "bf16 m64n96k16 K/K 128B", rng);
  testWgmma<WgTy::F16, 192, Major::MN, Major::MN,
            RowMajorSwizzled<__half, 64, 64, Swizzle::B128>,
            RowMajorSwizzled<__half, 64, 192, Swizzle::B128>, 64>(
      "f16 m64n192k16 MN/MN 128B", rng);
  testWgmma<WgTy::E4m3, 40, Major::K, Major::K,
            RowMajorSwizzled<e4m3, 64, 128, Swizzle::B128>,
            RowMajorSwizzled<e4m3, 40, 128, Swizzle::B128>, 128>(
      "e4m3 m64n40k32 K/K 128B", rng);
  // e4m3, K-major, 128B, N = 128 and 256.
  testWgmma<WgTy::E4m3, 128, Major::K, Major::K,
            RowMajorSwizzled<e4m3, 64, 128, Swizzle::B128>,
            RowMajorSwizzled<e4m3, 128, 128, Swizzle::B128>, 128>(
      "e4m3 m64n128k32 K/K 128B", rng);
  testWgmma<WgTy::E4m3, 256, Major::K, Major::K,
            RowMajorSwizzled<e4m3, 64, 64, Swizzle::B64>,
            RowMajorSwizzled<e4m3, 256, 64, Swizzle::B64>, 64>(
      "e4m3 m64n256k32 K/K 64B", rng);
}

//===----------------------------------------------------------------------===//
// TMA
//===----------------------------------------------------------------------===//

using EncodeTiled = CUresult (*)(CUtensorMap *, CUtensorMapDataType, cuuint32_t,
                                 void *, const cuuint64_t *, const cuuint64_t *,
                                 const cuuint32_t *, const cuuint32_t *,
                                 CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion,
                                 CUtensorMapFloatOOBfill);

EncodeTiled encodeTiled() {
  static EncodeTiled fn = nullptr;
  if (!fn) {
    cudaDriverEntryPointQueryResult q;
    void *p = nullptr;
    CUDA_OK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p,
                                             12000, cudaEnableDefault, &q));
    fn = reinterpret_cast<EncodeTiled>(p);
  }
  return fn;
}

/// A 2-D map over a row-major (rows, cols) matrix of 2- or 1-byte elements,
/// box {boxCols, boxRows}, with the given swizzle.
CUtensorMap makeMap(void *base, CUtensorMapDataType dt, int elemBytes,
                    long rows, long cols, int boxCols, int boxRows,
                    CUtensorMapSwizzle sw) {
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(cols) * elemBytes};
  const cuuint32_t box[2] = {cuuint32_t(boxCols), cuuint32_t(boxRows)};
  const cuuint32_t estr[2] = {1, 1};
  const CUresult r = encodeTiled()(
      &map, dt, 2, base, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
      sw, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::printf("cuTensorMapEncodeTiled failed: %d\n", int(r));
    std::exit(1);
  }
  return map;
}

using TmaTile = RowMajorSwizzled<bf16, 64, 128, Swizzle::B128>; // 2 boxes

__global__ void tmaTileKernel(const __grid_constant__ CUtensorMap map,
                              unsigned short *out, int col0, int row0) {
  __shared__ alignas(1024) unsigned char tile[TmaTile::kBytes];
  __shared__ alignas(8) unsigned long long bar;
  if (threadIdx.x == 0) {
    mbar_init(&bar, 1);
    fence_barrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&bar, TmaTile::kBytes);
    tma_load_tile<TmaTile>(tile, &map, &bar, col0, row0);
  }
  mbar_wait(&bar, 0);
  for (int i = threadIdx.x; i < TmaTile::kRows * TmaTile::kCols; i += blockDim.x)
    out[i] = reinterpret_cast<const unsigned short *>(
        tile)[TmaTile::offset(i / TmaTile::kCols, i % TmaTile::kCols)];
}

__global__ void __cluster_dims__(2, 1, 1)
    tmaMulticastKernel(const __grid_constant__ CUtensorMap map,
                       unsigned short *out) {
  __shared__ alignas(1024) unsigned char tile[TmaTile::kBytes];
  __shared__ alignas(8) unsigned long long bar;
  const unsigned rank = cluster_ctarank();
  if (threadIdx.x == 0) {
    mbar_init(&bar, 1);
    fence_barrier_init();
  }
  cluster_sync();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(&bar, TmaTile::kBytes); // both boxes land here
    tma_load_2d_multicast(tile + rank * TmaTile::kBlockBytes, &map, &bar,
                          rank * TmaTile::kBlockCols, 0, 0x3);
  }
  mbar_wait(&bar, 0);
  unsigned short *o = out + blockIdx.x * TmaTile::kRows * TmaTile::kCols;
  for (int i = threadIdx.x; i < TmaTile::kRows * TmaTile::kCols; i += blockDim.x)
    o[i] = reinterpret_cast<const unsigned short *>(
        tile)[TmaTile::offset(i / TmaTile::kCols, i % TmaTile::kCols)];
  cluster_sync();
}

void testTma(std::mt19937 &rng) {
  const int rows = 100, cols = 200; // pitch 400 bytes
  HostMat M(rows, cols, Ty::Bf16, rng);
  unsigned char *dm = toDevice(M.bytes);
  const CUtensorMap map =
      makeMap(dm, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, rows, cols,
              TmaTile::kBlockCols, TmaTile::kRows,
              CU_TENSOR_MAP_SWIZZLE_128B);
  const int n = TmaTile::kRows * TmaTile::kCols;
  unsigned short *dout = toDevice(std::vector<unsigned short>(2 * n, 0xffff));
  auto expectTile = [&](const std::vector<unsigned short> &got, int col0,
                        int row0) {
    for (int r = 0; r < TmaTile::kRows; ++r)
      for (int c = 0; c < TmaTile::kCols; ++c) {
        const int gr = row0 + r, gc = col0 + c;
        unsigned short want = 0; // out of bounds: zero fill
        if (gr < rows && gc < cols)
          std::memcpy(&want, &M.bytes[(size_t(gr) * cols + gc) * 2], 2);
        if (got[r * TmaTile::kCols + c] != want)
          return false;
      }
    return true;
  };
  // Interior tile, then a partial one (36 rows, 72 cols in bounds).
  for (auto [col0, row0] : {std::pair<int, int>{0, 0}, {128, 64}}) {
    tmaTileKernel<<<1, 128>>>(map, dout, col0, row0);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    check(expectTile(toHost(dout, n), col0, row0),
          "TMA 128B-swizzled tile at (" + std::to_string(row0) + ", " +
              std::to_string(col0) + ") matches RowMajorSwizzled");
  }
  tmaMulticastKernel<<<2, 128>>>(map, dout);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  const std::vector<unsigned short> both = toHost(dout, 2 * n);
  check(expectTile(std::vector<unsigned short>(both.begin(), both.begin() + n), 0, 0) &&
            expectTile(std::vector<unsigned short>(both.begin() + n, both.end()), 0, 0),
        "TMA multicast: both CTAs of the cluster hold the whole tile");
  cudaFree(dm);
  cudaFree(dout);
}

//===----------------------------------------------------------------------===//
// Epilogue casts
//===----------------------------------------------------------------------===//

__global__ void castKernel(const float *x, int n, unsigned short *b16,
                           unsigned short *h16, unsigned char *f8,
                           unsigned short *b16pair, unsigned char *f8pair) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  OutputCast<bf16>::store1(reinterpret_cast<bf16 *>(b16) + i, x[i]);
  OutputCast<__half>::store1(reinterpret_cast<__half *>(h16) + i, x[i]);
  OutputCast<e4m3>::store1(reinterpret_cast<e4m3 *>(f8) + i, x[i]);
  if (i % 2 == 0 && i + 1 < n) {
    OutputCast<bf16>::store2(reinterpret_cast<bf16 *>(b16pair) + i, x[i], x[i + 1]);
    OutputCast<e4m3>::store2(reinterpret_cast<e4m3 *>(f8pair) + i, x[i], x[i + 1]);
  }
}

void testCasts() {
  std::vector<float> x;
  std::mt19937 rng(7);
  for (int i = 0; i < 1 << 18; ++i)
    x.push_back(bits_to_float(rng()));
  for (int i = -4000; i <= 4000; ++i)
    x.push_back(std::ldexp(float(i), -10) + std::ldexp(1.f, -14));
  x.push_back(448.f);
  x.push_back(464.f);
  x.push_back(INFINITY);
  x.push_back(-INFINITY);
  if (x.size() % 2)
    x.push_back(0.f);
  const int n = int(x.size());
  float *dx = toDevice(x);
  auto *b16 = toDevice(std::vector<unsigned short>(n));
  auto *h16 = toDevice(std::vector<unsigned short>(n));
  auto *f8 = toDevice(std::vector<unsigned char>(n));
  auto *b16p = toDevice(std::vector<unsigned short>(n));
  auto *f8p = toDevice(std::vector<unsigned char>(n));
  castKernel<<<(n + 255) / 256, 256>>>(dx, n, b16, h16, f8, b16p, f8p);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  const auto hb = toHost(b16, n), hh = toHost(h16, n), hbp = toHost(b16p, n);
  const auto hf = toHost(f8, n), hfp = toHost(f8p, n);
  int bad[3] = {0, 0, 0};
  for (int i = 0; i < n; ++i) {
    if (std::isnan(x[i])) {
      bad[0] += !std::isnan(bf16_to_f32(hb[i])) || !std::isnan(bf16_to_f32(hbp[i]));
      bad[1] += !std::isnan(f16_to_f32(hh[i]));
      bad[2] += (hf[i] & 0x7f) != 0x7f || (hfp[i] & 0x7f) != 0x7f;
      continue;
    }
    bad[0] += hb[i] != f32_to_bf16_rne(x[i]) || hbp[i] != f32_to_bf16_rne(x[i]);
    bad[1] += hh[i] != f32_to_f16_rne(x[i]);
    bad[2] += hf[i] != f32_to_e4m3_satfinite(x[i]) ||
              hfp[i] != f32_to_e4m3_satfinite(x[i]);
  }
  check(bad[0] == 0, "bf16 device cast == host rounding (" +
                         std::to_string(bad[0]) + " differ)");
  check(bad[1] == 0, "f16 device cast == host rounding (" +
                         std::to_string(bad[1]) + " differ)");
  check(bad[2] == 0, "e4m3 device cast == host rounding (" +
                         std::to_string(bad[2]) + " differ)");
  for (void *p : {(void *)dx, (void *)b16, (void *)h16, (void *)f8, (void *)b16p,
                  (void *)f8p})
    cudaFree(p);
}

//===----------------------------------------------------------------------===//
// Composed GEMMs: the shipped kgen::block pipelines
//===----------------------------------------------------------------------===//

double gelu(double x) {
  return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}
double applyAct(Act a, double x) {
  switch (a) {
  case Act::Relu:
    return std::max(0.0, x);
  case Act::GeluTanh:
    return gelu(x);
  case Act::Silu:
    return x / (1 + std::exp(-x));
  default:
    return x;
  }
}

float toFloat(float x) { return x; }
float toFloat(bf16 x) { return __bfloat162float(x); }

template <class OutT> OutT nanOf() {
  if constexpr (std::is_same_v<OutT, float>)
    return NAN;
  else
    return __float2bfloat16(NAN);
}

void testGemmSm80(std::mt19937 &rng) {
  using G = sm80::TnBf16;
  const dim3 block(G::kThreads);
  { // bf16 TN, bias + gelu; partial tiles everywhere; K % 8 == 0 keeps rows
    // 16-byte aligned (load_box's cp.async path).
    const int m = 200, n = 136, k = 104;
    HostMat A(m, k, Ty::Bf16, rng), Bt(n, k, Ty::Bf16, rng); // TN
    std::vector<float> bias(n);
    for (float &v : bias)
      v = std::uniform_real_distribution<float>(-1, 1)(rng);
    const std::vector<double> ref = refGemm(
        m, n, k, [&](int i, int p) { return A.at(i, p); },
        [&](int p, int j) { return Bt.at(j, p); });
    unsigned char *da = toDevice(A.bytes), *db = toDevice(Bt.bytes);
    float *dbias = toDevice(bias);
    bf16 *dd = toDevice(std::vector<bf16>(size_t(m) * n, nanOf<bf16>()));
    CUDA_OK(cudaFuncSetAttribute(sm80::gemm_bf16_tn_bias_gelu,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 G::kSmemBytes));
    sm80::gemm_bf16_tn_bias_gelu<<<dim3((n + 127) / 128, (m + 127) / 128),
                                   block, G::kSmemBytes>>>(
        reinterpret_cast<const bf16 *>(da), reinterpret_cast<const bf16 *>(db),
        dbias, dd, m, n, k);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    const std::vector<bf16> hd = toHost(dd, size_t(m) * n);
    std::vector<float> got(hd.size());
    std::vector<double> want(ref.size());
    for (size_t i = 0; i < hd.size(); ++i) {
      got[i] = __bfloat162float(hd[i]);
      want[i] = gelu(ref[i] + bias[i % n]);
    }
    const double err = relFrob(got, want);
    check(err < 1e-2, "sm_80 block pipeline bf16 TN 200x136x104 bias+gelu "
                      "rel err " + std::to_string(err));
    for (void *p : {(void *)da, (void *)db, (void *)dbias, (void *)dd})
      cudaFree(p);
  }
  { // tf32 NN: A stored (K, M), B (K, N); D = A * B + C, f32.
    using N = sm80::NnTf32;
    const int m = 200, n = 136, k = 72;
    HostMat At(k, m, Ty::F32, rng), B(k, n, Ty::F32, rng), C(m, n, Ty::F32, rng);
    const std::vector<double> ref = refGemm(
        m, n, k, [&](int i, int p) { return At.at(p, i); },
        [&](int p, int j) { return B.at(p, j); });
    std::vector<double> want(ref.size());
    for (size_t i = 0; i < ref.size(); ++i)
      want[i] = ref[i] + C.val[i];
    unsigned char *da = toDevice(At.bytes), *db = toDevice(B.bytes),
                  *dc = toDevice(C.bytes);
    float *dd = toDevice(std::vector<float>(size_t(m) * n, NAN));
    CUDA_OK(cudaFuncSetAttribute(sm80::gemm_tf32_nn_residual,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 N::kSmemBytes));
    sm80::gemm_tf32_nn_residual<<<dim3((n + 127) / 128, (m + 127) / 128),
                                  N::kThreads, N::kSmemBytes>>>(
        reinterpret_cast<const float *>(da), reinterpret_cast<const float *>(db),
        reinterpret_cast<const float *>(dc), dd, m, n, k);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    const double err = relFrob(toHost(dd, size_t(m) * n), want);
    check(err < 3e-3, "sm_80 block pipeline tf32 NN 200x136x72 + C rel err " +
                          std::to_string(err));
    for (void *p : {(void *)da, (void *)db, (void *)dc, (void *)dd})
      cudaFree(p);
  }
  { // Split-K, 4 splits of K = 1000 (8 k tiles each), twice: partials into
    // the workspace, the reduction in split order: bitwise equal, and close.
    const int m = 200, n = 136, k = 1000, splits = 4, ktSplit = 8;
    HostMat A(m, k, Ty::Bf16, rng), Bt(n, k, Ty::Bf16, rng);
    const std::vector<double> ref = refGemm(
        m, n, k, [&](int i, int p) { return A.at(i, p); },
        [&](int p, int j) { return Bt.at(j, p); });
    unsigned char *da = toDevice(A.bytes), *db = toDevice(Bt.bytes);
    float *ws = toDevice(std::vector<float>(size_t(splits) * m * n, NAN));
    bf16 *dd = toDevice(std::vector<bf16>(size_t(m) * n, nanOf<bf16>()));
    CUDA_OK(cudaFuncSetAttribute(sm80::gemm_bf16_tn_splitk,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 G::kSmemBytes));
    std::vector<bf16> runs[2];
    for (int run = 0; run < 2; ++run) {
      const dim3 grid((n + 127) / 128, (m + 127) / 128, splits);
      sm80::gemm_bf16_tn_splitk<<<grid, block, G::kSmemBytes>>>(
          reinterpret_cast<const bf16 *>(da),
          reinterpret_cast<const bf16 *>(db), ws, m, n, k, ktSplit);
      CUDA_OK(cudaGetLastError());
      sm80::gemm_bf16_tn_splitk_reduce<<<dim3(grid.x, grid.y), 256>>>(
          ws, dd, m, n, splits);
      CUDA_OK(cudaGetLastError());
      CUDA_OK(cudaDeviceSynchronize());
      runs[run] = toHost(dd, size_t(m) * n);
    }
    std::vector<float> got(runs[0].size());
    for (size_t i = 0; i < got.size(); ++i)
      got[i] = __bfloat162float(runs[0][i]);
    const double err = relFrob(got, ref);
    check(err < 1e-2 && std::memcmp(runs[0].data(), runs[1].data(),
                                    runs[0].size() * sizeof(bf16)) == 0,
          "sm_80 block pipeline split-K x4 (partials + reduction): "
          "deterministic, rel err " + std::to_string(err));
    for (void *p : {(void *)da, (void *)db, (void *)ws, (void *)dd})
      cudaFree(p);
  }
}

/// A 3-D map over (batch, rows, cols) row-major planes, box {boxCols,
/// boxRows, 1}: a batched operand's plane per block.
CUtensorMap makeMap3d(void *base, CUtensorMapDataType dt, int elemBytes,
                      long batch, long rows, long cols, int boxCols,
                      int boxRows) {
  CUtensorMap map;
  const cuuint64_t dims[3] = {cuuint64_t(cols), cuuint64_t(rows),
                              cuuint64_t(batch)};
  const cuuint64_t strides[2] = {cuuint64_t(cols) * elemBytes,
                                 cuuint64_t(rows) * cols * elemBytes};
  const cuuint32_t box[3] = {cuuint32_t(boxCols), cuuint32_t(boxRows), 1};
  const cuuint32_t estr[3] = {1, 1, 1};
  const CUresult r = encodeTiled()(
      &map, dt, 3, base, dims, strides, box, estr,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
      CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::printf("cuTensorMapEncodeTiled (3-D) failed: %d\n", int(r));
    std::exit(1);
  }
  return map;
}

CUtensorMapDataType mapType(Ty t) {
  return t == Ty::E4m3  ? CU_TENSOR_MAP_DATA_TYPE_UINT8
         : t == Ty::F16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                        : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
}

/// The tensor maps of a pipeline P over A and B as stored: A (M, K) or, with
/// TransA, (K, M); B (K, N) or, with TransB, (N, K); planes of `batch` when
/// P's operands are batched.
template <class P> struct Sm90Maps {
  CUtensorMap a, b;
  Sm90Maps(Ty t, const void *da, const void *db, bool transA, bool transB,
           long batch, long m, long n, long k) {
    const long aRows = transA ? k : m, aCols = transA ? m : k;
    const long bRows = transB ? n : k, bCols = transB ? k : n;
    void *pa = const_cast<void *>(da), *pb = const_cast<void *>(db);
    if (batch > 1) {
      a = makeMap3d(pa, mapType(t), bytesOf(t), batch, aRows, aCols,
                    P::kBoxAInner, P::kBoxAOuter);
      b = makeMap3d(pb, mapType(t), bytesOf(t), batch, bRows, bCols,
                    P::kBoxBInner, P::kBoxBOuter);
    } else {
      a = makeMap(pa, mapType(t), bytesOf(t), aRows, aCols, P::kBoxAInner,
                  P::kBoxAOuter, CU_TENSOR_MAP_SWIZZLE_128B);
      b = makeMap(pb, mapType(t), bytesOf(t), bRows, bCols, P::kBoxBInner,
                  P::kBoxBOuter, CU_TENSOR_MAP_SWIZZLE_128B);
    }
  }
};

/// One sm90 kernel (kernels/gemm_sm90.cu) against the CPU: D = act(alpha *
/// A x B + beta * C + bias) over `batch` planes (A and B batched alike),
/// partial tiles; grid rows rounded up to whole clusters of clusterM.
template <class P, int BN, class OutT, class Kernel>
void testSm90(const char *name, Kernel kernel, Ty t, bool transA,
              bool transB, int clusterM, Act act, bool hasBias, bool hasC,
              long batch, int m, int n, int k, std::mt19937 &rng,
              double tol) {
  constexpr int BM = P::kConsumers * 64;
  const Ty outTy = std::is_same_v<OutT, float> ? Ty::F32 : Ty::Bf16;
  // Stored operands, plane after plane.
  HostMat A(int(batch) * (transA ? k : m), transA ? m : k, t, rng);
  HostMat B(int(batch) * (transB ? n : k), transB ? k : n, t, rng);
  HostMat C(int(batch) * m, n, outTy, rng);
  std::vector<float> bias(n);
  for (float &v : bias)
    v = std::uniform_real_distribution<float>(-1, 1)(rng);
  const float alpha = 0.75f, beta = hasC ? 0.5f : 0.f;
  std::vector<double> want(size_t(batch) * m * n);
  for (long z = 0; z < batch; ++z) {
    const int ao = int(z) * (transA ? k : m), bo = int(z) * (transB ? n : k);
    const std::vector<double> ref = refGemm(
        m, n, k,
        [&](int i, int p) { return transA ? A.at(ao + p, i) : A.at(ao + i, p); },
        [&](int p, int j) { return transB ? B.at(bo + j, p) : B.at(bo + p, j); });
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double v = alpha * ref[size_t(i) * n + j];
        if (hasC)
          v += beta * C.at(int(z) * m + i, j);
        if (hasBias)
          v += bias[j];
        want[(size_t(z) * m + i) * n + j] = applyAct(act, v);
      }
  }
  unsigned char *da = toDevice(A.bytes), *db = toDevice(B.bytes),
                *dc = toDevice(C.bytes);
  float *dbias = toDevice(bias);
  OutT *dd = toDevice(std::vector<OutT>(want.size(), nanOf<OutT>()));
  const Sm90Maps<P> maps(t, da, db, transA, transB, batch, m, n, k);
  CUDA_OK(cudaFuncSetAttribute(kernel,
                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                               P::kSmemBytes));
  const unsigned mTiles = unsigned((m + BM - 1) / BM);
  const dim3 grid((n + BN - 1) / BN,
                  (mTiles + clusterM - 1) / clusterM * clusterM,
                  unsigned(batch));
  kernel<<<grid, P::kThreads, P::kSmemBytes>>>(
      maps.a, maps.b, dd, hasBias ? dbias : nullptr,
      hasC ? reinterpret_cast<const OutT *>(dc) : nullptr, alpha, beta, m, n,
      k);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  const std::vector<OutT> hd = toHost(dd, want.size());
  std::vector<float> got(hd.size());
  for (size_t i = 0; i < hd.size(); ++i)
    got[i] = toFloat(hd[i]);
  const double err = relFrob(got, want);
  check(err < tol, std::string("WgmmaPipeline ") + name + " rel err " +
                       std::to_string(err));
  for (void *p : {(void *)da, (void *)db, (void *)dc, (void *)dbias,
                  (void *)dd})
    cudaFree(p);
}

/// The TN 128x256 cluster-2 pipeline (A (M, K), B^T (N, K)), bias + relu,
/// bf16 out: `reps` launches, the median time in ms.
float runGemmSm90Tn(int m, int n, int k, const void *a, const void *bt, bf16 *d,
                    const float *bias, int reps) {
  using P = sm90::TnCluster;
  const Sm90Maps<P> maps(Ty::Bf16, a, bt, false, true, 1, m, n, k);
  CUDA_OK(cudaFuncSetAttribute(sm90::gemm_bf16_tn_128x256_cluster2,
                               cudaFuncAttributeMaxDynamicSharedMemorySize,
                               P::kSmemBytes));
  const dim3 grid((n + 255) / 256, ((m + 127) / 128 + 1) / 2 * 2);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<float> ms;
  for (int r = 0; r < reps; ++r) {
    cudaEventRecord(e0);
    sm90::gemm_bf16_tn_128x256_cluster2<<<grid, P::kThreads, P::kSmemBytes>>>(
        maps.a, maps.b, d, bias, nullptr, 1.f, 0.f, m, n, k);
    cudaEventRecord(e1);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaEventSynchronize(e1));
    float t;
    cudaEventElapsedTime(&t, e0, e1);
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

void testGemmSm90(std::mt19937 &rng) {
  // Row pitches stay 16-byte multiples (TMA): K % 8 == 0 for 16-bit
  // K-major operands, M / N % 8 == 0 for MN-major ones, K % 16 for e4m3.
  testSm90<sm90::TnCluster, 256, bf16>(
      "bf16 TN 128x256 cluster 2, bias + relu, 250x500x200",
      sm90::gemm_bf16_tn_128x256_cluster2, Ty::Bf16, false, true, 2,
      Act::Relu, true, false, 1, 250, 500, 200, rng, 1e-2);
  testSm90<sm90::NnF16, 128, float>(
      "f16 NN (MN-major A and B) 128x128, f32 out, 200x200x136",
      sm90::gemm_f16_nn_128x128, Ty::F16, true, false, 1, Act::None, false,
      false, 1, 200, 200, 136, rng, 1e-4);
  testSm90<sm90::Tn192, 192, bf16>(
      "bf16 TN 128x192 (N 192), silu + C, 300x400x200",
      sm90::gemm_bf16_tn_128x192, Ty::Bf16, false, true, 1, Act::Silu, false,
      true, 1, 300, 400, 200, rng, 1e-2);
  testSm90<sm90::Nn192, 192, float>(
      "bf16 NN 192x192 (three consumer warpgroups), f32 out, 392x456x136",
      sm90::gemm_bf16_nn_192x192, Ty::Bf16, true, false, 1, Act::None, false,
      false, 1, 392, 456, 136, rng, 1e-4);
  testSm90<sm90::TnE4m3, 160, bf16>(
      "e4m3 TN 192x160 cluster 2, 380x330x256",
      sm90::gemm_e4m3_tn_192x160_cluster2, Ty::E4m3, false, true, 2,
      Act::None, false, false, 1, 380, 330, 256, rng, 1e-2);
  testSm90<sm90::TnBatched, 96, bf16>(
      "bf16 TN 64x96 batched x3 (3-D maps), 100x200x128",
      sm90::gemm_bf16_tn_batched_64x96, Ty::Bf16, false, true, 1, Act::None,
      false, false, 3, 100, 200, 128, rng, 1e-2);
}

void bench() {
  const int s = 8192;
  std::vector<bf16> h(size_t(s) * s);
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (auto &v : h)
    v = __float2bfloat16(dist(rng));
  bf16 *a = toDevice(h), *b = toDevice(h);
  bf16 *d = toDevice(std::vector<bf16>(size_t(s) * s));
  float *bias = toDevice(std::vector<float>(s, 0.f)); // the kernel adds one
  const float ms = runGemmSm90Tn(s, s, s, a, b, d, bias, 20);
  cublasHandle_t handle;
  cublasCreate(&handle);
  const float alpha = 1, beta = 0;
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<float> cms;
  for (int r = 0; r < 20; ++r) {
    cudaEventRecord(e0);
    // Column-major D^T (n x m) = B^T^T ... : D = A * B^T with A, B^T
    // row-major (k contiguous) is cuBLAS's op(T) x op(N) on the transposes.
    cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, s, s, s, &alpha, b,
                 CUDA_R_16BF, s, a, CUDA_R_16BF, s, &beta, d, CUDA_R_16BF, s,
                 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float t;
    cudaEventElapsedTime(&t, e0, e1);
    cms.push_back(t);
  }
  std::sort(cms.begin(), cms.end());
  const double flop = 2.0 * s * s * s;
  std::printf("bench 8192^3 bf16 TN: WgmmaPipeline 128x256 cluster 2 %.3f ms "
              "(%.0f TFLOP/s), cuBLAS %.3f ms (%.0f TFLOP/s), ratio %.2f "
              "(median of 20, no L2 rotation)\n",
              ms, flop / ms / 1e9, cms[10], flop / cms[10] / 1e9, cms[10] / ms);
  cublasDestroy(handle);
  cudaFree(bias);
  cudaFree(a);
  cudaFree(b);
  cudaFree(d);
}

} // namespace

int main(int argc, char **argv) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("no CUDA device: skipped\n");
    return 77;
  }
  cudaDeviceProp prop;
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, sm_%d%d, %d SMs\n", prop.name, prop.major,
              prop.minor, prop.multiProcessorCount);
  if (prop.major != 9) {
    std::printf("needs an sm_90 GPU: skipped\n");
    return 77;
  }
  std::mt19937 rng(std::random_device{}());
  testWarpMmas(rng);
  testWgmmas(rng);
  testTma(rng);
  testCasts();
  testGemmSm80(rng);
  testGemmSm90(rng);
  if (argc > 1 && std::string(argv[1]) == "--bench")
    bench();
  std::printf("%d passed, %d failed\n", g_pass, g_fail);
  return g_fail == 0 ? 0 : 1;
}
