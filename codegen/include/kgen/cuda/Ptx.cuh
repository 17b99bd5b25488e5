//===- Ptx.cuh - the instruction layer: one wrapper per PTX instruction -*- CUDA -*-===//
//
// The only place where the tile primitives (Mma.cuh, CpAsync.cuh,
// Epilogue.cuh, Tma.cuh, Wgmma.cuh) write PTX. One function per instruction, each naming its
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
//   cvt_f16x2_e4m3x2(pair)           cvt.rn.f16x2.e4m3x2: two e4m3 bytes
//                                   widened (exactly) to two f16, the
//                                   upper byte to the upper half [9.7.9.21]
//   cvt_bf16x2(hi, lo), cvt_f16x2(hi, lo)   cvt.rn.{bf16x2,f16x2}.f32: two
//                                   f32 rounded to nearest even into one
//                                   .b32, hi in the upper half [9.7.9.21]
//   shfl_xor(v, lane_mask)           shfl.sync.bfly.b32 over the full warp
//                                   (c = 0x1f, membermask 0xffffffff): lane
//                                   i receives lane (i ^ lane_mask)'s v
//                                   [9.7.9.6]
//   shfl_xor_u32(v, lane_mask)       the same on 32-bit integer data
//   shfl_idx(v, src_lane), shfl_idx_u32  shfl.sync.idx.b32 (c = 0x1f): every
//                                   lane receives lane src_lane[4:0]'s v
//                                   [9.7.9.6]
//   shfl_up_u32(v, delta)            shfl.sync.up.b32 (c = 0): lane i
//                                   receives lane i - delta's v, lanes
//                                   below delta keep their own [9.7.9.6]
//   ballot(pred)                     vote.sync.ballot.b32 over the full warp:
//                                   bit i is lane i's pred [9.7.13.9]
//   popc(x)                          popc.b32: the number of set bits
//                                   [9.7.1.14]
//   fmul_rn(a, b), fadd_rn(a, b), fdiv_rn(a, b)   mul.rn / add.rn / div.rn
//                                   .f32: one IEEE rounding each; an
//                                   explicit rounding mode keeps ptxas from
//                                   contracting a mul and an add into an
//                                   fma [9.7.3.5, 9.7.3.3, 9.7.3.8]
//   ld_shared_b32(addr)              ld.shared.b32 [9.7.9.8]
//   ld_shared(p) / st_shared(p, v)   a load / store of one T through a
//                                   generic pointer into shared memory
//                                   (ld.shared / st.shared [9.7.9.8/9]):
//                                   plain C++ accesses on the GPU (the
//                                   compiler emits ld.shared / st.shared);
//                                   emulated, they are checked for bounds,
//                                   alignment and races like the others
//   cp_async_cg_16(dst, src, bytes)  cp.async.cg.shared.global 16, src-size
//                                   [9.7.9.25.3.1]
//   cp_async_commit()                cp.async.commit_group [9.7.9.25.3.2]
//   cp_async_wait<N>()               cp.async.wait_group N [9.7.9.25.3.3]
//   cp_async_wait_all()              cp.async.wait_all [9.7.9.25.3.3]
//
// sm_90 / sm_90a (Tma.cuh and Wgmma.cuh compose these; emulated by
// runtime/emulate/include/kgen/emulate/Sm90.h):
//   mbar_init(bar, count)            mbarrier.init.shared::cta.b64 [9.7.13.15]
//   fence_barrier_init()             fence.mbarrier_init.release.cluster
//                                   [9.7.13.4]
//   mbar_arrive_expect_tx(bar, n)    mbarrier.arrive.expect_tx [9.7.13.15]
//   mbar_expect_tx(bar, n)           mbarrier.expect_tx [9.7.13.15]
//   mbar_arrive(bar)                 mbarrier.arrive [9.7.13.15]
//   mbar_arrive_cluster(bar, cta)    mapa.shared::cluster [9.7.9.23] +
//                                   mbarrier.arrive.release.cluster
//   mbar_try_wait(bar, parity)       mbarrier.try_wait.parity [9.7.13.15]
//   tma_load_2d / _3d / _4d(dst, map, bar, c..)   cp.async.bulk.tensor
//                                   .{2d,3d,4d}
//                                   .shared::cluster.global.mbarrier::
//                                   complete_tx::bytes [9.7.9.25.5.2]
//   tma_load_2d_multicast(.., mask)  the same, .multicast::cluster (sm_90a)
//   tma_store_2d(map, src, c0, c1)   cp.async.bulk.tensor.2d.global
//                                   .shared::cta.bulk_group
//   tma_store_commit()               cp.async.bulk.commit_group [9.7.9.25.6]
//   tma_store_wait_read<N>()         cp.async.bulk.wait_group.read N
//                                   [9.7.9.25.6.2]
//   prefetch_tensormap(map)          prefetch.tensormap (prefetch, 9.7.9)
//   fence_proxy_async()              fence.proxy.async.shared::cta [9.7.13.4]
//   named_barrier_sync / _arrive(id, n)   bar.sync / bar.arrive [9.7.13.1]
//   elect_one()                      elect.sync [9.7.13.14]
//   cluster_ctarank(), cluster_nctarank()  %cluster_ctarank,
//                                   %cluster_nctarank [10.16]
//   cluster_sync()                   barrier.cluster.arrive.release +
//                                   .wait.acquire (.aligned) [9.7.13.3]
//   wgmma_fence(), wgmma_commit(), wgmma_wait<N>()   wgmma.fence /
//                                   commit_group / wait_group [9.7.15.7]
//   fence_operand(acc)               no instruction: a compiler fence on
//                                   registers a wgmma writes asynchronously
//   warpgroup_reg_alloc / _dealloc<R>()  setmaxnreg.inc / .dec [9.7.19.5]
//   wgmma_bf16 / _f16<N, TA, TB>(d, da, db, scale_d), wgmma_e4m3<N>(..)
//                                   wgmma.mma_async.sync.aligned.m64nNk16
//                                   / k32 .f32 [9.7.15.5.2]
//   wgmma_rs_bf16 / _rs_f16<N, TB>(d, a[4], db, scale_d)   the same with A
//                                   in registers (m64nNk16, no imm-trans-a;
//                                   fragment: 9.7.15.5.1.1.1, Figure 148)
//   wgmma_rs_e4m3<N>(d, a[4], db, scale_d)   m64nNk32 e4m3 with A in
//                                   registers (no imm-trans-a/b; fragment:
//                                   9.7.15.5.1.1, Figure 152, read from
//                                   CUTLASS's ALayout_64x32)
//
// Block barriers are CUDA's __syncthreads (bar.sync 0), which the emulated
// device provides as a builtin.
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

