//===- Sm90.h - the emulated sm_90a instructions ----------------*- C++ -*-===//
//
// The emulated implementation of the sm_90 / sm_90a functions of
// kgen/cuda/Ptx.cuh (same names and signatures, namespace kgen::cuda),
// written from the PTX ISA; included by kgen/emulate/Ptx.h. Asynchrony as
// the hardware has it, the completion at the latest moment it allows:
//
//   mbarrier [9.7.13.15]   per block, keyed by shared offset: expected and
//       pending arrivals, transaction count, phase. A phase completes when
//       its pending arrivals and tx-count are both zero. try_wait.parity P
//       is true once the current phase's parity differs from P, else the
//       thread blocks (a yield point) until it does. Reported: use before
//       init, arrival-count underflow, tx-count overflow (2^20 - 1) and
//       underflow (more bytes than announced once every arrival is in), a
//       phase completing while loads that signal it are in flight, and in a
//       deadlock every waiter's barrier and each barrier's state.
//   cp.async.bulk.tensor 2-D/3-D/4-D (+ multicast) [9.7.9.25.5.2]   the tensor
//       map is the emulator's (TensorMap.h). At issue the destination bytes
//       are poisoned (0xff) and marked pending; the copy completes only when
//       no thread can run (one copy at a time, in a seeded order): it reads
//       the box (zero outside the tensor), writes it swizzled (Swizzle.h)
//       into every destination block's shared memory at the same offset and
//       completes its bytes on each block's barrier at the same offset. The
//       bytes stay pending until that barrier's phase completes: a read
//       through the instruction layer before is a reported hazard, a plain
//       read sees NaN.
//   cp.async.bulk.tensor stores, commit_group, wait_group.read   pending
//       per thread; executed at the wait (or the thread's exit).
//   wgmma.mma_async [9.7.15.5.2]   a warpgroup collective (all 128 threads,
//       identical descriptors); at issue the instruction is checked
//       (WgmmaIsa.h: checkWgmma), its shared reads must not be pending, and
//       they are snapshotted; it executes at the wgmma.wait_group that
//       completes its group (runWgmma). Until then the accumulators hold a
//       NaN (their value is kept as the input), so code that reads them
//       before the wait computes NaN and code that writes them is reported;
//       shared bytes changed between issue and wait are a reported hazard.
//       The register form (wgmma_rs_bf16 / _f16 / _e4m3: A in registers, B
//       through its descriptor, no imm-trans-a; e4m3 B K-major, four bytes
//       per A register) is the same collective; at issue it copies the
//       128 threads' four A registers by VALUE into the instruction (the
//       hardware's operand is their content at issue; the caller's array
//       may be a temporary that is gone by the wait, so neither its
//       address nor later writes to it are looked at: on the GPU ptxas
//       keeps those registers live until the wait); it reads and
//       snapshots B's shared bytes only. Accumulator poisoning, chaining
//       and the hazard checks are the descriptor form's.
//   wgmma.fence / commit_group / wait_group, setmaxnreg (24..256, step 8)
//       warpgroup collectives (.sync.aligned: all 128 threads, one site);
//       an mma_async with no wgmma.fence since the warpgroup's start or its
//       last wait_group is reported (9.7.15.7: the fence goes before the
//       first mma_async and between accumulator accesses and the next).
//   bar.sync / bar.arrive id, count [9.7.13.1]   per block; a count that
//       differs from the one the waiting threads gave is reported.
//   barrier.cluster.arrive/wait [9.7.13.2]   a rendezvous of the cluster's
//       live threads; %cluster_ctarank / %cluster_nctarank; mapa +
//       remote mbarrier.arrive to a peer block (distributed shared memory).
//   elect.sync, fences (order only), prefetch.tensormap (checks the map).
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_EMULATE_SM90_H
#define KGEN_EMULATE_SM90_H

#include "kgen/emulate/Device.h"
#include "kgen/emulate/Swizzle.h"
#include "kgen/emulate/TensorMap.h"
#include "kgen/emulate/WgmmaIsa.h"

/// The kernel's tensor-map parameter type: 128 opaque bytes, 64-byte
/// aligned, as CUDA's; the emulator's encoding is TensorMap.h's.
struct alignas(64) CUtensorMap_st {
  unsigned long long opaque[16];
};
typedef struct CUtensorMap_st CUtensorMap;

