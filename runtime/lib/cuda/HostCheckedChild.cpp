//===- HostCheckedChild.cpp - verify and time packages against the host ---===//
//
// The child of the ops checked against a host mirror alone (moe,
// grouped_gemm; attention has its own, AttentionChild.cpp): one child
// measures a group of packages of one op over one set of inputs
// (makePackageInput) and one reference, the op's HostCheck (MoeChild.cpp,
// GroupedGemmChild.cpp). There is no vendor baseline. Per package: outputs
// poisoned with NaN, workspaces allocated and poisoned, the kernels run
// once, the checked output judged by the HostCheck; timed only when right;
// after timing, the checked output bit for bit the checked run's, and every
// copy of every input still what the reference read. A fault, or an input
// written, ends the child.
//
//===----------------------------------------------------------------------===//

#include "HostCheckedChild.h"

#include "kgen/runtime/cuda/Bench.h"

#include "kgen/runtime/cuda/Device.h"
#include "kgen/runtime/cuda/Kernel.h"
#include "kgen/runtime/cuda/PackageLaunch.h"
#include "kgen/runtime/cuda/Reference.h"
#include "kgen/runtime/cuda/Session.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace kgen::rt {

namespace {

constexpr double kRotationMemoryFraction = 0.6;

size_t tensorBytes(const KernelParam &param) {
  size_t count = 1;
  for (int64_t d : param.shape)
    count *= static_cast<size_t>(d);
  return count * elemTypeBytes(param.dtype);
}

class HostCheckedGroupRun {
public:
  HostCheckedGroupRun(const std::vector<const PreparedPackage *> &group,
                      const BenchOptions &options, CudaSession &session,
                      int fd, HostCheck &check)
      : group_(group), first_(*group.front()), check_(check), o_(options),
        s_(session), fd_(fd) {}

  int run();

private:
  struct Tensor {
    KernelParam param;
    HostTensor host; // inputs: what the reference read
    Arena arena;
    DeviceBuffer pristine; // inputs: a copy no kernel is given
  };

  bool allocate(std::string &err);
  void computeReference();
  bool resetOutputs(std::string &err);
  KernelResult runKernel(const PreparedPackage &prepared);
  bool judgeOutputs(const PackageLaunch &kernels, KernelResult &result,
                    HostTensor &out);
  bool inputsIntact(KernelResult &result);

  const std::vector<const PreparedPackage *> &group_;
  const PreparedPackage &first_;
  HostCheck &check_;
  const BenchOptions &o_;
  CudaSession &s_;
  const int fd_;

