// Compile test: fp8 e4m3 mma.sync (TN: both operands K-major), bf16 output,
// through the shipped block layer (kgen/block: load_box, MmaSyncAccumulator,
// the emitter's 3-stage cp.async mainloop) and the Mma.cuh warp tile alone
// on padded and 64-byte swizzled tiles. A 64 x 64 block tile of 32 x 32 warp
// tiles, BK = 64. On sm_90a, mma.sync e4m3 is emulated (SASS:
// F2FP.F16.E4M3.UNPACK_B + HMMA.16816), which costs registers; sm_89 has it
// natively (QMMA). Hopper's fast fp8 is wgmma_e4m3. __launch_bounds__(.., 1):
// without it ptxas chose 72 registers on sm_89 and spilled one.
// TARGETS: sm_89 sm_90a
// CHECK: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
// CHECK: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK: cp.async.wait_group 2;
#include "Sm80Mainloop.cuh"
#include "WarpTile.cuh"

#include <cuda_bf16.h>
#include <cuda_fp8.h>

using namespace kgen::cuda;
using e4m3 = __nv_fp8_e4m3;
using bf16 = __nv_bfloat16;

constexpr int kBM = 64, kBN = 64, kBK = 64, kStages = 3, kThreads = 128;

// D (m, n) = A (m, k) x B, B stored (n, k).
__global__ void __launch_bounds__(kThreads, 1)
e4m3_tn(const e4m3 *a, const e4m3 *bt, bf16 *d, long m, long n, long k) {
  extern __shared__ __align__(128) unsigned char smem[];
  const long m0 = blockIdx.y * long(kBM), n0 = blockIdx.x * long(kBN);
  kgen::block::MmaSyncAccumulator<kBM, kBN, 2, 2> acc;
  kgen::test::mainloop<e4m3, kBM, kBN, kBK, kStages, kThreads, false, true>(
      acc, smem, a, k, bt, k, m, n, k, m0, n0, 0, (k + kBK - 1) / kBK);
  acc.epilogue<Act::None, false, false>(
      d, n, m0, n0, m, n, static_cast<const float *>(nullptr),
      static_cast<const bf16 *>(nullptr), 1.f, 0.f);
}

// (64, 64) e4m3 = 64-byte rows, 16 bytes of padding; the same in the
// 64-byte swizzle.
using EAK = RowMajorPadded<e4m3, kBM, kBK, 16>;
using EBK = RowMajorPadded<e4m3, kBN, kBK, 16>;
using EAKS = RowMajorSwizzled<e4m3, kBM, kBK, Swizzle::B64>;
using EBKS = RowMajorSwizzled<e4m3, kBN, kBK, Swizzle::B64>;

__global__ void __launch_bounds__(kThreads, 1)
e4m3_tn_padded(const e4m3 *a, const e4m3 *b, bf16 *d) {
  kgen::test::warp_tile<MmaE4m3, Major::K, Major::K, EAK, EBK, 32, 32, kBK,
                        kThreads>(a, b, d, kBN);
}

__global__ void __launch_bounds__(kThreads, 1)
e4m3_tn_swizzled(const e4m3 *a, const e4m3 *b, bf16 *d) {
  kgen::test::warp_tile<MmaE4m3, Major::K, Major::K, EAKS, EBKS, 32, 32, kBK,
                        kThreads>(a, b, d, kBN);
}
