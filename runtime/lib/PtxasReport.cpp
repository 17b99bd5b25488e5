//===- PtxasReport.cpp - ptxas's resource report, parsed ------------------===//
//
// Plain text parsing: the logs in runtime/test/data/ptxas show the format.
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/PtxasReport.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string_view>

namespace kgen::rt {
namespace {

/// Registers per thread: no more exist (compute capability >= 8.0).
constexpr int64_t kMaxRegisters = 255;

/// The number just before `suffix` in `line` ("... 40 bytes smem" with
/// suffix " bytes smem" gives 40); false if absent.
bool numberBefore(const std::string &line, const char *suffix, int64_t &out) {
  const size_t at = line.find(suffix);
  if (at == std::string::npos)
    return false;
  size_t begin = at;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(line[begin - 1])))
    --begin;
  if (begin == at || at - begin > 15)
    return false;
  out = std::stoll(line.substr(begin, at - begin));
  return true;
}

/// The text of `line` from `markerEnd` up to `end` (or the end of the line),
/// without trailing spaces.
std::string nameAfter(const std::string &line, size_t markerEnd, char end) {
  const size_t stop = end ? line.find(end, markerEnd) : std::string::npos;
  std::string name = line.substr(markerEnd, stop == std::string::npos
                                                ? std::string::npos
                                                : stop - markerEnd);
  while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back())))
    name.pop_back();
  return name;
}

} // namespace

bool parsePtxasReport(const std::string &log, const std::string &entry,
                      ResourceUsage &usage) {
  if (entry.empty())
    return false;
  constexpr std::string_view kCompiling = "Compiling entry function '";
  constexpr std::string_view kProperties = "Function properties for ";
  // The function the following lines describe: set by "Compiling entry
  // function 'X'" and by "Function properties for X" (which also appears
  // for non-inlined device functions).
  std::string current;
  bool found = false;
  ResourceUsage u;
  size_t lineStart = 0;
  while (lineStart < log.size()) {
    size_t lineEnd = log.find('\n', lineStart);
    if (lineEnd == std::string::npos)
      lineEnd = log.size();
    const std::string line = log.substr(lineStart, lineEnd - lineStart);
    lineStart = lineEnd + 1;
    size_t at;
    if ((at = line.find(kCompiling)) != std::string::npos) {
      current = nameAfter(line, at + kCompiling.size(), '\'');
      if (current == entry)
        u = ResourceUsage(); // a later report (another arch) replaces it
    } else if ((at = line.find(kProperties)) != std::string::npos) {
      current = nameAfter(line, at + kProperties.size(), 0);
    } else if (current != entry) {
      continue;
    } else if (line.find("bytes stack frame") != std::string::npos) {
      numberBefore(line, " bytes stack frame", u.stackBytes);
      numberBefore(line, " bytes spill stores", u.spillStoreBytes);
      numberBefore(line, " bytes spill loads", u.spillLoadBytes);
    } else if (int64_t registers; numberBefore(line, " registers", registers) &&
                                  line.find("Used ") != std::string::npos) {
      u.registers = static_cast<int>(std::min<int64_t>(registers, kMaxRegisters));
      numberBefore(line, " bytes smem", u.sharedBytes);
      numberBefore(line, " bytes cmem[0]", u.constantBytes);
      found = true;
    }
  }
  if (found)
    usage = u;
  return found;
}

} // namespace kgen::rt
