//===- GemmLt.h - row-major GEMMs through cuBLASLt --------------*- C++ -*-===//
//
// cuBLASLt is column-major; kgen's tensors are row-major. A row-major
// D[M,N] = op(A) op(B) is the column-major D^T[N,M] = op(B)^T op(A)^T, so
// cuBLASLt is called with its "A" = our B, its "B" = our A, m' = N, n' = M,
// k' = K: no data moves, only leading dimensions and transposes change.
// Batches use strided batches; a broadcast B has batch stride 0.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_CUDA_GEMMLT_H
#define KGEN_RUNTIME_CUDA_GEMMLT_H

#include "kgen/runtime/Gemm.h"

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

namespace kgen::rt {

/// The cuBLASLt library loaded, "13.1.0" (major.minor.patch of
/// cublasLtGetVersion, which needs no device).
std::string cublasLtVersionString();

/// cuBLASLt recommends 32 MiB of workspace on Hopper.
constexpr size_t kLtWorkspaceBytes = size_t{32} << 20;

/// One cuBLASLt matmul in kgen's row-major terms:
///   out = act(alpha * op(A) op(B) + beta * C + bias)
/// with C (when withC) and bias [N] (when withBias) of the output's type.
struct LtProblem {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  bool transposeA = false, transposeB = false, batchedB = false;
  ElemType a = ElemType::BF16, b = ElemType::BF16, out = ElemType::BF16;
  bool tf32 = false;     // f32 operands on the tensor cores (FAST_TF32)
  float alpha = 1.0f, beta = 0.0f;
  bool withC = false;
  bool withBias = false;
  Activation act = Activation::None; // None, Relu or Gelu (cuBLASLt's own)
};

/// The reference's matmul: the raw accumulator (alpha 1, no C, no bias, no
/// activation) in f32, full f32 arithmetic; fp8 operands are read from
/// bf16 copies (dequantised exactly). The epilogue is applied afterwards.
LtProblem referenceProblem(const GemmSpec &spec);

/// The baseline at the op's shape and types, with as much of the epilogue as
/// cuBLASLt fuses: alpha always; beta * C when C has D's type; bias when it
/// has D's type (for fp8 operands only with a 16-bit D); relu and gelu.
/// An fp8 D is produced as bf16. `omitted` lists what is left out, "" when
/// the baseline computes the whole op.
LtProblem baselineProblem(const GemmSpec &spec, bool tf32, std::string &omitted);

/// One stored matrix as cuBLASLt sees it: column-major rows x cols with
/// leading dimension ld, elements batchStride apart between batches, used
/// transposed when `transposed`.
struct LtMatrix {
  uint64_t rows = 0, cols = 0;
  int64_t ld = 0;
  int64_t batchStride = 0;
  bool transposed = false;
};

/// cuBLASLt's view of a problem: its A (our B), its B (our A) and its C/D
/// (our D, also C), with m' = N, n' = M, k' = K.
struct LtLayout {
  uint64_t m = 0, n = 0, k = 0;
  LtMatrix a, b, d;
  int32_t batchCount = 1;
};

LtLayout ltLayout(const LtProblem &problem);

/// "<call>: <status name>: <message>".
std::string cublasErrorText(const char *call, cublasStatus_t status);

/// A cuBLASLt matmul planned once (descriptors and the heuristic's best
/// algorithm) and run many times over different buffers.
class LtPlan {
public:
  LtPlan() = default;
  LtPlan(const LtPlan &) = delete;
  LtPlan &operator=(const LtPlan &) = delete;
  ~LtPlan();

  /// Creates the descriptors and asks the heuristic for the best algorithm
  /// within `workspaceBytes`. `biasAlignment` is a bias pointer the buffers
  /// will be aligned like (the heuristic looks at its alignment); ignored
  /// without bias. False when cuBLASLt has no algorithm for the problem.
  bool create(cublasLtHandle_t handle, const LtProblem &problem,
              size_t workspaceBytes, const void *biasAlignment,
              std::string &err);

  /// Enqueues the matmul on `stream`. C may be null without withC; bias
  /// null without withBias. Buffers 256-byte aligned (arena slots).
  bool run(const void *a, const void *b, const void *c, void *d,
           const void *bias, void *workspace, cudaStream_t stream,
           std::string &err);

private:
  void destroy();
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t layoutA_ = nullptr, layoutB_ = nullptr,
                         layoutC_ = nullptr, layoutD_ = nullptr;
  cublasLtMatmulHeuristicResult_t algo_{};
  LtProblem problem_;
  size_t workspaceBytes_ = 0;
};

} // namespace kgen::rt

#endif // KGEN_RUNTIME_CUDA_GEMMLT_H
