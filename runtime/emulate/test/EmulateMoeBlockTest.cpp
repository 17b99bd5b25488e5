//===- EmulateMoeBlockTest.cpp - MoE block steps on the emulated device ---===//
//
// The kernels of MoeBlockTestKernel.cuh (one kgen/block/Moe.cuh step each)
// run on the emulated device and are compared, bit for bit, with
// straightforward host implementations of the ops' definitions
// (passes/LowerToLoops.cpp: emitRoute, lowerMoePermute, lowerGroupedGemm's
// groups, lowerMoeCombine): routing (ties, NaN and infinite logits, top_k
// == experts, 1 to 1024 experts), the DeepSeek routing (sigmoid, bias,
// expert groups within and across lane rounds, ties, NaN, scaling), ranks
// and offsets (empty experts, every
// copy to one expert, invalid ids -1 and E, copy counts that are not a
// multiple of the block), the gather (vector and element paths, the zero
// rows), the group tile of every tile index and past the end (BlockM 16 and
// 64, clamped offsets), and the combine (dropped copies, vector and element
// paths, three output types). Compiled with -ffp-contract=off so that the
// host reference rounds each product and sum, as the definitions do.
//
// Register report of the same kernels (no GPU needed):
//   nvcc -std=c++17 -arch=sm_80 -Xptxas -v -I codegen/include
//        -I runtime/emulate/test -c FILE.cu   (FILE.cu instantiates them)
//
//===----------------------------------------------------------------------===//

#include "MoeBlockTestKernel.cuh"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {
using namespace kgen;

using bf16 = __nv_bfloat16;
using f16 = __half;

constexpr float kInf = std::numeric_limits<float>::infinity();

/// Registers the launch's tensors for the emulator's global bounds checks.
struct Buffers {
  template <class T> void add(const char *name, const std::vector<T> &v) {
    emu::dev().buffers.push_back(
        {name, reinterpret_cast<const char *>(v.data()), v.size() * sizeof(T)});
  }
  ~Buffers() { emu::dev().buffers.clear(); }
};

template <class... P>
bool launch(const char *name, void (*fn)(P...), void **args, long blocks,
            int threads) {
  if (emu::launchKernel(name, fn, args, dim3{unsigned(blocks), 1, 1},
                        dim3{unsigned(threads), 1, 1}, 0) != 0) {
    ADD_FAILURE() << name << " failed on the emulated device";
    return false;
  }
  return true;
}

bool sameBits(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, 4) == 0;
}

template <class T> float f32(T x) { return float(x); }

template <class T> std::vector<T> sized(long n) {
  return std::vector<T>(static_cast<size_t>(n));
}

//===----------------------------------------------------------------------===//
// Routing
//===----------------------------------------------------------------------===//

void routeExtReference(const std::vector<float> &logits,
                       const std::vector<float> &bias, long tokens, long E,
                       long K, bool renorm, bool sigmoid, long G, long kept,
                       float scale, std::vector<int> &ids,
                       std::vector<float> &w);

/// emitRoute's plain routing (routeExtReference below).
void routeReference(const std::vector<float> &l, long T, long E, long K,
                    bool renorm, std::vector<int> &ids,
                    std::vector<float> &w) {
  routeExtReference(l, {}, T, E, K, renorm, /*sigmoid=*/false, /*G=*/1,
                    /*kept=*/1, /*scale=*/1.f, ids, w);
}

/// Every id equal and every weight the same bits (any NaN for a NaN).
void expectSameRouting(const std::vector<int> &ids, const std::vector<float> &w,
                       const std::vector<int> &refIds,
                       const std::vector<float> &refW, long topK,
                       const std::string &what) {
  long bad = 0;
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] != refIds[i] || !sameBits(w[i], refW[i])) {
      if (++bad <= 5)
        ADD_FAILURE() << "token " << long(i) / topK << " slot "
                      << long(i) % topK << ": id " << ids[i] << " weight "
                      << w[i] << ", expected " << refIds[i] << " " << refW[i];
    }
  EXPECT_EQ(bad, 0) << what;
}

