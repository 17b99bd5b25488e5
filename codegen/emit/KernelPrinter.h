//===- KernelPrinter.h - the CUDA emitter's kernel printer -------*- C++ -*-===//
//
// Private to codegen/emit: the printer of one kgen.kernel (EmitCuda.cpp:
// names, index arithmetic, buffers, tile ops) and of each family's pipeline
// (PrintCpAsyncPipeline.cpp, PrintWgmmaPipeline.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_CODEGEN_EMIT_KERNELPRINTER_H
#define KGEN_CODEGEN_EMIT_KERNELPRINTER_H

#include "codegen/emit/EmitCuda.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/DenseMap.h"

#include <string>

namespace mlir::kgen::detail {
constexpr unsigned kSharedSpace = 3;   // NVVM shared memory
constexpr unsigned kRegisterSpace = 5; // NVVM local: per-thread registers

/// The MLIR spelling of a type ("bf16").
std::string typeName(Type t);
/// CUDA spelling of an element type (the runtime's); empty when there is
/// none.
std::string cudaType(Type t);
/// Dimension `i` of the memref `v`.
inline int64_t dimOf(Value v, unsigned i) {
  return cast<MemRefType>(v.getType()).getDimSize(i);
}
/// "(d0, d1, ...)".
std::string shapeComment(ArrayRef<int64_t> shape);
/// A float as a C++ literal that reads back the same ("1.250000000e-01f").
std::string floatLiteral(float v);
/// The block layer's name of an activation ("kgen::cuda::Act::Silu").
const char *activationName(Activation act);
/// True for a main kernel (the K-tile pipeline); false for a split-K
/// reduction.
bool hasPipelineIn(KernelOp kernel);

/// Prints one kernel. Values get C++ names: block coordinates bx/by/bz,
/// parameters their param_names, index values v0, v1, ..., constants inline.
class KernelPrinter {
public:
  KernelPrinter(KernelOp kernel, llvm::raw_ostream &os, EmittedKernel &info);

  LogicalResult print();

private:
  LogicalResult printBlock(Block &block);
  LogicalResult printOp(Operation *op);
  /// The kgen.tile.pipeline of each family (one file each):
  /// PrintCpAsyncPipeline.cpp (simt, mma_sync) and PrintWgmmaPipeline.cpp.
  LogicalResult printPipeline(TilePipelineOp op);
  LogicalResult printCpAsyncPipeline(TilePipelineOp op);
  LogicalResult printWgmmaPipeline(TilePipelineOp op);
  /// The wgmma family's warp-specialised mainloop applies to kernels with a
  /// pipeline; a split-K reduction kernel of a wgmma gemm has none.
  bool usesWgmma() {
    return config && config.getInstruction() == InstructionFamily::wgmma &&
           hasPipeline;
  }
  /// Prefix of statements only the consumer warpgroups run.
  const char *consumerGuard() { return usesWgmma() ? "if (consumer) " : ""; }
  LogicalResult printAlloca(memref::AllocaOp op);
  /// The attention family (PrintAttention.cpp): its register tiles and one
  /// call of kgen/block/Attention.cuh per attention tile op.
  LogicalResult printAttentionRegisters(memref::AllocaOp op);
  LogicalResult printAttentionStep(Operation *op);
  /// FlashAttention-3's warp-specialised kernel (kgen/block/
  /// AttentionSm90.cuh): the body's tile ops split between a TMA producer
  /// warpgroup and the wgmma consumer warpgroups.
  bool usesAttentionWgmma() {
    return attention &&
           attention.getInstruction() == InstructionFamily::wgmma &&
           hasPipeline;
  }
  LogicalResult printAttentionWgmma(Block &body);
  /// The attention tile ops' block rows are the consumer warpgroup's in the
  /// wgmma kernel: what follows each row origin (" + attn.rows0()").
  std::string rowOffset;
  /// overlap_softmax in the wgmma kernel: the softmax keeps its rescale in
  /// this register tile (the output accumulator is still being written by
  /// the previous key tile's P V), and the QK^T step issues that P V.
  std::string deferredRescale;
  /// The MoE family (PrintMoe.cpp): one call of kgen/block/Moe.cuh per
  /// routing, ranking, gather or combine op; the grouped GEMM's tile
  /// scheduler and gated epilogue.
  LogicalResult printMoeStep(Operation *op);
  LogicalResult printBox(Operation *op, StringRef call, Value acc, Value mem,
                         ValueRange indices, Value rows, Value cols,
                         StringRef extra);

  std::string name(Value v) { return names.lookup(v); }
  /// Names the values whose role the tile ops reveal: stage buffers after
  /// the parameter they hold (sA, sB), accumulators, tile origins (m0, n0)
  /// and the K-tile range.
  void nameRoles(Block &body);
  /// A fresh C++ name for `v` from its role, or v<N>.
  std::string varFor(Value v) {
    auto it = roles.find(v);
    return it != roles.end() ? it->second : fresh();
  }
  llvm::DenseMap<Value, std::string> roles;
  llvm::raw_ostream &line() { return os.indent(2 * depth); }
  std::string fresh() { return "v" + std::to_string(nextId++); }
  /// Pointer to the 2-D matrix that `indices` (all but the last two)
  /// select in parameter `mem`, its leading dimension, and the origin.
  std::string matrixBase(Value mem, ValueRange indices);
  /// Pointer to the element of `mem` at `leading` indices for dimensions
  /// firstDim, firstDim + 1, ... (the others 0).
  std::string elementBase(Value mem, ValueRange leading, unsigned firstDim);

  KernelOp kernel;
  GemmConfigAttr config;          // a gemm's kernels (and a grouped GEMM's
                                  // main loop: the equivalent gemm config)
  AttentionConfigAttr attention;  // an attention's kernels
  GroupedGemmConfigAttr grouped;  // an MoE layer's or grouped GEMM's kernels
  llvm::raw_ostream &os;
  EmittedKernel &info;
  bool hasPipeline = false;
  llvm::DenseMap<Value, std::string> names;
  int nextId = 0;
  unsigned depth = 1;
  int64_t smemOffset = 0;
  /// kgen::block::stage_buffer_bytes<T>(...) of each cp.async stage buffer.
  llvm::SmallVector<std::string> stageBufferTerms;
};
} // namespace mlir::kgen::detail

#endif // KGEN_CODEGEN_EMIT_KERNELPRINTER_H
