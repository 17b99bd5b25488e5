//===- Synthetic.h - stand-in measurements, for testing workflows -*- C++ -*-===//
//
// `kgen-bench tune --synthetic` and `ceilings --synthetic`: what the
// workflows around the tuner (campaigns on Slurm, docs/campaigns.md) are
// tested with on machines without a GPU. Nothing is compiled or run; every
// output says so: the device is kSyntheticDevice and each result's reason
// starts with "synthetic". Deterministic: the same package always gets the
// same time, so a campaign cut into shards gives the database a single
// machine gives.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_SYNTHETIC_H
#define KGEN_RUNTIME_SYNTHETIC_H

#include "kgen/runtime/Package.h"
#include "kgen/runtime/Results.h"

namespace kgen::rt {

constexpr const char *kSyntheticDevice = "synthetic (no GPU)";

/// A device named kSyntheticDevice (132 SMs, compute capability 9.0, the
/// clocks unknown), its CUDA runtime `runtimeVersion` ("13.0": the
/// toolkit's that built the caller, so that its tuning keys match the
/// compiler's toolchain as a real run's do).
DeviceInfo syntheticDevice(const std::string &runtimeVersion = "");

/// Fixed ceilings (copy 4000 GB/s, matmul 700 TFLOP/s), labelled synthetic.
Ceilings syntheticCeilings();

/// `pkg` "measured": status ok, relative error 0, 20 samples around a
/// median of the config's predicted_ms (1 ms when it has none) times a
/// factor in [0.8, 1.25] drawn from the source's SHA-256; the reason says
/// it is synthetic.
KernelResult syntheticRun(const KernelPackage &pkg);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_SYNTHETIC_H