/// Runs moe_route on `logits` rounded to T and compares with the reference
/// on the rounded values.
template <int Threads, int Rows, int TopK, bool Renorm, class T>
void checkRoute(const std::vector<float> &logits, long tokens, long E) {
  std::vector<T> lt(logits.size());
  std::vector<float> lf(logits.size());
  for (size_t i = 0; i < logits.size(); ++i) {
    lt[i] = T(logits[i]);
    lf[i] = f32(lt[i]);
  }
  std::vector<int> ids(size_t(tokens * TopK), -7);
  std::vector<float> w(size_t(tokens * TopK), 12345.f);
  Buffers buf;
  buf.add("logits", lt);
  buf.add("ids", ids);
  buf.add("weights", w);
  const T *lp = lt.data();
  int *ip = ids.data();
  float *wp = w.data();
  long t = tokens, experts = E;
  void *args[] = {&lp, &t, &experts, &ip, &wp};
  if (!launch("moe_route", &moe_route_kernel<Threads, Rows, TopK, Renorm, T>,
              args, (tokens + Rows - 1) / Rows, Threads))
    return;
  std::vector<int> refIds;
  std::vector<float> refW;
  routeReference(lf, tokens, E, TopK, Renorm, refIds, refW);
  expectSameRouting(ids, w, refIds, refW, TopK,
                    "E=" + std::to_string(E) + " TopK=" + std::to_string(TopK));
}

std::vector<float> randomLogits(long n, unsigned seed, float scale = 3.f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> x = sized<float>(n);
  for (float &v : x)
    v = u(rng);
  return x;
}

TEST(EmulateMoeBlock, RouteBf16Top2Renormalized) {
  // 37 tokens: not a multiple of Rows (8) or of the warps (4).
  checkRoute<128, 8, 2, true, bf16>(randomLogits(37 * 8, 1), 37, 8);
}

TEST(EmulateMoeBlock, RouteOneExpert) {
  checkRoute<64, 4, 1, false, float>(randomLogits(5, 2), 5, 1);
  checkRoute<64, 4, 1, true, float>(randomLogits(5, 3), 5, 1);
}

TEST(EmulateMoeBlock, Route256ExpertsWithTies) {
  // Logits on a grid of 5 values: every token has many equal probabilities.
  std::vector<float> l = randomLogits(20 * 256, 4);
  for (float &v : l)
    v = std::round(v / 1.5f);
  checkRoute<128, 4, 8, false, float>(l, 20, 256);
}

TEST(EmulateMoeBlock, Route300ExpertsF16) {
  checkRoute<64, 3, 4, true, f16>(randomLogits(9 * 300, 5), 9, 300);
}

TEST(EmulateMoeBlock, Route1024Experts) {
  checkRoute<64, 2, 6, true, float>(randomLogits(3 * 1024, 6, 8.f), 3, 1024);
}

TEST(EmulateMoeBlock, RouteTopKEqualsExperts) {
  checkRoute<32, 2, 6, true, float>(randomLogits(7 * 6, 7), 7, 6);
  checkRoute<64, 1, 33, false, float>(randomLogits(3 * 33, 8), 3, 33);
}

TEST(EmulateMoeBlock, RouteAllEqualNanAndInfiniteLogits) {
  const long E = 8;
  std::vector<float> l = randomLogits(8 * E, 9);
  for (long e = 0; e < E; ++e) {
    l[size_t(0 * E + e)] = 0.5f;               // all equal
    l[size_t(2 * E + e)] = -kInf;              // every p NaN
    l[size_t(5 * E + e)] = e % 2 ? -0.f : 0.f; // +0 and -0 maxima
  }
  l[size_t(1 * E + 3)] = NAN;   // one NaN logit: every p NaN
  l[size_t(3 * E + 0)] = NAN;   // NaN first and last
  l[size_t(3 * E + 7)] = NAN;
  l[size_t(4 * E + 6)] = kInf;  // inf - inf: NaN
  l[size_t(6 * E + 2)] = -kInf; // one -inf: p = 0 there
  checkRoute<64, 4, 3, true, float>(l, 8, E);
  checkRoute<64, 4, 3, false, float>(l, 8, E);
}

