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

/// What a measurement is valid for.
struct TuningKey {
  nlohmann::json op;          // the op signature, as a package's "op" object
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
  nlohmann::json config;      // the gemm_config fields, as in package manifests
  RunStatus status = RunStatus::Ok;
  bool correct = false;       // passed verification against the reference
  std::optional<SampleStats> time;
  std::string measuredAt;     // ISO 8601 UTC
  std::string host;
};

struct TuningEntry {
  TuningKey key;
  std::vector<TuningCandidate> candidates;

  /// The fastest correct candidate with status ok and a time (smallest
  /// median), if any.
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

nlohmann::json toJson(const TuningDb &db);
/// Validates schema, version and every field's type; false with a message.
bool fromJson(const nlohmann::json &j, TuningDb &db, std::string &err);

/// Reads a database file. False with a one-line message naming the file for
/// a missing, unreadable, corrupt, other-schema or other-version file: the
/// caller warns and skips it.
bool readTuningDb(const std::string &path, TuningDb &db, std::string &err);
/// Writes atomically (writeJsonAtomic).
bool writeTuningDb(const std::string &path, const TuningDb &db,
                   std::string &err);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_TUNINGDB_H
