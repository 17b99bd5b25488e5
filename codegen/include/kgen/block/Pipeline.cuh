//===- Pipeline.cuh - stage / phase bookkeeping of a pipeline ---*- CUDA -*-===//
//
// A ring of `Stages` shared-memory stages, walked one k tile at a time. The
// stage index and the barrier phase advance together in one small type, so
// no loop computes `i % Stages` and `(i / Stages) & 1` by hand (after
// CUTLASS's cutlass/pipeline/sm90_pipeline.hpp PipelineState).
//
//   PipelineState<Stages>                       KGEN_HD constexpr
//     index   the stage of the current k tile, 0 .. Stages - 1
//     phase   the parity (0 or 1) of the stage's mbarrier phase to wait for:
//             it flips each time index wraps to 0
//     advance() / ++s   the next k tile
//     advanced(n)       a copy n k tiles ahead (n >= 0)
//     at(i)             the state of k tile i counted from the pipeline's
//                       first: {i % Stages, (i / Stages) & 1}
//   producer_start<Stages>()   where a producer waiting on `empty` barriers
//       starts: index 0, phase 1. A freshly initialised mbarrier counts as
//       having completed the phase before its first (parity 1), so the
//       producer's first pass over the ring does not wait; from then on it
//       waits for the consumers' releases.
//   A consumer waiting on `full` barriers starts at PipelineState<Stages>{}
//   (index 0, phase 0).
//
// mbarrier pipeline (GemmSm90.cuh), one state per role:
//   producer:  PipelineState w = producer_start<S>();
//              per k tile: mbar_wait(&empty[w.index], w.phase); load into
//              stage w.index, completing on full[w.index]; ++w;
//   consumer:  PipelineState r{}, released{};
//              per k tile: mbar_wait(&full[r.index], r.phase); compute on
//              stage r.index; ++r; when a stage is done with, arrive on
//              empty[released.index] and ++released.
// cp.async pipeline (Gemm.cuh: commit_stage / wait_stage<S - 1>): only the
// index is used; the group count does the waiting.
//   PipelineState<S> load{}, read{};
//   prologue:  S - 1 times: if that k tile exists, load it into stage
//              load.index and ++load; commit_stage() either way (an empty
//              group past the last tile: wait_stage<S - 1> counts on S - 1
//              groups ahead of tile k's);
//   main loop: per k tile: if a tile S - 1 ahead exists, load it into stage
//              load.index and ++load; commit_stage(); wait_stage<S - 1>();
//              compute on stage read.index; ++read; __syncthreads().
//
// Preconditions: Stages >= 1 (a pipeline whose consumer frees a stage only
// after waiting for the next needs Stages >= 2; its own static_assert says
// so). Targets: any (no device code).
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_BLOCK_PIPELINE_CUH
#define KGEN_BLOCK_PIPELINE_CUH

#include "kgen/cuda/Common.cuh"

namespace kgen::block {

template <int Stages> struct PipelineState {
  static_assert(Stages >= 1, "a pipeline has at least one stage");
  static constexpr int kStages = Stages;

  int index = 0;      ///< stage of the current k tile
  unsigned phase = 0; ///< parity of the stage's barrier phase to wait for

  /// The next k tile: the next stage, and the other parity after a wrap.
  KGEN_HD constexpr void advance() {
    if (++index == Stages) {
      index = 0;
      phase ^= 1u;
    }
  }
  KGEN_HD constexpr PipelineState &operator++() {
    advance();
    return *this;
  }
  /// This state n k tiles later (n >= 0).
  KGEN_HD constexpr PipelineState advanced(long n) const {
    const long i = long(index) + n;
    return {int(i % Stages), phase ^ unsigned((i / Stages) & 1)};
  }
  /// The state of k tile i (i >= 0) of a pipeline that starts at {0, 0}.
  KGEN_HD static constexpr PipelineState at(long i) {
    return PipelineState{}.advanced(i);
  }
};

/// A producer's start over `empty` barriers: phase 1, which a fresh
/// mbarrier reports complete (the ring starts empty).
template <int Stages>
KGEN_HD constexpr PipelineState<Stages> producer_start() {
  return {0, 1u};
}

template <int Stages>
KGEN_HD constexpr bool operator==(const PipelineState<Stages> &a,
                                  const PipelineState<Stages> &b) {
  return a.index == b.index && a.phase == b.phase;
}
template <int Stages>
KGEN_HD constexpr bool operator!=(const PipelineState<Stages> &a,
                                  const PipelineState<Stages> &b) {
  return !(a == b);
}

} // namespace kgen::block

#endif // KGEN_BLOCK_PIPELINE_CUH
