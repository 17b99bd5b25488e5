//===- Ptx.h - the emulated instruction layer ------------------*- C++ -*-===//
//
// The emulated implementation of every function of kgen/cuda/Ptx.cuh (same
// names, same signatures, namespace kgen::cuda), written from the PTX ISA
// (shared/notes/ptx-semantics.md, with its sections) and not from the
// kernels' own fragment or layout maps (kgen/cuda/Mma.cuh, Layout.cuh).
// g = lane / 4 (groupID), t = lane % 4 (threadID_in_group); a packed 32-bit
// register holds the lower-indexed element in its low bits.
//
//   ldmatrix .m8n8 .x1/.x2/.x4 [.trans] .b16 [9.7.14.5.15]: lanes 8j..8j+7
//       give the row addresses of matrix j (16-byte rows, 16-byte aligned);
//       lane i receives in register j row i/4, columns 2(i%4), 2(i%4)+1 of
//       matrix j (with .trans: rows 2(i%4), 2(i%4)+1 of column i/4).
//   mma.sync m16n8k16 bf16/f16, m16n8k8 tf32, m16n8k32 e4m3
//       [9.7.14.5.7/.8/.10]: the fragment tables of fragA/fragB/fragC below;
//       the ISA leaves order and rounding of the f32 accumulation
//       unspecified: here each product is added to C in k order with one
//       f32 rounding per step (the products of these types are exact in
//       f32), the order of kgen's reference semantics, so an emulated
//       kernel whose k loop is right equals the reference bit for bit.
//   cp.async.cg 16 [9.7.9.25.3]: pending per thread until its group is
//       waited for; then src-size bytes are read and the rest zero-filled.
//   cvt.rna.tf32.f32, cvt.rn.satfinite.e4m3x2.f32, cvt.rn.{bf16x2,f16x2}.f32
//       [9.7.9.21] (x2: the first source to the upper half), ld.shared.b32.
//   shfl.sync.bfly.b32 [9.7.9.6]: a warp collective; lane i computes
//       j = i ^ b[4:0] and, when j <= maxLane = (i & segmask) | (c[4:0] &
//       ~segmask) (c[12:8] = segmask), receives lane j's a, else its own.
//   shfl.sync.{bfly,idx,up}.b32 on 32-bit data [9.7.9.6]: the same rule
//       per mode: bfly j = i ^ b[4:0], idx j = minLane | (b[4:0] &
//       ~segmask), pval = j <= maxLane; up j = i - b[4:0], pval = j >=
//       maxLane (minLane = i & segmask); lane i receives lane j's a when
//       pval, else its own.
//   vote.sync.ballot.b32 [9.7.13.9]: a warp collective; bit i of every
//       lane's d is lane i's predicate. popc.b32 [9.7.1.14].
//   mul.rn / add.rn / div.rn .f32 [9.7.3.5/.3/.8]: one IEEE rounding each
//       (through a volatile, so the host compiler cannot fuse them).
//   The sm_90 / sm_90a instructions (mbarrier, TMA, bulk stores, clusters,
//   named barriers, wgmma, setmaxnreg, fences): kgen/emulate/Sm90.h.
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_EMULATE_PTX_H
#define KGEN_EMULATE_PTX_H

#include "kgen/emulate/Device.h"
#include "kgen/emulate/Numerics.h"

