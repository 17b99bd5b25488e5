//===- TestOps.h - op signatures the runtime's tests share ------*- C++ -*-===//
#ifndef KGEN_RUNTIME_TEST_TESTOPS_H
#define KGEN_RUNTIME_TEST_TESTOPS_H

#include <nlohmann/json.hpp>

#include <cstdint>

namespace kgen::rt::test {

/// A complete gemm signature, as dialect/GemmJson.cpp writes it: bf16
/// m x 4096 x 4096, B transposed.
inline nlohmann::json gemmOp(int64_t m = 4096) {
  return {{"kind", "gemm"},       {"batch", 1},
          {"m", m},               {"n", 4096},
          {"k", 4096},            {"transpose_a", false},
          {"transpose_b", true},  {"batched_b", false},
          {"dtype_a", "bf16"},    {"dtype_b", "bf16"},
          {"dtype_d", "bf16"},    {"dtype_bias", nullptr},
          {"dtype_c", nullptr},   {"alpha", 1.0},
          {"beta", 0.0},          {"activation", "none"}};
}

} // namespace kgen::rt::test

#endif // KGEN_RUNTIME_TEST_TESTOPS_H
