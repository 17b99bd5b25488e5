//===- MoeBlockTestKernel.cuh - MoE kernels in the emitted form --*- CUDA -*-===//
//
// Hand-written kernels in the form kgen's CUDA emitter prints for the MoE
// tile ops: the block's index computation and one call of a
// kgen/block/Moe.cuh step. 1-D grids of 1-D blocks of `Threads` threads.
// Compiled by EmulateMoeBlockTest.cpp on the emulated device, and by nvcc
// for the register report (see the test's file comment).
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_TEST_MOE_BLOCK_TEST_KERNEL_CUH
#define KGEN_TEST_MOE_BLOCK_TEST_KERNEL_CUH

#include "kgen/block/Moe.cuh"

/// Grid: ceil(tokens / Rows) blocks.
template <int Threads, int Rows, int TopK, bool Renormalize, class T>
__global__ void __launch_bounds__(Threads)
moe_route_kernel(const T *__restrict__ logits /* (tokens, experts) */,
                 long tokens, long experts,
                 int *__restrict__ ids /* (tokens, TopK) */,
                 float *__restrict__ weights /* (tokens, TopK) */) {
  const long t0 = long(blockIdx.x) * Rows;
  kgen::block::moe_route<Threads, Rows, TopK, Renormalize>(
      logits, tokens, experts, t0, ids, weights);
}

/// Grid: ceil(tokens / Rows) blocks.
template <int Threads, int Rows, int TopK, bool Renormalize, bool Sigmoid,
          bool HasBias, int NGroup, int TopkGroup, class T>
__global__ void __launch_bounds__(Threads)
moe_route_ext_kernel(const T *__restrict__ logits /* (tokens, experts) */,
                     const float *__restrict__ bias /* (experts) */,
                     long tokens, long experts, float scale,
                     int *__restrict__ ids /* (tokens, TopK) */,
                     float *__restrict__ weights /* (tokens, TopK) */) {
  const long t0 = long(blockIdx.x) * Rows;
  kgen::block::moe_route_ext<Threads, Rows, TopK, Renormalize, Sigmoid,
                             HasBias, NGroup, TopkGroup>(
      logits, bias, tokens, experts, t0, scale, ids, weights);
}

/// Grid: experts blocks.
template <int Threads>
__global__ void __launch_bounds__(Threads)
moe_rank_kernel(const int *__restrict__ ids /* (copies) */, long copies,
                long experts, int *__restrict__ positions /* (copies) */,
                int *__restrict__ offsets /* (experts + 1) */) {
  kgen::block::moe_rank<Threads>(ids, copies, experts, long(blockIdx.x),
                                 positions, offsets);
}

/// Grid: ceil(tokens * top_k / Copies) blocks.
template <int Threads, int Copies, class T>
__global__ void __launch_bounds__(Threads)
moe_gather_kernel(const T *__restrict__ x /* (tokens, hidden) */,
                  const int *__restrict__ positions /* (tokens * top_k) */,
                  const int *__restrict__ offsets /* (experts + 1) */,
                  long tokens, long top_k, long experts, long hidden,
                  T *__restrict__ permuted /* (tokens * top_k, hidden) */) {
  const long c0 = long(blockIdx.x) * Copies;
  kgen::block::moe_gather<Threads, Copies>(x, positions, offsets, tokens,
                                           top_k, experts, hidden, c0,
                                           permuted);
}

/// Grid: any number of tiles; every thread writes its answer to
/// out[(tile * Threads + thread) * 4 + {expert, row0, row_end, live}].
template <int Threads, int BlockM>
__global__ void __launch_bounds__(Threads)
group_tile_kernel(const int *__restrict__ offsets /* (experts + 1) */,
                  long experts, long rows, long *__restrict__ out) {
  const long tile = long(blockIdx.x);
  const kgen::block::GroupTile g =
      kgen::block::group_tile<BlockM>(offsets, experts, rows, tile);
  long *o = out + (tile * Threads + long(threadIdx.x)) * 4;
  o[0] = g.expert;
  o[1] = g.row0;
  o[2] = g.row_end;
  o[3] = g.live;
}

/// Grid: ceil(tokens / Tokens) blocks.
template <int Threads, int Tokens, class T, class W, class OutT>
__global__ void __launch_bounds__(Threads)
moe_combine_kernel(const T *__restrict__ expert_out /* (rows, hidden) */,
                   const int *__restrict__ positions /* (tokens, top_k) */,
                   const W *__restrict__ weights /* (tokens, top_k) */,
                   long tokens, long top_k, long rows, long hidden,
                   OutT *__restrict__ y /* (tokens, hidden) */) {
  const long t0 = long(blockIdx.x) * Tokens;
  kgen::block::moe_combine<Threads, Tokens>(expert_out, positions, weights,
                                            nullptr, tokens, top_k, rows,
                                            hidden, t0, y);
}

#endif // KGEN_TEST_MOE_BLOCK_TEST_KERNEL_CUH