//===----------------------------------------------------------------------===//
// DeepSeek routing: moe_route_ext
//===----------------------------------------------------------------------===//

/// emitRoute with its RouteParams (passes/LowerToLoops.cpp), serially: the
/// scores (softmax: the max with maximumf's rule, exp(l - m) summed in
/// order, the division; or the sigmoid), choice scores with the bias, the
/// kept groups, the top-k scan from (-1, -inf) taking an eligible untaken
/// e when its choice score compares greater or nothing is held yet, the
/// renormalisation and the scale.
void routeExtReference(const std::vector<float> &logits,
                       const std::vector<float> &bias, long tokens, long E,
                       long K, bool renorm, bool sigmoid, long G, long kept,
                       float scale, std::vector<int> &ids,
                       std::vector<float> &w) {
  ids.assign(size_t(tokens * K), -1);
  w.assign(size_t(tokens * K), 0.f);
  const long gs = E / G;
  for (long t = 0; t < tokens; ++t) {
    std::vector<float> p = sized<float>(E), c = sized<float>(E);
    for (long e = 0; e < E; ++e)
      p[size_t(e)] = logits[size_t(t * E + e)];
    if (sigmoid) {
      for (float &v : p)
        v = 1.f / (1.f + std::exp(-v));
    } else {
      // arith.maximumf: a NaN wins, +0 over -0.
      float m = -kInf;
      for (float x : p) {
        if (std::isnan(m))
          continue;
        if (std::isnan(x) || x > m ||
            (x == 0.f && m == 0.f && !std::signbit(x)))
          m = x;
      }
      float s = 0.f;
      for (float &v : p) {
        v = std::exp(v - m);
        s = s + v;
      }
      for (float &v : p)
        v = v / s;
    }
    for (long e = 0; e < E; ++e)
      c[size_t(e)] = bias.empty() ? p[size_t(e)] : p[size_t(e)] + bias[size_t(e)];
    std::vector<bool> keep(static_cast<size_t>(G), G == 1);
    if (G > 1) {
      std::vector<float> score = sized<float>(G);
      for (long g = 0; g < G; ++g) {
        float m0 = -kInf, m1 = -kInf;
        for (long e = g * gs; e < (g + 1) * gs; ++e) {
          const float v = c[size_t(e)];
          const bool a0 = v > m0, a1 = v > m1;
          m1 = a0 ? m0 : (a1 ? v : m1);
          m0 = a0 ? v : m0;
        }
        score[size_t(g)] = bias.empty() ? m0 : m0 + m1;
      }
      for (long r = 0; r < kept; ++r) {
        long best = -1;
        for (long g = 0; g < G; ++g)
          if (!keep[size_t(g)] && (best < 0 || score[size_t(g)] > score[size_t(best)]))
            best = g;
        keep[size_t(best)] = true;
      }
    }
    float total = 0.f;
    for (long k = 0; k < K; ++k) {
      long best = -1;
      float bc = -kInf;
      for (long e = 0; e < E; ++e) {
        bool taken = false;
        for (long k2 = 0; k2 < k; ++k2)
          taken |= ids[size_t(t * K + k2)] == e;
        if (!taken && keep[size_t(e / gs)] && (c[size_t(e)] > bc || best < 0)) {
          best = e;
          bc = c[size_t(e)];
        }
      }
      const float wk = best >= 0 ? p[size_t(best)] : -kInf;
      ids[size_t(t * K + k)] = int(best);
      w[size_t(t * K + k)] = wk;
      total = total + wk;
    }
    for (long k = 0; k < K; ++k) {
      float &v = w[size_t(t * K + k)];
      if (renorm)
        v = v / total;
      if (scale != 1.f)
        v = v * scale;
    }
  }
}

