//===- EmitCuda.h - tile-level kernels -> CUDA C++ and packages --*- C++ -*-===//
#ifndef KGEN_CODEGEN_EMITCUDA_H
#define KGEN_CODEGEN_EMITCUDA_H

#include "dialect/KgenOps.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::kgen {
/// Version of the emitter's output: part of tuning database keys, so that
/// measurements of kernels it printed differently count as stale. Bump it
/// when generated code changes in a way that can change performance.
constexpr int kEmitterVersion = 1;

/// What a package needs beyond the CUDA source.
struct EmittedKernel {
  /// Dynamic shared memory the kernel requests at launch.
  int64_t dynamicSmemBytes = 0;
  /// TMA descriptor parameters appended after the memref parameters:
  /// (name, tensor parameter, box outer, box inner) with a 128-byte swizzle;
  /// batched: a 3-D map of (batch, rows, cols) with a box of one plane.
  struct Tma {
    std::string name, tensor;
    int64_t boxOuter, boxInner;
    bool batched = false;
  };
  llvm::SmallVector<Tma> tmaParams;
  /// Blocks per cluster along grid x (1: no cluster launch).
  int64_t clusterM = 1;
};

/// Prints the CUDA C++ of `kernel` (a kgen.kernel from
/// kgen-lower-gemm-to-tiles): one extern "C" __global__ function named like
/// the kernel, calling the tile primitives of codegen/include with the
/// config's sizes as template arguments. Fails, with a diagnostic on the
/// op, for what the emitter does not support (see EmitCuda.cpp).
LogicalResult emitCuda(KernelOp kernel, llvm::raw_ostream &os,
                       EmittedKernel *info = nullptr);

/// Writes the kernel package of `kernels` into `dir` (kernel.cu and
/// manifest.json, docs/kernel-package.md): emitCuda of each, in one source,
/// plus their launches, the parameters, the op signature and config of the
/// first, FLOPs and bytes. The kernels run in order; parameters of one name
/// are one tensor, and a tensor a kernel writes and a later one reads is a
/// workspace (split-K partial sums). With `compile` (and NVRTC in the
/// build), the source is compiled for the target and each kernel's ptxas
/// report recorded. Precondition: kernels is not empty.
LogicalResult emitPackage(llvm::ArrayRef<KernelOp> kernels,
                          llvm::StringRef dir, bool compile = true);
} // namespace mlir::kgen

#endif // KGEN_CODEGEN_EMITCUDA_H
