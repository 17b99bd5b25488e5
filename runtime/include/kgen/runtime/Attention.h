//===- Attention.h - the attention op: signature, tolerances, host mirror -===//
//
// Host-only logic for `op.kind = "attention"` packages (docs/kernel-package.md,
// docs/attention.md; kgen.attention in dialect/KgenOps.td is the authority):
//
//   out[b, h, i, :] = dv * sum_j softmax_j(t[j]) V[b, h / G, j, :]
//   t[j] = visible(j) ? softcap(a * Q[b, h, i, :] . K[b, h / G, j, :]) : -inf
//
// with a = scale * dq * dk (the descales below; 1 without them), Q and out
// [B, Hq, Sq, D], K and V [B, Hkv, Skv, D], G = Hq / Hkv,
// softcap(s) = c tanh(s / c) (identity without a softcap), and key j visible
// from query i when j < L (L = clamp(kv_lens[b], 0, Skv), Skv without
// kv_lens), and with `causal` j <= p for the bottom-right position
// p = i + L - Sq, and with `sliding_window = W` also j > p - W. A row with
// no visible key is 0, its log-sum-exp -inf; otherwise
// lse = log(sum_j exp(t[j])) (natural log).
//
// Q is bf16, f16, f32 or f8E4M3FN (e4m3); K and V share one type, Q's, or
// e4m3 under a bf16, f16 or e4m3 Q (an fp8 KV cache, as vLLM's). An e4m3
// operand may have a per-tensor f32 descale ([1]: q_descale, k_descale,
// v_descale; 1 when absent): dq and dk scale the logits (before the
// softcap), dv the output; the lse is that of the descaled logits and does
// not see dv. Elements are read exactly (e4m3 widens exactly).
//
// With a paged cache (`paged`, FlashInfer's HND layout, vLLM's block
// tables), K and V are [N, Hkv, P, D] (N pages of P keys) and an i32
// block_table [B, M] names the pages of each sequence: the logical key
// length is Skv = M * P and key j of sequence b is K[bt[b, j / P], hk,
// j % P, :] (V alike). Entries of keys j >= L are never read (a serving
// engine pads them with -1). With `pages_nhd` (only with `paged`:
// FlashInfer's default NHD layout, vLLM's cache) the pages are
// [N, P, Hkv, D] instead, key j at K[bt[b, j / P], j % P, hk, :]; all else
// (the table, kv_lens, Skv = M * P, varlen over pages) is as for HND pages.
//
// With variable-length batches (`varlen`, FlashAttention's varlen API),
// the B sequences are packed token-major: Q and out [Tq, Hq, D], K and V
// [Tk, Hkv, D], lse [Hq, Tq], and i32 cu_seqlens_q, cu_seqlens_k [B + 1]
// (cumulative offsets) say where each sequence is: sequence b's queries
// are rows [cu_q[b], cu_q[b + 1]) of Q, its keys rows [cu_k[b], cu_k[b +
// 1]) of K and V, Sq and Skv above being its lengths Sq_b and Skv_b (L =
// Skv_b: no kv_lens with varlen). seq_q and seq_kv are then the totals Tq
// and Tk. Precondition (FlashAttention's): cu[0] = 0, non-decreasing,
// cu[B] = T; the reference clamps (s_b = clamp(cu[b], 0, T), e_b =
// clamp(cu[b + 1], s_b, T)) and a query token in no sequence is 0, its lse
// -inf.
//
// Both (`varlen` and `paged`: FlashAttention's varlen API with a block
// table, vLLM's chunked prefill): the queries are packed as above (q and
// out [Tq, Hq, D], lse [Hq, Tq], seq_q = Tq), the keys are paged as above
// (k and v [N, Hkv, P, D], block_table [B, M], seq_kv = M * P each
// sequence's key capacity). cu_seqlens_k only counts keys, it indexes no
// rows of k: sequence b has L_b = min(e - s, M * P) keys for s =
// max(cu_k[b], 0), e = max(cu_k[b + 1], s) (attentionPagedKeyCount), key
// j < L_b at K[bt[b, j / P], hk, j % P, :], causal bottom-right in
// (Sq_b, L_b) (at K[bt[b, j / P], j % P, hk, :] with pages_nhd).
//
// The kernels see q, out and lse through the packed-GQA view [B, Hkv, G * Sq,
// D] ([B, Hkv, G * Sq] for lse): the same bytes, since query head h = hk * G
// + g is stored head-major. Everything here indexes them as [B, Hq, Sq, D].
// A varlen op has no packed view.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_ATTENTION_H
#define KGEN_RUNTIME_ATTENTION_H

