//===- Device.cpp - the CUDA device: probe, errors, driver entry points ---===//

#include "kgen/runtime/cuda/Device.h"

#include "kgen/runtime/Arch.h"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <dlfcn.h>

#include <cstdint>
#include <map>
#include <mutex>

namespace kgen::rt {

std::string cudaErrorText(const char *call, cudaError_t status) {
  return std::string(call) + ": " + cudaGetErrorName(status) + ": " +
         cudaGetErrorString(status);
}

bool isNoDeviceError(cudaError_t status) {
  return status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver;
}

bool isStickyError(cudaError_t status) {
  switch (status) {
  case cudaErrorIllegalAddress:
  case cudaErrorMisalignedAddress:
  case cudaErrorInvalidAddressSpace:
  case cudaErrorInvalidPc:
  case cudaErrorIllegalInstruction:
  case cudaErrorHardwareStackError:
  case cudaErrorAssert:
  case cudaErrorLaunchFailure:
  case cudaErrorLaunchTimeout:
  case cudaErrorECCUncorrectable:
  case cudaErrorContained:
  case cudaErrorTensorMemoryLeak:
    return true;
  default:
    return false;
  }
}

bool deviceFaulted() {
  // Asynchronous work reports its failures here, and each leaves the
  // context unusable: the sticky errors and anything unclassified (say
  // cudaErrorUnknown). A refused call (out of memory, a bad launch
  // configuration) returned its error already and left at most a stale
  // "last error": cleared, so that the next launch does not report it.
  const cudaError_t status = cudaDeviceSynchronize();
  (void)cudaGetLastError();
  return status != cudaSuccess;
}

bool driverEntryPoint(const char *symbol, unsigned version, void **fn,
                      std::string &err) {
  cudaDriverEntryPointQueryResult query = cudaDriverEntryPointSymbolNotFound;
  *fn = nullptr;
  const cudaError_t status = cudaGetDriverEntryPointByVersion(
      symbol, fn, version, cudaEnableDefault, &query);
  if (status != cudaSuccess) {
    err = cudaErrorText("cudaGetDriverEntryPointByVersion", status) +
          " (looking up " + symbol + ")";
    return false;
  }
  if (query != cudaDriverEntryPointSuccess || *fn == nullptr) {
    err = std::string("the CUDA driver has no ") + symbol + " (version " +
          formatCudaVersion(static_cast<int>(version)) + ")";
    return false;
  }
  return true;
}

std::string driverErrorText(int result) {
  const std::string code = "CUresult " + std::to_string(result);
  void *nameFn = nullptr, *stringFn = nullptr;
  std::string ignored;
  if (!driverEntryPoint("cuGetErrorName", 6000, &nameFn, ignored) ||
      !driverEntryPoint("cuGetErrorString", 6000, &stringFn, ignored))
    return code;
  const char *name = nullptr, *message = nullptr;
  const auto cuResult = static_cast<CUresult>(result);
  if (reinterpret_cast<PFN_cuGetErrorName_v6000>(nameFn)(cuResult, &name) !=
          CUDA_SUCCESS ||
      reinterpret_cast<PFN_cuGetErrorString_v6000>(stringFn)(
          cuResult, &message) != CUDA_SUCCESS)
    return code;
  return std::string(name) + ": " + message;
}

namespace {

/// The few NVML functions kgen reads clocks and clock event reasons with,
/// declared here because the toolkit ships no nvml.h; their C ABI is stable
/// since NVML 2.x (the event reasons since r535, under their older name
/// "throttle reasons" before).
using NvmlDevice = struct NvmlDeviceOpaque *;
using NvmlInitFn = int (*)();
using NvmlHandleByBusIdFn = int (*)(const char *, NvmlDevice *);
using NvmlClockInfoFn = int (*)(NvmlDevice, int, unsigned *);
using NvmlReasonsFn = int (*)(NvmlDevice, unsigned long long *);
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;  // NVML_CLOCK_SM
constexpr int kNvmlClockMem = 2; // NVML_CLOCK_MEM

/// NVML, opened and initialised once per process on first use and kept
/// (no nvmlShutdown: the children exit soon, and reads around every timed
/// loop must not pay for an initialisation); usable() false when
/// libnvidia-ml.so.1 is missing, lacks a function or does not initialise.
class Nvml {
public:
  static Nvml &get() {
    static Nvml nvml;
    return nvml;
  }
  bool usable() const { return usable_; }

  /// The device at `pciBusId`, looked up once per bus id.
  bool device(const char *pciBusId, NvmlDevice &out) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = devices_.find(pciBusId);
    if (it == devices_.end()) {
      NvmlDevice d = nullptr;
      if (byBusId_(pciBusId, &d) != kNvmlSuccess)
        return false;
      it = devices_.emplace(pciBusId, d).first;
    }
    out = it->second;
    return true;
  }
  bool clock(NvmlDevice d, int which, unsigned &mhz) const {
    return clockInfo_(d, which, &mhz) == kNvmlSuccess;
  }
  /// The current clock event reasons; false when this NVML has neither
  /// function or it does not answer.
  bool reasons(NvmlDevice d, uint64_t &mask) const {
    unsigned long long value = 0;
    for (NvmlReasonsFn fn : {eventReasons_, throttleReasons_})
      if (fn && fn(d, &value) == kNvmlSuccess) {
        mask = value;
        return true;
      }
    return false;
  }

private:
  Nvml() {
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr)
      return;
    auto init = reinterpret_cast<NvmlInitFn>(dlsym(lib, "nvmlInit_v2"));
    byBusId_ = reinterpret_cast<NvmlHandleByBusIdFn>(
        dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
    clockInfo_ =
        reinterpret_cast<NvmlClockInfoFn>(dlsym(lib, "nvmlDeviceGetClockInfo"));
    eventReasons_ = reinterpret_cast<NvmlReasonsFn>(
        dlsym(lib, "nvmlDeviceGetCurrentClocksEventReasons"));
    throttleReasons_ = reinterpret_cast<NvmlReasonsFn>(
        dlsym(lib, "nvmlDeviceGetCurrentClocksThrottleReasons"));
    usable_ = init && byBusId_ && clockInfo_ && init() == kNvmlSuccess;
    if (!usable_)
      dlclose(lib);
  }

