//===- Results.h - benchmark results, versioned JSON ------------*- C++ -*-===//
//
// What the runtime writes and the tuner, reports and regression checks read.
// Schema documented in docs/results-schema.md.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_RESULTS_H
#define KGEN_RUNTIME_RESULTS_H

#include "kgen/runtime/Package.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kgen::rt {

constexpr const char *kResultsSchema = "kgen.results";
/// The version written. Version 1 files (no samples, source hash, machine
/// id, NVRTC or cuBLASLt version) are still read.
constexpr int kResultsVersion = 2;
/// The most timing samples a result keeps (keepSamples thins to this).
constexpr size_t kMaxKeptSamples = 1000;

/// Robust summary of repeated timings (milliseconds).
struct SampleStats {
  double medianMs = 0;
  double q1Ms = 0;   // 25th percentile
  double q3Ms = 0;   // 75th percentile
  double minMs = 0;
  double maxMs = 0;
  int64_t samples = 0;
  double iqrMs() const { return q3Ms - q1Ms; }
};

/// Quartiles by linear interpolation between order statistics (NumPy's
/// default). Precondition: samples non-empty.
SampleStats summarize(std::vector<double> samplesMs);

/// JSON form of SampleStats: the "time" object of results and of the tuning
/// database (docs/results-schema.md), numbers JSON cannot hold written as
/// "inf", "-inf", "nan". fromJson refuses what no measurement gives: times
/// that are not finite, a median, third quartile or maximum <= 0, a
/// minimum or first quartile < 0, times out of order (min <= q1 <= median
/// <= q3 <= max), fewer than 1 sample. Its message starts with "time"
/// (callers prefix where the object sits); `stats` is unchanged on failure.
nlohmann::json toJson(const SampleStats &stats);
bool fromJson(const nlohmann::json &j, SampleStats &stats, std::string &err);

struct DeviceInfo {
  std::string name;            // "NVIDIA H200"
  int smCount = 0;
  int ccMajor = 0, ccMinor = 0;
  int smClockKHz = 0;          // current SM clock when measured
  int memClockKHz = 0;
  int64_t l2Bytes = 0;
  int64_t memoryBytes = 0;
  std::string driverVersion;   // "13.0"
  std::string runtimeVersion;  // CUDA runtime, "13.0"
};

struct Ceilings {
  double copyGBps = 0;         // device-to-device copy, bytes read + written
  double matmulTflops = 0;     // cuBLASLt, see matmulWhat
  std::string matmulWhat;      // "bf16 8192x8192x8192 cuBLASLt"
};

enum class RunStatus { Ok, Wrong, CompileFailed, LaunchFailed, Faulted, TimedOut, Skipped };
const char *runStatusName(RunStatus status); // "ok", "wrong", ...
std::optional<RunStatus> parseRunStatus(const std::string &name);

/// One kernel (or one baseline) measured.
struct KernelResult {
  std::string name;
  std::string implementation;  // "kgen", "cublaslt", "torch", "triton"
  nlohmann::json op;           // the package's op signature
  nlohmann::json config;       // the package's strategy (null for baselines)
  RunStatus status = RunStatus::Skipped;
  std::string reason;          // why, when status != ok
  std::optional<SampleStats> time;
  double relError = -1;        // relative Frobenius error vs the reference (-1: not checked)
  double tflops = 0, gbps = 0;
  double fractionOfMatmulCeiling = 0, fractionOfCopyCeiling = 0;
  std::optional<ResourceUsage> resources;
  std::string baseline;        // name of the baseline result measured beside it
  double speedupOverBaseline = 0; // baseline median / this median
  /// Every timing sample (ms per launch) behind `time`, in the order
  /// measured, at most kMaxKeptSamples (version 2; empty when not kept).
  std::vector<double> samplesMs;
  std::string sourceSha256;    // the package's generated source (version 2)
  /// The SM clock (MHz, NVML) read right before and right after the timed
  /// loop; 0: not read (no NVML, or not timed).
  int smClockMHzBefore = 0, smClockMHzAfter = 0;
  /// NVML's clock event (throttle) reasons seen at either read, by name
  /// (decodeThrottleReasons), in kThrottleReasons' order; nullopt: not read.
  std::optional<std::vector<std::string>> throttleReasons;
};

