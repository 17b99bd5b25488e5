//===- SuiteChild.cpp - probe, cuBLASLt suites and ceilings (in children) -===//

#include "kgen/runtime/cuda/Bench.h"

#include "kgen/runtime/cuda/Device.h"
#include "kgen/runtime/cuda/GemmLt.h"
#include "kgen/runtime/cuda/Session.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>

namespace kgen::rt {

namespace {

/// Random values repeated over every suite tensor: 2^24 elements (32 MiB of
/// bf16), far longer than any row, so operands look random to the GEMM.
constexpr int64_t kPoolElements = int64_t{1} << 24;
/// B starts this far into the pool, so that A and B differ.
constexpr int64_t kPoolOffsetB = 7919;
/// Fraction of the free device memory the tensor copies may take.
constexpr double kRotationMemoryFraction = 0.6;
/// The copy ceiling copies this much (or a quarter of free memory).
constexpr size_t kCopyBytes = size_t{4} << 30;
constexpr size_t kMiB = size_t{1} << 20;

/// One random pool per element type, created on first use.
class Pools {
public:
  explicit Pools(uint64_t seed) : seed_(seed) {}
  const RandomPool *get(ElemType type, std::string &err) {
    std::unique_ptr<RandomPool> &pool = pools_[type];
    if (!pool) {
      pool = std::make_unique<RandomPool>();
      if (!pool->create(type, kPoolElements, seed_ + static_cast<uint64_t>(type),
                        err)) {
        pool.reset();
        return nullptr;
      }
    }
    return pool.get();
  }

private:
  uint64_t seed_;
  std::map<ElemType, std::unique_ptr<RandomPool>> pools_;
};

/// A plain GEMM's operands: `sets` copies of A and B filled from the pool,
/// D's copies with copy 0 poisoned (NaN).
struct SuiteBuffers {
  int64_t elemA = 0, elemB = 0, elemD = 0;
  Arena a, b, d;
  int sets = 1;

