//===- Results.cpp - benchmark results, versioned JSON --------------------===//
//
// Schema: docs/results-schema.md. Times are in milliseconds. Optional
// objects are written as null; numbers JSON cannot hold (inf, nan) are
// written as the strings "inf", "-inf", "nan".
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/Results.h"

#include "JsonRead.h"
#include "kgen/runtime/FileUtil.h"
#include "kgen/runtime/JsonLimits.h"
#include "kgen/runtime/Sha256.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <iterator>
#include <limits>

namespace kgen::rt {
namespace {

using namespace jsonread;

constexpr int64_t kMaxInt64 = std::numeric_limits<int64_t>::max();

// What a result's fields may hold (docs/results-schema.md): anything else
// is a corrupt or forged file, refused with the field's path.
constexpr int64_t kMaxSamples = 1000000000;
constexpr int64_t kMaxSmCount = 4096;
constexpr int64_t kMaxComputeCapability = 99;    // major and minor
constexpr int64_t kMaxClockKHz = 100000000;      // 100 GHz
constexpr int64_t kMaxClockMHz = kMaxClockKHz / 1000;
constexpr int64_t kMaxDeviceBytes = int64_t{1} << 50; // 1 PiB
constexpr size_t kMaxNameBytes = size_t{64} << 10; // names, versions, dates
constexpr size_t kMaxReasonBytes = size_t{1} << 20; // a compile log (cut when written)

struct StatusName {
  RunStatus status;
  const char *name;
};

constexpr StatusName kStatusNames[] = {
    {RunStatus::Ok, "ok"},
    {RunStatus::Wrong, "wrong"},
    {RunStatus::CompileFailed, "compile_failed"},
    {RunStatus::LaunchFailed, "launch_failed"},
    {RunStatus::Faulted, "faulted"},
    {RunStatus::TimedOut, "timed_out"},
    {RunStatus::Skipped, "skipped"},
};

/// NumPy's linear interpolation between a and b at t in [0, 1] (numpy
/// _lerp), which is exact at both ends.
double lerp(double a, double b, double t) {
  const double diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

/// The q-th percentile (q in [0, 100]) of sorted, non-empty `x`, as
/// numpy.percentile(x, q) with method="linear".
double percentile(const std::vector<double> &x, double q) {
  const double index = q / 100 * static_cast<double>(x.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(index));
  const size_t above = std::min(below + 1, x.size() - 1);
  return lerp(x[below], x[above], index - static_cast<double>(below));
}

//===----------------------------------------------------------------------===//
// Numbers that may not be finite
//===----------------------------------------------------------------------===//

json realToJson(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  return v;
}

/// A number, or one of the strings realToJson writes.
bool readReal(const json &j, const std::string &path, double &out,
              std::string &err) {
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    constexpr double kInf = std::numeric_limits<double>::infinity();
    if (s == "inf" || s == "-inf" || s == "nan") {
      out = s == "nan" ? std::numeric_limits<double>::quiet_NaN()
                       : s == "inf" ? kInf : -kInf;
      return true;
    }
  }
  if (!j.is_number())
    return typeError(path, "a number (or \"inf\", \"-inf\", \"nan\")", j, err);
  out = j.get<double>();
  return true;
}

//===----------------------------------------------------------------------===//
// Field readers over one object (messages start with the field path)
//===----------------------------------------------------------------------===//

/// Reads the members of one JSON object, keeping the first error. Every
/// reader returns the reader's state so far: false once anything failed.
class ObjectReader {
public:
  ObjectReader(const json &obj, std::string path, std::string &err)
      : obj(obj), path(std::move(path)), err(err) {
    if (!obj.is_object())
      ok = typeError(this->path.empty() ? "(top level)" : this->path,
                     "an object", obj, err);
  }

