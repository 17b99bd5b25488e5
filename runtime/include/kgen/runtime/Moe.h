//===- Moe.h - the moe op: signature, inputs, tolerance, host mirror -------===//
//
// Host-only logic for `op.kind = "moe"` packages (docs/kernel-package.md;
// kgen.moe in dialect/KgenOps.td is the authority, lowerMoe / emitRoute /
// emitExpertRow in passes/LowerToLoops.cpp its CPU reference). For each
// token t of x [T, H], with router_logits [T, E]:
//
//   p = softmax(router_logits[t]) in f32; ids = the top_k experts of largest
//       p, in descending order (ties to the lower index); weights = their p,
//       divided by their sum with `renormalize`
//   per slot s, e = ids[s]:
//       a   = act(x[t] w_gate[e]) * (x[t] w_up[e])   rounded to dtype  [I]
//       y_e = a w_down[e]                            rounded to dtype  [H]
//   y[t] = sum_s weights[s] * y_e, in f32 in slot order, rounded to dtype_out
//
// with w_gate, w_up [E, H, I] and w_down [E, I, H]. The DeepSeek forms
// (kgen.moe_route's extensions) route by sigmoid or softmax scores s, choose
// by s + correction_bias (an input [E] f32) among the experts of the
// topk_group best of n_group groups, weigh by s (renormalised, then times
// routed_scaling_factor), and a shared expert (shared_gate, shared_up
// [1, H, Is], shared_down [1, Is, H]) adds its row after the routed slots.
// With block scales (kgen.moe's `scales`, DeepSeek-V3's checkpoint) the
// weights are f8E4M3FN, each with f32 scales per 128 x 128 block
// (w_gate_scale, ...), and each expert GEMM row quantises its input (x[t],
// a) per 128-wide block and promotes each block's sum by its two scales
// (GroupedGemm.h, expertRowProduct). Tokens are independent,
// so the runtime checks y at a sample of tokens (moeCheckedTokens) and the
// routing (expert_ids) at every token.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_MOE_H
#define KGEN_RUNTIME_MOE_H

#include "kgen/runtime/Gemm.h"
#include "kgen/runtime/HostTensor.h"
#include "kgen/runtime/Package.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kgen::rt {

/// The most experts an op may have (the router's top-k scans all of them).
constexpr int64_t kMoeMaxExperts = 1024;

struct MoeSpec {
  int64_t tokens = 1, hidden = 1, inter = 1, experts = 1, topK = 1;
  bool renormalize = false;
  Activation act = Activation::Silu;  // silu, gelu (tanh form) or relu
  ElemType dtype = ElemType::BF16;    // x (and the weights unscaled)
  ElemType logits = ElemType::F32;    // router_logits
  ElemType out = ElemType::BF16;      // y
  // The DeepSeek extensions (defaults: plain softmax routing).
  bool sigmoid = false;               // scoring "sigmoid" (else "softmax")
  bool correctionBias = false;        // an input correction_bias [E] f32
  int64_t nGroup = 1, topkGroup = 1;  // group-limited top-k
  float scale = 1.0f;                 // routed_scaling_factor
  int64_t sharedInter = 0;            // Is of the shared expert; 0: none
  // e4m3 weights with f32 block scales (weight_dtype "f8E4M3FN",
  // block_scales true), the shared expert's too.
  bool blockScales = false;
};

/// The element type of the weights: f8E4M3FN with block scales, else dtype.
ElemType moeWeightType(const MoeSpec &spec);

/// The block scales of one expert FFN's weights (f32; w_gate_scale,
/// w_up_scale, w_down_scale or the shared expert's), all null without.
struct MoeScales {
  const HostTensor *gate = nullptr; // [E, ceil(H/128), ceil(I/128)]
  const HostTensor *up = nullptr;   // [E, ceil(H/128), ceil(I/128)]
  const HostTensor *down = nullptr; // [E, ceil(I/128), ceil(H/128)]
};

