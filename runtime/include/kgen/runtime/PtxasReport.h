//===- PtxasReport.h - ptxas's resource report, parsed ----------*- C++ -*-===//
//
// ptxas reports each kernel's registers, shared memory, stack frame and
// spills when asked (nvcc -Xptxas -v; NVRTC --ptxas-options=-v, which
// compileCuda in Nvrtc.h passes and reads back through this parser). Plain
// text parsing, in kgen_runtime: it builds and is tested without the CUDA
// toolkit, on the logs in runtime/test/data/ptxas.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_PTXASREPORT_H
#define KGEN_RUNTIME_PTXASREPORT_H

#include "kgen/runtime/Package.h"

#include <string>

namespace kgen::rt {

/// Parses ptxas's verbose report for kernel `entry` (its exact, possibly
/// mangled, name): "Used N registers", "N bytes stack frame, N bytes spill
/// stores, N bytes spill loads", "N bytes smem", "N bytes cmem[0]". The
/// properties of non-inlined device functions are not the kernel's; with
/// several architectures (nvcc) the last report counts. False, `usage`
/// untouched, when the report has no entry for that kernel.
bool parsePtxasReport(const std::string &log, const std::string &entry,
                      ResourceUsage &usage);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_PTXASREPORT_H