  /// A string of at most `maxBytes` bytes.
  bool string(const char *key, std::string &out,
              size_t maxBytes = kMaxNameBytes) {
    const json *j = get(key);
    if (!j || !(ok = readString(*j, fieldPath(path, key), out, err)))
      return false;
    if (out.size() > maxBytes)
      ok = fieldError(fieldPath(path, key),
                      "is longer than " + std::to_string(maxBytes) + " bytes",
                      err);
    return ok;
  }
  /// A string that may be null or absent (read as "").
  bool optionalString(const char *key, std::string &out,
                      size_t maxBytes = kMaxNameBytes) {
    out.clear();
    return ok && (isAbsent(obj, key) || string(key, out, maxBytes));
  }
  bool real(const char *key, double &out) {
    const json *j = get(key);
    return j && (ok = readReal(*j, fieldPath(path, key), out, err));
  }
  /// A finite number >= 0 (or > 0 when `positive`).
  bool amount(const char *key, double &out, bool positive = false) {
    if (!real(key, out))
      return false;
    if (std::isfinite(out) && (positive ? out > 0 : out >= 0))
      return true;
    return ok = fieldError(fieldPath(path, key),
                           std::string("expected a finite number ") +
                               (positive ? "> 0" : ">= 0") + ", got " +
                               describe(realToJson(out)),
                           err);
  }
  /// An integer in [lo, hi].
  template <typename T>
  bool integer(const char *key, int64_t lo, int64_t hi, T &out) {
    const json *j = get(key);
    return j && (ok = readIntAs(*j, fieldPath(path, key), lo, hi, out, err));
  }
  /// Any JSON value; absent reads as null.
  bool any(const char *key, json &out) {
    const json *j = ok ? member(obj, key) : nullptr;
    out = j ? *j : json();
    return ok;
  }
  /// True when the reader is fine and `key` holds a non-null value.
  bool present(const char *key) const { return ok && !isAbsent(obj, key); }
  const json &at(const char *key) const { return *member(obj, key); }
  /// The path of member `key`; "" gives the object's own path plus '.'.
  std::string pathOf(const char *key) const {
    return *key ? fieldPath(path, key) : path + ".";
  }
  bool good() const { return ok; }

private:
  const json *get(const char *key) {
    if (!ok)
      return nullptr;
    const json *j = require(obj, path, key, err);
    ok = j != nullptr;
    return j;
  }

