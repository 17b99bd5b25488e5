// The tile-level schedule of DeepSeek-style kgen.moe layers (kgen-lower-moe-to-tiles:
// the routing with sigmoid scoring, correction bias, expert groups and scaling;
// a shared expert as two more grouped GEMMs over one all-token group, added by
// the combine after the routed slots) run block by block on the CPU against the
// reference semantics, exactly (tolerance 0). kgen-run's integer inputs make
// scores, choice scores and group scores tie often.
// RUN: %python %S/Inputs/check_tiled.py %s %t --pipeline=--kgen-lower-moe-to-tiles | FileCheck %s
// CHECK-DAG: deepseek_v3: OK
// CHECK-DAG: deepseek_v3_shared: OK
// CHECK-DAG: group_ties_zero_bias: OK
// CHECK-DAG: v2_softmax_groups: OK
// CHECK-DAG: small_groups_f16: OK
// CHECK-DAG: sigmoid_no_groups: OK
// CHECK-NOT: MISMATCH

// DeepSeek-V3 routing: 256 experts in 8 groups, 4 kept, top-8, sigmoid + bias, renormalised, scaled by 2.5 (integer logits and biases: ties between experts and between groups everywhere)
func.func @deepseek_v3(%x: tensor<16x64xbf16>, %l: tensor<16x256xf32>, %wg: tensor<256x64x32xbf16>, %wu: tensor<256x64x32xbf16>, %wd: tensor<256x32x64xbf16>, %b: tensor<256xf32>) -> tensor<16x64xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd correction_bias(%b : tensor<256xf32>) {top_k = 8, renormalize, scoring = #kgen.scoring<sigmoid>, n_group = 8, topk_group = 4, routed_scaling_factor = 2.5 : f32, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = user>}
      : tensor<16x64xbf16>, tensor<16x256xf32>, tensor<256x64x32xbf16>, tensor<256x64x32xbf16>, tensor<256x32x64xbf16> -> tensor<16x64xbf16>
  return %y : tensor<16x64xbf16>
}

// the same with a shared expert of 48 (not I): two more grouped GEMMs over all tokens, added after the routed slots
func.func @deepseek_v3_shared(%x: tensor<16x64xbf16>, %l: tensor<16x256xf32>, %wg: tensor<256x64x32xbf16>, %wu: tensor<256x64x32xbf16>, %wd: tensor<256x32x64xbf16>, %b: tensor<256xf32>, %sg: tensor<64x48xbf16>, %su: tensor<64x48xbf16>, %sd: tensor<48x64xbf16>) -> tensor<16x64xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd correction_bias(%b : tensor<256xf32>) shared(%sg, %su, %sd : tensor<64x48xbf16>, tensor<64x48xbf16>, tensor<48x64xbf16>) {top_k = 8, renormalize, scoring = #kgen.scoring<sigmoid>, n_group = 8, topk_group = 4, routed_scaling_factor = 2.5 : f32, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = user>}
      : tensor<16x64xbf16>, tensor<16x256xf32>, tensor<256x64x32xbf16>, tensor<256x64x32xbf16>, tensor<256x32x64xbf16> -> tensor<16x64xbf16>
  return %y : tensor<16x64xbf16>
}

// zero bias and equal logits: every score, expert and group ties (groups 0-3, experts 0-7 win)
func.func @group_ties_zero_bias(%x: tensor<9x32xbf16>, %wg: tensor<256x32x32xbf16>, %wu: tensor<256x32x32xbf16>, %wd: tensor<256x32x32xbf16>, %sg: tensor<32x32xbf16>, %su: tensor<32x32xbf16>, %sd: tensor<32x32xbf16>) -> tensor<9x32xbf16> {
  %l = arith.constant dense<1.0> : tensor<9x256xf32>
  %b = arith.constant dense<0.0> : tensor<256xf32>
  %y = kgen.moe %x, %l, %wg, %wu, %wd correction_bias(%b : tensor<256xf32>) shared(%sg, %su, %sd : tensor<32x32xbf16>, tensor<32x32xbf16>, tensor<32x32xbf16>) {top_k = 8, renormalize, scoring = #kgen.scoring<sigmoid>, n_group = 8, topk_group = 4, routed_scaling_factor = 2.5 : f32, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = user>}
      : tensor<9x32xbf16>, tensor<9x256xf32>, tensor<256x32x32xbf16>, tensor<256x32x32xbf16>, tensor<256x32x32xbf16> -> tensor<9x32xbf16>
  return %y : tensor<9x32xbf16>
}

// DeepSeek-V2: softmax groups of 8 experts (several groups per lane round), no bias, unnormalised, scaled
func.func @v2_softmax_groups(%x: tensor<20x32xbf16>, %l: tensor<20x64xf32>, %wg: tensor<64x32x64xbf16>, %wu: tensor<64x32x64xbf16>, %wd: tensor<64x64x32xbf16>, %sg: tensor<32x64xbf16>, %su: tensor<32x64xbf16>, %sd: tensor<64x32xbf16>) -> tensor<20x32xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd shared(%sg, %su, %sd : tensor<32x64xbf16>, tensor<32x64xbf16>, tensor<64x32xbf16>) {top_k = 6, scoring = #kgen.scoring<softmax>, n_group = 8, topk_group = 3, routed_scaling_factor = 16.0 : f32, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = user>}
      : tensor<20x32xbf16>, tensor<20x64xf32>, tensor<64x32x64xbf16>, tensor<64x32x64xbf16>, tensor<64x64x32xbf16> -> tensor<20x32xbf16>
  return %y : tensor<20x32xbf16>
}

// f16, gelu, 16 experts in groups of 4 (within one lane round), H not a multiple of the tiles
func.func @small_groups_f16(%x: tensor<13x40xf16>, %l: tensor<13x16xf32>, %wg: tensor<16x40x72xf16>, %wu: tensor<16x40x72xf16>, %wd: tensor<16x72x40xf16>, %b: tensor<16xf32>, %sg: tensor<40x72xf16>, %su: tensor<40x72xf16>, %sd: tensor<72x40xf16>) -> tensor<13x40xf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd correction_bias(%b : tensor<16xf32>) shared(%sg, %su, %sd : tensor<40x72xf16>, tensor<40x72xf16>, tensor<72x40xf16>) {top_k = 3, renormalize, scoring = #kgen.scoring<sigmoid>, n_group = 4, topk_group = 2, activation = #kgen.activation<gelu>, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = user>}
      : tensor<13x40xf16>, tensor<13x16xf32>, tensor<16x40x72xf16>, tensor<16x40x72xf16>, tensor<16x72x40xf16> -> tensor<13x40xf16>
  return %y : tensor<13x40xf16>
}

// sigmoid + bias without groups, a scale that is not a power of two
func.func @sigmoid_no_groups(%x: tensor<37x64xbf16>, %l: tensor<37x8xf32>, %wg: tensor<8x64x32xbf16>, %wu: tensor<8x64x32xbf16>, %wd: tensor<8x32x64xbf16>, %b: tensor<8xf32>) -> tensor<37x64xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd correction_bias(%b : tensor<8xf32>) {top_k = 2, scoring = #kgen.scoring<sigmoid>, routed_scaling_factor = 0.3 : f32, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = user>}
      : tensor<37x64xbf16>, tensor<37x8xf32>, tensor<8x64x32xbf16>, tensor<8x64x32xbf16>, tensor<8x32x64xbf16> -> tensor<37x64xbf16>
  return %y : tensor<37x64xbf16>
}
