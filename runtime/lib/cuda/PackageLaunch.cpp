//===- PackageLaunch.cpp - a package's kernels ready to launch ------------===//

#include "kgen/runtime/cuda/PackageLaunch.h"

#include "kgen/runtime/ChildReports.h"
#include "kgen/runtime/cuda/Bench.h"
#include "kgen/runtime/cuda/Device.h"
#include "kgen/runtime/cuda/Reference.h"
#include "kgen/runtime/cuda/Session.h"

#include <cstdio>

namespace kgen::rt {

namespace {

size_t tensorBytes(const KernelParam &param) {
  size_t count = 1;
  for (int64_t d : param.shape)
    count *= static_cast<size_t>(d);
  return count * elemTypeBytes(param.dtype);
}

} // namespace

bool PackageLaunch::prepare(const KernelPackage &pkg,
                            const std::vector<char> &cubin,
                            const std::function<const Arena *(const std::string &)> &arenaOf,
                            int sets, std::string &err) {
  std::vector<const Arena *> arenas(pkg.params.size(), nullptr);
  workspaces_.clear();
  workspaceNames_.clear();
  workspaces_.reserve(pkg.params.size()); // arenas point into it
  for (size_t i = 0; i < pkg.params.size(); ++i) {
    const KernelParam &param = pkg.params[i];
    if (param.kind != ParamKind::Tensor)
      continue;
    if (param.role != ParamRole::Workspace) {
      arenas[i] = arenaOf(param.name);
      continue;
    }
    Arena &w = workspaces_.emplace_back();
    workspaceNames_.push_back(param.name);
    if (!allocateArena(tensorBytes(param), sets, w, err)) {
      err = "allocating workspace " + param.name + ": " + err;
      return false;
    }
    const cudaError_t poisoned = cudaMemset(w.slot(0), 0xFF, w.tensorBytes);
    if (poisoned != cudaSuccess)
      err = cudaErrorText("cudaMemset", poisoned);
    if (poisoned != cudaSuccess || !replicateSlotZero(w, err) || !settle(err)) {
      err = "poisoning workspace " + param.name + ": " + err;
      return false;
    }
    arenas[i] = &w;
  }
  const size_t count = pkg.kernels.size();
  kernels_ = std::vector<LoadedKernel>(count);
  for (size_t k = 0; k < count; ++k)
    if (!kernels_[k].load(cubin, pkg.kernels[k].entry, pkg.kernels[k].launch,
                          err)) {
      err = "loading the cubin: " + err;
      return false;
    }
  args_ = std::vector<std::vector<KernelArgs>>(static_cast<size_t>(sets));
  for (int set = 0; set < sets; ++set) {
    std::vector<void *> buffers(pkg.params.size(), nullptr);
    for (size_t i = 0; i < pkg.params.size(); ++i)
      if (arenas[i] != nullptr)
        buffers[i] = arenas[i]->slot(set);
    std::vector<KernelArgs> &setArgs = args_[static_cast<size_t>(set)];
    setArgs.resize(count);
    for (size_t k = 0; k < count; ++k)
      if (!setArgs[k].build(pkg, pkg.kernels[k], buffers, err)) {
        err = "kernel arguments of " + pkg.kernels[k].entry + ": " + err;
        return false;
      }
  }
  return true;
}

const Arena *PackageLaunch::workspace(const std::string &name) const {
  for (size_t i = 0; i < workspaceNames_.size(); ++i)
    if (workspaceNames_[i] == name)
      return &workspaces_[i];
  return nullptr;
}

bool PackageLaunch::launch(int set, cudaStream_t stream, std::string &err) {
  std::vector<KernelArgs> &setArgs = args_[static_cast<size_t>(set)];
  for (size_t k = 0; k < kernels_.size(); ++k)
    if (!kernels_[k].launch(setArgs[k].data(), stream, err))
      return false;
  return true;
}

bool inputIntact(const std::string &name, const Arena &arena,
                 const DeviceBuffer &pristine, const LoadedKernel &differences,
                 unsigned long long *deviceCount, cudaStream_t stream,
                 KernelResult &result) {
  for (int set = 0; set < arena.sets; ++set) {
    uint64_t changed = 0;
    std::string err;
    if (!countDifferences(differences, arena.slot(set), pristine.get(),
                          arena.tensorBytes, deviceCount, stream, changed,
                          err)) {
      markFailed(result, "checking the inputs after the run: " + err);
      return false;
    }
    if (changed != 0) {
      markWrong(result, "wrote into its input " + name + " (" +
                            std::to_string(changed) + " bytes of copy " +
                            std::to_string(set) + " changed)");
      return false;
    }
  }
  return true;
}

void emitResult(CudaSession &session, int fd, const KernelResult &result) {
  session.refreshClocks();
  std::fprintf(stderr, "kgen-bench:   %s %s: %s%s%s\n",
               result.implementation.c_str(), result.name.c_str(),
               runStatusName(result.status), result.reason.empty() ? "" : ": ",
               result.reason.c_str());
  if (!emitFragment(fd, makeFragment(session.device(), {result})))
    std::fprintf(stderr, "kgen-bench: cannot write to the parent\n");
}

} // namespace kgen::rt
