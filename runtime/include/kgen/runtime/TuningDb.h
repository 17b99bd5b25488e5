//===- TuningDb.h - the tuning database: measured configs per op -*- C++ -*-===//
//
// What kgen-tune (and kgen-bench) write and kgen-select-strategy reads:
// every measured candidate configuration of an op, keyed by the op's
// signature, the target and the toolchain, never by the candidate list.
// Format documented in docs/tuning-db.md. No MLIR, no exceptions.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_TUNINGDB_H
#define KGEN_RUNTIME_TUNINGDB_H

#include "kgen/runtime/Results.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kgen::rt {

constexpr const char *kTuningDbSchema = "kgen.tuning-db";
constexpr int kTuningDbVersion = 1;
/// The largest SM count a key may hold (an H200 has 132).
constexpr int kMaxSmCount = 4096;

/// What a measurement is valid for.
struct TuningKey {
  nlohmann::json op;          // the op signature, as a package's "op" object:
                              // a gemm's or an attention's; or a grouped
                              // GEMM key (groupedGemmKeyOp)
  std::string arch;           // "sm_90a"
  int smCount = 0;            // 0: unknown
  std::string device;         // "NVIDIA H200"; empty: unknown
  std::string cudaVersion;    // toolchain: "13.0"
  int emitterVersion = 0;     // kgen's emitter version (codegen)

  /// Canonical text of the key (JSON with sorted keys): equal keys, equal
  /// text. Used for identity and merging.
  std::string canonical() const;
  /// Same op and target (arch, and SM count and device when both sides
  /// know them); the toolchain may differ.
  bool sameOpAndTarget(const TuningKey &other) const;
  bool sameToolchain(const TuningKey &other) const;
};

/// One measured candidate.
struct TuningCandidate {
  nlohmann::json config;      // the gemm_config or attention_config fields,
                              // as in package manifests, and kgen-tune's
                              // predicted_ms
  RunStatus status = RunStatus::Ok;
  bool correct = false;       // passed verification against the reference
  std::optional<SampleStats> time;
  std::string measuredAt;     // ISO 8601 UTC
  std::string host;
  /// Where the measurement comes from, beyond the host: null, or an object
  /// of plain values: "gpu" (the device's name), "sm_clock_mhz" and
  /// "mem_clock_mhz" (the clocks when measured, 0: unknown), and in a
  /// campaign's merged database "shard" and "node" (docs/campaigns.md).
  /// Not part of the measurement's identity.
  nlohmann::json provenance;
  /// Where it was read from ("entries[2].candidates[0]"), for messages
  /// about it; empty when it was not read from a file. Not written, and
  /// no part of its identity.
  std::string origin;

  /// What identifies the measurement among its key's candidates: the config
  /// (compared as keys are: canonical text), measuredAt and host. Equal for
  /// the same measurement recorded twice (a results file imported again).
  std::string identity() const;
};

struct TuningEntry {
  TuningKey key;
  std::vector<TuningCandidate> candidates;

  /// The correct candidates with status ok and a valid time (checkTime: at
  /// least one sample, positive finite statistics), fastest median first;
  /// of equal medians, the first in the list first.
  std::vector<const TuningCandidate *> ranked() const;
  /// The first of ranked(), if any.
  const TuningCandidate *best() const;
};

struct TuningDb {
  std::vector<TuningEntry> entries;

  /// The entry with exactly this key (canonical equality), if any.
  const TuningEntry *find(const TuningKey &key) const;
  /// Adds the candidates of `other`'s entries: new keys are appended, and a
  /// candidate already present for a key (same config and measuredAt and
  /// host) is not duplicated.
  void merge(const TuningDb &other);
  /// Adds one measured candidate under `key`.
  void add(const TuningKey &key, const TuningCandidate &candidate);
};

