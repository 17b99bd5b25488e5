// Misuse: a swizzled tile narrower than its swizzle, and an 8-bit operand
// that is not K-major.
// TARGETS: sm_90a
// EXPECT-ERROR: Cols * sizeof(T) must be a multiple of the swizzle width
// EXPECT-ERROR: 8-bit operands must be K-major (TN)
#include "kgen/cuda/Mma.cuh"

#include <cuda_bf16.h>
#include <cuda_fp8.h>

using namespace kgen::cuda;
// 32 bf16 = 64 bytes per row cannot take the 128-byte swizzle.
using Narrow = RowMajorSwizzled<__nv_bfloat16, 64, 32, Swizzle::B128>;
using E = RowMajorPadded<__nv_fp8_e4m3, 64, 64, 16>;

__global__ void k(int *out) {
  out[0] = Narrow::kBytes;
  out[1] = WarpMma<MmaE4m3, 32, 32, E, Major::MN, E, Major::K>::kAccPerThread;
}
