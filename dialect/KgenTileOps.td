//===- KgenTileOps.td - tile-level kernel form ------------------*- tablegen -*-===//
//
// The tile-level form of a kernel: what GEMM lowering produces and what both
// the CUDA emitter and the CPU check consume, so the CPU check runs the very
// schedule the GPU kernel runs.
//
// A kgen.kernel is a block program: its body runs once per thread block,
// with the block's coordinates and the kernel parameters (memrefs) as block
// arguments. Inside, plain index arithmetic (arith) computes tile
// coordinates, memref.alloca makes tile buffers (memory space 3: shared
// memory; 5: registers), and the kgen.tile ops below move and compute
// whole tiles. Each tile op has a definition on whole tiles that the CPU
// lowering (kgen-lower-tiles-to-loops) implements literally; the CUDA
// emitter maps it to a tile primitive of codegen/.
//
// Shapes: a stage buffer is [stages, rows, cols]; an accumulator [BM, BN].
//
//===----------------------------------------------------------------------===//

#ifndef KGEN_TILE_OPS_TD
#define KGEN_TILE_OPS_TD

include "dialect/KgenDialect.td"
include "dialect/KgenAttrs.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Kgen_KernelOp : Kgen_Op<"kernel", [Symbol, IsolatedFromAbove, SingleBlock,
                                        AutomaticAllocationScope,
                                        NoTerminator]> {
  let summary = "a block program: the body of a GPU kernel";
  let description = [{
    The body runs once per thread block of a `grid` (x, y, z). Its block
    arguments are the block's coordinates (three `index` values) followed by
    the kernel's parameters: memrefs, inputs first, then outputs, in the
    order `kgen.launch` passes them. `threads` is the block size and
    `smem_bytes` the dynamic shared memory the CUDA kernel needs; `config`
    the strategy it was lowered with. `param_names` name the parameters in
    generated code and manifests, the last `num_outputs` of them are
    outputs, and `signature` records the op the kernel computes (the `op`
    object of docs/kernel-package.md, which the runtime verifies against).

    ```mlir
    kgen.kernel @k grid [4, 1, 1] threads 128 smem 32768 {
    ^bb0(%bx: index, %by: index, %bz: index, %a: memref<64x32xf32>, %d: memref<64x32xf32>):
      ...
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, DenseI64ArrayAttr:$grid,
                       I64Attr:$threads, I64Attr:$smem_bytes,
                       OptionalAttr<AnyAttrOf<[Kgen_GemmConfigAttr,
                                               Kgen_AttentionConfigAttr,
                                               Kgen_GroupedGemmConfigAttr]>>:$config,
                       OptionalAttr<StrArrayAttr>:$param_names,
                       DefaultValuedAttr<I64Attr, "1">:$num_outputs,
                       OptionalAttr<DictionaryAttr>:$signature);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `grid` $grid `threads` $threads `smem` $smem_bytes
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The parameters: the body's block arguments after the coordinates.
    ::mlir::Block::BlockArgListType getParams() {
      return getBody().front().getArguments().drop_front(3);
    }
  }];
}

def Kgen_LaunchOp : Kgen_Op<"launch", [Pure,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "run a kgen.kernel on tensors";
  let description = [{
    Runs `kernel` over its whole grid with the inputs as its first
    parameters and fresh buffers for the results as the rest, and returns
    those buffers as tensors.

    ```mlir
    %d = kgen.launch @k(%a) : (tensor<64x32xf32>) -> tensor<64x32xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel, Variadic<AnyRankedTensor>:$inputs);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $kernel `(` $inputs `)` attr-dict `:` functional-type($inputs, $results)
  }];
}

def Kgen_TileZeroOp : Kgen_Op<"tile.zero"> {
  let summary = "set every element of a tile buffer to zero";
  let arguments = (ins AnyMemRef:$tile);
  let assemblyFormat = "$tile attr-dict `:` type($tile)";
}

def Kgen_TileLoadOp : Kgen_Op<"tile.load"> {
  let summary = "masked copy of a 2-D box from global memory into a stage buffer";
  let description = [{
    With `dst` of shape [S, R, C]: for r < R, c < C,
    `dst[stage, r, c] = src[i..., i + r, j + c]` when `i + r < rows` and
    `j + c < cols`, else 0. `indices` address every dimension of `src` (the
    leading ones pick a batch); the box spans its last two. On the GPU: TMA
    (out-of-bounds elements are zero-filled by the hardware) or cp.async
    with zero-fill.
  }];
  let arguments = (ins AnyMemRef:$src, Variadic<Index>:$indices, Index:$rows,
                       Index:$cols, AnyMemRef:$dst, Index:$stage);
  let assemblyFormat = [{
    $src `[` $indices `]` `bounds` `(` $rows `,` $cols `)` `into` $dst `[` $stage `]`
    attr-dict `:` type($src) `,` type($dst)
  }];
  let hasVerifier = 1;
}

