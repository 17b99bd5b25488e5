//===- Names.h - the one check of names that reach source or files -*- C++ -*-===//
//
// Every string that becomes an identifier in generated CUDA, a file name, or
// text on a terminal passes one of these (docs/security.md). Header-only and
// free of MLIR, so the dialect's verifiers, the emitter and the runtime's
// readers ask the same question.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_NAMES_H
#define KGEN_RUNTIME_NAMES_H

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>

namespace kgen::rt {

/// Longest identifier kgen writes into generated source.
constexpr size_t kMaxIdentifierLength = 128;

/// Why `name` cannot be an identifier in generated C++/CUDA, or empty when
/// it can: [A-Za-z_][A-Za-z0-9_]* of at most kMaxIdentifierLength
/// characters, not reserved to the implementation (a double underscore, or
/// an underscore and a capital, at the start: __LINE__, _Pragma), not a
/// C++ or CUDA keyword, and not a CUDA built-in variable.
inline std::string identifierProblem(std::string_view name) {
  if (name.empty())
    return "is empty";
  if (name.size() > kMaxIdentifierLength)
    return "is longer than " + std::to_string(kMaxIdentifierLength) +
           " characters";
  auto alpha = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (!alpha(name[0]))
    return "does not start with a letter or '_'";
  for (char c : name)
    if (!alpha(c) && !digit(c))
      return "has a character other than letters, digits and '_'";
  if (name.size() >= 2 && name[0] == '_' &&
      (name[1] == '_' || (name[1] >= 'A' && name[1] <= 'Z')))
    return "is reserved to the C++ implementation (a leading '__' or '_' "
           "and a capital)";
  static constexpr std::string_view kReserved[] = {
      // C++ keywords and alternative tokens
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor",
      "bool", "break", "case", "catch", "char", "char8_t", "char16_t",
      "char32_t", "class", "co_await", "co_return", "co_yield", "compl",
      "concept", "const", "consteval", "constexpr", "constinit", "const_cast",
      "continue", "decltype", "default", "delete", "do", "double",
      "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false",
      "float", "for", "friend", "goto", "if", "inline", "int", "long",
      "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr",
      "operator", "or", "or_eq", "private", "protected", "public", "register",
      "reinterpret_cast", "requires", "return", "short", "signed", "sizeof",
      "static", "static_assert", "static_cast", "struct", "switch",
      "template", "this", "thread_local", "throw", "true", "try", "typedef",
      "typeid", "typename", "union", "unsigned", "using", "virtual", "void",
      "volatile", "wchar_t", "while", "xor", "xor_eq",
      // CUDA built-ins and the names the preprocessor or runtime define
      "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "clock",
      "main", "assert", "NULL", "errno", "defined"};
  if (std::find(std::begin(kReserved), std::end(kReserved), name) !=
      std::end(kReserved))
    return "is a C++ or CUDA keyword or built-in";
  return "";
}

inline bool isIdentifier(std::string_view name) {
  return identifierProblem(name).empty();
}

/// Why `name` cannot be one path component kgen writes (a package folder,
/// a file in it), or empty when it can: [A-Za-z0-9._-]+ of at most 200
/// characters, not "." or "..", not starting with '-' or '.'.
inline std::string fileNameProblem(std::string_view name) {
  if (name.empty())
    return "is empty";
  if (name.size() > 200)
    return "is longer than 200 characters";
  if (name[0] == '-' || name[0] == '.')
    return "starts with '-' or '.'";
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
      return "has a character other than letters, digits, '.', '_' and '-'";
  return "";
}

/// `text` safe to print on one line of a terminal or a report: control
/// characters (newlines, escape sequences), DEL and bytes past ASCII become
/// \xNN, a backslash becomes \\. Printable ASCII is unchanged.
inline std::string escapeForTerminal(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out;
}

} // namespace kgen::rt

#endif // KGEN_RUNTIME_NAMES_H
