//===- PackageChild.cpp - verify and time gemm packages of one op ---------===//
//
// (Attention packages: AttentionChild.cpp, moe and grouped_gemm packages:
// MoeChild.cpp and GroupedGemmChild.cpp over HostCheckedChild.cpp, reached
// from packageGroupChild.)
//
// One child measures a group of packages of one op (the candidates of a
// search): the CUDA context, the inputs and the reference are made once,
// not per package. Order of work, so that whatever a faulting kernel
// destroys was already reported: inputs and copies, the reference (cuBLASLt
// f32 + the NVRTC epilogue, spot-checked against the host's
// double-precision mirror); then per package: the cuBLASLt baseline
// (checked against the reference the first time, timed again for each
// package: the drift reference of its time), reported; the package's
// kernel (checked run on NaN-poisoned outputs, compared, timed only when
// right, its output after timing bit for bit the checked run's, every copy
// of every input still what the reference read), reported. A fault, or an
// input written, ends the child; the parent goes on with the rest of the
// group in a new one.
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/cuda/Bench.h"

#include "kgen/runtime/cuda/Device.h"
#include "kgen/runtime/cuda/GemmLt.h"
#include "kgen/runtime/cuda/Kernel.h"
#include "kgen/runtime/cuda/PackageLaunch.h"
#include "kgen/runtime/cuda/Reference.h"
#include "kgen/runtime/cuda/Session.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

namespace kgen::rt {

namespace {

/// Fraction of the free device memory the tensor copies may take; the rest
/// is for the reference's buffers, cuBLASLt and the context.
constexpr double kRotationMemoryFraction = 0.6;
constexpr uint64_t kSpotCheckSalt = 0x5350;

size_t tensorBytes(const KernelParam &param) {
  size_t count = 1;
  for (int64_t d : param.shape)
    count *= static_cast<size_t>(d);
  return count * elemTypeBytes(param.dtype);
}

/// The result of a package's kernel that did not run because of what went
/// wrong before it (`why`), beside `baseline`.
KernelResult notRun(const PreparedPackage &p, const KernelResult &baseline,
                    const std::string &why) {
  KernelResult kernel = newResult(p.pkg.name, "kgen", p.pkg.op, p.pkg.config);
  kernel.sourceSha256 = p.pkg.sourceSha256;
  kernel.status = RunStatus::Skipped;
  kernel.reason = "not run: " + why;
  kernel.baseline = baseline.name;
  kernel.resources = p.kernel.resources;
  return kernel;
}

/// Verifies and times the packages of one op (same op, same tf32 use), in
/// order, over one set of inputs and one reference. Per package: the
/// cuBLASLt baseline timed again just before it (the drift reference its
/// time is compared with), then its kernel; both reported before the next.
class GroupRun {
public:
  GroupRun(const std::vector<const PreparedPackage *> &group,
           const BenchOptions &options, CudaSession &session, int fd)
      : group_(group), first_(*group.front()), spec_(first_.spec),
        o_(options), s_(session), fd_(fd),
        tolerance_(gemmTolerance(first_.spec, first_.tf32)),
        baselineProblem_(baselineProblem(first_.spec, first_.tf32, omitted_)) {}

  int run();

private:
  /// The op's tensors (inputs, outputs), shared by every package; a
  /// package's workspaces are its own.
  struct Tensor {
    KernelParam param;
    HostTensor host; // inputs: what the reference read
    Arena arena;
    DeviceBuffer pristine; // inputs: a copy no kernel is given
  };

  const Tensor *tensor(const std::string &name) const {
    auto it = tensors_.find(name);
    return it == tensors_.end() ? nullptr : &it->second;
  }
  void *slot(const char *name, int set) const {
    return tensor(name)->arena.slot(set);
  }
  void *slotIf(const char *name, int set) const {
    const Tensor *t = tensor(name);
    return t != nullptr ? t->arena.slot(set) : nullptr;
  }
  std::string baselineName(const KernelPackage &pkg) const {
    return baselineResultName(pkg.name, omitted_);
  }

