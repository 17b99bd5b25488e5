//===- Emulate.h - run a kernel package on the emulated device -*- C++ -*-===//
//
// The host side of the emulated device (docs/emulated-device.md): compiles a
// package's kernel.cu with the host C++ compiler and the emulation headers
// (include/, first on the include path, KGEN_EMULATE=1) into a shared
// object, loads it, allocates the package's tensors with guard pages and
// canaries, fills the inputs from a seed, runs the kernels in manifest order
// and compares the output with the runtime's host reference (Gemm.h for
// gemm; Attention.h for attention, out and lse at every query row, or at
// rows drawn from the seed when there are many; Moe.h for moe, y at every
// token or at moeCheckedTokens, and the routing workspace expert_ids at
// every token; GroupedGemm.h for grouped_gemm, D at every row or at
// groupedGemmCheckedRows, and every row in no group zero) under the GPU
// verification's tolerance. No CUDA, no GPU, no MLIR.
//
// What `kgen-bench run --emulate` is meant to call; kgen-emulate (tools/) is
// its command-line form.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_EMULATE_EMULATE_H
#define KGEN_EMULATE_EMULATE_H

#include "kgen/runtime/Package.h"

#include <cstdint>
#include <string>

namespace kgen::emu {

struct EmulateOptions {
  uint64_t seed = 1;          // inputs and the fiber schedule
  std::string cxx = "c++";    // host compiler
  std::string includeDir;     // emulation headers; empty: the built-in path
  std::string sourceOverride; // a kernel source to use instead of the
                              // package's (mutation tests); no SHA check
  std::string saveDir;        // write every tensor there as NAME.npy after
                              // the run (inputs as filled, outputs as
                              // computed): for comparing with kgen-run
  bool keepWorkDir = false;   // keep the wrapper, .so and compile log
  bool verbose = false;
};

struct EmulateResult {
  bool compiled = false; // the host compiler built the shared object
  bool ran = false;      // every kernel finished with no reported failure
  bool correct = false;  // ran, and the output is within the tolerance
  std::string error;     // why not, one line (reports go to stderr)
  double relError = 0;   // relative Frobenius error of D (attention: out,
                         // moe: y; grouped_gemm: D at the checked rows)
  double lseMaxAbsError = 0; // attention with lse: its largest error
  double tolerance = 0;  // the GPU verification's bound (Gemm.h,
                         // Attention.h, Moe.h, GroupedGemm.h)
  double seconds = 0;    // the kernels' emulated run, wall clock
  double flops = 0;      // the package's FLOPs
  std::string family;    // config.instruction
};

/// The emulation headers' folder in this source tree.
std::string defaultIncludeDir();

/// Runs `pkg` (a gemm, attention, moe or grouped_gemm package) emulated. False when it could not run or was wrong; `result` says which.
bool emulatePackage(const kgen::rt::KernelPackage &pkg,
                    const EmulateOptions &opts, EmulateResult &result);

} // namespace kgen::emu

#endif // KGEN_EMULATE_EMULATE_H
