//===- GemmJson.h - JSON forms of gemm signatures and configs ---*- C++ -*-===//
//
// One definition of the JSON that package manifests ("op", "config"), the
// tuning database (keys, candidates) and strategy selection share.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_DIALECT_GEMMJSON_H
#define KGEN_DIALECT_GEMMJSON_H

#include "dialect/KgenOps.h"

#include <nlohmann/json.hpp>

namespace mlir::kgen {
/// Version of the CUDA emitter's output (codegen/emit): part of tuning
/// database keys and of every config's JSON, so that measurements of kernels
/// it printed differently count as stale. Bump it when generated code
/// changes in a way that can change performance.
constexpr int kEmitterVersion = 1;

/// The op a gemm computes: kind, batch, m, n, k, transposes, batched_b,
/// element types (null for absent operands), alpha, beta, activation.
DictionaryAttr gemmSignature(GemmOp op);

/// A signature (or any dictionary of strings, bools, integers, floats and
/// units) as JSON; units become null, integral floats stay floats.
nlohmann::json toJson(DictionaryAttr dict);

/// Every field of a gemm_config, plus "attribute": its MLIR text.
nlohmann::json toJson(GemmConfigAttr config);

/// The config of `json` (as toJson writes it), with `source` and `entry`
/// replacing the stored ones; null when a field is missing or mistyped
/// (the attribute's verifier is not run here: use getChecked's caller).
GemmConfigAttr configFromJson(const nlohmann::json &json, MLIRContext *ctx,
                              ConfigSource source, llvm::StringRef entry);
} // namespace mlir::kgen

#endif // KGEN_DIALECT_GEMMJSON_H