// The TMA wrappers take the tensor map by address; Tma.cuh declares the type
// (the driver's <cuda.h>, or its layout under NVRTC).
struct CUtensorMap_st;
typedef struct CUtensorMap_st CUtensorMap;

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

/// cvt.rn.f16x2.e4m3x2 d, a: the e4m3 in a[15:8] to d[31:16], the one in
/// a[7:0] (the lower address) to d[15:0]. Exact: every e4m3 value,
/// subnormals and NaN included, is an f16 value.
template <int kDummy = 0>
KGEN_DEVICE unsigned cvt_f16x2_e4m3x2(unsigned short pair) {
  KGEN_PTX_ARCH_CHECK(890, kDummy,
                      "e4m3 widening (cvt.rn.f16x2.e4m3x2) needs sm_89+ "
                      "(sm_90a on Hopper)");
  unsigned r = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;\n" : "=r"(r) : "h"(pair));
#endif
  return r;
}

/// cvt.rn.bf16x2.f32 d, hi, lo: `hi` to d[31:16], `lo` to d[15:0] (the
/// lower-indexed element of a packed pair is `lo`).
template <int kDummy = 0> KGEN_DEVICE unsigned cvt_bf16x2(float hi, float lo) {
  KGEN_PTX_ARCH_CHECK(800, kDummy, "cvt.rn.bf16x2.f32 needs sm_80+");
  unsigned r = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
#endif
  return r;
}

/// cvt.rn.f16x2.f32 d, hi, lo: as cvt_bf16x2, to f16.
template <int kDummy = 0> KGEN_DEVICE unsigned cvt_f16x2(float hi, float lo) {
  KGEN_PTX_ARCH_CHECK(800, kDummy, "cvt.rn.f16x2.f32 needs sm_80+");
  unsigned r = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
#endif
  return r;
}

//===----------------------------------------------------------------------===//
// Warp shuffle
//===----------------------------------------------------------------------===//

/// shfl.sync.bfly.b32 d, v, lane_mask, 0x1f, 0xffffffff: lane i receives
/// lane (i ^ lane_mask[4:0])'s v. c = 0x1f (no sub-segments, clamp 31), so
/// every source lane is in range. All 32 lanes must execute it together
/// (membermask is the full warp). volatile: the compiler must not sink it
/// into code that only some lanes run.
KGEN_DEVICE float shfl_xor(float v, int lane_mask) {
  float r = v;
#if defined(__CUDA_ARCH__)
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;\n"
      : "=f"(r)
      : "f"(v), "r"(lane_mask));
#endif
  return r;
}

/// shfl_xor on 32-bit integer data (the instruction moves .b32 bits).
KGEN_DEVICE unsigned shfl_xor_u32(unsigned v, int lane_mask) {
  unsigned r = v;
#if defined(__CUDA_ARCH__)
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;\n"
      : "=r"(r)
      : "r"(v), "r"(lane_mask));
#endif
  return r;
}

/// shfl.sync.idx.b32 d, v, src_lane, 0x1f, 0xffffffff: every lane receives
/// lane src_lane[4:0]'s v (a broadcast when src_lane is warp-uniform).
KGEN_DEVICE unsigned shfl_idx_u32(unsigned v, int src_lane) {
  unsigned r = v;
#if defined(__CUDA_ARCH__)
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;\n"
      : "=r"(r)
      : "r"(v), "r"(src_lane));
#endif
  return r;
}
KGEN_DEVICE float shfl_idx(float v, int src_lane) {
  return __uint_as_float(shfl_idx_u32(__float_as_uint(v), src_lane));
}

/// shfl.sync.up.b32 d, v, delta, 0, 0xffffffff: lane i receives lane
/// (i - delta)'s v when i >= delta, else its own v (c = 0: no segments, the
/// clamp is lane 0); the step of an inclusive warp scan.
KGEN_DEVICE unsigned shfl_up_u32(unsigned v, int delta) {
  unsigned r = v;
#if defined(__CUDA_ARCH__)
  asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;\n"
      : "=r"(r)
      : "r"(v), "r"(delta));
#endif
  return r;
}

/// vote.sync.ballot.b32 d, pred, 0xffffffff: bit i of d is lane i's pred.
/// All 32 lanes must execute it together.
KGEN_DEVICE unsigned ballot(bool pred) {
  unsigned r = 0;
#if defined(__CUDA_ARCH__)
  asm volatile("{\n"
               "  .reg .pred p;\n"
               "  setp.ne.u32 p, %1, 0;\n"
               "  vote.sync.ballot.b32 %0, p, 0xffffffff;\n"
               "}\n"
      : "=r"(r)
      : "r"(unsigned(pred)));
#endif
  return r;
}

/// popc.b32: the number of set bits of x.
KGEN_DEVICE unsigned popc(unsigned x) {
  unsigned r = 0;
#if defined(__CUDA_ARCH__)
  asm("popc.b32 %0, %1;\n" : "=r"(r) : "r"(x));
#endif
  return r;
}

/// mul.rn.f32 / add.rn.f32 / div.rn.f32: IEEE round-to-nearest-even, never
/// fused (ptxas contracts only a mul and an add without a rounding mode).
KGEN_DEVICE float fmul_rn(float a, float b) {
  float r = 0.f;
#if defined(__CUDA_ARCH__)
  asm("mul.rn.f32 %0, %1, %2;\n" : "=f"(r) : "f"(a), "f"(b));
#endif
  return r;
}
KGEN_DEVICE float fadd_rn(float a, float b) {
  float r = 0.f;
#if defined(__CUDA_ARCH__)
  asm("add.rn.f32 %0, %1, %2;\n" : "=f"(r) : "f"(a), "f"(b));
#endif
  return r;
}
KGEN_DEVICE float fdiv_rn(float a, float b) {
  float r = 0.f;
#if defined(__CUDA_ARCH__)
  asm("div.rn.f32 %0, %1, %2;\n" : "=f"(r) : "f"(a), "f"(b));
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

/// *p, p pointing into shared memory (sizeof(T)-aligned).
template <class T> KGEN_DEVICE T ld_shared(const T *p) { return *p; }

/// *p = v, p pointing into shared memory (sizeof(T)-aligned).
template <class T> KGEN_DEVICE void st_shared(T *p, const T &v) { *p = v; }

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

//===----------------------------------------------------------------------===//
// sm_90 / sm_90a: mbarrier, TMA, bulk stores, fences, clusters, wgmma,
// setmaxnreg (used by Tma.cuh and Wgmma.cuh)
//===----------------------------------------------------------------------===//

#define KGEN_REQUIRE_SM90(dep, what)                                           \
  static_assert(KGEN_ARCH == 0 || KGEN_ARCH >= 900 || kFalse<dep>,             \
                what " needs sm_90+ (TMA / mbarrier transaction counts)")
#define KGEN_REQUIRE_SM90A(dep, what)                                          \
  static_assert(KGEN_ARCH == 0 || KGEN_SM90A || kFalse<dep>,                   \
                what " needs sm_90a: compile with -gencode "                   \
                     "arch=compute_90a,code=sm_90a (NVRTC: -arch=sm_90a)")

// mbarrier [9.7.13.15]

template <int kDummy = 0>
KGEN_DEVICE void mbar_init(unsigned long long *bar, unsigned count) {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::mbar_init");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)),
               "r"(count)
               : "memory");
#endif
}