namespace kgen::emu::isa {

struct RC {
  int row, col;
};

// Fragment tables of mma.sync, as the PTX ISA's figures give them.
// Element i of a lane's A fragment is A[row][col] (row = m, col = k); of B,
// B[row][col] (row = k, col = n); of C/D, D[row][col].
inline RC fragA_k16(int lane, int i) { // 8 x 16-bit in a0..a3
  const int g = lane >> 2, t = lane & 3;
  return {g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)};
}
inline RC fragB_k16(int lane, int i) { // 4 x 16-bit in b0, b1
  const int g = lane >> 2, t = lane & 3;
  return {2 * t + (i & 1) + 8 * (i >> 1), g};
}
inline RC fragA_tf32(int lane, int i) { // a0..a3
  const int g = lane >> 2, t = lane & 3;
  return {g + 8 * (i & 1), t + 4 * (i >> 1)};
}
inline RC fragB_tf32(int lane, int i) { // b0, b1
  const int g = lane >> 2, t = lane & 3;
  return {t + 4 * i, g};
}
inline RC fragA_e4m3(int lane, int i) { // 16 x 8-bit in a0..a3
  const int g = lane >> 2, t = lane & 3;
  return {g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3)};
}
inline RC fragB_e4m3(int lane, int i) { // 8 x 8-bit in b0, b1
  const int g = lane >> 2, t = lane & 3;
  return {4 * t + (i & 3) + 16 * (i >> 2), g};
}
inline RC fragC(int lane, int i) { // c0..c3, f32
  const int g = lane >> 2, t = lane & 3;
  return {g + 8 * (i >> 1), 2 * t + (i & 1)};
}

enum class Kind { Bf16, F16, Tf32, E4m3 };

/// Operand element e of packed registers `r` as a float.
template <Kind K> inline float element(const unsigned *r, int e) {
  if constexpr (K == Kind::Tf32)
    return bitsF32(r[e] & 0xffffe000u); // tf32: the low 13 bits are ignored
  else if constexpr (K == Kind::E4m3)
    return e4m3ToF32(uint8_t(r[e / 4] >> (8 * (e % 4))));
  else {
    const uint16_t h = uint16_t(r[e / 2] >> (16 * (e % 2)));
    return K == Kind::Bf16 ? bf16ToF32(h) : f16ToF32(h);
  }
}

struct MmaLane {
  unsigned a[4], b[2];
  float *d[4];
};

/// D = A * B + C for one m16n8kK tile of the warp.
template <Kind K> inline void mmaExec(LaneArgs (&lanes)[32]) {
  constexpr int kK = K == Kind::Tf32 ? 8 : K == Kind::E4m3 ? 32 : 16;
  constexpr int kAElems = kK / 2, kBElems = kK / 4; // per lane
  float A[16][32], B[32][8];
  for (int l = 0; l < 32; ++l) {
    const MmaLane &m = *static_cast<const MmaLane *>(lanes[l].in);
    for (int e = 0; e < kAElems; ++e) {
      const RC rc = K == Kind::Tf32   ? fragA_tf32(l, e)
                    : K == Kind::E4m3 ? fragA_e4m3(l, e)
                                      : fragA_k16(l, e);
      A[rc.row][rc.col] = element<K>(m.a, e);
    }
    for (int e = 0; e < kBElems; ++e) {
      const RC rc = K == Kind::Tf32   ? fragB_tf32(l, e)
                    : K == Kind::E4m3 ? fragB_e4m3(l, e)
                                      : fragB_k16(l, e);
      B[rc.row][rc.col] = element<K>(m.b, e);
    }
  }
  for (int l = 0; l < 32; ++l) {
    const MmaLane &m = *static_cast<const MmaLane *>(lanes[l].in);
    for (int i = 0; i < 4; ++i) {
      const RC rc = fragC(l, i);
      float s = *m.d[i];
      for (int k = 0; k < kK; ++k)
        s = std::fma(A[rc.row][k], B[k][rc.col], s);
      *m.d[i] = s;
    }
  }
}

struct LdsmLane {
  unsigned *out; // X registers
};

