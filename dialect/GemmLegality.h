//===- GemmLegality.h - what each GEMM kernel family can lower --*- C++ -*-===//
//
// The one statement of which #kgen.gemm_config a kernel family lowers, for
// a given gemm, to CUDA that compiles with no stack and no spills. Every
// part of kgen answers to it:
//   - the gemm_config attribute verifier (the rules that hold for any
//     operand) and the kgen.gemm verifier (all of them);
//   - kgen-tune's search space (passes/CostModel.cpp enumerates through it);
//   - the default heuristic (passes/Strategy.cpp: its choice must pass);
//   - kgen-lower-gemm-to-tiles (the kernel's shared memory is
//     gemmSharedMemoryBytes) and the CUDA emitter, which trusts it and prints
//     static_asserts of the shared memory and thread count it was given, so
//     that the block layer (codegen/include/kgen/block) disagreeing with a
//     rule here fails at compile time.
// A refusal names the config field it is about and the limit it breaks.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_DIALECT_GEMMLEGALITY_H
#define KGEN_DIALECT_GEMMLEGALITY_H

#include "dialect/KgenDialect.h"

#include <optional>
#include <string>

namespace mlir::kgen {
class GemmOp;

/// The fields of a gemm_config that legality reads (the attribute's
/// parameters less source and entry).
struct GemmConfigFields {
  Target target = Target::sm_80;
  InstructionFamily instruction = InstructionFamily::simt;
  int64_t blockM = 0, blockN = 0, blockK = 0, warpsM = 0, warpsN = 0;
  int64_t stages = 0;
  bool tma = false, warpSpecialized = false;
  int64_t clusterM = 1, clusterN = 1, splitK = 1, rasterGroup = 1;
  int64_t epilogueVector = 1;

  static GemmConfigFields of(GemmConfigAttr config);
  /// Threads per block: the consumer warps, plus a producer warpgroup when
  /// warp-specialised.
  int64_t threads() const {
    return 32 * warpsM * warpsN + (warpSpecialized ? 128 : 0);
  }
};

/// What legality reads of a gemm's operands.
struct GemmOperands {
  Type elem;                    // A's and B's element type
  bool transA = false, transB = false;
  bool batchedA = false, batchedB = false;
  int64_t rowElemsA = 0, rowElemsB = 0; // stored (contiguous) row lengths
  bool accF16 = false;                  // acc_type = f16
  Type cElem, biasElem;                 // residual C, bias (null: none)
  Type outElem;                         // D
  /// B's stage tile is this many tiles of block_n / bTiles columns, each
  /// loaded apart (2: a gated grouped GEMM's gate and up tiles, checked as
  /// one gemm tile twice as wide).
  int64_t bTiles = 1;

  static GemmOperands of(GemmOp op);
  int64_t elemBytes() const;
};

/// A rule a config breaks: the field it is about and why, in one sentence
/// that gives the limit ("... must be a multiple of 64 ...").
struct GemmLegalityError {
  std::string field;
  std::string message;
  /// "gemm_config 'FIELD': MESSAGE".
  std::string str() const;
};

/// The family's legality: nullopt when `config` lowers for a gemm with
/// `operands`; the first rule it breaks otherwise. With no operands, only
/// the rules that hold for every gemm (what the attribute verifier checks).
std::optional<GemmLegalityError>
checkGemmLegality(const GemmConfigFields &config,
                  const GemmOperands *operands = nullptr);

/// The mma_sync main loop of a block-scaled grouped GEMM
/// (kgen/cuda/Mma.cuh WarpMmaE4m3F16): e4m3 stage tiles, A (block_m,
/// block_k) K-major and `bTiles` B tiles (block_k, block_n) MN-major, read
/// into f16 fragments by cvt.rn.f16x2.e4m3x2 (sm_89+; `elem` must be
/// f8E4M3FN), and `accumulators`
/// f32 tiles of block_m x block_n in registers (a K block's partial sums
/// and the scaled sums, per product). Nullopt when the warp tiles, the
/// loads, the registers and the shared memory fit; the rule broken
/// otherwise, in the gemm family's terms.
std::optional<GemmLegalityError>
checkWidenedE4m3MainLoop(const GemmConfigFields &config, Type elem,
                         int64_t bTiles, int64_t accumulators);

/// The dynamic shared memory, in bytes, that the main kernel of `config`
/// asks for at launch with `elemBytes`-byte operands: the stage buffers (each
/// operand's rounded up to 128 bytes) for the cp.async families; for wgmma
/// the pipeline's (1 KiB of alignment slack for the 128-byte swizzle, the
/// stages, a full and an empty mbarrier per stage). The block layer states
/// the same number (WgmmaPipeline::kSmemBytes, kgen::block::stage_bytes).
int64_t gemmSharedMemoryBytes(const GemmConfigFields &config,
                              int64_t elemBytes);

/// Bytes of one cp.async stage buffer of `rows` x `cols` elements over
/// `stages` stages, rounded up to 128 bytes (where the next one starts).
int64_t stageBufferBytes(int64_t stages, int64_t rows, int64_t cols,
                         int64_t elemBytes);
} // namespace mlir::kgen

#endif // KGEN_DIALECT_GEMMLEGALITY_H
