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
                       OptionalAttr<Kgen_GemmConfigAttr>:$config,
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

#endif // KGEN_TILE_OPS_TD