/// Makes mbarrier inits visible to the cluster (and to the async proxy);
/// follow it with __syncthreads() or cluster_sync().
template <int kDummy = 0> KGEN_DEVICE void fence_barrier_init() {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::fence_barrier_init");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}

template <int kDummy = 0>
KGEN_DEVICE void mbar_arrive_expect_tx(unsigned long long *bar,
                                       unsigned bytes) {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::mbar_arrive_expect_tx");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(
                   smem_u32(bar)),
               "r"(bytes)
               : "memory");
#endif
}

template <int kDummy = 0>
KGEN_DEVICE void mbar_expect_tx(unsigned long long *bar, unsigned bytes) {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::mbar_expect_tx");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.expect_tx.shared::cta.b64 [%0], %1;\n" ::"r"(
                   smem_u32(bar)),
               "r"(bytes)
               : "memory");
#endif
}

template <int kDummy = 0> KGEN_DEVICE void mbar_arrive(unsigned long long *bar) {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::mbar_arrive");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_u32(bar))
               : "memory");
#endif
}

/// Arrives on the barrier at `bar`'s shared-memory offset in cluster CTA
/// `cta_rank` (release at cluster scope).
template <int kDummy = 0>
KGEN_DEVICE void mbar_arrive_cluster(unsigned long long *bar,
                                     unsigned cta_rank) {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::mbar_arrive_cluster");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("{\n"
               ".reg .b32 remote;\n"
               "mapa.shared::cluster.u32 remote, %0, %1;\n"
               "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n"
               "}\n" ::"r"(smem_u32(bar)),
               "r"(cta_rank)
               : "memory");
#endif
}

/// True once the phase with parity `parity` (0 or 1) has completed. The
/// hardware may suspend the thread for a while before returning false.
template <int kDummy = 0>
KGEN_DEVICE bool mbar_try_wait(unsigned long long *bar, unsigned parity) {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::mbar_try_wait");
  unsigned done = 1;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("{\n"
               ".reg .pred p;\n"
               "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
               "selp.u32 %0, 1, 0, p;\n"
               "}\n"
               : "=r"(done)
               : "r"(smem_u32(bar)), "r"(parity)
               : "memory");
#endif
  return done != 0;
}

// TMA: cp.async.bulk.tensor [9.7.9.25.5.2], bulk stores [9.7.9.25.6],
// prefetch.tensormap

template <int kDummy = 0>
KGEN_DEVICE void tma_load_2d(void *smem_dst, const CUtensorMap *map,
                             unsigned long long *bar, int c0, int c1) {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::tma_load_2d");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(
                   smem_u32(smem_dst)),
               "l"(reinterpret_cast<unsigned long long>(map)),
               "r"(smem_u32(bar)), "r"(c0), "r"(c1)
               : "memory");
#endif
}

/// The box at (c0 inner, c1, c2 outer) of a 3-D tensor map: a batched
/// operand's tile, c2 = the batch index.
template <int kDummy = 0>
KGEN_DEVICE void tma_load_3d(void *smem_dst, const CUtensorMap *map,
                             unsigned long long *bar, int c0, int c1, int c2) {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::tma_load_3d");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(
                   smem_u32(smem_dst)),
               "l"(reinterpret_cast<unsigned long long>(map)),
               "r"(smem_u32(bar)), "r"(c0), "r"(c1), "r"(c2)
               : "memory");
#endif
}

/// The box at (c0 inner, c1, c2, c3 outer) of a 4-D tensor map: e.g. a
/// [batch][head][row][col] operand's tile, c2 = head, c3 = batch.
template <int kDummy = 0>
KGEN_DEVICE void tma_load_4d(void *smem_dst, const CUtensorMap *map,
                             unsigned long long *bar, int c0, int c1, int c2,
                             int c3) {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::tma_load_4d");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%3, %4, %5, %6}], [%2];\n" ::"r"(
                   smem_u32(smem_dst)),
               "l"(reinterpret_cast<unsigned long long>(map)),
               "r"(smem_u32(bar)), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
               : "memory");
#endif
}

/// Needs sm_90a: ptxas accepts .multicast::cluster on plain sm_90 only with
/// an advisory warning (the PTX may run slowly on later architectures).
template <int kDummy = 0>
KGEN_DEVICE void tma_load_2d_multicast(void *smem_dst, const CUtensorMap *map,
                                       unsigned long long *bar, int c0, int c1,
                                       unsigned short cta_mask) {
  static_assert(KGEN_ARCH == 0 || KGEN_SM90A || kFalse<kDummy>,
                "kgen::cuda::tma_load_2d_multicast needs sm_90a: compile with "
                "-gencode arch=compute_90a,code=sm_90a (NVRTC: -arch=sm_90a)");
#if KGEN_SM90A
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes.multicast::cluster [%0], [%1, {%4, %5}], "
               "[%2], %3;\n" ::"r"(smem_u32(smem_dst)),
               "l"(reinterpret_cast<unsigned long long>(map)),
               "r"(smem_u32(bar)), "h"(cta_mask), "r"(c0), "r"(c1)
               : "memory");
#endif
}

/// Shared -> global box store; out-of-bounds box elements are not written.
/// The shared source must have been made visible with fence_proxy_async().
template <int kDummy = 0>
KGEN_DEVICE void tma_store_2d(const CUtensorMap *map, const void *smem_src,
                              int c0, int c1) {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::tma_store_2d");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group "
               "[%0, {%2, %3}], [%1];\n" ::"l"(
                   reinterpret_cast<unsigned long long>(map)),
               "r"(smem_u32(smem_src)), "r"(c0), "r"(c1)
               : "memory");
