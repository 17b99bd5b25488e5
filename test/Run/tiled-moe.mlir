// The tile-level schedule of kgen.moe (kgen-lower-moe-to-tiles: routing,
// ranking, gather, the gated and the down grouped GEMMs, combine) run block
// by block on the CPU against the reference semantics. The schedule sums in
// the reference's order with its rounding points, so the results must be
// identical (tolerance 0). Edge cases of the issue: empty experts, every
// token to one expert, fewer tokens than block M, top_k equal to the number
// of experts, T x k not a multiple of block M, 1 to 256 experts; block M 16
// to 128; a standalone grouped GEMM whose offsets leave rows before the first
// and after the last group (zero rows).
// RUN: %python %S/Inputs/check_tiled.py %s %t --pipeline=--kgen-lower-moe-to-tiles | FileCheck %s
// CHECK-DAG: mixtral_like: OK
// CHECK-DAG: all_to_one: OK
// CHECK-DAG: fewer_tokens_than_block_m: OK
// CHECK-DAG: top_k_all_experts: OK
// CHECK-DAG: one_expert: OK
// CHECK-DAG: many_experts: OK
// CHECK-DAG: f16_gelu_f32_out: OK
// CHECK-DAG: relu_128_rows: OK
// CHECK-DAG: grouped_head_and_tail_rows: OK
// CHECK-NOT: MISMATCH

// Mixtral-style: top-2 of 8, renormalised; T * k = 74 rows, not a multiple of any block M
func.func @mixtral_like(%x: tensor<37x64xbf16>, %l: tensor<37x8xf32>, %wg: tensor<8x64x96xbf16>, %wu: tensor<8x64x96xbf16>, %wd: tensor<8x96x64xbf16>) -> tensor<37x64xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {renormalize, top_k = 2, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = user>}
      : tensor<37x64xbf16>, tensor<37x8xf32>, tensor<8x64x96xbf16>, tensor<8x64x96xbf16>, tensor<8x96x64xbf16> -> tensor<37x64xbf16>
  return %y : tensor<37x64xbf16>
}

// every token to one expert (equal logits: ties go to expert 0), experts 1..3 empty
func.func @all_to_one(%x: tensor<20x32xbf16>, %wg: tensor<4x32x64xbf16>, %wu: tensor<4x32x64xbf16>, %wd: tensor<4x64x32xbf16>) -> tensor<20x32xbf16> {
  %l = arith.constant dense<0.0> : tensor<20x4xf32>
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 1, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = user>}
      : tensor<20x32xbf16>, tensor<20x4xf32>, tensor<4x32x64xbf16>, tensor<4x32x64xbf16>, tensor<4x64x32xbf16> -> tensor<20x32xbf16>
  return %y : tensor<20x32xbf16>
}

// 3 tokens, 64-row tiles: every expert's one tile is mostly masked
func.func @fewer_tokens_than_block_m(%x: tensor<3x48xbf16>, %l: tensor<3x8xf32>, %wg: tensor<8x48x64xbf16>, %wu: tensor<8x48x64xbf16>, %wd: tensor<8x64x48xbf16>) -> tensor<3x48xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {renormalize, top_k = 2, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, block_k = 16, warps_m = 2, warps_n = 2, stages = 4, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, block_k = 16, warps_m = 2, warps_n = 2, stages = 4, source = user>}
      : tensor<3x48xbf16>, tensor<3x8xf32>, tensor<8x48x64xbf16>, tensor<8x48x64xbf16>, tensor<8x64x48xbf16> -> tensor<3x48xbf16>
  return %y : tensor<3x48xbf16>
}

// top_k = E: every token to every expert
func.func @top_k_all_experts(%x: tensor<9x32xbf16>, %l: tensor<9x4xf32>, %wg: tensor<4x32x32xbf16>, %wu: tensor<4x32x32xbf16>, %wd: tensor<4x32x32xbf16>) -> tensor<9x32xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {renormalize, top_k = 4, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = user>}
      : tensor<9x32xbf16>, tensor<9x4xf32>, tensor<4x32x32xbf16>, tensor<4x32x32xbf16>, tensor<4x32x32xbf16> -> tensor<9x32xbf16>
  return %y : tensor<9x32xbf16>
}

