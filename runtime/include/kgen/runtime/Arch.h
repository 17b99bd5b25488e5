//===- Arch.h - CUDA architecture names and version numbers -----*- C++ -*-===//
//
// Which machine code runs on which device, decided on the host: kgen-bench's
// parent picks the arch it compiles a package for from the device its probe
// child found, without touching CUDA itself.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_ARCH_H
#define KGEN_RUNTIME_ARCH_H

#include "kgen/runtime/Results.h"

#include <optional>
#include <string>

namespace kgen::rt {

/// "13.0" for 13000 (the encoding of cudaDriverGetVersion and
/// cudaRuntimeGetVersion: 1000 * major + 10 * minor).
std::string formatCudaVersion(int version);

/// "sm_90" for compute capability 9.0: the arch for reference kernels, which
/// use no architecture-specific ("a") instructions.
std::string deviceArch(const DeviceInfo &info);

/// The arch to compile a package of `target` ("sm_80", "sm_90a", ...) for
/// when it runs on `device`: the target itself when its machine code runs
/// there (same major version, device minor >= target minor; an "a" target
/// only on exactly its compute capability), else, for a plain target older
/// than the device, the device's own arch (the CUDA source is portable,
/// SASS is not). std::nullopt when the device cannot run the package (an
/// "a" target of another capability, a target newer than the device, or a
/// malformed target).
std::optional<std::string> runArch(const std::string &target,
                                   const DeviceInfo &device);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_ARCH_H