/// ldmatrix: X 8x8 b16 matrices, row addresses from lanes 8j + r.
template <int X, bool Trans> inline void ldsmExec(LaneArgs (&lanes)[32]) {
  static const char *kName[2][5] = {
      {"", "ldmatrix.x1", "ldmatrix.x2", "", "ldmatrix.x4"},
      {"", "ldmatrix.x1.trans", "ldmatrix.x2.trans", "", "ldmatrix.x4.trans"}};
  const char *op = kName[Trans][X];
  uint16_t M[4][8][8];
  for (int j = 0; j < X; ++j)
    for (int r = 0; r < 8; ++r) {
      const int src = 8 * j + r;
      const unsigned addr = lanes[src].addr;
      checkSmem(op, addr, 16, 16);
      shadowRead(op, blk().fibers[self().warp * 32 + src].linear, addr, 16);
      std::memcpy(M[j][r], smem + addr, 16);
    }
  for (int i = 0; i < 32; ++i) {
    unsigned *out = static_cast<LdsmLane *>(lanes[i].out)->out;
    for (int j = 0; j < X; ++j) {
      const int c = 2 * (i % 4);
      const uint16_t lo = Trans ? M[j][c][i / 4] : M[j][i / 4][c];
      const uint16_t hi = Trans ? M[j][c + 1][i / 4] : M[j][i / 4][c + 1];
      out[j] = unsigned(lo) | (unsigned(hi) << 16);
    }
  }
}

template <int X, bool Trans>
inline void ldmatrix(unsigned *out, unsigned addr, const char *op) {
  LdsmLane lane{out};
  LaneArgs args;
  args.out = &lane;
  args.addr = addr;
  rendezvous(op, &ldsmExec<X, Trans>, args);
}

template <Kind K>
inline void mma(float &d0, float &d1, float &d2, float &d3,
                const unsigned (&a)[4], const unsigned (&b)[2],
                const char *op) {
  MmaLane lane{{a[0], a[1], a[2], a[3]}, {b[0], b[1]}, {&d0, &d1, &d2, &d3}};
  LaneArgs args;
  args.in = &lane;
  rendezvous(op, &mmaExec<K>, args);
}

struct ShflLane {
  float a;
  unsigned b, c;
  float *d;
};

/// shfl.sync.bfly.b32 d, a, b, c over the 32 lanes.
inline void shflBflyExec(LaneArgs (&lanes)[32]) {
  float src[32];
  for (int l = 0; l < 32; ++l)
    src[l] = static_cast<const ShflLane *>(lanes[l].in)->a;
  for (int l = 0; l < 32; ++l) {
    const ShflLane &m = *static_cast<const ShflLane *>(lanes[l].in);
    const unsigned bval = m.b & 31u, cval = m.c & 31u,
                   segmask = (m.c >> 8) & 31u;
    const unsigned maxLane = (unsigned(l) & segmask) | (cval & ~segmask);
    unsigned j = unsigned(l) ^ bval;
    if (j > maxLane)
      j = unsigned(l);
    *m.d = src[j];
  }
}

enum class ShflMode { Bfly, Idx, Up };

struct ShflB32Lane {
  unsigned a, b, c;
  unsigned *d;
};

/// shfl.sync.{bfly,idx,up}.b32 d, a, b, c over the 32 lanes.
template <ShflMode M> inline void shflB32Exec(LaneArgs (&lanes)[32]) {
  unsigned src[32];
  for (int l = 0; l < 32; ++l)
    src[l] = static_cast<const ShflB32Lane *>(lanes[l].in)->a;
  for (int l = 0; l < 32; ++l) {
    const ShflB32Lane &m = *static_cast<const ShflB32Lane *>(lanes[l].in);
    const int bval = int(m.b & 31u), cval = int(m.c & 31u),
              segmask = int((m.c >> 8) & 31u);
    const int maxLane = (l & segmask) | (cval & ~segmask);
    const int minLane = l & segmask;
    int j;
    bool pval;
    if constexpr (M == ShflMode::Bfly) {
      j = l ^ bval;
      pval = j <= maxLane;
    } else if constexpr (M == ShflMode::Idx) {
      j = minLane | (bval & ~segmask);
      pval = j <= maxLane;
    } else {
      j = l - bval;
      pval = j >= maxLane;
    }
    *m.d = pval ? src[j] : src[l];
  }
}

