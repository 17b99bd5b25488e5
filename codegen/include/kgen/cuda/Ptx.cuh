//===- Ptx.cuh - the instruction layer: one wrapper per PTX instruction -*- CUDA -*-===//
//
// The only place where the sm_80 tile primitives (Mma.cuh, CpAsync.cuh,
// Epilogue.cuh) write PTX. One function per instruction, each naming its
// PTX ISA section, with two implementations behind one macro:
//
//   default           inline PTX (nvcc, NVRTC); a use on too old a target is
//                     a compile error naming the requirement
//   KGEN_EMULATE      the emulated device (runtime/emulate/include/kgen/
//                     emulate/Ptx.h): the same functions, same signatures,
//                     written from the PTX ISA independently of the fragment
//                     and layout maps in Mma.cuh / Layout.cuh; the kernel is
//                     then compiled by a host C++ compiler and each CUDA
//                     thread runs as a fiber (docs/emulated-device.md)
//
//   ldmatrix_x{1,2,4}[_trans](regs, smem_addr)  ldmatrix.sync.aligned.m8n8
//                                   .{x1,x2,x4}{.trans}.shared.b16 [9.7.14.5.15]
//   mma_m16n8k16_bf16 / _f16(d0..d3, a, b)   mma.sync.aligned.m16n8k16.row.col
//                                   .f32.{bf16,f16}.{bf16,f16}.f32 [9.7.14.5.8]
//   mma_m16n8k8_tf32(d0..d3, a, b)   mma.sync.aligned.m16n8k8.row.col.f32
//                                   .tf32.tf32.f32 [9.7.14.5.7]
//   mma_m16n8k32_e4m3(d0..d3, a, b)  mma.sync.aligned.m16n8k32.row.col.f32
//                                   .e4m3.e4m3.f32 (sm_89+) [9.7.14.5.10]
//   f32_to_tf32(bits)                cvt.rna.tf32.f32 [9.7.9.21]
//   cvt_e4m3x2(hi, lo)               cvt.rn.satfinite.e4m3x2.f32 [9.7.9.21]
//   ld_shared_b32(addr)              ld.shared.b32 [9.7.9.8]
//   cp_async_cg_16(dst, src, bytes)  cp.async.cg.shared.global 16, src-size
//                                   [9.7.9.25.3.1]
//   cp_async_commit()                cp.async.commit_group [9.7.9.25.3.2]
//   cp_async_wait<N>()               cp.async.wait_group N [9.7.9.25.3.3]
//   cp_async_wait_all()              cp.async.wait_all [9.7.9.25.3.3]
//
// Block barriers are CUDA's __syncthreads (bar.sync 0), which the emulated
// device provides as a builtin. The sm_90a instructions (wgmma, TMA,
// mbarrier, cluster barriers, setmaxnreg, fences) still live in Wgmma.cuh
// and Tma.cuh; they move here, with their emulation, in the next step.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_CUDA_PTX_CUH
#define KGEN_CUDA_PTX_CUH

#include "kgen/cuda/Common.cuh"

#if KGEN_EMULATE
// Angle brackets: the package assembler inlines only "kgen/..." includes, so
// kernel.cu keeps this line and the GPU build never sees the emulation.
#include <kgen/emulate/Ptx.h>
#elif KGEN_CUDA_COMPILER

namespace kgen::cuda {

#define KGEN_PTX_ARCH_CHECK(min, dep, what)                                    \
  static_assert(KGEN_ARCH == 0 || KGEN_ARCH >= (min) || kFalse<dep>, what)

//===----------------------------------------------------------------------===//
// ldmatrix
//===----------------------------------------------------------------------===//

template <int kDummy = 0>
KGEN_DEVICE void ldmatrix_x4(unsigned (&r)[4], unsigned smem_addr) {
  KGEN_PTX_ARCH_CHECK(750, kDummy, "ldmatrix needs sm_75+");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr));
#endif
}
template <int kDummy = 0>
KGEN_DEVICE void ldmatrix_x4_trans(unsigned (&r)[4], unsigned smem_addr) {
  KGEN_PTX_ARCH_CHECK(750, kDummy, "ldmatrix needs sm_75+");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
  asm volatile(
      "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
      : "r"(smem_addr));
#endif
}
template <int kDummy = 0>
KGEN_DEVICE void ldmatrix_x2(unsigned (&r)[2], unsigned smem_addr) {
  KGEN_PTX_ARCH_CHECK(750, kDummy, "ldmatrix needs sm_75+");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(smem_addr));
#endif
}
template <int kDummy = 0>
KGEN_DEVICE void ldmatrix_x2_trans(unsigned (&r)[2], unsigned smem_addr) {
  KGEN_PTX_ARCH_CHECK(750, kDummy, "ldmatrix needs sm_75+");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(smem_addr));
#endif
}
template <int kDummy = 0>
KGEN_DEVICE void ldmatrix_x1(unsigned &r, unsigned smem_addr) {
  KGEN_PTX_ARCH_CHECK(750, kDummy, "ldmatrix needs sm_75+");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n"
               : "=r"(r)
               : "r"(smem_addr));
