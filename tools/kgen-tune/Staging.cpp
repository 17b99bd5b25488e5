//===- Staging.cpp - where kgen-tune --packages builds a gemm's packages --===//

#include "tools/kgen-tune/Staging.h"

namespace kgen::tune {

bool PackageStaging::create(const std::string &target, std::string &err) {
  return folder.createDirectory(target, err); // sweeps stale ones first
}

bool PackageStaging::commit(const std::string &target, std::string &err) {
  return folder.commit(target, err);
}

} // namespace kgen::tune
