//===- AttentionJson.h - JSON forms of attention signatures and configs -*- C++ -*-===//
//
// The attention family's entries of what package manifests ("op",
// "config") and tuning databases share (dialect/GemmJson.h has the generic
// dictionary form and gemm's).
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_DIALECT_ATTENTIONJSON_H
#define KGEN_DIALECT_ATTENTIONJSON_H

#include "dialect/GemmJson.h"

namespace mlir::kgen {
/// The op an attention computes, as the runtime reads it
/// (docs/kernel-package.md): kind, batch, q_heads, kv_heads, seq_q, seq_kv,
/// head_dim, dtype, dtype_out, kv_lens, lse, scale, causal, sliding_window
/// and softcap (null when absent).
DictionaryAttr attentionSignature(AttentionOp op);

/// Every field of an attention_config, plus "attribute": its MLIR text, and
/// the emitter version.
nlohmann::json toJson(AttentionConfigAttr config);
} // namespace mlir::kgen

#endif // KGEN_DIALECT_ATTENTIONJSON_H
