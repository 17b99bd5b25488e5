//===- Gemm.h - the gemm op: signature, tolerances, host mirror -*- C++ -*-===//
//
// Host-only logic for `op.kind = "gemm"` packages (docs/kernel-package.md,
// kgen.gemm in docs/Dialect.md):
//
//   D = act(alpha * op(A) * op(B) + beta * C + bias)
//
// with A [M,K] ([K,M] transposed) or [batch,M,K], B [K,N] ([N,K]
// transposed) or [batch,K,N] (batched_b), C the shape of D, bias [N]. The
// epilogue is computed in f32 and rounded once to D's element type.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_GEMM_H
#define KGEN_RUNTIME_GEMM_H

#include "kgen/runtime/HostTensor.h"
#include "kgen/runtime/Package.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kgen::rt {

enum class Activation { None, Relu, Gelu, Silu };

/// "none", "relu", "gelu" (tanh form), "silu".
const char *activationName(Activation act);
std::optional<Activation> parseActivation(const std::string &name);

struct GemmSpec {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  bool transposeA = false, transposeB = false;
  bool batchedB = false; // B has the batch dimension (else broadcast)
  ElemType a = ElemType::BF16, b = ElemType::BF16, d = ElemType::BF16;
  std::optional<ElemType> bias; // present iff the op has a bias [N]
  std::optional<ElemType> c;    // present iff the op has a residual C
  double alpha = 1.0;
  double beta = 0.0;            // meaningful only with C
  Activation act = Activation::None;
  bool accF16 = false;          // acc_type f16: the running sum in f16
};

/// Reads an op object of kind "gemm" (the manifest's "op"). Required: m, n,
/// k (>= 1), dtype_a, dtype_b (equal, among f32 f16 bf16 f8E4M3FN), dtype_d
/// (f32 f16 bf16 f8E4M3FN). Optional: batch (1), transpose_a, transpose_b,
/// batched_b (false), dtype_bias, dtype_c (null or f32 f16 bf16), alpha (1),
/// beta (1 with C; ignored without), activation ("none"), acc_type ("f32";
/// "f16" for f16 operands). False with a message naming the field.
bool parseGemmOp(const nlohmann::json &op, GemmSpec &spec, std::string &err);

/// The op object for `spec`, in the manifest's form (for baselines that
/// have no package). parseGemmOp(gemmOpJson(s)) gives s back.
nlohmann::json gemmOpJson(const GemmSpec &spec);

/// Shapes of the operands, row-major as the manifest gives them.
std::vector<int64_t> gemmShapeA(const GemmSpec &spec);
std::vector<int64_t> gemmShapeB(const GemmSpec &spec);
std::vector<int64_t> gemmShapeD(const GemmSpec &spec); // also C's shape
std::vector<int64_t> gemmShapeBias(const GemmSpec &spec);

/// 2 * batch * M * N * K.
double gemmFlops(const GemmSpec &spec);
/// Fewest bytes moved: A, B, C and bias read once, D written once.
double gemmBytes(const GemmSpec &spec);

/// Checks that `pkg` has tensor parameters A, B, D (and bias, C exactly when
/// the op has them) of the op's shapes and element types, A, B, bias and C
/// readable (role input or inout) and D written (output or inout).
bool checkGemmParams(const KernelPackage &pkg, const GemmSpec &spec,
                     std::string &err);

/// True when the package's config computes f32 products on the tensor cores
/// in tf32 ("instruction": "mma_sync" or "wgmma" with f32 operands).
bool usesTf32(const GemmSpec &spec, const nlohmann::json &config);

/// Largest relative Frobenius error that passes (shared/notes/
/// perf-method.md): the larger of the operands' bound (f32 1e-4, tf32 3e-3,
/// f16/bf16 1e-2, fp8 5e-2; an f16 accumulator 5e-2) and the output's
/// rounding bound (f16/bf16 D 1e-2, fp8 D 5e-2).
double gemmTolerance(const GemmSpec &spec, bool tf32);

/// The activation in double precision, as the reference kernel computes it
/// in float: relu max(x, 0); gelu 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715
/// x^3))); silu x / (1 + exp(-x)).
double activate(Activation act, double x);

/// act(alpha * acc + beta * c + bias) in double; pass c = 0 without C and
/// bias = 0 without a bias. Not rounded to D's type.
double gemmEpilogue(const GemmSpec &spec, double acc, double c, double bias);

/// Read access to a tensor's host copy, element i being
/// data[(offset + i) mod data.numElements()]: a tensor whose device copy
/// was filled by repeating a random pool from `offset` on, or (offset 0, i
/// below the size) a plain tensor. Precondition: data non-empty.
struct HostView {
  const HostTensor *data = nullptr;
  int64_t offset = 0;
  double at(int64_t i) const;
};

/// The accumulator sum_k op(A)[b,m,k] * op(B)[b,k,n] in double (exact
/// inputs, rounding only in the double sum).
double gemmAccumulator(const GemmSpec &spec, const HostView &a,
                       const HostView &b, int64_t batch, int64_t row,
                       int64_t col);

/// D[b,m,n] in double before rounding: gemmAccumulator then gemmEpilogue,
/// reading C and bias through their views when the op has them.
double gemmElement(const GemmSpec &spec, const HostView &a, const HostView &b,
                   const HostView *c, const HostView *bias, int64_t batch,
                   int64_t row, int64_t col);

/// The expected values of D at flat row-major `indices`, computed by
/// gemmElement and rounded to D's element type: a tensor [indices.size()].
HostTensor gemmExpected(const GemmSpec &spec, const HostView &a,
                        const HostView &b, const HostView *c,
                        const HostView *bias, const std::vector<int64_t> &indices);

/// `count` distinct flat indices of D (row-major [batch, M, N]) drawn from
/// `seed`, always including the first and the last element; all of them
/// when D has at most `count` elements. Sorted. Precondition: count >= 2.
std::vector<int64_t> sampleIndices(int64_t elements, int64_t count,
                                   uint64_t seed);

/// Elements `indices` of `t` (flat), as a tensor [indices.size()] of t's type.
HostTensor gatherElements(const HostTensor &t, const std::vector<int64_t> &indices);

/// An f8E4M3FN tensor converted to bf16, exactly (every E4M3 value is a
/// bf16 value): the reference's operands, as cuBLASLt has no f32-output fp8
/// path for every layout.
HostTensor f8ToBf16(const HostTensor &t);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_GEMM_H
