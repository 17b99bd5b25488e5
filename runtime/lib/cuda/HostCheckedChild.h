//===- HostCheckedChild.h - packages judged by a host mirror ----*- C++ -*-===//
//
// Private to kgen_runtime_cuda: the child shared by the ops whose packages
// are judged against the runtime's host mirror alone (no vendor baseline):
// moe (MoeChild.cpp) and grouped_gemm (GroupedGemmChild.cpp). The op
// supplies a HostCheck; hostCheckedGroupChild (HostCheckedChild.cpp) does
// the rest: inputs, poisoning, the checked run, timing, the repeat check
// and the inputs' integrity.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_LIB_CUDA_HOSTCHECKEDCHILD_H
#define KGEN_RUNTIME_LIB_CUDA_HOSTCHECKEDCHILD_H

#include "kgen/runtime/cuda/Bench.h"
#include "kgen/runtime/cuda/PackageLaunch.h"
#include "kgen/runtime/cuda/Session.h"

#include <map>
#include <string>
#include <vector>

namespace kgen::rt {

/// What an op adds to the host-checked child.
class HostCheck {
public:
  virtual ~HostCheck() = default;
  /// The output downloaded and judged after each checked run, and compared
  /// bit for bit after timing ("y", "D").
  virtual const char *checkedOutput() const = 0;
  /// Computes the reference from the inputs as filled (by parameter name;
  /// every tensor that is not an output or a workspace), once per group.
  virtual void
  computeReference(const std::map<std::string, const HostTensor *> &inputs) = 0;
  /// Judges a checked run: `out` is checkedOutput() downloaded; `kernels`
  /// reads workspaces back. Marks `result` wrong (markWrong) or failed and
  /// returns false, or returns true.
  virtual bool judge(const HostTensor &out, const PackageLaunch &kernels,
                     KernelResult &result) = 0;
};

/// packageGroupChild's work for a group of packages of one op judged by
/// `check`, on an open session. Returns as packageGroupChild does.
int hostCheckedGroupChild(const std::vector<const PreparedPackage *> &group,
                          const BenchOptions &options, CudaSession &session,
                          int fd, HostCheck &check);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_LIB_CUDA_HOSTCHECKEDCHILD_H