#include "kgen/runtime/HostTensor.h"
#include "kgen/runtime/Package.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kgen::rt {

struct AttentionSpec {
  int64_t batch = 1, qHeads = 1, kvHeads = 1, seqQ = 1, seqKv = 1,
          headDim = 128;
  ElemType dtype = ElemType::BF16; // q
  // k, v: dtype when unset (what the parser leaves for dtype_kv absent or
  // equal to dtype), else F8E4M3FN; read it through attentionKvType.
  std::optional<ElemType> kvDtype;
  ElemType out = ElemType::BF16;   // out
  bool kvLens = false;             // an i32 [B] input of valid key counts
  bool lse = false;                // an f32 [B, Hq, Sq] output
  double scale = 0;                // an f32 value (rounded when parsed)
  bool causal = false;
  std::optional<int64_t> window;   // sliding_window, >= 1, only with causal
  std::optional<int64_t> windowLeft;  // window_left, >= 0, not with window
  std::optional<int64_t> windowRight; // window_right, >= 0
  bool alibi = false;              // an f32 [Hq] input of ALiBi slopes
  std::optional<double> softcap;   // an f32 value, > 0
  bool paged = false;              // k, v [N, Hkv, P, D] + block_table [B, M]
  int64_t pageSize = 0;            // P in [1, 256], only with paged
  int64_t numPages = 0;            // N >= 1, only with paged
  bool pagesNhd = false;           // k, v [N, P, Hkv, D]; only with paged
  // f32 [1] inputs, each only with an F8E4M3FN operand (q; k; v).
  bool qDescale = false, kDescale = false, vDescale = false;
  // Packed sequences: cu_seqlens_q, cu_seqlens_k i32 [B + 1]; seqQ and
  // seqKv are the token totals Tq and Tk (with paged: seqQ is Tq, seqKv
  // the pages' M * P keys of each sequence). Not with kvLens.
  bool varlen = false;
};

/// Reads an op object of kind "attention" (the manifest's "op"):
///
///   {"kind": "attention", "batch": B, "q_heads": Hq, "kv_heads": Hkv,
///    "seq_q": Sq, "seq_kv": Skv, "head_dim": D, "dtype": "bf16",
///    "dtype_out": "bf16", "kv_lens": false, "lse": false, "scale": 0.088,
///    "causal": true, "sliding_window": null, "window_left": null,
///    "window_right": null, "alibi": false, "softcap": null,
///    "paged": true, "page_size": 16, "num_pages": 64, "pages_nhd": true,
///    "dtype_kv": "f8E4M3FN", "k_descale": true, "v_descale": true}
///
/// Required: the six sizes (integers in [1, 2^31]) and dtype (Q's type:
/// bf16, f16, f32 or f8E4M3FN). Optional: dtype_out (bf16 f16 f32; dtype's
/// by default, required with an f8E4M3FN dtype), dtype_kv (K's and V's
/// type: dtype, the default, or f8E4M3FN when dtype is not f32),
/// q_descale (only with an f8E4M3FN dtype), k_descale and v_descale (only
/// with an f8E4M3FN dtype_kv; each false by default), kv_lens, lse, causal
/// (false), scale (1 / sqrt(D) as kgen.attention defaults it), sliding_window,
/// window_left, window_right and softcap (null), alibi (false), paged
/// (false; absent in packages without a paged cache) and, exactly with
/// paged, page_size (P in [1, 256]) and num_pages (N >= 1), seq_kv then
/// being the logical key length M * P (a multiple of P), pages_nhd
/// (false; only with paged: the pages are [N, P, Hkv, D]), and varlen
/// (false; absent in packages without cu_seqlens: seq_q and seq_kv are
/// then the totals Tq and Tk of packed tokens, batch the number of
/// sequences; with paged, seq_kv is still M * P, each sequence's key
/// capacity; refused with kv_lens true). Checked as the op's verifier
/// checks them: D a
/// multiple of 8 in [32, 256], Hq a multiple of Hkv, scale finite and
/// non-zero and softcap finite and > 0 (both as f32, to which they are
/// rounded), sliding_window >= 1 and only with causal, window_left and
/// window_right >= 0, window_left not with sliding_window. False with a message
/// naming the field.
bool parseAttentionOp(const nlohmann::json &op, AttentionSpec &spec,
                      std::string &err);