  bool allocate(std::string &err);
  bool computeReference(std::string &err);
  void checkReference(const HostTensor &reference);
  bool resetTensors(std::string &err);
  bool inputsIntact(KernelResult &result);
  KernelResult runBaseline(const KernelPackage &pkg);
  KernelResult runKernel(const PreparedPackage &prepared);
  bool judgeOutput(const void *device, ElemType type, KernelResult &result,
                   HostTensor *got = nullptr);
  void emit(const KernelResult &result);

  const std::vector<const PreparedPackage *> &group_;
  const PreparedPackage &first_;
  const GemmSpec &spec_;
  const BenchOptions &o_;
  CudaSession &s_;
  const int fd_;
  const double tolerance_;
  std::string omitted_; // what the baseline leaves out; set before baselineProblem_
  const LtProblem baselineProblem_;

  std::map<std::string, Tensor> tensors_; // by parameter name
  size_t workspaceBytes_ = 0;  // the largest workspace set of a package
  Arena baselineD_;            // the baseline's outputs
  int sets_ = 1;
  HostTensor reference_;         // D as the reference computes it
  std::string referenceProblem_; // non-empty: the reference failed its check
  std::optional<KernelResult> baselineVerdict_; // its first check, if failed
  bool baselineChecked_ = false;
  LoadedKernel differences_;     // kgen_count_differences
  DeviceBuffer differenceCount_; // its counter
};

bool GroupRun::allocate(std::string &err) {
  const KernelPackage &pkg = first_.pkg;
  const size_t dBytes = tensorBytes(pkg.params[*pkg.findParam("D")]);
  const size_t baselineBytes =
      dBytes / elemTypeBytes(spec_.d) * elemTypeBytes(baselineProblem_.out);
  // Bytes per set: the tensors both the kernels and the baseline read
  // (inputs, in-out C), and D, the largest workspace and the baseline's D,
  // which only one of them touches.
  int64_t shared = 0, kernelOnly = 0;
  for (const KernelParam &param : pkg.params) {
    if (param.kind != ParamKind::Tensor || param.role == ParamRole::Workspace)
      continue;
    const auto bytes = static_cast<int64_t>(alignUp(tensorBytes(param), kSlotAlignment));
    (param.role == ParamRole::Output ? kernelOnly : shared) += bytes;
  }
  for (const PreparedPackage *p : group_) {
    size_t workspace = 0;
    for (const KernelParam &param : p->pkg.params)
      if (param.kind == ParamKind::Tensor && param.role == ParamRole::Workspace)
        workspace += alignUp(tensorBytes(param), kSlotAlignment);
    workspaceBytes_ = std::max(workspaceBytes_, workspace);
  }
  kernelOnly += static_cast<int64_t>(workspaceBytes_);
  const auto baselineOnly = static_cast<int64_t>(alignUp(baselineBytes, kSlotAlignment));
  int64_t freeBytes = 0;
  if (!s_.freeBytes(freeBytes, err))
    return false;
  // Enough sets that what one timed launch touches rotates over 3x the L2;
  // as many as fit in the memory budget with everything a set allocates.
  const int64_t touched = shared + std::max(kernelOnly, baselineOnly);
  const int64_t allocated = shared + kernelOnly + baselineOnly;
  const auto budget = static_cast<int64_t>(kRotationMemoryFraction * freeBytes);
  sets_ = rotationSets(touched, s_.device().l2Bytes, budget / allocated * touched);

  for (const KernelParam &param : pkg.params) {
    if (param.kind != ParamKind::Tensor || param.role == ParamRole::Workspace)
      continue;
    Tensor &t = tensors_[param.name];
    t.param = param;
    if (!allocateArena(tensorBytes(param), sets_, t.arena, err))
      return false;
    if (param.role == ParamRole::Output) {
      // All-ones bytes are NaN in every float type kgen writes.
      KGEN_CUDA_TRY(cudaMemset(t.arena.slot(0), 0xFF, t.arena.tensorBytes), err);
    } else {
      t.host = makePackageInput(pkg, param, o_.seed);
      if (!upload(t.host, t.arena.slot(0), err))
        return false;
    }
    if (param.role == ParamRole::Input) {
      if (!t.pristine.allocate(t.arena.tensorBytes, err))
        return false;
      KGEN_CUDA_TRY(cudaMemcpy(t.pristine.get(), t.arena.slot(0),
                               t.arena.tensorBytes, cudaMemcpyDeviceToDevice),
                    err);
    }
    if (!replicateSlotZero(t.arena, err))
      return false;
  }
  if (!differenceCount_.allocate(sizeof(unsigned long long), err) ||
      !differences_.load(first_.epilogue.cubin, kDifferencesEntry,
                         differencesLaunch(), err))
    return false;
  if (!allocateArena(baselineBytes, sets_, baselineD_, err))
    return false;
  KGEN_CUDA_TRY(cudaMemset(baselineD_.slot(0), 0xFF, baselineBytes), err);
  return settle(err);
}

bool GroupRun::computeReference(std::string &err) {
  // fp8 operands are read from exact bf16 copies.
  DeviceBuffer a16, b16;
  const void *a = slot("A", 0);
  const void *b = slot("B", 0);
  if (spec_.a == ElemType::F8E4M3FN) {
    const HostTensor a16Host = f8ToBf16(tensor("A")->host);
    const HostTensor b16Host = f8ToBf16(tensor("B")->host);
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
      !epilogue.load(first_.epilogue.cubin, kEpilogueEntry,
                     epilogueLaunch(elements), err) ||
      !launchEpilogue(epilogue, spec_, static_cast<const float *>(acc.get()),
                      slotIf("C", 0), slotIf("bias", 0), out.get(), s_.stream(),
                      err) ||
      !s_.sync("the reference", err))
    return false;
  reference_ = makeZeros(spec_.d, tensor("D")->param.shape);
  if (!download(out.get(), reference_, err))
    return false;
  checkReference(reference_);
  return true;
}

void GroupRun::checkReference(const HostTensor &reference) {
  const HostView a{&tensor("A")->host, 0}, b{&tensor("B")->host, 0};
  HostView c, bias;
  if (spec_.c)
    c = {&tensor("C")->host, 0};
  if (spec_.bias)
    bias = {&tensor("bias")->host, 0};
  const std::vector<int64_t> indices =
      sampleIndices(reference.numElements(), kSpotCheckElements,
                    mixSeed(o_.seed, kSpotCheckSalt));
  const HostTensor expected = gemmExpected(spec_, a, b, spec_.c ? &c : nullptr,
                                           spec_.bias ? &bias : nullptr, indices);
  KernelResult check = newResult("reference", "cublaslt", first_.pkg.op);
  if (!judge(gatherElements(reference, indices), expected, tolerance_, check))
    referenceProblem_ = check.reason;
}

/// Before a package's checked run: outputs NaN again (an element it does not
/// write must not show the previous package's), in-out tensors back to the
/// values the reference read.
bool GroupRun::resetTensors(std::string &err) {
  for (auto &[name, t] : tensors_) {
    if (t.param.role == ParamRole::Output)
      KGEN_CUDA_TRY(cudaMemset(t.arena.slot(0), 0xFF, t.arena.tensorBytes), err);
    if (t.param.role == ParamRole::InOut &&
        (!upload(t.host, t.arena.slot(0), err) || !replicateSlotZero(t.arena, err)))
      return false;
  }
  return settle(err);
}

KernelResult GroupRun::runBaseline(const KernelPackage &pkg) {
  KernelResult result = newResult(baselineName(pkg), "cublaslt", pkg.op);
  if (!referenceProblem_.empty()) {
    result.status = RunStatus::Wrong;
    result.reason = "the cuBLASLt reference disagrees with the host's "
                    "double-precision spot check: " + referenceProblem_;
    return result;
  }
  if (baselineVerdict_) { // wrong or failed when first checked
    result.status = baselineVerdict_->status;
    result.reason = baselineVerdict_->reason;
    result.relError = baselineVerdict_->relError;
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
  if (!baselineChecked_) {
    baselineChecked_ = true;
    if (!launch(0, s_.stream(), err) ||
        !s_.sync("the baseline's checked run", err)) {
      markFailed(result, err);
      baselineVerdict_ = result;
      return result;
    }
    // A baseline without part of the epilogue computes another function.
    if (omitted_.empty() &&
        !judgeOutput(baselineD_.slot(0), baselineProblem_.out, result)) {
      baselineVerdict_ = result;
      return result;
    }
  }
  timeResult(launch, sets_, s_.stream(), o_, pkg.flops, pkg.bytes, result);
  return result;
}

KernelResult GroupRun::runKernel(const PreparedPackage &prepared) {
  const KernelPackage &pkg = prepared.pkg;
  KernelResult result = newResult(pkg.name, "kgen", pkg.op, pkg.config);
  result.sourceSha256 = pkg.sourceSha256;
  result.resources = prepared.kernel.resources;
  result.baseline = baselineName(pkg);
  if (!referenceProblem_.empty()) {
    result.reason = "not judged: the reference failed its host spot check";
    return result;
  }
  // The group shares the first package's tensors (runPackages groups so).
  if (!sameTensorParams(pkg, first_.pkg)) {
    result.status = RunStatus::LaunchFailed;
    result.reason = "its tensor parameters differ from those of the first "
                    "package of its group";
    return result;
  }
  std::string err;
  if (!resetTensors(err)) {
    markFailed(result, "resetting the outputs: " + err);
    return result;
  }
  // The op's tensors by parameter; the package's own workspaces, kernels
  // launched in order on one stream: one timed launch is the whole sequence.
  PackageLaunch kernels;
  const auto arenaOf = [&](const std::string &name) { return &tensor(name)->arena; };
  if (!kernels.prepare(pkg, prepared.kernel.cubin, arenaOf, sets_, err)) {
    markFailed(result, err);
    return result;
  }
  const LaunchFn launch = [&](int set, cudaStream_t stream, std::string &e) {
    return kernels.launch(set, stream, e);
  };
  if (!launch(0, s_.stream(), err) || !s_.sync("the checked run", err)) {
    markFailed(result, err);
    return result;
  }
  HostTensor checked;
  if (!judgeOutput(slot("D", 0), spec_.d, result, &checked))
    return result;
  if (!timeResult(launch, sets_, s_.stream(), o_, pkg.flops, pkg.bytes, result))
    return result;
  // Copy 0 was rewritten by timed launches from the same inputs; a change
  // means a race or a read of unwritten memory. Inout tensors evolve.
  const bool hasInout = std::any_of(pkg.params.begin(), pkg.params.end(),
                                    [](const KernelParam &param) {
                                      return param.kind == ParamKind::Tensor &&
                                             param.role == ParamRole::InOut;
                                    });
  if (hasInout)
    return result;
  HostTensor again = makeZeros(spec_.d, reference_.shape);
  if (!download(slot("D", 0), again, err)) {
    markFailed(result, "after the timed runs: " + err);
    return result;
  }
  // kgen's kernels are deterministic (split-K reduces in a fixed order, no
  // atomics): the same inputs give the same bits, or something raced.
  if (again.data != checked.data) {
    const size_t bytes = elemTypeBytes(spec_.d);
    int64_t differ = 0;
    for (size_t i = 0; i + bytes <= again.data.size(); i += bytes)
      differ += !std::equal(again.data.begin() + i, again.data.begin() + i + bytes,
                            checked.data.begin() + i);
    (void)judge(again, reference_, tolerance_, result); // its error, for the reader
    markWrong(result, "after the timed runs, " + std::to_string(differ) + " of " +
                          std::to_string(again.numElements()) +
                          " outputs differ from the checked run's (the same "
                          "inputs: a race, or a read of memory no kernel wrote)");
  }
  return result;
}

/// After a package: every copy of every input still holds what the
/// reference read (compared on the GPU with a copy no kernel was given).
/// A kernel that wrote into one is wrong, and the packages after it would
/// be judged on other inputs: false, and the child ends.
bool GroupRun::inputsIntact(KernelResult &result) {
  for (auto &[name, t] : tensors_)
    if (t.param.role == ParamRole::Input &&
        !inputIntact(name, t.arena, t.pristine, differences_,
                     static_cast<unsigned long long *>(differenceCount_.get()),
                     s_.stream(), result))
      return false;
  return true;
}

bool GroupRun::judgeOutput(const void *device, ElemType type,
                           KernelResult &result, HostTensor *got) {
  std::string err;
  HostTensor local;
  HostTensor &out = got != nullptr ? *got : local;
  out = makeZeros(type, reference_.shape);
  if (!download(device, out, err)) {
    markFailed(result, err);
    return false;
  }
  return judge(out, reference_, tolerance_, result);
}

void GroupRun::emit(const KernelResult &result) { emitResult(s_, fd_, result); }

int GroupRun::run() {
  std::string err;
  if (!allocate(err) || !computeReference(err)) {
    // Nothing can be judged, and no kernel ran: every package says why.
    for (const PreparedPackage *p : group_) {
      KernelResult baseline = newResult(baselineName(p->pkg), "cublaslt", p->pkg.op);
      markFailed(baseline, "setting up: " + err);
      emit(baseline);
      emit(notRun(*p, baseline, "setting up failed: " + err));
    }
    return 1;
  }
  for (const PreparedPackage *p : group_) {
    const KernelResult baseline = runBaseline(p->pkg);
    emit(baseline);
    // The context is lost (cuBLASLt faulted): the kernel would be blamed.
    if (baseline.status == RunStatus::Faulted) {
      emit(notRun(*p, baseline, "the cuBLASLt baseline beside it faulted"));
      return 1;
    }
    KernelResult kernel = runKernel(*p);
    // A fault poisons the context, and inputs a kernel wrote into would be
    // another op's: either way the parent goes on in a new child.
    const bool goOn = kernel.status != RunStatus::Faulted && inputsIntact(kernel);
    emit(kernel);
    if (!goOn)
      return 1;
  }
  return 0;
}

} // namespace

int packageGroupChild(const std::vector<const PreparedPackage *> &group,
                      const BenchOptions &options, int fd) {
  if (group.empty())
    return 0;
  CudaSession session;
  std::string err;
  const bool moe = group.front()->moe.has_value();
  const bool grouped = group.front()->groupedGemm.has_value();
  const bool attention = group.front()->attention.has_value();
  if (!session.open(err)) {
    for (const PreparedPackage *p : group) {
      if (attention || moe || grouped) { // no baseline
        KernelResult kernel = newResult(p->pkg.name, "kgen", p->pkg.op, p->pkg.config);
        kernel.status = RunStatus::LaunchFailed;
        kernel.reason = "opening the device: " + err;
        emitFragment(fd, makeFragment(DeviceInfo{}, {kernel}));
        continue;
      }
      KernelResult baseline =
          newResult(baselineNameFor(*p), "cublaslt", p->pkg.op);
      baseline.status = RunStatus::LaunchFailed;
      baseline.reason = "opening the device: " + err;
      emitFragment(fd, makeFragment(DeviceInfo{},
                                    {baseline, notRun(*p, baseline, baseline.reason)}));
    }
    return 1;
  }
  if (moe)
    return moeGroupChild(group, options, session, fd);
  if (grouped)
    return groupedGemmGroupChild(group, options, session, fd);
  if (attention)
    return attentionGroupChild(group, options, session, fd);
  return GroupRun(group, options, session, fd).run();
}

int packageChild(const PreparedPackage &prepared, const BenchOptions &options,
                 int fd) {
  return packageGroupChild({&prepared}, options, fd);
}

bool sameTensorParams(const KernelPackage &a, const KernelPackage &b) {
  auto tensors = [](const KernelPackage &pkg) {
    std::map<std::string, const KernelParam *> out;
    for (const KernelParam &param : pkg.params)
      if (param.kind == ParamKind::Tensor && param.role != ParamRole::Workspace)
        out[param.name] = &param;
    return out;
  };
  const auto ta = tensors(a), tb = tensors(b);
  return std::equal(ta.begin(), ta.end(), tb.begin(), tb.end(),
                    [](const auto &x, const auto &y) {
                      return x.first == y.first &&
                             x.second->dtype == y.second->dtype &&
                             x.second->shape == y.second->shape &&
                             x.second->role == y.second->role;
                    });
}

std::string baselineResultName(const std::string &packageName,
                               const std::string &omitted) {
  return "cublaslt/" + packageName +
         (omitted.empty() ? "" : " (without " + omitted + ")");
}

std::string baselineNameFor(const PreparedPackage &prepared) {
  if (prepared.attention || prepared.moe || prepared.groupedGemm)
    return "";
  std::string omitted;
  (void)baselineProblem(prepared.spec, prepared.tf32, omitted);
  return baselineResultName(prepared.pkg.name, omitted);
}

} // namespace kgen::rt
