//===- GroupedGemm.h - the grouped_gemm op: signature, inputs, host mirror -===//
//
// Host-only logic for `op.kind = "grouped_gemm"` packages
// (docs/kernel-package.md; kgen.grouped_gemm in dialect/KgenOps.td is the
// authority, lowerGroupedGemm / emitExpertRow in passes/LowerToLoops.cpp its
// CPU reference). With A [R, K], B (and B_up when gated) [E, K, N] and
// expert_offsets [E + 1] (i32), for each expert e and each row r of its
// group [lo_e, hi_e), lo_e = clamp(off[e], 0, R), hi_e = clamp(off[e + 1],
// lo_e, R):
//
//   acc    = A[r] B[e]        in f32            [N]
//   acc_up = A[r] B_up[e]     in f32, when gated
//   D[r]   = act(acc) (* acc_up when gated), in f32, rounded once to
//            dtype_out
//
// and every row in no group is 0. With block scales (B, B_up f8E4M3FN,
// B_scale, B_up_scale [E, ceil(K/128), ceil(N/128)] f32), the products are
// DeepGEMM's: A[r] quantised per 128-wide K block to e4m3 (quantiseRow),
// each block's sum promoted into acc by its activation scale times the
// weight block's scale (expertRowProduct). The kernels need non-decreasing offsets
// (what kgen.moe_permute writes); the input fill draws such offsets
// (groupedGemmOffsets). Rows are independent, so the runtime checks D at a
// sample of rows (groupedGemmCheckedRows) and the rows in no group, and the
// absence of NaN, everywhere (checkGroupedGemmCoverage).
//
// The expert row itself (expertRowProduct) is also the moe layer's: its
// gate/up and down products are the two grouped GEMMs kgen-decompose-moe
// writes (Moe.cpp, moeExpertRow).
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_GROUPEDGEMM_H
#define KGEN_RUNTIME_GROUPEDGEMM_H

#include "kgen/runtime/Gemm.h"
#include "kgen/runtime/HostTensor.h"
#include "kgen/runtime/Package.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kgen::rt {

struct GroupedGemmSpec {
  int64_t rows = 1, k = 1, n = 1, experts = 1; // R, K, N, E
  bool gated = false;                  // B_up, act(acc) * acc_up
  Activation act = Activation::None;   // none, silu, gelu (tanh form), relu
  ElemType dtype = ElemType::BF16;     // A (and B, B_up without scales)
  ElemType out = ElemType::BF16;       // D
  bool blockScales = false;            // B, B_up e4m3 with B(_up)_scale
};

//===----------------------------------------------------------------------===//
// Block-scaled e4m3 weights (kgen.moe's and kgen.grouped_gemm's `scales`)
//===----------------------------------------------------------------------===//

/// The side of a weight scale block and the width of an activation scale
/// block: 128, as DeepSeek-V3's checkpoint and DeepGEMM.
constexpr int64_t kScaleBlock = 128;

/// ceil(n / 128): the scale blocks along a dimension of n.
int64_t scaleBlocks(int64_t n);

/// The scales of block-scaled weights [E, K, N]: [E, ceil(K/128),
/// ceil(N/128)] (f32).
std::vector<int64_t> blockScaleShape(int64_t experts, int64_t k, int64_t n);

/// Reads an op object's "weight_dtype" (absent: dtype; else dtype or
/// "f8E4M3FN") and "block_scales" (default false) into `blockScales`; each
/// needs the other (e4m3 weights are block-scaled, block scales scale e4m3
/// weights). False with "<opName> op: <what>" in `err`.
bool readBlockScales(const nlohmann::json &op, const char *opName,
                     ElemType dtype, bool &blockScales, std::string &err);

/// Writes "weight_dtype": "f8E4M3FN" and "block_scales": true into `op`
/// with block scales; nothing without (the fields' defaults).
void writeBlockScales(bool blockScales, nlohmann::json &op);

/// A row quantised as DeepSeek-V3's act_quant (KgenOps.td, kgen.moe), per
/// 128-wide block b (a partial last block its own): scale[b] =
/// max(amax_b, 1e-4f) / 448 in f32, amax_b the largest |a[k]| of the block
/// (NaN if one is NaN); q[k] = e4m3(a[k] / scale[b]), an f32 division
/// rounded to nearest even to f8E4M3FN, saturating at +-448 (q held as the
/// e4m3 value). `a` holds K values, each an f32 (a dtype value); the
/// arithmetic is f32's, so a kernel doing the same gets the same bits.
struct QuantisedRow {
  std::vector<float> q;     // K values
  std::vector<float> scale; // ceil(K / 128) values
};
QuantisedRow quantiseRow(const double *a, int64_t k);

/// Block-scaled weights of `type` (f8E4M3FN in a valid package): each
/// element a finite e4m3 code drawn uniformly from `seed` (every exponent,
/// subnormals, zeros and +-448 alike: a kernel decoding some of them wrong
/// shows), stored exactly.
HostTensor blockScaledWeights(ElemType type, std::vector<int64_t> shape,
                              uint64_t seed);

