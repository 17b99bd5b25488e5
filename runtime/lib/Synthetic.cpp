//===- Synthetic.cpp - stand-in measurements, for testing workflows -------===//

#include "kgen/runtime/Synthetic.h"

#include "kgen/runtime/Verdict.h"

#include <cmath>
#include <cstdlib>

namespace kgen::rt {

DeviceInfo syntheticDevice(const std::string &runtimeVersion) {
  DeviceInfo d;
  d.runtimeVersion = runtimeVersion;
  d.name = kSyntheticDevice;
  d.smCount = 132;
  d.ccMajor = 9;
  d.ccMinor = 0;
  return d;
}

Ceilings syntheticCeilings() {
  Ceilings c;
  c.copyGBps = 4000;
  c.matmulTflops = 700;
  c.matmulWhat = "synthetic stand-in, nothing measured";
  return c;
}

KernelResult syntheticRun(const KernelPackage &pkg) {
  KernelResult r = newResult(pkg.name, "kgen", pkg.op, pkg.config);
  r.sourceSha256 = pkg.sourceSha256;
  double predicted = 1.0;
  if (pkg.config.is_object() && pkg.config.contains("predicted_ms") &&
      pkg.config["predicted_ms"].is_number()) {
    const double p = pkg.config["predicted_ms"].get<double>();
    if (p > 0 && std::isfinite(p))
      predicted = p;
  }
  // The first 12 hex digits of the source's hash: a number in [0, 1).
  const std::string hex = pkg.sourceSha256.substr(0, 12);
  const double u =
      hex.size() == 12
          ? static_cast<double>(std::strtoull(hex.c_str(), nullptr, 16)) /
                static_cast<double>(1ull << 48)
          : 0.5;
  const double median = predicted * 0.8 * std::pow(1.25 / 0.8, u);
  std::vector<double> samples;
  for (int i = 0; i < 20; ++i) // +-1% in a fixed pattern
    samples.push_back(median * (1 + 0.002 * ((i * 7) % 11 - 5)));
  r.time = summarize(samples);
  r.samplesMs = samples;
  r.status = RunStatus::Ok;
  r.relError = 0;
  r.reason = "synthetic: a stand-in measurement, nothing ran";
  return r;
}

} // namespace kgen::rt
