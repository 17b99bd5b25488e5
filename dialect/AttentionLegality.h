//===- AttentionLegality.h - what each attention kernel family lowers -*- C++ -*-===//
//
// The one statement of which #kgen.attention_config a kernel family lowers,
// for a given kgen.attention, to CUDA that compiles with no stack and no
// spills (docs/attention.md). Every part of kgen answers to it:
//   - the attention_config attribute verifier (the rules that hold for any
//     attention) and the kgen.attention verifier (all of them);
//   - the default heuristic and the cost model's search space
//     (passes/AttentionStrategy.cpp): their choices must pass;
//   - kgen-lower-attention-to-tiles (the kernel's shared memory is
//     attentionSharedMemoryBytes) and the CUDA emitter, which trusts it and
//     prints static_asserts of what it was given, so that the block layer
//     (codegen/include/kgen/block/Attention.cuh) disagreeing with a rule
//     here fails at compile time.
// A refusal names the config field it is about and the limit it breaks.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_DIALECT_ATTENTIONLEGALITY_H
#define KGEN_DIALECT_ATTENTIONLEGALITY_H

#include "dialect/KgenDialect.h"

#include <optional>
#include <string>

namespace mlir::kgen {
class AttentionOp;

/// The fields of an attention_config that legality reads (the attribute's
/// parameters less source and entry).
struct AttentionConfigFields {
  Target target = Target::sm_80;
  InstructionFamily instruction = InstructionFamily::mma_sync;
  int64_t blockM = 0, blockN = 0, warpsM = 0, stages = 0;
  int64_t consumerWarpgroups = 1;
  bool pingPong = false, overlapSoftmax = false, packGqa = false;
  int64_t splitKv = 1;

  static AttentionConfigFields of(AttentionConfigAttr config);
  /// Threads per block of the main kernel: the consumer warps, and with
  /// wgmma the producer warpgroup.
  int64_t threads() const {
    return 32 * warpsM + (instruction == InstructionFamily::wgmma ? 128 : 0);
  }
};

/// What legality reads of an attention op.
struct AttentionOperands {
  Type elem;            // Q's element type
  Type kvElem;          // K's and V's: Q's, or f8E4M3FN (an e4m3 cache)
  int64_t headDim = 0;  // D
  int64_t groups = 1;   // G = Hq / Hkv
  int64_t seqQ = 0, seqKv = 0;
  bool paged = false;   // K and V in a paged cache (a block table)
  bool varlen = false;  // token-major variable-length sequences (cu_seqlens)

  static AttentionOperands of(AttentionOp op);
  /// Bytes of an element of Q, and of K and V.
  int64_t elemBytes() const;
  int64_t kvElemBytes() const;
  /// The 16-bit type the tensor cores read (mma_sync): Q's, or f16 for e4m3
  /// queries; e4m3 operands are widened to it in shared memory (exactly:
  /// every e4m3 value is a bf16 and an f16 value). Null for f32 queries.
  Type computeElem() const;
  bool widensQ() const;
  bool widensKv() const;
  /// Q, K and V all e4m3: FlashAttention-3's FP8 attention, which wgmma
  /// runs at FP8 rates (m64nNk32, P rounded to e4m3) and mma_sync widened.
  bool allE4m3() const;
};

/// The element type of the tiles the tensor cores read under `instruction`:
/// e4m3 itself for an all-e4m3 attention on wgmma (no widening), else
/// computeElem().
Type attentionMmaElem(InstructionFamily instruction,
                      const AttentionOperands &operands);

/// A rule a config breaks: the field it is about and why.
struct AttentionLegalityError {
  std::string field;
  std::string message;
  /// "attention_config 'FIELD': MESSAGE".
  std::string str() const;
};

/// nullopt when `config` lowers for an attention with `operands`; the first
/// rule it breaks otherwise. Without operands, only the rules that hold for
/// every attention (what the attribute verifier checks).
std::optional<AttentionLegalityError>
checkAttentionLegality(const AttentionConfigFields &config,
                       const AttentionOperands *operands = nullptr);

/// The head dimension of the tiles: D rounded up to the MMA's k (16), or
/// with wgmma to whole 128-byte swizzle blocks (64). The padding columns
/// load as zeros and are never stored.
int64_t attentionTileHeadDim(int64_t headDim,
                             InstructionFamily instruction =
                                 InstructionFamily::mma_sync);

/// The main kernel's dynamic shared memory in bytes: the Q tile and the
/// K and V stage buffers, each rounded up to 128 bytes (what
/// kgen/block/Attention.cuh's attention_smem_bytes states again for 16-bit
/// operands); with
/// e4m3 operands (mma_sync) also the widened tiles: Q's e4m3 staging tile,
/// or one K and one V tile of the compute type beside the e4m3 stages.
/// With wgmma, AttentionSm90.cuh's kSmemBytes (all-e4m3: a transposed V
/// tile per stage and its barriers besides).
int64_t attentionSharedMemoryBytes(const AttentionConfigFields &config,
                                   const AttentionOperands &operands);

/// Query rows of the packed view a (b, kv head) plane holds: G * Sq.
inline int64_t attentionRows(const AttentionOperands &o) {
  return o.groups * o.seqQ;
}

/// The combine kernel of a split-KV package: rows per block and threads.
constexpr int64_t kAttentionCombineRows = 16;
constexpr int64_t kAttentionCombineThreads = 128;
} // namespace mlir::kgen

#endif // KGEN_DIALECT_ATTENTIONLEGALITY_H
