//===- Passes.td - kgen passes ----------------------------------*- tablegen -*-===//
//
// Name chain: def KgenFooBar -> flag kgen-foo-bar -> FooBar.cpp ->
// test/Passes/foo-bar.mlir (and foo-bar-errors.mlir where it can fail).
//
//===----------------------------------------------------------------------===//

#ifndef KGEN_PASSES_TD
#define KGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def KgenDecomposeMoe : Pass<"kgen-decompose-moe"> {
  let summary = "Split kgen.moe into route, permute, grouped GEMMs and combine";
  let description = [{
    Rewrites every `kgen.moe` into `kgen.moe_route` -> `kgen.moe_permute` ->
    a gated `kgen.grouped_gemm` (gate and up projections with the
    activation) -> `kgen.grouped_gemm` (down projection) ->
    `kgen.moe_combine`. The intermediate tensors take the element type of
    the layer input, which is where the fused op's semantics round, so both
    forms compute identical values.
  }];
  let dependentDialects = ["::mlir::kgen::KgenDialect"];
}

def KgenFuseEpilogue : Pass<"kgen-fuse-epilogue"> {
  let summary = "Fold elementwise bias, residual and relu after a kgen.gemm into its epilogue";
  let description = [{
    Rewrites, for a `kgen.gemm` result with a single use:
    - `arith.addf %d, %b` with `%b = linalg.broadcast %bias` over the rows
      (and the batch) into `bias(%bias)`;
    - `arith.addf %d, %c` with `%c` of the result's type into
      `residual(%c)` (beta 1);
    - `arith.maximumf %d, 0` into `activation = relu`;
    as long as the epilogue order `act(alpha * acc + beta * C + bias)` is
    kept (no add after an activation, one bias, one residual). The fused
    form rounds once to the result type, as the GPU epilogue does, where
    the separate ops rounded after each step.
  }];
  let dependentDialects = ["::mlir::kgen::KgenDialect"];
}

