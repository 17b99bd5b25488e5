//===- GemmLt.cpp - row-major GEMMs through cuBLASLt ----------------------===//

#include "kgen/runtime/cuda/GemmLt.h"

namespace kgen::rt {

namespace {

#define KGEN_CUBLAS_TRY(call, err)                                             \
  do {                                                                         \
    const cublasStatus_t kgenStatus_ = (call);                                 \
    if (kgenStatus_ != CUBLAS_STATUS_SUCCESS) {                                \
      (err) = cublasErrorText(#call, kgenStatus_);                             \
      return false;                                                            \
    }                                                                          \
  } while (0)

cudaDataType_t cudaType(ElemType type) {
  switch (type) {
  case ElemType::F16:
    return CUDA_R_16F;
  case ElemType::BF16:
    return CUDA_R_16BF;
  case ElemType::F8E4M3FN:
    return CUDA_R_8F_E4M3;
  default: // the problem builders produce only the types above and f32
    return CUDA_R_32F;
  }
}

cublasLtEpilogue_t ltEpilogue(Activation act, bool bias) {
  switch (act) {
  case Activation::Relu:
    return bias ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_RELU;
  case Activation::Gelu:
    return bias ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_GELU;
  default: // None (Silu never reaches cuBLASLt)
    return bias ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT;
  }
}

bool is16Bit(ElemType type) {
  return type == ElemType::F16 || type == ElemType::BF16;
}

void note(std::string &list, const std::string &what) {
  list += list.empty() ? what : ", " + what;
}

/// "bf16 [4096x4096] x [4096x4096]^T -> bf16, batch 1".
std::string describe(const LtProblem &p) {
  return std::string(elemTypeName(p.a)) + " " + std::to_string(p.m) + "x" +
         std::to_string(p.n) + "x" + std::to_string(p.k) +
         (p.transposeA ? " A^T" : "") + (p.transposeB ? " B^T" : "") + " -> " +
         elemTypeName(p.out) + ", batch " + std::to_string(p.batch);
}

bool setBatch(cublasLtMatrixLayout_t layout, int32_t count, int64_t stride,
              std::string &err) {
  if (count <= 1)
    return true;
  KGEN_CUBLAS_TRY(cublasLtMatrixLayoutSetAttribute(
                      layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                      sizeof(count)),
                  err);
  KGEN_CUBLAS_TRY(cublasLtMatrixLayoutSetAttribute(
                      layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                      &stride, sizeof(stride)),
                  err);
  return true;
}

bool createLayout(cublasLtMatrixLayout_t &layout, ElemType type,
                  const LtMatrix &m, int32_t batchCount, std::string &err) {
  KGEN_CUBLAS_TRY(cublasLtMatrixLayoutCreate(&layout, cudaType(type), m.rows,
                                             m.cols, m.ld),
                  err);
  return setBatch(layout, batchCount, m.batchStride, err);
}

} // namespace

std::string cublasErrorText(const char *call, cublasStatus_t status) {
  return std::string(call) + ": " + cublasLtGetStatusName(status) + ": " +
         cublasLtGetStatusString(status);
}

LtProblem referenceProblem(const GemmSpec &spec) {
  LtProblem p;
  p.batch = spec.batch;
  p.m = spec.m;
  p.n = spec.n;
  p.k = spec.k;
  p.transposeA = spec.transposeA;
  p.transposeB = spec.transposeB;
  p.batchedB = spec.batchedB;
  p.a = spec.a == ElemType::F8E4M3FN ? ElemType::BF16 : spec.a;
  p.b = spec.b == ElemType::F8E4M3FN ? ElemType::BF16 : spec.b;
  p.out = ElemType::F32;
  return p;
}

LtProblem baselineProblem(const GemmSpec &spec, bool tf32, std::string &omitted) {
  omitted.clear();
  LtProblem p = referenceProblem(spec);
  p.a = spec.a;
  p.b = spec.b;
  p.tf32 = tf32;
  p.out = spec.d;
  if (spec.d == ElemType::F8E4M3FN) {
    p.out = ElemType::BF16;
    note(omitted, "f8E4M3FN output (bf16 instead)");
  }
  p.alpha = static_cast<float>(spec.alpha);
  if (spec.c) {
    if (*spec.c == p.out && p.out == spec.d) {
      p.withC = true;
      p.beta = static_cast<float>(spec.beta);
    } else {
      note(omitted, "C");
    }
  }
  if (spec.bias) {
    const bool fp8 = spec.a == ElemType::F8E4M3FN;
    if (*spec.bias == p.out && (!fp8 || is16Bit(p.out)))
      p.withBias = true;
    else
      note(omitted, "bias");
  }
  if (spec.act == Activation::Silu)
    note(omitted, "silu");
  else
    p.act = spec.act;
  return p;
}

LtLayout ltLayout(const LtProblem &p) {
  LtLayout l;
  l.m = static_cast<uint64_t>(p.n);
  l.n = static_cast<uint64_t>(p.m);
  l.k = static_cast<uint64_t>(p.k);
  l.batchCount = static_cast<int32_t>(p.batch);
  // Its A: our B. [K,N] row-major is column-major N x K (ld N), used as is;
  // [N,K] row-major is column-major K x N (ld K), used transposed.
  l.a.rows = p.transposeB ? l.k : l.m;
  l.a.cols = p.transposeB ? l.m : l.k;
  l.a.ld = static_cast<int64_t>(l.a.rows);
  l.a.transposed = p.transposeB;
  l.a.batchStride = p.batchedB ? p.k * p.n : 0;
  // Its B: our A. [M,K] row-major is column-major K x M (ld K), used as is;
  // [K,M] row-major is column-major M x K (ld M), used transposed.
  l.b.rows = p.transposeA ? l.n : l.k;
  l.b.cols = p.transposeA ? l.k : l.n;
  l.b.ld = static_cast<int64_t>(l.b.rows);
  l.b.transposed = p.transposeA;
  l.b.batchStride = p.m * p.k;
  // Its D: our D [M,N] row-major, column-major N x M (ld N).
  l.d.rows = l.m;
  l.d.cols = l.n;
  l.d.ld = static_cast<int64_t>(l.m);
  l.d.batchStride = p.m * p.n;
  return l;
}

LtPlan::~LtPlan() { destroy(); }

void LtPlan::destroy() {
  // Destroying descriptors only frees host memory; their status is moot.
  if (layoutA_ != nullptr)
    (void)cublasLtMatrixLayoutDestroy(layoutA_);
  if (layoutB_ != nullptr)
    (void)cublasLtMatrixLayoutDestroy(layoutB_);
  if (layoutC_ != nullptr)
    (void)cublasLtMatrixLayoutDestroy(layoutC_);
  if (layoutD_ != nullptr)
    (void)cublasLtMatrixLayoutDestroy(layoutD_);
  if (desc_ != nullptr)
    (void)cublasLtMatmulDescDestroy(desc_);
  layoutA_ = layoutB_ = layoutC_ = layoutD_ = nullptr;
  desc_ = nullptr;
}

bool LtPlan::create(cublasLtHandle_t handle, const LtProblem &problem,
                    size_t workspaceBytes, const void *biasAlignment,
                    std::string &err) {
  destroy();
  handle_ = handle;
  problem_ = problem;
  workspaceBytes_ = workspaceBytes;
  const LtLayout l = ltLayout(problem);
  const cublasComputeType_t compute =
      problem.a == ElemType::F32 && problem.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32
                                                 : CUBLAS_COMPUTE_32F;
  KGEN_CUBLAS_TRY(cublasLtMatmulDescCreate(&desc_, compute, CUDA_R_32F), err);
  const cublasOperation_t opA = l.a.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t opB = l.b.transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  KGEN_CUBLAS_TRY(cublasLtMatmulDescSetAttribute(
                      desc_, CUBLASLT_MATMUL_DESC_TRANSA, &opA, sizeof(opA)),
                  err);
  KGEN_CUBLAS_TRY(cublasLtMatmulDescSetAttribute(
                      desc_, CUBLASLT_MATMUL_DESC_TRANSB, &opB, sizeof(opB)),
                  err);
  const cublasLtEpilogue_t epilogue = ltEpilogue(problem.act, problem.withBias);
  KGEN_CUBLAS_TRY(cublasLtMatmulDescSetAttribute(
                      desc_, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                      sizeof(epilogue)),
                  err);
  if (problem.withBias) {
    const int32_t biasType = cudaType(problem.out);
    KGEN_CUBLAS_TRY(cublasLtMatmulDescSetAttribute(
                        desc_, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &biasType,
                        sizeof(biasType)),
                    err);
    KGEN_CUBLAS_TRY(cublasLtMatmulDescSetAttribute(
                        desc_, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                        &biasAlignment, sizeof(biasAlignment)),
                    err);
  }
  if (!createLayout(layoutA_, problem.b, l.a, l.batchCount, err) ||
      !createLayout(layoutB_, problem.a, l.b, l.batchCount, err) ||
      !createLayout(layoutC_, problem.out, l.d, l.batchCount, err) ||
      !createLayout(layoutD_, problem.out, l.d, l.batchCount, err))
    return false;

  cublasLtMatmulPreference_t pref = nullptr;
  KGEN_CUBLAS_TRY(cublasLtMatmulPreferenceCreate(&pref), err);
  const uint64_t maxWorkspace = workspaceBytes;
  int returned = 0;
  cublasStatus_t status = cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &maxWorkspace,
      sizeof(maxWorkspace));
  if (status == CUBLAS_STATUS_SUCCESS)
    status = cublasLtMatmulAlgoGetHeuristic(handle, desc_, layoutA_, layoutB_,
                                            layoutC_, layoutD_, pref, 1, &algo_,
                                            &returned);
  (void)cublasLtMatmulPreferenceDestroy(pref);
  if (status != CUBLAS_STATUS_SUCCESS || returned == 0) {
    err = "cuBLASLt has no algorithm for " + describe(problem) +
          (status != CUBLAS_STATUS_SUCCESS
               ? " (" + cublasErrorText("cublasLtMatmulAlgoGetHeuristic", status) + ")"
               : "");
    return false;
  }
  return true;
}

bool LtPlan::run(const void *a, const void *b, const void *c, void *d,
                 const void *bias, void *workspace, cudaStream_t stream,
                 std::string &err) {
  if (problem_.withBias)
    KGEN_CUBLAS_TRY(cublasLtMatmulDescSetAttribute(
                        desc_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                        sizeof(bias)),
                    err);
  const float alpha = problem_.alpha;
  const float beta = problem_.withC ? problem_.beta : 0.0f;
  // cuBLASLt's A is our B and its B our A (see the file comment).
  KGEN_CUBLAS_TRY(cublasLtMatmul(handle_, desc_, &alpha, b, layoutA_, a,
                                 layoutB_, &beta, problem_.withC ? c : d,
                                 layoutC_, d, layoutD_, &algo_.algo, workspace,
                                 workspaceBytes_, stream),
                  err);
  return true;
}

std::string cublasLtVersionString() {
  const size_t v = cublasLtGetVersion(); // major * 10000 + minor * 100 + patch
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100);
}

} // namespace kgen::rt