/// The op object for `spec`, every field written (null for no window or
/// softcap) but paged, page_size and num_pages, written only with a paged
/// cache, pages_nhd, written (true) only with NHD pages, varlen, written (true)
/// only with cu_seqlens, dtype_kv, written only when it is not dtype, and
/// q_descale, k_descale and v_descale, written (true) only when the op has them
/// (as the dialect's signature has them: an op without them has the object it
/// had before they existed). parseAttentionOp(attentionOpJson(s)) gives s back.
nlohmann::json attentionOpJson(const AttentionSpec &spec);

/// The element type of k and v: spec.kvDtype, or dtype when unset.
ElemType attentionKvType(const AttentionSpec &spec);

/// Hq / Hkv: the query heads that read one key/value head.
int64_t attentionGroup(const AttentionSpec &spec);

/// Shapes in the op's layout: q and out [B, Hq, Sq, D], k and v
/// [B, Hkv, Skv, D] ([N, Hkv, P, D] when paged, [N, P, Hkv, D] with
/// pages_nhd), lse [B, Hq, Sq], kv_lens [B], block_table [B, M], each
/// descale [1]; with varlen q and out [Tq, Hq, D], k and v [Tk, Hkv, D]
/// (the pages when paged too), lse [Hq, Tq] (FlashAttention's varlen
/// softmax_lse) and cu_seqlens_q, cu_seqlens_k [B + 1].
std::vector<int64_t> attentionShapeQ(const AttentionSpec &spec);
std::vector<int64_t> attentionShapeKv(const AttentionSpec &spec);
std::vector<int64_t> attentionShapeBlockTable(const AttentionSpec &spec);
/// M = Skv / P, the pages of one sequence (0 when not paged).
int64_t attentionPagesPerSequence(const AttentionSpec &spec);
std::vector<int64_t> attentionShapeLse(const AttentionSpec &spec);
std::vector<int64_t> attentionShapeKvLens(const AttentionSpec &spec);
std::vector<int64_t> attentionShapeCuSeqlens(const AttentionSpec &spec);
/// The packed-GQA views of q/out, [B, Hkv, G * Sq, D], and of lse,
/// [B, Hkv, G * Sq] (docs/attention.md, "Rows"). A varlen op has none:
/// they give its layout (attentionShapeQ, attentionShapeLse).
std::vector<int64_t> attentionPackedShapeQ(const AttentionSpec &spec);
std::vector<int64_t> attentionPackedShapeLse(const AttentionSpec &spec);

/// FlashAttention's count (benchmarks/benchmark_flash_attention.py: two
/// matmuls of 2 flops per multiply-add): 4 * B * Hq * Sq * Skv * D, halved
/// with `causal`. FlashAttention's benchmark has one sequence length; with
/// Sq != Skv the product Sq * Skv takes its place, and causal still halves
/// it, whatever Sq and Skv (so a causal decode step, Sq = 1, which sees every
/// key, counts half its work). kv_lens, sliding_window and padding are not
/// counted: the rule is the op's nominal work, the same for every kernel.
/// With varlen (FlashAttention's varlen benchmark) the tokens count as if
/// split evenly: 4 * Hq * D * Tq * Tk / B, halved with `causal`; the work a
/// run does depends on the lengths its cu_seqlens hold. With varlen over a
/// paged cache, B sequences of Tq / B queries and of the M * P keys their
/// pages hold (the paged count: the capacity, as kv_lens' padding is not
/// subtracted): 4 * Hq * D * Tq * Skv, halved with `causal`.
double attentionFlops(const AttentionSpec &spec);