/// The input tensors of the DeepSeek extensions and of block scales, where
/// the spec has them (the host reference reads them; null otherwise).
struct MoeExtras {
  const HostTensor *bias = nullptr;                // [E] f32
  const HostTensor *sharedGate = nullptr;          // [1, H, Is]
  const HostTensor *sharedUp = nullptr;            // [1, H, Is]
  const HostTensor *sharedDown = nullptr;          // [1, Is, H]
  MoeScales scales;                                // the routed experts'
  MoeScales sharedScales;                          // [1, ...]: Is for I
};

/// The extras `input` finds by the parameters' names (correction_bias,
/// shared_gate, shared_up, shared_down, w_gate_scale, w_up_scale,
/// w_down_scale, shared_gate_scale, shared_up_scale, shared_down_scale),
/// null where it returns null: what the GPU child and the emulator hand the
/// reference.
MoeExtras
moeExtras(const std::function<const HostTensor *(const char *name)> &input);

/// Reads an op object of kind "moe" (the manifest's "op"):
///
///   {"kind": "moe", "tokens": T, "hidden": H, "inter": I, "experts": E,
///    "top_k": k, "renormalize": true, "activation": "silu",
///    "dtype": "bf16", "logits_dtype": "f32", "dtype_out": "bf16"}
///
/// and the DeepSeek fields, each optional with its default:
///
///   "scoring": "softmax" | "sigmoid", "correction_bias": false,
///   "n_group": 1, "topk_group": 1 (n_group divides experts, topk_group in
///   [1, n_group], top_k <= topk_group * experts / n_group),
///   "routed_scaling_factor": 1.0, "shared_inter": 0 (Is; 0: no shared
///   expert), "weight_dtype": dtype | "f8E4M3FN" and "block_scales": false
///   (e4m3 weights and block scales go together: readBlockScales,
///   GroupedGemm.h).
///
/// Required: tokens, hidden, inter (integers in [1, 2^31]), experts (in
/// [1, kMoeMaxExperts]), top_k (in [1, experts]), dtype (bf16 or f16).
/// Optional, with kgen.moe's defaults: renormalize (false), activation
/// ("silu"; "gelu", "relu"), logits_dtype ("f32"; bf16, f16), dtype_out
/// (dtype; bf16, f16, f32). T * k must fit the i32 positions and offsets
/// (<= 2^31 - 1). Element counts of the tensors are not limited here beyond
/// that (E * H * I exceeds 2^31 for DeepSeek-sized layers; loadPackage
/// bounds each tensor). False with a message naming the field.
bool parseMoeOp(const nlohmann::json &op, MoeSpec &spec, std::string &err);

/// The op object for `spec`, every field written (the DeepSeek and block
/// scale ones only when not their defaults, so plain manifests stay as
/// they were).
/// parseMoeOp(moeOpJson(s)) gives s back.
nlohmann::json moeOpJson(const MoeSpec &spec);

/// Shapes: x and y [T, H], router_logits [T, E], w_gate and w_up [E, H, I],
/// w_down [E, I, H], the routing workspaces [T, k], expert_offsets [E + 1],
/// permuted and expert_out [T * k, H], h [T * k, I]; w_gate_scale and
/// w_up_scale [E, ceil(H/128), ceil(I/128)], w_down_scale [E, ceil(I/128),
/// ceil(H/128)].
std::vector<int64_t> moeShapeX(const MoeSpec &spec);
std::vector<int64_t> moeShapeLogits(const MoeSpec &spec);
std::vector<int64_t> moeShapeGateUp(const MoeSpec &spec);
std::vector<int64_t> moeShapeDown(const MoeSpec &spec);
std::vector<int64_t> moeShapeRoute(const MoeSpec &spec);
std::vector<int64_t> moeShapeGateUpScale(const MoeSpec &spec);
std::vector<int64_t> moeShapeDownScale(const MoeSpec &spec);

/// The expert GEMMs actually run: 2 * T * k * 3 * H * I (each of the T * k
/// token copies goes through the gate, up and down products of one
/// expert). Routing, activation and combine are not counted.
double moeFlops(const MoeSpec &spec);

