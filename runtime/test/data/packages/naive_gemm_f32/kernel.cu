// Naive float32 GEMM, the reference package of the runtime's tests:
//   D = alpha * A * B
// with A [M, K], B [K, N] and D [M, N], all row-major and dense, no
// transposes. One thread computes one element of D, reading a row of A and a
// column of B straight from global memory (no tiling, no shared memory).
//
// Launch (see manifest.json): block (16, 16, 1), grid (N / 16, M / 16, 1).

constexpr int M = 64;
constexpr int N = 48;
constexpr int K = 32;
constexpr int kBlock = 16; // threads per block in x and in y

static_assert(M % kBlock == 0 && N % kBlock == 0,
              "the grid covers D exactly");

extern "C" __global__ void kgen_naive_gemm_f32(const float *A, const float *B,
                                               float *D, float alpha) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x; // in [0, N)
  const int row = blockIdx.y * blockDim.y + threadIdx.y; // in [0, M)
  if (row >= M || col >= N)
    return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += A[row * K + k] * B[k * N + col];
  D[row * N + col] = alpha * acc;
}