/// What a database may hold beyond each field's JSON type (fromJson and
/// writeTuningDb check it; importers check what they add). False with
/// "<field>: <why>", the field named as in the file ("op.batch",
/// "time.median_ms"):
///  - a key: the op is a complete gemm, attention or grouped GEMM signature
///    (every field
///    kgen writes for its kind, nothing else: sizes in [1, 2^31], known
///    element types and activation, finite alpha, beta, scale and softcap;
///    for attention also kgen.attention's rules across fields: head_dim a
///    multiple of 8 in [32, 256], q_heads a multiple of kv_heads, a
///    non-zero scale, a sliding_window only when causal, softcap > 0,
///    page_size and num_pages exactly with paged, pages_nhd (optional)
///    true only with paged (NHD pages: a key of its own beside the HND
///    one), dtype_kv f8E4M3FN only
///    for a bf16, f16 or e4m3 dtype, a *_descale flag only for an e4m3
///    operand, varlen (optional) true only with kv_lens false (paged or
///    not: a varlen op over a paged cache is its own key); for
///    a grouped GEMM: role gate_up gated and down not, role grouped with
///    top_k 1, top_k <= experts, tokens_bucket a power of two), the
///    arch is "sm_<digits>" with an optional
///    "a", the SM count is in [0, kMaxSmCount] (0: unknown);
///  - a candidate: its config and provenance are null or objects of plain
///    values (strings, numbers, booleans, null), its time is absent or
///    valid;
///  - a time: at least one sample; the median, q3 and max positive finite
///    milliseconds, min and q1 finite and >= 0 (a sample may be below the
///    timer's resolution); min <= q1 <= median <= q3 <= max.
bool checkKey(const TuningKey &key, std::string &err);
bool checkCandidate(const TuningCandidate &candidate, std::string &err);
bool checkTime(const SampleStats &time, std::string &err);

/// The tokens bucket of `tokens` (>= 1): the smallest power of two >= it
/// (1, 2, 4, ..., 2^31). A grouped GEMM's tile is decided by the rows
/// each expert gets, so measurements at T tokens stand for every T' of
/// the same bucket (as vLLM keys its fused-MoE configs by batch size).
int64_t tokensBucket(int64_t tokens);

/// The tuning key op of one grouped GEMM, from a package's op signature:
/// a kgen.moe's ("kind": "moe"; role "gate_up": k = hidden, n = inter,
/// gated; role "down": k = inter, n = hidden) or a kgen.grouped_gemm's
/// ("kind": "grouped_gemm"; role "grouped", its rows as tokens, top_k 1).
/// {"kind": "grouped_gemm", "role", "experts", "top_k", "k", "n", "gated",
/// "activation" (the layer's), "dtype", "dtype_out", "tokens_bucket"}.
/// False with a message naming the field when `op` lacks one or the role
/// does not fit the kind; the result is not otherwise checked (checkKey).
bool groupedGemmKeyOp(const nlohmann::json &op, const std::string &role,
                      nlohmann::json &keyOp, std::string &err);

/// What a measured package (its manifest's, or its result's, op and
/// config) is recorded as: a gemm or attention as it is; a grouped_gemm
/// as groupedGemmKeyOp's key (role "grouped") and its config; a moe layer,
/// whose config holds both expert GEMMs' ({"gate_up": {...}, "down":
/// {...}, "tuned_role": ROLE}, as kgen-tune writes its candidates), as
/// the key of the tuned role's grouped GEMM and that role's config, with
/// the other role's config text as "paired_with" and its prediction as
/// "paired_predicted_ms" (the time is the whole layer's). False with a
/// message naming the field (a moe config with no tuned_role) otherwise.
bool tuningRecordOf(const nlohmann::json &op, const nlohmann::json &config,
                    nlohmann::json &keyOp, nlohmann::json &keyConfig,
                    std::string &err);

nlohmann::json toJson(const TuningDb &db);
/// Validates schema, version, every field's type and the values checkKey
/// and checkCandidate check; false with a message naming the field.
bool fromJson(const nlohmann::json &j, TuningDb &db, std::string &err);

/// Reads a database file. False with a one-line message naming the file for
/// a missing, unreadable, corrupt, other-schema or other-version file: the
/// caller warns and skips it.
bool readTuningDb(const std::string &path, TuningDb &db, std::string &err);
/// Writes atomically (writeJsonAtomic); refuses, leaving the file as it
/// was, a database that readTuningDb would refuse.
bool writeTuningDb(const std::string &path, const TuningDb &db,
                   std::string &err);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_TUNINGDB_H