#endif
}

template <int kDummy = 0> KGEN_DEVICE void tma_store_commit() {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::tma_store_commit");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
#endif
}

/// Waits until at most N store groups still read their shared source.
template <int N> KGEN_DEVICE void tma_store_wait_read() {
  static_assert(N >= 0, "cp.async.bulk.wait_group takes N >= 0");
  KGEN_REQUIRE_SM90(N, "kgen::cuda::tma_store_wait_read");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
#endif
}

template <int kDummy = 0>
KGEN_DEVICE void prefetch_tensormap(const CUtensorMap *map) {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::prefetch_tensormap");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(
                   reinterpret_cast<unsigned long long>(map))
               : "memory");
#endif
}

// Fences [9.7.13.4], named barriers [9.7.13.1], elect.sync [9.7.13.14],
// cluster special registers [10.16] and barrier.cluster [9.7.13.3]

/// Ordinary shared-memory stores by this thread -> visible to later async
/// proxy reads (TMA stores, wgmma operands) after a barrier.
template <int kDummy = 0> KGEN_DEVICE void fence_proxy_async() {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::fence_proxy_async");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

/// Named barrier `id` (1..15; 0 is __syncthreads') over `threads` threads
/// (a multiple of 32): e.g. the consumer warpgroups alone, while the producer
/// keeps loading. bar.sync waits; bar.arrive only signals.
KGEN_DEVICE void named_barrier_sync(unsigned id, unsigned threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
KGEN_DEVICE void named_barrier_arrive(unsigned id, unsigned threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

/// True in exactly one active lane of the warp (elect.sync; all 32 lanes
/// must execute it): the thread that issues TMA or arrives for the warp.
template <int kDummy = 0> KGEN_DEVICE bool elect_one() {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::elect_one");
  unsigned pred = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("{\n"
               ".reg .pred p;\n"
               "elect.sync _|p, %1;\n"
               "selp.u32 %0, 1, 0, p;\n"
               "}\n"
               : "=r"(pred)
               : "r"(0xffffffffu));
#endif
  return pred != 0;
}

template <int kDummy = 0> KGEN_DEVICE unsigned cluster_ctarank() {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::cluster_ctarank");
  unsigned r = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
#endif
  return r;
}

/// The number of CTAs in this CTA's cluster (1 without a cluster launch).
template <int kDummy = 0> KGEN_DEVICE unsigned cluster_nctarank() {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::cluster_nctarank");
  unsigned n = 1;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(n));
#endif
  return n;
}

/// All threads of all CTAs in the cluster: arrive (release) then wait
/// (acquire).
template <int kDummy = 0> KGEN_DEVICE void cluster_sync() {
  KGEN_REQUIRE_SM90(kDummy, "kgen::cuda::cluster_sync");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release.aligned;\n"
               "barrier.cluster.wait.acquire.aligned;\n" ::
                   : "memory");
#endif
}

// wgmma [9.7.15.5.2, 9.7.15.7] and setmaxnreg [9.7.19.5]

/// Orders prior register/shared accesses before the next wgmma.mma_async.
template <int kDummy = 0> KGEN_DEVICE void wgmma_fence() {
  KGEN_REQUIRE_SM90A(kDummy, "kgen::cuda::wgmma_fence");
#if KGEN_SM90A
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}

/// Commits the warpgroup's outstanding wgmma.mma_async ops as one group.
template <int kDummy = 0> KGEN_DEVICE void wgmma_commit() {
  KGEN_REQUIRE_SM90A(kDummy, "kgen::cuda::wgmma_commit");
#if KGEN_SM90A
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}

/// Waits until at most N committed wgmma groups are pending.
template <int N> KGEN_DEVICE void wgmma_wait() {
  static_assert(N >= 0 && N <= 7, "wgmma.wait_group takes 0..7");
  KGEN_REQUIRE_SM90A(N, "kgen::cuda::wgmma_wait");
#if KGEN_SM90A
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
#endif
}

/// Keeps the compiler from moving accesses of `acc` across a wgmma boundary
/// (the asynchronous MMA writes these registers behind its back).
template <int R> KGEN_DEVICE void fence_operand(float (&acc)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i)
    asm volatile("" : "+f"(acc[i])::"memory");
}

/// setmaxnreg.inc: a consumer warpgroup takes registers from the pool.
template <int R> KGEN_DEVICE void warpgroup_reg_alloc() {
  static_assert(R >= 24 && R <= 256 && R % 8 == 0,
                "setmaxnreg takes 24..256 in steps of 8");
  KGEN_REQUIRE_SM90A(R, "kgen::cuda::warpgroup_reg_alloc (setmaxnreg)");
#if KGEN_SM90A
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R));
#endif
}

/// setmaxnreg.dec: a producer warpgroup returns registers to the pool.
template <int R> KGEN_DEVICE void warpgroup_reg_dealloc() {
  static_assert(R >= 24 && R <= 256 && R % 8 == 0,
                "setmaxnreg takes 24..256 in steps of 8");
  KGEN_REQUIRE_SM90A(R, "kgen::cuda::warpgroup_reg_dealloc (setmaxnreg)");
#if KGEN_SM90A
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R));
#endif
}

