//===- Bench.h - what kgen-bench runs, in children and in the parent -*- C++ -*-===//
//
// kgen-bench never touches CUDA in its own process: each unit of GPU work
// (the probe, one package, one suite group, the ceilings) runs in a child
// forked with runIsolated, so a faulting or hanging kernel costs only its
// child. NVRTC needs no GPU, so packages and reference kernels are compiled
// in the parent before forking; children only load cubins.
//
// Child -> parent protocol: the child writes one JSON document per line on
// its result fd, each a ResultsFile (schema kgen.results) holding what it
// adds: the device it ran on, results in order, ceilings. Lines written
// before a child dies still count.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_CUDA_BENCH_H
#define KGEN_RUNTIME_CUDA_BENCH_H

#include "kgen/runtime/Isolate.h"
#include "kgen/runtime/Nvrtc.h"
#include "kgen/runtime/Package.h"
#include "kgen/runtime/Results.h"
#include "kgen/runtime/cuda/Gemm.h"
#include "kgen/runtime/cuda/Suite.h"
#include "kgen/runtime/cuda/Timing.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kgen::rt {

/// Exit code of a probe child that found no CUDA device.
constexpr int kNoDeviceExitCode = 3;

/// Elements checked against the host's double-precision mirror.
constexpr int64_t kSpotCheckElements = 128;

struct BenchOptions {
  TimingPolicy timing;
  uint64_t seed = 1;
  double timeoutSeconds = 120;      // per package or per suite shape
  std::optional<Ceilings> ceilings; // for the fractions of ceiling
};

/// A gemm package ready for its child: loaded, op parsed and checked, its
/// kernel and the reference epilogue compiled.
struct PreparedPackage {
  KernelPackage pkg;
  GemmSpec spec;
  bool tf32 = false;
  CompileResult kernel;
  CompileResult epilogue;
};

// ---------------------------------------------------------------- children

/// Probes the device and writes a fragment with its DeviceInfo. Returns 0,
/// kNoDeviceExitCode (the reason written instead of a fragment) or 1 (the
/// reason written).
int probeChild(int fd);

/// Verifies and times packages of one op (equal `pkg.op` and `tf32`, the
/// same tensor parameters: sameTensorParams), in order, over one set of
/// inputs and one reference: for each package writes its cuBLASLt
/// baseline's result, then its kernel's. Returns 0 when every package was
/// judged (whatever the verdicts); 1 after a setup failure (reported for
/// every package, kernels `skipped`), or after a package that faulted, whose
/// baseline faulted (its kernel `skipped`), or that wrote into an input
/// (`wrong`): the packages after it are not run; run them in a new child.
int packageGroupChild(const std::vector<const PreparedPackage *> &group,
                      const BenchOptions &options, int fd);

/// Whether two packages have the same tensor parameters (names, element
/// types, shapes and roles; workspaces aside): what packageGroupChild needs
/// of a group.
bool sameTensorParams(const KernelPackage &a, const KernelPackage &b);

/// packageGroupChild of one package.
int packageChild(const PreparedPackage &prepared, const BenchOptions &options,
                 int fd);

/// The name of a package's cuBLASLt baseline result: "cublaslt/NAME", and
/// " (without silu)" where the baseline leaves part of the epilogue out.
std::string baselineResultName(const std::string &packageName,
                               const std::string &omitted);
/// baselineResultName of `prepared`, what it leaves out found from its op.
std::string baselineNameFor(const PreparedPackage &prepared);

/// Times cuBLASLt over `shapes` (plain GEMMs), one result line per shape.
int suiteChild(const std::vector<SuiteShape> &shapes,
               const BenchOptions &options, int fd);

/// Measures the copy bandwidth and the bf16 8192^3 cuBLASLt rate; writes
/// one fragment with both results and the Ceilings.
int ceilingsChild(const BenchOptions &options, int fd);

// ------------------------------------------------- shared by the children