template <int TopK, bool Renorm, bool Sigmoid, bool HasBias, int NGroup,
          int TopkGroup>
void checkRouteExt(const std::vector<float> &logits,
                   const std::vector<float> &bias, long tokens, long E,
                   float scale) {
  constexpr int Threads = 128, Rows = 4;
  std::vector<int> ids(size_t(tokens * TopK), -7);
  std::vector<float> w(size_t(tokens * TopK), 12345.f);
  Buffers buf;
  buf.add("logits", logits);
  buf.add("ids", ids);
  buf.add("weights", w);
  if (HasBias)
    buf.add("bias", bias);
  const float *lp = logits.data();
  const float *bp = HasBias ? bias.data() : nullptr;
  int *ip = ids.data();
  float *wp = w.data();
  long t = tokens, experts = E;
  void *args[] = {&lp, &bp, &t, &experts, &scale, &ip, &wp};
  if (!launch("moe_route_ext",
              &moe_route_ext_kernel<Threads, Rows, TopK, Renorm, Sigmoid,
                                    HasBias, NGroup, TopkGroup, float>,
              args, (tokens + Rows - 1) / Rows, Threads))
    return;
  std::vector<int> refIds;
  std::vector<float> refW;
  routeExtReference(logits, HasBias ? bias : std::vector<float>{}, tokens, E,
                    TopK, Renorm, Sigmoid, NGroup, TopkGroup, scale, refIds,
                    refW);
  expectSameRouting(ids, w, refIds, refW, TopK,
                    "E=" + std::to_string(E) + " TopK=" + std::to_string(TopK) +
                        " G=" + std::to_string(NGroup));
}

TEST(EmulateMoeBlock, RouteExtDeepSeekV3) {
  // 256 experts in 8 groups of 32, 4 kept, top 8, sigmoid + bias,
  // renormalised, times 2.5; 19 tokens (not a multiple of Rows).
  const std::vector<float> bias = randomLogits(256, 11, 0.125f);
  checkRouteExt<8, true, true, true, 8, 4>(randomLogits(19 * 256, 12), bias,
                                           19, 256, 2.5f);
}

TEST(EmulateMoeBlock, RouteExtTiesEverywhere) {
  // Logits and biases on coarse grids: experts and groups tie; all-zero
  // logits with a zero bias tie everything (groups 0.., experts 0..).
  std::vector<float> l = randomLogits(12 * 256, 13);
  for (float &v : l)
    v = std::round(v);
  for (long e = 0; e < 256; ++e)
    l[size_t(3 * 256 + e)] = 0.f;
  std::vector<float> bias = randomLogits(256, 14);
  for (float &v : bias)
    v = std::round(v) / 4;
  checkRouteExt<8, true, true, true, 8, 4>(l, bias, 12, 256, 2.5f);
  checkRouteExt<8, true, true, true, 8, 4>(l, std::vector<float>(256, 0.f),
                                           12, 256, 2.5f);
}

TEST(EmulateMoeBlock, RouteExtSoftmaxGroupsWithoutBias) {
  // DeepSeek-V2: groups of 8 (four per lane round), no bias: a group's best.
  checkRouteExt<6, false, false, false, 8, 3>(randomLogits(10 * 64, 15), {},
                                              10, 64, 16.f);
}

TEST(EmulateMoeBlock, RouteExtGroupsAcrossLaneRounds) {
  // 60 experts in 6 groups of 10: groups straddle lanes and rounds; 96 in 3
  // of 32; 16 in 4 of 4.
  checkRouteExt<4, true, true, true, 6, 2>(randomLogits(9 * 60, 16),
                                           randomLogits(60, 17, 0.5f), 9, 60,
                                           1.f);
  checkRouteExt<5, false, true, false, 3, 1>(randomLogits(7 * 96, 18), {}, 7,
                                             96, 0.3f);
  checkRouteExt<3, true, true, true, 4, 2>(randomLogits(5 * 16, 19),
                                           randomLogits(16, 20, 0.5f), 5, 16,
                                           1.f);
}