namespace kgen::emu {

/// One wgmma.mma_async between its issue and its wait_group.
struct WgmmaOp {
  isa::WgmmaInstr in;
  float *acc[128];
  std::vector<isa::SharedRange> reads;
  std::vector<unsigned char> snapshot;
  // The accumulators' values at issue, when no earlier queued wgmma of the
  // warpgroup writes them (else the previous one's result is the input).
  std::vector<float> dIn;
};

/// The bits the accumulators hold while a wgmma that writes them is queued:
/// a NaN, so code that reads them before the wait_group computes NaN.
constexpr uint32_t kAccPoison = 0x7fbadbadu;

namespace sm90 {

constexpr long kTxMax = (1l << 20) - 1;

inline Mbar *findMbar(Block &b, unsigned off) {
  for (auto &p : b.mbars)
    if (p.first == off)
      return &p.second;
  return nullptr;
}

inline Mbar &mbarAt(const char *op, Block &b, unsigned off) {
  Mbar *m = findMbar(b, off);
  if (!m)
    fail("%s: no mbarrier initialised at shared offset %u of block rank %u "
         "(missing mbarrier.init, or used before it)", op, off, b.rank);
  return *m;
}

inline unsigned barOffset(const char *op, const void *bar) {
  const unsigned off = smem_u32(bar);
  checkSmem(op, off, 8, 8);
  return off;
}

inline void wakeWaiters(Block &b, unsigned off) {
  for (Fiber &g : b.fibers)
    if (g.wait == Wait::Mbarrier && g.waitBar == off)
      g.wait = Wait::Runnable;
}

inline void completePhase(Block &b, unsigned off, Mbar &m) {
  if (m.inflight > 0)
    fail("mbarrier at shared offset %u of block rank %u: phase %llu "
         "completed while %d TMA load(s) that complete_tx on it are still in "
         "flight: the transaction count was set below the bytes the loads "
         "deliver (expect_tx too small?)", off, b.rank,
         (unsigned long long)m.phase, m.inflight);
  for (const auto &r : m.landed)
    for (unsigned i = r.first; i < r.first + r.second; ++i)
      b.shadow[i].pending = false;
  m.landed.clear();
  ++m.phase;
  m.pending = m.expected;
  m.tx = 0;
  wakeWaiters(b, off);
}

inline void arrive(const char *op, Block &b, unsigned off) {
  Mbar &m = mbarAt(op, b, off);
  if (m.pending <= 0)
    fail("%s: arrival-count underflow on the mbarrier at shared offset %u of "
         "block rank %u: its phase %llu has no pending arrival left (expected "
         "count %u, tx-count %ld)", op, off, b.rank,
         (unsigned long long)m.phase, m.expected, m.tx);
  if (--m.pending == 0 && m.tx == 0)
    completePhase(b, off, m);
}

inline void expectTx(const char *op, Block &b, unsigned off, unsigned bytes) {
  Mbar &m = mbarAt(op, b, off);
  m.tx += long(bytes);
  if (m.tx > kTxMax)
    fail("%s: tx-count overflow on the mbarrier at shared offset %u of block "
         "rank %u: %ld bytes expected, more than 2^20 - 1", op, off, b.rank,
         m.tx);
}

inline void completeTx(Block &b, unsigned off, unsigned bytes) {
  Mbar &m = mbarAt("complete_tx", b, off);
  m.tx -= long(bytes);
  if (m.tx < -kTxMax || (m.tx < 0 && m.pending == 0))
    fail("tx-count underflow on the mbarrier at shared offset %u of block "
         "rank %u: a TMA load completed %u bytes and %ld more bytes arrived "
         "than expect_tx announced in phase %llu (expect_tx too small?)",
         off, b.rank, bytes, -m.tx, (unsigned long long)m.phase);
  if (m.pending == 0 && m.tx == 0)
    completePhase(b, off, m);
}

//===----------------------------------------------------------------------===//
// TMA
//===----------------------------------------------------------------------===//

inline bool tensorMapOf(const char *op, const void *map, TensorMapDesc &t) {
  if (!decodeTensorMapDesc(map, t))
    fail("%s: the tensor map at %p is not one the emulator encoded", op, map);
  return true;
}

inline isa::SwizzleMode swizzleOf(const char *op, const TensorMapDesc &t) {
  isa::SwizzleMode m;
  if (!isa::swizzleFromTensorMapEnum(int(t.swizzle), m))
    fail("%s: tensor map swizzle %u", op, t.swizzle);
  return m;
}

inline unsigned boxBytes(const TensorMapDesc &t) {
  unsigned n = t.elemBytes;
  for (unsigned i = 0; i < t.rank; ++i)
    n *= t.box[i];
  return n;
}

/// Calls fn(o, inside, addr) for each element of the box at `c` of map `t`,
/// in shared order (dimension 0 fastest): o its byte offset in the dense
/// box, `inside` whether it lies in the tensor, addr its global byte offset
/// from the map's base when it does.
template <class Fn>
inline void forEachBoxElement(const TensorMapDesc &t, const int *c, Fn &&fn) {
  unsigned idx[5] = {0, 0, 0, 0, 0};
  const unsigned bytes = boxBytes(t);
  for (unsigned o = 0; o < bytes; o += t.elemBytes) {
    bool inside = true;
    uint64_t addr = 0;
    for (unsigned k = 0; k < t.rank; ++k) {
      const long long g = (long long)c[k] + idx[k];
      if (g < 0 || uint64_t(g) >= t.dims[k])
        inside = false;
      else
        addr += uint64_t(g) * t.strides[k];
    }
    fn(o, inside, addr);
    for (unsigned k = 0; k < t.rank && ++idx[k] == t.box[k]; ++k)
      idx[k] = 0;
  }
}

/// Issues a tiled load of the box at `c` into `dst` of the blocks in `mask`
/// (cluster ranks), completing on the barrier at `bar`'s offset in each.
inline void tmaLoad(const char *op, void *dst, const CUtensorMap *map,
                    unsigned long long *bar, const int *c, unsigned rank,
                    unsigned mask) {
  Device &d = dev();
  TensorMapDesc t;
  tensorMapOf(op, map, t);
  if (t.rank != rank)
    fail("%s: a %u-D load from a %u-D tensor map", op, rank, t.rank);
  const isa::SwizzleMode sw = swizzleOf(op, t);
  const unsigned off = smem_u32(dst);
  const unsigned bytes = boxBytes(t);
  checkSmem(op, off, bytes, 128);
  if (sw != isa::SwizzleMode::None &&
      t.box[0] * t.elemBytes != isa::swizzleBytes(sw))
    fail("%s: box rows of %u bytes with the %s swizzle: only rows of the "
         "whole swizzle width are emulated", op, t.box[0] * t.elemBytes,
         isa::swizzleName(sw));
  const unsigned boff = barOffset(op, bar);
  const unsigned all = (1u << d.blocks.size()) - 1u;
  if (mask == 0 || (mask & ~all) != 0)
    fail("%s: cta_mask 0x%x names blocks outside the cluster of %zu", op,
         mask, d.blocks.size());
  for (unsigned r = 0; r < d.blocks.size(); ++r) {
    if (!(mask >> r & 1u))
      continue;
    Block &b = d.blocks[r];
    if (b.live == 0)
      fail("%s: multicast to cluster rank %u, whose threads have all exited "
           "(its shared memory is gone: no cluster barrier before the exit?)",
           op, r);
    Mbar &m = mbarAt(op, b, boff);
    ++m.inflight;
    unsigned char *mem = smemOf(int(r));
    for (unsigned i = off; i < off + bytes; ++i) {
      Shadow &s = b.shadow[i];
      if (s.pending)
        fail("%s writes shared byte %u of block rank %u while an earlier "
             "asynchronous copy into it is pending (its load or its "
             "mbarrier phase has not completed: a stage refilled before it "
             "was consumed?)", op, i, r);
      s.pending = true;
      s.wThread = -3;
      s.wEpoch = b.epoch;
    }
    std::memset(mem + off, 0xff, bytes); // poison until it lands
  }
  TmaLoad l{};
  std::memcpy(l.map, map, 128);
  for (unsigned i = 0; i < 5; ++i)
    l.coords[i] = i < rank ? c[i] : 0;
  l.dst = off;
  l.bar = boff;
  l.bytes = bytes;
  l.mask = mask;
  l.issuer = self().blk;
  d.tmaInFlight.push_back(l);
}

/// Completes one in-flight TMA load, chosen by the seeded generator; false
/// when none is in flight. Called by the scheduler when no thread can run.
inline bool completeOneLoad() {
  Device &d = dev();
  if (d.tmaInFlight.empty())
    return false;
  const size_t pick = size_t(d.rng() % d.tmaInFlight.size());
  const TmaLoad l = d.tmaInFlight[pick];
  d.tmaInFlight.erase(d.tmaInFlight.begin() + long(pick));
  TensorMapDesc t;
  decodeTensorMapDesc(l.map, t);
  const isa::SwizzleMode sw = swizzleOf("cp.async.bulk.tensor", t);
  // The box, dense (dimension 0 fastest), zero outside the tensor.
  std::vector<unsigned char> box(l.bytes, 0);
  const char *base = reinterpret_cast<const char *>(t.base);
  uint64_t extent = t.dims[t.rank - 1] * t.strides[t.rank - 1];
  checkGlobal("cp.async.bulk.tensor (tensor map extent)", base, size_t(extent));
  forEachBoxElement(t, l.coords, [&](unsigned o, bool in, uint64_t addr) {
    if (in)
      std::memcpy(&box[o], base + addr, t.elemBytes);
  });
  for (unsigned r = 0; r < d.blocks.size(); ++r) {
    if (!(l.mask >> r & 1u))
      continue;
    Block &b = d.blocks[r];
    unsigned char *mem = smemOf(int(r));
    // TMA swizzles by shared address: 16-byte chunks move within their
    // 128-byte span (Swizzle.h), so the box's range keeps its bytes.
    for (unsigned o = 0; o < l.bytes; o += 16)
      std::memcpy(mem + isa::swizzle(sw, l.dst + o), &box[o], 16);
    Mbar &m = mbarAt("complete_tx", b, l.bar);
    --m.inflight;
    m.landed.push_back({l.dst, l.bytes});
    completeTx(b, l.bar, l.bytes);
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Bulk tensor stores
//===----------------------------------------------------------------------===//

inline void runStore(const BulkStore &s) {
  TensorMapDesc t;
  decodeTensorMapDesc(s.map, t);
  const isa::SwizzleMode sw = swizzleOf("cp.async.bulk.tensor store", t);
  char *base = reinterpret_cast<char *>(t.base);
  checkGlobal("cp.async.bulk.tensor store (tensor map extent)", base,
              size_t(t.dims[t.rank - 1] * t.strides[t.rank - 1]));
  // Out-of-bounds elements are not written.
  forEachBoxElement(t, s.coords, [&](unsigned o, bool in, uint64_t addr) {
    if (!in)
      return;
    const unsigned src = isa::swizzle(sw, s.src + o);
    for (unsigned i = src; i < src + t.elemBytes; ++i)
      checkAsyncProxyRead("cp.async.bulk.tensor store", blk(), i);
    std::memcpy(base + addr, smem + src, t.elemBytes);
  });
}

inline void storeWait(size_t n) {
  Fiber &f = self();
  if (!f.storeOpen.empty()) {
    f.storeGroups.push_back(std::move(f.storeOpen));
    f.storeOpen.clear();
  }
  while (f.storeGroups.size() > n) {
    for (const BulkStore &s : f.storeGroups.front())
      runStore(s);
    f.storeGroups.pop_front();
  }
}

//===----------------------------------------------------------------------===//
// Warpgroup collectives and wgmma
//===----------------------------------------------------------------------===//

using GroupFn = void (*)(void *(&args)[128]);

/// A .sync.aligned warpgroup instruction: the 128 threads of the warpgroup
/// arrive with their operands; the last runs `fn` over all of them.
inline void groupRendezvous(const char *op, GroupFn fn, void *arg) {
  Block &b = blk();
  Fiber &f = self();
  const int wg = f.warp / 4;
  WarpgroupState &g = b.warpgroups[size_t(wg)];
  if (g.arrived > 0 && std::strcmp(g.op, op) != 0)
    fail("divergent warpgroup collective: thread %d reached %s while other "
         "threads of warpgroup %d wait at %s", f.linear, op, wg, g.op);
  for (int t = 128 * wg; t < 128 * wg + 128; ++t)
    if (t >= int(b.fibers.size()) || b.fibers[size_t(t)].wait == Wait::Done)
      fail("%s with thread %d of warpgroup %d exited or absent "
           "(.sync.aligned warpgroup instructions need all 128 threads)", op,
           t, wg);
  g.op = op;
  g.fn = fn;
  g.args[f.linear % 128] = arg;
  if (++g.arrived == 128) {
    fn(g.args);
    g.arrived = 0;
    g.op = nullptr;
    for (int t = 128 * wg; t < 128 * wg + 128; ++t) {
      Fiber &h = b.fibers[size_t(t)];
      if (h.wait == Wait::Group)
        h.wait = Wait::Runnable;
    }
    f.site = op;
    yield();
    return;
  }
  block(Wait::Group, op);
}

inline WarpgroupState &myGroup() { return blk().warpgroups[size_t(self().warp / 4)]; }

struct WgmmaArgs {
  float *acc;
  unsigned long long descA, descB;
  int scaleD;
  /// The register form: this thread's a0 .. a3 (read at issue, not kept);
  /// null for the descriptor form.
  const unsigned *aRegs = nullptr;
};

template <isa::WgmmaType T, int N, bool TA, bool TB>
inline void wgmmaIssue(void *(&args)[128]) {
  static const char *kOp = "wgmma.mma_async";
  Block &b = blk();
  const WgmmaArgs &a0 = *static_cast<WgmmaArgs *>(args[0]);
  if (!myGroup().fenced)
    fail("%s with no wgmma.fence since the warpgroup's start or its last "
         "wgmma.wait_group (the ISA requires one before the first "
         "mma_async and between accumulator accesses and the next)", kOp);
  auto *op = new WgmmaOp;
  op->in.type = T;
  op->in.n = N;
  op->in.transA = TA;
  op->in.transB = TB;
  op->in.descA = a0.descA;
  op->in.descB = a0.descB;
  op->in.scaleD = a0.scaleD != 0;
  op->in.aInRegisters = a0.aRegs != nullptr;
  for (int t = 0; t < 128; ++t) {
    const WgmmaArgs &a = *static_cast<WgmmaArgs *>(args[t]);
    if (op->in.aInRegisters) {
      // All 128 threads reached the same site (groupRendezvous compares
      // the op names), so every one passes registers.
      if (a.descB != a0.descB || (a.scaleD != 0) != (a0.scaleD != 0)) {
        delete op;
        fail("%s (A in registers): thread %d of the warpgroup gives B "
             "descriptor 0x%llx scale-d %d, thread 0 0x%llx scale-d %d "
             "(they must agree)",
             kOp, t, a.descB, a.scaleD, a0.descB, a0.scaleD);
      }
      std::memcpy(op->in.aRegs[t], a.aRegs, sizeof op->in.aRegs[t]);
      op->acc[t] = a.acc;
      continue;
    }
    if (a.descA != a0.descA || a.descB != a0.descB ||
        (a.scaleD != 0) != (a0.scaleD != 0)) {
      delete op;
      fail("%s: thread %d of the warpgroup gives descriptors 0x%llx/0x%llx "
           "scale-d %d, thread 0 0x%llx/0x%llx scale-d %d (they must agree)",
           kOp, t, a.descA, a.descB, a.scaleD, a0.descA, a0.descB,
           a0.scaleD);
    }
    op->acc[t] = a.acc;
  }
  const std::string err = isa::checkWgmma(op->in, dev().dynSmem);
  if (!err.empty()) {
    delete op;
    fail("%s", err.c_str());
  }
  op->reads = isa::wgmmaReads(op->in);
  for (const isa::SharedRange &r : op->reads)
    for (unsigned i = r.addr; i < r.addr + r.bytes; ++i) {
      if (unfencedGeneric(b, i)) {
        delete op;
        checkAsyncProxyRead(kOp, b, i);
      }
      if (b.shadow[i].pending) {
        const bool tma = b.shadow[i].wThread == -3;
        delete op;
        fail("%s reads shared byte %u while %s into it has not completed "
             "(%s)", kOp, i, tma ? "the TMA load" : "a cp.async",
             tma ? "missing mbarrier wait, or the mbarrier phase completed "
                   "early: expect_tx too small?"
                 : "missing cp.async.wait_group?");
      }
    }
  for (const isa::SharedRange &r : op->reads)
    op->snapshot.insert(op->snapshot.end(), smem + r.addr,
                        smem + r.addr + r.bytes);
  // The accumulators belong to the asynchronous operation until its wait:
  // keep their value as its input and poison the registers.
  WarpgroupState &g = myGroup();
  bool chained = false;
  for (WgmmaOp *q : g.open)
    chained = chained || q->acc[0] == op->acc[0];
  for (const auto &grp : g.groups)
    for (WgmmaOp *q : grp)
      chained = chained || q->acc[0] == op->acc[0];
  if (!chained) {
    const uint32_t n = op->in.n / 2;
    op->dIn.resize(size_t(128) * n);
    for (int t = 0; t < 128; ++t)
      for (uint32_t i = 0; i < n; ++i) {
        op->dIn[size_t(t) * n + i] = op->acc[t][i];
        std::memcpy(&op->acc[t][i], &kAccPoison, 4);
      }
  }
  g.open.push_back(op);
}

/// Issues the register form (wgmma_rs_*): `op` names the site for the
/// rendezvous, so the two forms and types never meet in one collective.
template <isa::WgmmaType T, int N, bool TB>
inline void wgmmaRegisterA(const char *op, float *d, const unsigned *a,
                           unsigned long long descB, int scaleD) {
  static_assert(N % 8 == 0 && N >= 8 && N <= 256, "wgmma N");
  WgmmaArgs args{d, 0, descB, scaleD, a};
  groupRendezvous(op, &wgmmaIssue<T, N, false, TB>, &args);
}

inline void runGroupOp(WgmmaOp *op) {
  size_t at = 0;
  for (const isa::SharedRange &r : op->reads) {
    if (std::memcmp(smem + r.addr, &op->snapshot[at], r.bytes) != 0) {
      unsigned i = r.addr;
      while (smem[i] == op->snapshot[at + (i - r.addr)])
        ++i;
      fail("wgmma.mma_async: shared byte %u it reads changed between the "
           "instruction's issue and the wgmma.wait_group that completes it "
           "(the hardware may read it any time in between: a stage "
           "refilled or released before its wgmmas were waited for?)", i);
    }
    at += r.bytes;
  }
  if (!op->dIn.empty()) {
    const uint32_t n = op->in.n / 2;
    for (int t = 0; t < 128; ++t)
      for (uint32_t i = 0; i < n; ++i) {
        uint32_t bits;
        std::memcpy(&bits, &op->acc[t][i], 4);
        if (bits != kAccPoison)
          fail("wgmma.mma_async: accumulator %u of warpgroup thread %d was "
               "written between the instruction's issue and the "
               "wgmma.wait_group that completes it (the registers belong to "
               "the asynchronous operation until then)", i, t);
        op->acc[t][i] = op->dIn[size_t(t) * n + i];
      }
  }
  const std::string err =
      isa::runWgmma(op->in, {smem, dev().dynSmem}, op->acc);
  if (!err.empty())
    fail("%s", err.c_str());
}

inline void wgmmaWaitExec(void *(&args)[128]) {
  const size_t n = *static_cast<size_t *>(args[0]);
  WarpgroupState &g = myGroup();
  g.fenced = false;
  while (g.groups.size() > n) {
    std::vector<WgmmaOp *> ops = std::move(g.groups.front());
    g.groups.pop_front();
    for (WgmmaOp *op : ops) {
      runGroupOp(op);
      delete op;
    }
  }
}

inline void wgmmaCommitExec(void *(&)[128]) {
  WarpgroupState &g = myGroup();
  g.groups.push_back(std::move(g.open));
  g.open.clear();
}

inline void nothingExec(void *(&)[128]) {}
inline void wgmmaFenceExec(void *(&)[128]) { myGroup().fenced = true; }

/// At a thread's exit: its bulk stores complete; a warpgroup leaving with
/// wgmma operations that were never waited for is reported.
inline void onThreadExit(Fiber &f) {
  if (!f.storeOpen.empty() || !f.storeGroups.empty())
    storeWait(0);
  Block &b = blkOf(f);
  WarpgroupState &g = b.warpgroups[size_t(f.warp / 4)];
  if (!g.open.empty() || !g.groups.empty())
    fail("thread exits while its warpgroup has %zu wgmma.mma_async "
         "operation(s) never completed by a wgmma.wait_group", 
         g.open.size() + [&] {
           size_t n = 0;
           for (auto &v : g.groups)
             n += v.size();
           return n;
         }());
}

inline void printBarriers() {
  Device &d = dev();
  for (const Block &b : d.blocks)
    for (const auto &p : b.mbars)
      std::fprintf(stderr, "  mbarrier at shared offset %u of block rank %u: "
                   "phase %llu (parity %llu), %ld of %u arrivals pending, "
                   "tx-count %ld, %d TMA load(s) in flight\n", p.first,
                   b.rank, (unsigned long long)p.second.phase,
                   (unsigned long long)(p.second.phase & 1), p.second.pending,
                   p.second.expected, p.second.tx, p.second.inflight);
  if (!d.tmaInFlight.empty())
    std::fprintf(stderr, "  %zu TMA load(s) in flight\n", d.tmaInFlight.size());
  if (d.clusterArrived > 0)
    std::fprintf(stderr, "  cluster barrier: %u of %d live threads arrived\n",
                 d.clusterArrived, d.clusterLive);
}

/// Points Device.h's hooks at this library's functions. Called before
/// every launch (Entry.h): the hooks, like dev(), are function-local statics
/// of inline functions, which the dynamic linker unifies across the kernel
/// libraries a process loads, while each library has its own `smem`.
inline void installHooks() {
  threadExitHook() = &onThreadExit;
  deadlockHook() = &printBarriers;
  asyncHook() = &completeOneLoad;
}
struct Hooks {
  Hooks() { installHooks(); }
};
inline Hooks hooks;

} // namespace sm90
} // namespace kgen::emu

namespace kgen::cuda {

namespace sm90 = ::kgen::emu::sm90;

//===----------------------------------------------------------------------===//
// mbarrier
//===----------------------------------------------------------------------===//

template <int kDummy = 0>
inline void mbar_init(unsigned long long *bar, unsigned count) {
  const char *op = "mbarrier.init";
  const unsigned off = sm90::barOffset(op, bar);
  if (count < 1 || count > unsigned(sm90::kTxMax))
    emu::fail("%s: count %u outside 1..2^20-1", op, count);
  emu::Block &b = emu::blk();
  emu::Mbar m;
  m.expected = count;
  m.pending = count;
  if (emu::Mbar *old = sm90::findMbar(b, off))
    *old = m;
  else
    b.mbars.push_back({off, m});
  std::memset(bar, 0, 8);
}

template <int kDummy = 0> inline void fence_barrier_init() {}

template <int kDummy = 0>
inline void mbar_arrive_expect_tx(unsigned long long *bar, unsigned bytes) {
  const char *op = "mbarrier.arrive.expect_tx";
  const unsigned off = sm90::barOffset(op, bar);
  sm90::expectTx(op, emu::blk(), off, bytes);
  sm90::arrive(op, emu::blk(), off);
}

template <int kDummy = 0>
inline void mbar_expect_tx(unsigned long long *bar, unsigned bytes) {
  const char *op = "mbarrier.expect_tx";
  sm90::expectTx(op, emu::blk(), sm90::barOffset(op, bar), bytes);
}

template <int kDummy = 0> inline void mbar_arrive(unsigned long long *bar) {
  const char *op = "mbarrier.arrive";
  sm90::arrive(op, emu::blk(), sm90::barOffset(op, bar));
}

/// mapa.shared::cluster + mbarrier.arrive.release.cluster: the barrier at
/// the same offset in block `cta_rank` of the cluster.
template <int kDummy = 0>
inline void mbar_arrive_cluster(unsigned long long *bar, unsigned cta_rank) {
  const char *op = "mbarrier.arrive.shared::cluster (mapa)";
  const unsigned off = sm90::barOffset(op, bar);
  emu::Device &d = emu::dev();
  if (cta_rank >= d.blocks.size())
    emu::fail("%s: mapa to cluster rank %u of a cluster of %zu", op, cta_rank,
              d.blocks.size());
  if (d.blocks[cta_rank].live == 0)
    emu::fail("%s: arrives on the mbarrier at shared offset %u of cluster "
              "rank %u, whose threads have all exited (its shared memory is "
              "gone: no cluster barrier before the exit?)", op, off, cta_rank);
  sm90::arrive(op, d.blocks[cta_rank], off);
}

template <int kDummy = 0>
inline bool mbar_try_wait(unsigned long long *bar, unsigned parity) {
  const char *op = "mbarrier.try_wait.parity";
  const unsigned off = sm90::barOffset(op, bar);
  emu::Fiber &f = emu::self();
  for (;;) {
    const emu::Mbar &m = sm90::mbarAt(op, emu::blk(), off);
    if ((m.phase & 1u) != (parity & 1u))
      return true;
    f.waitBar = off;
    f.waitParity = parity & 1u;
    emu::block(emu::Wait::Mbarrier, op);
    f.waitBar = 0;
  }
}

//===----------------------------------------------------------------------===//
// TMA
//===----------------------------------------------------------------------===//

template <int kDummy = 0>
inline void tma_load_2d(void *smem_dst, const CUtensorMap *map,
                        unsigned long long *bar, int c0, int c1) {
  const int c[2] = {c0, c1};
  sm90::tmaLoad("cp.async.bulk.tensor.2d", smem_dst, map, bar, c, 2,
                1u << emu::blk().rank);
}

template <int kDummy = 0>
inline void tma_load_3d(void *smem_dst, const CUtensorMap *map,
                        unsigned long long *bar, int c0, int c1, int c2) {
  const int c[3] = {c0, c1, c2};
  sm90::tmaLoad("cp.async.bulk.tensor.3d", smem_dst, map, bar, c, 3,
                1u << emu::blk().rank);
}

template <int kDummy = 0>
inline void tma_load_4d(void *smem_dst, const CUtensorMap *map,
                        unsigned long long *bar, int c0, int c1, int c2,
                        int c3) {
  const int c[4] = {c0, c1, c2, c3};
  sm90::tmaLoad("cp.async.bulk.tensor.4d", smem_dst, map, bar, c, 4,
                1u << emu::blk().rank);
}

template <int kDummy = 0>
inline void tma_load_2d_multicast(void *smem_dst, const CUtensorMap *map,
                                  unsigned long long *bar, int c0, int c1,
                                  unsigned short cta_mask) {
  const int c[2] = {c0, c1};
  sm90::tmaLoad("cp.async.bulk.tensor.2d.multicast::cluster", smem_dst, map,
                bar, c, 2, cta_mask);
}

template <int kDummy = 0>
inline void tma_store_2d(const CUtensorMap *map, const void *smem_src, int c0,
                         int c1) {
  const char *op = "cp.async.bulk.tensor.2d.global.shared::cta";
  emu::TensorMapDesc t;
  sm90::tensorMapOf(op, map, t);
  if (t.rank != 2)
    emu::fail("%s: a 2-D store to a %u-D tensor map", op, t.rank);
  emu::BulkStore s{};
  std::memcpy(s.map, map, 128);
  s.coords[0] = c0;
  s.coords[1] = c1;
  s.src = emu::smem_u32(smem_src);
  emu::checkSmem(op, s.src, sm90::boxBytes(t), 128);
  emu::self().storeOpen.push_back(s);
}

template <int kDummy = 0> inline void tma_store_commit() {
  emu::Fiber &f = emu::self();
  f.storeGroups.push_back(std::move(f.storeOpen));
  f.storeOpen.clear();
}

template <int N> inline void tma_store_wait_read() {
  static_assert(N >= 0, "cp.async.bulk.wait_group takes N >= 0");
  emu::Fiber &f = emu::self();
  while (f.storeGroups.size() > size_t(N)) {
    for (const emu::BulkStore &s : f.storeGroups.front())
      sm90::runStore(s);
    f.storeGroups.pop_front();
  }
}

template <int kDummy = 0> inline void prefetch_tensormap(const CUtensorMap *map) {
  emu::TensorMapDesc t;
  sm90::tensorMapOf("prefetch.tensormap", map, t);
}

//===----------------------------------------------------------------------===//
// Fences, named barriers, elect, clusters
//===----------------------------------------------------------------------===//

/// fence.proxy.async.shared::cta: the calling thread's earlier generic-proxy
/// shared stores become visible to the async proxy (checkAsyncProxyRead).
template <int kDummy = 0> inline void fence_proxy_async() {
  ++emu::self().proxyFences;
}

inline void named_barrier_wait(unsigned id, unsigned threads, bool wait) {
  const char *op = wait ? "bar.sync" : "bar.arrive";
  emu::Block &b = emu::blk();
  emu::Fiber &f = emu::self();
  const unsigned n = unsigned(b.fibers.size());
  if (id >= 16)
    emu::fail("%s %u: barrier ids are 0..15", op, id);
  if (threads == 0 || threads % 32 != 0 || threads > (n + 31) / 32 * 32)
    emu::fail("%s %u, %u: the thread count must be a multiple of 32 and at "
              "most the block's %u threads", op, id, threads, n);
  emu::NamedBarrier &nb = b.named[id];
  if (nb.arrived > 0 && nb.count != threads)
    emu::fail("%s %u with thread count %u while %u threads wait on it with "
              "count %u", op, id, threads, nb.arrived, nb.count);
  nb.count = threads;
  if (++nb.arrived == threads) {
    nb.arrived = 0;
    for (emu::Fiber &g : b.fibers)
      if (g.wait == emu::Wait::Named && g.waitBar == id)
        g.wait = emu::Wait::Runnable;
    f.site = op;
    emu::yield();
    return;
  }
  if (wait) {
    f.waitBar = id;
    emu::block(emu::Wait::Named, op);
    f.waitBar = 0;
  }
}

inline void named_barrier_sync(unsigned id, unsigned threads) {
  named_barrier_wait(id, threads, true);
}
inline void named_barrier_arrive(unsigned id, unsigned threads) {
  named_barrier_wait(id, threads, false);
}

struct ElectLane {
  bool *out;
};
inline void electExec(emu::LaneArgs (&lanes)[32]) {
  for (int l = 0; l < 32; ++l)
    *static_cast<ElectLane *>(lanes[l].out)->out = l == 0;
}
template <int kDummy = 0> inline bool elect_one() {
  bool r = false;
  ElectLane lane{&r};
  emu::LaneArgs args;
  args.out = &lane;
  emu::rendezvous("elect.sync", &electExec, args);
  return r;
}

template <int kDummy = 0> inline unsigned cluster_ctarank() {
  return emu::blk().rank;
}
template <int kDummy = 0> inline unsigned cluster_nctarank() {
  return unsigned(emu::dev().blocks.size());
}

/// barrier.cluster.arrive.release + barrier.cluster.wait.acquire: every
/// live thread of every block of the cluster.
template <int kDummy = 0> inline void cluster_sync() {
  emu::Device &d = emu::dev();
  emu::Fiber &f = emu::self();
  const uint64_t phase = d.clusterPhase;
  f.clusterArrived = phase + 1;
  ++d.clusterArrived;
  emu::releaseCluster();
  while (d.clusterPhase == phase)
    emu::block(emu::Wait::Cluster, "barrier.cluster.arrive/wait");
  f.site = "barrier.cluster";
  emu::yield();
}

//===----------------------------------------------------------------------===//
// wgmma and setmaxnreg
//===----------------------------------------------------------------------===//

template <int kDummy = 0> inline void wgmma_fence() {
  sm90::groupRendezvous("wgmma.fence", &sm90::wgmmaFenceExec, nullptr);
}

template <int kDummy = 0> inline void wgmma_commit() {
  sm90::groupRendezvous("wgmma.commit_group", &sm90::wgmmaCommitExec, nullptr);
}

template <int N> inline void wgmma_wait() {
  static_assert(N >= 0 && N <= 7, "wgmma.wait_group takes 0..7");
  size_t n = size_t(N);
  sm90::groupRendezvous("wgmma.wait_group", &sm90::wgmmaWaitExec, &n);
}

/// A compiler-only fence on the GPU; nothing to do here.
template <int R> inline void fence_operand(float (&)[R]) {}

template <int R> inline void warpgroup_reg_alloc() {
  static_assert(R >= 24 && R <= 256 && R % 8 == 0,
                "setmaxnreg takes 24..256 in steps of 8");
  sm90::groupRendezvous("setmaxnreg.inc", &sm90::nothingExec, nullptr);
}

template <int R> inline void warpgroup_reg_dealloc() {
  static_assert(R >= 24 && R <= 256 && R % 8 == 0,
                "setmaxnreg takes 24..256 in steps of 8");
  sm90::groupRendezvous("setmaxnreg.dec", &sm90::nothingExec, nullptr);
}

template <int N, bool TransA = false, bool TransB = false>
inline void wgmma_bf16(float (&d)[N / 2], unsigned long long desc_a,
                       unsigned long long desc_b, int scale_d) {
  static_assert(N % 8 == 0 && N >= 8 && N <= 256, "wgmma N");
  sm90::WgmmaArgs a{d, desc_a, desc_b, scale_d};
  sm90::groupRendezvous(
      "wgmma.mma_async.bf16",
      &sm90::wgmmaIssue<emu::isa::WgmmaType::BF16, N, TransA, TransB>, &a);
}

template <int N, bool TransA = false, bool TransB = false>
inline void wgmma_f16(float (&d)[N / 2], unsigned long long desc_a,
                      unsigned long long desc_b, int scale_d) {
  static_assert(N % 8 == 0 && N >= 8 && N <= 256, "wgmma N");
  sm90::WgmmaArgs a{d, desc_a, desc_b, scale_d};
  sm90::groupRendezvous(
      "wgmma.mma_async.f16",
      &sm90::wgmmaIssue<emu::isa::WgmmaType::F16, N, TransA, TransB>, &a);
}

template <int N>
inline void wgmma_e4m3(float (&d)[N / 2], unsigned long long desc_a,
                       unsigned long long desc_b, int scale_d) {
  static_assert(N % 8 == 0 && N >= 8 && N <= 256, "wgmma N");
  sm90::WgmmaArgs a{d, desc_a, desc_b, scale_d};
  sm90::groupRendezvous(
      "wgmma.mma_async.e4m3",
      &sm90::wgmmaIssue<emu::isa::WgmmaType::E4M3, N, false, false>, &a);
}

/// The register form: A from the threads' a[4] (copied at issue).
template <int N, bool TransB = false>
inline void wgmma_rs_bf16(float (&d)[N / 2], const unsigned (&a)[4],
                          unsigned long long desc_b, int scale_d) {
  sm90::wgmmaRegisterA<emu::isa::WgmmaType::BF16, N, TransB>(
      "wgmma.mma_async.bf16 (A in registers)", d, a, desc_b, scale_d);
}

template <int N, bool TransB = false>
inline void wgmma_rs_f16(float (&d)[N / 2], const unsigned (&a)[4],
                         unsigned long long desc_b, int scale_d) {
  sm90::wgmmaRegisterA<emu::isa::WgmmaType::F16, N, TransB>(
      "wgmma.mma_async.f16 (A in registers)", d, a, desc_b, scale_d);
}

/// e4m3: 16 bytes of A per thread (WgmmaIsa.h's aFragmentElement8), B
/// K-major (no imm-trans-b for 8-bit types).
template <int N>
inline void wgmma_rs_e4m3(float (&d)[N / 2], const unsigned (&a)[4],
                          unsigned long long desc_b, int scale_d) {
  sm90::wgmmaRegisterA<emu::isa::WgmmaType::E4M3, N, false>(
      "wgmma.mma_async.e4m3 (A in registers)", d, a, desc_b, scale_d);
}

} // namespace kgen::cuda

#endif // KGEN_EMULATE_SM90_H