  bool usable_ = false;
  NvmlHandleByBusIdFn byBusId_ = nullptr;
  NvmlClockInfoFn clockInfo_ = nullptr;
  NvmlReasonsFn eventReasons_ = nullptr, throttleReasons_ = nullptr;
  std::mutex mutex_;
  std::map<std::string, NvmlDevice> devices_;
};

/// Device `ordinal` in NVML; false when NVML is unusable or does not know it.
bool nvmlDevice(int ordinal, NvmlDevice &device) {
  Nvml &nvml = Nvml::get();
  char busId[32] = {};
  return nvml.usable() &&
         cudaDeviceGetPCIBusId(busId, sizeof(busId), ordinal) == cudaSuccess &&
         nvml.device(busId, device);
}

/// Fills everything but the clocks; false with a message on a CUDA error.
bool readProperties(int ordinal, DeviceInfo &info, std::string &err) {
  cudaDeviceProp prop{};
  KGEN_CUDA_TRY(cudaGetDeviceProperties(&prop, ordinal), err);
  info.name = prop.name;
  info.smCount = prop.multiProcessorCount;
  info.ccMajor = prop.major;
  info.ccMinor = prop.minor;
  info.l2Bytes = prop.l2CacheSize;
  info.memoryBytes = static_cast<int64_t>(prop.totalGlobalMem);
  int driver = 0, runtime = 0;
  KGEN_CUDA_TRY(cudaDriverGetVersion(&driver), err);
  KGEN_CUDA_TRY(cudaRuntimeGetVersion(&runtime), err);
  info.driverVersion = formatCudaVersion(driver);
  info.runtimeVersion = formatCudaVersion(runtime);
  return true;
}

} // namespace

void readClocks(int ordinal, DeviceInfo &info) {
  NvmlDevice device = nullptr;
  unsigned smMHz = 0, memMHz = 0;
  if (nvmlDevice(ordinal, device) &&
      Nvml::get().clock(device, kNvmlClockSm, smMHz) &&
      Nvml::get().clock(device, kNvmlClockMem, memMHz)) {
    info.smClockKHz = static_cast<int>(smMHz) * 1000;
    info.memClockKHz = static_cast<int>(memMHz) * 1000;
    return;
  }
  int sm = 0, mem = 0;
  if (cudaDeviceGetAttribute(&sm, cudaDevAttrClockRate, ordinal) == cudaSuccess)
    info.smClockKHz = sm;
  if (cudaDeviceGetAttribute(&mem, cudaDevAttrMemoryClockRate, ordinal) ==
      cudaSuccess)
    info.memClockKHz = mem;
}

ClockReading readLoopClocks(int ordinal) {
  ClockReading reading;
  NvmlDevice device = nullptr;
  if (!nvmlDevice(ordinal, device))
    return reading;
  unsigned mhz = 0;
  if (Nvml::get().clock(device, kNvmlClockSm, mhz))
    reading.smMHz = mhz;
  uint64_t mask = 0;
  if (Nvml::get().reasons(device, mask))
    reading.reasons = mask;
  return reading;
}

int currentDevice() {
  int ordinal = 0;
  return cudaGetDevice(&ordinal) == cudaSuccess ? ordinal : 0;
}

DeviceProbe probeDevice(int ordinal) {
  DeviceProbe probe;
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  // "Insufficient driver" with a driver present is a GPU this runtime
  // cannot use until the driver is upgraded: a failure that says so, not
  // "no device".
  int driver = 0, runtime = 0;
  if (status == cudaErrorInsufficientDriver &&
      cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0) {
    (void)cudaRuntimeGetVersion(&runtime);
    probe.error = "the driver supports CUDA " + formatCudaVersion(driver) +
                  ", this runtime needs CUDA " + formatCudaVersion(runtime) +
                  ": upgrade the driver (" +
                  cudaErrorText("cudaGetDeviceCount", status) + ")";
    return probe;
  }
  if (isNoDeviceError(status) || (status == cudaSuccess && count == 0)) {
    probe.status = ProbeStatus::NoDevice;
    probe.error = status == cudaSuccess
                      ? "no CUDA device"
                      : cudaErrorText("cudaGetDeviceCount", status);
    return probe;
  }
  if (status != cudaSuccess) {
    probe.error = cudaErrorText("cudaGetDeviceCount", status);
    return probe;
  }
  if (ordinal < 0 || ordinal >= count) {
    probe.error = "device " + std::to_string(ordinal) + " requested, " +
                  std::to_string(count) + " present";
    return probe;
  }
  const cudaError_t set = cudaSetDevice(ordinal);
  if (set != cudaSuccess) {
    probe.error = cudaErrorText("cudaSetDevice", set);
    return probe;
  }
  if (!readProperties(ordinal, probe.info, probe.error))
    return probe;
  readClocks(ordinal, probe.info);
  probe.status = ProbeStatus::Present;
  return probe;
}

} // namespace kgen::rt
