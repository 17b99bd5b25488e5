//===- AttentionChild.cpp - verify and time attention packages of one op --===//
//
// The attention counterpart of PackageChild.cpp's GroupRun: one child
// measures a group of packages of one attention op over one set of inputs
// (makePackageInput: seeded values, kv_lens in [0, Skv], a varlen op's
// cu_seqlens) and one reference, the host's double-precision mirror
// (Attention.h) at query rows drawn from the seed, the first and the last
// always. There is no vendor baseline. Per package: outputs poisoned with NaN,
// workspaces allocated and poisoned, the kernels run once and out (and lse)
// judged at the sampled rows; timed only when right; after timing, out (and
// lse) bit for bit the checked run's, and every copy of every input still what
// the reference read. A fault, or an input written, ends the child.
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/cuda/Bench.h"

#include "kgen/runtime/Attention.h"
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
constexpr uint64_t kRowSalt = 0x4154544e; // "ATTN"
/// The host reference's budget: rows * Skv * D multiply-adds (twice) at
/// most about this many, so a 128k-key decode step checks 16 rows and a
/// short prefill kSpotCheckElements.
constexpr int64_t kReferenceWork = int64_t{1} << 28;
constexpr int64_t kMinRows = 16;

size_t tensorBytes(const KernelParam &param) {
  size_t count = 1;
  for (int64_t d : param.shape)
    count *= static_cast<size_t>(d);
  return count * elemTypeBytes(param.dtype);
}

class AttentionGroupRun {
public:
  AttentionGroupRun(const std::vector<const PreparedPackage *> &group,
                    const BenchOptions &options, CudaSession &session, int fd)
      : group_(group), first_(*group.front()), spec_(*first_.attention),
        o_(options), s_(session), fd_(fd) {}

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
  bool judgeOutputs(KernelResult &result, std::vector<HostTensor> &outputs);
  bool inputsIntact(KernelResult &result);

  const std::vector<const PreparedPackage *> &group_;
  const PreparedPackage &first_;
  const AttentionSpec &spec_;
  const BenchOptions &o_;
  CudaSession &s_;
  const int fd_;

  std::map<std::string, Tensor> tensors_; // by parameter name
  int sets_ = 1;
  std::vector<int64_t> rows_;  // the rows of out checked (attentionRowCount)
  AttentionExpected expected_; // the reference at rows_
  LoadedKernel differences_;
  DeviceBuffer differenceCount_;
};

bool AttentionGroupRun::allocate(std::string &err) {
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

void AttentionGroupRun::computeReference() {
  const int64_t rowCount = attentionRowCount(spec_);
  const int64_t perRow = std::max<int64_t>(1, spec_.seqKv * spec_.headDim);
  const int64_t count =
      std::clamp<int64_t>(kReferenceWork / perRow, kMinRows, kSpotCheckElements);
  rows_ = sampleIndices(rowCount, count, mixSeed(o_.seed, kRowSalt));
  const AttentionExtras extras =
      attentionExtras([&](const std::string &name) -> const HostTensor * {
        const auto it = tensors_.find(name);
        return it != tensors_.end() ? &it->second.host : nullptr;
      });
  expected_ =
      attentionExpected(spec_, tensors_.at("q").host, tensors_.at("k").host,
                        tensors_.at("v").host, extras, rows_);
}

/// Before a package's checked run: its outputs NaN again, so that an
/// element it does not write cannot show the previous package's.
bool AttentionGroupRun::resetOutputs(std::string &err) {
  for (auto &[name, t] : tensors_)
    if (t.param.role == ParamRole::Output)
      KGEN_CUDA_TRY(cudaMemset(t.arena.slot(0), 0xFF, t.arena.tensorBytes), err);
  return settle(err);
}

/// Downloads out (and lse) of copy 0 into `outputs` and judges them at the
/// sampled rows: out by relative Frobenius error (within the tolerance of
/// the package's config, which `result` carries: runKernel's newResult),
/// lse by absolute error.
bool AttentionGroupRun::judgeOutputs(KernelResult &result,
                                     std::vector<HostTensor> &outputs) {
  std::string err;
  outputs.clear();
  for (const char *name : {"out", "lse"}) {
    if (!tensors_.count(name))
      continue;
    const Tensor &t = tensors_.at(name);
    HostTensor &host = outputs.emplace_back(makeZeros(t.param.dtype, t.param.shape));
    if (!download(t.arena.slot(0), host, err)) {
      markFailed(result, err);
      return false;
    }
  }
  if (!judge(gatherRows(outputs[0], rows_, spec_.headDim), expected_.out,
             attentionTolerance(spec_, result.config), result))
    return false;
  if (outputs.size() < 2)
    return true;
  HostTensor lse =
      gatherRows(outputs[1], attentionLseElements(spec_, rows_), 1);
  lse.shape = expected_.lse.shape;
  double maxAbsErr = 0;
  std::string why;
  if (!checkLse(lse, expected_.lse, attentionLseTolerance(spec_), maxAbsErr,
                why)) {
    markWrong(result, why);
    return false;
  }
  return true;
}

KernelResult AttentionGroupRun::runKernel(const PreparedPackage &prepared) {
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
  std::vector<HostTensor> checked;
  if (!judgeOutputs(result, checked))
    return result;
  if (!timeResult(launch, sets_, s_.stream(), o_, pkg.flops, pkg.bytes, result))
    return result;
  // The same inputs give the same bits (split-KV combines in a fixed
  // order), or something raced or read memory no kernel wrote.
  std::vector<HostTensor> again;
  const KernelResult timed = result;
  if (!judgeOutputs(result, again)) {
    markWrong(result, "after the timed runs: " + result.reason);
    return result;
  }
  result = timed;
  for (size_t i = 0; i < again.size(); ++i)
    if (again[i].data != checked[i].data) {
      markWrong(result, std::string("after the timed runs, ") +
                            (i == 0 ? "out" : "lse") +
                            " differs from the checked run's (the same inputs: "
                            "a race, or a read of memory no kernel wrote)");
      break;
    }
  return result;
}

bool AttentionGroupRun::inputsIntact(KernelResult &result) {
  for (auto &[name, t] : tensors_)
    if (t.param.role == ParamRole::Input &&
        !inputIntact(name, t.arena, t.pristine, differences_,
                     static_cast<unsigned long long *>(differenceCount_.get()),
                     s_.stream(), result))
      return false;
  return true;
}

int AttentionGroupRun::run() {
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

int attentionGroupChild(const std::vector<const PreparedPackage *> &group,
                        const BenchOptions &options, CudaSession &session,
                        int fd) {
  return AttentionGroupRun(group, options, session, fd).run();
}

} // namespace kgen::rt