TEST(EmulateMoeBlock, RouteExtNanAndNoGroups) {
  // A NaN logit (sigmoid NaN: never a group's best, chosen only as the
  // first eligible); sigmoid + bias without groups.
  std::vector<float> l = randomLogits(6 * 64, 21);
  l[size_t(0 * 64 + 0)] = NAN;
  l[size_t(2 * 64 + 17)] = NAN;
  checkRouteExt<4, true, true, true, 4, 2>(l, randomLogits(64, 22, 0.5f), 6,
                                           64, 1.f);
  checkRouteExt<2, false, true, true, 1, 1>(l, randomLogits(64, 23, 0.5f), 6,
                                            64, 1.f);
}

//===----------------------------------------------------------------------===//
// Permutation: moe_rank + moe_gather
//===----------------------------------------------------------------------===//

/// lowerMoePermute's positions and offsets for ids [copies].
void permuteReference(const std::vector<int> &ids, long E,
                      std::vector<int> &positions, std::vector<int> &offsets) {
  std::vector<long> cursor(size_t(E), 0);
  for (int id : ids)
    if (id >= 0 && id < E)
      ++cursor[size_t(id)];
  offsets.assign(size_t(E + 1), 0);
  long acc = 0;
  for (long e = 0; e < E; ++e) {
    const long c = cursor[size_t(e)];
    cursor[size_t(e)] = acc;
    acc += c;
    offsets[size_t(e + 1)] = int(acc);
  }
  positions.assign(ids.size(), -1);
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] >= 0 && ids[i] < E)
      positions[i] = int(cursor[size_t(ids[i])]++);
}

/// moe_rank then moe_gather on `ids` [tokens * top_k]; positions, offsets
/// and permuted compared with the reference bit for bit. `shift` moves
/// permuted by that many elements (an unaligned destination).
template <int Threads, int Copies, class T>
void checkPermute(const std::vector<int> &ids, long tokens, long top_k,
                  long E, long hidden, long shift = 0) {
  const long n = tokens * top_k;
  ASSERT_EQ(long(ids.size()), n);
  std::vector<int> pos(size_t(n), 0x5a5a5a5a), off(size_t(E + 1), 0x5a5a5a5a);
  {
    Buffers buf;
    buf.add("ids", ids);
    buf.add("positions", pos);
    buf.add("offsets", off);
    const int *ip = ids.data();
    int *pp = pos.data(), *op = off.data();
    long copies = n, experts = E;
    void *args[] = {&ip, &copies, &experts, &pp, &op};
    if (!launch("moe_rank", &moe_rank_kernel<Threads>, args, E, Threads))
      return;
  }
  std::vector<int> refPos, refOff;
  permuteReference(ids, E, refPos, refOff);
  EXPECT_EQ(off, refOff);
  EXPECT_EQ(pos, refPos);
  if (off != refOff || pos != refPos)
    return;

  std::mt19937 rng(unsigned(n * 7 + hidden));
  std::uniform_real_distribution<float> u(-4.f, 4.f);
  std::vector<T> x = sized<T>(tokens * hidden);
  for (T &v : x)
    v = T(u(rng));
  std::vector<T> perm = sized<T>(n * hidden + shift);
  std::memset(static_cast<void *>(perm.data()), 0xff, perm.size() * sizeof(T));
  {
    Buffers buf;
    buf.add("x", x);
    buf.add("permuted", perm);
    const T *xp = x.data();
    const int *pp = pos.data(), *op = off.data();
    T *dp = perm.data() + shift;
    long tk = tokens, k = top_k, experts = E, h = hidden;
    void *args[] = {&xp, &pp, &op, &tk, &k, &experts, &h, &dp};
    if (!launch("moe_gather", &moe_gather_kernel<Threads, Copies, T>, args,
                (n + Copies - 1) / Copies, Threads))
      return;
  }
  // The reference's permuted: zeros, then each valid copy's row.
  std::vector<T> ref(size_t(n * hidden), T(0.f));
  for (long i = 0; i < n; ++i)
    if (refPos[size_t(i)] >= 0)
      for (long hh = 0; hh < hidden; ++hh)
        ref[size_t(refPos[size_t(i)] * hidden + hh)] =
            x[size_t((i / top_k) * hidden + hh)];
  EXPECT_EQ(
      std::memcmp(perm.data() + shift, ref.data(), ref.size() * sizeof(T)), 0)
      << "permuted differs";
}

