//===- GroupedGemmLegality.h - what the grouped GEMM kernels lower -*- C++ -*-===//
//
// The one statement of which #kgen.grouped_gemm_config lowers, for a given
// grouped GEMM (kgen.grouped_gemm, or either expert GEMM of a kgen.moe), to
// CUDA that compiles with no stack and no spills (docs/moe.md). Every part
// of kgen answers to it: the attribute verifier (the rules that hold for any
// operands), the kgen.grouped_gemm and kgen.moe verifiers (all of them), the
// heuristic and the tuner's search space (passes/MoeStrategy.cpp), the
// lowering (shared memory from groupedGemmSharedMemoryBytes) and the CUDA
// emitter, which trusts it.
//
// A grouped GEMM block runs the gemm main loop of its family on one
// expert's rows (mma_sync; or wgmma's warp-specialised TMA pipeline, whose
// A box may run into the next expert's rows: they are computed and not
// stored), so the tile rules are the gemm family's
// (dialect/GemmLegality.h), asked for the equivalent gemm: A [rows, K] and
// a batched B [E, K, N], both row-major. The gated form (act(a Wg) * (a Wu))
// holds two B stage tiles and two accumulators: its registers and shared
// memory are those of a gemm tile twice as wide, which is what it is
// checked as, its two B tiles loaded apart (GemmOperands::bTiles).
// Block-scaled e4m3 weights run the widened main loop
// (checkWidenedE4m3MainLoop): sm_90a, block_k dividing 128 (a K tile in one
// scale block), block_n dividing 128 (a tile in one 128-column scale
// block), and two accumulators per product.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_DIALECT_GROUPEDGEMMLEGALITY_H
#define KGEN_DIALECT_GROUPEDGEMMLEGALITY_H

#include "dialect/GemmLegality.h"

#include <optional>
#include <string>

namespace mlir::kgen {

/// The fields of a grouped_gemm_config that legality reads.
struct GroupedGemmConfigFields {
  Target target = Target::sm_80;
  InstructionFamily instruction = InstructionFamily::mma_sync;
  int64_t blockM = 0, blockN = 0, blockK = 0, warpsM = 0, warpsN = 0;
  int64_t stages = 0;

  static GroupedGemmConfigFields of(GroupedGemmConfigAttr config);
  /// Threads per block: the warps, plus the TMA producer warpgroup of the
  /// wgmma pipeline.
  int64_t threads() const {
    return 32 * warpsM * warpsN +
           (instruction == InstructionFamily::wgmma ? 128 : 0);
  }
  /// The gemm config whose main loop a block runs (`gated`: the tile twice
  /// as wide that has the gated form's resources).
  GemmConfigFields asGemm(bool gated) const;
};

/// What legality reads of a grouped GEMM's operands.
struct GroupedGemmOperands {
  Type elem;    // a's and b's element type (block-scaled: b's, f8E4M3FN,
                // which the kernel's quantised a shares)
  Type outElem; // d's
  int64_t k = 0, n = 0;
  bool gated = false;
  /// Block-scaled e4m3 weights (`scales`): the activations are quantised
  /// per (row, 128 columns) by a kernel of their own, and the main loop
  /// widens both e4m3 tiles to f16 fragments and keeps each product's
  /// K block partial sums beside its scaled sums (two accumulators a
  /// product) (kgen.moe's block scales, docs/moe.md).
  bool blockScaled = false;
  /// Block-scaled: the activations' element type, which the quantisation
  /// kernel reads (null: not known, as in a lone GEMM kernel).
  Type aElem;
};

struct GroupedGemmLegalityError {
  std::string field;
  std::string message;
  /// "grouped_gemm_config 'FIELD': MESSAGE".
  std::string str() const;
};

/// Nullopt when `config` lowers for a grouped GEMM with `operands`; the
/// first rule it breaks otherwise. Without operands, the rules that hold
/// for every grouped GEMM.
std::optional<GroupedGemmLegalityError>
checkGroupedGemmLegality(const GroupedGemmConfigFields &config,
                         const GroupedGemmOperands *operands = nullptr);

/// Dynamic shared memory of the grouped GEMM kernel: the A stage buffer and
/// one B stage buffer (two when gated), each rounded up to 128 bytes; for
/// wgmma, the pipeline's (gemmSharedMemoryBytes).
int64_t groupedGemmSharedMemoryBytes(const GroupedGemmConfigFields &config,
                                     int64_t elemBytes, bool gated);
} // namespace mlir::kgen

#endif // KGEN_DIALECT_GROUPEDGEMMLEGALITY_H
