//===- KgenAttrs.td - kgen attributes ---------------------------*- tablegen -*-===//

#ifndef KGEN_ATTRS_TD
#define KGEN_ATTRS_TD

include "dialect/KgenDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Kgen_ActivationNone : I32EnumAttrCase<"none", 0>;
def Kgen_ActivationRelu : I32EnumAttrCase<"relu", 1>;
def Kgen_ActivationGelu : I32EnumAttrCase<"gelu", 2>;
def Kgen_ActivationSilu : I32EnumAttrCase<"silu", 3>;

// gelu is the tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
// silu is x / (1 + exp(-x)).
def Kgen_Activation : I32EnumAttr<"Activation", "elementwise activation",
    [Kgen_ActivationNone, Kgen_ActivationRelu, Kgen_ActivationGelu,
     Kgen_ActivationSilu]> {
  let cppNamespace = "::mlir::kgen";
  let genSpecializedAttr = 0;
}

def Kgen_ActivationAttr : EnumAttr<Kgen_Dialect, Kgen_Activation, "activation"> {
  let assemblyFormat = "`<` $value `>`";
}

// How a router turns logits into expert scores (kgen.moe, kgen.moe_route):
// softmax over the experts, or an independent sigmoid per expert
// (DeepSeek-V3).
def Kgen_ScoringSoftmax : I32EnumAttrCase<"softmax", 0>;
def Kgen_ScoringSigmoid : I32EnumAttrCase<"sigmoid", 1>;
def Kgen_Scoring : I32EnumAttr<"Scoring", "router scoring function",
    [Kgen_ScoringSoftmax, Kgen_ScoringSigmoid]> {
  let cppNamespace = "::mlir::kgen";
  let genSpecializedAttr = 0;
}

def Kgen_ScoringAttr : EnumAttr<Kgen_Dialect, Kgen_Scoring, "scoring"> {
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Lowering strategy of kgen.gemm
//===----------------------------------------------------------------------===//

def Kgen_TargetSm80 : I32EnumAttrCase<"sm_80", 0>;
def Kgen_TargetSm90a : I32EnumAttrCase<"sm_90a", 1>;
def Kgen_Target : I32EnumAttr<"Target", "GPU target architecture",
    [Kgen_TargetSm80, Kgen_TargetSm90a]> {
  let cppNamespace = "::mlir::kgen";
  let genSpecializedAttr = 0;
}

def Kgen_InstrSimt : I32EnumAttrCase<"simt", 0>;
def Kgen_InstrMmaSync : I32EnumAttrCase<"mma_sync", 1>;
def Kgen_InstrWgmma : I32EnumAttrCase<"wgmma", 2>;
def Kgen_InstructionFamily : I32EnumAttr<"InstructionFamily",
    "matrix instruction family: CUDA-core FMAs, warp-level mma.sync (sm_80+; "
    "tf32 for f32 operands) or warpgroup wgmma (sm_90a)",
    [Kgen_InstrSimt, Kgen_InstrMmaSync, Kgen_InstrWgmma]> {
  let cppNamespace = "::mlir::kgen";
  let genSpecializedAttr = 0;
}

def Kgen_SourceDefault : I32EnumAttrCase<"default_", 0, "default">;
def Kgen_SourceModel : I32EnumAttrCase<"model", 1>;
def Kgen_SourceMeasured : I32EnumAttrCase<"measured", 2>;
def Kgen_SourceNearest : I32EnumAttrCase<"nearest", 3>;
def Kgen_SourceUser : I32EnumAttrCase<"user", 4>;
def Kgen_ConfigSource : I32EnumAttr<"ConfigSource",
    "where a lowering strategy came from",
    [Kgen_SourceDefault, Kgen_SourceModel, Kgen_SourceMeasured,
     Kgen_SourceNearest, Kgen_SourceUser]> {
  let cppNamespace = "::mlir::kgen";
  let genSpecializedAttr = 0;
}

def Kgen_GemmConfigAttr : AttrDef<Kgen_Dialect, "GemmConfig"> {
  let mnemonic = "gemm_config";
  let summary = "lowering strategy of a kgen.gemm";
  let description = [{
    The only thing strategy selection writes and GEMM lowering reads.

    - `target`: `sm_80` or `sm_90a`;
    - `instruction`: `simt`, `mma_sync` (sm_80+, tf32 for f32 operands) or
      `wgmma` (sm_90a);
    - `block_m`, `block_n`, `block_k`: the thread block's tile;
    - `warps_m` x `warps_n`: the grid of consumer warps over the block tile
      (for `wgmma`, `warps_m` counts warps in whole warpgroups of 4 along M:
      each warpgroup owns 64 rows per instruction);
    - `stages`: shared-memory pipeline depth (async copies in flight);
    - `tma`: tiles loaded by the Tensor Memory Accelerator (sm_90a);
    - `warp_specialized`: one extra producer warpgroup issues the loads
      while the consumers compute (needs `tma`);
    - `cluster_m` x `cluster_n`: thread-block cluster shape (sm_90a when
      larger than 1x1), at most 8 blocks;
    - `split_k`: K is split over this many blocks, reduced deterministically;
    - `raster_group`: blocks are rasterised in groups of this many tile rows
      for L2 reuse (1: plain row-major order);
    - `epilogue_vector`: elements per thread per epilogue store;
    - `source`: where the config came from (`default` heuristic, cost
      `model`, `measured` in a tuning database, `nearest` measured shape,
      `user`), and `entry`, the database entry it came from, if any.

    ```mlir
    #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128,
      block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4,
      tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1,
      split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>
    ```

    The attribute's verifier checks what holds for any operand type; the
    `kgen.gemm` verifier then checks the config against the operands
    (shared memory of the stages, instruction K for the element type).
  }];
  let parameters = (ins
    "::mlir::kgen::Target":$target,
    "::mlir::kgen::InstructionFamily":$instruction,
    "int64_t":$block_m, "int64_t":$block_n, "int64_t":$block_k,
    "int64_t":$warps_m, "int64_t":$warps_n,
    "int64_t":$stages,
    "bool":$tma, "bool":$warp_specialized,
    "int64_t":$cluster_m, "int64_t":$cluster_n,
    "int64_t":$split_k, "int64_t":$raster_group, "int64_t":$epilogue_vector,
    "::mlir::kgen::ConfigSource":$source,
    StringRefParameter<"tuning database entry", "\"\"">:$entry
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Threads per block: the consumer warps plus a producer warpgroup when
    /// warp-specialised.
    int64_t getThreads() const;
  }];
}