  std::map<std::string, Tensor> tensors_; // by parameter name
  int sets_ = 1;
  LoadedKernel differences_;
  DeviceBuffer differenceCount_;
};

bool HostCheckedGroupRun::allocate(std::string &err) {
  const KernelPackage &pkg = first_.pkg;
  int64_t touched = 0;
  for (const KernelParam &param : pkg.params)
    if (param.kind == ParamKind::Tensor && param.role != ParamRole::Workspace)
      touched += static_cast<int64_t>(alignUp(tensorBytes(param), kSlotAlignment));
  int64_t workspace = 0;
  for (const PreparedPackage *p : group_) {
    int64_t bytes = 0;
    for (const KernelParam &param : p->pkg.params)
      if (param.kind == ParamKind::Tensor && param.role == ParamRole::Workspace)
        bytes += static_cast<int64_t>(alignUp(tensorBytes(param), kSlotAlignment));
    workspace = std::max(workspace, bytes);
  }
  touched += workspace;
  int64_t freeBytes = 0;
  if (!s_.freeBytes(freeBytes, err))
    return false;
  const auto budget = static_cast<int64_t>(kRotationMemoryFraction * freeBytes);
  sets_ = rotationSets(touched, s_.device().l2Bytes, budget);

  for (const KernelParam &param : pkg.params) {
    if (param.kind != ParamKind::Tensor || param.role == ParamRole::Workspace)
      continue;
    Tensor &t = tensors_[param.name];
    t.param = param;
    if (!allocateArena(tensorBytes(param), sets_, t.arena, err))
      return false;
    if (param.role == ParamRole::Output) {
      // All-ones bytes are NaN in every float type.
      KGEN_CUDA_TRY(cudaMemset(t.arena.slot(0), 0xFF, t.arena.tensorBytes), err);
    } else {
      t.host = makePackageInput(pkg, param, o_.seed);
      if (!upload(t.host, t.arena.slot(0), err) ||
          !t.pristine.allocate(t.arena.tensorBytes, err))
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
  return settle(err);
}

void HostCheckedGroupRun::computeReference() {
  std::map<std::string, const HostTensor *> inputs;
  for (const auto &[name, t] : tensors_)
    if (t.param.role != ParamRole::Output)
      inputs[name] = &t.host;
  check_.computeReference(inputs);
}

/// Before a package's checked run: its outputs NaN again, so that an
/// element it does not write cannot show the previous package's.
bool HostCheckedGroupRun::resetOutputs(std::string &err) {
  for (auto &[name, t] : tensors_)
    if (t.param.role == ParamRole::Output)
      KGEN_CUDA_TRY(cudaMemset(t.arena.slot(0), 0xFF, t.arena.tensorBytes), err);
  return settle(err);
}

/// Downloads the checked output of copy 0 into `out` and has the check
/// judge it (and whatever workspaces it reads).
bool HostCheckedGroupRun::judgeOutputs(const PackageLaunch &kernels,
                                       KernelResult &result, HostTensor &out) {
  std::string err;
  const Tensor &t = tensors_.at(check_.checkedOutput());
  out = makeZeros(t.param.dtype, t.param.shape);
  if (!download(t.arena.slot(0), out, err)) {
    markFailed(result, err);
    return false;
  }
  return check_.judge(out, kernels, result);
}

KernelResult HostCheckedGroupRun::runKernel(const PreparedPackage &prepared) {
  const KernelPackage &pkg = prepared.pkg;
  KernelResult result = newResult(pkg.name, "kgen", pkg.op, pkg.config);
  result.sourceSha256 = pkg.sourceSha256;
  result.resources = prepared.kernel.resources;
  if (!sameTensorParams(pkg, first_.pkg)) {
    result.status = RunStatus::LaunchFailed;
    result.reason = "its tensor parameters differ from those of the first "
                    "package of its group";
    return result;
  }
  std::string err;
  if (!resetOutputs(err)) {
    markFailed(result, "resetting the outputs: " + err);
    return result;
  }
  PackageLaunch kernels;
  const auto arenaOf = [&](const std::string &name) { return &tensors_.at(name).arena; };
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
  if (!judgeOutputs(kernels, result, checked))
    return result;
  if (!timeResult(launch, sets_, s_.stream(), o_, pkg.flops, pkg.bytes, result))
    return result;
  // The same inputs give the same bits (the kernels sum in a fixed order),
  // or something raced or read memory no kernel wrote.
  HostTensor again;
  const KernelResult timed = result;
  if (!judgeOutputs(kernels, result, again)) {
    markWrong(result, "after the timed runs: " + result.reason);
    return result;
  }
  result = timed;
  if (again.data != checked.data)
    markWrong(result, std::string("after the timed runs, ") +
                          check_.checkedOutput() +
                          " differs from the checked run's (the same "
                          "inputs: a race, or a read of memory no kernel "
                          "wrote)");
  return result;
}

bool HostCheckedGroupRun::inputsIntact(KernelResult &result) {
  for (auto &[name, t] : tensors_)
    if (t.param.role == ParamRole::Input &&
        !inputIntact(name, t.arena, t.pristine, differences_,
                     static_cast<unsigned long long *>(differenceCount_.get()),
                     s_.stream(), result))
      return false;
  return true;
}

int HostCheckedGroupRun::run() {
  std::string err;
  if (!allocate(err)) {
    for (const PreparedPackage *p : group_) {
      KernelResult kernel = newResult(p->pkg.name, "kgen", p->pkg.op, p->pkg.config);
      kernel.sourceSha256 = p->pkg.sourceSha256;
      kernel.reason = "not run: setting up failed: " + err;
      emitResult(s_, fd_, kernel);
    }
    return 1;
  }
  computeReference();
  for (const PreparedPackage *p : group_) {
    KernelResult kernel = runKernel(*p);
    const bool goOn = kernel.status != RunStatus::Faulted && inputsIntact(kernel);
    emitResult(s_, fd_, kernel);
    if (!goOn)
      return 1;
  }
  return 0;
}

} // namespace

int hostCheckedGroupChild(const std::vector<const PreparedPackage *> &group,
                          const BenchOptions &options, CudaSession &session,
                          int fd, HostCheck &check) {
  return HostCheckedGroupRun(group, options, session, fd, check).run();
}

} // namespace kgen::rt
