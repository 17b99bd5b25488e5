//===- TuningDb.cpp - the tuning database: measured configs per op --------===//
//
// Format: docs/tuning-db.md. Keys are compared by their canonical text:
// nlohmann::json's compact dump (its objects are std::maps, so keys come out
// sorted) after every floating-point number with an integral value has been
// replaced by that integer, so that alpha 1 and 1.0 name the same op.
// Nothing here throws: every JSON type is checked before it is read, and
// dumps replace invalid UTF-8 instead of throwing about it.
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/TuningDb.h"

#include "JsonRead.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace kgen::rt {
namespace {

using namespace jsonread;

constexpr int64_t kMaxInt = std::numeric_limits<int>::max();

//===----------------------------------------------------------------------===//
// Canonical text
//===----------------------------------------------------------------------===//

/// `j` with every floating-point number whose value is an integer that
/// int64 holds (1.0, -0.0, 4096.0) replaced by that integer, recursively.
/// Other numbers (2.5, 1e300, NaN) are left as they are.
json normalizeNumbers(const json &j) {
  switch (j.type()) {
  case json::value_t::object: {
    json out = json::object();
    for (auto it = j.begin(); it != j.end(); ++it)
      out[it.key()] = normalizeNumbers(it.value());
    return out;
  }
  case json::value_t::array: {
    json out = json::array();
    for (const json &element : j)
      out.push_back(normalizeNumbers(element));
    return out;
  }
  case json::value_t::number_float: {
    const double v = j.get<double>();
    constexpr double kTwoTo63 = 9223372036854775808.0;
    if (std::isfinite(v) && std::trunc(v) == v && v >= -kTwoTo63 && v < kTwoTo63)
      return static_cast<int64_t>(v);
    return j;
  }
  default:
    return j;
  }
}

/// One line, sorted keys, integral numbers as integers: equal values, equal
/// text.
std::string canonicalText(const json &j) {
  return dumpOneLine(normalizeNumbers(j));
}

//===----------------------------------------------------------------------===//
// JSON forms
//===----------------------------------------------------------------------===//

json keyToJson(const TuningKey &k, json op) {
  return {{"op", std::move(op)},
          {"target",
           {{"arch", k.arch}, {"sm_count", k.smCount}, {"device", k.device}}},
          {"toolchain",
           {{"cuda", k.cudaVersion}, {"emitter", k.emitterVersion}}}};
}

json candidateToJson(const TuningCandidate &c) {
  return {{"config", c.config},
          {"status", runStatusName(c.status)},
          {"correct", c.correct},
          {"time", c.time ? toJson(*c.time) : json()},
          {"measured_at", c.measuredAt},
          {"host", c.host}};
}

/// What identifies one measurement among a key's candidates.
std::string candidateIdentity(const TuningCandidate &c) {
  return dumpOneLine(
      json::array({normalizeNumbers(c.config), c.measuredAt, c.host}));
}

/// The member `key` of `obj` (named `path`), which must be an object.
const json *requireObject(const json &obj, const std::string &path,
                          const char *key, std::string &err) {
  const json *j = require(obj, path, key, err);
  if (j && !j->is_object()) {
    typeError(fieldPath(path, key), "an object", *j, err);
    return nullptr;
  }
  return j;
}

bool readStringField(const json &obj, const std::string &path, const char *key,
                     std::string &out, std::string &err) {
  const json *j = require(obj, path, key, err);
  return j && readString(*j, fieldPath(path, key), out, err);
}

/// A string that may be absent or null (read as "").
bool readOptionalStringField(const json &obj, const std::string &path,
                             const char *key, std::string &out,
                             std::string &err) {
  out.clear();
  return isAbsent(obj, key) ||
         readString(*member(obj, key), fieldPath(path, key), out, err);
}

bool readCountField(const json &obj, const std::string &path, const char *key,
                    int &out, std::string &err) {
  const json *j = require(obj, path, key, err);
  return j && readIntAs(*j, fieldPath(path, key), 0, kMaxInt, out, err);
}

bool keyFromJson(const json &j, const std::string &path, TuningKey &k,
                 std::string &err) {
  if (!j.is_object())
    return typeError(path, "an object", j, err);
  const json *op = requireObject(j, path, "op", err);
  if (!op)
    return false;
  k.op = *op;

  const std::string targetPath = fieldPath(path, "target");
  const json *target = requireObject(j, path, "target", err);
  if (!target || !readStringField(*target, targetPath, "arch", k.arch, err))
    return false;
  k.smCount = 0; // absent or null: unknown
  if (!isAbsent(*target, "sm_count") &&
      !readCountField(*target, targetPath, "sm_count", k.smCount, err))
    return false;
  if (!readOptionalStringField(*target, targetPath, "device", k.device, err))
    return false;

  const std::string toolchainPath = fieldPath(path, "toolchain");
  const json *toolchain = requireObject(j, path, "toolchain", err);
  return toolchain &&
         readStringField(*toolchain, toolchainPath, "cuda", k.cudaVersion,
                         err) &&
         readCountField(*toolchain, toolchainPath, "emitter", k.emitterVersion,
                        err);
}

/// "ok wrong compile_failed ...": the names parseRunStatus accepts.
std::string knownStatusNames() {
  std::string known;
  for (int i = 0; i < 64; ++i) {
    const std::string name = runStatusName(static_cast<RunStatus>(i));
    if (name == "unknown")
      break;
    known += (known.empty() ? "" : " ") + name;
  }
  return known;
}

bool candidateFromJson(const json &j, const std::string &path,
                       TuningCandidate &c, std::string &err) {
  if (!j.is_object())
    return typeError(path, "an object", j, err);
  c.config = isAbsent(j, "config") ? json() : *member(j, "config");
  if (!c.config.is_null() && !c.config.is_object())
    return typeError(fieldPath(path, "config"), "an object or null", c.config,
                     err);

  std::string status;
  if (!readStringField(j, path, "status", status, err))
    return false;
  const std::optional<RunStatus> parsed = parseRunStatus(status);
  if (!parsed)
    return fieldError(fieldPath(path, "status"),
                      "unknown status " + describe(json(status)) +
                          " (expected " + knownStatusNames() + ")",
                      err);
  c.status = *parsed;

  const json *correct = require(j, path, "correct", err);
  if (!correct || !readBool(*correct, fieldPath(path, "correct"), c.correct, err))
    return false;

  c.time.reset();
  if (!isAbsent(j, "time")) {
    SampleStats stats;
    if (!fromJson(*member(j, "time"), stats, err)) {
      err = path + "." + err; // err starts with "time"
      return false;
    }
    c.time = stats;
  }
  return readOptionalStringField(j, path, "measured_at", c.measuredAt, err) &&
         readOptionalStringField(j, path, "host", c.host, err);
}

bool entryFromJson(const json &j, const std::string &path, TuningEntry &e,
                   std::string &err) {
  if (!j.is_object())
    return typeError(path, "an object", j, err);
  const json *key = require(j, path, "key", err);
  if (!key || !keyFromJson(*key, fieldPath(path, "key"), e.key, err))
    return false;
  const std::string candidatesPath = fieldPath(path, "candidates");
  const json *list = require(j, path, "candidates", err);
  if (!list)
    return false;
  if (!list->is_array())
    return typeError(candidatesPath, "an array", *list, err);
  e.candidates.assign(list->size(), TuningCandidate());
  for (size_t i = 0; i < list->size(); ++i)
    if (!candidateFromJson((*list)[i], indexPath(candidatesPath, i),
                           e.candidates[i], err))
      return false;
  return true;
}

bool headerFromJson(const json &j, std::string &err) {
  std::string schema;
  if (!readStringField(j, "", "schema", schema, err))
    return false;
  if (schema != kTuningDbSchema)
    return fieldError("schema",
                      "expected \"" + std::string(kTuningDbSchema) +
                          "\", got " + describe(json(schema)),
                      err);
  const json *version = require(j, "", "version", err);
  if (!version)
    return false;
  if (!version->is_number_integer())
    return typeError("version", "an integer", *version, err);
  if (*version != kTuningDbVersion)
    return fieldError("version",
                      "the database has version " + describe(*version) +
                          ", this reader understands only version " +
                          std::to_string(kTuningDbVersion) + ": skipped",
                      err);
  return true;
}

//===----------------------------------------------------------------------===//
// Merging
//===----------------------------------------------------------------------===//

/// Adds `additions` to `entries` as TuningDb::merge describes. Precondition:
/// `additions` is not `entries`.
void mergeEntries(std::vector<TuningEntry> &entries,
                  const std::vector<TuningEntry> &additions) {
  std::unordered_map<std::string, size_t> index; // canonical key -> entry
  for (size_t i = 0; i < entries.size(); ++i)
    index.emplace(entries[i].key.canonical(), i); // the first one, as find
  // The candidate identities of the entries merged into, built on first use.
  std::unordered_map<size_t, std::unordered_set<std::string>> present;
  for (const TuningEntry &addition : additions) {
    const auto [slot, isNew] =
        index.emplace(addition.key.canonical(), entries.size());
    if (isNew) {
      entries.push_back(addition);
      continue;
    }
    TuningEntry &entry = entries[slot->second];
    const auto [ids, firstUse] = present.try_emplace(slot->second);
    if (firstUse)
      for (const TuningCandidate &c : entry.candidates)
        ids->second.insert(candidateIdentity(c));
    for (const TuningCandidate &c : addition.candidates)
      if (ids->second.insert(candidateIdentity(c)).second)
        entry.candidates.push_back(c);
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// TuningKey, TuningEntry, TuningDb
//===----------------------------------------------------------------------===//

std::string TuningKey::canonical() const {
  return dumpOneLine(keyToJson(*this, normalizeNumbers(op)));
}

bool TuningKey::sameOpAndTarget(const TuningKey &other) const {
  return arch == other.arch &&
         (smCount == 0 || other.smCount == 0 || smCount == other.smCount) &&
         (device.empty() || other.device.empty() || device == other.device) &&
         canonicalText(op) == canonicalText(other.op);
}

bool TuningKey::sameToolchain(const TuningKey &other) const {
  return cudaVersion == other.cudaVersion &&
         emitterVersion == other.emitterVersion;
}

const TuningCandidate *TuningEntry::best() const {
  const TuningCandidate *fastest = nullptr;
  for (const TuningCandidate &c : candidates) {
    if (c.status != RunStatus::Ok || !c.correct || !c.time ||
        c.time->samples <= 0 || !std::isfinite(c.time->medianMs))
      continue;
    if (!fastest || c.time->medianMs < fastest->time->medianMs)
      fastest = &c; // strictly faster: the first of equal ones stays
  }
  return fastest;
}

const TuningEntry *TuningDb::find(const TuningKey &key) const {
  const std::string wanted = key.canonical();
  for (const TuningEntry &e : entries)
    if (e.key.canonical() == wanted)
      return &e;
  return nullptr;
}

void TuningDb::merge(const TuningDb &other) {
  if (&other == this) {
    const TuningDb copy = other;
    mergeEntries(entries, copy.entries);
    return;
  }
  mergeEntries(entries, other.entries);
}

void TuningDb::add(const TuningKey &key, const TuningCandidate &candidate) {
  const std::string wanted = key.canonical();
  for (TuningEntry &e : entries)
    if (e.key.canonical() == wanted) {
      e.candidates.push_back(candidate);
      return;
    }
  entries.push_back(TuningEntry{key, {candidate}});
}

//===----------------------------------------------------------------------===//
// JSON and files
//===----------------------------------------------------------------------===//

nlohmann::json toJson(const TuningDb &db) {
  json entries = json::array();
  for (const TuningEntry &e : db.entries) {
    json candidates = json::array();
    for (const TuningCandidate &c : e.candidates)
      candidates.push_back(candidateToJson(c));
    entries.push_back(
        {{"key", keyToJson(e.key, e.key.op)}, {"candidates", candidates}});
  }
  return {{"schema", kTuningDbSchema},
          {"version", kTuningDbVersion},
          {"entries", std::move(entries)}};
}

bool fromJson(const nlohmann::json &j, TuningDb &db, std::string &err) {
  if (!j.is_object())
    return typeError("(top level)", "an object", j, err);
  if (!headerFromJson(j, err))
    return false;
  const json *list = require(j, "", "entries", err);
  if (!list)
    return false;
  if (!list->is_array())
    return typeError("entries", "an array", *list, err);
  std::vector<TuningEntry> parsed(list->size());
  for (size_t i = 0; i < list->size(); ++i)
    if (!entryFromJson((*list)[i], indexPath("entries", i), parsed[i], err))
      return false;
  // Entries with equal keys (a hand-merged file) are merged into the first.
  TuningDb result;
  mergeEntries(result.entries, parsed);
  db = std::move(result);
  return true;
}

bool readTuningDb(const std::string &path, TuningDb &db, std::string &err) {
  json j;
  if (!readJson(path, j, err)) // names the file
    return false;
  if (fromJson(j, db, err))
    return true;
  err = path + ": " + err;
  return false;
}

bool writeTuningDb(const std::string &path, const TuningDb &db,
                   std::string &err) {
  const json j = toJson(db);
  // Never write what readTuningDb would refuse (an op that is not an object,
  // a negative SM count, ...): every later reader would skip the file.
  TuningDb check;
  std::string why;
  if (!fromJson(j, check, why)) {
    err = path + ": not written, the database is invalid: " + why;
    return false;
  }
  return writeJsonAtomic(path, j, err);
}

} // namespace kgen::rt