def KgenSelectStrategy : Pass<"kgen-select-strategy", "::mlir::ModuleOp"> {
  let summary = "Choose a lowering strategy for every kgen.gemm, kgen.attention and kgen.moe";
  let description = [{
    Writes `#kgen.gemm_config<...>` on every `kgen.gemm` that has none, for
    the given target, and records where the choice came from in its
    `source` and `entry`:
    - `measured`: the fastest correct candidate of a tuning database entry
      (docs/tuning-db.md) for exactly this op, target and toolchain; the
      databases given with `db` are searched in order, first match wins;
    - `nearest`: no exact entry, but one for the same op at other sizes
      (m, n, k, batch), same target and toolchain: the nearest such shape's
      best config, if it is valid for this op;
    - `model`: with databases (`db`) or a fitted cost model (`model`, from
      `kgen-tune --report --fit --model-out`) but no usable measurement,
      the config the cost model (passes/CostModel.h) predicts fastest among
      every legal one (dialect/GemmLegality.h); `entry` names the model;
    - `default`: the built-in heuristic of Strategy.cpp, when neither a
      database nor a model is given.
    An entry measured with another toolchain (CUDA version or emitter
    version) is stale: it is not used (the cost model decides), and a
    remark says so. A database
    file that cannot be read (missing, corrupt, another schema version)
    gives a warning naming it and is skipped. A config already in the IR
    (written by hand or by an earlier run) is kept. Lowering passes only
    read the attribute.

    Every `kgen.attention` without one gets a `#kgen.attention_config<...>`
    the same way: `measured` from an entry of its attention signature;
    `nearest` from one of the same op at other sizes (batch, seq_q,
    seq_kv) and of the same regime (decode-shaped or not,
    passes/AttentionStrategy.h), its config legal for this op
    (dialect/AttentionLegality.h) and splitting the keys no more ways than
    there are key tiles; `model` (the attention cost model of
    passes/CostModel.h over the legal configs of passes/AttentionStrategy.h);
    else `default` (FlashAttention-2's tiles, split-KV for decode shapes:
    passes/AttentionStrategy.h). An attention no config lowers (f32
    operands: mma_sync attention takes bf16 or f16) keeps none, with a
    remark; the pass does not fail, and the reference semantics run it.

    Every `kgen.moe` the MoE kernels lower (dialect/MoeLegality.h) gets a
    `#kgen.grouped_gemm_config<...>` per expert GEMM (`gate_up_config`,
    `down_config`; a `kgen.grouped_gemm` its `config`) the same way:
    `measured` from the entry of that expert GEMM's key, whose tokens are
    bucketed to a power of two (docs/tuning-db.md); `nearest` from another
    bucket of the same regime (at most 16 rows per expert hit, or more);
    `model` (passes/MoeStrategy.h); else `default` (block_m sized to the
    rows an expert gets under uniform routing). A layer the kernels do not
    lower (f32, e4m3 block-scaled weights) keeps none, with a remark.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"sm_90a\"",
           "GPU target: sm_80 or sm_90a">,
    ListOption<"databases", "db", "std::string",
               "Tuning databases (JSON), searched in order">,
    Option<"device", "device", "std::string", /*default=*/"\"\"",
           "Device name database entries must match (empty: any)">,
    Option<"model", "model", "std::string", /*default=*/"\"\"",
           "Fitted cost model file (kgen-tune --model-out) for ops without "
           "measurements">
  ];
  let dependentDialects = ["::mlir::kgen::KgenDialect"];
}

def KgenLowerGemmToTiles : Pass<"kgen-lower-gemm-to-tiles", "::mlir::ModuleOp"> {
  let summary = "Lower each configured kgen.gemm to a tile-level kgen.kernel";
  let description = [{
    Precondition: every kgen.gemm carries a `#kgen.gemm_config` (run
    `kgen-select-strategy` first). Each gemm becomes a `kgen.kernel` (a block
    program: rasterised tile coordinates, a `kgen.tile.pipeline` of masked
    tile loads and tile MMAs over its K range, the epilogue) and a
    `kgen.launch` of it. With `split_k > 1` the main kernel stores f32
    partial tiles and a second kernel sums them in split order and applies
    the epilogue (deterministic). The kernels read only the config; the
    instruction family matters to the CUDA emitter, not to the schedule.
  }];
  let dependentDialects = ["::mlir::kgen::KgenDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def KgenLowerAttentionToTiles : Pass<"kgen-lower-attention-to-tiles", "::mlir::ModuleOp"> {
  let summary = "Lower each configured kgen.attention to tile-level kgen.kernels";
  let description = [{
    Precondition: every kgen.attention to lower carries a
    `#kgen.attention_config` (run `kgen-select-strategy` first); one without
    stays (the reference semantics still run it on the CPU). Each becomes a
    `kgen.kernel` whose blocks own `block_m` rows of the packed-GQA view
    `[B, Hkv, G * Sq, D]` of Q and O (docs/attention.md): the Q tile, then
    a `kgen.tile.pipeline` over the block's key tiles (those the causal
    mask and window leave visible, then its split) of masked K and V loads,
    `kgen.tile.qk`, `kgen.tile.online_softmax` and `kgen.tile.pv`, then
    `kgen.tile.attention_store`. With `split_kv > 1` the blocks store f32
    partial outputs and LSEs and a second kernel combines them
    (`kgen.tile.attention_combine`), in split order: deterministic.
  }];
  let dependentDialects = ["::mlir::kgen::KgenDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::scf::SCFDialect"];
}

def KgenLowerMoeToTiles : Pass<"kgen-lower-moe-to-tiles", "::mlir::ModuleOp"> {
  let summary = "Lower each configured kgen.moe (and kgen.grouped_gemm) to tile-level kgen.kernels";
  let description = [{
    Precondition: a kgen.moe to lower carries `gate_up_config` and
    `down_config`, a kgen.grouped_gemm `config` (run `kgen-select-strategy`
    first); one without stays (the reference semantics still run it on the
    CPU). A kgen.moe becomes six kernels, one package (docs/moe.md): routing
    (`kgen.tile.moe_route`, a warp per token), ranking (`kgen.tile.moe_rank`,
    a block per expert: group offsets and each copy's row, no order decided
    by atomics), the gather of token copies into expert-sorted rows
    (`kgen.tile.moe_gather`), the gated gate/up grouped GEMM and the down
    grouped GEMM (one launch over every expert each: `kgen.tile.group_tile`
    maps a block to one m tile of one expert, bounded by the next expert's
    offset, no padding), and the weighted combine in slot order
    (`kgen.tile.moe_combine`). The rounding points are those of
    `kgen-decompose-moe`, so the package computes the op's reference.
    DeepSeek layers (dialect/MoeLegality.h): the routing takes sigmoid
    scoring, the correction bias (an input), expert groups and the scaling
    factor; with a shared expert the routing kernel also writes its offsets
    `[0, T]` (`kgen.tile.moe_single_group`), and two grouped GEMMs over all
    tokens as one group (on the layer's configs) compute the shared
    expert, whose output the combine adds after the routed slots.
  }];
  let dependentDialects = ["::mlir::kgen::KgenDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::scf::SCFDialect"];
}

def KgenLowerTilesToLoops : Pass<"kgen-lower-tiles-to-loops", "::mlir::ModuleOp"> {
  let summary = "Run tile-level kernels on the CPU: blocks in turn, tile ops by their definitions";
  let description = [{
    Turns every `kgen.kernel` into a function that loops over its grid and
    runs the body for each block, with each tile op expanded into loops by
    its definition and each `kgen.tile.pipeline` issued in the GPU's
    prologue/steady-state order; every `kgen.launch` becomes a call on
    buffers, with outputs poisoned with NaN first so unwritten elements
    show. Used by kgen-run to check a schedule against the reference
    semantics without a GPU.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def KgenEmitPackages : Pass<"kgen-emit-packages", "::mlir::ModuleOp"> {
  let summary = "Write every kgen.kernel as a kernel package (.cu + manifest.json)";
  let description = [{
    For each op lowered to `kgen.kernel`s, writes `<output-dir>/<kernel>/`
    with `kernel.cu` (codegen/emit/EmitCuda.cpp, AssemblePackage.cpp) and `manifest.json`
    (docs/kernel-package.md), atomically, named after the op's first kernel.
    A split-K gemm is one package of two kernels: the partial products into
    a workspace, then the reduction (a kernel with no op signature whose
    launch reads another kernel's result continues that kernel's package).
    With the CUDA toolkit and `compile` on, each package is compiled with
    NVRTC for its target and ptxas's report per kernel (registers, shared
    memory, stack, spills) goes into the manifest. The IR is not changed.
    Fails on kernels the emitter cannot print yet, or whose CUDA does not
    compile, naming what is wrong.
  }];
  let options = [
    Option<"outputDir", "output-dir", "std::string", /*default=*/"\"kgen-packages\"",
           "Folder that receives one package folder per op">,
    Option<"compile", "compile", "bool", /*default=*/"true",
           "Compile each package with NVRTC and record ptxas's report "
           "(off: the caller compiles, e.g. kgen-tune in parallel)">
  ];
}

def KgenLowerToLoops : Pass<"kgen-lower-to-loops", "::mlir::ModuleOp"> {
  let summary = "Lower kgen ops to scf loops on memrefs (the CPU reference)";
  let description = [{
    Replaces every kgen op by its reference semantics written as `scf.for`
    loop nests over `memref`s, computing in `f32` with `arith`/`math` and
    rounding once to each result's element type through `arith.truncf`.
    Operands enter through `bufferization.to_buffer`, results leave through
    `bufferization.to_tensor {restrict}`, so the output still takes part in
    one-shot bufferization. This is the golden reference that generated
    kernels are checked against: slow, obvious, exact.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def KgenExpandFloatConversions : Pass<"kgen-expand-float-conversions"> {
  let summary = "Expand f32 <-> f16/bf16/f8E4M3FN conversions into integer ops";
  let description = [{
    Rewrites `arith.extf` and `arith.truncf` between `f32` and `f16`, `bf16`
    or `f8E4M3FN` into bit manipulation on `i32`: exact
    round-to-nearest-even, with subnormals, infinities and NaNs handled,
    and saturation to +-448 for `f8E4M3FN` (as `cvt.rn.satfinite` does on the
    GPU). After it, no host libcall or CPU feature is needed for these
    types, and the results match the host conversions of `runtime/` bit for
    bit.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def KgenPrintOpStats : Pass<"kgen-print-op-stats", "::mlir::ModuleOp"> {
  let summary = "Print a table of the kgen ops in a module with their FLOPs";
  let description = [{
    Writes one line per kgen op to stdout: function, op, operand shapes and
    element types, and the FLOP count at those shapes, then a total. The IR
    is not changed.
  }];
}

#endif // KGEN_PASSES_TD
