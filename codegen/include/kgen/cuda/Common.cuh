//===- Common.cuh - macros and helpers shared by the tile primitives -*- CUDA -*-===//
//
// Included by every kgen::cuda header; usable on its own.
//
// Compilers: nvcc (host and device passes), NVRTC (device only; no host
// headers are included there), and a plain host C++17 compiler, which sees
// only the `KGEN_HD` constexpr functions (the CPU unit tests use that).
//
// Targets: nothing here needs a particular architecture. The arch macros
// below let the other headers turn the use of an instruction on a too-old
// target into a compile error that names the flag to use, instead of code
// that compiles and misbehaves.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_CUDA_COMMON_CUH
#define KGEN_CUDA_COMMON_CUH

// KGEN_EMULATE: the emulated device (docs/emulated-device.md). A host C++
// compiler builds the kernel with runtime/emulate/include first on the
// include path; kgen/emulate/Device.h supplies what a CUDA compiler would
// (threadIdx, __syncthreads, the vector types, ...) and the instruction
// layer (Ptx.cuh) switches to the emulated instructions.
#if defined(KGEN_EMULATE) && KGEN_EMULATE
#undef KGEN_EMULATE
#define KGEN_EMULATE 1
#include <kgen/emulate/Device.h>
#define KGEN_CUDA_COMPILER 1
#define KGEN_HD
#define KGEN_DEVICE inline
#elif defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define KGEN_EMULATE 0
#define KGEN_CUDA_COMPILER 1
/// Callable on host and device; constexpr where declared so.
#define KGEN_HD __host__ __device__
/// Device-only, always inlined (the primitives are meant to vanish into the
/// kernel that composes them).
#define KGEN_DEVICE __device__ __forceinline__
#else
#define KGEN_EMULATE 0
#define KGEN_CUDA_COMPILER 0
#define KGEN_HD
#endif

// KGEN_ARCH: __CUDA_ARCH__ in a device pass, 0 in a host pass.
#if defined(__CUDA_ARCH__)
#define KGEN_ARCH __CUDA_ARCH__
#else
#define KGEN_ARCH 0
#endif

// KGEN_SM90A: 1 in a device pass for the arch-specific sm_90a target
// (-gencode arch=compute_90a,code=sm_90a, or NVRTC -arch=sm_90a), where
// wgmma and setmaxnreg exist. Plain sm_90 has TMA and mbarrier tx-counts
// but not these.
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900) &&                        \
    defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define KGEN_SM90A 1
#else
#define KGEN_SM90A 0
#endif

namespace kgen::cuda {

/// std::is_same_v without <type_traits> (NVRTC compiles without the host's
/// standard headers).
template <class A, class B> inline constexpr bool kIsSame = false;
template <class A> inline constexpr bool kIsSame<A, A> = true;

/// False, but only once instantiated: `static_assert(kFalse<N>, "...")` in
/// a template body fires when that template is used, not when the header is
/// included. Every arch check in these headers uses it, so one translation
/// unit can include everything and still compile for sm_80 as long as it
/// does not call an sm_90a primitive.
template <auto...> inline constexpr bool kFalse = false;
template <class...> inline constexpr bool kFalseT = false;
/// A if C, else B (std::conditional_t, which NVRTC's headers lack).
template <bool C, class A, class B> struct Conditional { using type = A; };
template <class A, class B> struct Conditional<false, A, B> { using type = B; };
template <bool C, class A, class B>
using ConditionalT = typename Conditional<C, A, B>::type;

/// A (row, col) pair; what the fragment and layout maps return.
struct RowCol {
  int row;
  int col;
};

KGEN_HD constexpr bool is_pow2(int x) { return x > 0 && (x & (x - 1)) == 0; }

#if KGEN_CUDA_COMPILER && !KGEN_EMULATE
/// The 32-bit shared-window address of a generic pointer into shared memory
/// (what every `.shared` PTX operand wants).
KGEN_DEVICE unsigned smem_u32(const void *ptr) {
  return static_cast<unsigned>(__cvta_generic_to_shared(ptr));
}
#elif KGEN_EMULATE
/// The emulated device's shared window (kgen/emulate/Device.h).
inline unsigned smem_u32(const void *ptr) { return ::kgen::emu::smem_u32(ptr); }
#endif

} // namespace kgen::cuda

#endif // KGEN_CUDA_COMMON_CUH
