//===- gemm-suite.cpp - fuzz the GEMM shape suite reader ------------------===//
//
// The input is a suite file (bench/suites/gemm.json, runtime/include/kgen/
// runtime/Suite.h), loaded with loadGemmSuite as `kgen-bench baseline
// --suite` does, then deduplicated and grouped; every shape's op must
// survive gemmOpJson and parseGemmOp.
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"

#include "kgen/runtime/Suite.h"

using namespace kgen::rt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string path = kgen::fuzz::writeScratch(
      "suite.json", {reinterpret_cast<const char *>(data), size});
  GemmSuite suite;
  std::string err;
  if (!loadGemmSuite(path, suite, err)) {
    KGEN_FUZZ_CHECK(!err.empty(), "a refusal says why");
    return 0;
  }
  const std::vector<SuiteShape> distinct = distinctShapes(suite.shapes);
  KGEN_FUZZ_CHECK(distinct.size() <= suite.shapes.size(), "dedup never adds shapes");
  size_t grouped = 0;
  for (const std::vector<SuiteShape> &group : groupShapes(distinct))
    grouped += group.size();
  KGEN_FUZZ_CHECK(grouped == distinct.size(), "grouping keeps every shape");
  for (const SuiteShape &shape : distinct) {
    GemmSpec back;
    KGEN_FUZZ_CHECK(parseGemmOp(gemmOpJson(shape.spec), back, err), err);
    KGEN_FUZZ_CHECK(back.m == shape.spec.m && back.n == shape.spec.n &&
                        back.k == shape.spec.k && back.a == shape.spec.a &&
                        back.transposeB == shape.spec.transposeB,
                    "parseGemmOp(gemmOpJson(s)) gives s back");
    (void)gemmFlops(shape.spec);
    (void)gemmBytes(shape.spec);
  }
  return 0;
}
