//===- Device.h - the emulated CUDA device: fibers, barriers, checks -*- C++ -*-===//
//
// What a CUDA compiler and the hardware give a kernel, for a host C++17
// compiler (docs/emulated-device.md). Included by kgen/cuda/Common.cuh when
// KGEN_EMULATE is set; header-only, so each kernel shared object carries its
// own device.
//
//   CUDA spellings      __global__, __shared__ (function statics: the blocks
//                       of a launch run one after another), threadIdx,
//                       blockIdx, blockDim, gridDim, __syncthreads, the
//                       vector types, atomics, __ldcg, __threadfence
//   threads             each CUDA thread is a fiber (makecontext for its
//                       start, _setjmp/_longjmp to switch: no signal-mask
//                       system call per switch); a seeded generator picks
//                       the next runnable fiber at every yield point
//   __syncthreads       a rendezvous of the block's live threads
//   warp collectives    Warp::rendezvous: the 32 lanes arrive with their
//                       operands; the last one executes the instruction for
//                       all of them (kgen/emulate/Ptx.h); a lane arriving at
//                       another collective is reported (divergent .aligned)
//   cp.async            per-thread pending copies and groups (Ptx.h): data
//                       lands only when its group is waited for
//   shared memory       the dynamic allocation is the symbol `smem` (the
//                       emitter's name) inside a window with guard pages;
//                       at launch its bytes are poisoned (0xff: NaN in every
//                       float type) and the pages past the allocation are
//                       made inaccessible
//   checks              deadlock (every thread's wait site), shared bounds
//                       and races between threads with no barrier between
//                       them (accesses through the instruction layer),
//                       global bounds of cp.async sources against the
//                       registered tensors, guard-page faults (SIGSEGV)
// Every failure prints one report and ends the launch with a non-zero
// status (kgen_emu_launch returns 1; a fault exits the process with 1).
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_EMULATE_DEVICE_H
#define KGEN_EMULATE_DEVICE_H

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <csignal>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

//===----------------------------------------------------------------------===//
// CUDA spellings
//===----------------------------------------------------------------------===//

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__