template <ShflMode M>
inline unsigned shflB32(unsigned v, int b, unsigned c, const char *op) {
  unsigned d = v;
  ShflB32Lane lane{v, unsigned(b), c, &d};
  LaneArgs args;
  args.in = &lane;
  rendezvous(op, &shflB32Exec<M>, args);
  return d;
}

struct BallotLane {
  bool pred;
  unsigned *d;
};

/// vote.sync.ballot.b32 d, p, 0xffffffff: every lane gets the lanes' bits.
inline void ballotExec(LaneArgs (&lanes)[32]) {
  unsigned bits = 0;
  for (int l = 0; l < 32; ++l)
    if (static_cast<const BallotLane *>(lanes[l].in)->pred)
      bits |= 1u << l;
  for (int l = 0; l < 32; ++l)
    *static_cast<const BallotLane *>(lanes[l].in)->d = bits;
}

/// Lands every copy of the oldest committed group of the calling thread.
inline void completeOldestGroup() {
  Fiber &f = self();
  Block &d = blk();
  for (const PendingCopy &c : f.groups.front()) {
    std::memcpy(smem + c.dst, c.src, size_t(c.srcBytes));
    std::memset(smem + c.dst + c.srcBytes, 0, size_t(c.bytes - c.srcBytes));
    for (int i = 0; i < c.bytes; ++i) {
      Shadow &s = d.shadow[c.dst + i];
      s.pending = false;
      s.wEpoch = d.epoch;
      s.wThread = int16_t(f.linear);
    }
  }
  f.groups.pop_front();
}

inline void cpAsyncWait(size_t n) {
  while (self().groups.size() > n)
    completeOldestGroup();
  self().site = "cp.async.wait_group";
  yield();
}

} // namespace kgen::emu::isa