/// Fewest bytes moved: x, router_logits and y once each, and the three
/// weight tensors of min(E, T * k) experts (the most experts T tokens of k
/// slots can hit: every expert in a prefill, T * k of them in a decode step
/// whose copies route to distinct experts, which a good router spreads them
/// toward), and the shared expert's weights and the correction bias when
/// the layer has them. Block-scaled weights count one byte each plus
/// their f32 scales. Workspaces are not counted.
double moeBytes(const MoeSpec &spec);

/// Largest relative Frobenius error of y, over the checked tokens, that
/// passes: u(dtype) + u(dtype) + u(dtype_out) + 1e-4, u the unit roundoff
/// (bf16 2^-8, f16 2^-11, f32 2^-24), plus 2 sqrt(u(e4m3) 1e-4) = 5e-3
/// with block scales (u(e4m3) = 2^-4). See Moe.cpp for why.
double moeTolerance(const MoeSpec &spec);

/// The power of two nearest (in log) to 3 / sqrt(K): the scale of a weight
/// tensor whose product sums K terms, so that x W (x and the unscaled
/// weights uniform in [-1, 1)) has a standard deviation near 1 and the
/// activation and y stay O(1) whatever H and I. A power of two keeps the
/// scaled 16-bit values exact.
double moeWeightScale(int64_t k);

/// The values of input tensor `param` of a moe package in a run seeded
/// `seed` (packageInputSeed of the run and the parameter's name), or
/// nullopt for a parameter that is not one of the op's inputs:
/// - x: makeRandom (uniform in [-1, 1), rounded to dtype);
/// - w_gate, w_up: makeRandom times moeWeightScale(H); w_down: times
///   moeWeightScale(I);
/// - router_logits: moeRouterLogits;
/// - correction_bias: makeRandom (f32) / 8;
/// - shared_gate, shared_up: as w_gate; shared_down: times
///   moeWeightScale(Is).
/// With block scales (GroupedGemm.h):
/// - x: blockVaryingActivations (amax varying per 128-wide block);
/// - the weights, the shared expert's too: blockScaledWeights (e4m3 codes);
/// - w_gate_scale, w_up_scale: blockScales of H; w_down_scale: of I;
///   shared_gate_scale, shared_up_scale: of H; shared_down_scale: of Is.
std::optional<HostTensor> moeInput(const MoeSpec &spec,
                                   const KernelParam &param, uint64_t seed);

/// The E distinct logit values a token's logits are a permutation of:
/// increasing, exactly representable in `type`, spaced by at least 2^-5
/// (n * 2^-5 for n in [-floor(E / 2), ceil(E / 2)) where `type` holds
/// those, wider steps further out where bf16 does not: at most +-32 for
/// E = 1024).
std::vector<double> moeLogitLevels(int64_t experts, ElemType type);

/// Router logits [T, E] of logits_dtype: each token's row a permutation of
/// moeLogitLevels drawn from `seed`. No two experts of a token tie, and
/// neighbouring probabilities differ by a factor of at least exp(2^-5),
/// far beyond any f32 softmax's error (an exp or a sum in another order,
/// a fast exp): every correct router picks the same experts in the same
/// order as the host, so expert_ids can be compared exactly.
HostTensor moeRouterLogits(const MoeSpec &spec, uint64_t seed);

/// One token's routing, as emitRoute computes it: f32 arithmetic in its
/// order (max, exp(l - max) summed in expert order, divided by the sum;
/// top-k by repeated scans, strictly greater wins, so ties go to the lower
/// index; the weights summed in slot order and divided by the sum with
/// renormalize). `logits` is read as [T, E].
struct MoeRoute {
  std::vector<int32_t> ids; // top_k expert indices, in slot order
  std::vector<float> weights;
};
MoeRoute moeRoute(const MoeSpec &spec, const HostTensor &logits, int64_t t,
                  const MoeExtras &extras = {});

