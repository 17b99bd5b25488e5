//===- KgenOps.td - kgen operations -----------------------------*- tablegen -*-===//
//
// Shapes are written [dim, ...]; every tensor is ranked and statically shaped.
// The verifiers (KgenOps.cpp) check ranks, dimensions and element types and
// name the operand and the expected shape or type in their diagnostics.
//
//===----------------------------------------------------------------------===//

#ifndef KGEN_OPS_TD
#define KGEN_OPS_TD

include "dialect/KgenDialect.td"
include "dialect/KgenAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// GEMM
//===----------------------------------------------------------------------===//

def Kgen_GemmOp : Kgen_Op<"gemm", [Pure, AttrSizedOperandSegments]> {
  let summary = "matrix multiply with a fused epilogue, optionally batched";
  let description = [{
    Computes `D = act(alpha * op(A) * op(B) + beta * C + bias)`:

    - `A` is `[M, K]` (`[K, M]` with `transpose_a`), or `[batch, M, K]`;
    - `B` is `[K, N]` (`[N, K]` with `transpose_b`), or `[batch, K, N]`;
      a `B` without the batch dimension is broadcast over the batch of `A`;
    - the optional `bias` is `[N]`, one value per output column;
    - the optional residual `C` has the shape of `D`, `[M, N]` or
      `[batch, M, N]`; `beta` (default 1.0) scales it and may only be given
      with `C`;
    - `activation` is one of `none` (default), `relu`, `gelu` (tanh form),
      `silu`.

    `A` and `B` share one element type among `f16`, `bf16`, `f32` and
    `f8E4M3FN`. Products are accumulated in `acc_type` (`f32` by default;
    `f16` only for `f16` operands, rounding the running sum after every
    step). The epilogue is computed in `f32` and rounded once to the element
    type of `D`.

    The optional `config` (`#kgen.gemm_config<...>`) is the lowering
    strategy; `kgen-select-strategy` writes it where it is missing.

    Example:

    ```mlir
    %d = kgen.gemm %a, %b bias(%bias : tensor<4096xbf16>)
           residual(%c : tensor<128x4096xbf16>)
           {transpose_b, activation = #kgen.activation<silu>}
           : tensor<128x1024xbf16>, tensor<4096x1024xbf16> -> tensor<128x4096xbf16>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$a,
    AnyRankedTensor:$b,
    Optional<AnyRankedTensor>:$bias,
    Optional<AnyRankedTensor>:$c,
    UnitAttr:$transpose_a,
    UnitAttr:$transpose_b,
    DefaultValuedAttr<F32Attr, "1.0">:$alpha,
    OptionalAttr<F32Attr>:$beta,
    DefaultValuedAttr<Kgen_ActivationAttr, "::mlir::kgen::Activation::none">:$activation,
    OptionalAttr<TypeAttr>:$acc_type,
    OptionalAttr<Kgen_GemmConfigAttr>:$config
  );
  let results = (outs AnyRankedTensor:$d);
  let assemblyFormat = [{
    $a `,` $b (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`residual` `(` $c^ `:` type($c) `)`)?
    attr-dict `:` type($a) `,` type($b) `->` type($d)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Problem sizes read off the operand types (batch is 1 when unbatched).
    int64_t getBatch();
    int64_t getM();
    int64_t getN();
    int64_t getK();
    /// Element type of the accumulator (f32 unless `acc_type` says f16).
    ::mlir::Type getAccumulatorType();
    /// Scale of the residual: `beta` if given, 1.0 with a residual, else 0.
    float getBetaValue();
  }];
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

def Kgen_AttentionOp : Kgen_Op<"attention", [Pure, AttrSizedOperandSegments]> {
  let summary = "scaled dot-product attention (causal, GQA, windowed, padded)";
  let description = [{
    Computes `O = softmax(scale * Q K^T + mask) V` per batch and query head,
    in the layout `[batch, heads, seq, head_dim]`:

    - `Q` is `[B, Hq, Sq, D]`, `K` and `V` are `[B, Hkv, Skv, D]`, with
      `32 <= D <= 256`, `D` a multiple of 8, and `Hq` a multiple of `Hkv`
      (grouped-query attention: query head `h` reads key/value head
      `h / (Hq / Hkv)`; `Hkv = 1` is multi-query attention);
    - `K` and `V` share an element type: `Q`'s, or `f8E4M3FN` when `Q` is
      `bf16`, `f16` or `f8E4M3FN` (an e4m3 KV cache read by 16-bit queries);
    - the optional `q_descale`, `k_descale` and `v_descale` (`[1]`, `f32`;
      each only for an `f8E4M3FN` operand, 1 when absent) are per-tensor
      dequantisation factors, as FlashAttention-3's FP8 path and vLLM's
      fp8 KV cache take them: the logits are `scale * dq * dk * (Q . K)` and
      the output is `dv * (P V)` (the log-sum-exp is that of the logits);
    - `scale` defaults to `1 / sqrt(D)`; with `softcap = c` the scaled
      logits `s` become `c * tanh(s / c)` before masking;
    - the optional `kv_lens` (`[B]`, `i32`) gives each sequence's number of
      valid keys `L` (clamped to `[0, Skv]`; `Skv` when absent); keys at
      `j >= L` are masked;
    - with the optional `cu_seqlens(%cq, %ck)` (`[B + 1]`, `i32` each,
      FlashAttention's varlen API) the batch is packed token-major: `Q` is
      `[Tq, Hq, D]`, `K` and `V` are `[Tk, Hkv, D]`, the output `[Tq, Hq,
      D]` and the log-sum-exp `[Hq, Tq]`; sequence `b` holds query rows
      `[cq[b], cq[b + 1])` and key rows `[ck[b], ck[b + 1])`, and attends as
      a batch of one (`Sq`, `Skv` its lengths). The offsets must start at
      0, not decrease and end at the totals (the reference clamps them and
      writes 0, `-inf` in the log-sum-exp, to rows of no sequence); not
      with `kv_lens`. With `block_table` too (a varlen batch over a paged
      cache, FlashAttention's varlen API with a block table, vLLM's chunked
      prefill) `K` and `V` are pages as below and `ck` counts keys only:
      sequence `b` has `Lk = min(max(ck[b + 1], s) - s, M * P)` keys, `s =
      max(ck[b], 0)`, key `j` at `K[block_table[b, j / P], hk, j mod P, :]`;
    - with the optional `block_table` (`[B, M]`, `i32`) `K` and `V` are a
      paged cache `[N, Hkv, P, D]` (N pages of P keys, `1 <= P <= 256`, as
      FlashInfer's HND layout): sequence `b` has `Skv = M * P` keys, key `j`
      at `K[block_table[b, j / P], hk, j mod P, :]`. Keys `j >= L` and their
      table entries are never read (a serving engine pads with -1); the
      entries of keys `j < L` must lie in `[0, N)` (the reference clamps
      them into range; the kernels read what they name); with `pages_nhd`
      the pages are `[N, P, Hkv, D]` instead (FlashInfer's default NHD
      layout, vLLM's cache), key `j` at `K[block_table[b, j / P], j mod P,
      hk, :]`;
    - `causal` aligns the queries bottom-right, as FlashAttention does: query
      `i` sits at position `p = i + L - Sq` and sees keys `j <= p`;
    - `sliding_window = W` (needs `causal`) also hides keys `j <= p - W`;
    - a local window, FlashAttention's `window_size = (left, right)`, with
      or without `causal`: `window_left = l` hides keys `j < p - l`,
      `window_right = r` keys `j > p + r` (not with `sliding_window`, which
      is `window_left = W - 1`);
    - the optional `alibi_slopes` (`[Hq]`, `f32`) add `-slope[h] * |p - j|`
      to the (scaled, capped) logit of query head `h` and key `j`
      (ALiBi, as FlashAttention applies it);
    - a query row with no visible key produces zeros (and `-inf` in the
      log-sum-exp).

    The optional second result is the log-sum-exp of the masked, scaled
    logits in `f32`, `[B, Hq, Sq]` (natural log), as split-KV decoding needs.

    The optional `config` (`#kgen.attention_config<...>`) is the lowering
    strategy, which `kgen-select-strategy` writes; the verifier checks it
    against the op (dialect/AttentionLegality.h).

    Example:

    ```mlir
    %o, %lse = kgen.attention %q, %k, %v {causal}
        : tensor<1x32x128x128xbf16>, tensor<1x8x128x128xbf16>,
          tensor<1x8x128x128xbf16> -> tensor<1x32x128x128xbf16>, tensor<1x32x128xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$q,
    AnyRankedTensor:$k,
    AnyRankedTensor:$v,
    Optional<AnyRankedTensor>:$kv_lens,
    Optional<AnyRankedTensor>:$block_table,
    Optional<AnyRankedTensor>:$alibi_slopes,
    Optional<AnyRankedTensor>:$q_descale,
    Optional<AnyRankedTensor>:$k_descale,
    Optional<AnyRankedTensor>:$v_descale,
    Optional<AnyRankedTensor>:$cu_seqlens_q,
    Optional<AnyRankedTensor>:$cu_seqlens_k,
    OptionalAttr<F32Attr>:$scale,
    UnitAttr:$causal,
    UnitAttr:$pages_nhd,
    OptionalAttr<I64Attr>:$sliding_window,
    OptionalAttr<I64Attr>:$window_left,
    OptionalAttr<I64Attr>:$window_right,
    OptionalAttr<F32Attr>:$softcap,
    OptionalAttr<Kgen_AttentionConfigAttr>:$config
  );
  let results = (outs AnyRankedTensor:$out, Optional<AnyRankedTensor>:$lse);
  let assemblyFormat = [{
    $q `,` $k `,` $v
    (`cu_seqlens` `(` $cu_seqlens_q^ `,` $cu_seqlens_k `:`
        type($cu_seqlens_q) `,` type($cu_seqlens_k) `)`)?
    (`kv_lens` `(` $kv_lens^ `:` type($kv_lens) `)`)?
    (`block_table` `(` $block_table^ `:` type($block_table) `)`)?
    (`alibi` `(` $alibi_slopes^ `:` type($alibi_slopes) `)`)?
    (`q_descale` `(` $q_descale^ `:` type($q_descale) `)`)?
    (`k_descale` `(` $k_descale^ `:` type($k_descale) `)`)?
    (`v_descale` `(` $v_descale^ `:` type($v_descale) `)`)?
    attr-dict `:` type($q) `,` type($k) `,` type($v) `->` type($out) (`,` type($lse)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Sequences: Q's dimension 0, or with cu_seqlens their count B.
    int64_t getBatch();
    int64_t getQueryHeads();
    int64_t getKvHeads();
    /// Queries per sequence: Q's dimension 2, or with cu_seqlens the
    /// packed total Tq.
    int64_t getSeqQ();
    /// Keys per sequence: K's dimension 2, with a block table M * P, or
    /// with cu_seqlens the packed total Tk.
    int64_t getSeqKv();
    /// A token-major batch of variable-length sequences (cu_seqlens).
    bool isVarlen();
    int64_t getHeadDim();
    /// With a block table: keys per page (P) and pages (N); 0 without.
    int64_t getPageSize();
    int64_t getNumPages();
    /// `scale` if given, else 1 / sqrt(head_dim).
    float getScaleValue();
    /// `softcap` as a float, if given.
    std::optional<float> getSoftcapValue();
    /// The keys a query sees before its position: `window_left`, or
    /// `sliding_window - 1`; none when unlimited.
    std::optional<int64_t> getLeftWindow();
    /// The keys a query sees after its position: `window_right`; none when
    /// unlimited.
    std::optional<int64_t> getRightWindow();
  }];
}

//===----------------------------------------------------------------------===//
// Mixture of experts
//===----------------------------------------------------------------------===//

def Kgen_MoeOp : Kgen_Op<"moe", [Pure, AttrSizedOperandSegments]> {
  let summary = "mixture-of-experts gated FFN layer with top-k routing";
  let description = [{
    For each token `t` of `x` (`[T, H]`), with `router_logits` `[T, E]`:

    1. routing, exactly as `kgen.moe_route` defines it: by default
       `p = softmax(router_logits[t])` in `f32`, the `top_k` experts with
       the largest `p` are chosen (ties go to the lower expert index) and
       their probabilities are the weights, divided by their sum if
       `renormalize`; the DeepSeek extensions (`scoring`,
       `correction_bias`, `n_group` / `topk_group`,
       `routed_scaling_factor`) are described there;
    2. each chosen expert `e` computes
       `a = act(x[t] w_gate[e]) * (x[t] w_up[e])` (`f32` accumulation, `a`
       rounded to the element type of `x`) and `y_e = a w_down[e]` (rounded
       to the element type of `x`), with `w_gate`, `w_up` `[E, H, I]` and
       `w_down` `[E, I, H]`;
    3. the result is `sum_k weight_k * y_e_k` in `f32`, summed in slot order
       (plus the shared expert's output, below) and rounded once to the
       result type.

    These rounding points are those of the decomposed form
    (`kgen-decompose-moe`), so the two compute identical values.
    `activation` is `silu` (default), `gelu` or `relu`.

    **Shared expert** (DeepSeek-V2/V3): with `shared(%wsg, %wsu, %wsd)`
    (`[H, Is]`, `[H, Is]`, `[Is, H]`, the element type of the routed
    weights) every token also goes through the dense gated FFN
    `z = (act(x[t] wsg) * (x[t] wsu)) wsd`, with the rounding points of a
    routed expert (`a` and `z` rounded to the element type of `x`); `z` is
    added in `f32` after the last routed slot, before the one rounding to
    the result type (DeepSeek-V3's `MoE.forward` returns `y + z`, both
    expert outputs in the activation type). Several shared experts are one
    of intermediate size `n_shared * I`, as DeepSeek's code builds them.

    **Block-scaled e4m3 weights** (DeepSeek-V3's checkpoint, DeepGEMM's
    operands): with `scales(%sg, %su, %sd)` the weights `w_gate`, `w_up`,
    `w_down` are `f8E4M3FN`, `x` is `f16`, `bf16` or `f32`, and the `f32`
    scales are `[E, ceil(H/128), ceil(I/128)]` (for `w_gate`, `w_up`) and
    `[E, ceil(I/128), ceil(H/128)]` (for `w_down`): weight `w[e, k, n]`
    stands for `w[e, k, n] * scale[e, k/128, n/128]`. Each expert GEMM row
    `d[n] = sum_k a[k] w[k, n]` (`a` being `x[t]` or the rounded `a`
    above) is then computed as DeepGEMM does, per 128-wide K block `b`:

    - the activations are quantised per (row, K block) as DeepSeek-V3's
      `act_quant` does: `s_a[b] = max(amax_b, 1e-4) / 448` with `amax_b`
      the largest `|a[k]|` of the block (in `f32`), and
      `q[k] = e4m3(a[k] / s_a[b])` (`f32` division, then round to nearest
      even to `f8E4M3FN`, saturating at +-448);
    - `p_b = sum_{k in b} q[k] * w[k, n]` in `f32`, in index order (each
      product of two e4m3 values is exact in `f32`);
    - `acc = acc + p_b * (s_a[b] * scale[e, b, n/128])` in `f32`, blocks in
      order from `acc = 0`.

    The activation (and the gate-up product) then apply to `acc` as
    before. A partial last block (K not a multiple of 128) is a block of
    its own. (The kernels, kgen-lower-moe-to-tiles, take `bf16` or `f16`
    activations with block scales; an `f32` layer runs on the reference
    path.) With a shared expert, `shared_scales(%ssg, %ssu, %ssd)`
    (`[ceil(H/128), ceil(Is/128)]`, `[ceil(H/128), ceil(Is/128)]`,
    `[ceil(Is/128), ceil(H/128)]`) scale its e4m3 weights the same way.

    `isPlainSoftmaxMoe()` says whether the op uses none of these
    extensions (softmax routing over all experts, no bias, no scaling, no
    shared expert, no block scales).

    The optional `gate_up_config` and `down_config`
    (`#kgen.grouped_gemm_config<...>`) are the strategies of the two expert
    GEMMs (the gated `[T * k, H] x [E, H, I]` and `[T * k, I] x [E, I, H]`),
    written by `kgen-select-strategy` and read by `kgen-lower-moe-to-tiles`,
    which makes the whole layer one package of kernels (docs/moe.md).

    Example (Mixtral-style, 8 experts, top-2):

    ```mlir
    %y = kgen.moe %x, %logits, %wg, %wu, %wd {top_k = 2, renormalize}
        : tensor<16x4096xbf16>, tensor<16x8xf32>, tensor<8x4096x14336xbf16>,
          tensor<8x4096x14336xbf16>, tensor<8x14336x4096xbf16> -> tensor<16x4096xbf16>
    ```

    Example (DeepSeek-V3-style, 256 experts in 8 groups, e4m3 weights):

    ```mlir
    %y = kgen.moe %x, %logits, %wg, %wu, %wd
        scales(%sg, %su, %sd : tensor<256x56x16xf32>, tensor<256x56x16xf32>,
                               tensor<256x16x56xf32>)
        correction_bias(%bias : tensor<256xf32>)
        shared(%wsg, %wsu, %wsd : tensor<7168x2048xf8E4M3FN>,
               tensor<7168x2048xf8E4M3FN>, tensor<2048x7168xf8E4M3FN>)
        shared_scales(%ssg, %ssu, %ssd : tensor<56x16xf32>, tensor<56x16xf32>,
                      tensor<16x56xf32>)
        {top_k = 8, renormalize, scoring = #kgen.scoring<sigmoid>,
         n_group = 8, topk_group = 4, routed_scaling_factor = 2.5 : f32}
        : tensor<16x7168xbf16>, tensor<16x256xf32>,
          tensor<256x7168x2048xf8E4M3FN>, tensor<256x7168x2048xf8E4M3FN>,
          tensor<256x2048x7168xf8E4M3FN> -> tensor<16x7168xbf16>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$x,
    AnyRankedTensor:$router_logits,
    AnyRankedTensor:$w_gate,
    AnyRankedTensor:$w_up,
    AnyRankedTensor:$w_down,
    Variadic<AnyRankedTensor>:$scales,
    Optional<AnyRankedTensor>:$correction_bias,
    Variadic<AnyRankedTensor>:$shared,
    Variadic<AnyRankedTensor>:$shared_scales,
    I64Attr:$top_k,
    UnitAttr:$renormalize,
    DefaultValuedAttr<Kgen_ActivationAttr, "::mlir::kgen::Activation::silu">:$activation,
    DefaultValuedAttr<Kgen_ScoringAttr, "::mlir::kgen::Scoring::softmax">:$scoring,
    OptionalAttr<I64Attr>:$n_group,
    OptionalAttr<I64Attr>:$topk_group,
    DefaultValuedAttr<F32Attr, "1.0">:$routed_scaling_factor,
    OptionalAttr<Kgen_GroupedGemmConfigAttr>:$gate_up_config,
    OptionalAttr<Kgen_GroupedGemmConfigAttr>:$down_config
  );
  let results = (outs AnyRankedTensor:$y);
  let assemblyFormat = [{
    $x `,` $router_logits `,` $w_gate `,` $w_up `,` $w_down
    (`scales` `(` $scales^ `:` type($scales) `)`)?
    (`correction_bias` `(` $correction_bias^ `:` type($correction_bias) `)`)?
    (`shared` `(` $shared^ `:` type($shared) `)`)?
    (`shared_scales` `(` $shared_scales^ `:` type($shared_scales) `)`)?
    attr-dict `:`
    type($x) `,` type($router_logits) `,` type($w_gate) `,` type($w_up) `,`
    type($w_down) `->` type($y)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// True when the layer uses none of the DeepSeek extensions: softmax
    /// scoring over all experts, no correction bias, a routed scaling
    /// factor of 1, no shared expert and no block scales (the form
    /// kgen-lower-moe-to-tiles lowers).
    bool isPlainSoftmaxMoe();
    /// The routing parameters, as kgen.moe_route takes them.
    ::mlir::kgen::RouteParams getRouteParams();
    /// The block scale of each routed weight; null without `scales`.
    ::mlir::Value getWGateScale();
    ::mlir::Value getWUpScale();
    ::mlir::Value getWDownScale();
    /// The shared expert's weights and scales; null when absent.
    ::mlir::Value getSharedGate();
    ::mlir::Value getSharedUp();
    ::mlir::Value getSharedDown();
    ::mlir::Value getSharedGateScale();
    ::mlir::Value getSharedUpScale();
    ::mlir::Value getSharedDownScale();
  }];
}

def Kgen_MoeRouteOp : Kgen_Op<"moe_route", [Pure]> {
  let summary = "expert scoring + (group-limited) top-k expert selection";
  let description = [{
    From `router_logits` (`[T, E]`, any float type, computed in `f32`):
    `expert_ids` (`[T, top_k]`, `i32`) are the `top_k` chosen experts in
    descending order of their choice score (ties to the lower index), and
    `weights` (`[T, top_k]`, `f32`) their weights. By default (softmax
    scoring, Mixtral) the score is the softmax probability, which is also
    the choice score and the weight, divided by the sum of the chosen
    weights if `renormalize`.

    The DeepSeek extensions (DeepSeek-V3's `Gate.forward`, vLLM's
    `grouped_topk`, transformers' `DeepseekV3MoE.route_tokens_to_experts`),
    all in `f32`:

    - `scoring = #kgen.scoring<sigmoid>`: the score of expert `e` is
      `s[e] = 1 / (1 + exp(-logit[e]))`, per expert;
    - `correction_bias(%b)` (`[E]`, `f32`): the choice score is
      `c[e] = s[e] + b[e]`; without it `c = s`. The bias only chooses: the
      weights are the chosen experts' uncorrected scores `s`;
    - `n_group = G`, `topk_group = g` (given together): the experts are `G`
      equal groups of consecutive indices; a group's score is the sum of its
      two largest choice scores (the larger first) with a correction bias,
      its largest choice score without one (DeepSeek-V2's
      `group_limited_greedy`); the `g` best groups are kept (ties to the
      lower group index) and the `top_k` experts are chosen among the
      experts of the kept groups only;
    - the chosen scores `s` are divided by their sum if `renormalize`
      (`norm_topk_prob`; no epsilon is added), then multiplied by
      `routed_scaling_factor` (default 1.0).

    ```mlir
    %ids, %w = kgen.moe_route %logits {top_k = 2, renormalize}
        : tensor<16x8xf32> -> tensor<16x2xi32>, tensor<16x2xf32>
    %ids8, %w8 = kgen.moe_route %logits256 correction_bias(%b : tensor<256xf32>)
        {top_k = 8, renormalize, scoring = #kgen.scoring<sigmoid>, n_group = 8,
         topk_group = 4, routed_scaling_factor = 2.5 : f32}
        : tensor<16x256xf32> -> tensor<16x8xi32>, tensor<16x8xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$router_logits,
                       Optional<AnyRankedTensor>:$correction_bias,
                       I64Attr:$top_k,
                       UnitAttr:$renormalize,
                       DefaultValuedAttr<Kgen_ScoringAttr, "::mlir::kgen::Scoring::softmax">:$scoring,
                       OptionalAttr<I64Attr>:$n_group,
                       OptionalAttr<I64Attr>:$topk_group,
                       DefaultValuedAttr<F32Attr, "1.0">:$routed_scaling_factor);
  let results = (outs AnyRankedTensor:$expert_ids, AnyRankedTensor:$weights);
  let assemblyFormat = [{
    $router_logits
    (`correction_bias` `(` $correction_bias^ `:` type($correction_bias) `)`)?
    attr-dict `:` type($router_logits) `->` type($expert_ids) `,` type($weights)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The routing parameters (the attributes, with their defaults).
    ::mlir::kgen::RouteParams getRouteParams();
  }];
}

def Kgen_MoePermuteOp : Kgen_Op<"moe_permute", [Pure]> {
  let summary = "group token copies by expert";
  let description = [{
    Copies each row of `x` (`[T, H]`) once per routing slot into `permuted`
    (`[T * k, H]`), grouped by expert: the rows of expert `e` are
    `permuted[expert_offsets[e] .. expert_offsets[e + 1])`, in (token, slot)
    order. `expert_offsets` is `[num_experts + 1]` (`i32`, starting at 0),
    and `positions[t, s]` (`[T, k]`, `i32`) is the row of `permuted` that
    holds the copy of token `t` for slot `s`.

    An expert id outside `[0, num_experts)` drops that copy: its position is
    -1, and the unused rows at the end of `permuted` are zero.

    ```mlir
    %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 8}
        : tensor<16x4096xbf16>, tensor<16x2xi32>
          -> tensor<32x4096xbf16>, tensor<16x2xi32>, tensor<9xi32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$x, AnyRankedTensor:$expert_ids,
                       I64Attr:$num_experts);
  let results = (outs AnyRankedTensor:$permuted, AnyRankedTensor:$positions,
                      AnyRankedTensor:$expert_offsets);
  let assemblyFormat = [{
    $x `,` $expert_ids attr-dict `:` type($x) `,` type($expert_ids) `->`
    type($permuted) `,` type($positions) `,` type($expert_offsets)
  }];
  let hasVerifier = 1;
}