// The wgmma.mma_async wrappers below, one per PTX instruction (PTX ISA,
// "Asynchronous Multiply-and-Accumulate Instruction: wgmma.mma_async",
// section 9.7.15.5.2 in recent versions). The ISA lists the dense shapes m64nNk16 (f16, bf16)
// and m64nNk32 (e4m3, e5m2) for every N = 8, 16, .., 256; with f32
// accumulators each thread holds N / 2 of them, so the asm has N / 2
// "+f" operands %0 .. %(N/2 - 1), then the descriptors and the flags.
//
// KGEN_WGMMA_R<R>: the accumulator list "%0, .., %(R-1)" (R a multiple
// of 4); KGEN_WGMMA_O<R>(d): the matching outputs "+f"(d[0]) ..
// "+f"(d[R-1]). Each extends the one before by four.
#define KGEN_WGMMA_R4 "%0, %1, %2, %3"
#define KGEN_WGMMA_R8 KGEN_WGMMA_R4 ", %4, %5, %6, %7"
#define KGEN_WGMMA_R12 KGEN_WGMMA_R8 ", %8, %9, %10, %11"
#define KGEN_WGMMA_R16 KGEN_WGMMA_R12 ", %12, %13, %14, %15"
#define KGEN_WGMMA_R20 KGEN_WGMMA_R16 ", %16, %17, %18, %19"
#define KGEN_WGMMA_R24 KGEN_WGMMA_R20 ", %20, %21, %22, %23"
#define KGEN_WGMMA_R28 KGEN_WGMMA_R24 ", %24, %25, %26, %27"
#define KGEN_WGMMA_R32 KGEN_WGMMA_R28 ", %28, %29, %30, %31"
#define KGEN_WGMMA_R36 KGEN_WGMMA_R32 ", %32, %33, %34, %35"
#define KGEN_WGMMA_R40 KGEN_WGMMA_R36 ", %36, %37, %38, %39"
#define KGEN_WGMMA_R44 KGEN_WGMMA_R40 ", %40, %41, %42, %43"
#define KGEN_WGMMA_R48 KGEN_WGMMA_R44 ", %44, %45, %46, %47"
#define KGEN_WGMMA_R52 KGEN_WGMMA_R48 ", %48, %49, %50, %51"
#define KGEN_WGMMA_R56 KGEN_WGMMA_R52 ", %52, %53, %54, %55"
#define KGEN_WGMMA_R60 KGEN_WGMMA_R56 ", %56, %57, %58, %59"
#define KGEN_WGMMA_R64 KGEN_WGMMA_R60 ", %60, %61, %62, %63"
#define KGEN_WGMMA_R68 KGEN_WGMMA_R64 ", %64, %65, %66, %67"
#define KGEN_WGMMA_R72 KGEN_WGMMA_R68 ", %68, %69, %70, %71"
#define KGEN_WGMMA_R76 KGEN_WGMMA_R72 ", %72, %73, %74, %75"
#define KGEN_WGMMA_R80 KGEN_WGMMA_R76 ", %76, %77, %78, %79"
#define KGEN_WGMMA_R84 KGEN_WGMMA_R80 ", %80, %81, %82, %83"
#define KGEN_WGMMA_R88 KGEN_WGMMA_R84 ", %84, %85, %86, %87"
#define KGEN_WGMMA_R92 KGEN_WGMMA_R88 ", %88, %89, %90, %91"
#define KGEN_WGMMA_R96 KGEN_WGMMA_R92 ", %92, %93, %94, %95"
#define KGEN_WGMMA_R100 KGEN_WGMMA_R96 ", %96, %97, %98, %99"
#define KGEN_WGMMA_R104 KGEN_WGMMA_R100 ", %100, %101, %102, %103"
#define KGEN_WGMMA_R108 KGEN_WGMMA_R104 ", %104, %105, %106, %107"
#define KGEN_WGMMA_R112 KGEN_WGMMA_R108 ", %108, %109, %110, %111"
#define KGEN_WGMMA_R116 KGEN_WGMMA_R112 ", %112, %113, %114, %115"
#define KGEN_WGMMA_R120 KGEN_WGMMA_R116 ", %116, %117, %118, %119"
#define KGEN_WGMMA_R124 KGEN_WGMMA_R120 ", %120, %121, %122, %123"
#define KGEN_WGMMA_R128 KGEN_WGMMA_R124 ", %124, %125, %126, %127"
#define KGEN_WGMMA_F4(d, i)                                                    \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
#define KGEN_WGMMA_O4(d) KGEN_WGMMA_F4(d, 0)
#define KGEN_WGMMA_O8(d) KGEN_WGMMA_O4(d), KGEN_WGMMA_F4(d, 4)
#define KGEN_WGMMA_O12(d) KGEN_WGMMA_O8(d), KGEN_WGMMA_F4(d, 8)
#define KGEN_WGMMA_O16(d) KGEN_WGMMA_O12(d), KGEN_WGMMA_F4(d, 12)
#define KGEN_WGMMA_O20(d) KGEN_WGMMA_O16(d), KGEN_WGMMA_F4(d, 16)
#define KGEN_WGMMA_O24(d) KGEN_WGMMA_O20(d), KGEN_WGMMA_F4(d, 20)
#define KGEN_WGMMA_O28(d) KGEN_WGMMA_O24(d), KGEN_WGMMA_F4(d, 24)
#define KGEN_WGMMA_O32(d) KGEN_WGMMA_O28(d), KGEN_WGMMA_F4(d, 28)
#define KGEN_WGMMA_O36(d) KGEN_WGMMA_O32(d), KGEN_WGMMA_F4(d, 32)
#define KGEN_WGMMA_O40(d) KGEN_WGMMA_O36(d), KGEN_WGMMA_F4(d, 36)
#define KGEN_WGMMA_O44(d) KGEN_WGMMA_O40(d), KGEN_WGMMA_F4(d, 40)
#define KGEN_WGMMA_O48(d) KGEN_WGMMA_O44(d), KGEN_WGMMA_F4(d, 44)
#define KGEN_WGMMA_O52(d) KGEN_WGMMA_O48(d), KGEN_WGMMA_F4(d, 48)
#define KGEN_WGMMA_O56(d) KGEN_WGMMA_O52(d), KGEN_WGMMA_F4(d, 52)
#define KGEN_WGMMA_O60(d) KGEN_WGMMA_O56(d), KGEN_WGMMA_F4(d, 56)
#define KGEN_WGMMA_O64(d) KGEN_WGMMA_O60(d), KGEN_WGMMA_F4(d, 60)
#define KGEN_WGMMA_O68(d) KGEN_WGMMA_O64(d), KGEN_WGMMA_F4(d, 64)
#define KGEN_WGMMA_O72(d) KGEN_WGMMA_O68(d), KGEN_WGMMA_F4(d, 68)
#define KGEN_WGMMA_O76(d) KGEN_WGMMA_O72(d), KGEN_WGMMA_F4(d, 72)
#define KGEN_WGMMA_O80(d) KGEN_WGMMA_O76(d), KGEN_WGMMA_F4(d, 76)
#define KGEN_WGMMA_O84(d) KGEN_WGMMA_O80(d), KGEN_WGMMA_F4(d, 80)
#define KGEN_WGMMA_O88(d) KGEN_WGMMA_O84(d), KGEN_WGMMA_F4(d, 84)
#define KGEN_WGMMA_O92(d) KGEN_WGMMA_O88(d), KGEN_WGMMA_F4(d, 88)
#define KGEN_WGMMA_O96(d) KGEN_WGMMA_O92(d), KGEN_WGMMA_F4(d, 92)
#define KGEN_WGMMA_O100(d) KGEN_WGMMA_O96(d), KGEN_WGMMA_F4(d, 96)
#define KGEN_WGMMA_O104(d) KGEN_WGMMA_O100(d), KGEN_WGMMA_F4(d, 100)
#define KGEN_WGMMA_O108(d) KGEN_WGMMA_O104(d), KGEN_WGMMA_F4(d, 104)
#define KGEN_WGMMA_O112(d) KGEN_WGMMA_O108(d), KGEN_WGMMA_F4(d, 108)
#define KGEN_WGMMA_O116(d) KGEN_WGMMA_O112(d), KGEN_WGMMA_F4(d, 112)
#define KGEN_WGMMA_O120(d) KGEN_WGMMA_O116(d), KGEN_WGMMA_F4(d, 116)
#define KGEN_WGMMA_O124(d) KGEN_WGMMA_O120(d), KGEN_WGMMA_F4(d, 120)
#define KGEN_WGMMA_O128(d) KGEN_WGMMA_O124(d), KGEN_WGMMA_F4(d, 124)

