//===- Reference.cpp - the gemm reference's epilogue kernel ---------------===//

#include "kgen/runtime/cuda/Reference.h"

#include "kgen/runtime/cuda/Device.h"

#include <algorithm>

namespace kgen::rt {

namespace {

constexpr const char *kEpilogueSource = R"cuda(
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

// Element types, set with -D: KGEN_OUT_T (D), KGEN_C_T (residual C),
// KGEN_BIAS_T (bias); each float, __half, __nv_bfloat16 or __nv_fp8_e4m3.

__device__ float toFloat(float x) { return x; }
__device__ float toFloat(__half x) { return __half2float(x); }
__device__ float toFloat(__nv_bfloat16 x) { return __bfloat162float(x); }

// Rounds to nearest even; fp8 saturates to +-448 like the kernels' cvt.satfinite.
__device__ void store(float *p, float v) { *p = v; }
__device__ void store(__half *p, float v) { *p = __float2half_rn(v); }
__device__ void store(__nv_bfloat16 *p, float v) { *p = __float2bfloat16_rn(v); }
__device__ void store(__nv_fp8_e4m3 *p, float v) { *p = __nv_fp8_e4m3(v); }

// act: 0 none, 1 relu, 2 gelu (tanh form), 3 silu.
__device__ float activate(int act, float x) {
  switch (act) {
  case 1: return fmaxf(x, 0.0f);
  case 2: return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
  case 3: return x / (1.0f + expf(-x));
  default: return x;
  }
}

// out[i] = act(alpha * acc[i] + beta * c[i] + bias[i % n]) over the `count`
// elements of the row-major [batch, M, N] output; c and bias may be null.
extern "C" __global__ void kgen_ref_epilogue(
    const float *acc, const KGEN_C_T *c, const KGEN_BIAS_T *bias,
    KGEN_OUT_T *out, long long count, long long n, float alpha, float beta,
    int act) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
       i < count; i += stride) {
    float v = alpha * acc[i];
    if (c != nullptr) v += beta * toFloat(c[i]);
    if (bias != nullptr) v += toFloat(bias[i % n]);
    store(&out[i], activate(act, v));
  }
}

// *count += the number of bytes in which a and b differ, over `bytes` bytes;
// a and b 16-byte aligned. Checks that no kernel wrote into an input.
extern "C" __global__ void kgen_count_differences(
    const unsigned char *a, const unsigned char *b, long long bytes,
    unsigned long long *count) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const uint4 *a16 = reinterpret_cast<const uint4 *>(a);
  const uint4 *b16 = reinterpret_cast<const uint4 *>(b);
  unsigned long long mine = 0;
  for (long long i = first; i < bytes / 16; i += stride) {
    const uint4 x = a16[i], y = b16[i];
    // __vcmpne4: 0xff in each byte that differs.
    mine += (__popc(__vcmpne4(x.x, y.x)) + __popc(__vcmpne4(x.y, y.y)) +
             __popc(__vcmpne4(x.z, y.z)) + __popc(__vcmpne4(x.w, y.w))) / 8;
  }
  for (long long i = bytes / 16 * 16 + first; i < bytes; i += stride)
    mine += a[i] != b[i];
  if (mine != 0)
    atomicAdd(count, mine);
}
)cuda";

constexpr uint32_t kEpilogueThreads = 256;
constexpr int64_t kEpilogueMaxBlocks = 4096;
// Enough blocks to fill an H200 several times over, for a streaming compare.
constexpr uint32_t kDifferencesBlocks = 1056;

int activationCode(Activation act) {
  switch (act) {
  case Activation::Relu:
    return 1;
  case Activation::Gelu:
    return 2;
  case Activation::Silu:
    return 3;
  case Activation::None:
    break;
  }
  return 0;
}

} // namespace

const char *epilogueSource() { return kEpilogueSource; }

std::vector<std::string> epilogueDefines(const GemmSpec &spec) {
  return {std::string("-DKGEN_OUT_T=") + cudaTypeName(spec.d),
          std::string("-DKGEN_C_T=") + cudaTypeName(spec.c.value_or(ElemType::F32)),
          std::string("-DKGEN_BIAS_T=") +
              cudaTypeName(spec.bias.value_or(ElemType::F32))};
}

bool compileEpilogue(const GemmSpec &spec, const std::string &arch,
                     const std::string &cacheDir, CompileResult &result,
                     std::string &err) {
  CompileOptions options;
  options.arch = arch;
  options.extraOptions = epilogueDefines(spec);
  options.cacheDir = cacheDir;
  return compileCuda(kEpilogueSource, "kgen_ref_epilogue.cu", kEpilogueEntry,
                     options, result, err);
}

LaunchConfig differencesLaunch() {
  LaunchConfig launch;
  launch.grid = {kDifferencesBlocks, 1, 1};
  launch.block = {kEpilogueThreads, 1, 1};
  return launch;
}

bool countDifferences(const LoadedKernel &kernel, const void *a, const void *b,
                      size_t bytes, unsigned long long *deviceCount,
                      cudaStream_t stream, uint64_t &count, std::string &err) {
  long long n = static_cast<long long>(bytes);
  void *args[] = {&a, &b, &n, &deviceCount};
  unsigned long long host = 0;
  KGEN_CUDA_TRY(cudaMemsetAsync(deviceCount, 0, sizeof host, stream), err);
  if (!kernel.launch(args, stream, err))
    return false;
  KGEN_CUDA_TRY(cudaMemcpyAsync(&host, deviceCount, sizeof host,
                                cudaMemcpyDeviceToHost, stream),
                err);
  KGEN_CUDA_TRY(cudaStreamSynchronize(stream), err);
  count = host;
  return true;
}

LaunchConfig epilogueLaunch(int64_t elements) {
  LaunchConfig launch;
  const int64_t blocks =
      std::clamp<int64_t>((elements + kEpilogueThreads - 1) / kEpilogueThreads,
                          1, kEpilogueMaxBlocks);
  launch.grid = {static_cast<uint32_t>(blocks), 1, 1};
  launch.block = {kEpilogueThreads, 1, 1};
  return launch;
}

bool launchEpilogue(const LoadedKernel &kernel, const GemmSpec &spec,
                    const float *acc, const void *c, const void *bias,
                    void *out, cudaStream_t stream, std::string &err) {
  long long count = spec.batch * spec.m * spec.n;
  long long n = spec.n;
  float alpha = static_cast<float>(spec.alpha);
  float beta = static_cast<float>(spec.beta);
  int act = activationCode(spec.act);
  void *args[] = {&acc, &c, &bias, &out, &count, &n, &alpha, &beta, &act};
  return kernel.launch(args, stream, err);
}

} // namespace kgen::rt
