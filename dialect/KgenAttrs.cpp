//===- KgenAttrs.cpp - kgen attributes: verifiers and targets -------------===//

#include "dialect/KgenDialect.h"
#include "dialect/AttentionLegality.h"
#include "dialect/GemmLegality.h"
#include "dialect/GroupedGemmLegality.h"
#include "dialect/KgenTarget.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::kgen;

const TargetInfo &mlir::kgen::getTargetInfo(Target target) {
  static const TargetInfo sm80 = {"sm_80", 108, 166912, 1};
  static const TargetInfo sm90a = {"sm_90a", 132, 232448, 8};
  return target == Target::sm_90a ? sm90a : sm80;
}

std::optional<Target> mlir::kgen::parseTarget(StringRef name) {
  return symbolizeTarget(name);
}

int64_t GemmConfigAttr::getThreads() const {
  return GemmConfigFields::of(*this).threads();
}

LogicalResult
GemmConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       Target target, InstructionFamily instruction,
                       int64_t blockM, int64_t blockN, int64_t blockK,
                       int64_t warpsM, int64_t warpsN, int64_t stages,
                       bool tma, bool warpSpecialized, int64_t clusterM,
                       int64_t clusterN, int64_t splitK, int64_t rasterGroup,
                       int64_t epilogueVector, ConfigSource source,
                       StringRef entry) {
  GemmConfigFields fields;
  fields.target = target;
  fields.instruction = instruction;
  fields.blockM = blockM;
  fields.blockN = blockN;
  fields.blockK = blockK;
  fields.warpsM = warpsM;
  fields.warpsN = warpsN;
  fields.stages = stages;
  fields.tma = tma;
  fields.warpSpecialized = warpSpecialized;
  fields.clusterM = clusterM;
  fields.clusterN = clusterN;
  fields.splitK = splitK;
  fields.rasterGroup = rasterGroup;
  fields.epilogueVector = epilogueVector;
  // The family's rules that hold for any operands; kgen.gemm's verifier
  // checks the rest (dialect/GemmLegality.h).
  if (std::optional<GemmLegalityError> e = checkGemmLegality(fields))
    return emitError() << e->str();
  return success();
}

int64_t AttentionConfigAttr::getThreads() const {
  return AttentionConfigFields::of(*this).threads();
}

LogicalResult AttentionConfigAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, Target target,
    InstructionFamily instruction, int64_t blockM, int64_t blockN,
    int64_t warpsM, int64_t stages, int64_t consumerWarpgroups, bool pingPong,
    bool overlapSoftmax, bool packGqa, int64_t splitKv, ConfigSource source,
    StringRef entry) {
  AttentionConfigFields fields;
  fields.target = target;
  fields.instruction = instruction;
  fields.blockM = blockM;
  fields.blockN = blockN;
  fields.warpsM = warpsM;
  fields.stages = stages;
  fields.consumerWarpgroups = consumerWarpgroups;
  fields.pingPong = pingPong;
  fields.overlapSoftmax = overlapSoftmax;
  fields.packGqa = packGqa;
  fields.splitKv = splitKv;
  // The family's rules that hold for any attention; kgen.attention's
  // verifier checks the rest (dialect/AttentionLegality.h).
  if (std::optional<AttentionLegalityError> e = checkAttentionLegality(fields))
    return emitError() << e->str();
  return success();
}

int64_t GroupedGemmConfigAttr::getThreads() const {
  return GroupedGemmConfigFields::of(*this).threads();
}

LogicalResult GroupedGemmConfigAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, Target target,
    InstructionFamily instruction, int64_t blockM, int64_t blockN,
    int64_t blockK, int64_t warpsM, int64_t warpsN, int64_t stages,
    ConfigSource source, StringRef entry) {
  GroupedGemmConfigFields fields;
  fields.target = target;
  fields.instruction = instruction;
  fields.blockM = blockM;
  fields.blockN = blockN;
  fields.blockK = blockK;
  fields.warpsM = warpsM;
  fields.warpsN = warpsN;
  fields.stages = stages;
  // The rules that hold for any grouped GEMM; the ops' verifiers check the
  // rest (dialect/GroupedGemmLegality.h).
  if (std::optional<GroupedGemmLegalityError> e =
          checkGroupedGemmLegality(fields))
    return emitError() << e->str();
  return success();
}
