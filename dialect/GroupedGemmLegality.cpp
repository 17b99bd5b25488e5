//===- GroupedGemmLegality.cpp - what the grouped GEMM kernels lower ------===//

#include "dialect/GroupedGemmLegality.h"
#include "dialect/KgenOps.h"
#include "dialect/KgenTarget.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::kgen;

GroupedGemmConfigFields
GroupedGemmConfigFields::of(GroupedGemmConfigAttr c) {
  GroupedGemmConfigFields f;
  f.target = c.getTarget();
  f.instruction = c.getInstruction();
  f.blockM = c.getBlockM();
  f.blockN = c.getBlockN();
  f.blockK = c.getBlockK();
  f.warpsM = c.getWarpsM();
  f.warpsN = c.getWarpsN();
  f.stages = c.getStages();
  return f;
}

GemmConfigFields GroupedGemmConfigFields::asGemm(bool gated) const {
  GemmConfigFields g;
  g.target = target;
  g.instruction = instruction;
  g.blockM = blockM;
  g.blockN = gated ? 2 * blockN : blockN;
  g.blockK = blockK;
  g.warpsM = warpsM;
  g.warpsN = warpsN;
  g.stages = stages;
  // wgmma: the warp-specialised TMA pipeline (a producer warpgroup).
  g.tma = g.warpSpecialized = instruction == InstructionFamily::wgmma;
  return g;
}

std::string GroupedGemmLegalityError::str() const {
  return "grouped_gemm_config '" + field + "': " + message;
}

int64_t mlir::kgen::groupedGemmSharedMemoryBytes(
    const GroupedGemmConfigFields &c, int64_t elemBytes, bool gated) {
  if (c.instruction == InstructionFamily::wgmma)
    return gemmSharedMemoryBytes(c.asGemm(false), elemBytes);
  return stageBufferBytes(c.stages, c.blockM, c.blockK, elemBytes) +
         (gated ? 2 : 1) *
             stageBufferBytes(c.stages, c.blockK, c.blockN, elemBytes);
}

namespace {
using Error = std::optional<GroupedGemmLegalityError>;

Error fail(StringRef field, const llvm::Twine &message) {
  return GroupedGemmLegalityError{field.str(), message.str()};
}

/// The gemm family's answer for the equivalent gemm, as a grouped GEMM
/// error (the gated form's is said to be about the doubled tile).
Error fromGemm(const std::optional<GemmLegalityError> &e, bool gated,
               int64_t blockN) {
  if (!e)
    return std::nullopt;
  if (!gated)
    return fail(e->field, e->message);
  return fail(e->field,
              llvm::formatv("the gated form holds two B tiles and two "
                            "accumulators, checked as the gemm tile of "
                            "block_n = 2 x {0}: {1}",
                            blockN, e->message));
}
/// Block-scaled e4m3 weights: the widened main loop, its K and N tiles
/// each inside one 128-wide scale block.
Error checkBlockScaled(const GroupedGemmConfigFields &c,
                       const GroupedGemmOperands &o) {
  if (o.aElem && !o.aElem.isBF16() && !o.aElem.isF16())
    return fail("instruction",
                llvm::formatv("block-scaled grouped GEMMs quantise bf16 or "
                              "f16 activations; got {0}",
                              o.aElem));
  if (kScaleBlock % c.blockK != 0)
    return fail("block_k",
                llvm::formatv("{0}; block-scaled weights need block_k "
                              "dividing {1} (each K tile inside one scale "
                              "block, whose partial sums are scaled at its "
                              "end)",
                              c.blockK, kScaleBlock));
  if (kScaleBlock % c.blockN != 0)
    return fail("block_n",
                llvm::formatv("{0}; block-scaled weights need block_n "
                              "dividing {1} (each tile inside one "
                              "128-column scale block)",
                              c.blockN, kScaleBlock));
  int64_t bTiles = o.gated ? 2 : 1;
  if (std::optional<GemmLegalityError> e = checkWidenedE4m3MainLoop(
          c.asGemm(false), o.elem, bTiles, /*accumulators=*/2 * bTiles))
    return fail(e->field,
                llvm::formatv("the block-scaled e4m3 main loop ({0} B "
                              "tile{1}, a partial and a scaled accumulator "
                              "each): {2}",
                              bTiles, bTiles > 1 ? "s" : "", e->message));
  return std::nullopt;
}
} // namespace

std::optional<GroupedGemmLegalityError>
mlir::kgen::checkGroupedGemmLegality(const GroupedGemmConfigFields &c,
                                     const GroupedGemmOperands *o) {
  if (c.instruction == InstructionFamily::simt)
    return fail("instruction", "simt; grouped GEMMs run on tensor cores: "
                               "expected mma_sync or wgmma");
  // Light loads (decode: a few rows per expert) take 16-row tiles; the
  // mma_sync warp tiles stop at 128 rows a block.
  if (c.blockM < 16 || c.blockM > 128)
    return fail("block_m",
                llvm::formatv("{0}; expected 16 to 128 rows per expert tile",
                              c.blockM));
  bool gated = o && o->gated;
  if (Error e = fromGemm(checkGemmLegality(c.asGemm(false)), false, c.blockN))
    return e;
  if (!o)
    return std::nullopt;
  if (c.instruction == InstructionFamily::wgmma && (o->gated || o->blockScaled))
    return fail("instruction",
                llvm::formatv("the wgmma pipeline holds one B operand and one "
                              "accumulator: the {0} form runs mma_sync",
                              o->blockScaled ? "block-scaled" : "gated"));
  if (o->blockScaled)
    return checkBlockScaled(c, *o);
  if (!o->elem.isBF16() && !o->elem.isF16())
    return fail("instruction",
                llvm::formatv("the grouped GEMM kernels take bf16 or f16 "
                              "operands (mma_sync, f32 accumulation), or "
                              "f8E4M3FN weights with block scales; got {0}",
                              o->elem));
  GemmOperands g;
  g.elem = o->elem;
  g.batchedB = true;
  g.rowElemsA = o->k;
  g.rowElemsB = o->n;
  g.outElem = o->outElem;
  if (Error e = fromGemm(checkGemmLegality(c.asGemm(false), &g), false,
                         c.blockN))
    return e;
  if (gated) {
    g.bTiles = 2; // the gate's and the up projection's tiles, loaded apart
    if (Error e = fromGemm(checkGemmLegality(c.asGemm(true), &g), true,
                           c.blockN))
      return e;
  }
  return std::nullopt;
}