def Kgen_AttentionConfigAttr : AttrDef<Kgen_Dialect, "AttentionConfig"> {
  let mnemonic = "attention_config";
  let summary = "lowering strategy of a kgen.attention";
  let description = [{
    The only thing strategy selection writes and attention lowering reads
    (docs/attention.md).

    - `target`: `sm_80` or `sm_90a`;
    - `instruction`: `mma_sync` (FlashAttention-2's schedule, sm_80 and
      later) or `wgmma` (FlashAttention-3's, sm_90a);
    - `block_m`: query rows per thread block; `block_n`: keys per step of
      the key loop;
    - `warps_m`: consumer warps, each owning `block_m / warps_m` rows;
    - `stages`: K/V tiles in flight;
    - `consumer_warpgroups`, `ping_pong`, `overlap_softmax`: the FA3
      schedule (`wgmma` only; 1, false, false otherwise);
    - `pack_gqa`: the query heads that share a K/V head are stacked along
      M in one block;
    - `split_kv`: the key range is split over this many blocks whose
      partial outputs a second kernel combines (flash-decoding);
    - `source`, `entry`: where the config came from, as for gemm_config.

    ```mlir
    #kgen.attention_config<target = sm_80, instruction = mma_sync,
      block_m = 64, block_n = 64, warps_m = 4, stages = 2,
      consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false,
      pack_gqa = false, split_kv = 1, source = default>
    ```

    The attribute's verifier checks what holds for any attention; the
    `kgen.attention` verifier checks the config against the op (head
    dimension, element type, shared memory) through the same legality
    (dialect/AttentionLegality.h).
  }];
  let parameters = (ins
    "::mlir::kgen::Target":$target,
    "::mlir::kgen::InstructionFamily":$instruction,
    "int64_t":$block_m, "int64_t":$block_n, "int64_t":$warps_m,
    "int64_t":$stages, "int64_t":$consumer_warpgroups,
    "bool":$ping_pong, "bool":$overlap_softmax, "bool":$pack_gqa,
    "int64_t":$split_kv,
    "::mlir::kgen::ConfigSource":$source,
    StringRefParameter<"tuning database entry", "\"\"">:$entry
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Threads per block: the consumer warps.
    int64_t getThreads() const;
  }];
}

def Kgen_GroupedGemmConfigAttr : AttrDef<Kgen_Dialect, "GroupedGemmConfig"> {
  let mnemonic = "grouped_gemm_config";
  let summary = "lowering strategy of a grouped GEMM (kgen.grouped_gemm, kgen.moe)";
  let description = [{
    The tiles of one launch over every expert's rows (docs/moe.md): a tile
    scheduler maps each block to (expert, m tile, n tile) from the expert
    offsets, and each block runs the gemm main loop of its family.

    - `target`: `sm_80` or `sm_90a`;
    - `instruction`: `mma_sync` (cp.async + ldmatrix + mma.sync; sm_80 and
      later), or `wgmma` (sm_90a: the gemm family's warp-specialised TMA
      pipeline, one warpgroup of 4 warps_m per 64 rows, warps_n = 1,
      block_k = 64; ungated, not block-scaled: it holds one B operand and
      one accumulator);
    - `block_m` (16 to 128: light loads do not pad every expert to 128
      rows), `block_n`, `block_k`: the block tile;
    - `warps_m`, `warps_n`: the warp grid; `stages`: K tiles in flight;
    - `source`, `entry`: where the config came from, as for gemm_config.

    ```mlir
    #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync,
      block_m = 64, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2,
      stages = 3, source = default>
    ```

    The attribute's verifier checks what holds for any grouped GEMM; the
    ops' verifiers check the config against the operands (element type,
    the gated form's second accumulator) through the same legality
    (dialect/GroupedGemmLegality.h).
  }];
  let parameters = (ins
    "::mlir::kgen::Target":$target,
    "::mlir::kgen::InstructionFamily":$instruction,
    "int64_t":$block_m, "int64_t":$block_n, "int64_t":$block_k,
    "int64_t":$warps_m, "int64_t":$warps_n, "int64_t":$stages,
    "::mlir::kgen::ConfigSource":$source,
    StringRefParameter<"tuning database entry", "\"\"">:$entry
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Threads per block: 32 x warps_m x warps_n.
    int64_t getThreads() const;
  }];
}

#endif // KGEN_ATTRS_TD