def Kgen_TileLoadPagedOp : Kgen_Op<"tile.load_paged"> {
  let summary = "masked copy of consecutive keys of a paged cache into a stage buffer";
  let description = [{
    A paged K or V cache `src` of shape [N, H, P, C'] (N pages of P rows of
    head `h`), a block table `table` [B, M] (i32) and `dst` of shape
    [S, R, C]: for r < R, c < C, with key `j = key0 + r`,
    `dst[stage, r, c] = src[page, h, j mod P, c]` when `j < rows` and
    `c < cols`, else 0, where `page = table[b, j / P]` clamped to [0, N).
    Table entries of keys `j >= rows` are not read (a serving engine pads
    them with -1); `rows <= M * P`. With `nhd` the cache is [N, P, H, C']
    and the row `src[page, j mod P, h]` (FlashInfer's NHD pages). On the
    GPU: one 16-byte cp.async row chunk at a time, each row's source from
    its page.
  }];
  let arguments = (ins AnyMemRef:$src, Index:$head, AnyMemRef:$table,
                       Index:$batch, Index:$key0, Index:$rows, Index:$cols,
                       AnyMemRef:$dst, Index:$stage, UnitAttr:$nhd);
  let assemblyFormat = [{
    $src `[` $head `]` `table` `(` $table `[` $batch `]` `)` `keys` `(` $key0 `)`
    `bounds` `(` $rows `,` $cols `)` `into` $dst `[` $stage `]`
    attr-dict `:` type($src) `,` type($table) `,` type($dst)
  }];
  let hasVerifier = 1;
}

def Kgen_TileWidenOp : Kgen_Op<"tile.widen"> {
  let summary = "widen a stage of e4m3 elements into a 16-bit tile";
  let description = [{
    With `src` of shape [S, R, C] (f8E4M3FN) and `dst` of shape [T, R, C]
    (bf16 or f16): `dst[to, r, c] = src[stage, r, c]`, exactly (every e4m3
    value is a bf16 and an f16 value). On the GPU every thread of the block
    takes part (cvt.rn.f16x2.e4m3x2, sm_89+) and a block barrier ends it;
    a widen outside a pipeline's compute step first waits for the copies
    in flight.
  }];
  let arguments = (ins AnyMemRef:$src, Index:$stage, AnyMemRef:$dst,
                       Index:$to);
  let assemblyFormat = [{
    $src `[` $stage `]` `into` $dst `[` $to `]` attr-dict `:` type($src) `,` type($dst)
  }];
  let hasVerifier = 1;
}

def Kgen_TileSequenceTileOp : Kgen_Op<"tile.sequence_tile"> {
  let summary = "the sequence and first row of a row tile of a variable-length batch";
  let description = [{
    With cumulative offsets `offsets` ([B + 1], i32) and tiles of `block_m`
    rows: sequence b holds `n_b = ceil(max(offsets[b + 1] - offsets[b], 0)
    / block_m)` row tiles, numbered after those of sequences 0 .. b - 1.
    For tile `tile` of sequence b: `seq = b`, `row = (tile - sum_{b' < b}
    n_b') * block_m` (its first row in the sequence) and `valid = 1`; a tile
    of no sequence gives 0, 0, 0. A grid of `ceil(T / block_m) + B` tiles
    covers every sequence (T = offsets[B], offsets[0] = 0). On the GPU each
    block reads the offsets (FlashAttention's varlen tile scheduler).
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$offsets, Index:$tile,
                       I64Attr:$block_m);
  let results = (outs Index:$seq, Index:$row, Index:$valid);
  let assemblyFormat = [{
    $offsets `[` $tile `]` `block_m` `(` $block_m `)` attr-dict `:` type($offsets)
  }];
  let hasVerifier = 1;
}

def Kgen_TileMmaOp : Kgen_Op<"tile.mma"> {
  let summary = "accumulate the product of two stage tiles";
  let description = [{
    `acc[m, n] += sum_k A(m, k) * B(k, n)` over the stage `stage` of `a` and
    `b`, products and sums in f32 in k order, where `A(m, k)` is
    `a[stage, m, k]` (`a[stage, k, m]` with `transpose_a`) and `B(k, n)` is
    `b[stage, k, n]` (`b[stage, n, k]` with `transpose_b`). With `acc_f16`
    the running sum is rounded to f16 after every step. The instruction
    family of the config (SIMT FMAs, mma.sync, wgmma) realises it on the GPU.
  }];
  let arguments = (ins AnyMemRef:$a, AnyMemRef:$b, Index:$stage, AnyMemRef:$acc,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b,
                       UnitAttr:$acc_f16);
  let assemblyFormat = [{
    $a `,` $b `[` $stage `]` `into` $acc attr-dict `:` type($a) `,` type($b) `,` type($acc)
  }];
  let hasVerifier = 1;
}

def Kgen_TileAccumulateOp : Kgen_Op<"tile.accumulate"> {
  let summary = "add a masked f32 box from global memory to an accumulator";
  let description = [{
    `acc[r, c] += src[i..., i + r, j + c]` where `i + r < rows` and
    `j + c < cols`: the step of the split-K reduction, run over the splits in
    order so the result does not depend on scheduling.
  }];
  let arguments = (ins AnyMemRef:$src, Variadic<Index>:$indices, Index:$rows,
                       Index:$cols, AnyMemRef:$acc);
  let assemblyFormat = [{
    $src `[` $indices `]` `bounds` `(` $rows `,` $cols `)` `into` $acc attr-dict `:`
    type($src) `,` type($acc)
  }];
  let hasVerifier = 1;
}

def Kgen_TileStoreOp : Kgen_Op<"tile.store"> {
  let summary = "masked store of an f32 accumulator tile (split-K partials)";
  let description = [{
    `dst[i..., i + r, j + c] = acc[r, c]` where `i + r < rows` and
    `j + c < cols`.
  }];
  let arguments = (ins AnyMemRef:$acc, AnyMemRef:$dst, Variadic<Index>:$indices,
                       Index:$rows, Index:$cols);
  let assemblyFormat = [{
    $acc `into` $dst `[` $indices `]` `bounds` `(` $rows `,` $cols `)` attr-dict `:`
    type($acc) `,` type($dst)
  }];
  let hasVerifier = 1;
}

def Kgen_TileEpilogueOp : Kgen_Op<"tile.epilogue", [AttrSizedOperandSegments]> {
  let summary = "GEMM epilogue on an accumulator tile, stored with bounds";
  let description = [{
    For r, c inside the bounds, with `(y..., x) = (i..., i + r, j + c)`:
    `dst[y..., x] = act(alpha * acc[r, c] + beta * residual[y..., x] +
    bias[j + c])`, computed in f32 in that order and rounded once to the
    element type of `dst` (the terms of absent operands are left out).
  }];
  let arguments = (ins AnyMemRef:$acc, AnyMemRef:$dst, Variadic<Index>:$indices,
                       Index:$rows, Index:$cols, Optional<AnyMemRef>:$bias,
                       Optional<AnyMemRef>:$residual, F32Attr:$alpha,
                       F32Attr:$beta, Kgen_ActivationAttr:$activation);
  let assemblyFormat = [{
    $acc `into` $dst `[` $indices `]` `bounds` `(` $rows `,` $cols `)`
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`residual` `(` $residual^ `:` type($residual) `)`)?
    attr-dict `:` type($acc) `,` type($dst)
  }];
  let hasVerifier = 1;
}

def Kgen_TilePipelineOp : Kgen_Op<"tile.pipeline", [NoTerminator]> {
  let summary = "software-pipelined loop over K tiles through stage buffers";
  let description = [{
    For k in [lower, upper): the `load` region fills stage `(k - lower) %
    stages` for tile k, and the `compute` region consumes it. Loads run up
    to `stages - 1` tiles ahead of the computation: the CPU lowering issues
    them in exactly the order of the GPU prologue and steady state, so a
    wrong stage index or an overwritten stage shows as a wrong result. Both
    regions take (k, stage) as block arguments.

    On the GPU: cp.async groups with `stages - 1` in flight (sm_80), or a TMA
    producer warpgroup and mbarriers per stage (sm_90a, warp-specialised).
  }];
  let arguments = (ins Index:$lower, Index:$upper, I64Attr:$stages);
  let regions = (region SizedRegion<1>:$load, SizedRegion<1>:$compute);
  let assemblyFormat = [{
    $lower `to` $upper `stages` $stages attr-dict-with-keyword
    `load` $load `compute` $compute
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Attention steps (docs/attention.md)
//
// One block's rows of the online softmax: the query tile `q` [1, BM, D],
// K and V stage buffers [S, BN, D], the scores `s` [BM, BN] f32, the
// running statistics `stats` [2, BM] f32 (row max, row sum) and the output
// accumulator `acc` [BM, D] f32, all of the block.
//===----------------------------------------------------------------------===//

def Kgen_TileSoftmaxInitOp : Kgen_Op<"tile.softmax_init"> {
  let summary = "start the running row statistics of an online softmax";
  let description = [{
    `stats[0, m] = -inf` (the running max) and `stats[1, m] = 0` (the
    running sum) for every row m.
  }];
  let arguments = (ins AnyMemRef:$stats);
  let assemblyFormat = "$stats attr-dict `:` type($stats)";
  let hasVerifier = 1;
}

def Kgen_TileQkOp : Kgen_Op<"tile.qk"> {
  let summary = "the scores of a query tile against a key stage";
  let description = [{
    `s[m, n] = sum_d q[0, m, d] * k[stage, n, d]`, products and sums in
    f32 in d order, overwriting `s`. On the GPU: ldmatrix and mma.sync
    (Q as the K-major A operand, the K stage as the K-major B operand).
  }];
  let arguments = (ins AnyMemRef:$q, AnyMemRef:$k, Index:$stage, AnyMemRef:$s);
  let assemblyFormat = [{
    $q `,` $k `[` $stage `]` `into` $s attr-dict `:` type($q) `,` type($k) `,` type($s)
  }];
  let hasVerifier = 1;
}

def Kgen_TileOnlineSoftmaxOp : Kgen_Op<"tile.online_softmax",
                                       [AttrSizedOperandSegments]> {
  let summary = "mask the scores, update the row statistics, rescale the output";
  let description = [{
    For row m of the tile, packed row `r = row0 + m` is query
    `i = r mod seq_q` of query head `head0 + r / seq_q` (clamped into the
    slopes' heads; `seq_q` is a runtime value, a variable-length sequence's,
    and one below 1 counts as 1), at position
    `p = i + kv_len - seq_q` (bottom-right); column n is key `j = col0 +
    n`, visible when `j < kv_len`, and `j <= p` with `causal`, and
    `j >= p - window_left`, `j <= p + window_right` with those. With
    `t = visible ? cap(scale * s[m, n]) - slope * |p - j| : -inf`
    (`cap(x) = softcap * tanh(x / softcap)` with `softcap`, else x; `slope
    = alibi[head]` with `alibi`, else 0), the old max `mo` and sum `l`:
    `mn = max(mo, max_n t)`, `shift = mn == -inf ? 0 : mn`,
    `alpha = mo == -inf ? 0 : exp(mo - shift)`, `p_n = exp(t_n - shift)`;
    then `s[m, n] = p_n`, `acc[m, :] *= alpha`, `stats[1, m] = alpha * l +
    sum_n p_n` (n in order) and `stats[0, m] = mn`. All in f32. With
    `descale` (an f32 runtime factor, e4m3 operands' dq * dk), `scale`
    becomes `scale * descale` (one f32 product).
  }];
  let arguments = (ins AnyMemRef:$s, AnyMemRef:$stats, AnyMemRef:$acc,
                       Index:$row0, Index:$col0, Index:$kv_len, Index:$seq_q,
                       Optional<AnyMemRef>:$alibi, Optional<Index>:$head0,
                       Optional<F32>:$descale,
                       F32Attr:$scale, UnitAttr:$causal,
                       OptionalAttr<I64Attr>:$window_left,
                       OptionalAttr<I64Attr>:$window_right,
                       OptionalAttr<F32Attr>:$softcap);
  let assemblyFormat = [{
    $s `,` $stats `,` $acc `rows` `(` $row0 `)` `cols` `(` $col0 `)`
    `kv_len` `(` $kv_len `)` `seq_q` `(` $seq_q `)`
    (`alibi` `(` $alibi^ `[` $head0 `]` `:` type($alibi) `)`)?
    (`descale` `(` $descale^ `)`)?
    attr-dict `:` type($s) `,` type($stats) `,` type($acc)
  }];
  let hasVerifier = 1;
}

def Kgen_TilePvOp : Kgen_Op<"tile.pv"> {
  let summary = "accumulate the probabilities times a value stage";
  let description = [{
    `acc[m, d] += sum_n r(p[m, n]) * v[stage, n, d]` where `r` rounds to
    the element type of `v` (the tensor cores' operand type), products and
    sums in f32 in n order. On the GPU the probabilities go from the score
    fragments straight into the MMA's A fragments.
  }];
  let arguments = (ins AnyMemRef:$p, AnyMemRef:$v, Index:$stage, AnyMemRef:$acc);
  let assemblyFormat = [{
    $p `,` $v `[` $stage `]` `into` $acc attr-dict `:` type($p) `,` type($v) `,` type($acc)
  }];
  let hasVerifier = 1;
}

def Kgen_TileAttentionStoreOp : Kgen_Op<"tile.attention_store",
                                        [AttrSizedOperandSegments]> {
  let summary = "normalise and store an attention output tile and its LSE";
  let description = [{
    For r, c inside the bounds, with `(y..., x) = (i..., i + r, j + c)` and
    the row's max `mx = stats[0, r]` and sum `l = stats[1, r]`:
    `dst[y..., x] = l > 0 ? acc[r, c] / l : 0`, rounded once to the element
    type of `dst` (with `descale`, an f32 runtime factor, e4m3 V's dv:
    `(acc[r, c] * descale) / l`); with `lse` (f32, the rank of `dst` less
    one, addressed by the indices less the last), `lse[i..., i + r] = l > 0
    ? (mx == -inf ? 0 : mx) + log(l) : -inf` for the rows inside the bounds;
    with `lse_at` (`[k..., kr]`, an LSE laid out apart from `dst`, as a
    variable-length batch's head-major `[Hq, Tq]`) at `lse[k..., kr + r]`.
  }];
  let arguments = (ins AnyMemRef:$acc, AnyMemRef:$stats, AnyMemRef:$dst,
                       Variadic<Index>:$indices, Index:$rows, Index:$cols,
                       Optional<AnyMemRef>:$lse, Variadic<Index>:$lse_indices,
                       Optional<F32>:$descale);
  let assemblyFormat = [{
    $acc `,` $stats `into` $dst `[` $indices `]` `bounds` `(` $rows `,` $cols `)`
    (`lse` `(` $lse^ `:` type($lse) `)`)?
    (`lse_at` `[` $lse_indices^ `]`)?
    (`descale` `(` $descale^ `)`)?
    attr-dict `:` type($acc) `,` type($stats) `,` type($dst)
  }];
  let hasVerifier = 1;
}

def Kgen_TileAttentionCombineOp : Kgen_Op<"tile.attention_combine",
                                          [AttrSizedOperandSegments]> {
  let summary = "combine split-KV partial outputs by their log-sum-exps";
  let description = [{
    `partial` is `[S, dst dims...]` f32 and `partial_lse` `[S, lse dims...]`
    f32, the normalised outputs and LSEs of S key splits. For the rows
    `y = i + r`, r < `box_rows`, inside `rows`, and every column x < `cols`
    (the indices' last, `j`, is the first column): `M = max_s lse_s`; when
    `M = -inf` the row is 0 and its LSE -inf; else `w_s = exp(lse_s - M)`,
    `dst[y, x] = sum_s w_s partial[s, y, x] / sum_s w_s` (s in order,
    rounded once) and `lse[y] = M + log(sum_s w_s)`.
  }];
  let arguments = (ins AnyMemRef:$partial, AnyMemRef:$partial_lse,
                       AnyMemRef:$dst, Variadic<Index>:$indices, Index:$rows,
                       Index:$cols, Optional<AnyMemRef>:$lse,
                       I64Attr:$box_rows);
  let assemblyFormat = [{
    $partial `,` $partial_lse `into` $dst `[` $indices `]` `bounds` `(` $rows `,` $cols `)`
    (`lse` `(` $lse^ `:` type($lse) `)`)?
    attr-dict `:` type($partial) `,` type($partial_lse) `,` type($dst)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Mixture of experts (docs/moe.md): the kernels of a kgen.moe layer
//===----------------------------------------------------------------------===//

def Kgen_TileMoeRouteOp : Kgen_Op<"tile.moe_route"> {
  let summary = "top-k routing of a block of tokens (softmax or DeepSeek)";
  let description = [{
    `logits` is `[T, E]` (any float type, read as f32), `ids` `[T, k]` i32,
    `weights` `[T, k]` f32. For each token `t` in `[t0, min(t0 + rows, T))`:
    kgen.moe_route's definition (dialect/KgenOps.td, emitRoute in
    passes/LowerToLoops.cpp), with its attributes under the same names.
    Softmax scoring: `m = max_e l_e`, `q_e = exp(l_e - m)`, `s = sum_e q_e`
    (e in order), `p_e = q_e / s`; sigmoid: `p_e = 1 / (1 + exp(-l_e))`.
    The choice score is `p_e + bias[e]` with `bias` (`[E]` f32), `p_e`
    without. With `n_group` > 1 only the `topk_group` best groups (scored
    by their two best choice scores summed with a bias, their best without)
    are eligible. k times, the eligible untaken expert of largest choice
    score (ties to the lower index; the first eligible one when none
    compares greater) is written to `ids[t, slot]` and its `p` to
    `weights[t, slot]`; with `renormalize` each weight is then divided by
    their sum (slot order), then multiplied by `routed_scaling_factor`
    when it is not 1.

    ```mlir
    kgen.tile.moe_route %logits bias(%b : memref<256xf32>) rows(%t0) into %ids, %w
        {rows = 4, renormalize, scoring = #kgen.scoring<sigmoid>,
         n_group = 8, topk_group = 4, routed_scaling_factor = 2.5 : f32}
        : memref<16x256xf32>, memref<16x8xi32>, memref<16x8xf32>
    ```
  }];
  let arguments = (ins AnyMemRef:$logits, Optional<AnyMemRef>:$bias,
                       Index:$t0, AnyMemRef:$ids, AnyMemRef:$weights,
                       I64Attr:$rows, UnitAttr:$renormalize,
                       DefaultValuedAttr<Kgen_ScoringAttr, "::mlir::kgen::Scoring::softmax">:$scoring,
                       DefaultValuedAttr<I64Attr, "1">:$n_group,
                       DefaultValuedAttr<I64Attr, "1">:$topk_group,
                       DefaultValuedAttr<F32Attr, "1.0">:$routed_scaling_factor);
  let assemblyFormat = [{
    $logits (`bias` `(` $bias^ `:` type($bias) `)`)? `rows` `(` $t0 `)` `into`
    $ids `,` $weights attr-dict `:` type($logits) `,` type($ids) `,`
    type($weights)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The routing parameters, as emitRoute takes them (correctionBias is
    /// the bias buffer).
    ::mlir::kgen::RouteParams getRouteParams();
  }];
}

def Kgen_TileMoeRankOp : Kgen_Op<"tile.moe_rank"> {
  let summary = "one expert's group offset and the positions of its copies";
  let description = [{
    `ids` is `[T, k]` i32 (copies in (token, slot) order), `positions`
    `[T, k]` i32 and `offsets` `[E + 1]` i32. For expert `e`:
    `offsets[e]` = the number of copies whose id is in `[0, e)`, and each
    copy `i` with id `e` gets `positions[i] = offsets[e] + ` (its rank
    among the copies of `e`, in order). The last expert also writes
    `offsets[E]` (the copies with a valid id); expert 0 also writes -1 at
    the copies whose id is outside `[0, E)`. Over every expert, the result
    is kgen.moe_permute's positions and offsets, with no order decided by
    atomics.
  }];
  let arguments = (ins AnyMemRef:$ids, Index:$expert, AnyMemRef:$positions,
                       AnyMemRef:$offsets);
  let assemblyFormat = [{
    $ids `expert` `(` $expert `)` `into` $positions `,` $offsets attr-dict `:`
    type($ids) `,` type($positions) `,` type($offsets)
  }];
  let hasVerifier = 1;
}

def Kgen_TileMoeGatherOp : Kgen_Op<"tile.moe_gather"> {
  let summary = "copy a block of token copies to their expert-sorted rows";
  let description = [{
    `x` is `[T, H]`, `positions` `[T, k]` i32, `offsets` `[E + 1]` i32,
    `permuted` `[T * k, H]` (x's element type). For each copy `i` in
    `[c0, min(c0 + copies, T * k))`: when `p = positions[i]` is in
    `[0, T * k)`, `permuted[p, :] = x[i / k, :]`; when `i >= offsets[E]`,
    row `i` of `permuted` is zero (the rows no copy fills).
  }];
  let arguments = (ins AnyMemRef:$x, AnyMemRef:$positions, AnyMemRef:$offsets,
                       Index:$c0, AnyMemRef:$permuted, I64Attr:$copies);
  let assemblyFormat = [{
    $x `,` $positions `,` $offsets `copies` `(` $c0 `)` `into` $permuted
    attr-dict `:` type($x) `,` type($positions) `,` type($offsets) `,`
    type($permuted)
  }];
  let hasVerifier = 1;
}

def Kgen_TileActQuantOp : Kgen_Op<"tile.act_quant"> {
  let summary = "quantise a block of rows to e4m3 per 128 columns";
  let description = [{
    `a` is `[R, K]` (bf16, f16 or f32), `q` `[R, K]` f8E4M3FN and `scale`
    `[R, ceil(K / 128)]` f32. For each row `r` in `[r0, min(r0 + rows, R))`
    and each 128-column block `b` of it (the last may be partial):
    `scale[r, b] = max(amax, 1e-4) / 448` with `amax` the largest `|a[r, c]|`
    of the block (a NaN wins), and `q[r, c] = e4m3(a[r, c] / scale[r, b])`
    (f32 division, round to nearest even, saturating at +-448): the
    activation quantisation of kgen.moe's block-scaled expert GEMMs
    (DeepSeek-V3's act_quant), which a block-scaled grouped GEMM reads.

    ```mlir
    kgen.tile.act_quant %h rows(%r0) into %hq, %hs {rows = 4}
        : memref<32x256xbf16>, memref<32x256xf8E4M3FN>, memref<32x2xf32>
    ```
  }];
  let arguments = (ins AnyMemRef:$a, Index:$r0, AnyMemRef:$q,
                       AnyMemRef:$scale, I64Attr:$rows);
  let assemblyFormat = [{
    $a `rows` `(` $r0 `)` `into` $q `,` $scale attr-dict `:` type($a) `,`
    type($q) `,` type($scale)
  }];
  let hasVerifier = 1;
}

def Kgen_TileBlockScaleOp : Kgen_Op<"tile.block_scale"> {
  let summary = "scale a K block's partial sums into the accumulator";
  let description = [{
    The per-128-K-block promotion of a block-scaled grouped GEMM (kgen.moe's
    e4m3 expert GEMMs, as DeepGEMM computes them). `part` and `acc` are
    `[BM, BN]` f32 accumulators of the block tile at rows `row0 + r`,
    columns `col0 + c` of expert `expert`; `a_scale` is `[R, KB]` f32 (the
    activations' scales, kgen.tile.act_quant), `b_scale` `[E, KB, NB]` f32
    (the weights', per 128 x 128 block); BN divides 128 and `col0` is a
    multiple of BN, so the tile lies in one 128-column block. `kt` is the
    K tile of `block_k` columns (dividing 128) the main loop has just
    accumulated into `part`, of `k_tiles`. When it ends a 128-wide K block
    (`(kt + 1) * block_k` a multiple of 128, or `kt + 1 = k_tiles`), with
    `b = kt * block_k / 128` and `sa = a_scale[row0 + r, b]` for
    `row0 + r < rows`, else 0: `acc[r, c] = acc[r, c] + part[r, c] * (sa *
    b_scale[expert, b, col0 / 128])` in f32, one rounding per operation,
    and `part[r, c] = 0`. Otherwise nothing.

    ```mlir
    kgen.tile.block_scale %part into %acc scales(%hs, %ws)
        at(%e, %r0, %n0) rows(%r_end) k_tile(%kt) {block_k = 64, k_tiles = 4}
        : memref<32x64xf32, 5>, memref<32x64xf32, 5>, memref<64x2xf32>,
          memref<8x2x2xf32>
    ```
  }];
  let arguments = (ins AnyMemRef:$part, AnyMemRef:$acc, AnyMemRef:$a_scale,
                       AnyMemRef:$b_scale, Index:$expert, Index:$row0,
                       Index:$col0, Index:$rows, Index:$kt, I64Attr:$block_k,
                       I64Attr:$k_tiles);
  let assemblyFormat = [{
    $part `into` $acc `scales` `(` $a_scale `,` $b_scale `)` `at` `(`
    $expert `,` $row0 `,` $col0 `)` `rows` `(` $rows `)` `k_tile` `(` $kt `)`
    attr-dict `:` type($part) `,` type($acc) `,` type($a_scale) `,`
    type($b_scale)
  }];
  let hasVerifier = 1;
}

def Kgen_TileGroupTileOp : Kgen_Op<"tile.group_tile"> {
  let summary = "the expert rows of a grouped GEMM's m tile";
  let description = [{
    `offsets` is `[E + 1]` i32, non-decreasing once clamped (what
    kgen.moe_permute writes), over `rows` rows. The groups, in order: the
    head `[0, lo_0)`, expert `e`'s rows `[lo_e, hi_e)` with `lo_e =
    clamp(offsets[e], 0, rows)` and `hi_e = clamp(offsets[e + 1], lo_e,
    rows)` for e in order, the tail `[hi_{E-1}, rows)`; a group of n rows
    has `ceil(n / block_m)` tiles, numbered group after group. Tile `tile`,
    the j-th of its group: `row0` = the group's start + j * block_m,
    `row_end` = its end, `expert` = e and `live` = 1 for an expert's group;
    `expert` = 0 and `live` = 0 for the head and tail (rows in no group,
    which the grouped GEMM sets to zero). A tile past the last group has
    `row0 = row_end = rows`, `expert = 0`, `live = 0`.
  }];
  let arguments = (ins AnyMemRef:$offsets, Index:$tile, Index:$rows,
                       I64Attr:$block_m);
  let results = (outs Index:$expert, Index:$row0, Index:$row_end, Index:$live);
  let assemblyFormat = [{
    $offsets `tile` `(` $tile `)` `rows` `(` $rows `)` attr-dict `:` type($offsets)
  }];
  let hasVerifier = 1;
}

def Kgen_TileGatedEpilogueOp : Kgen_Op<"tile.gated_epilogue"> {
  let summary = "act(gate) * up of two accumulator tiles, stored with bounds";
  let description = [{
    For r, c of the `[BM, BN]` f32 accumulators with `(i + r, j + c)` inside
    `(rows, cols)`: `dst[..., i + r, j + c] = act(gate[r, c]) * up[r, c]`
    in f32, rounded once to the element type of `dst` (the gated linear
    unit of an MoE expert's first layer; kgen.grouped_gemm's `gated`).
  }];
  let arguments = (ins AnyMemRef:$gate, AnyMemRef:$up, AnyMemRef:$dst,
                       Variadic<Index>:$indices, Index:$rows, Index:$cols,
                       Kgen_ActivationAttr:$activation);
  let assemblyFormat = [{
    $gate `,` $up `into` $dst `[` $indices `]` `bounds` `(` $rows `,` $cols `)`
    attr-dict `:` type($gate) `,` type($up) `,` type($dst)
  }];
  let hasVerifier = 1;
}

def Kgen_TileMoeCombineOp : Kgen_Op<"tile.moe_combine"> {
  let summary = "weighted sum of a block of tokens' expert outputs";
  let description = [{
    `expert_out` is `[T * k, H]`, `positions` `[T, k]` i32, `weights`
    `[T, k]` (any float type), `y` `[T, H]`. For each token `t` in
    `[t0, min(t0 + tokens, T))` and column h: `y[t, h] = sum_s weights[t,
    s] * expert_out[positions[t, s], h]` in f32 from 0, s in order,
    skipping positions outside `[0, T * k)`, then `+ shared[t, h]` with a
    `shared` (`[T, H]`: a shared expert's output), rounded once
    (kgen.moe_combine).
  }];
  let arguments = (ins AnyMemRef:$expert_out, AnyMemRef:$positions,
                       AnyMemRef:$weights, Optional<AnyMemRef>:$shared,
                       Index:$t0, AnyMemRef:$y, I64Attr:$tokens);
  let assemblyFormat = [{
    $expert_out `,` $positions `,` $weights
    (`shared` `(` $shared^ `:` type($shared) `)`)? `tokens` `(` $t0 `)`
    `into` $y attr-dict `:` type($expert_out) `,` type($positions) `,`
    type($weights) `,` type($y)
  }];
  let hasVerifier = 1;
}

def Kgen_TileMoeSingleGroupOp : Kgen_Op<"tile.moe_single_group"> {
  let summary = "the offsets of one group of every row";
  let description = [{
    Writes `offsets` (`[2]` i32) = `[0, rows]` (on a device, block 0 of
    the kernel does): the row groups of a grouped GEMM whose rows all
    belong to expert 0 (a shared expert's weights seen as one expert,
    kgen-decompose-moe's `[0, T]`).

    ```mlir
    kgen.tile.moe_single_group into %offsets {rows = 16} : memref<2xi32>
    ```
  }];
  let arguments = (ins AnyMemRef:$offsets, I64Attr:$rows);
  let assemblyFormat = [{
    `into` $offsets attr-dict `:` type($offsets)
  }];
  let hasVerifier = 1;
}

#endif // KGEN_TILE_OPS_TD
