//===- AttentionJson.h - JSON forms of attention signatures and configs -*- C++ -*-===//
//
// The attention family's entries of what package manifests ("op",
// "config") and tuning databases share (dialect/GemmJson.h has the generic
// dictionary form and gemm's).
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_DIALECT_ATTENTIONJSON_H
#define KGEN_DIALECT_ATTENTIONJSON_H

#include "dialect/AttentionLegality.h"
#include "dialect/GemmJson.h"

#include <optional>

namespace mlir::kgen {
/// The op an attention computes, as the runtime reads it
/// (docs/kernel-package.md): kind, batch, q_heads, kv_heads, seq_q, seq_kv,
/// head_dim, dtype, dtype_out, kv_lens, lse, scale, causal, sliding_window,
/// window_left, window_right and softcap (null when absent), alibi; with a
/// block table paged, page_size and num_pages (absent otherwise); dtype_kv
/// when K and V are not of Q's type (an e4m3 cache), and q_descale,
/// k_descale, v_descale (true) for the factors the op has (absent
/// otherwise); varlen (true) for a token-major batch of variable-length
/// sequences (cu_seqlens), whose batch, seq_q and seq_kv are then B and the
/// token totals Tq and Tk.
DictionaryAttr attentionSignature(AttentionOp op);

/// Every field of an attention_config, plus "attribute": its MLIR text, and
/// the emitter version.
nlohmann::json toJson(AttentionConfigAttr config);

/// The legality's fields of a stored attention config (toJson's form, as
/// package manifests and tuning databases hold it; the other fields,
/// kgen-tune's predicted_ms among them, are not read); nullopt with the
/// first field that is missing, mistyped or no known value in `refusal`.
std::optional<AttentionConfigFields>
attentionFieldsFromJson(const nlohmann::json &json,
                        AttentionLegalityError &refusal);

/// The attribute of a stored config, `source` and `entry` replacing the
/// stored ones; null, with the reason in `refusal`, when
/// attentionFieldsFromJson refuses it or the legality's rules for every
/// attention do (checkAttentionLegality without operands). The rules for
/// one op are the caller's to check.
AttentionConfigAttr attentionConfigFromJson(const nlohmann::json &json,
                                            MLIRContext *ctx,
                                            ConfigSource source,
                                            StringRef entry,
                                            AttentionLegalityError &refusal);
} // namespace mlir::kgen

#endif // KGEN_DIALECT_ATTENTIONJSON_H