struct uint3 { unsigned x, y, z; };
struct dim3 { unsigned x = 1, y = 1, z = 1; };
struct alignas(8) float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(16) uint4 { unsigned x, y, z, w; };
struct alignas(8) uint2 { unsigned x, y; };
struct alignas(16) int4 { int x, y, z, w; };
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) {
  return {x, y, z, w};
}
inline float __uint_as_float(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
inline unsigned __float_as_uint(float f) { unsigned u; std::memcpy(&u, &f, 4); return u; }
using std::fmaf;

// The dynamic shared allocation: `extern __shared__ unsigned char smem[]` in
// the emitted kernel refers to this symbol, inside a window of guard pages.
namespace kgen::emu {
constexpr size_t kPage = 4096;
constexpr size_t kSmemWindow = 256 * 1024; // > 227 KiB, the sm_90 maximum
} // namespace kgen::emu
__asm__(".pushsection .bss.kgen_emu_smem,\"aw\",@nobits\n"
        ".balign 4096\n"
        ".globl kgen_emu_smem_lo\n.hidden kgen_emu_smem_lo\n"
        "kgen_emu_smem_lo:\n"
        ".space 4096\n"
        ".globl smem\n.hidden smem\n"
        ".globl _ZN4kgen5block7smemRawE\n.hidden _ZN4kgen5block7smemRawE\n"
        "smem:\n"
        "_ZN4kgen5block7smemRawE:\n"
        ".space 262144\n"
        ".space 4096\n"
        ".globl kgen_emu_smem_hi\n.hidden kgen_emu_smem_hi\n"
        "kgen_emu_smem_hi:\n"
        ".popsection\n");
extern "C" unsigned char kgen_emu_smem_lo[];
extern "C" unsigned char kgen_emu_smem_hi[];
extern "C" unsigned char smem[];
// The same allocation under the wgmma pipeline's name for it
// (kgen::block::WgmmaPipeline::run's `extern __shared__ ... smemRaw[]`,
// GemmSm90.cuh: a block-scope extern in namespace kgen::block).

namespace kgen::emu {

//===----------------------------------------------------------------------===//
// Failure reports
//===----------------------------------------------------------------------===//

/// Prints "kgen-emulate: error: ..." and fails the launch (returns to the
/// scheduler, which returns 1 from kgen_emu_launch).
[[noreturn]] inline void fail(const char *fmt, ...);

//===----------------------------------------------------------------------===//
// Threads as fibers
//===----------------------------------------------------------------------===//

enum class Wait {
  Runnable,
  Barrier,   // __syncthreads
  Warp,      // a warp collective
  Group,     // a warpgroup collective (wgmma, setmaxnreg)
  Mbarrier,  // mbarrier.try_wait.parity
  Named,     // bar.sync id, count
  Cluster,   // barrier.cluster.wait
  Done
};

/// A cp.async copy between its issue and its group's completion.
struct PendingCopy {
  unsigned dst;     // shared-window offset
  const void *src;  // global source
  int srcBytes;     // bytes read; the rest of the 16 are zero-filled
  int bytes;        // cp-size
};

struct Fiber {
  uint3 tid{};
  int linear = 0, warp = 0, lane = 0;
  int blk = 0; // its block's index in the cluster (Device::blocks)
  // Wait::Mbarrier: the barrier (shared offset) and parity waited for;
  // Wait::Cluster: the cluster-barrier phase it arrived in.
  unsigned waitBar = 0, waitParity = 0;
  uint64_t clusterArrived = 0; // phase + 1 of its last barrier.cluster.arrive
  // cp.async.bulk store groups (tma_store_2d): the open group's stores and
  // the committed ones, oldest first (executed by wait_group.read).
  std::vector<struct BulkStore> storeOpen;
  std::deque<std::vector<struct BulkStore>> storeGroups;
  Wait wait = Wait::Runnable;
  uint32_t proxyFences = 0; // fence.proxy.async issued so far
  const char *site = "";  // what it waits at (or the last collective)
  int line = 0;
  bool started = false;
  jmp_buf jb;
  ucontext_t start;
  char *stack = nullptr;
  // cp.async: the open (uncommitted) group and the committed ones, oldest
  // first.
  std::vector<PendingCopy> open;
  std::deque<std::vector<PendingCopy>> groups;
};

/// One lane's operands of a warp collective.
struct LaneArgs {
  const void *in = nullptr;
  void *out = nullptr;
  unsigned addr = 0;
};
using CollectiveFn = void (*)(LaneArgs (&lanes)[32]);

struct WarpState {
  const char *op = nullptr;   // the collective the lanes are gathering at
  CollectiveFn fn = nullptr;
  int arrived = 0;
  LaneArgs lanes[32];
};

/// Per-byte shadow of the shared window for the race and visibility checks.
struct Shadow {
  uint32_t wEpoch = 0, rEpoch = 0;
  int16_t wThread = -1, rThread = -1; // rThread -2: several readers
  bool pending = false;               // a cp.async not yet completed
  // The last write was a generic-proxy store (st_shared) made when its
  // thread had issued `wFence` fence.proxy.async: the async proxy (TMA
  // store, wgmma) may read the byte only after that thread's next fence.
  bool generic = false;
  uint32_t wFence = 0;
};

/// A tma_store_2d between its issue and its group's wait_group.read.
struct BulkStore {
  unsigned char map[128]; // the tensor map (kgen/emulate/TensorMap.h)
  int coords[5];
  unsigned src;
};

/// An mbarrier object in shared memory (PTX ISA 9.7.13.15.1): expected
/// arrival count, pending arrivals and transaction count of the current
/// phase, and the phase number (its parity is what try_wait.parity asks).
struct Mbar {
  unsigned expected = 0;
  long pending = 0;
  long tx = 0;
  uint64_t phase = 0;
  int inflight = 0; // TMA copies that will complete_tx on it
  // Shared ranges [first, first + second) written by copies that completed
  // in this phase: pending (invisible) until the phase completes.
  std::vector<std::pair<unsigned, unsigned>> landed;
  int line = 0;
};

/// One warpgroup's wgmma state: the operations issued since the last
/// commit and the committed groups, oldest first (kgen/emulate/Sm90.h).
struct WgmmaOp;
struct WarpgroupState {
  const char *op = nullptr; // the collective its threads gather at
  int arrived = 0;
  void (*fn)(void *(&args)[128]) = nullptr;
  void *args[128] = {};
  std::vector<WgmmaOp *> open;
  std::deque<std::vector<WgmmaOp *>> groups;
  // A wgmma.fence since the start or the last wgmma.wait_group (after which
  // the threads may touch the accumulators).
  bool fenced = false;
};

struct NamedBarrier {
  unsigned count = 0; // the thread count of the current instance
  unsigned arrived = 0;
  int line = 0;
};

struct Buffer {
  std::string name;
  const char *lo;
  size_t bytes;
};

struct Options {
  uint64_t seed = 1;
  int verbose = 0;
};

/// One block (CTA) of the cluster being run.
struct Block {
  uint3 bidx{};
  unsigned rank = 0; // %cluster_ctarank
  std::vector<Fiber> fibers;
  std::vector<WarpState> warps;
  std::vector<WarpgroupState> warpgroups;
  std::vector<Shadow> shadow;
  // Its dynamic shared memory while another block's is in the window.
  std::vector<unsigned char> store;
  int live = 0, barrierArrived = 0, barrierLine = 0;
  uint32_t epoch = 1; // completed block barriers + 1
  std::vector<std::pair<unsigned, Mbar>> mbars; // by shared offset
  NamedBarrier named[16];
};

/// A TMA load between its issue and its completion (kgen/emulate/Sm90.h).
struct TmaLoad {
  unsigned char map[128];
  int coords[5];
  unsigned dst, bar, bytes;
  unsigned mask; // destination blocks (ranks)
  int issuer;    // block index of the issuing thread
  int line;
};

struct Device {
  Options opts;
  std::vector<Buffer> buffers;
  // Launch.
  dim3 grid, block, cluster;
  unsigned dynSmem = 0;
  const char *kernel = "";
  // The blocks of the cluster being run; `window`: the one whose shared
  // memory is in the `smem` window.
  std::vector<Block> blocks;
  int window = -1;
  int clusterLive = 0;
  unsigned clusterArrived = 0;
  uint64_t clusterPhase = 0;
  std::deque<TmaLoad> tmaInFlight;
  Fiber *cur = nullptr;
  jmp_buf sched;
  std::mt19937_64 rng;
  void (*body)(void *) = nullptr;
  void *bodyArg = nullptr;
  bool failed = false;
  size_t stackBytes = 256 * 1024;
};

inline Device &dev() {
  static Device d;
  return d;
}
inline Fiber &self() { return *dev().cur; }
/// The block of the running thread (or of fiber f).
inline Block &blk() { Device &d = dev(); return d.blocks[d.cur->blk]; }
inline Block &blkOf(const Fiber &f) { return dev().blocks[f.blk]; }
/// Block b's dynamic shared memory: the window, or its store.
inline unsigned char *smemOf(int b) {
  Device &d = dev();
  return d.window == b ? smem : d.blocks[b].store.data();
}

inline void describeThread(char *buf, size_t n, const Fiber &f) {
  const Device &d = dev();
  const Block &b = d.blocks[f.blk];
  std::snprintf(buf, n, "kernel %s block (%u,%u,%u) thread %d (warp %d lane %d)",
                d.kernel, b.bidx.x, b.bidx.y, b.bidx.z, f.linear,
                f.warp, f.lane);
}

[[noreturn]] inline void fail(const char *fmt, ...) {
  Device &d = dev();
  char where[256] = "";
  if (d.cur)
    describeThread(where, sizeof where, *d.cur);
  std::fprintf(stderr, "kgen-emulate: error: ");
  va_list ap;
  va_start(ap, fmt);
  std::vfprintf(stderr, fmt, ap);
  va_end(ap);
  if (d.cur)
    std::fprintf(stderr, "\n  in %s", where);
  std::fprintf(stderr, "\n");
  d.failed = true;
  _longjmp(d.sched, 1);
}

/// Back to the scheduler; returns when this fiber is picked again.
inline void yield() {
  Device &d = dev();
  if (_setjmp(d.cur->jb) == 0)
    _longjmp(d.sched, 1);
}

/// Blocks the calling fiber until someone sets it runnable.
inline void block(Wait w, const char *site, int line = 0) {
  Fiber &f = self();
  f.wait = w;
  f.site = site;
  f.line = line;
  yield();
}

inline void fiberMain(unsigned lo, unsigned hi);

/// Hooks of kgen/emulate/Sm90.h run at a thread's exit (its pending bulk
/// stores) and when the cluster barrier may complete.
inline void (*&threadExitHook())(Fiber &) {
  static void (*h)(Fiber &) = nullptr;
  return h;
}
inline void releaseCluster();

inline void threadExit() {
  Device &d = dev();
  Fiber &f = self();
  Block &b = blk();
  if (threadExitHook())
    threadExitHook()(f);
  f.wait = Wait::Done;
  --b.live;
  --d.clusterLive;
  // A warp collective missing this lane can never complete.
  WarpState &w = b.warps[f.warp];
  if (w.arrived > 0)
    fail("thread exited while the other lanes of its warp wait at %s "
         "(.aligned collectives need all 32 lanes)", w.op);
  if (size_t(f.warp / 4) < b.warpgroups.size() &&
      b.warpgroups[f.warp / 4].arrived > 0)
    fail("thread exited while other threads of its warpgroup wait at %s "
         "(.sync.aligned warpgroup instructions need all 128 threads)",
         b.warpgroups[f.warp / 4].op);
  // Exited threads do not hold up a block barrier.
  if (b.barrierArrived > 0 && b.barrierArrived == b.live) {
    for (Fiber &g : b.fibers)
      if (g.wait == Wait::Barrier)
        g.wait = Wait::Runnable;
    b.barrierArrived = 0;
    ++b.epoch;
  }
  releaseCluster();
  _longjmp(d.sched, 1);
}

inline void fiberMain(unsigned, unsigned) {
  Device &d = dev();
  d.body(d.bodyArg);
  threadExit();
}

//===----------------------------------------------------------------------===//
// Block barrier and warp collectives
//===----------------------------------------------------------------------===//

/// __syncthreads (bar.sync 0 over the whole block).
inline void syncthreads(int line) {
  Block &d = blk();
  Fiber &f = self();
  if (d.warps[f.warp].arrived > 0)
    fail("__syncthreads (line %d) while lanes of this warp wait at %s", line,
         d.warps[f.warp].op);
  // One barrier instance reached from two places: __syncthreads in
  // divergent code (undefined behaviour; bar.sync counts arrivals, so the
  // threads fall out of step instead of deadlocking).
  if (d.barrierArrived > 0 && d.barrierLine != line)
    fail("divergent __syncthreads: this thread arrives at line %d while %d "
         "threads wait at line %d", line, d.barrierArrived, d.barrierLine);
  d.barrierLine = line;
  if (++d.barrierArrived == d.live) {
    for (Fiber &g : d.fibers)
      if (g.wait == Wait::Barrier)
        g.wait = Wait::Runnable;
    d.barrierArrived = 0;
    ++d.epoch;
    f.site = "__syncthreads";
    yield(); // still runnable: only a change of order
    return;
  }
  block(Wait::Barrier, "__syncthreads (bar.sync 0)", line);
}

/// Completes the cluster barrier when every live thread of the cluster has
/// arrived (exited threads do not hold it up).
inline void releaseCluster() {
  Device &d = dev();
  if (d.clusterArrived == 0 || d.clusterArrived < unsigned(d.clusterLive))
    return;
  d.clusterArrived = 0;
  ++d.clusterPhase;
  for (Block &b : d.blocks)
    for (Fiber &g : b.fibers)
      if (g.wait == Wait::Cluster)
        g.wait = Wait::Runnable;
}

/// A warp-collective instruction: every lane arrives with its operands; the
/// last one runs `fn` over all 32 and releases them.
inline void rendezvous(const char *op, CollectiveFn fn, const LaneArgs &args) {
  Block &d = blk();
  Fiber &f = self();
  WarpState &w = d.warps[f.warp];
  if (w.arrived > 0 && std::strcmp(w.op, op) != 0)
    fail("divergent warp collective: lane %d reached %s while other lanes of "
         "warp %d wait at %s", f.lane, op, f.warp, w.op);
  for (int l = 0; l < 32; ++l) {
    const int t = f.warp * 32 + l;
    if (t >= int(d.fibers.size()) || d.fibers[t].wait == Wait::Done)
      fail("%s with lane %d of warp %d exited or absent (.aligned "
           "collectives need all 32 lanes)", op, l, f.warp);
  }
  w.op = op;
  w.fn = fn;
  w.lanes[f.lane] = args;
  if (++w.arrived == 32) {
    fn(w.lanes);
    w.arrived = 0;
    w.op = nullptr;
    for (int l = 0; l < 32; ++l) {
      Fiber &g = d.fibers[f.warp * 32 + l];
      if (g.wait == Wait::Warp)
        g.wait = Wait::Runnable;
    }
    f.site = op;
    yield();
    return;
  }
  block(Wait::Warp, op);
}

//===----------------------------------------------------------------------===//
// Shared memory: bounds, races, visibility
//===----------------------------------------------------------------------===//

/// The shared-window offset of a generic pointer into dynamic shared memory.
inline unsigned smem_u32(const void *p) {
  const unsigned char *q = static_cast<const unsigned char *>(p);
  const Device &d = dev();
  if (d.window >= 0 && d.cur && d.window != d.cur->blk)
    fail("internal: shared window holds block %d, thread of block %d runs",
         d.window, d.cur->blk);
  if (q < smem || q > smem + d.dynSmem)
    fail("shared-window address of %p, which is not in the dynamic shared "
         "allocation [%p, %p) (%u bytes)", p, (const void *)smem,
         (const void *)(smem + d.dynSmem), d.dynSmem);
  return unsigned(q - smem);
}

inline void checkSmem(const char *op, unsigned addr, unsigned bytes,
                      unsigned align) {
  const Device &d = dev();
  if (uint64_t(addr) + bytes > d.dynSmem)
    fail("%s: shared address [%u, %u) outside the dynamic shared allocation "
         "of %u bytes", op, addr, addr + bytes, d.dynSmem);
  if (addr % align != 0)
    fail("%s: shared address %u not %u-byte aligned", op, addr, align);
}

/// A read of shared bytes [addr, addr + bytes) by thread `t` through the
/// instruction layer.
inline void shadowRead(const char *op, int t, unsigned addr, unsigned bytes,
                       Block *target = nullptr) {
  Block &d = target ? *target : blk();
  checkSmem(op, addr, bytes, 1);
  for (unsigned i = addr; i < addr + bytes; ++i) {
    Shadow &s = d.shadow[i];
    if (s.pending && s.wThread == -3)
      fail("%s by thread %d reads shared byte %u while the TMA load into it "
           "has not completed or its mbarrier phase has not completed "
           "(missing mbarrier wait, or expect_tx too small?)", op, t, i);
    if (s.pending)
      fail("%s by thread %d reads shared byte %u while a cp.async of thread "
           "%d into it has not completed (missing cp.async.wait_group?)",
           op, t, i, s.wThread);
    if (s.wThread >= 0 && s.wThread != t && s.wEpoch == d.epoch)
      fail("race: %s by thread %d reads shared byte %u written by thread %d "
           "with no barrier between them", op, t, i, s.wThread);
    if (s.rEpoch == d.epoch && s.rThread != t)
      s.rThread = -2;
    else
      s.rThread = int16_t(t);
    s.rEpoch = d.epoch;
  }
}

/// A write (or the issue of an asynchronous one) by thread `t`.
inline void shadowWrite(const char *op, int t, unsigned addr, unsigned bytes,
                        bool async, Block *target = nullptr) {
  Block &d = target ? *target : blk();
  for (unsigned i = addr; i < addr + bytes; ++i) {
    Shadow &s = d.shadow[i];
    if (s.rEpoch == d.epoch && s.rThread != t && s.rThread != -1)
      fail("race: %s by thread %d writes shared byte %u that %s read with no "
           "barrier between them", op, t, i,
           s.rThread == -2 ? "other threads" : "another thread");
    if (s.wThread >= 0 && s.wThread != t &&
        (s.pending || s.wEpoch == d.epoch))
      fail("race: %s by thread %d writes shared byte %u that thread %d wrote "
           "with no barrier between them", op, t, i, s.wThread);
    s.wThread = int16_t(t);
    s.pending = async;
    s.wEpoch = d.epoch;
    s.generic = false;
  }
}

/// Marks [addr, addr + bytes), just written by the calling thread with a
/// plain store (st_shared), as generic-proxy data not yet fenced for the
/// async proxy.
inline void markGenericWrite(unsigned addr, unsigned bytes) {
  Block &d = blk();
  const uint32_t fences = self().proxyFences;
  for (unsigned i = addr; i < addr + bytes; ++i) {
    d.shadow[i].generic = true;
    d.shadow[i].wFence = fences;
  }
}

/// An async-proxy read (a TMA store's source, a wgmma operand) of shared
/// byte i of block d: its generic-proxy writer must have issued
/// fence.proxy.async since (PTX ISA, memory consistency model: proxies).
inline bool unfencedGeneric(const Block &d, unsigned i) {
  const Shadow &s = d.shadow[i];
  return s.generic && s.wThread >= 0 && size_t(s.wThread) < d.fibers.size() &&
         d.fibers[size_t(s.wThread)].proxyFences == s.wFence;
}
inline void checkAsyncProxyRead(const char *op, const Block &d, unsigned i) {
  const Shadow &s = d.shadow[i];
  if (unfencedGeneric(d, i))
    fail("%s reads shared byte %u that thread %d stored through the generic "
         "proxy with no fence.proxy.async after the store (missing "
         "fence_proxy_async?)", op, i, int(s.wThread));
}

//===----------------------------------------------------------------------===//
// Global memory
//===----------------------------------------------------------------------===//

/// The registered tensor holding [p, p + bytes), or null.
inline const Buffer *findBuffer(const void *p, size_t bytes) {
  const char *q = static_cast<const char *>(p);
  for (const Buffer &b : dev().buffers)
    if (q >= b.lo && q + bytes <= b.lo + b.bytes)
      return &b;
  return nullptr;
}

inline void checkGlobal(const char *op, const void *p, size_t bytes) {
  if (findBuffer(p, bytes))
    return;
  const char *q = static_cast<const char *>(p);
  std::string near = "no tensor";
  for (const Buffer &b : dev().buffers)
    if (q >= b.lo - 4096 && q < b.lo + b.bytes + 4096)
      near = "tensor " + b.name + " [" + std::to_string(b.bytes) + " bytes] at offset " +
             std::to_string(q - b.lo);
  fail("%s: global access [%p, +%zu) outside every tensor of the launch "
       "(nearest: %s)", op, p, bytes, near.c_str());
}

} // namespace kgen::emu

#define threadIdx (::kgen::emu::self().tid)
#define blockIdx (::kgen::emu::blk().bidx)
#define blockDim (::kgen::emu::dev().block)
#define gridDim (::kgen::emu::dev().grid)
#define __syncthreads() ::kgen::emu::syncthreads(__LINE__)

inline void __threadfence() {}
inline unsigned atomicAdd(unsigned *p, unsigned v) { unsigned o = *p; *p = o + v; return o; }
inline int atomicAdd(int *p, int v) { int o = *p; *p = o + v; return o; }
inline float atomicAdd(float *p, float v) { float o = *p; *p = o + v; return o; }
inline unsigned atomicExch(unsigned *p, unsigned v) { unsigned o = *p; *p = v; return o; }
template <class T> inline T __ldcg(const T *p) { return *p; }
inline void __syncwarp(unsigned = 0xffffffffu) {}
#define __trap() ::kgen::emu::fail("__trap() (line %d)", __LINE__)

//===----------------------------------------------------------------------===//
// Launch
//===----------------------------------------------------------------------===//

namespace kgen::emu {

inline void onFault(int, siginfo_t *si, void *) {
  Device &d = dev();
  const char *a = static_cast<const char *>(si->si_addr);
  char where[256] = "outside a kernel thread";
  if (d.cur)
    describeThread(where, sizeof where, *d.cur);
  const unsigned char *ua = reinterpret_cast<const unsigned char *>(a);
  if (ua >= kgen_emu_smem_lo && ua < kgen_emu_smem_hi)
    std::fprintf(stderr,
                 "kgen-emulate: error: shared access at offset %ld outside the "
                 "dynamic shared allocation of %u bytes\n  in %s\n",
                 long(ua - smem), d.dynSmem, where);
  else {
    std::string near = "no tensor";
    for (const Buffer &b : d.buffers)
      if (a >= b.lo - 8192 && a < b.lo + b.bytes + 8192)
        near = "tensor " + b.name + " (" + std::to_string(b.bytes) +
               " bytes), offset " + std::to_string(a - b.lo);
    std::fprintf(stderr,
                 "kgen-emulate: error: invalid memory access at %p (%s)\n  in %s\n",
                 (const void *)a, near.c_str(), where);
  }
  std::fflush(stderr);
  _exit(1);
}

inline void installFaultHandler() {
  static bool done = false;
  if (done)
    return;
  done = true;
  static char altstack[64 * 1024];
  stack_t ss{};
  ss.ss_sp = altstack;
  ss.ss_size = sizeof altstack;
  sigaltstack(&ss, nullptr);
  struct sigaction sa{};
  sa.sa_sigaction = onFault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigaction(SIGSEGV, &sa, nullptr);
  sigaction(SIGBUS, &sa, nullptr);
}

/// Hook of kgen/emulate/Sm90.h: prints the state of the cluster's
/// mbarriers and in-flight copies in a deadlock report.
inline void (*&deadlockHook())() {
  static void (*h)() = nullptr;
  return h;
}
/// Hook of kgen/emulate/Sm90.h: completes one in-flight asynchronous
/// operation (a TMA load) when no thread can run; false when none is left.
inline bool (*&asyncHook())() {
  static bool (*h)() = nullptr;
  return h;
}

inline const char *waitName(Wait w) {
  switch (w) {
  case Wait::Barrier: return "block barrier";
  case Wait::Warp: return "warp collective";
  case Wait::Group: return "warpgroup collective";
  case Wait::Mbarrier: return "mbarrier wait";
  case Wait::Named: return "named barrier";
  case Wait::Cluster: return "cluster barrier";
  default: return "";
  }
}

inline void reportDeadlock() {
  Device &d = dev();
  d.cur = nullptr;
  std::fprintf(stderr,
               "kgen-emulate: error: deadlock in kernel %s: no thread can "
               "proceed; %d threads of %zu block(s) live\n",
               d.kernel, d.clusterLive, d.blocks.size());
  for (const Block &b : d.blocks) {
    std::fprintf(stderr, "  block (%u,%u,%u) (cluster rank %u): %d live, %d "
                 "at the block barrier\n", b.bidx.x, b.bidx.y, b.bidx.z,
                 b.rank, b.live, b.barrierArrived);
    // Threads waiting at the same site are listed as one line.
    size_t i = 0;
    while (i < b.fibers.size()) {
      const Fiber &f = b.fibers[i];
      size_t j = i + 1;
      auto same = [&](const Fiber &g) {
        return g.wait == f.wait && g.line == f.line && g.site == f.site &&
               g.waitBar == f.waitBar && g.waitParity == f.waitParity;
      };
      while (j < b.fibers.size() && same(b.fibers[j]))
        ++j;
      char who[64];
      if (j - i == 1)
        std::snprintf(who, sizeof who, "thread %d (warp %d lane %d)",
                      f.linear, f.warp, f.lane);
      else
        std::snprintf(who, sizeof who, "threads %d..%d", f.linear,
                      b.fibers[j - 1].linear);
      if (f.wait == Wait::Done)
        std::fprintf(stderr, "    %s: exited\n", who);
      else if (f.wait == Wait::Mbarrier)
        std::fprintf(stderr, "    %s: at %s on the mbarrier at shared "
                     "offset %u, parity %u\n", who, f.site, f.waitBar,
                     f.waitParity);
      else if (f.wait == Wait::Warp)
        std::fprintf(stderr, "    %s: at %s, %d of 32 lanes arrived\n", who,
                     f.site, b.warps[f.warp].arrived);
      else if (f.line > 0)
        std::fprintf(stderr, "    %s: at %s (%s), line %d\n", who, f.site,
                     waitName(f.wait), f.line);
      else
        std::fprintf(stderr, "    %s: at %s (%s)\n", who, f.site,
                     waitName(f.wait));
      i = j;
    }
  }
  if (deadlockHook())
    deadlockHook()();
  d.failed = true;
}

/// Puts block b's shared memory into the window (the kernel's `smem`
/// symbol), saving the one there.
inline void switchWindow(int b) {
  Device &d = dev();
  if (d.window == b)
    return;
  if (d.window >= 0)
    std::memcpy(d.blocks[d.window].store.data(), smem, d.dynSmem);
  std::memcpy(smem, d.blocks[b].store.data(), d.dynSmem);
  d.window = b;
}

/// Runs the blocks of one cluster (block indices `ids`, cluster rank =
/// position): every thread as a fiber, in a seeded order, the threads of one
/// block in a batch so that its shared memory stays in the window. False on
/// a reported failure.
inline bool runCluster(const std::vector<uint3> &ids) {
  Device &d = dev();
  const int n = int(d.block.x * d.block.y * d.block.z);
  const int nb = int(ids.size());
  d.blocks.assign(size_t(nb), Block{});
  d.window = -1;
  d.clusterLive = n * nb;
  d.clusterArrived = 0;
  d.clusterPhase = 0;
  d.tmaInFlight.clear();
  for (int b = 0; b < nb; ++b) {
    Block &bk = d.blocks[b];
    bk.bidx = ids[b];
    bk.rank = unsigned(b);
    bk.fibers.assign(size_t(n), Fiber{});
    bk.warps.assign(size_t((n + 31) / 32), WarpState{});
    bk.warpgroups.assign(size_t((n + 127) / 128), WarpgroupState{});
    bk.shadow.assign(d.dynSmem, Shadow{});
    bk.live = n;
    // Poison: NaN in every float type.
    if (nb > 1)
      bk.store.assign(d.dynSmem, 0xff);
    for (int i = 0; i < n; ++i) {
      Fiber &f = bk.fibers[i];
      f.linear = i;
      f.blk = b;
      f.tid = {unsigned(i % d.block.x), unsigned(i / d.block.x % d.block.y),
               unsigned(i / (d.block.x * d.block.y))};
      f.warp = i / 32;
      f.lane = i % 32;
      f.stack = static_cast<char *>(std::malloc(d.stackBytes));
      getcontext(&f.start);
      f.start.uc_stack.ss_sp = f.stack;
      f.start.uc_stack.ss_size = d.stackBytes;
      f.start.uc_link = nullptr;
      makecontext(&f.start, reinterpret_cast<void (*)()>(fiberMain), 2, 0u,
                  0u);
    }
  }
  if (nb == 1) {
    std::memset(smem, 0xff, d.dynSmem);
    d.window = 0;
  }
  std::vector<int> order;
  std::vector<std::vector<int>> runnable;
  order.resize(size_t(nb));
  runnable.resize(size_t(nb));
  for (;;) {
    bool any = false;
    for (int b = 0; b < nb; ++b) {
      runnable[b].clear();
      for (int i = 0; i < n; ++i)
        if (d.blocks[b].fibers[i].wait == Wait::Runnable)
          runnable[b].push_back(i);
      any = any || !runnable[b].empty();
    }
    if (!any) {
      // Nothing can run: the asynchronous operations complete now, at the
      // latest moment the hardware allows, one at a time.
      // (A failure reported there returns here through d.sched.)
      volatile bool progressed = false;
      if (asyncHook() && _setjmp(d.sched) == 0)
        progressed = asyncHook()();
      if (d.failed || !progressed)
        break;
      continue;
    }
    // The blocks in a random order, each block's runnable threads in a
    // random order, each to its next yield.
    for (int b = 0; b < nb; ++b)
      order[b] = b;
    std::shuffle(order.begin(), order.end(), d.rng);
    for (int b : order) {
      if (runnable[b].empty())
        continue;
      std::shuffle(runnable[b].begin(), runnable[b].end(), d.rng);
      switchWindow(b);
      for (int i : runnable[b]) {
        Fiber &f = d.blocks[b].fibers[i];
        if (f.wait != Wait::Runnable)
          continue;
        d.cur = &f;
        if (_setjmp(d.sched) == 0) {
          if (!f.started) {
            f.started = true;
            setcontext(&f.start);
          }
          _longjmp(f.jb, 1);
        }
        d.cur = nullptr;
        if (d.failed)
          break;
      }
      if (d.failed)
        break;
    }
    if (d.failed)
      break;
  }
  bool ok = !d.failed;
  if (ok && d.clusterLive > 0) {
    reportDeadlock();
    ok = false;
  }
  if (ok && !d.tmaInFlight.empty()) {
    std::fprintf(stderr, "kgen-emulate: error: kernel %s: the blocks exited "
                 "with %zu TMA load(s) still in flight\n", d.kernel,
                 d.tmaInFlight.size());
    ok = false;
  }
  for (Block &b : d.blocks)
    for (Fiber &f : b.fibers)
      std::free(f.stack);
  d.blocks.clear();
  d.window = -1;
  return ok;
}

/// Runs body(arg) as every thread of every block, the blocks of a cluster
/// together (clusters in order x, y, z; `cluster` {1,1,1}: one block at a
/// time).
inline int launch(const char *kernel, dim3 grid, dim3 block, unsigned dynSmem,
                  void (*body)(void *), void *arg, dim3 cluster = dim3{}) {
  Device &d = dev();
  installFaultHandler();
  if (dynSmem > kSmemWindow) {
    std::fprintf(stderr, "kgen-emulate: error: %u bytes of dynamic shared "
                 "memory, more than the emulated %zu\n", dynSmem, kSmemWindow);
    return 1;
  }
  if (cluster.x == 0 || cluster.y == 0 || cluster.z == 0 ||
      grid.x % cluster.x || grid.y % cluster.y || grid.z % cluster.z ||
      cluster.x * cluster.y * cluster.z > 16) {
    std::fprintf(stderr, "kgen-emulate: error: cluster (%u,%u,%u) does not "
                 "divide grid (%u,%u,%u) or exceeds 16 blocks\n", cluster.x,
                 cluster.y, cluster.z, grid.x, grid.y, grid.z);
    return 1;
  }
  d.kernel = kernel;
  d.grid = grid;
  d.block = block;
  d.cluster = cluster;
  d.dynSmem = dynSmem;
  d.body = body;
  d.bodyArg = arg;
  d.failed = false;
  d.rng.seed(d.opts.seed);
  // Guard pages: before the allocation, and from the first page past it.
  unsigned char *lo = kgen_emu_smem_lo, *hi = kgen_emu_smem_hi;
  const size_t usable = (dynSmem + kPage - 1) / kPage * kPage;
  mprotect(smem, usable, PROT_READ | PROT_WRITE);
  mprotect(lo, kPage, PROT_NONE);
  mprotect(smem + usable, size_t(hi - (smem + usable)), PROT_NONE);
  int rc = 0;
  std::vector<uint3> ids;
  for (unsigned z = 0; z < grid.z && rc == 0; z += cluster.z)
    for (unsigned y = 0; y < grid.y && rc == 0; y += cluster.y)
      for (unsigned x = 0; x < grid.x && rc == 0; x += cluster.x) {
        // %cluster_ctarank: x fastest within the cluster.
        ids.clear();
        for (unsigned cz = 0; cz < cluster.z; ++cz)
          for (unsigned cy = 0; cy < cluster.y; ++cy)
            for (unsigned cx = 0; cx < cluster.x; ++cx)
              ids.push_back({x + cx, y + cy, z + cz});
        if (!runCluster(ids))
          rc = 1;
      }
  mprotect(lo, size_t(hi - lo), PROT_READ | PROT_WRITE);
  return rc;
}

/// Calls `fn` with the arguments `args` points at (cudaLaunchKernel's
/// convention: args[i] points at parameter i).
template <class... P> struct Invoker {
  void (*fn)(P...);
  void **args;
  template <size_t... I> void call(std::index_sequence<I...>) {
    fn(*static_cast<std::remove_reference_t<P> *>(args[I])...);
  }
  static void run(void *self) {
    static_cast<Invoker *>(self)->call(std::index_sequence_for<P...>{});
  }
};

template <class... P>
int launchKernel(const char *name, void (*fn)(P...), void **args, dim3 grid,
                 dim3 block, unsigned dynSmem, dim3 cluster = dim3{}) {
  Invoker<P...> inv{fn, args};
  return launch(name, grid, block, dynSmem, &Invoker<P...>::run, &inv,
                cluster);
}

} // namespace kgen::emu

#endif // KGEN_EMULATE_DEVICE_H
