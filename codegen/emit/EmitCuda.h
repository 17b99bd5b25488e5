//===- EmitCuda.h - tile-level kernels -> CUDA C++ and packages --*- C++ -*-===//
#ifndef KGEN_CODEGEN_EMITCUDA_H
#define KGEN_CODEGEN_EMITCUDA_H

#include "dialect/KgenOps.h"

#include "kgen/runtime/Package.h"

#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::kgen {
/// What a package needs beyond the CUDA source.
struct EmittedKernel {
  /// Dynamic shared memory the kernel requests at launch.
  int64_t dynamicSmemBytes = 0;
  /// TMA descriptor parameters appended after the memref parameters:
  /// (name, tensor parameter, box outer, box inner); unitDims: the tensor's
  /// leading dimensions, each boxed by 1 (a batched operand's (batch, rows,
  /// cols) map: 1; attention's (b, hk, rows, D): 2); the swizzle in bytes,
  /// box inner's bytes (128: 64 elements of 16 bits; 64: of e4m3).
  struct Tma {
    std::string name, tensor;
    int64_t boxOuter, boxInner;
    int64_t unitDims = 0;
    int64_t swizzleBytes = 128;
  };
  llvm::SmallVector<Tma> tmaParams;
  /// Blocks per cluster along grid x (1: no cluster launch).
  int64_t clusterM = 1;
};

/// Prints the CUDA C++ of `kernel` (a kgen.kernel from
/// kgen-lower-gemm-to-tiles): one extern "C" __global__ function named like
/// the kernel, calling the tile primitives of codegen/include with the
/// config's sizes as template arguments. Fails, with a diagnostic on the
/// op naming the rule, for a config its family's legality refuses
/// (dialect/GemmLegality.h).
LogicalResult emitCuda(KernelOp kernel, llvm::raw_ostream &os,
                       EmittedKernel *info = nullptr);

/// The kernel package of `kernels` (docs/kernel-package.md), in memory:
/// emitCuda of each, in one source with the kgen headers inlined, plus their
/// launches, the parameters, the op signature and config of the first,
/// FLOPs and bytes. The kernels run in order; parameters of one name are
/// one tensor, and a tensor a kernel writes and a later one reads is a
/// workspace (split-K partial sums). Fails, with a diagnostic on the
/// kernel, for what does not lower. Precondition: kernels is not empty.
FailureOr<::kgen::rt::KernelPackage>
assemblePackage(llvm::ArrayRef<KernelOp> kernels);

/// assemblePackage, written into `dir` (kernel.cu and manifest.json). With
/// `compile` (and NVRTC in the build), the source is compiled for the
/// target first and each kernel's ptxas report recorded; a failure names
/// the config and gives compileErrorSummary of NVRTC's log.
LogicalResult emitPackage(llvm::ArrayRef<KernelOp> kernels,
                          llvm::StringRef dir, bool compile = true);

/// The first `maxLines` error lines of a compiler log (its first lines when
/// none says "error"), indented, and how many more errors there were: what
/// a failed compile prints instead of the whole log.
std::string compileErrorSummary(const std::string &log, size_t maxLines = 4);
} // namespace mlir::kgen

#endif // KGEN_CODEGEN_EMITCUDA_H