/// Fewest bytes moved: q (dtype), k and v (dtype_kv) read once, out written
/// once, lse (f32), kv_lens (i32) and each descale (f32, 4 bytes) once
/// when the op has them. Workspaces are not counted.
/// With a paged cache, k and v count the pages the B sequences name, B * M
/// pages of P keys each (the same B * Hkv * Skv * D elements as a
/// contiguous cache; the rest of the pool is not read, and kv_lens'
/// padding is not subtracted), and the block table (i32 [B, M]) once.
/// With varlen, q, out and lse at Tq tokens, k and v at Tk, and both
/// cu_seqlens (i32 [B + 1]) once; with varlen over a paged cache, q, out,
/// lse and both cu_seqlens as varlen counts them, k, v and the block table
/// as a paged cache counts them (B * M pages). NHD pages count as HND ones.
double attentionBytes(const AttentionSpec &spec);

/// Largest relative Frobenius error of `out` that passes (shared/notes/
/// perf-method.md) for a package lowered with `config` (its manifest's
/// "config" object: KernelPackage::config, KernelResult::config):
///  - 0.0625 (e4m3's unit roundoff) for e4m3 Q, K and V (dtype f8E4M3FN)
///    when config["instruction"] is "wgmma": those kernels round p to e4m3
///    for their P V (FlashAttention-3's FP8 path), about 2.5e-2 from the
///    reference;
///  - otherwise 1e-2 with any bf16, f16 or f8E4M3FN input or output (p is
///    rounded to the compute type before the PV product, Q's type, f16
///    under an e4m3 Q: mma_sync widens e4m3 Q, K and V to f16 and keeps p
///    in f16, about 2e-4; and the output once), 1e-4 with f32 only.
/// A config that is not an object with a string "instruction" (null: a
/// baseline's result, or a caller without one) gets the second rule.
double attentionTolerance(const AttentionSpec &spec,
                          const nlohmann::json &config);

/// Largest absolute error of `lse` that passes: 1e-3 with a bf16, f16 or
/// f8E4M3FN input (q, or k and v), 1e-4 with f32 ones. The log-sum-exp does
/// not see the rounding of p or of the output, only the f32 dot products and
/// exp/log (about 1e-6 relative over logits of magnitude ~1 with random
/// inputs). -inf must match exactly.
double attentionLseTolerance(const AttentionSpec &spec);

/// Checks that `pkg` has the tensor parameters of `spec` and no others:
/// q, k, v (role input; q [B, Hq, Sq, D] or the packed view [B, Hkv, G * Sq,
/// D], of dtype, k and v [B, Hkv, Skv, D], of dtype_kv), kv_lens (input,
/// i32 [B]) exactly when the op has it, alibi_slopes (input, f32 [Hq]) and
/// q_descale, k_descale, v_descale (input, f32 [1]) each exactly when the
/// op has it, out (output, dtype_out, q's shapes), lse
/// (output, f32, [B, Hq, Sq] or [B, Hkv, G * Sq]) exactly when the op has
/// it, block_table (input, i32 [B, M]) exactly when the op is paged (k and
/// v then [N, Hkv, P, D], or [N, P, Hkv, D] with pages_nhd), and the split-KV
/// workspaces o_partial (f32 [S, B, Hkv, G * Sq, D]) and lse_partial (f32 [S,
/// B, Hkv, G * Sq]), both or neither, role workspace, the same S >= 1. With
/// varlen: cu_seqlens_q and cu_seqlens_k (input, i32 [B + 1]), q and out [Tq,
/// Hq, D], k and v [Tk, Hkv, D] (the pages and the block table when paged
/// too), lse [Hq, Tq] (no packed view) and no split-KV workspaces.
/// False with a message naming the parameter and, for a wrong shape, the layout
/// the op has.
bool checkAttentionParams(const KernelPackage &pkg, const AttentionSpec &spec,
                          std::string &err);