def Kgen_GroupedGemmOp : Kgen_Op<"grouped_gemm", [Pure, AttrSizedOperandSegments]> {
  let summary = "one GEMM per expert over contiguous row groups";
  let description = [{
    For each expert `e`, the rows `r` in `[expert_offsets[e],
    expert_offsets[e + 1])` of `a` (`[R, K]`) are multiplied by `b[e]`
    (`b` is `[E, K, N]`): `d[r] = act(a[r] b[e])`, accumulated in `f32` and
    rounded to the element type of `d` (`[R, N]`). Empty groups are allowed.
    With `gated(%b_up)` (`[E, K, N]`) the result is
    `act(a[r] b[e]) * (a[r] b_up[e])`, the gated-linear-unit form of an MoE
    expert's first layer. Offsets are clamped to `[0, R]`; rows outside
    every group are zero.

    Block-scaled e4m3 weights: with `scales(%sb)` (`scales(%sb, %sb_up)`
    when gated), `b` (and `b_up`) are `f8E4M3FN`, `a` is `f16`, `bf16` or
    `f32`, and the `f32` scales are `[E, ceil(K/128), ceil(N/128)]`; each
    row of `a` is quantised per 128 columns and the products summed per
    128-wide K block, exactly as `kgen.moe` defines it for its expert
    GEMMs.

    The optional `config` (`#kgen.grouped_gemm_config<...>`) is the lowering
    strategy; the kernels need non-decreasing offsets (what
    `kgen.moe_permute` writes).

    ```mlir
    %h = kgen.grouped_gemm %xp, %wg, %off gated(%wu : tensor<8x4096x14336xbf16>)
        {activation = #kgen.activation<silu>}
        : tensor<32x4096xbf16>, tensor<8x4096x14336xbf16>, tensor<9xi32>
          -> tensor<32x14336xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$a, AnyRankedTensor:$b,
                       AnyRankedTensor:$expert_offsets,
                       Optional<AnyRankedTensor>:$b_up,
                       Variadic<AnyRankedTensor>:$scales,
                       DefaultValuedAttr<Kgen_ActivationAttr, "::mlir::kgen::Activation::none">:$activation,
                       OptionalAttr<Kgen_GroupedGemmConfigAttr>:$config);
  let results = (outs AnyRankedTensor:$d);
  let assemblyFormat = [{
    $a `,` $b `,` $expert_offsets (`gated` `(` $b_up^ `:` type($b_up) `)`)?
    (`scales` `(` $scales^ `:` type($scales) `)`)?
    attr-dict `:` type($a) `,` type($b) `,` type($expert_offsets) `->` type($d)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The block scales of `b` and `b_up`; null without `scales`.
    ::mlir::Value getBScale();
    ::mlir::Value getBUpScale();
  }];
}

def Kgen_MoeCombineOp : Kgen_Op<"moe_combine", [Pure]> {
  let summary = "weighted un-permute of expert outputs";
  let description = [{
    `y[t] = sum_s weights[t, s] * expert_out[positions[t, s]]`, summed in
    `f32` in slot order and rounded to the element type of `y` (`[T, H]`);
    `expert_out` is `[T * k, H]`, `positions` (`i32`) and `weights` (any
    float type) are `[T, k]`. A position outside `[0, T * k)` (a dropped
    copy) contributes nothing. With `shared(%z)` (`[T, H]`, any float
    type), `z[t]` is added in `f32` after the last slot, before the one
    rounding: a shared expert's output.

    ```mlir
    %y = kgen.moe_combine %yp, %pos, %w
        : tensor<32x4096xbf16>, tensor<16x2xi32>, tensor<16x2xf32> -> tensor<16x4096xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$expert_out, AnyRankedTensor:$positions,
                       AnyRankedTensor:$weights,
                       Optional<AnyRankedTensor>:$shared_out);
  let results = (outs AnyRankedTensor:$y);
  let assemblyFormat = [{
    $expert_out `,` $positions `,` $weights
    (`shared` `(` $shared_out^ `:` type($shared_out) `)`)?
    attr-dict `:` type($expert_out) `,`
    type($positions) `,` type($weights) `->` type($y)
  }];
  let hasVerifier = 1;
}

#endif // KGEN_OPS_TD