#endif
}
template <int kDummy = 0>
KGEN_DEVICE void ldmatrix_x1_trans(unsigned &r, unsigned smem_addr) {
  KGEN_PTX_ARCH_CHECK(750, kDummy, "ldmatrix needs sm_75+");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n"
               : "=r"(r)
               : "r"(smem_addr));
#endif
}

//===----------------------------------------------------------------------===//
// mma.sync (D = A * B + D, f32 accumulators)
//===----------------------------------------------------------------------===//

template <int kDummy = 0>
KGEN_DEVICE void mma_m16n8k16_bf16(float &d0, float &d1, float &d2, float &d3,
                                   const unsigned (&a)[4],
                                   const unsigned (&b)[2]) {
  KGEN_PTX_ARCH_CHECK(800, kDummy, "mma.sync m16n8k16 bf16 needs sm_80+");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}
template <int kDummy = 0>
KGEN_DEVICE void mma_m16n8k16_f16(float &d0, float &d1, float &d2, float &d3,
                                  const unsigned (&a)[4],
                                  const unsigned (&b)[2]) {
  KGEN_PTX_ARCH_CHECK(800, kDummy, "mma.sync m16n8k16 f16 needs sm_80+");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}
template <int kDummy = 0>
KGEN_DEVICE void mma_m16n8k8_tf32(float &d0, float &d1, float &d2, float &d3,
                                  const unsigned (&a)[4],
                                  const unsigned (&b)[2]) {
  KGEN_PTX_ARCH_CHECK(800, kDummy, "mma.sync m16n8k8 tf32 needs sm_80+");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}
template <int kDummy = 0>
KGEN_DEVICE void mma_m16n8k32_e4m3(float &d0, float &d1, float &d2, float &d3,
                                   const unsigned (&a)[4],
                                   const unsigned (&b)[2]) {
  KGEN_PTX_ARCH_CHECK(890, kDummy,
                      "mma.sync m16n8k32 e4m3 needs sm_89+ (sm_90a for Hopper)");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  asm("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

//===----------------------------------------------------------------------===//
// Conversions and shared loads
//===----------------------------------------------------------------------===//

/// f32 bits -> tf32 (round to nearest, ties away: cvt.rna), as a .b32.
template <int kDummy = 0> KGEN_DEVICE unsigned f32_to_tf32(unsigned bits) {
  KGEN_PTX_ARCH_CHECK(800, kDummy, "cvt.rna.tf32.f32 needs sm_80+");
  unsigned out = bits;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(out) : "f"(__uint_as_float(bits)));
#endif
  return out;
}

/// cvt.rn.satfinite.e4m3x2.f32: `hi` goes to the upper byte, `lo` to the
/// lower (lower address) one.
template <int kDummy = 0>
KGEN_DEVICE unsigned short cvt_e4m3x2(float hi, float lo) {
  KGEN_PTX_ARCH_CHECK(890, kDummy,
                      "e4m3 conversion (cvt.rn.satfinite.e4m3x2.f32) needs "
                      "sm_89+ (sm_90a on Hopper)");
  unsigned short r = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;\n" : "=h"(r) : "f"(hi), "f"(lo));
#endif
  return r;
}

KGEN_DEVICE unsigned ld_shared_b32(unsigned addr) {
  unsigned v = 0;
#if defined(__CUDA_ARCH__)
  asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(addr));
#endif
  return v;
}

//===----------------------------------------------------------------------===//
// cp.async (sm_80+)
//===----------------------------------------------------------------------===//

/// One 16-byte cp.async.cg; bytes past src_bytes (0..16) are zero-filled.
template <int kDummy = 0>
KGEN_DEVICE void cp_async_cg_16(void *smem_dst, const void *gmem_src,
                                int src_bytes) {
  KGEN_PTX_ARCH_CHECK(800, kDummy, "kgen::cuda::cp_async_cg_16 needs sm_80+");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(
                   smem_u32(smem_dst)),
               "l"(gmem_src), "r"(src_bytes)
               : "memory");
#endif
}

template <int kDummy = 0> KGEN_DEVICE void cp_async_commit() {
  KGEN_PTX_ARCH_CHECK(800, kDummy, "kgen::cuda::cp_async_commit needs sm_80+");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/// Waits until at most N of this thread's committed groups are pending.
template <int N> KGEN_DEVICE void cp_async_wait() {
  static_assert(N >= 0, "cp.async.wait_group takes N >= 0");
  KGEN_PTX_ARCH_CHECK(800, N, "kgen::cuda::cp_async_wait needs sm_80+");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

template <int kDummy = 0> KGEN_DEVICE void cp_async_wait_all() {
  KGEN_PTX_ARCH_CHECK(800, kDummy, "kgen::cuda::cp_async_wait_all needs sm_80+");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

#undef KGEN_PTX_ARCH_CHECK

} // namespace kgen::cuda

#endif // KGEN_EMULATE / KGEN_CUDA_COMPILER

#endif // KGEN_CUDA_PTX_CUH