/// The scales of block-scaled weights whose product sums `k` terms, of
/// `type` (f32 in a valid package): moeWeightScale(k) / 256 (the codes'
/// root mean square is about 85, so the scaled weights are about
/// moeWeightScale(k)'s uniform ones) times a seeded factor
/// 2^j * (8 + m) / 8, j in {-1, 0, 1}, m in [0, 8): 24 values in
/// [1/2, 3.75], so that neighbouring blocks differ (a kernel reading
/// another block's scale is off by O(1)); dyadic, so the same bits
/// everywhere.
HostTensor blockScales(ElemType type, std::vector<int64_t> shape, int64_t k,
                       uint64_t seed);

/// The activations of a block-scaled op (x, A) of `type` and `shape`
/// [rows, K]: makeRandom, each (row, 128-wide block) times a seeded 1,
/// 1/2 or 1/4, or zero on one in eight, so that the activation scales
/// differ between blocks (a kernel reading another block's is off) and
/// some blocks have amax 0 (a kernel dividing by an unclamped scale gives
/// NaN).
HostTensor blockVaryingActivations(ElemType type, std::vector<int64_t> shape,
                                   uint64_t seed);

/// The block scales of an expert GEMM's weights b and b_up (blockScaleShape
/// f32); both null for unscaled weights.
struct WeightScales {
  const HostTensor *b = nullptr;
  const HostTensor *bUp = nullptr;
};

/// Reads an op object of kind "grouped_gemm" (the manifest's "op"):
///
///   {"kind": "grouped_gemm", "rows": R, "k": K, "n": N, "experts": E,
///    "gated": true, "activation": "silu", "dtype": "bf16",
///    "dtype_out": "bf16"}
///
/// Required: rows (in [1, 2^31 - 1]: the i32 offsets address every row),
/// k, n (integers in [1, 2^31]), experts (in [1, 2^31 - 2]: E + 1 i32
/// offsets), dtype (bf16 or f16). Optional, with kgen.grouped_gemm's
/// defaults: gated (false), activation ("none"; "silu", "gelu", "relu"),
/// dtype_out (dtype; bf16, f16, f32), and with e4m3 weights
/// "weight_dtype": "f8E4M3FN" and "block_scales": true together
/// (readBlockScales). False with a message naming the field.
bool parseGroupedGemmOp(const nlohmann::json &op, GroupedGemmSpec &spec,
                        std::string &err);

/// The op object for `spec`, every field written (the block-scale ones
/// only with block scales). parseGroupedGemmOp(groupedGemmOpJson(s)) gives
/// s back.
nlohmann::json groupedGemmOpJson(const GroupedGemmSpec &spec);

/// The element type of B and B_up: f8E4M3FN with block scales, else dtype.
ElemType groupedGemmWeightType(const GroupedGemmSpec &spec);

/// Shapes: A [R, K], B and B_up [E, K, N], expert_offsets [E + 1], D [R, N],
/// B_scale and B_up_scale [E, ceil(K/128), ceil(N/128)].
std::vector<int64_t> groupedGemmShapeA(const GroupedGemmSpec &spec);
std::vector<int64_t> groupedGemmShapeB(const GroupedGemmSpec &spec);
std::vector<int64_t> groupedGemmShapeOffsets(const GroupedGemmSpec &spec);
std::vector<int64_t> groupedGemmShapeD(const GroupedGemmSpec &spec);
std::vector<int64_t> groupedGemmShapeScale(const GroupedGemmSpec &spec);

/// 2 * R * K * N, twice that when gated. All R rows are counted, also those
/// a seed's offsets leave in no group (a head or a tail, on some seeds):
/// the op's work is defined by its shapes (an MoE layer routes its T * k
/// rows there, every one in a group), not by one run's groups, so that
/// packages of one op compare at one count.
double groupedGemmFlops(const GroupedGemmSpec &spec);

/// Fewest bytes moved: A, expert_offsets and D once each, B (and B_up) of
/// min(E, R) experts (the most R rows in groups can reach), with their
/// block scales when block-scaled (e4m3 weights at one byte).
double groupedGemmBytes(const GroupedGemmSpec &spec);

/// Largest relative Frobenius error of D, over the checked rows, that
/// passes: u(dtype_out) + 1e-4 (u the unit roundoff: bf16 2^-8, f16 2^-11,
/// f32 2^-24), block-scaled or not. See GroupedGemm.cpp for why.
double groupedGemmTolerance(const GroupedGemmSpec &spec);

/// expert_offsets [E + 1] (i32) drawn from `seed`: E + 1 sorted draws in
/// [0, R], then off[0] = 0 on three seeds in four (else the rows before it
/// form a head in no group), off[E] = R likewise (else a tail), and one
/// seeded expert's group emptied on half of the seeds. Non-decreasing: see
/// GroupedGemm.cpp.
HostTensor groupedGemmOffsets(const GroupedGemmSpec &spec, uint64_t seed);