/// Random ids in [0, E); with invalidEvery > 0, about one in invalidEvery
/// is -1 or E.
std::vector<int> randomIds(long tokens, long top_k, long E, unsigned seed,
                           int invalidEvery = 0) {
  std::mt19937 rng(seed);
  std::vector<int> ids = sized<int>(tokens * top_k);
  for (int &id : ids) {
    id = int(rng() % unsigned(E));
    if (invalidEvery > 0 && rng() % unsigned(invalidEvery) == 0)
      id = rng() % 2 ? -1 : int(E);
  }
  return ids;
}

TEST(EmulateMoeBlock, PermuteWithInvalidIds) {
  // 74 copies, 64 threads (one round of 4 * 64), invalid ids -1 and E.
  checkPermute<64, 5, bf16>(randomIds(37, 2, 8, 11, 5), 37, 2, 8, 64);
  // 600 copies: three rounds; hidden 13: the element path.
  checkPermute<64, 8, bf16>(randomIds(300, 2, 8, 12, 7), 300, 2, 8, 13);
}

TEST(EmulateMoeBlock, PermuteEveryCopyToOneExpert) {
  std::vector<int> ids(size_t(45 * 3), 2); // experts 0, 1, 3 empty
  checkPermute<32, 7, float>(ids, 45, 3, 4, 8);
  ids.assign(size_t(45 * 3), 3); // the last expert
  checkPermute<32, 7, float>(ids, 45, 3, 4, 6);
}

TEST(EmulateMoeBlock, PermuteOneExpertAndAllInvalid) {
  checkPermute<64, 4, f16>(randomIds(19, 1, 1, 13, 3), 19, 1, 1, 16);
  std::vector<int> ids(size_t(10 * 2), -1);
  checkPermute<64, 4, f16>(ids, 10, 2, 3, 16); // every row zero
}

TEST(EmulateMoeBlock, PermuteTopKEqualsExperts) {
  // Each token sends a copy to every expert, in a shuffled order.
  const long tokens = 23, E = 4;
  std::mt19937 rng(14);
  std::vector<int> ids;
  for (long t = 0; t < tokens; ++t) {
    std::vector<int> p = {0, 1, 2, 3};
    std::shuffle(p.begin(), p.end(), rng);
    ids.insert(ids.end(), p.begin(), p.end());
  }
  checkPermute<128, 16, bf16>(ids, tokens, E, E, 24);
}

TEST(EmulateMoeBlock, Permute256ExpertsAndUnalignedRows) {
  checkPermute<128, 8, bf16>(randomIds(100, 8, 256, 15, 50), 100, 8, 256, 32);
  // A destination one element off 16 bytes: the element path.
  checkPermute<64, 8, bf16>(randomIds(30, 2, 8, 16), 30, 2, 8, 64, 1);
}

//===----------------------------------------------------------------------===//
// Grouped GEMM tile scheduler
//===----------------------------------------------------------------------===//

struct Tile {
  long expert, row0, rowEnd, live;
};