// X(N, R, O0, .., O6) for every N the ISA allows: R = N / 2 accumulator
// operands %0 .. %(R-1), then the asm operand numbers R .. R + 6 of what
// follows the accumulators. The descriptor form (A in shared memory) uses
// the first five: desc_a, desc_b, scale_d, imm-trans-a, imm-trans-b (e4m3
// the first three); the register form (A in registers) all seven: a0 .. a3,
// desc_b, scale_d, imm-trans-b (e4m3 the first six). The instruction
// wrappers all expand this one table.
#define KGEN_WGMMA_SHAPES(X)                    \
  X(  8,   4,   4,   5,   6,   7,   8,   9,  10) \
  X( 16,   8,   8,   9,  10,  11,  12,  13,  14) \
  X( 24,  12,  12,  13,  14,  15,  16,  17,  18) \
  X( 32,  16,  16,  17,  18,  19,  20,  21,  22) \
  X( 40,  20,  20,  21,  22,  23,  24,  25,  26) \
  X( 48,  24,  24,  25,  26,  27,  28,  29,  30) \
  X( 56,  28,  28,  29,  30,  31,  32,  33,  34) \
  X( 64,  32,  32,  33,  34,  35,  36,  37,  38) \
  X( 72,  36,  36,  37,  38,  39,  40,  41,  42) \
  X( 80,  40,  40,  41,  42,  43,  44,  45,  46) \
  X( 88,  44,  44,  45,  46,  47,  48,  49,  50) \
  X( 96,  48,  48,  49,  50,  51,  52,  53,  54) \
  X(104,  52,  52,  53,  54,  55,  56,  57,  58) \
  X(112,  56,  56,  57,  58,  59,  60,  61,  62) \
  X(120,  60,  60,  61,  62,  63,  64,  65,  66) \
  X(128,  64,  64,  65,  66,  67,  68,  69,  70) \
  X(136,  68,  68,  69,  70,  71,  72,  73,  74) \
  X(144,  72,  72,  73,  74,  75,  76,  77,  78) \
  X(152,  76,  76,  77,  78,  79,  80,  81,  82) \
  X(160,  80,  80,  81,  82,  83,  84,  85,  86) \
  X(168,  84,  84,  85,  86,  87,  88,  89,  90) \
  X(176,  88,  88,  89,  90,  91,  92,  93,  94) \
  X(184,  92,  92,  93,  94,  95,  96,  97,  98) \
  X(192,  96,  96,  97,  98,  99, 100, 101, 102) \
  X(200, 100, 100, 101, 102, 103, 104, 105, 106) \
  X(208, 104, 104, 105, 106, 107, 108, 109, 110) \
  X(216, 108, 108, 109, 110, 111, 112, 113, 114) \
  X(224, 112, 112, 113, 114, 115, 116, 117, 118) \
  X(232, 116, 116, 117, 118, 119, 120, 121, 122) \
  X(240, 120, 120, 121, 122, 123, 124, 125, 126) \
  X(248, 124, 124, 125, 126, 127, 128, 129, 130) \
  X(256, 128, 128, 129, 130, 131, 132, 133, 134)

// The start of one wgmma.mma_async of shape m64n<kN> and the rest of the
// shape and types KTY ("k16.f32.bf16.bf16", "k32.f32.e4m3.e4m3") up to its
// accumulators, with the predicate p = (operand kS != 0) for scale-d: what
// every form and type shares.
#define KGEN_WGMMA_HEAD(KTY, kN, kR, kS)                                       \
  "{\n"                                                                        \
  ".reg .pred p;\n"                                                            \
  "setp.ne.b32 p, %" #kS ", 0;\n"                                              \
  "wgmma.mma_async.sync.aligned.m64n" #kN KTY " {" KGEN_WGMMA_R##kR "}, "

// The same for one m64nNk16 instruction of the 16-bit type TY ("bf16",
// "f16").
#define KGEN_WGMMA_K16_HEAD(TY, kN, kR, kS)                                    \
  KGEN_WGMMA_HEAD("k16.f32." TY "." TY, kN, kR, kS)

// The asm of one m64nNk16 shape for the 16-bit operand type TY ("bf16",
// "f16"): what wgmma_bf16 and wgmma_f16 expand for every N of the table
// (the last two operand numbers are the register form's).
#define KGEN_WGMMA_K16(TY, kN, kR, kA, kB, kS, kTA, kTB, ...)                 \
  if constexpr (N == kN)                                                       \
    asm volatile(KGEN_WGMMA_K16_HEAD(TY, kN, kR, kS)                           \
                 "%" #kA ", %" #kB ", p, 1, 1, %" #kTA ", %" #kTB ";\n"        \
                 "}\n"                                                         \
                 : KGEN_WGMMA_O##kR(d)                                         \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(int(TransA)),   \
                   "n"(int(TransB)));

/// d[0 .. N/2) (+)= A(64 x 16, bf16) * B(16 x N, bf16), f32 accumulate.
/// wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16 d, a-desc, b-desc,
///     scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b
template <int N, bool TransA = false, bool TransB = false>
KGEN_DEVICE void wgmma_bf16(float (&d)[N / 2], unsigned long long desc_a,
                            unsigned long long desc_b, int scale_d) {
  static_assert(N % 8 == 0 && N >= 8 && N <= 256,
                "wgmma_bf16: N is a multiple of 8 in [8, 256] (m64nNk16)");
  KGEN_REQUIRE_SM90A(N, "kgen::cuda::wgmma_bf16");
#if KGEN_SM90A
#define KGEN_WGMMA_BF16(...) KGEN_WGMMA_K16("bf16", __VA_ARGS__)
  KGEN_WGMMA_SHAPES(KGEN_WGMMA_BF16)
#undef KGEN_WGMMA_BF16
#endif
}