/// The values of input tensor `param` of a grouped_gemm package in a run
/// seeded `seed` (packageInputSeed of the run and the parameter's name), or
/// nullopt for a parameter that is not one of the op's inputs:
/// - A: makeRandom (uniform in [-1, 1), rounded to dtype);
///   blockVaryingActivations with block scales;
/// - B, B_up: makeRandom times moeWeightScale(K) (Moe.h: D stays O(1));
///   blockScaledWeights with block scales;
/// - B_scale, B_up_scale (with block scales): blockScales of K;
/// - expert_offsets: groupedGemmOffsets.
std::optional<HostTensor> groupedGemmInput(const GroupedGemmSpec &spec,
                                           const KernelParam &param,
                                           uint64_t seed);

/// Group e's rows [lo, hi): lo = clamp(off[e], 0, R), hi = clamp(off[e +
/// 1], lo, R). `offsets` is read as [E + 1].
struct RowRange {
  int64_t lo = 0, hi = 0;
};
RowRange groupedGemmGroup(const GroupedGemmSpec &spec,
                          const HostTensor &offsets, int64_t e);

/// The expert whose group holds row r (the last one, as the reference's
/// later groups overwrite earlier ones), or -1 for a row in no group.
int64_t groupedGemmRowExpert(const GroupedGemmSpec &spec,
                             const HostTensor &offsets, int64_t r);

/// One row of an expert GEMM, unrounded: for each n < N, act(a b[e][:, n]),
/// times a bUp[e][:, n] when `bUp` is not null, the products summed in
/// double in k order. `a` holds K values; b and bUp are read as [E, K, N].
/// The grouped GEMM's row before its rounding, and both products of the
/// moe layer's expert (moeExpertRow).
///
/// With `scales.b` (and `scales.bUp` with `bUp`), read as [E, ceil(K/128),
/// ceil(N/128)]: a quantised (quantiseRow), each 128-wide block's products
/// q[k] b[e][k, n] summed exactly (in double: at most 128 products of two
/// e4m3 values) into p_b, and acc = sum over blocks in order of p_b *
/// (s_a[b] * scale[e, b, n / 128]), the scale product in f32 as the op
/// defines it, the sum over blocks in double.
std::vector<double> expertRowProduct(const double *a, int64_t K, int64_t N,
                                     const HostTensor &b,
                                     const HostTensor *bUp, int64_t e,
                                     Activation act,
                                     const WeightScales &scales = {});

/// D[r] as the reference computes it: expertRowProduct of A[r] through its
/// expert, rounded to dtype_out; N zeros for a row in no group. `bUp` is
/// used when the spec is gated, `scales` (B_scale, B_up_scale; required)
/// when it is block-scaled.
std::vector<double> groupedGemmRow(const GroupedGemmSpec &spec,
                                   const HostTensor &a, const HostTensor &b,
                                   const HostTensor *bUp,
                                   const HostTensor &offsets, int64_t r,
                                   const WeightScales &scales = {});

/// The rows whose D is checked, sorted: every row when R * K * N (twice
/// that gated) is at most 2^29 multiply-adds, otherwise
/// max(8, 2^29 / (K * N (* 2))) of them: the first and the last row, then
/// the rows at and next to each group's bounds, experts in a seeded order
/// (a tile bound off by one shows there), then rows drawn from `seed`.
std::vector<int64_t> groupedGemmCheckedRows(const GroupedGemmSpec &spec,
                                            const HostTensor &offsets,
                                            uint64_t seed);

/// The reference at `rows`: D [rows.size(), N] of dtype_out (`scales` as
/// groupedGemmRow's).
HostTensor groupedGemmExpected(const GroupedGemmSpec &spec,
                               const HostTensor &a, const HostTensor &b,
                               const HostTensor *bUp,
                               const HostTensor &offsets,
                               const std::vector<int64_t> &rows,
                               const WeightScales &scales = {});

/// Checks a kernel's whole D ([R, N]) where no reference is needed: every
/// row in no group exactly zero, and no NaN anywhere (outputs are poisoned
/// with NaN, so a NaN is an element no kernel wrote). Otherwise `why` says
/// how many rows and the first ("D: 3 rows in no group are not zero; row
/// 29 ...").
bool checkGroupedGemmCoverage(const GroupedGemmSpec &spec,
                              const HostTensor &offsets, const HostTensor &d,
                              std::string &why);

/// Checks that `pkg` has the op's tensors: inputs A (dtype [R, K]), B
/// (groupedGemmWeightType [E, K, N]), B_up (likewise) exactly when gated,
/// expert_offsets (i32 [E + 1]); with block scales B_scale (f32
/// [E, ceil(K/128), ceil(N/128)]) and, gated, B_up_scale (likewise);
/// output D (dtype_out [R, N]). Workspaces are the schedule's business and
/// pass (a quantised A, its scales); any other input or output does not.
/// False with a message naming the parameter.
bool checkGroupedGemmParams(const KernelPackage &pkg,
                            const GroupedGemmSpec &spec, std::string &err);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_GROUPEDGEMM_H
