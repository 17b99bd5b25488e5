//===- PackageLaunch.h - a package's kernels ready to launch -----*- C++ -*-===//
//
// What a child does with any package once the op's tensors are on the
// device, whatever the op (PackageChild.cpp for gemm, AttentionChild.cpp
// for attention): its workspaces allocated and poisoned, its kernels loaded
// and their arguments built for every copy of the tensors; after the run,
// each input copy compared with a copy no kernel was given; each result
// reported to the parent. Used only inside kgen-bench's children.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_CUDA_PACKAGELAUNCH_H
#define KGEN_RUNTIME_CUDA_PACKAGELAUNCH_H

#include "kgen/runtime/Package.h"
#include "kgen/runtime/Results.h"
#include "kgen/runtime/cuda/Kernel.h"
#include "kgen/runtime/cuda/Memory.h"

#include <cuda_runtime_api.h>

#include <functional>
#include <string>
#include <vector>

namespace kgen::rt {

class CudaSession;

/// A package's kernels over `sets` copies of its tensors.
class PackageLaunch {
public:
  /// `arenaOf(name)` is the arena of the op's tensor `name` (every tensor
  /// parameter but the workspaces, which are the package's own). Allocates each workspace (`sets`
  /// copies) and fills it with NaN bytes (a kernel reading an element no
  /// kernel before it wrote shows), loads every kernel of `cubin` and builds
  /// its arguments for each copy. On failure `err` says which step:
  /// "allocating workspace W: ...", "poisoning workspace W: ...", "loading
  /// the cubin: ...", "kernel arguments of E: ...".
  bool prepare(const KernelPackage &pkg, const std::vector<char> &cubin,
               const std::function<const Arena *(const std::string &)> &arenaOf,
               int sets, std::string &err);

  /// Enqueues the package's kernels, in order, over copy `set` on `stream`.
  bool launch(int set, cudaStream_t stream, std::string &err);

  /// The arena of workspace `name` (after prepare), or null: what a check
  /// of an intermediate reads back (a moe package's expert_ids).
  const Arena *workspace(const std::string &name) const;

private:
  std::vector<Arena> workspaces_;
  std::vector<std::string> workspaceNames_; // parallel to workspaces_
  std::vector<LoadedKernel> kernels_;
  std::vector<std::vector<KernelArgs>> args_; // [set][kernel]
};

/// Whether every copy of input `name` (its `arena`) still equals
/// `pristine`, compared on the GPU by `differences` (kDifferencesEntry,
/// Reference.h) counting into `deviceCount`. A changed copy marks `result`
/// wrong ("wrote into its input ..."), a failure marks it failed; both
/// return false.
bool inputIntact(const std::string &name, const Arena &arena,
                 const DeviceBuffer &pristine, const LoadedKernel &differences,
                 unsigned long long *deviceCount, cudaStream_t stream,
                 KernelResult &result);

/// Logs `result` on stderr and writes it to the parent (`fd`) with the
/// session's device, its clocks read again.
void emitResult(CudaSession &session, int fd, const KernelResult &result);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_CUDA_PACKAGELAUNCH_H