  bool setUp(const CudaSession &session, const RandomPool &pool,
             const GemmSpec &spec, std::string &err) {
    elemA = spec.batch * spec.m * spec.k;
    elemB = (spec.batchedB ? spec.batch : 1) * spec.k * spec.n;
    elemD = spec.batch * spec.m * spec.n;
    const size_t bytesA = static_cast<size_t>(elemA) * elemTypeBytes(spec.a);
    const size_t bytesB = static_cast<size_t>(elemB) * elemTypeBytes(spec.b);
    const size_t bytesD = static_cast<size_t>(elemD) * elemTypeBytes(spec.d);
    const int64_t setBytes = static_cast<int64_t>(
        alignUp(bytesA, kSlotAlignment) + alignUp(bytesB, kSlotAlignment) +
        alignUp(bytesD, kSlotAlignment));
    int64_t freeBytes = 0;
    if (!session.freeBytes(freeBytes, err))
      return false;
    sets = rotationSets(setBytes, session.device().l2Bytes,
                        static_cast<int64_t>(kRotationMemoryFraction * freeBytes));
    if (!allocateArena(bytesA, sets, a, err) ||
        !allocateArena(bytesB, sets, b, err) ||
        !allocateArena(bytesD, sets, d, err) || !pool.fill(a.slot(0), elemA, 0, err) ||
        !pool.fill(b.slot(0), elemB, kPoolOffsetB, err) ||
        !replicateSlotZero(a, err) || !replicateSlotZero(b, err))
      return false;
    KGEN_CUDA_TRY(cudaMemset(d.slot(0), 0xFF, bytesD), err);
    return settle(err);
  }
};

/// Verifies (spot check against the host) and times cuBLASLt on a plain
/// GEMM (no C, no bias, no activation).
KernelResult runSuiteShape(CudaSession &session, Pools &pools,
                           const SuiteShape &shape, const BenchOptions &options) {
  const GemmSpec &spec = shape.spec;
  KernelResult result = newResult(shape.name, "cublaslt", gemmOpJson(spec));
  std::string err;
  const RandomPool *pool = pools.get(spec.a, err);
  SuiteBuffers buffers;
  if (pool == nullptr || !buffers.setUp(session, *pool, spec, err)) {
    markFailed(result, "setting up: " + err);
    return result;
  }
  std::string omitted;
  LtPlan plan;
  if (!plan.create(session.lt(), baselineProblem(spec, false, omitted),
                   session.workspaceBytes(), nullptr, err)) {
    result.reason = err; // skipped: cuBLASLt does not do this problem
    return result;
  }
  const LaunchFn launch = [&](int set, cudaStream_t stream, std::string &e) {
    return plan.run(buffers.a.slot(set), buffers.b.slot(set), nullptr,
                    buffers.d.slot(set), nullptr, session.workspace(), stream, e);
  };
  const std::vector<int64_t> indices =
      sampleIndices(buffers.elemD, kSpotCheckElements, options.seed);
  HostTensor got;
  if (!launch(0, session.stream(), err) ||
      !session.sync("the checked run", err) ||
      !downloadElements(buffers.d.slot(0), spec.d, indices, got, err)) {
    markFailed(result, err);
    return result;
  }
  const HostTensor expected = gemmExpected(spec, pool->view(0),
                                           pool->view(kPoolOffsetB), nullptr,
                                           nullptr, indices);
  if (judge(got, expected, gemmTolerance(spec, false), result))
    timeResult(launch, buffers.sets, session.stream(), options, gemmFlops(spec),
               gemmBytes(spec), result);
  return result;
}

bool fillBytes(const DeviceBuffer &buffer, int value, std::string &err) {
  KGEN_CUDA_TRY(cudaMemset(buffer.get(), value, buffer.bytes()), err);
  return true;
}

/// Device-to-device copy bandwidth, bytes read plus written.
KernelResult runCopy(CudaSession &session, const BenchOptions &options) {
  std::string err;
  int64_t freeBytes = 0;
  KernelResult result = newResult("d2d-copy", "cuda-memcpy", nullptr);
  if (!session.freeBytes(freeBytes, err)) {
    markFailed(result, err);
    return result;
  }
  const size_t bytes =
      std::min(kCopyBytes, static_cast<size_t>(freeBytes / 4)) / kMiB * kMiB;
  if (bytes == 0) {
    markFailed(result, "too little free device memory for the copy");
    return result;
  }
  result.name = "d2d-copy " + std::to_string(bytes >> 20) + " MiB";
  result.op = {{"kind", "copy"}, {"bytes", bytes}};
  DeviceBuffer src, dst;
  if (!src.allocate(bytes, err) || !dst.allocate(bytes, err) ||
      !fillBytes(src, 0x5A, err) || !fillBytes(dst, 0, err) || !settle(err)) {
    markFailed(result, err);
    return result;
  }
  const LaunchFn launch = [&](int, cudaStream_t stream, std::string &e) {
    KGEN_CUDA_TRY(cudaMemcpyAsync(dst.get(), src.get(), bytes,
                                  cudaMemcpyDeviceToDevice, stream),
                  e);
    return true;
  };
  timeResult(launch, 1, session.stream(), options, 0, 2.0 * static_cast<double>(bytes),
             result);
  return result;
}

} // namespace

int probeChild(int fd) {
  const DeviceProbe probe = probeDevice(0);
  switch (probe.status) {
  case ProbeStatus::Present:
    return emitFragment(fd, makeFragment(probe.info, {})) ? 0 : 1;
  case ProbeStatus::NoDevice:
    writeAll(fd, probe.error);
    return kNoDeviceExitCode;
  case ProbeStatus::Failed:
    break;
  }
  writeAll(fd, probe.error);
  return 1;
}

int suiteChild(const std::vector<SuiteShape> &shapes, const BenchOptions &options,
               int fd) {
  CudaSession session;
  std::string err;
  if (!session.open(err)) {
    std::fprintf(stderr, "kgen-bench: opening the device: %s\n", err.c_str());
    return 1;
  }
  Pools pools(options.seed);
  for (const SuiteShape &shape : shapes) {
    const KernelResult result = runSuiteShape(session, pools, shape, options);
    session.refreshClocks();
    if (!emitFragment(fd, makeFragment(session.device(), {result})))
      return 1;
    if (result.status == RunStatus::Faulted)
      return 1; // the context is gone
  }
  return 0;
}

int ceilingsChild(const BenchOptions &options, int fd) {
  CudaSession session;
  std::string err;
  if (!session.open(err)) {
    std::fprintf(stderr, "kgen-bench: opening the device: %s\n", err.c_str());
    return 1;
  }
  BenchOptions noCeilings = options;
  noCeilings.ceilings.reset();
  const KernelResult copy = runCopy(session, noCeilings);
  GemmSpec square;
  square.m = square.n = square.k = 8192;
  square.transposeB = true;
  Pools pools(options.seed);
  const KernelResult matmul = runSuiteShape(
      session, pools, {"ceiling", "ceiling/bf16 8192^3", square}, noCeilings);
  session.refreshClocks();
  ResultsFile fragment = makeFragment(session.device(), {copy, matmul});
  Ceilings ceilings;
  ceilings.copyGBps = copy.gbps;
  ceilings.matmulTflops = matmul.tflops;
  ceilings.matmulWhat =
      "bf16 8192x8192x8192 cuBLASLt (B transposed, f32 accumulate, random data)";
  fragment.ceilings = ceilings;
  if (!emitFragment(fd, fragment))
    return 1;
  return copy.status == RunStatus::Ok && matmul.status == RunStatus::Ok ? 0 : 1;
}

} // namespace kgen::rt