namespace kgen::cuda {

template <int kDummy = 0> inline void ldmatrix_x4(unsigned (&r)[4], unsigned a) {
  emu::isa::ldmatrix<4, false>(r, a, "ldmatrix.x4");
}
template <int kDummy = 0> inline void ldmatrix_x4_trans(unsigned (&r)[4], unsigned a) {
  emu::isa::ldmatrix<4, true>(r, a, "ldmatrix.x4.trans");
}
template <int kDummy = 0> inline void ldmatrix_x2(unsigned (&r)[2], unsigned a) {
  emu::isa::ldmatrix<2, false>(r, a, "ldmatrix.x2");
}
template <int kDummy = 0> inline void ldmatrix_x2_trans(unsigned (&r)[2], unsigned a) {
  emu::isa::ldmatrix<2, true>(r, a, "ldmatrix.x2.trans");
}
template <int kDummy = 0> inline void ldmatrix_x1(unsigned &r, unsigned a) {
  emu::isa::ldmatrix<1, false>(&r, a, "ldmatrix.x1");
}
template <int kDummy = 0> inline void ldmatrix_x1_trans(unsigned &r, unsigned a) {
  emu::isa::ldmatrix<1, true>(&r, a, "ldmatrix.x1.trans");
}

template <int kDummy = 0>
inline void mma_m16n8k16_bf16(float &d0, float &d1, float &d2, float &d3,
                              const unsigned (&a)[4], const unsigned (&b)[2]) {
  emu::isa::mma<emu::isa::Kind::Bf16>(d0, d1, d2, d3, a, b,
                                      "mma.sync.m16n8k16.bf16");
}
template <int kDummy = 0>
inline void mma_m16n8k16_f16(float &d0, float &d1, float &d2, float &d3,
                             const unsigned (&a)[4], const unsigned (&b)[2]) {
  emu::isa::mma<emu::isa::Kind::F16>(d0, d1, d2, d3, a, b,
                                     "mma.sync.m16n8k16.f16");
}
template <int kDummy = 0>
inline void mma_m16n8k8_tf32(float &d0, float &d1, float &d2, float &d3,
                             const unsigned (&a)[4], const unsigned (&b)[2]) {
  emu::isa::mma<emu::isa::Kind::Tf32>(d0, d1, d2, d3, a, b,
                                      "mma.sync.m16n8k8.tf32");
}
template <int kDummy = 0>
inline void mma_m16n8k32_e4m3(float &d0, float &d1, float &d2, float &d3,
                              const unsigned (&a)[4], const unsigned (&b)[2]) {
  emu::isa::mma<emu::isa::Kind::E4m3>(d0, d1, d2, d3, a, b,
                                      "mma.sync.m16n8k32.e4m3");
}

/// cvt.rna.tf32.f32: round to nearest, ties away from zero, at 10 mantissa
/// bits; the result keeps the f32 layout with the low 13 bits zero.
template <int kDummy = 0> inline unsigned f32_to_tf32(unsigned bits) {
  if ((bits & 0x7f800000u) == 0x7f800000u)
    return bits; // inf, NaN
  return (bits + 0x1000u) & 0xffffe000u;
}

/// cvt.rn.satfinite.e4m3x2.f32 d, hi, lo: hi -> d[15:8], lo -> d[7:0].
template <int kDummy = 0> inline unsigned short cvt_e4m3x2(float hi, float lo) {
  return (unsigned short)((unsigned(emu::f32ToE4m3(hi)) << 8) |
                          emu::f32ToE4m3(lo));
}

/// cvt.rn.f16x2.e4m3x2 d, a: a[15:8] -> d[31:16], a[7:0] -> d[15:0], each
/// widened exactly (e4m3 -> f32 is exact, and so is f32 -> f16 for every
/// e4m3 value).
template <int kDummy = 0> inline unsigned cvt_f16x2_e4m3x2(unsigned short a) {
  return (unsigned(emu::f32ToF16(emu::e4m3ToF32(uint8_t(a >> 8)))) << 16) |
         emu::f32ToF16(emu::e4m3ToF32(uint8_t(a & 0xff)));
}

/// cvt.rn.bf16x2.f32 d, hi, lo: hi -> d[31:16], lo -> d[15:0].
template <int kDummy = 0> inline unsigned cvt_bf16x2(float hi, float lo) {
  return (unsigned(emu::f32ToBf16(hi)) << 16) | emu::f32ToBf16(lo);
}
/// cvt.rn.f16x2.f32 d, hi, lo: hi -> d[31:16], lo -> d[15:0].
template <int kDummy = 0> inline unsigned cvt_f16x2(float hi, float lo) {
  return (unsigned(emu::f32ToF16(hi)) << 16) | emu::f32ToF16(lo);
}

/// shfl.sync.bfly.b32 d, v, lane_mask, 0x1f, 0xffffffff.
inline float shfl_xor(float v, int lane_mask) {
  float d = v;
  emu::isa::ShflLane lane{v, unsigned(lane_mask), 0x1fu, &d};
  emu::LaneArgs args;
  args.in = &lane;
  emu::rendezvous("shfl.sync.bfly", &emu::isa::shflBflyExec, args);
  return d;
}

/// shfl.sync.bfly.b32 d, v, lane_mask, 0x1f, 0xffffffff on integer data.
inline unsigned shfl_xor_u32(unsigned v, int lane_mask) {
  return emu::isa::shflB32<emu::isa::ShflMode::Bfly>(v, lane_mask, 0x1fu,
                                                     "shfl.sync.bfly (u32)");
}
/// shfl.sync.idx.b32 d, v, src_lane, 0x1f, 0xffffffff.
inline unsigned shfl_idx_u32(unsigned v, int src_lane) {
  return emu::isa::shflB32<emu::isa::ShflMode::Idx>(v, src_lane, 0x1fu,
                                                    "shfl.sync.idx");
}
inline float shfl_idx(float v, int src_lane) {
  return __uint_as_float(shfl_idx_u32(__float_as_uint(v), src_lane));
}
/// shfl.sync.up.b32 d, v, delta, 0, 0xffffffff.
inline unsigned shfl_up_u32(unsigned v, int delta) {
  return emu::isa::shflB32<emu::isa::ShflMode::Up>(v, delta, 0u,
                                                   "shfl.sync.up");
}

/// vote.sync.ballot.b32 d, pred, 0xffffffff.
inline unsigned ballot(bool pred) {
  unsigned d = 0;
  emu::isa::BallotLane lane{pred, &d};
  emu::LaneArgs args;
  args.in = &lane;
  emu::rendezvous("vote.sync.ballot", &emu::isa::ballotExec, args);
  return d;
}

/// popc.b32.
inline unsigned popc(unsigned x) { return unsigned(__builtin_popcount(x)); }

/// mul.rn.f32, add.rn.f32, div.rn.f32: the result is stored through a
/// volatile so that it is rounded to f32 on its own (no host fma contraction
/// with a neighbouring add).
inline float fmul_rn(float a, float b) {
  volatile float r = a * b;
  return r;
}
inline float fadd_rn(float a, float b) {
  volatile float r = a + b;
  return r;
}
inline float fdiv_rn(float a, float b) {
  volatile float r = a / b;
  return r;
}

inline unsigned ld_shared_b32(unsigned addr) {
  emu::checkSmem("ld.shared.b32", addr, 4, 4);
  emu::shadowRead("ld.shared.b32", emu::self().linear, addr, 4);
  unsigned v;
  std::memcpy(&v, smem + addr, 4);
  return v;
}

/// A plain shared load / store the kernel routes through the layer: bounds,
/// natural alignment, and the race and visibility shadow, as ld.shared.b32.
template <class T> inline T ld_shared(const T *p) {
  const unsigned addr = emu::smem_u32(p);
  emu::checkSmem("ld.shared", addr, sizeof(T), alignof(T));
  emu::shadowRead("ld.shared", emu::self().linear, addr, sizeof(T));
  T v;
  std::memcpy(static_cast<void *>(&v), smem + addr, sizeof(T));
  return v;
}

template <class T> inline void st_shared(T *p, const T &v) {
  const unsigned addr = emu::smem_u32(p);
  emu::checkSmem("st.shared", addr, sizeof(T), alignof(T));
  emu::shadowWrite("st.shared", emu::self().linear, addr, sizeof(T),
                   /*async=*/false);
  emu::markGenericWrite(addr, sizeof(T));
  std::memcpy(smem + addr, static_cast<const void *>(&v), sizeof(T));
}

template <int kDummy = 0>
inline void cp_async_cg_16(void *smem_dst, const void *gmem_src, int src_bytes) {
  const char *op = "cp.async.cg.shared.global 16";
  emu::Fiber &f = emu::self();
  const unsigned dst = emu::smem_u32(smem_dst);
  emu::checkSmem(op, dst, 16, 16);
  if (src_bytes < 0 || src_bytes > 16)
    emu::fail("%s: src-size %d outside 0..16", op, src_bytes);
  if (reinterpret_cast<uintptr_t>(gmem_src) % 16 != 0)
    emu::fail("%s: global source %p not 16-byte aligned", op, gmem_src);
  emu::checkGlobal(op, gmem_src, size_t(src_bytes));
  emu::shadowWrite(op, f.linear, dst, 16, /*async=*/true);
  f.open.push_back({dst, gmem_src, src_bytes, 16});
}

template <int kDummy = 0> inline void cp_async_commit() {
  emu::Fiber &f = emu::self();
  f.groups.push_back(std::move(f.open));
  f.open.clear();
}

template <int N> inline void cp_async_wait() {
  static_assert(N >= 0, "cp.async.wait_group takes N >= 0");
  emu::isa::cpAsyncWait(size_t(N));
}

template <int kDummy = 0> inline void cp_async_wait_all() {
  cp_async_commit();
  emu::isa::cpAsyncWait(0);
}

} // namespace kgen::cuda

// The sm_90 / sm_90a instructions: mbarrier, TMA, clusters, wgmma.
#include "kgen/emulate/Sm90.h"

#endif // KGEN_EMULATE_PTX_H
