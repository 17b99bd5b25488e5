//===- PackageChild.cpp - verify and time one gemm package (in a child) ---===//
//
// Order of work, so that whatever a faulting kernel destroys was already
// reported: inputs and copies, the reference (cuBLASLt f32 + the NVRTC
// epilogue, spot-checked against the host's double-precision mirror), the
// cuBLASLt baseline (checked against the reference, timed, reported), and
// last the package's kernel (checked run on NaN-poisoned outputs, compared,
// timed only when right, compared again after timing, reported).
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/cuda/Bench.h"

#include "kgen/runtime/cuda/Device.h"
#include "kgen/runtime/cuda/GemmLt.h"
#include "kgen/runtime/cuda/Kernel.h"
#include "kgen/runtime/cuda/Reference.h"
#include "kgen/runtime/cuda/Session.h"

#include <algorithm>
#include <cstdio>

namespace kgen::rt {

namespace {

/// Fraction of the free device memory the tensor copies may take; the rest
/// is for the reference's buffers, cuBLASLt and the context.
constexpr double kRotationMemoryFraction = 0.6;
constexpr uint64_t kSpotCheckSalt = 0x5350;

uint64_t mixSeed(uint64_t seed, uint64_t salt) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ull * (salt + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

size_t tensorBytes(const KernelParam &param) {
  size_t count = 1;
  for (int64_t d : param.shape)
    count *= static_cast<size_t>(d);
  return count * elemTypeBytes(param.dtype);
}

class PackageRun {
public:
  PackageRun(const PreparedPackage &prepared, const BenchOptions &options,
             CudaSession &session, int fd)
      : p_(prepared), pkg_(prepared.pkg), spec_(prepared.spec), o_(options),
        s_(session), fd_(fd),
        tolerance_(gemmTolerance(prepared.spec, prepared.tf32)),
        baselineProblem_(baselineProblem(prepared.spec, prepared.tf32, omitted_)) {}

  int run();

private:
  size_t param(const char *name) const { return *pkg_.findParam(name); }
  bool has(const char *name) const { return pkg_.findParam(name).has_value(); }
  void *slot(const char *name, int set) const {
    return arenas_[param(name)].slot(set);
  }
  void *slotIf(const char *name, int set) const {
    return has(name) ? slot(name, set) : nullptr;
  }
  std::string baselineName() const {
    return "cublaslt/" + pkg_.name +
           (omitted_.empty() ? "" : " (without " + omitted_ + ")");
  }

  bool allocate(std::string &err);
  bool computeReference(std::string &err);
  void checkReference(const HostTensor &reference);
  KernelResult runBaseline();
  KernelResult runKernel();
  bool judgeOutput(const void *device, ElemType type, KernelResult &result);
  void emit(const KernelResult &result);

  const PreparedPackage &p_;
  const KernelPackage &pkg_;
  const GemmSpec &spec_;
  const BenchOptions &o_;
  CudaSession &s_;
  const int fd_;
  const double tolerance_;
  std::string omitted_; // what the baseline leaves out; set before baselineProblem_
  const LtProblem baselineProblem_;

  std::vector<HostTensor> host_; // per parameter: host copy of read tensors
  std::vector<Arena> arenas_;    // per parameter: copies of tensors
  Arena baselineD_;              // the baseline's outputs
  int sets_ = 1;
  HostTensor reference_;         // D as the reference computes it
  std::string referenceProblem_; // non-empty: the reference failed its check
};

bool PackageRun::allocate(std::string &err) {
  const size_t dBytes = tensorBytes(pkg_.params[param("D")]);
  const size_t baselineBytes =
      dBytes / elemTypeBytes(spec_.d) * elemTypeBytes(baselineProblem_.out);
  int64_t setBytes = static_cast<int64_t>(alignUp(baselineBytes, kSlotAlignment));
  for (const KernelParam &param : pkg_.params)
    if (param.kind == ParamKind::Tensor)
      setBytes += static_cast<int64_t>(alignUp(tensorBytes(param), kSlotAlignment));
  int64_t freeBytes = 0;
  if (!s_.freeBytes(freeBytes, err))
    return false;
  sets_ = rotationSets(setBytes, s_.device().l2Bytes,
                       static_cast<int64_t>(kRotationMemoryFraction * freeBytes));

  host_.resize(pkg_.params.size());
  arenas_.resize(pkg_.params.size());
  for (size_t i = 0; i < pkg_.params.size(); ++i) {
    const KernelParam &param = pkg_.params[i];
    if (param.kind != ParamKind::Tensor)
      continue;
    Arena &arena = arenas_[i];
    if (!allocateArena(tensorBytes(param), sets_, arena, err))
      return false;
    if (param.role == ParamRole::Output || param.role == ParamRole::Workspace) {
      // All-ones bytes are NaN in every float type kgen writes: a kernel
      // reading a workspace element no kernel before it wrote shows.
      KGEN_CUDA_TRY(cudaMemset(arena.slot(0), 0xFF, arena.tensorBytes), err);
    } else {
      host_[i] = makeRandom(param.dtype, param.shape, mixSeed(o_.seed, i));
      if (!upload(host_[i], arena.slot(0), err))
        return false;
    }
    if (!replicateSlotZero(arena, err))
      return false;
  }
  if (!allocateArena(baselineBytes, sets_, baselineD_, err))
    return false;
  KGEN_CUDA_TRY(cudaMemset(baselineD_.slot(0), 0xFF, baselineBytes), err);
  return settle(err);
}

bool PackageRun::computeReference(std::string &err) {
  // fp8 operands are read from exact bf16 copies.
  DeviceBuffer a16, b16;
  const void *a = slot("A", 0);
  const void *b = slot("B", 0);
  if (spec_.a == ElemType::F8E4M3FN) {
    const HostTensor a16Host = f8ToBf16(host_[param("A")]);
    const HostTensor b16Host = f8ToBf16(host_[param("B")]);
    if (!a16.allocate(a16Host.data.size(), err) ||
        !upload(a16Host, a16.get(), err) ||
        !b16.allocate(b16Host.data.size(), err) ||
        !upload(b16Host, b16.get(), err) || !settle(err))
      return false;
    a = a16.get();
    b = b16.get();
  }
  const int64_t elements = spec_.batch * spec_.m * spec_.n;
  DeviceBuffer acc, out;
  LtPlan plan;
  LoadedKernel epilogue;
  if (!acc.allocate(static_cast<size_t>(elements) * sizeof(float), err) ||
      !out.allocate(static_cast<size_t>(elements) * elemTypeBytes(spec_.d), err) ||
      !plan.create(s_.lt(), referenceProblem(spec_), s_.workspaceBytes(), nullptr,
                   err) ||
      !plan.run(a, b, nullptr, acc.get(), nullptr, s_.workspace(), s_.stream(),
                err) ||
      !epilogue.load(p_.epilogue.cubin, kEpilogueEntry, epilogueLaunch(elements),
                     err) ||
      !launchEpilogue(epilogue, spec_, static_cast<const float *>(acc.get()),
                      slotIf("C", 0), slotIf("bias", 0), out.get(), s_.stream(),
                      err) ||
      !s_.sync("the reference", err))
    return false;
  reference_ = makeZeros(spec_.d, pkg_.params[param("D")].shape);
  if (!download(out.get(), reference_, err))
    return false;
  checkReference(reference_);
  return true;
}

void PackageRun::checkReference(const HostTensor &reference) {
  const HostView a{&host_[param("A")], 0}, b{&host_[param("B")], 0};
  HostView c, bias;
  if (spec_.c)
    c = {&host_[param("C")], 0};
  if (spec_.bias)
    bias = {&host_[param("bias")], 0};
  const std::vector<int64_t> indices =
      sampleIndices(reference.numElements(), kSpotCheckElements,
                    mixSeed(o_.seed, kSpotCheckSalt));
  const HostTensor expected = gemmExpected(spec_, a, b, spec_.c ? &c : nullptr,
                                           spec_.bias ? &bias : nullptr, indices);
  KernelResult check = newResult("reference", "cublaslt", pkg_.op);
  if (!judge(gatherElements(reference, indices), expected, tolerance_, check))
    referenceProblem_ = check.reason;
}

KernelResult PackageRun::runBaseline() {
  KernelResult result = newResult(baselineName(), "cublaslt", pkg_.op);
  if (!referenceProblem_.empty()) {
    result.status = RunStatus::Wrong;
    result.reason = "the cuBLASLt reference disagrees with the host's "
                    "double-precision spot check: " + referenceProblem_;
    return result;
  }
  std::string err;
  LtPlan plan;
  if (!plan.create(s_.lt(), baselineProblem_, s_.workspaceBytes(),
                   slotIf("bias", 0), err)) {
    result.reason = err; // skipped: cuBLASLt does not do this problem
    return result;
  }
  const LaunchFn launch = [&](int set, cudaStream_t stream, std::string &e) {
    return plan.run(slot("A", set), slot("B", set), slotIf("C", set),
                    baselineD_.slot(set), slotIf("bias", set), s_.workspace(),
                    stream, e);
  };
  if (!launch(0, s_.stream(), err) || !s_.sync("the baseline's checked run", err)) {
    markFailed(result, err);
    return result;
  }
  // A baseline without part of the epilogue computes another function.
  if (omitted_.empty() &&
      !judgeOutput(baselineD_.slot(0), baselineProblem_.out, result))
    return result;
  timeResult(launch, sets_, s_.stream(), o_, pkg_.flops, pkg_.bytes, result);
  return result;
}

KernelResult PackageRun::runKernel() {
  KernelResult result = newResult(pkg_.name, "kgen", pkg_.op, pkg_.config);
  result.resources = p_.kernel.resources;
  result.baseline = baselineName();
  if (!referenceProblem_.empty()) {
    result.reason = "not judged: the reference failed its host spot check";
    return result;
  }
  std::string err;
  // The package's kernels, launched in order on one stream: one timed
  // launch is the whole sequence.
  const size_t count = pkg_.kernels.size();
  std::vector<LoadedKernel> kernels(count);
  for (size_t k = 0; k < count; ++k)
    if (!kernels[k].load(p_.kernel.cubin, pkg_.kernels[k].entry,
                         pkg_.kernels[k].launch, err)) {
      markFailed(result, "loading the cubin: " + err);
      return result;
    }
  // args[set][k]: kernel k's arguments over copy `set` of the tensors.
  std::vector<std::vector<KernelArgs>> args(static_cast<size_t>(sets_));
  for (int set = 0; set < sets_; ++set) {
    std::vector<void *> tensors(pkg_.params.size(), nullptr);
    for (size_t i = 0; i < pkg_.params.size(); ++i)
      if (pkg_.params[i].kind == ParamKind::Tensor)
        tensors[i] = arenas_[i].slot(set);
    std::vector<KernelArgs> &setArgs = args[static_cast<size_t>(set)];
    setArgs.resize(count);
    for (size_t k = 0; k < count; ++k)
      if (!setArgs[k].build(pkg_, pkg_.kernels[k], tensors, err)) {
        markFailed(result, "kernel arguments of " + pkg_.kernels[k].entry +
                               ": " + err);
        return result;
      }
  }
  const LaunchFn launch = [&](int set, cudaStream_t stream, std::string &e) {
    std::vector<KernelArgs> &setArgs = args[static_cast<size_t>(set)];
    for (size_t k = 0; k < count; ++k)
      if (!kernels[k].launch(setArgs[k].data(), stream, e))
        return false;
    return true;
  };
  if (!launch(0, s_.stream(), err) || !s_.sync("the checked run", err)) {
    markFailed(result, err);
    return result;
  }
  if (!judgeOutput(slot("D", 0), spec_.d, result))
    return result;
  if (!timeResult(launch, sets_, s_.stream(), o_, pkg_.flops, pkg_.bytes, result))
    return result;
  // Copy 0 was rewritten by timed launches from the same inputs; a change
  // means a race or a read of unwritten memory. Inout tensors evolve.
  const bool hasInout = std::any_of(pkg_.params.begin(), pkg_.params.end(),
                                    [](const KernelParam &param) {
                                      return param.kind == ParamKind::Tensor &&
                                             param.role == ParamRole::InOut;
                                    });
  if (!hasInout && !judgeOutput(slot("D", 0), spec_.d, result)) {
    result.reason = "after the timed runs: " + result.reason;
    result.time.reset();
    result.tflops = result.gbps = 0;
    result.fractionOfMatmulCeiling = result.fractionOfCopyCeiling = 0;
  }
  return result;
}

bool PackageRun::judgeOutput(const void *device, ElemType type,
                             KernelResult &result) {
  std::string err;
  HostTensor got = makeZeros(type, reference_.shape);
  if (!download(device, got, err)) {
    markFailed(result, err);
    return false;
  }
  return judge(got, reference_, tolerance_, result);
}

void PackageRun::emit(const KernelResult &result) {
  s_.refreshClocks();
  std::fprintf(stderr, "kgen-bench:   %s %s: %s%s%s\n",
               result.implementation.c_str(), result.name.c_str(),
               runStatusName(result.status), result.reason.empty() ? "" : ": ",
               result.reason.c_str());
  if (!emitFragment(fd_, makeFragment(s_.device(), {result})))
    std::fprintf(stderr, "kgen-bench: cannot write to the parent\n");
}

int PackageRun::run() {
  std::string err;
  if (!allocate(err) || !computeReference(err)) {
    KernelResult baseline = newResult(baselineName(), "cublaslt", pkg_.op);
    markFailed(baseline, "setting up: " + err);
    KernelResult kernel = newResult(pkg_.name, "kgen", pkg_.op, pkg_.config);
    kernel.status = baseline.status;
    kernel.reason = baseline.reason;
    kernel.baseline = baseline.name;
    emit(baseline);
    emit(kernel);
    return 1;
  }
  const KernelResult baseline = runBaseline();
  emit(baseline);
  const KernelResult kernel = runKernel();
  emit(kernel);
  return kernel.status == RunStatus::Faulted ? 1 : 0;
}

} // namespace

int packageChild(const PreparedPackage &prepared, const BenchOptions &options,
                 int fd) {
  CudaSession session;
  std::string err;
  if (!session.open(err)) {
    const KernelPackage &pkg = prepared.pkg;
    KernelResult kernel = newResult(pkg.name, "kgen", pkg.op, pkg.config);
    kernel.status = RunStatus::LaunchFailed;
    kernel.reason = "opening the device: " + err;
    KernelResult baseline = newResult("cublaslt/" + pkg.name, "cublaslt", pkg.op);
    baseline.status = kernel.status;
    baseline.reason = kernel.reason;
    emitFragment(fd, makeFragment(DeviceInfo{}, {baseline, kernel}));
    return 1;
  }
  return PackageRun(prepared, options, session, fd).run();
}

} // namespace kgen::rt