/// d[0 .. N/2) (+)= A(64 x 16, f16) * B(16 x N, f16), f32 accumulate.
/// wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16 d, a-desc, b-desc,
///     scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b
template <int N, bool TransA = false, bool TransB = false>
KGEN_DEVICE void wgmma_f16(float (&d)[N / 2], unsigned long long desc_a,
                           unsigned long long desc_b, int scale_d) {
  static_assert(N % 8 == 0 && N >= 8 && N <= 256,
                "wgmma_f16: N is a multiple of 8 in [8, 256] (m64nNk16)");
  KGEN_REQUIRE_SM90A(N, "kgen::cuda::wgmma_f16");
#if KGEN_SM90A
#define KGEN_WGMMA_F16(...) KGEN_WGMMA_K16("f16", __VA_ARGS__)
  KGEN_WGMMA_SHAPES(KGEN_WGMMA_F16)
#undef KGEN_WGMMA_F16
#endif
}

// The register form of one m64nNk16 shape (A in registers, PTX ISA
// 9.7.15.5.2: "wgmma.mma_async.sync.aligned.shape.dtype.bf16.bf16 d, a,
// b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-b", no imm-trans-a):
// a0 .. a3 are operands R .. R + 3, then desc_b, scale_d, imm-trans-b.
#define KGEN_WGMMA_K16_RS(TY, kN, kR, kA0, kA1, kA2, kA3, kB, kS, kTB)        \
  if constexpr (N == kN)                                                       \
    asm volatile(KGEN_WGMMA_K16_HEAD(TY, kN, kR, kS)                           \
                 "{%" #kA0 ", %" #kA1 ", %" #kA2 ", %" #kA3 "}, %" #kB         \
                 ", p, 1, 1, %" #kTB ";\n"                                     \
                 "}\n"                                                         \
                 : KGEN_WGMMA_O##kR(d)                                         \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b),    \
                   "r"(scale_d), "n"(int(TransB)));

/// d[0 .. N/2) (+)= A(64 x 16, in registers) * B(16 x N, shared memory),
/// f32 accumulate, 16-bit A and B (kF16: f16, else bf16): the register
/// ("RS") form, what wgmma_rs_bf16 / wgmma_rs_f16 below issue.
/// wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16 d, {a0, a1, a2, a3},
///     b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-b
/// a: warp w of the warpgroup holds rows 16w .. 16w + 15 of A as mma.sync
/// m16n8k16 holds its A (PTX ISA 9.7.15.5.1.1.1, Figure 148; Wgmma.cuh's
/// WgmmaAFragMap). The registers are read asynchronously: like the
/// accumulators they belong to the instruction until the wgmma_wait that
/// completes it (ptxas keeps them live; wgmma_fence before the first mma
/// after ordinary code wrote them).
template <bool kF16, int N, bool TransB>
KGEN_DEVICE void wgmma_rs_k16(float (&d)[N / 2], const unsigned (&a)[4],
                              unsigned long long desc_b, int scale_d) {
  static_assert(N % 8 == 0 && N >= 8 && N <= 256,
                "wgmma_rs_bf16 / _f16: N is a multiple of 8 in [8, 256] "
                "(m64nNk16)");
  KGEN_REQUIRE_SM90A(N, "kgen::cuda::wgmma_rs_bf16 / wgmma_rs_f16");
#if KGEN_SM90A
#define KGEN_WGMMA_RS_BF16(...) KGEN_WGMMA_K16_RS("bf16", __VA_ARGS__)
#define KGEN_WGMMA_RS_F16(...) KGEN_WGMMA_K16_RS("f16", __VA_ARGS__)
  if constexpr (kF16) {
    KGEN_WGMMA_SHAPES(KGEN_WGMMA_RS_F16)
  } else {
    KGEN_WGMMA_SHAPES(KGEN_WGMMA_RS_BF16)
  }
#undef KGEN_WGMMA_RS_BF16
#undef KGEN_WGMMA_RS_F16
#endif
}

/// wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16 with A in registers
/// (wgmma_rs_k16).
template <int N, bool TransB = false>
KGEN_DEVICE void wgmma_rs_bf16(float (&d)[N / 2], const unsigned (&a)[4],
                               unsigned long long desc_b, int scale_d) {
  wgmma_rs_k16<false, N, TransB>(d, a, desc_b, scale_d);
}

/// wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16 with A in registers
/// (wgmma_rs_k16).
template <int N, bool TransB = false>
KGEN_DEVICE void wgmma_rs_f16(float (&d)[N / 2], const unsigned (&a)[4],
                              unsigned long long desc_b, int scale_d) {
  wgmma_rs_k16<true, N, TransB>(d, a, desc_b, scale_d);
}

