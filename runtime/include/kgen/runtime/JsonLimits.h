//===- JsonLimits.h - what the runtime's JSON readers accept ----*- C++ -*-===//
//
// Every JSON file kgen reads (manifests, results, tuning databases, cost
// models, suites, ceilings) goes through one parser with these bounds, so
// that a hostile file gets a one-line error naming it instead of a crash,
// a hang or the memory of the machine (docs/security.md).
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_JSONLIMITS_H
#define KGEN_RUNTIME_JSONLIMITS_H

#include <cstdint>

namespace kgen::rt {

/// Deepest nesting of arrays and objects accepted. kgen's own formats nest
/// at most 6 levels (a result's op or config inside results[i]); a deeper
/// document is refused while parsing, before anything recursive (copies,
/// comparisons, serialisation, destruction) walks it.
constexpr int kMaxJsonDepth = 64;

/// Largest JSON file read by readJson (results, tuning databases, cost
/// models, suites), checked against the file's size before reading it.
constexpr int64_t kMaxJsonFileBytes = int64_t{256} << 20;

/// Largest manifest.json a package may have.
constexpr int64_t kMaxManifestBytes = int64_t{16} << 20;

} // namespace kgen::rt

#endif // KGEN_RUNTIME_JSONLIMITS_H
