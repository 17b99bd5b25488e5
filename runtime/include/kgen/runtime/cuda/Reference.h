//===- Reference.h - the gemm reference's epilogue kernel -------*- C++ -*-===//
//
// The reference for a gemm package is cuBLASLt's f32 accumulator followed by
// a small epilogue kernel, kept here as readable CUDA source and compiled at
// run time with NVRTC (through compileCuda and its disk cache):
//
//   out[i] = round_D(act(alpha * acc[i] + beta * C[i] + bias[i mod N]))
//
// computed in f32, as the op defines (docs/Dialect.md, kgen.gemm).
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_CUDA_REFERENCE_H
#define KGEN_RUNTIME_CUDA_REFERENCE_H

#include "kgen/runtime/Gemm.h"
#include "kgen/runtime/Nvrtc.h"
#include "kgen/runtime/cuda/Kernel.h"

#include <string>
#include <vector>

namespace kgen::rt {

constexpr const char *kEpilogueEntry = "kgen_ref_epilogue";
/// In the same source and cubin: counts the bytes in which two buffers
/// differ (no kernel may write into an input).
constexpr const char *kDifferencesEntry = "kgen_count_differences";

/// The CUDA source of the epilogue kernel; its element types come from the
/// macros that epilogueDefines gives.
const char *epilogueSource();

/// -DKGEN_OUT_T=..., -DKGEN_C_T=..., -DKGEN_BIAS_T=... for `spec` (float
/// where the op has no C or bias).
std::vector<std::string> epilogueDefines(const GemmSpec &spec);

/// Compiles the epilogue for `spec` and `arch` (e.g. "sm_90"), cached in
/// `cacheDir` ("" for none). Needs NVRTC only, no GPU.
bool compileEpilogue(const GemmSpec &spec, const std::string &arch,
                     const std::string &cacheDir, CompileResult &result,
                     std::string &err);

/// Threads per block and the grid the epilogue kernel runs with over
/// `elements` outputs (a grid-stride loop, at most 4096 blocks).
LaunchConfig epilogueLaunch(int64_t elements);

/// The launch kgen_count_differences is loaded with (a grid-stride loop).
LaunchConfig differencesLaunch();

/// The number of bytes in which `a` and `b` (device buffers of `bytes`
/// bytes, 16-byte aligned) differ, counted on the GPU into `deviceCount`
/// (one unsigned long long of device memory) on `stream`, which it
/// synchronises. Precondition: `kernel` is kDifferencesEntry loaded with
/// differencesLaunch().
bool countDifferences(const LoadedKernel &kernel, const void *a, const void *b,
                      size_t bytes, unsigned long long *deviceCount,
                      cudaStream_t stream, uint64_t &count, std::string &err);

/// Enqueues the loaded epilogue on `stream`: `acc` is f32 [batch, M, N],
/// `c` (or null) and `out` are [batch, M, N], `bias` (or null) is [N].
/// Precondition: `kernel` was loaded with epilogueLaunch(batch * M * N).
bool launchEpilogue(const LoadedKernel &kernel, const GemmSpec &spec,
                    const float *acc, const void *c, const void *bias,
                    void *out, cudaStream_t stream, std::string &err);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_CUDA_REFERENCE_H