/// y_e of token t through expert e: the gate and up products accumulated in
/// double, a rounded to dtype, the down product in double, rounded to dtype.
/// `x` is read as [T, H], `wGate` and `wUp` as [E, H, I], `wDown` as
/// [E, I, H]. H values. With block scales (`scales` required), each product
/// as expertRowProduct's scaled one: x[t] quantised for gate and up, the
/// rounded a quantised for down.
std::vector<double> moeExpertRow(const MoeSpec &spec, const HostTensor &x,
                                 const HostTensor &wGate,
                                 const HostTensor &wUp,
                                 const HostTensor &wDown, int64_t t,
                                 int64_t e, const MoeScales &scales = {});

/// y[t] and its routing: moeRoute, moeExpertRow per slot (with
/// extras.scales), the shared expert's row (extras.sharedScales) after
/// them, combined in f32 in slot order and rounded to dtype_out (returned
/// as doubles).
struct MoeRow {
  MoeRoute route;
  std::vector<double> y; // H values
};
MoeRow moeRow(const MoeSpec &spec, const HostTensor &x,
              const HostTensor &logits, const HostTensor &wGate,
              const HostTensor &wUp, const HostTensor &wDown, int64_t t,
              const MoeExtras &extras = {});

/// The tokens whose y is checked, sorted: every token when
/// T * k * 3 * H * I is at most 2^29 multiply-adds (the host reference's
/// budget, about a second in double), otherwise
/// max(4, 2^29 / (k * 3 * H * I)) of them (4 for Mixtral 8x7B's layer,
/// 0.7 GFLOP each): the first and the last token, then tokens drawn from
/// `seed`, each taken first when it routes to an expert no token taken so
/// far reaches, so that as many experts' GEMMs as possible are checked.
std::vector<int64_t> moeCheckedTokens(const MoeSpec &spec,
                                      const HostTensor &logits, uint64_t seed,
                                      const MoeExtras &extras = {});

/// The reference at `tokens`: y [n, H] of dtype_out and expert_ids [n, k]
/// (i32), n = tokens.size().
struct MoeExpected {
  HostTensor y;
  HostTensor ids;
};
MoeExpected moeExpected(const MoeSpec &spec, const HostTensor &x,
                        const HostTensor &logits, const HostTensor &wGate,
                        const HostTensor &wUp, const HostTensor &wDown,
                        const std::vector<int64_t> &tokens,
                        const MoeExtras &extras = {});

/// Compares a kernel's expert_ids ([T, k], every token) with the host's
/// routing of `logits`: true when every id matches. Otherwise `why` says
/// how many tokens differ and the first one ("expert_ids: 3 of 64 tokens
/// routed differently; token 5: [2, 7], expected [7, 2]").
bool checkMoeRouting(const MoeSpec &spec, const HostTensor &logits,
                     const HostTensor &ids, std::string &why,
                     const MoeExtras &extras = {});

/// Checks that `pkg` has the op's tensors: inputs x (dtype [T, H]),
/// router_logits (logits_dtype [T, E]), w_gate and w_up (dtype [E, H, I]),
/// w_down (dtype [E, I, H]); output y (dtype_out [T, H]); and, each when
/// present, the workspaces expert_ids (i32 [T, k]), weights (f32 [T, k]),
/// positions (i32 [T, k]), expert_offsets (i32 [E + 1]), permuted and
/// expert_out (dtype [T * k, H]), h (dtype [T * k, I]), role workspace.
/// The DeepSeek inputs when the spec has them: correction_bias (f32 [E]),
/// shared_gate and shared_up (dtype [1, H, Is]), shared_down (dtype
/// [1, Is, H]). With block scales the weights are f8E4M3FN (moeWeightType)
/// and the inputs w_gate_scale, w_up_scale, w_down_scale (f32,
/// moeShapeGateUpScale, moeShapeDownScale) and, with a shared expert,
/// shared_gate_scale, shared_up_scale (f32 [1, ceil(H/128), ceil(Is/128)])
/// and shared_down_scale (f32 [1, ceil(Is/128), ceil(H/128)]) come too.
/// Other workspaces (a quantised copy and its scales: permuted_q, h_scale,
/// ...) are the schedule's business and pass; any other input or output
/// does not. False with a message naming the parameter.
bool checkMoeParams(const KernelPackage &pkg, const MoeSpec &spec,
                    std::string &err);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_MOE_H
