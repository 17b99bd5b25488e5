//===- Bench.h - kgen-bench's children: the GPU work ------------*- C++ -*-===//
//
// Each unit of kgen-bench's GPU work (the probe, one group of packages, one
// suite group, the ceilings) runs in a child forked with runIsolated, so a
// faulting or hanging kernel costs only its child; the child reports its
// results as fragments, what the parent reads (ChildReports.h). NVRTC needs
// no GPU, so packages and reference kernels are compiled in the parent
// before forking; children only load cubins.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_CUDA_BENCH_H
#define KGEN_RUNTIME_CUDA_BENCH_H

#include "kgen/runtime/Attention.h"
#include "kgen/runtime/Moe.h"
#include "kgen/runtime/ChildReports.h"
#include "kgen/runtime/Gemm.h"
#include "kgen/runtime/GroupedGemm.h"
#include "kgen/runtime/Nvrtc.h"
#include "kgen/runtime/Package.h"
#include "kgen/runtime/Results.h"
#include "kgen/runtime/Suite.h"
#include "kgen/runtime/Verdict.h"
#include "kgen/runtime/cuda/Timing.h"

#include <cstdint>
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

/// A package ready for its child: loaded, op parsed and checked, its kernel
/// and the reference epilogue compiled. An attention package has
/// `attention` set (spec and tf32 unused; `epilogue` is compiled for a
/// default GemmSpec, for the kgen_count_differences kernel in its cubin).
struct PreparedPackage {
  KernelPackage pkg;
  GemmSpec spec;
  bool tf32 = false;
  std::optional<AttentionSpec> attention;
  std::optional<MoeSpec> moe; // as attention: no baseline, epilogue default
  std::optional<GroupedGemmSpec> groupedGemm; // likewise
  CompileResult kernel;
  CompileResult epilogue;
};

class CudaSession;

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

/// packageGroupChild's work for a group of attention packages, on an open
/// session (cuda/AttentionChild.cpp): no vendor baseline; each package's
/// kernels run once on NaN-poisoned outputs, out and lse are compared with
/// the host's double-precision reference (Attention.h) at query rows drawn
/// from the seed (the first and the last always; at most
/// kSpotCheckElements, fewer for long keys), then timed when right, checked
/// bit for bit against the checked run, and the inputs checked intact.
/// Writes one result per package; returns as packageGroupChild does.
int attentionGroupChild(const std::vector<const PreparedPackage *> &group,
                        const BenchOptions &options, CudaSession &session,
                        int fd);

/// packageGroupChild's work for a group of moe packages, on an open session
/// (cuda/MoeChild.cpp): no vendor baseline; each package's kernels run once
/// on NaN-poisoned outputs and workspaces, y is compared with the host's
/// reference (Moe.h) at moeCheckedTokens and, when the package has the
/// expert_ids workspace, the routing of every token exactly; then timed
/// when right, y checked bit for bit against the checked run, and the
/// inputs checked intact. Writes one result per package; returns as
/// packageGroupChild does.
int moeGroupChild(const std::vector<const PreparedPackage *> &group,
                  const BenchOptions &options, CudaSession &session, int fd);

/// The same for a group of grouped_gemm packages (cuda/GroupedGemmChild.cpp):
/// D compared with the host's reference (GroupedGemm.h) at
/// groupedGemmCheckedRows, and at every row zero where no group covers it
/// and never NaN; then timed when right, D checked bit for bit against the
/// checked run, and the inputs checked intact.
int groupedGemmGroupChild(const std::vector<const PreparedPackage *> &group,
                          const BenchOptions &options, CudaSession &session,
                          int fd);

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
/// baselineResultName of `prepared`, what it leaves out found from its op;
/// "" for an attention, moe or grouped_gemm package (no baseline).
std::string baselineNameFor(const PreparedPackage &prepared);

/// Times cuBLASLt over `shapes` (plain GEMMs), one result line per shape.
int suiteChild(const std::vector<SuiteShape> &shapes,
               const BenchOptions &options, int fd);

/// Measures the copy bandwidth and the bf16 8192^3 cuBLASLt rate; writes
/// one fragment with both results and the Ceilings.
int ceilingsChild(const BenchOptions &options, int fd);

// ------------------------------------------------- shared by the children

/// Marks `result` failed after `err`: faulted when the device now holds a
/// sticky fault (deviceFaulted), else launch_failed; its timing cleared.
void markFailed(KernelResult &result, const std::string &err);

/// Times `launch` over `sets` tensor copies; on success sets the time,
/// status ok and the rates, and logs one line to stderr; on failure marks
/// the result failed.
bool timeResult(const LaunchFn &launch, int sets, cudaStream_t stream,
                const BenchOptions &options, double flops, double bytes,
                KernelResult &result);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_CUDA_BENCH_H
