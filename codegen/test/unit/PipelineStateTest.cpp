//===- PipelineStateTest.cpp - stage / phase bookkeeping on the CPU -------===//
//
// PipelineState against its definition (k tile i sits in stage i % Stages
// and waits for parity (i / Stages) & 1), the producer's start one parity
// ahead, and a replay of the mbarrier protocol of GemmSm90.cuh's pipeline
// with a model of the barriers' phases: no wait returns before its stage
// was filled (consumer) or released (producer), none blocks forever.
//
//===----------------------------------------------------------------------===//

#include "kgen/block/Pipeline.cuh"

#include <gtest/gtest.h>

#include <vector>

using kgen::block::PipelineState;
using kgen::block::producer_start;

namespace {

// Usable in constant expressions.
static_assert(PipelineState<3>{}.index == 0 && PipelineState<3>{}.phase == 0);
static_assert(PipelineState<3>::at(7).index == 1 &&
              PipelineState<3>::at(7).phase == 0); // 7 = 2 * 3 + 1
static_assert(PipelineState<3>::at(4).phase == 1);
static_assert(producer_start<4>().index == 0 && producer_start<4>().phase == 1);
static_assert(++PipelineState<1>{} == PipelineState<1>{0, 1u});

template <int S> void expectMatchesDefinition() {
  PipelineState<S> s{};
  for (long i = 0; i < 10 * S + 3; ++i) {
    EXPECT_EQ(s.index, int(i % S)) << "Stages " << S << ", k tile " << i;
    EXPECT_EQ(s.phase, unsigned((i / S) & 1)) << "Stages " << S << ", " << i;
    EXPECT_EQ(PipelineState<S>::at(i), s);
    for (long n : {0L, 1L, long(S) - 1, long(S), 2L * S + 1})
      EXPECT_EQ(s.advanced(n), PipelineState<S>::at(i + n));
    s.advance();
  }
}

TEST(PipelineState, IndexAndPhaseFollowTheKTile) {
  expectMatchesDefinition<1>();
  expectMatchesDefinition<2>();
  expectMatchesDefinition<3>();
  expectMatchesDefinition<4>();
  expectMatchesDefinition<7>();
}

TEST(PipelineState, ProducerStartIsOneParityAhead) {
  PipelineState<4> producer = producer_start<4>(), consumer{};
  for (int i = 0; i < 40; ++i) {
    EXPECT_EQ(producer.index, consumer.index);
    EXPECT_EQ(producer.phase, consumer.phase ^ 1u);
    ++producer;
    ++consumer;
  }
}

/// An mbarrier as parity waits see it: `completed` phases so far. A wait
/// for parity p returns once the current phase's parity differs from p
/// (mbarrier.try_wait.parity): a fresh barrier satisfies parity 1 at once.
struct Barrier {
  int completed = 0;
  bool done(unsigned parity) const {
    return unsigned(completed & 1) != parity;
  }
};

struct Replay {
  int produced = 0, consumed = 0, freed = 0;
};

/// GemmSm90.cuh's protocol over kTiles k tiles: one producer, one consumer
/// (the consumer warpgroups wait and arrive alike). The consumer releases
/// tile k - 1's stage after waiting for tile k (its wgmmas then are done);
/// the last stage is never released (the block ends). Each step runs
/// whichever side can go, until neither can.
template <int S> Replay replay(int kTiles) {
  std::vector<Barrier> full(S), empty(S);
  std::vector<int> filled(S, -1); // the k tile in each stage
  PipelineState<S> w = producer_start<S>(), r{}, released{};
  Replay n;
  for (bool moved = true; moved;) {
    moved = false;
    if (n.produced < kTiles && empty[w.index].done(w.phase)) {
      EXPECT_LT(filled[w.index], n.freed)
          << "stage " << w.index << " refilled before it was released";
      filled[w.index] = n.produced++;
      full[w.index].completed++; // the producer's arrive + the TMA bytes
      ++w;
      moved = true;
    }
    if (n.consumed < kTiles && full[r.index].done(r.phase)) {
      EXPECT_EQ(filled[r.index], n.consumed) << "read a stale stage";
      ++n.consumed;
      ++r;
      if (n.consumed >= 2) { // release tile consumed - 2
        empty[released.index].completed++;
        ++released;
        ++n.freed;
      }
      moved = true;
    }
  }
  return n;
}

template <int S> void expectCompletes(int kTiles) {
  const Replay n = replay<S>(kTiles);
  EXPECT_EQ(n.produced, kTiles) << "Stages " << S;
  EXPECT_EQ(n.consumed, kTiles) << "Stages " << S;
  EXPECT_EQ(n.freed, kTiles > 0 ? kTiles - 1 : 0) << "Stages " << S;
}

TEST(PipelineState, ReplaysTheWgmmaPipelineProtocol) {
  for (int k : {0, 1, 2, 5, 23}) {
    expectCompletes<2>(k);
    expectCompletes<3>(k);
    expectCompletes<4>(k);
    expectCompletes<7>(k);
  }
  // One stage deadlocks (hence the pipeline's Stages >= 2): the consumer
  // waits for tile 1 before it frees tile 0's stage.
  const Replay one = replay<1>(5);
  EXPECT_EQ(one.produced, 1);
  EXPECT_EQ(one.consumed, 1);
}

} // namespace