  const json &obj;
  std::string path;
  std::string &err;
  bool ok = true;
};

//===----------------------------------------------------------------------===//
// Conversions of the parts
//===----------------------------------------------------------------------===//

json statsToJson(const SampleStats &s) {
  return {{"median_ms", realToJson(s.medianMs)},
          {"q1_ms", realToJson(s.q1Ms)},
          {"q3_ms", realToJson(s.q3Ms)},
          {"min_ms", realToJson(s.minMs)},
          {"max_ms", realToJson(s.maxMs)},
          {"samples", s.samples}};
}

/// Times are finite, the median and above positive (a minimum or a first
/// quartile may round to 0 ms), and in order; at least one sample.
bool statsFromJson(const json &j, const std::string &path, SampleStats &s,
                   std::string &err) {
  ObjectReader r(j, path, err);
  if (!r.amount("median_ms", s.medianMs, /*positive=*/true) ||
      !r.amount("q1_ms", s.q1Ms) || !r.amount("q3_ms", s.q3Ms, true) ||
      !r.amount("min_ms", s.minMs) || !r.amount("max_ms", s.maxMs, true) ||
      !r.integer("samples", 1, kMaxSamples, s.samples))
    return false;
  const std::pair<const char *, double> order[] = {{"min_ms", s.minMs},
                                                   {"q1_ms", s.q1Ms},
                                                   {"median_ms", s.medianMs},
                                                   {"q3_ms", s.q3Ms},
                                                   {"max_ms", s.maxMs}};
  for (size_t i = 1; i < std::size(order); ++i)
    if (order[i].second < order[i - 1].second)
      return fieldError(path,
                        std::string("expected min_ms <= q1_ms <= median_ms <= "
                                    "q3_ms <= max_ms, but ") +
                            order[i].first + " " +
                            dumpOneLine(json(order[i].second)) + " < " +
                            order[i - 1].first + " " +
                            dumpOneLine(json(order[i - 1].second)),
                        err);
  return true;
}

json deviceToJson(const DeviceInfo &d) {
  return {{"name", d.name},
          {"sm_count", d.smCount},
          {"cc_major", d.ccMajor},
          {"cc_minor", d.ccMinor},
          {"sm_clock_khz", d.smClockKHz},
          {"mem_clock_khz", d.memClockKHz},
          {"l2_bytes", d.l2Bytes},
          {"memory_bytes", d.memoryBytes},
          {"driver_version", d.driverVersion},
          {"runtime_version", d.runtimeVersion}};
}

bool deviceFromJson(const json &j, DeviceInfo &d, std::string &err) {
  // Zeros where no device was there (compile-only results).
  ObjectReader r(j, "device", err);
  return r.string("name", d.name) &&
         r.integer("sm_count", 0, kMaxSmCount, d.smCount) &&
         r.integer("cc_major", 0, kMaxComputeCapability, d.ccMajor) &&
         r.integer("cc_minor", 0, kMaxComputeCapability, d.ccMinor) &&
         r.integer("sm_clock_khz", 0, kMaxClockKHz, d.smClockKHz) &&
         r.integer("mem_clock_khz", 0, kMaxClockKHz, d.memClockKHz) &&
         r.integer("l2_bytes", 0, kMaxDeviceBytes, d.l2Bytes) &&
         r.integer("memory_bytes", 0, kMaxDeviceBytes, d.memoryBytes) &&
         r.string("driver_version", d.driverVersion) &&
         r.string("runtime_version", d.runtimeVersion);
}

json ceilingsToJson(const Ceilings &c) {
  return {{"copy_gbps", realToJson(c.copyGBps)},
          {"matmul_tflops", realToJson(c.matmulTflops)},
          {"matmul_what", c.matmulWhat}};
}

bool ceilingsFromJson(const json &j, Ceilings &c, std::string &err) {
  // 0: that ceiling was not measured (fractions of it are not computed).
  ObjectReader r(j, "ceilings", err);
  return r.amount("copy_gbps", c.copyGBps) &&
         r.amount("matmul_tflops", c.matmulTflops) &&
         r.string("matmul_what", c.matmulWhat);
}

/// `reason` cut to what readers accept, saying so.
std::string cutReason(const std::string &reason) {
  if (reason.size() <= kMaxReasonBytes)
    return reason;
  const std::string mark = "\n(cut: " + std::to_string(reason.size()) +
                           " bytes in all)";
  return reason.substr(0, kMaxReasonBytes - mark.size()) + mark;
}

json samplesToJson(const std::vector<double> &samples) {
  if (samples.empty())
    return json();
  json out = json::array();
  for (double v : keepSamples(samples))
    out.push_back(realToJson(v));
  return out;
}

/// At most kMaxKeptSamples finite times >= 0.
bool samplesFromJson(ObjectReader &r, std::vector<double> &samples,
                     std::string &err) {
  samples.clear();
  if (!r.present("samples_ms"))
    return r.good();
  const json &list = r.at("samples_ms");
  const std::string path = r.pathOf("samples_ms");
  if (!list.is_array())
    return typeError(path, "an array of times", list, err);
  if (list.size() > kMaxKeptSamples)
    return fieldError(path,
                      "holds " + std::to_string(list.size()) +
                          " samples, more than " +
                          std::to_string(kMaxKeptSamples),
                      err);
  for (size_t i = 0; i < list.size(); ++i) {
    double v = 0;
    if (!readReal(list[i], indexPath(path, i), v, err))
      return false;
    if (!std::isfinite(v) || v < 0)
      return fieldError(indexPath(path, i),
                        "expected a finite time >= 0, got " +
                            describe(realToJson(v)),
                        err);
    samples.push_back(v);
  }
  return true;
}

/// The clocks around the timed loop, written only when read (version 2
/// readers that predate them ignore them).
void loopClocksToJson(const KernelResult &k, json &out) {
  if (k.smClockMHzBefore > 0)
    out["sm_clock_mhz_before"] = k.smClockMHzBefore;
  if (k.smClockMHzAfter > 0)
    out["sm_clock_mhz_after"] = k.smClockMHzAfter;
  if (k.throttleReasons)
    out["throttle_reasons"] = *k.throttleReasons;
}

/// sm_clock_mhz_before and _after (absent, null or 0: not read) and
/// throttle_reasons (absent or null: not read; else known names, each once).
bool loopClocksFromJson(ObjectReader &r, KernelResult &k, std::string &err) {
  k.smClockMHzBefore = k.smClockMHzAfter = 0;
  k.throttleReasons.reset();
  if ((r.present("sm_clock_mhz_before") &&
       !r.integer("sm_clock_mhz_before", 0, kMaxClockMHz, k.smClockMHzBefore)) ||
      (r.present("sm_clock_mhz_after") &&
       !r.integer("sm_clock_mhz_after", 0, kMaxClockMHz, k.smClockMHzAfter)))
    return false;
  if (!r.present("throttle_reasons"))
    return r.good();
  const json &list = r.at("throttle_reasons");
  const std::string path = r.pathOf("throttle_reasons");
  if (!list.is_array())
    return typeError(path, "an array of names", list, err);
  std::vector<std::string> names;
  for (size_t i = 0; i < list.size(); ++i) {
    std::string name;
    if (!readString(list[i], indexPath(path, i), name, err))
      return false;
    const bool known = std::any_of(
        std::begin(kThrottleReasons), std::end(kThrottleReasons),
        [&](const ThrottleReason &t) { return name == t.name; });
    if (!known) {
      std::string expected;
      for (const ThrottleReason &t : kThrottleReasons)
        expected += (expected.empty() ? "" : " ") + std::string(t.name);
      return fieldError(indexPath(path, i),
                        "unknown reason " + describe(json(name)) +
                            " (expected " + expected + ")",
                        err);
    }
    if (std::find(names.begin(), names.end(), name) != names.end())
      return fieldError(indexPath(path, i),
                        "reason " + describe(json(name)) + " given twice", err);
    names.push_back(std::move(name));
  }
  k.throttleReasons = std::move(names);
  return true;
}

json resultToJson(const KernelResult &k) {
  json out = {{"name", k.name},
          {"implementation", k.implementation},
          {"op", k.op},
          {"config", k.config},
          {"status", runStatusName(k.status)},
          {"reason", cutReason(k.reason)},
          {"time", k.time ? statsToJson(*k.time) : json()},
          {"rel_error", k.relError < 0 ? json() : realToJson(k.relError)},
          {"tflops", realToJson(k.tflops)},
          {"gbps", realToJson(k.gbps)},
          {"fraction_of_matmul_ceiling", realToJson(k.fractionOfMatmulCeiling)},
          {"fraction_of_copy_ceiling", realToJson(k.fractionOfCopyCeiling)},
          {"resources", k.resources ? toJson(*k.resources) : json()},
          {"baseline", k.baseline},
          {"speedup_over_baseline", realToJson(k.speedupOverBaseline)},
          {"samples_ms", samplesToJson(k.samplesMs)},
          {"source_sha256", k.sourceSha256}};
  loopClocksToJson(k, out);
  return out;
}

bool statusFromJson(ObjectReader &r, RunStatus &status, std::string &err) {
  std::string name;
  if (!r.string("status", name))
    return false;
  const std::optional<RunStatus> parsed = parseRunStatus(name);
  if (!parsed) {
    std::string known;
    for (const StatusName &s : kStatusNames)
      known += (known.empty() ? "" : " ") + std::string(s.name);
    return fieldError(r.pathOf("status"),
                      "unknown status " + describe(json(name)) + " (expected " +
                          known + ")",
                      err);
  }
  status = *parsed;
  return true;
}

/// The optional members time, rel_error and resources.
bool measurementsFromJson(ObjectReader &r, KernelResult &k, std::string &err) {
  k.time.reset();
  k.resources.reset();
  k.relError = -1;
  if (r.present("time")) {
    SampleStats s;
    if (!statsFromJson(r.at("time"), r.pathOf("time"), s, err))
      return false;
    k.time = s;
  }
  // A wrong result's error may be inf or nan (a NaN in the output).
  if (r.present("rel_error") &&
      (!r.real("rel_error", k.relError) || k.relError < 0))
    return r.good() && fieldError(r.pathOf("rel_error"),
                                  "expected a number >= 0, \"inf\" or "
                                  "\"nan\", got " +
                                      describe(realToJson(k.relError)),
                                  err);
  if (r.present("resources")) {
    ResourceUsage usage;
    if (!fromJson(r.at("resources"), usage, err)) {
      err = r.pathOf("") + err; // err starts with "resources"
      return false;
    }
    k.resources = usage;
  }
  return r.good();
}

bool resultFromJson(const json &j, const std::string &path, KernelResult &k,
                    std::string &err) {
  ObjectReader r(j, path, err);
  return r.string("name", k.name) &&
         r.string("implementation", k.implementation) && r.any("op", k.op) &&
         r.any("config", k.config) && statusFromJson(r, k.status, err) &&
         r.optionalString("reason", k.reason, kMaxReasonBytes) &&
         measurementsFromJson(r, k, err) && r.amount("tflops", k.tflops) &&
         r.amount("gbps", k.gbps) &&
         r.amount("fraction_of_matmul_ceiling", k.fractionOfMatmulCeiling) &&
         r.amount("fraction_of_copy_ceiling", k.fractionOfCopyCeiling) &&
         r.optionalString("baseline", k.baseline) &&
         (!r.present("speedup_over_baseline") ||
          r.amount("speedup_over_baseline", k.speedupOverBaseline)) &&
         samplesFromJson(r, k.samplesMs, err) &&
         r.optionalString("source_sha256", k.sourceSha256) &&
         loopClocksFromJson(r, k, err);
}

bool headerFromJson(ObjectReader &r, std::string &err) {
  std::string schema;
  int64_t version;
  if (!r.string("schema", schema))
    return false;
  if (schema != kResultsSchema)
    return fieldError("schema",
                      "expected \"" + std::string(kResultsSchema) +
                          "\", got " + describe(json(schema)),
                      err);
  if (!r.integer("version", 0, kMaxInt64, version))
    return false;
  if (version != kResultsVersion && version != 1)
    return fieldError("version",
                      "expected 1 or " + std::to_string(kResultsVersion) +
                          " (what this reader understands), got " +
                          std::to_string(version),
                      err);
  return true;
}

bool resultsFromJson(const json &j, std::vector<KernelResult> &results,
                     std::string &err) {
  const json *list = require(j, "", "results", err);
  if (!list)
    return false;
  if (!list->is_array())
    return typeError("results", "an array", *list, err);
  std::vector<KernelResult> parsed(list->size());
  for (size_t i = 0; i < list->size(); ++i)
    if (!resultFromJson((*list)[i], indexPath("results", i), parsed[i], err))
      return false;
  results = std::move(parsed);
  return true;
}

} // namespace

SampleStats summarize(std::vector<double> samplesMs) {
  SampleStats s;
  s.samples = static_cast<int64_t>(samplesMs.size());
  if (samplesMs.empty())
    return s;
  if (std::any_of(samplesMs.begin(), samplesMs.end(),
                  [](double v) { return std::isnan(v); })) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    s.medianMs = s.q1Ms = s.q3Ms = s.minMs = s.maxMs = nan; // as NumPy
    return s;
  }
  std::sort(samplesMs.begin(), samplesMs.end());
  s.minMs = samplesMs.front();
  s.maxMs = samplesMs.back();
  s.q1Ms = percentile(samplesMs, 25);
  s.medianMs = percentile(samplesMs, 50);
  s.q3Ms = percentile(samplesMs, 75);
  return s;
}