/// The key/value lengths of an attention package's kv_lens input ([B] i32),
/// drawn from `seed` (packageInputSeed of the run and "kv_lens"), each
/// independently: with probability 1/2 the full Skv; 3/8 uniform in
/// [1, Skv]; 1/8 a short length uniform in [0, min(Skv, 8)] (0: every key
/// masked, the row is zeros and its lse -inf). So most rows attend to many
/// keys, a partial last key tile is likely, and short and empty rows occur
/// in any batch of a few sequences. A timed kernel does the work of the
/// lengths drawn (the same for a seed).
HostTensor attentionKvLens(const AttentionSpec &spec, uint64_t seed);

/// The block table of a paged attention package ([B, M] i32), drawn from
/// `seed` (packageInputSeed of the run and "block_table"): a seeded
/// permutation of the N pages [0, N) cut into rows of M, row b holding
/// pages b * M .. b * M + M - 1 of it, so the pages of the whole table are
/// distinct and shuffled across sequences when N >= B * M (with fewer pages
/// the permutation is read cyclically: distinct within a row when M <= N).
/// With `kvLens` ([B], the lengths attentionKvLens drew for the run), the
/// entries that hold no key a kernel reads, m >= ceil(L / P) for L =
/// clamp(kv_lens[b], 0, Skv), are -1, as a serving engine pads its tables.
/// Not for a varlen op (attentionVarlenBlockTable).
HostTensor attentionBlockTable(const AttentionSpec &spec, uint64_t seed,
                               const HostTensor *kvLens);

/// Sequence b's key count L_b in a varlen op over a paged cache, read from
/// `cuSeqlensK` ([B + 1]): s = max(cu_k[b], 0), e = max(cu_k[b + 1], s),
/// L_b = min(e - s, M * P). Only the differences count (the offsets index
/// no rows of k, and their total need not be anything). Precondition: b in
/// [0, B), `cuSeqlensK` has B + 1 elements at least.
int64_t attentionPagedKeyCount(const AttentionSpec &spec,
                               const HostTensor &cuSeqlensK, int64_t b);

/// The cu_seqlens_k of a varlen op over a paged cache (i32 [B + 1],
/// cu[0] = 0, non-decreasing), drawn from `seed` (packageInputSeed of the
/// run and "cu_seqlens_k"): each sequence's key count uniform in
/// [0, M * P] (partial last pages, odd as often as even), then with B >= 2
/// (B = 1: on half of the seeds) one seeded sequence full (M * P keys), and
/// with B >= 3 (B = 2: on half of the seeds) another one empty. A pool
/// too small for the counts drawn (N < sum ceil(L_b / P)) caps them in
/// sequence order to the pages left (a sequence past the pool gets 0
/// keys), so that every key read has a page of its own; the total stays
/// below 2^31.
HostTensor attentionPagedCuSeqlensK(const AttentionSpec &spec, uint64_t seed);

/// The block table of a varlen op over a paged cache ([B, M] i32), drawn
/// from `seed` (packageInputSeed of the run and "block_table"): sequence b's
/// first ceil(L_b / P) entries (L_b = attentionPagedKeyCount over
/// `cuSeqlensK`) are the next pages of a seeded permutation of [0, N), in
/// sequence order, the others -1. So the pages read are distinct and
/// shuffled across the sequences when the pool holds them (N >= sum
/// ceil(L_b / P), as attentionPagedCuSeqlensK draws them); past that the
/// permutation is read cyclically. All zeros when `cuSeqlensK` has fewer
/// than B + 1 elements.
HostTensor attentionVarlenBlockTable(const AttentionSpec &spec, uint64_t seed,
                                     const HostTensor &cuSeqlensK);

