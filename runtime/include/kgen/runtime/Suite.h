//===- Suite.h - GEMM and attention suites (bench/suites/*.json) -*- C++ -*-===//
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

#include "kgen/runtime/Attention.h"
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

/// An attention suite (bench/suites/attention.json) lists attention ops,
/// each an op object as a package's manifest holds it (Attention.h):
///
///   {"schema": "kgen.attention-suite", "version": 1, "name": "...",
///    "entries": [{"name": "llama3-8b/prefill 4k causal",
///                 "op": {"kind": "attention", "batch": 4, ...}}]}
///
/// An entry's group is its name up to the first '/' (the whole name
/// without one). Nothing runs a suite's attention ops yet: packages come
/// from the compiler, and there is no vendor attention baseline.
struct AttentionSuiteEntry {
  std::string group;  // "llama3-8b"
  std::string name;   // "llama3-8b/prefill 4k causal"
  AttentionSpec spec;
};

struct AttentionSuite {
  std::string name;   // the file's "name", or its path
  std::vector<AttentionSuiteEntry> entries; // in file order
};

/// Parses an attention suite: at least one entry, names non-empty and
/// distinct, each op accepted by parseAttentionOp. False with a message
/// naming the entry and the field.
bool parseAttentionSuite(const nlohmann::json &j, AttentionSuite &suite,
                         std::string &err);
bool loadAttentionSuite(const std::string &path, AttentionSuite &suite,
                        std::string &err);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_SUITE_H