/// lowerGroupedGemm's groups (head, experts, tail), tiled group by group.
std::vector<Tile> groupTilesReference(const std::vector<int> &off, long E,
                                      long rows, long blockM) {
  auto clamp = [](long v, long lo, long hi) {
    return std::min(std::max(v, lo), hi);
  };
  struct Group {
    long start, end, expert, live;
  };
  std::vector<Group> groups;
  groups.push_back({0, clamp(off[0], 0, rows), 0, 0});
  long hi = 0;
  for (long e = 0; e < E; ++e) {
    const long lo = clamp(off[size_t(e)], 0, rows);
    hi = clamp(off[size_t(e + 1)], lo, rows);
    groups.push_back({lo, hi, e, 1});
  }
  groups.push_back({hi, rows, 0, 0});
  std::vector<Tile> tiles;
  for (const Group &g : groups)
    for (long r = g.start; r < g.end; r += blockM)
      tiles.push_back({g.expert, r, g.end, g.live});
  return tiles;
}

template <int Threads, int BlockM>
void checkGroupTiles(const std::vector<int> &off, long E, long rows) {
  const std::vector<Tile> ref = groupTilesReference(off, E, rows, BlockM);
  const long tiles = long(ref.size()) + 3; // and three past the end
  std::vector<long> out(size_t(tiles * Threads * 4), -99);
  Buffers buf;
  buf.add("offsets", off);
  buf.add("out", out);
  const int *op = off.data();
  long *outp = out.data();
  long experts = E, r = rows;
  void *args[] = {&op, &experts, &r, &outp};
  if (!launch("group_tile", &group_tile_kernel<Threads, BlockM>, args, tiles,
              Threads))
    return;
  long bad = 0;
  for (long t = 0; t < tiles; ++t) {
    const Tile want =
        t < long(ref.size()) ? ref[size_t(t)] : Tile{0, rows, rows, 0};
    for (long th = 0; th < Threads; ++th) {
      const long *o = &out[size_t((t * Threads + th) * 4)];
      if ((o[0] != want.expert || o[1] != want.row0 || o[2] != want.rowEnd ||
           o[3] != want.live) &&
          ++bad <= 5)
        ADD_FAILURE() << "tile " << t << " thread " << th << ": (" << o[0]
                      << ", " << o[1] << ", " << o[2] << ", " << o[3]
                      << "), expected (" << want.expert << ", " << want.row0
                      << ", " << want.rowEnd << ", " << want.live << ")";
    }
  }
  EXPECT_EQ(bad, 0) << "E=" << E << " rows=" << rows << " BlockM=" << BlockM;
}

/// Offsets of random group sizes (some empty) from `head` to rows - tail.
std::vector<int> randomOffsets(long E, long rows, long head, long tail,
                               unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<long> cuts = sized<long>(E - 1);
  for (long &c : cuts)
    c = head + long(rng() % unsigned(rows - head - tail + 1));
  std::sort(cuts.begin(), cuts.end());
  std::vector<int> off = {int(head)};
  for (long c : cuts)
    off.push_back(int(c));
  off.push_back(int(rows - tail));
  return off;
}

TEST(EmulateMoeBlock, GroupTileEveryTile) {
  // No head or tail; a head and a tail; one expert; 256 and 300 experts
  // (more than 32 groups: several scan rounds); two warps per block.
  checkGroupTiles<32, 16>(randomOffsets(8, 200, 0, 0, 21), 8, 200);
  checkGroupTiles<32, 64>(randomOffsets(8, 200, 0, 0, 21), 8, 200);
  checkGroupTiles<64, 16>(randomOffsets(8, 203, 17, 40, 22), 8, 203);
  checkGroupTiles<32, 64>(randomOffsets(8, 203, 17, 40, 22), 8, 203);
  checkGroupTiles<32, 16>(randomOffsets(1, 70, 3, 5, 23), 1, 70);
  checkGroupTiles<32, 64>(randomOffsets(1, 70, 0, 0, 23), 1, 70);
  checkGroupTiles<32, 16>(randomOffsets(256, 1000, 0, 9, 24), 256, 1000);
  checkGroupTiles<32, 64>(randomOffsets(300, 2400, 30, 0, 25), 300, 2400);
}