/// A descale input (q_descale, k_descale or v_descale: f32 [1]), drawn
/// from `seed` (packageInputSeed of the run and the parameter's name):
/// uniform in [0.5, 2], rounded to f32. Never zero or negative (a descale
/// is a positive quantisation factor), and away from 1 often enough that a
/// kernel that ignores one, or applies dv to the lse, fails the check.
HostTensor attentionDescale(uint64_t seed);

/// A varlen package's cu_seqlens_q or cu_seqlens_k (i32 [B + 1]): `total`
/// tokens (Tq or Tk) cut into the B sequences, drawn from `seed`
/// (packageInputSeed of the run and the parameter's name: the query and
/// the key lengths are drawn independently, as FlashAttention allows Sq_b
/// != Skv_b; under `causal` a sequence with Skv_b < Sq_b has rows that see
/// no key). cu[0] = 0, cu[B] = total, non-decreasing. On half of the
/// seeds (B > 1) one seeded sequence takes a long length, uniform in
/// [ceil(total / 2), total]; the other sequences share the tokens left,
/// cut at sorted uniform points (uneven lengths, odd as often as even);
/// on half of the seeds (B > 1) one seeded sequence, not the long one, is
/// emptied into the next (cyclically): a length 0.
HostTensor attentionCuSeqlens(const AttentionSpec &spec, uint64_t seed,
                              int64_t total);

/// The value of an attention package's input `param` in a run seeded
/// `runSeed` when the op has its own rule for it: kv_lens
/// (attentionKvLens), block_table (attentionBlockTable, padded past the
/// lengths the run's kv_lens holds: the kv_lens seed), the descales
/// (attentionDescale) and cu_seqlens_q and cu_seqlens_k of a varlen op
/// (attentionCuSeqlens over Tq and Tk), each from packageInputSeed(runSeed,
/// its name); for a varlen op over a paged cache cu_seqlens_k is
/// attentionPagedCuSeqlensK and block_table attentionVarlenBlockTable over
/// the run's cu_seqlens_k (its seed);
/// nullopt for the others (q, k, v, alibi_slopes: makeRandom).
std::optional<HostTensor> attentionInput(const AttentionSpec &spec,
                                         const KernelParam &param,
                                         uint64_t runSeed);

/// The optional input tensors of an attention op, each null when the op
/// (or the caller) has none; values read as getAsDouble reads them.
struct AttentionExtras {
  const HostTensor *kvLens = nullptr;     // kv_lens [B], integer
  const HostTensor *alibi = nullptr;      // alibi_slopes [Hq]
  const HostTensor *blockTable = nullptr; // block_table [B, M], integer
  const HostTensor *qDescale = nullptr;   // q_descale [1]
  const HostTensor *kDescale = nullptr;   // k_descale [1]
  const HostTensor *vDescale = nullptr;   // v_descale [1]
  const HostTensor *cuSeqlensQ = nullptr; // cu_seqlens_q [B + 1], integer
  const HostTensor *cuSeqlensK = nullptr; // cu_seqlens_k [B + 1], integer
};

/// The extras of a package by parameter name: `find(name)` gives the input
/// tensor named `name` ("kv_lens", "alibi_slopes", "block_table",
/// "q_descale", "k_descale", "v_descale", "cu_seqlens_q", "cu_seqlens_k"),
/// or null when there is none.
AttentionExtras attentionExtras(
    const std::function<const HostTensor *(const std::string &)> &find);

/// Sequence b's rows [begin, end) of a varlen op's packed tokens, read
/// from `cuSeqlens` ([B + 1]) over `total` tokens as the reference clamps
/// them: begin = clamp(cu[b], 0, total), end = clamp(cu[b + 1], begin,
/// total).
struct AttentionTokens {
  int64_t begin = 0, end = 0;
};
AttentionTokens attentionSequenceTokens(const HostTensor &cuSeqlens,
                                        int64_t total, int64_t b);