// one expert
func.func @one_expert(%x: tensor<5x32xbf16>, %l: tensor<5x1xf32>, %wg: tensor<1x32x48xbf16>, %wu: tensor<1x32x48xbf16>, %wd: tensor<1x48x32xbf16>) -> tensor<5x32xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {renormalize, top_k = 1, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = user>}
      : tensor<5x32xbf16>, tensor<5x1xf32>, tensor<1x32x48xbf16>, tensor<1x32x48xbf16>, tensor<1x48x32xbf16> -> tensor<5x32xbf16>
  return %y : tensor<5x32xbf16>
}

// 256 experts, top-8 of 40 tokens: most experts empty, the rest one tile
func.func @many_experts(%x: tensor<40x32xbf16>, %l: tensor<40x256xf32>, %wg: tensor<256x32x32xbf16>, %wu: tensor<256x32x32xbf16>, %wd: tensor<256x32x32xbf16>) -> tensor<40x32xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {renormalize, top_k = 8, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = user>}
      : tensor<40x32xbf16>, tensor<40x256xf32>, tensor<256x32x32xbf16>, tensor<256x32x32xbf16>, tensor<256x32x32xbf16> -> tensor<40x32xbf16>
  return %y : tensor<40x32xbf16>
}

// f16, gelu, no renormalisation, H not a multiple of the tiles
func.func @f16_gelu_f32_out(%x: tensor<24x40xf16>, %l: tensor<24x6xf32>, %wg: tensor<6x40x72xf16>, %wu: tensor<6x40x72xf16>, %wd: tensor<6x72x40xf16>) -> tensor<24x40xf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {activation = #kgen.activation<gelu>, top_k = 3, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, block_k = 16, warps_m = 2, warps_n = 2, stages = 4, source = user>}
      : tensor<24x40xf16>, tensor<24x6xf32>, tensor<6x40x72xf16>, tensor<6x40x72xf16>, tensor<6x72x40xf16> -> tensor<24x40xf16>
  return %y : tensor<24x40xf16>
}

// 128-row tiles over 2 experts, relu
func.func @relu_128_rows(%x: tensor<70x64xbf16>, %l: tensor<70x2xf32>, %wg: tensor<2x64x64xbf16>, %wu: tensor<2x64x64xbf16>, %wd: tensor<2x64x64xbf16>) -> tensor<70x64xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {activation = #kgen.activation<relu>, top_k = 2, gate_up_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 128, block_n = 64, block_k = 32, warps_m = 4, warps_n = 2, stages = 3, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 128, block_n = 64, block_k = 32, warps_m = 4, warps_n = 2, stages = 3, source = user>}
      : tensor<70x64xbf16>, tensor<70x2xf32>, tensor<2x64x64xbf16>, tensor<2x64x64xbf16>, tensor<2x64x64xbf16> -> tensor<70x64xbf16>
  return %y : tensor<70x64xbf16>
}

// A grouped GEMM alone, gated relu: rows [0, 3) and [25, 30) in no group
// (zeros), expert 1 empty.
func.func @grouped_head_and_tail_rows(%a: tensor<30x64xbf16>, %b: tensor<3x64x48xbf16>, %bu: tensor<3x64x48xbf16>) -> tensor<30x48xbf16> {
  %off = arith.constant dense<[3, 10, 10, 25]> : tensor<4xi32>
  %d = kgen.grouped_gemm %a, %b, %off gated(%bu : tensor<3x64x48xbf16>) {activation = #kgen.activation<relu>, config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = user>}
      : tensor<30x64xbf16>, tensor<3x64x48xbf16>, tensor<4xi32> -> tensor<30x48xbf16>
  return %d : tensor<30x48xbf16>
}
