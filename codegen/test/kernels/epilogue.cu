// Compile test: Epilogue.cuh on mma.sync fragments. Fused alpha/beta, bias,
// residual C and activations with bf16 / f16 / f32 outputs, pair and scalar
// stores, a staged 16-byte store, and both split-K reductions.
// TARGETS: sm_80 sm_90a
// CHECK: cvt.rn.bf16x2.f32
// CHECK: cvt.rn.f16x2.f32
// CHECK: st.global.v2.f32
// CHECK: st.global.v4.u32
// CHECK: ld.global.cg.v2.f32
// CHECK: atom.global.add.u32
// CHECK: atom.global.exch.b32
// CHECK: membar.gl;
#include "kgen/cuda/Epilogue.cuh"
#include "kgen/cuda/Mma.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

using namespace kgen::cuda;
using bf16 = __nv_bfloat16;

using Map = WarpTileAccMap<32, 64>; // one warp's (32, 64) tile
constexpr int kAcc = Map::kAccPerThread;

__device__ void load_acc(float (&acc)[kAcc], const float *src) {
#pragma unroll
  for (int i = 0; i < kAcc; ++i)
    acc[i] = src[i * 32 + threadIdx.x % 32];
}

// bf16 out = gelu(alpha * acc + beta * C + bias[col]), C bf16.
__global__ void __launch_bounds__(32)
epi_bf16_gelu(const float *src, bf16 *d, const bf16 *c, const float *bias,
              float alpha, float beta, int m, int n, int ld) {
  float acc[kAcc];
  load_acc(acc, src);
  using Epi = Epilogue<bf16, Act::GeluTanh, BiasMode::PerCol, true, 2, bf16>;
  typename Epi::Args args{d, ld, c, ld, bias, alpha, beta, m, n};
  Epi::store_fragment<Map>(args, acc, blockIdx.y * 32, blockIdx.x * 64,
                           threadIdx.x);
}

// f32 out = relu(acc + C + bias[row]), scalar stores (any alignment).
__global__ void __launch_bounds__(32)
epi_f32_relu_unaligned(const float *src, float *d, const float *c,
                       const float *bias, int m, int n, int ld) {
  float acc[kAcc];
  load_acc(acc, src);
  using Epi = Epilogue<float, Act::Relu, BiasMode::PerRow, true, 1, float>;
  typename Epi::Args args{d, ld, c, ld, bias, 1.f, 1.f, m, n};
  Epi::store_fragment<Map>(args, acc, blockIdx.y * 32, blockIdx.x * 64,
                           threadIdx.x);
}

// f16 out = silu(alpha * acc), f32 out plain.
__global__ void __launch_bounds__(32)
epi_f16_silu(const float *src, __half *d, float *d32, int m, int n, int ld) {
  float acc[kAcc];
  load_acc(acc, src);
  using Epi = Epilogue<__half, Act::Silu>;
  typename Epi::Args args{d, ld, nullptr, 0, nullptr, 0.125f, 0.f, m, n};
  Epi::store_fragment<Map>(args, acc, 0, 0, threadIdx.x);
  using Epi32 = Epilogue<float>;
  typename Epi32::Args args32{d32, ld, nullptr, 0, nullptr, 1.f, 0.f, m, n};
  Epi32::store_fragment<Map>(args32, acc, 0, 0, threadIdx.x);
}

// Staged: fragment -> shared (32, 64) bf16 tile -> 16-byte coalesced stores.
__global__ void __launch_bounds__(32)
epi_bf16_staged(const float *src, bf16 *d, int m, int n, long long ld) {
  using Stage = RowMajorPadded<bf16, 32, 64, 8>;
  __shared__ alignas(16) char smem[Stage::kBytes];
  float acc[kAcc];
  load_acc(acc, src);
  using Epi = Epilogue<bf16>;
  typename Epi::Args args{d, ld, nullptr, 0, nullptr, 1.f, 0.f, m, n};
  const int row0 = blockIdx.y * 32, col0 = blockIdx.x * 64;
  Epi::stage_fragment<Map, Stage>(smem, args, acc, row0, col0, threadIdx.x);
  __syncwarp();
  store_staged_tile<Stage, 32>(d + row0 * ld + col0, ld, smem, m - row0,
                               n - col0, threadIdx.x);
}

// Split-K, last block reduces: grid (tiles_n, tiles_m, splits).
__global__ void __launch_bounds__(32)
epi_splitk_last_block(const float *src, float *ws, unsigned *counters, bf16 *d,
                      const float *bias, int m, int n, int ldws) {
  float acc[kAcc];
  load_acc(acc, src + blockIdx.z * kAcc * 32);
  const int row0 = blockIdx.y * 32, col0 = blockIdx.x * 64;
  const long long split_stride = (long long)m * ldws;
  splitk_store_partial<Map>(ws + blockIdx.z * split_stride, ldws, acc, row0,
                            col0, threadIdx.x, m, n);
  if (!splitk_last_block(&counters[blockIdx.y * gridDim.x + blockIdx.x],
                         gridDim.z))
    return;
  using Epi = Epilogue<bf16, Act::None, BiasMode::PerCol>;
  typename Epi::Args args{d, n, nullptr, 0, bias, 1.f, 0.f, m, n};
  splitk_reduce_region<Epi>(args, ws, split_stride, ldws, gridDim.z, row0,
                            col0, 32, 64, threadIdx.x, blockDim.x);
}

// Split-K, second pass over the whole output.
__global__ void __launch_bounds__(256)
epi_splitk_second_pass(const float *ws, bf16 *d, const bf16 *c, int m, int n,
                       int ldws, int splits) {
  using Epi = Epilogue<bf16, Act::Silu, BiasMode::None, true>;
  typename Epi::Args args{d, n, c, n, nullptr, 1.f, 1.f, m, n};
  splitk_reduce_pass<Epi>(args, ws, (long long)m * ldws, ldws, splits,
                          blockIdx.x * 256ll + threadIdx.x,
                          (long long)gridDim.x * 256);
}