TEST(EmulateMoeBlock, GroupTileEmptyAndClampedGroups) {
  // Every row to one expert; every row in the head; every row in the tail;
  // offsets below 0 and past rows (clamped); no rows at all.
  checkGroupTiles<32, 16>({0, 0, 0, 100, 100, 100}, 5, 100);
  checkGroupTiles<32, 64>({0, 0, 0, 100, 100, 100}, 5, 100);
  checkGroupTiles<32, 16>({60, 60, 60}, 2, 60);
  checkGroupTiles<32, 16>({0, 0, 0}, 2, 60);
  checkGroupTiles<32, 16>({-5, 3, 3, 10, 1000}, 4, 50);
  checkGroupTiles<64, 64>({-5, 3, 3, 10, 1000}, 4, 50);
  checkGroupTiles<32, 16>({0, 0}, 1, 0);
}

//===----------------------------------------------------------------------===//
// Combine
//===----------------------------------------------------------------------===//

template <int Threads, int Tokens, class T, class W, class OutT>
void checkCombine(long tokens, long top_k, long hidden, unsigned seed,
                  long yShift = 0) {
  const long rows = tokens * top_k;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-2.f, 2.f);
  std::vector<T> eo = sized<T>(rows * hidden);
  for (T &v : eo)
    v = T(u(rng));
  std::vector<int> pos = sized<int>(rows);
  std::vector<W> w = sized<W>(rows);
  for (long i = 0; i < rows; ++i) {
    pos[size_t(i)] = int(rng() % unsigned(rows));
    const unsigned r = rng() % 8;
    if (r == 0)
      pos[size_t(i)] = -1; // a dropped copy
    if (r == 1)
      pos[size_t(i)] = int(rows + rng() % 3); // out of range
    w[size_t(i)] = W(u(rng) * 0.5f);
  }
  std::vector<OutT> y = sized<OutT>(tokens * hidden + yShift);
  std::memset(static_cast<void *>(y.data()), 0xff, y.size() * sizeof(OutT));
  Buffers buf;
  buf.add("expert_out", eo);
  buf.add("positions", pos);
  buf.add("weights", w);
  buf.add("y", y);
  const T *ep = eo.data();
  const int *pp = pos.data();
  const W *wp = w.data();
  OutT *yp = y.data() + yShift;
  long tk = tokens, k = top_k, r = rows, h = hidden;
  void *args[] = {&ep, &pp, &wp, &tk, &k, &r, &h, &yp};
  if (!launch("moe_combine", &moe_combine_kernel<Threads, Tokens, T, W, OutT>,
              args, (tokens + Tokens - 1) / Tokens, Threads))
    return;
  long bad = 0;
  for (long t = 0; t < tokens; ++t)
    for (long hh = 0; hh < hidden; ++hh) {
      float acc = 0.f;
      for (long s = 0; s < top_k; ++s) {
        const long p = pos[size_t(t * top_k + s)];
        if (p < 0 || p >= rows)
          continue;
        acc = acc + f32(w[size_t(t * top_k + s)]) *
                        f32(eo[size_t(p * hidden + hh)]);
      }
      const OutT want = OutT(acc);
      const OutT got = y[size_t(t * hidden + hh + yShift)];
      if (std::memcmp(&want, &got, sizeof(OutT)) != 0 && ++bad <= 5)
        ADD_FAILURE() << "y[" << t << ", " << hh << "] = " << f32(got)
                      << ", expected " << f32(want);
    }
  EXPECT_EQ(bad, 0);
}

TEST(EmulateMoeBlock, CombineBf16Vector) {
  // 37 tokens in blocks of 4; hidden 64: 16-byte loads.
  checkCombine<64, 4, bf16, float, bf16>(37, 2, 64, 31);
}

TEST(EmulateMoeBlock, CombineElementPathsAndOtherTypes) {
  checkCombine<32, 3, float, bf16, float>(11, 3, 10, 32); // 40-byte rows
  checkCombine<64, 2, f16, f16, f16>(9, 4, 24, 33, 1);    // unaligned y
  checkCombine<64, 5, bf16, float, f16>(13, 8, 40, 34);   // top_k 8
}

} // namespace
