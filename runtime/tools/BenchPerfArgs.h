//===- BenchPerfArgs.h - command lines of compare and history ---*- C++ -*-===//
//
// Flags, options with a value (each at most once) and inputs in any order;
// messages escaped for the terminal.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_TOOLS_BENCHPERFARGS_H
#define KGEN_RUNTIME_TOOLS_BENCHPERFARGS_H

#include "kgen/runtime/Names.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace kgen::rt {

class ArgParser {
public:
  ArgParser(std::string mode, std::set<std::string> flags,
            std::set<std::string> valued)
      : mode(std::move(mode)), flags(std::move(flags)), valued(std::move(valued)) {}

  bool parse(const std::vector<std::string> &args, std::string &err) {
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string &a = args[i];
      if (a.size() > 1 && a[0] == '-') {
        if (values.count(a) || seenFlags.count(a)) {
          err = a + " given twice";
          return false;
        }
        if (flags.count(a)) {
          seenFlags.insert(a);
        } else if (valued.count(a)) {
          if (i + 1 == args.size()) {
            err = a + " needs a value";
            return false;
          }
          values[a] = args[++i];
        } else {
          err = "unknown option '" + escapeForTerminal(a) + "' for " + mode;
          return false;
        }
      } else {
        inputs.push_back(a);
      }
    }
    return true;
  }
  bool has(const std::string &opt) const {
    return seenFlags.count(opt) || values.count(opt);
  }
  const std::string &value(const std::string &opt) const { return values.at(opt); }

  std::vector<std::string> inputs;

private:
  std::string mode;
  std::set<std::string> flags, valued, seenFlags;
  std::map<std::string, std::string> values;
};

/// Plain digits, at most 1e15.
inline bool parseCount(const std::string &text, int64_t &out) {
  if (text.empty() || text.size() > 15 ||
      text.find_first_not_of("0123456789") != std::string::npos)
    return false;
  out = std::strtoll(text.c_str(), nullptr, 10);
  return true;
}

/// A finite decimal number, the whole text.
inline bool parseNumber(const std::string &text, double &out) {
  if (text.empty() || text.size() > 64)
    return false;
  char *end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(v))
    return false;
  out = v;
  return true;
}

/// Says `err` and returns kgen-bench's usage exit code, 2.
inline int usageError(const std::string &err, const std::string &mode) {
  std::fprintf(stderr, "kgen-bench: %s (kgen-bench %s --help for usage)\n",
               escapeForTerminal(err).c_str(), mode.c_str());
  return 2;
}

/// Says `err` (an unreadable input) and returns 2.
inline int inputError(const std::string &err) {
  std::fprintf(stderr, "kgen-bench: %s\n", escapeForTerminal(err).c_str());
  return 2;
}

} // namespace kgen::rt

#endif // KGEN_RUNTIME_TOOLS_BENCHPERFARGS_H
