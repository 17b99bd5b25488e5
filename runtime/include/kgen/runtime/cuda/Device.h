//===- Device.h - the CUDA device: probe, errors, driver entry points -*- C++ -*-===//
//
// Everything here talks to the CUDA runtime, so call it only in a child
// process (Isolate.h): a forked child cannot use a CUDA context its parent
// created. Driver API functions (cuTensorMapEncodeTiled, cuGetErrorString)
// are reached through cudaGetDriverEntryPointByVersion, never by linking
// libcuda: a binary linked against libcuda dies before main() on machines
// without a driver, and kgen-bench must run there (compile mode, exit 3).
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_CUDA_DEVICE_H
#define KGEN_RUNTIME_CUDA_DEVICE_H

#include "kgen/runtime/Results.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <string>

namespace kgen::rt {

/// "<call>: <error name>: <error message>", e.g. "cudaMalloc(&p, bytes):
/// cudaErrorMemoryAllocation: out of memory".
std::string cudaErrorText(const char *call, cudaError_t status);

/// Evaluates a CUDA runtime call; on failure stores cudaErrorText in `err`
/// (a std::string lvalue) and makes the enclosing function return false.
#define KGEN_CUDA_TRY(call, err)                                               \
  do {                                                                         \
    const cudaError_t kgenStatus_ = (call);                                    \
    if (kgenStatus_ != cudaSuccess) {                                          \
      (err) = ::kgen::rt::cudaErrorText(#call, kgenStatus_);                   \
      return false;                                                            \
    }                                                                          \
  } while (0)

/// True for the return codes of cudaGetDeviceCount that mean "this machine
/// has no usable GPU": cudaErrorNoDevice and cudaErrorInsufficientDriver
/// (error 35, what a machine without a driver returns).
bool isNoDeviceError(cudaError_t status);

/// True for the errors that leave the context unusable ("any further CUDA
/// work will return the same error"): illegal or misaligned address,
/// illegal instruction, device assert, stack overflow, kernel launch failure
/// or timeout, uncorrectable ECC, contained errors, tensor-memory leaks.
bool isStickyError(cudaError_t status);

/// After a failed step: waits for the device and reports whether
/// asynchronous work failed (a fault: the context is lost, the failure was
/// a kernel's doing) rather than a call being refused (bad launch
/// configuration, out of memory); clears the thread's last error either way.
bool deviceFaulted();

enum class ProbeStatus { Present, NoDevice, Failed };

struct DeviceProbe {
  ProbeStatus status = ProbeStatus::Failed;
  DeviceInfo info;    // Present: filled
  std::string error;  // NoDevice, Failed: why
};

/// Checks cudaGetDeviceCount's return code (it leaves the count untouched on
/// error), then makes `ordinal` current and reads its properties: name, SMs,
/// compute capability, L2 and memory size, driver and runtime versions, and
/// the clocks (see readClocks). Creates the CUDA context of this process.
DeviceProbe probeDevice(int ordinal = 0);

/// Fills info.smClockKHz and info.memClockKHz for device `ordinal`: the
/// current clocks through NVML (libnvidia-ml.so.1, opened at run time) when
/// it answers, else the peak clocks the CUDA runtime reports. Call it right
/// after timing so that the clocks are those of the measurement.
void readClocks(int ordinal, DeviceInfo &info);

/// The SM clock and NVML's clock event (throttle) reasons at one moment.
struct ClockReading {
  unsigned smMHz = 0;             // 0: not read
  std::optional<uint64_t> reasons; // NVML's bitmask (decodeThrottleReasons);
                                   // nullopt: not read
};

/// Reads the current SM clock and clock event reasons of device `ordinal`
/// through NVML (nvmlDeviceGetCurrentClocksEventReasons, else the older
/// nvmlDeviceGetCurrentClocksThrottleReasons). NVML is opened once per
/// process and kept, so this is cheap enough to call right before and right
/// after every timed loop. Without NVML (or a device it does not know)
/// nothing is read: 0 and nullopt.
ClockReading readLoopClocks(int ordinal);

/// The calling thread's current CUDA device (0 when the runtime does not say).
int currentDevice();

/// Looks up driver function `symbol` as of CUDA `version` (1000 * major +
/// 10 * minor, the version that introduced the signature you call it with)
/// through cudaGetDriverEntryPointByVersion. False with a message when the
/// driver lacks it.
bool driverEntryPoint(const char *symbol, unsigned version, void **fn,
                      std::string &err);

/// The driver's cuGetErrorString through the entry-point query: "<name>:
/// <message>" for a CUresult (an int here to keep cuda.h out of this header).
std::string driverErrorText(int result);

} // namespace kgen::rt

#endif // KGEN_RUNTIME_CUDA_DEVICE_H
