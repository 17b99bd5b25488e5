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
} // namespace mlir::kgen

#endif // KGEN_DIALECT_MOEJSON_H