/// NVML's clock event reasons (nvmlClocksEventReason*, formerly
/// nvmlClocksThrottleReason*, nvml.h): the bit of each and the name results
/// use for it.
struct ThrottleReason {
  uint64_t bit;
  const char *name;
};
constexpr ThrottleReason kThrottleReasons[] = {
    {0x1, "gpu_idle"},
    {0x2, "applications_clocks_setting"},
    {0x4, "sw_power_cap"},
    {0x8, "hw_slowdown"},
    {0x10, "sync_boost"},
    {0x20, "sw_thermal_slowdown"},
    {0x40, "hw_thermal_slowdown"},
    {0x80, "hw_power_brake_slowdown"},
    {0x100, "display_clock_setting"},
};

/// The names of the reasons set in an NVML reasons bitmask, in
/// kThrottleReasons' order; bits NVML may add later are left out.
std::vector<std::string> decodeThrottleReasons(uint64_t mask);

/// Records the clocks read around a result's timed loop: the SM clocks
/// (MHz, 0 when not read) and the reasons bitmasks, the names of their
/// union (nullopt when neither was read).
void recordLoopClocks(KernelResult &result, unsigned smMHzBefore,
                      unsigned smMHzAfter, std::optional<uint64_t> reasonsBefore,
                      std::optional<uint64_t> reasonsAfter);

/// `samples` thinned to at most kMaxKeptSamples by keeping evenly spaced
/// ones (first and last included), order kept.
std::vector<double> keepSamples(const std::vector<double> &samples);

struct ResultsFile {
  std::string createdAt;       // ISO 8601 UTC
  std::string commit;          // git commit of the sources, if known
  std::string host;
  std::string machineId;       // stable id of the machine (hostMachineId), version 2
  std::string nvrtcVersion;    // NVRTC that compiled the kernels, version 2
  std::string cublasLtVersion; // cuBLASLt of the baselines, version 2
  DeviceInfo device;
  std::optional<Ceilings> ceilings;
  std::vector<KernelResult> results;
};

/// Writes a reason longer than 1 MiB cut to that, saying so.
nlohmann::json toJson(const ResultsFile &file);
/// Validates schema, version, field types and values: times as SampleStats'
/// fromJson; rates, fractions of ceilings, speed-ups and ceilings finite
/// and >= 0 (0: not known); rel_error >= 0, "inf" or "nan"; device fields
/// in range (0 where there was no device); strings of at most 64 KiB, a
/// reason of at most 1 MiB. False with a one-line message naming the field
/// otherwise.
bool fromJson(const nlohmann::json &j, ResultsFile &file, std::string &err);

/// Serialises and writes `j` to `path` atomically (temporary file in the same
/// folder, fsync, rename): readers see the old file or the new one, never a
/// part. False with a message on failure, the old file intact.
bool writeJsonAtomic(const std::string &path, const nlohmann::json &j,
                     std::string &err);
/// Reads and parses a JSON file; false with a message naming the file on a
/// missing file, one that is not a regular file (a FIFO, a device, a
/// folder), one larger than kMaxJsonFileBytes, nesting deeper than
/// kMaxJsonDepth (JsonLimits.h) or a parse error (never throws).
bool readJson(const std::string &path, nlohmann::json &j, std::string &err);

bool writeResults(const std::string &path, const ResultsFile &file, std::string &err);
bool readResults(const std::string &path, ResultsFile &file, std::string &err);

/// A stable id of this machine: $KGEN_MACHINE_ID when set, else the first
/// 16 hex digits of the SHA-256 of /etc/machine-id (or
/// /var/lib/dbus/machine-id), so the id itself is not disclosed; "" when
/// neither exists.
std::string hostMachineId();

/// Current UTC time as "2026-11-29T15:41:56Z".
std::string utcNow();

} // namespace kgen::rt

#endif // KGEN_RUNTIME_RESULTS_H
