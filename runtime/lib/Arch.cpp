//===- Arch.cpp - CUDA architecture names and version numbers -------------===//

#include "kgen/runtime/Arch.h"

namespace kgen::rt {

std::string formatCudaVersion(int version) {
  return std::to_string(version / 1000) + "." +
         std::to_string((version % 1000) / 10);
}

std::string deviceArch(const DeviceInfo &info) {
  return "sm_" + std::to_string(info.ccMajor) + std::to_string(info.ccMinor);
}

std::optional<std::string> runArch(const std::string &target,
                                   const DeviceInfo &device) {
  // "sm_" then the capability's digits (minor last), then an optional "a".
  const bool specific = !target.empty() && target.back() == 'a';
  const std::string digits =
      target.rfind("sm_", 0) == 0
          ? target.substr(3, target.size() - 3 - (specific ? 1 : 0))
          : "";
  if (digits.size() < 2 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const int major = std::stoi(digits.substr(0, digits.size() - 1));
  const int minor = digits.back() - '0';
  const bool sameMajor = device.ccMajor == major;
  if (specific)
    return sameMajor && device.ccMinor == minor ? std::optional(target)
                                                : std::nullopt;
  if (sameMajor && device.ccMinor >= minor)
    return target;
  if (device.ccMajor > major)
    return deviceArch(device);
  return std::nullopt;
}

} // namespace kgen::rt