/// A result for `op` named `name`, status skipped until judged.
KernelResult newResult(const std::string &name, const std::string &implementation,
                       const nlohmann::json &op,
                       const nlohmann::json &config = nullptr);

/// Drops `result`'s time and the rates computed from it: what a result
/// that failed or was found wrong after timing must not carry.
void clearTiming(KernelResult &result);

/// Marks `result` failed after `err`: faulted when the device now holds a
/// sticky fault (deviceFaulted), else launch_failed; its timing cleared.
void markFailed(KernelResult &result, const std::string &err);

/// Marks `result` wrong for `reason`, its timing cleared.
void markWrong(KernelResult &result, const std::string &reason);

/// Judges `got` against `expected` (same shape): sets relError (infinite
/// when an element of `got` is NaN: NaN never passes, or when the two
/// disagree on a non-finite value) and, when it exceeds `tolerance`, status
/// wrong with the reason. True when it passes.
bool judge(const HostTensor &got, const HostTensor &expected, double tolerance,
           KernelResult &result);

/// Times `launch` over `sets` tensor copies; on success sets the time,
/// status ok and the rates, and logs one line to stderr; on failure marks
/// the result failed.
bool timeResult(const LaunchFn &launch, int sets, cudaStream_t stream,
                const BenchOptions &options, double flops, double bytes,
                KernelResult &result);

// ------------------------------------------------------------------ parent

/// Splits a child's output into fragments; false with a message on a line
/// that is not a kgen.results document.
bool parseFragments(const std::string &output, std::vector<ResultsFile> &out,
                    std::string &err);

/// The result to record for `name` when its child ended without reporting
/// it: timed_out when the child ran out of time, faulted otherwise, with
/// the child's fate in the reason.
KernelResult missingResult(const std::string &name,
                           const std::string &implementation,
                           const nlohmann::json &op,
                           const ChildOutcome &outcome);

/// The results a child reported, in order (a line it wrote that is not a
/// results fragment is said on stderr); `device` takes the last device
/// info seen (its clocks are those of the latest measurement).
std::vector<KernelResult> collectResults(const ChildOutcome &outcome,
                                         DeviceInfo &device);

/// What a list child reported for one item of its list.
struct ItemReport {
  std::vector<KernelResult> results; // in the order reported
  bool complete = false;  // its last result came; else the child ended in it
  bool ran = true;        // false: not run (children kept dying silently)
  ChildOutcome child;     // the child it ran in (for what is missing)
};

/// Runs items [0, count) of a list in children, in order, as few as faults
/// allow: `body(from, fd)` runs items [from, count) and reports each item's
/// results as fragments, the item's last result marked by `endsItem`. When a
/// child ends inside an item (a crash, or `timeoutSeconds` since its last
/// report, or an exit after part of the item's results), that item is
/// incomplete and a new child goes on from the next; a child that exits
/// after a complete item (it stops after reporting a fault) is followed by
/// a new child from the item after it. After `silentLimit` children in a
/// row that report nothing, the remaining items get empty, incomplete
/// reports without running. `device` takes the last device info seen. One
/// report per item, in order.
std::vector<ItemReport>
runListInChildren(size_t count,
                  const std::function<int(size_t from, int fd)> &body,
                  const std::function<bool(const KernelResult &)> &endsItem,
                  double timeoutSeconds, DeviceInfo &device,
                  int silentLimit = 2);

/// TFLOP/s and GB/s from the median time and, with ceilings, the fractions
/// of the measured matmul rate and copy bandwidth. No-op without a time.
void fillRates(KernelResult &result, double flops, double bytes,
               const std::optional<Ceilings> &ceilings);

/// Sets result.baseline and, when both have times, the speedup (baseline
/// median / result median).
void linkBaseline(KernelResult &result, const KernelResult &baseline);

/// 0 when every result is ok or skipped, else 1 (kgen-bench's exit codes).
int resultsExitCode(const std::vector<KernelResult> &results);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_CUDA_BENCH_H
