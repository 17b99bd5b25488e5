//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Reading and writing NumPy .npy files (format versions 1.0 and 2.0), C order,
// little-endian data.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_NPY_H
#define KGEN_RUNTIME_NPY_H

#include "kgen/runtime/HostTensor.h"

#include <cstdint>
#include <string>

namespace kgen::rt {

/// Reads the .npy file at `path` into `out`. Accepted dtypes and the element
/// types they give: '<f4' F32, '<f2' F16, '<f8' F64, '<i8' I64, '<i4' I32,
/// '<i2' I16, '|i1' I8, '|b1' I1 (any nonzero byte read as 1). Only
/// fortran_order False is accepted.
///
/// Returns false, with a one-line message starting with `path` in `err` and
/// `out` unchanged, for a missing or unreadable file, a directory, bad magic,
/// an unsupported version, a truncated or malformed header, an unknown dtype,
/// a negative shape, more than `maxElements` elements, or data shorter or
/// longer than the shape needs. The data size is checked against the file
/// size before anything of that size is allocated.
/// Precondition: maxElements >= 0.
bool readNpy(const std::string &path, HostTensor &out, std::string &err,
             int64_t maxElements = int64_t{1} << 28);

/// Writes `t` to `path` as a .npy file. Dtypes written: F32, BF16 and
/// F8E4M3FN as '<f4' (the latter two converted exactly), F16 '<f2', F64
/// '<f8', I64 '<i8', I32 '<i4', I16 '<i2', I8 '|i1', I1 '|b1'. The header is
/// padded so that the data starts at a multiple of 64 bytes, as NumPy does;
/// format 2.0 is used only if the header does not fit 1.0.
///
/// Atomic (writeFileAtomic): the file is written as a temporary beside
/// `path` and renamed over it, so `path` holds either its old contents or
/// the whole new file. Returns false, with a one-line message naming `path`
/// in `err`, when `t` breaks the HostTensor invariant or any file operation
/// fails; the temporary file is then removed, as on SIGINT or SIGTERM.
bool writeNpy(const std::string &path, const HostTensor &t, std::string &err);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_NPY_H
