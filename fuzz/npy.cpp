//===- npy.cpp - fuzz the .npy reader -------------------------------------===//
//
// The input is a .npy file, read with readNpy (runtime/include/kgen/runtime/
// Npy.h) at its default element limit. A tensor it accepts must keep the
// HostTensor invariant, survive writeNpy and a second read unchanged, and
// compare equal to itself.
//
//===----------------------------------------------------------------------===//

#include "FuzzUtil.h"

#include "kgen/runtime/Npy.h"

#include <algorithm>
#include <cmath>

using namespace kgen::rt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string path = kgen::fuzz::writeScratch(
      "in.npy", {reinterpret_cast<const char *>(data), size});
  HostTensor t;
  std::string err;
  if (!readNpy(path, t, err)) {
    KGEN_FUZZ_CHECK(err.rfind(path, 0) == 0, "the message starts with the path: " + err);
    KGEN_FUZZ_CHECK(err.find('\n') == std::string::npos, "one line: " + err);
    return 0;
  }
  int64_t count = 0;
  KGEN_FUZZ_CHECK(checkedNumElements(t.shape, int64_t{1} << 28, count, err), err);
  KGEN_FUZZ_CHECK(t.data.size() == static_cast<size_t>(count) * elemTypeBytes(t.type),
                  "data size matches the shape");
  // Elements through double (every type read has a conversion).
  for (int64_t i = 0; i < std::min<int64_t>(count, 1024); ++i)
    (void)t.getAsDouble(i);
  CompareStats stats;
  KGEN_FUZZ_CHECK(compare(t, t, stats, err), err);
  KGEN_FUZZ_CHECK(stats.nonFiniteMismatches == 0 && stats.count == count,
                  "a tensor agrees with itself");

  const std::string again = kgen::fuzz::scratchDir() + "/again.npy";
  KGEN_FUZZ_CHECK(writeNpy(again, t, err), err);
  HostTensor reread;
  KGEN_FUZZ_CHECK(readNpy(again, reread, err), err);
  KGEN_FUZZ_CHECK(reread.type == t.type && reread.shape == t.shape &&
                      reread.data == t.data,
                  "a tensor written reads back the same");
  return 0;
}
