//===- Suite.h - GEMM shape suites (bench/suites/*.json) --------*- C++ -*-===//
//
// A suite lists the GEMMs of some models' linear layers:
//
//   {"schema": "kgen.gemm-suite", "version": 1, "dtype": "bf16",
//    "transpose_b": true, "m": [4096, 1, 8, 16, 64],
//    "models": [{"name": "llama3-8b", "comment": "...",
//                "gemms": [{"name": "qkv", "n": 6144, "k": 4096}, ...]}],
//    "anchors": [{"name": "square-8192", "m": 8192, "n": 8192, "k": 8192}]}
//
// Every model gemm is expanded at every M of "m" (a model may override "m");
// anchors are single shapes. transpose_b: B is [N, K], an nn.Linear weight.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_SUITE_H
#define KGEN_RUNTIME_SUITE_H

#include "kgen/runtime/Gemm.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kgen::rt {

struct SuiteShape {
  std::string group;  // model name, or "anchor"
  std::string name;   // "llama3-8b/qkv m=4096"
  GemmSpec spec;      // batch 1, A [M,K], D of the suite's dtype
};

struct GemmSuite {
  std::string name;   // the file's "name", or its path
  std::vector<SuiteShape> shapes; // in file order, models first
};

/// Parses and expands a suite; false with a message naming the field.
bool parseGemmSuite(const nlohmann::json &j, GemmSuite &suite, std::string &err);
bool loadGemmSuite(const std::string &path, GemmSuite &suite, std::string &err);

/// The suite's shapes with duplicates (same GemmSpec) merged into the first
/// occurrence, whose name gains " = <other names>".
std::vector<SuiteShape> distinctShapes(const std::vector<SuiteShape> &shapes);

/// Shapes grouped by SuiteShape::group, groups in order of first appearance.
std::vector<std::vector<SuiteShape>> groupShapes(const std::vector<SuiteShape> &shapes);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_SUITE_H
