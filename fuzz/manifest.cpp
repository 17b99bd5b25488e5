//===- manifest.cpp - fuzz the kernel package loader ----------------------===//
//
// The input is a package's manifest.json (docs/kernel-package.md), loaded
// with loadPackage from a folder that also holds kernel.cu; every "@SHA@"
// in the input is replaced by kernel.cu's SHA-256 first, so that seeds can
// reach the end of a successful load. A package it accepts must be written
// back by writePackage and load again the same; a gemm package then goes
// through kgen-bench's checks (parseGemmOp, checkGemmParams, the tolerance).
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"

#include "kgen/runtime/Gemm.h"
#include "kgen/runtime/Package.h"
#include "kgen/runtime/Sha256.h"

using namespace kgen::rt;

namespace {
constexpr const char *kSource =
    "extern \"C\" __global__ void kgen_fuzz_kernel(float *D) { D[0] = 1; }\n";

std::string withSha(std::string text) {
  static const std::string sha = sha256Hex(kSource);
  const std::string placeholder = "@SHA@";
  for (size_t at = text.find(placeholder); at != std::string::npos;
       at = text.find(placeholder, at + sha.size()))
    text.replace(at, placeholder.size(), sha);
  return text;
}

/// What a reload must give back: everything but the folder.
std::string describe(const KernelPackage &p) {
  nlohmann::json j = {{"name", p.name},         {"target", p.target},
                      {"source", p.sourceFile}, {"sha", p.sourceSha256},
                      {"op", p.op},             {"config", p.config},
                      {"flops", p.flops},       {"bytes", p.bytes},
                      {"kernels", p.kernels.size()},
                      {"params", p.params.size()}};
  for (const PackageKernel &k : p.kernels)
    j["entries"].push_back({k.entry, k.args, k.launch.grid, k.launch.block,
                            k.launch.cluster, k.launch.dynamicSmemBytes,
                            k.resources.has_value()});
  for (const KernelParam &q : p.params)
    j["names"].push_back({q.name, static_cast<int>(q.kind), static_cast<int>(q.dtype),
                          q.shape, static_cast<int>(q.role), q.value, q.tmaTensor,
                          q.tmaBox, q.tmaSwizzleBytes});
  return kgen::fuzz::jsonText(j);
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string dir = kgen::fuzz::freshScratchDir("pkg");
  kgen::fuzz::writeScratch("pkg/kernel.cu", kSource);
  kgen::fuzz::writeScratch(
      "pkg/manifest.json", withSha({reinterpret_cast<const char *>(data), size}));
  KernelPackage pkg;
  std::string err;
  if (!loadPackage(dir, pkg, err)) {
    KGEN_FUZZ_CHECK(err.find('\n') == std::string::npos, "one line: " + err);
    return 0;
  }
  KGEN_FUZZ_CHECK(!pkg.kernels.empty(), "a package has a kernel");
  for (const KernelParam &p : pkg.params)
    KGEN_FUZZ_CHECK(pkg.findParam(p.name).has_value(), "a parameter is found by name");

  const std::string copy = kgen::fuzz::freshScratchDir("copy");
  KGEN_FUZZ_CHECK(writePackage(copy, pkg, err), err);
  KernelPackage reloaded;
  KGEN_FUZZ_CHECK(loadPackage(copy, reloaded, err), err);
  KGEN_FUZZ_CHECK(describe(reloaded) == describe(pkg),
                  "a package written loads back the same");

  if (pkg.op.value("kind", "") == "gemm") {
    GemmSpec spec;
    if (parseGemmOp(pkg.op, spec, err) && checkGemmParams(pkg, spec, err)) {
      (void)gemmTolerance(spec, usesTf32(spec, pkg.config));
      (void)gemmFlops(spec);
      (void)gemmBytes(spec);
      GemmSpec back;
      KGEN_FUZZ_CHECK(parseGemmOp(gemmOpJson(spec), back, err), err);
      KGEN_FUZZ_CHECK(kgen::fuzz::jsonText(gemmOpJson(back)) ==
                          kgen::fuzz::jsonText(gemmOpJson(spec)),
                      "parseGemmOp(gemmOpJson(s)) gives s back");
    }
  }
  return 0;
}
