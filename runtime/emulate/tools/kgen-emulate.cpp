//===- kgen-emulate.cpp - run kernel packages on the emulated device ------===//
//
//   kgen-emulate [--seed N] [--source FILE] [--save-tensors DIR] [--cxx C]
//                [--keep] [-v] PKG...
//
// Each package's kernel.cu is compiled for the host with the emulated
// instruction layer and run on the CPU against the host reference
// (docs/emulated-device.md). One line per package:
//   NAME FAMILY emulated ok|WRONG|FAILED rel_err=E tol=T seconds=S mflops=F
// --save-tensors DIR (one package) writes its tensors as DIR/NAME.npy, the
// inputs as filled and the outputs as computed, for kgen-run --input /
// --compare-file to check against the op's reference semantics.
// Exit: 0 all correct, 1 a package failed or was wrong, 2 usage.
//
//===----------------------------------------------------------------------===//

#include "../Emulate.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  kgen::emu::EmulateOptions opts;
  std::vector<std::string> pkgs;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "kgen-emulate: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--seed") {
      const std::string v = value();
      char *end = nullptr;
      errno = 0;
      opts.seed = std::strtoull(v.c_str(), &end, 10);
      if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos ||
          errno != 0) {
        std::fprintf(stderr, "kgen-emulate: bad value for --seed (digits)\n");
        return 2;
      }
    } else if (a == "--save-tensors")
      opts.saveDir = value();
    else if (a == "--source")
      opts.sourceOverride = value();
    else if (a == "--cxx")
      opts.cxx = value();
    else if (a == "--include")
      opts.includeDir = value();
    else if (a == "--keep")
      opts.keepWorkDir = true;
    else if (a == "-v")
      opts.verbose = true;
    else if (a == "-h" || a == "--help") {
      std::printf("usage: kgen-emulate [--seed N] [--source FILE] "
                  "[--save-tensors DIR] [--cxx C] [--include DIR] [--keep] "
                  "[-v] PKG...\n");
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "kgen-emulate: unknown option %s\n", a.c_str());
      return 2;
    } else
      pkgs.push_back(a);
  }
  if (pkgs.empty()) {
    std::fprintf(stderr, "kgen-emulate: no package given\n");
    return 2;
  }
  if ((!opts.sourceOverride.empty() || !opts.saveDir.empty()) &&
      pkgs.size() != 1) {
    std::fprintf(stderr, "kgen-emulate: --source and --save-tensors take one "
                         "package\n");
    return 2;
  }
  int rc = 0;
  for (const std::string &dir : pkgs) {
    kgen::rt::KernelPackage pkg;
    std::string err;
    if (!kgen::rt::loadPackage(dir, pkg, err)) {
      std::fprintf(stderr, "kgen-emulate: %s\n", err.c_str());
      rc = 1;
      continue;
    }
    kgen::emu::EmulateResult r;
    const bool ok = kgen::emu::emulatePackage(pkg, opts, r);
    const char *verdict = ok ? "ok" : r.ran ? "WRONG" : "FAILED";
    std::printf("%s %s emulated %s rel_err=%.3g tol=%.3g seconds=%.3f "
                "mflops=%.1f\n",
                pkg.name.c_str(), r.family.c_str(), verdict, r.relError,
                r.tolerance, r.seconds,
                r.seconds > 0 ? r.flops / r.seconds / 1e6 : 0.0);
    std::fflush(stdout);
    if (!ok) {
      std::fprintf(stderr, "kgen-emulate: %s: %s\n", pkg.name.c_str(),
                   r.error.c_str());
      rc = 1;
    }
  }
  return rc;
}