std::vector<double> keepSamples(const std::vector<double> &samples) {
  const size_t n = samples.size();
  if (n <= kMaxKeptSamples)
    return samples;
  std::vector<double> kept;
  kept.reserve(kMaxKeptSamples);
  for (size_t i = 0; i < kMaxKeptSamples; ++i)
    kept.push_back(samples[i * (n - 1) / (kMaxKeptSamples - 1)]);
  return kept;
}

std::vector<std::string> decodeThrottleReasons(uint64_t mask) {
  std::vector<std::string> names;
  for (const ThrottleReason &t : kThrottleReasons)
    if (mask & t.bit)
      names.emplace_back(t.name);
  return names;
}

void recordLoopClocks(KernelResult &result, unsigned smMHzBefore,
                      unsigned smMHzAfter, std::optional<uint64_t> reasonsBefore,
                      std::optional<uint64_t> reasonsAfter) {
  auto clamp = [](unsigned mhz) {
    return static_cast<int>(std::min<int64_t>(mhz, kMaxClockMHz));
  };
  result.smClockMHzBefore = clamp(smMHzBefore);
  result.smClockMHzAfter = clamp(smMHzAfter);
  result.throttleReasons.reset();
  if (reasonsBefore || reasonsAfter)
    result.throttleReasons =
        decodeThrottleReasons(reasonsBefore.value_or(0) | reasonsAfter.value_or(0));
}