/// One query row of the op in double precision: out[b, h, i, 0..D) and its
/// lse (with varlen: query i of sequence b, token cu_q[b] + i, at head h). `q`
/// is read as [B, Hq, Sq, D], `k` and `v` as [B, Hkv, Skv, D] (any shapes with
/// those element counts: the packed view is the same bytes; any element types,
/// e4m3 read exactly). extras.kvLens may be null when the op has none (every
/// key then counts), extras.alibi when it has none (slopes 0). With a paged
/// spec, `k` and `v` are read as [N, Hkv, P, D] ([N, P, Hkv, D] with
/// pages_nhd) through extras.blockTable; only the entries of visible keys
/// are read. The descales are read from element 0 of their tensors when the
/// spec has them (dq * dk scale the logits, dv the output, not the lse) and
/// are ignored otherwise. A paged spec without a table, a visible key's
/// entry outside [0, N), or a descale the spec has without its tensor (or an
/// empty one) gives a row of NaN (out and lse), which no kernel's output
/// matches. With varlen, `q` is read as [Tq, Hq, D], `k` and
/// `v` as [Tk, Hkv, D], sequence b's tokens from extras.cuSeqlensQ and
/// extras.cuSeqlensK (attentionSequenceTokens; extras.kvLens is not
/// read); without both tensors (or with fewer than B + 1 elements), with b
/// outside [0, B) or with i outside [0, Sq_b), the row is NaN. With varlen
/// and paged, the queries as varlen reads them and L_b keys
/// (attentionPagedKeyCount) through the block table as paged reads them.
/// Not rounded.
struct AttentionRow {
  std::vector<double> out; // D values
  double lse = 0;          // -inf when no key is visible
};
AttentionRow attentionRow(const AttentionSpec &spec, const HostTensor &q,
                          const HostTensor &k, const HostTensor &v,
                          const AttentionExtras &extras, int64_t b, int64_t h,
                          int64_t i);

/// The reference at `rows` (flat indices of [B, Hq, Sq], or of [Tq, Hq]
/// with varlen: the rows of out, e.g. from sampleIndices over
/// attentionRowCount): out [rows, D] rounded to dtype_out, lse [rows] f32.
/// With varlen, token t's row is that of the last sequence whose tokens
/// hold it (one, under the precondition), zeros and -inf when none does.
struct AttentionExpected {
  HostTensor out;
  HostTensor lse;
};
AttentionExpected attentionExpected(const AttentionSpec &spec,
                                    const HostTensor &q, const HostTensor &k,
                                    const HostTensor &v,
                                    const AttentionExtras &extras,
                                    const std::vector<int64_t> &rows);

/// The rows of out, [B * Hq * Sq] ([Tq * Hq] with varlen): the flat row
/// indices attentionExpected takes.
int64_t attentionRowCount(const AttentionSpec &spec);

/// The elements of lse that hold the log-sum-exp of out rows `rows`:
/// `rows` themselves, but h * Tq + t for row t * Hq + h of a varlen op
/// (its lse is [Hq, Tq]). gatherRows(lse, attentionLseElements(..), 1)
/// lines a kernel's lse up with attentionExpected's.
std::vector<int64_t> attentionLseElements(const AttentionSpec &spec,
                                          const std::vector<int64_t> &rows);

/// Rows `rows` of `t` read as [numElements / rowElements, rowElements]: a
/// tensor [rows.size(), rowElements] of t's type.
HostTensor gatherRows(const HostTensor &t, const std::vector<int64_t> &rows,
                      int64_t rowElements);

/// Compares a log-sum-exp with its reference, element by element: passes
/// when every element is within `tolerance` of the reference, -inf only
/// where the reference is -inf, and none is NaN. Sets `maxAbsErr` (over the
/// finite pairs) and, on failure, `why` (one line).
bool checkLse(const HostTensor &got, const HostTensor &expected,
              double tolerance, double &maxAbsErr, std::string &why);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_ATTENTION_H