/// d[0 .. N/2) (+)= A(64 x 32, e4m3) * B(32 x N, e4m3), f32 accumulate.
/// Both operands K-major (fp8 wgmma has no transpose immediates).
/// wgmma.mma_async.sync.aligned.m64nNk32.f32.e4m3.e4m3 d, a-desc, b-desc,
///     scale-d, imm-scale-a, imm-scale-b
template <int N>
KGEN_DEVICE void wgmma_e4m3(float (&d)[N / 2], unsigned long long desc_a,
                            unsigned long long desc_b, int scale_d) {
  static_assert(N % 8 == 0 && N >= 8 && N <= 256,
                "wgmma_e4m3: N is a multiple of 8 in [8, 256] (m64nNk32)");
  KGEN_REQUIRE_SM90A(N, "kgen::cuda::wgmma_e4m3");
#if KGEN_SM90A
#define KGEN_WGMMA_E4M3(kN, kR, kA, kB, kS, ...)                               \
  if constexpr (N == kN)                                                       \
    asm volatile(KGEN_WGMMA_HEAD("k32.f32.e4m3.e4m3", kN, kR, kS)              \
                 "%" #kA ", %" #kB ", p, 1, 1;\n"                              \
                 "}\n"                                                         \
                 : KGEN_WGMMA_O##kR(d)                                         \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  KGEN_WGMMA_SHAPES(KGEN_WGMMA_E4M3)
#undef KGEN_WGMMA_E4M3
#endif
}

/// d[0 .. N/2) (+)= A(64 x 32, e4m3, in registers) * B(32 x N, e4m3, shared
/// memory), f32 accumulate: the register ("RS") form of wgmma_e4m3. B is
/// K-major (8-bit types have no transpose immediates: no imm-trans-b here,
/// where the 16-bit register form has one).
/// wgmma.mma_async.sync.aligned.m64nNk32.f32.e4m3.e4m3 d, {a0, a1, a2, a3},
///     b-desc, scale-d, imm-scale-a, imm-scale-b
/// a: 16 e4m3 bytes per thread, byte e (0..15) in register e / 4 at bits
/// 8 (e % 4) .. 8 (e % 4) + 7 (the lowest byte first). Thread t (warp w =
/// t / 32, g = lane / 4, q = lane % 4) holds byte e = element
///   A[16w + g + 8 ((e / 4) % 2)][4q + e % 4 + 16 (e / 8)]
/// i.e. warp w holds rows 16w .. 16w + 15 as mma.sync m16n8k32 holds its A
/// (Mma.cuh's MmaE4m3::a_elem), and each 16-bit element pair of Figure 148
/// becomes two adjacent bytes. PTX ISA 9.7.15.5.1.1, "WGMMA .m64nNk32
/// register fragment layout for matrix A" (Figure 152), an image; read from
/// CUTLASS's ALayout_64x32 (cute/atom/mma_traits_sm90_gmma.hpp); Wgmma.cuh's
/// WgmmaAFragMap8. The registers are read asynchronously: like the
/// accumulators they belong to the instruction until the wgmma_wait that
/// completes it (ptxas keeps them live; wgmma_fence before the first mma
/// after ordinary code wrote them).
template <int N>
KGEN_DEVICE void wgmma_rs_e4m3(float (&d)[N / 2], const unsigned (&a)[4],
                               unsigned long long desc_b, int scale_d) {
  static_assert(N % 8 == 0 && N >= 8 && N <= 256,
                "wgmma_rs_e4m3: N is a multiple of 8 in [8, 256] (m64nNk32)");
  KGEN_REQUIRE_SM90A(N, "kgen::cuda::wgmma_rs_e4m3");
#if KGEN_SM90A
#define KGEN_WGMMA_RS_E4M3(kN, kR, kA0, kA1, kA2, kA3, kB, kS, ...)            \
  if constexpr (N == kN)                                                       \
    asm volatile(KGEN_WGMMA_HEAD("k32.f32.e4m3.e4m3", kN, kR, kS)              \
                 "{%" #kA0 ", %" #kA1 ", %" #kA2 ", %" #kA3 "}, %" #kB         \
                 ", p, 1, 1;\n"                                                \
                 "}\n"                                                         \
                 : KGEN_WGMMA_O##kR(d)                                         \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b),    \
                   "r"(scale_d));
  KGEN_WGMMA_SHAPES(KGEN_WGMMA_RS_E4M3)
#undef KGEN_WGMMA_RS_E4M3
#endif
}

#undef KGEN_REQUIRE_SM90
#undef KGEN_REQUIRE_SM90A
// The operand lists and the shape table are this header's alone.
#undef KGEN_WGMMA_SHAPES
#undef KGEN_WGMMA_K16
#undef KGEN_WGMMA_K16_RS
#undef KGEN_WGMMA_K16_HEAD
#undef KGEN_WGMMA_HEAD
#undef KGEN_WGMMA_F4
#undef KGEN_WGMMA_R4
#undef KGEN_WGMMA_R8
#undef KGEN_WGMMA_R12
#undef KGEN_WGMMA_R16
#undef KGEN_WGMMA_R20
#undef KGEN_WGMMA_R24
#undef KGEN_WGMMA_R28
#undef KGEN_WGMMA_R32
#undef KGEN_WGMMA_R36
#undef KGEN_WGMMA_R40
#undef KGEN_WGMMA_R44
#undef KGEN_WGMMA_R48
#undef KGEN_WGMMA_R52
#undef KGEN_WGMMA_R56
#undef KGEN_WGMMA_R60
#undef KGEN_WGMMA_R64
#undef KGEN_WGMMA_R68
#undef KGEN_WGMMA_R72
#undef KGEN_WGMMA_R76
#undef KGEN_WGMMA_R80
#undef KGEN_WGMMA_R84
#undef KGEN_WGMMA_R88
#undef KGEN_WGMMA_R92
#undef KGEN_WGMMA_R96
#undef KGEN_WGMMA_R100
#undef KGEN_WGMMA_R104
#undef KGEN_WGMMA_R108
#undef KGEN_WGMMA_R112
#undef KGEN_WGMMA_R116
#undef KGEN_WGMMA_R120
#undef KGEN_WGMMA_R124
#undef KGEN_WGMMA_R128
#undef KGEN_WGMMA_O4
#undef KGEN_WGMMA_O8
#undef KGEN_WGMMA_O12
#undef KGEN_WGMMA_O16
#undef KGEN_WGMMA_O20
#undef KGEN_WGMMA_O24
#undef KGEN_WGMMA_O28
#undef KGEN_WGMMA_O32
#undef KGEN_WGMMA_O36
#undef KGEN_WGMMA_O40
#undef KGEN_WGMMA_O44
#undef KGEN_WGMMA_O48
#undef KGEN_WGMMA_O52
#undef KGEN_WGMMA_O56
#undef KGEN_WGMMA_O60
#undef KGEN_WGMMA_O64
#undef KGEN_WGMMA_O68
#undef KGEN_WGMMA_O72
#undef KGEN_WGMMA_O76
#undef KGEN_WGMMA_O80
#undef KGEN_WGMMA_O84
#undef KGEN_WGMMA_O88
#undef KGEN_WGMMA_O92
#undef KGEN_WGMMA_O96
#undef KGEN_WGMMA_O100
#undef KGEN_WGMMA_O104
#undef KGEN_WGMMA_O108
#undef KGEN_WGMMA_O112
#undef KGEN_WGMMA_O116
#undef KGEN_WGMMA_O120
#undef KGEN_WGMMA_O124
#undef KGEN_WGMMA_O128


#undef KGEN_PTX_ARCH_CHECK

} // namespace kgen::cuda

#endif // KGEN_EMULATE / KGEN_CUDA_COMPILER

#endif // KGEN_CUDA_PTX_CUH
