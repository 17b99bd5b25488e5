//===- Sha256.h - SHA-256 of a byte string ----------------------*- C++ -*-===//
#ifndef KGEN_RUNTIME_SHA256_H
#define KGEN_RUNTIME_SHA256_H

#include <string>
#include <string_view>

namespace kgen::rt {
/// SHA-256 (FIPS 180-4) of `data` as 64 lowercase hex digits. Used for
/// package source hashes and compile-cache keys.
std::string sha256Hex(std::string_view data);
} // namespace kgen::rt

#endif // KGEN_RUNTIME_SHA256_H