json toJson(const SampleStats &stats) { return statsToJson(stats); }

bool fromJson(const json &j, SampleStats &stats, std::string &err) {
  SampleStats parsed;
  if (!statsFromJson(j, "time", parsed, err))
    return false;
  stats = parsed;
  return true;
}

const char *runStatusName(RunStatus status) {
  for (const StatusName &s : kStatusNames)
    if (s.status == status)
      return s.name;
  return "unknown";
}

std::optional<RunStatus> parseRunStatus(const std::string &name) {
  for (const StatusName &s : kStatusNames)
    if (name == s.name)
      return s.status;
  return std::nullopt;
}

json toJson(const ResultsFile &file) {
  json results = json::array();
  for (const KernelResult &k : file.results)
    results.push_back(resultToJson(k));
  return {{"schema", kResultsSchema},
          {"version", kResultsVersion},
          {"created_at", file.createdAt},
          {"commit", file.commit},
          {"host", file.host},
          {"machine_id", file.machineId},
          {"nvrtc_version", file.nvrtcVersion},
          {"cublaslt_version", file.cublasLtVersion},
          {"device", deviceToJson(file.device)},
          {"ceilings", file.ceilings ? ceilingsToJson(*file.ceilings) : json()},
          {"results", std::move(results)}};
}

