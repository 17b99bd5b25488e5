// The tile-level schedule of block-scaled e4m3 expert GEMMs (kgen.moe and
// kgen.grouped_gemm with `scales`, DeepSeek-V3's checkpoint format) run
// block by block on the CPU against the reference semantics, exactly
// (tolerance 0): the quantisation kernels (kgen.tile.act_quant: a scale per
// row and 128 columns), the widened e4m3 main loop's per-K-block partial
// sums and their promotion (kgen.tile.block_scale) in the reference's f32
// order. Signed integer inputs make amax ties, e4m3 rounding ties and
// saturation common; K and N of 200, 160, 136 and 300 leave partial 128-wide
// scale blocks, partial K tiles and N tiles in the second scale column.
// RUN: %python %S/Inputs/check_tiled.py %s %t --pipeline=--kgen-lower-moe-to-tiles --int-range=-8:8 | FileCheck %s
// CHECK-DAG: moe_partial_blocks: OK
// CHECK-DAG: deepseek_shared: OK
// CHECK-DAG: grouped_gated_k300: OK
// CHECK-DAG: grouped_down_bk128: OK
// CHECK-DAG: fewer_tokens_f16: OK
// CHECK-NOT: MISMATCH

// top-2 of 5, T * k = 26 rows; H = 200 (blocks of 128 and 72), I = 160 (a
// second scale column); gate_up K tiles of 32 (4 per block), down of 64
// (the last one a partial block of 32)
func.func @moe_partial_blocks(%x: tensor<13x200xbf16>, %l: tensor<13x5xf32>, %wg: tensor<5x200x160xf8E4M3FN>, %wu: tensor<5x200x160xf8E4M3FN>, %wd: tensor<5x160x200xf8E4M3FN>, %sg: tensor<5x2x2xf32>, %su: tensor<5x2x2xf32>, %sd: tensor<5x2x2xf32>) -> tensor<13x200xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<5x2x2xf32>, tensor<5x2x2xf32>, tensor<5x2x2xf32>) {renormalize, top_k = 2, gate_up_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 32, block_n = 64, block_k = 64, warps_m = 2, warps_n = 2, stages = 3, source = user>}
      : tensor<13x200xbf16>, tensor<13x5xf32>, tensor<5x200x160xf8E4M3FN>, tensor<5x200x160xf8E4M3FN>, tensor<5x160x200xf8E4M3FN> -> tensor<13x200xbf16>
  return %y : tensor<13x200xbf16>
}

// DeepSeek-style routing (16 experts in 4 groups, 2 kept, top 4, sigmoid +
// bias, scaled) with a shared expert of 96: its x is quantised too
func.func @deepseek_shared(%x: tensor<9x136xbf16>, %l: tensor<9x16xf32>, %wg: tensor<16x136x64xf8E4M3FN>, %wu: tensor<16x136x64xf8E4M3FN>, %wd: tensor<16x64x136xf8E4M3FN>, %sg: tensor<16x2x1xf32>, %su: tensor<16x2x1xf32>, %sd: tensor<16x1x2xf32>, %b: tensor<16xf32>, %wsg: tensor<136x96xf8E4M3FN>, %wsu: tensor<136x96xf8E4M3FN>, %wsd: tensor<96x136xf8E4M3FN>, %ssg: tensor<2x1xf32>, %ssu: tensor<2x1xf32>, %ssd: tensor<1x2xf32>) -> tensor<9x136xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<16x2x1xf32>, tensor<16x2x1xf32>, tensor<16x1x2xf32>) correction_bias(%b : tensor<16xf32>) shared(%wsg, %wsu, %wsd : tensor<136x96xf8E4M3FN>, tensor<136x96xf8E4M3FN>, tensor<96x136xf8E4M3FN>) shared_scales(%ssg, %ssu, %ssd : tensor<2x1xf32>, tensor<2x1xf32>, tensor<1x2xf32>) {top_k = 4, renormalize, scoring = #kgen.scoring<sigmoid>, n_group = 4, topk_group = 2, routed_scaling_factor = 2.5 : f32, gate_up_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 64, warps_m = 1, warps_n = 2, stages = 3, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 64, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = user>}
      : tensor<9x136xbf16>, tensor<9x16xf32>, tensor<16x136x64xf8E4M3FN>, tensor<16x136x64xf8E4M3FN>, tensor<16x64x136xf8E4M3FN> -> tensor<9x136xbf16>
  return %y : tensor<9x136xbf16>
}

// a standalone gated grouped GEMM, K = 300 (three scale blocks, the last of
// 44), rows before the first and after the last group
func.func @grouped_gated_k300(%a: tensor<40x300xbf16>, %b: tensor<3x300x96xf8E4M3FN>, %bu: tensor<3x300x96xf8E4M3FN>, %s: tensor<3x3x1xf32>, %su: tensor<3x3x1xf32>) -> tensor<40x96xbf16> {
  %off = arith.constant dense<[2, 17, 17, 35]> : tensor<4xi32>
  %d = kgen.grouped_gemm %a, %b, %off gated(%bu : tensor<3x300x96xf8E4M3FN>) scales(%s, %su : tensor<3x3x1xf32>, tensor<3x3x1xf32>) {activation = #kgen.activation<silu>, config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 16, warps_m = 1, warps_n = 2, stages = 4, source = user>}
      : tensor<40x300xbf16>, tensor<3x300x96xf8E4M3FN>, tensor<4xi32> -> tensor<40x96xbf16>
  return %d : tensor<40x96xbf16>
}

// the down form with one K tile per scale block (block_k 128) and
// 128-column tiles, f32 output
func.func @grouped_down_bk128(%a: tensor<33x256xbf16>, %b: tensor<2x256x200xf8E4M3FN>, %s: tensor<2x2x2xf32>) -> tensor<33x200xf32> {
  %off = arith.constant dense<[0, 20, 33]> : tensor<3xi32>
  %d = kgen.grouped_gemm %a, %b, %off scales(%s : tensor<2x2x2xf32>) {config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 32, block_n = 128, block_k = 128, warps_m = 2, warps_n = 4, stages = 2, source = user>}
      : tensor<33x256xbf16>, tensor<2x256x200xf8E4M3FN>, tensor<3xi32> -> tensor<33x200xf32>
  return %d : tensor<33x200xf32>
}

// 3 f16 tokens, 64-row tiles, gelu: every expert's tile mostly masked
func.func @fewer_tokens_f16(%x: tensor<3x48xf16>, %l: tensor<3x8xf32>, %wg: tensor<8x48x64xf8E4M3FN>, %wu: tensor<8x48x64xf8E4M3FN>, %wd: tensor<8x64x48xf8E4M3FN>, %sg: tensor<8x1x1xf32>, %su: tensor<8x1x1xf32>, %sd: tensor<8x1x1xf32>) -> tensor<3x48xf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x1x1xf32>, tensor<8x1x1xf32>, tensor<8x1x1xf32>) {top_k = 2, activation = #kgen.activation<gelu>, gate_up_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 64, block_n = 32, block_k = 16, warps_m = 2, warps_n = 2, stages = 4, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 64, block_n = 16, block_k = 32, warps_m = 4, warps_n = 1, stages = 2, source = user>}
      : tensor<3x48xf16>, tensor<3x8xf32>, tensor<8x48x64xf8E4M3FN>, tensor<8x48x64xf8E4M3FN>, tensor<8x64x48xf8E4M3FN> -> tensor<3x48xf16>
  return %y : tensor<3x48xf16>
}
