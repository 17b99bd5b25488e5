//===- MoeJson.h - JSON forms of MoE signatures and configs ------*- C++ -*-===//
//
// The MoE family's entries of what package manifests ("op", "config") hold
// (dialect/GemmJson.h has the generic dictionary form and gemm's;
// runtime/include/kgen/runtime/Moe.h reads them back).
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_DIALECT_MOEJSON_H
#define KGEN_DIALECT_MOEJSON_H

#include "dialect/GemmJson.h"
#include "dialect/GroupedGemmLegality.h"

#include <optional>

namespace mlir::kgen {
/// The layer a kgen.moe computes: kind "moe", tokens, hidden, inter,
/// experts, top_k, renormalize, activation, dtype (x and the weights),
/// logits_dtype, dtype_out.
DictionaryAttr moeSignature(MoeOp op);

/// The grouped GEMM a kgen.grouped_gemm computes: kind "grouped_gemm",
/// rows, k, n, experts, gated, activation, dtype, dtype_out.
DictionaryAttr groupedGemmSignature(GroupedGemmOp op);

/// Every field of a grouped_gemm_config, plus "attribute" (its MLIR text)
/// and the emitter version.
nlohmann::json toJson(GroupedGemmConfigAttr config);

/// The legality's fields of a stored grouped_gemm_config (toJson's form:
/// other fields, source, entry and kgen-tune's predicted_ms among them, are
/// not read); nullopt with the first field that is missing, mistyped or no
/// known value in `refusal`. The legality is the caller's to check.
std::optional<GroupedGemmConfigFields>
groupedGemmFieldsFromJson(const nlohmann::json &json,
                          GroupedGemmLegalityError &refusal);
} // namespace mlir::kgen

#endif // KGEN_DIALECT_MOEJSON_H