bool fromJson(const json &j, ResultsFile &file, std::string &err) {
  ObjectReader r(j, "", err);
  ResultsFile parsed;
  if (!headerFromJson(r, err) || !r.string("created_at", parsed.createdAt) ||
      !r.optionalString("commit", parsed.commit) ||
      !r.optionalString("host", parsed.host) ||
      !r.optionalString("machine_id", parsed.machineId) ||
      !r.optionalString("nvrtc_version", parsed.nvrtcVersion) ||
      !r.optionalString("cublaslt_version", parsed.cublasLtVersion))
    return false;
  const json *device = require(j, "", "device", err);
  if (!device || !deviceFromJson(*device, parsed.device, err))
    return false;
  if (r.present("ceilings")) {
    Ceilings c;
    if (!ceilingsFromJson(r.at("ceilings"), c, err))
      return false;
    parsed.ceilings = c;
  }
  if (!resultsFromJson(j, parsed.results, err))
    return false;
  file = std::move(parsed);
  return true;
}

bool writeJsonAtomic(const std::string &path, const json &j,
                     std::string &err) {
  const std::string text =
      j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  if (writeFileAtomic(path, {text}, err))
    return true;
  err = path + ": " + err;
  return false;
}

bool readJson(const std::string &path, json &j, std::string &err) {
  std::string text;
  if (readWholeFile(path, text, err, kMaxJsonFileBytes) &&
      parseJsonText(text, j, err))
    return true;
  err = path + ": " + err;
  return false;
}

bool writeResults(const std::string &path, const ResultsFile &file,
                  std::string &err) {
  return writeJsonAtomic(path, toJson(file), err);
}

bool readResults(const std::string &path, ResultsFile &file,
                 std::string &err) {
  json j;
  if (!readJson(path, j, err))
    return false;
  if (fromJson(j, file, err))
    return true;
  err = path + ": " + err;
  return false;
}

std::string hostMachineId() {
  if (const char *id = std::getenv("KGEN_MACHINE_ID"); id && *id)
    return std::string(id).substr(0, kMaxNameBytes);
  for (const char *path : {"/etc/machine-id", "/var/lib/dbus/machine-id"}) {
    std::string text, err;
    if (!readWholeFile(path, text, err, 4096))
      continue;
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
      text.pop_back();
    if (!text.empty())
      return sha256Hex(text).substr(0, 16);
  }
  return "";
}

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  char text[32] = "1970-01-01T00:00:00Z";
  if (::gmtime_r(&now, &utc))
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

} // namespace kgen::rt
