// kgen-select-strategy on block-scaled e4m3 MoE layers (DeepSeek-V3's
// checkpoint): on sm_90a each expert GEMM gets a config of the block-scaled
// rules (dialect/GroupedGemmLegality.h: block_n and block_k dividing 128,
// two accumulators a product), and the layer lowers; on sm_80, which cannot
// widen e4m3 (cvt.rn.f16x2.e4m3x2 needs sm_89+), it keeps no config and
// says why.
// RUN: kgen-opt %s --kgen-select-strategy=target=sm_90a | FileCheck %s
// RUN: kgen-opt %s --kgen-select-strategy=target=sm_90a --kgen-lower-moe-to-tiles | FileCheck %s --check-prefix=LOWERED
// RUN: kgen-opt %s --kgen-select-strategy=target=sm_80 2>&1 | FileCheck %s --check-prefix=SM80

// A decode step: 16-row tiles, 64-column tiles inside a 128-column scale
// block, 64-wide K tiles.
// CHECK-LABEL: func.func @decode(
// CHECK: down_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 64, block_k = 64, warps_m = 1, warps_n = 4, stages = 4, source = default>
// CHECK-SAME: gate_up_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 64, block_k = 64, warps_m = 1, warps_n = 4, stages = 4, source = default>
// SM80: remark: no kernel family lowers this MoE layer's gated expert GEMM on sm_80 (grouped_gemm_config 'target': {{.*}}cvt.rn.f16x2.e4m3x2, which needs sm_89+: expected target sm_90a)
// SM80-NOT: _config = #kgen
func.func @decode(%x: tensor<2x256xbf16>, %l: tensor<2x8xf32>, %wg: tensor<8x256x512xf8E4M3FN>, %wu: tensor<8x256x512xf8E4M3FN>, %wd: tensor<8x512x256xf8E4M3FN>, %sg: tensor<8x2x4xf32>, %su: tensor<8x2x4xf32>, %sd: tensor<8x4x2xf32>) -> tensor<2x256xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x4x2xf32>) {top_k = 2, renormalize}
      : tensor<2x256xbf16>, tensor<2x8xf32>, tensor<8x256x512xf8E4M3FN>, tensor<8x256x512xf8E4M3FN>, tensor<8x512x256xf8E4M3FN> -> tensor<2x256xbf16>
  return %y : tensor<2x256xbf16>
}

// A prefill: 128-row tiles over 4 x 2 warps; at most 64 accumulators a
// thread, the gated GEMM's four fit 32 x 16 warp tiles (block_n 32), the
// down GEMM's two 32 x 32 (block_n 64).
// CHECK-LABEL: func.func @prefill(
// CHECK: down_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 128, block_n = 64, block_k = 32, warps_m = 4, warps_n = 2, stages = 3, source = default>
// CHECK-SAME: gate_up_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 128, block_n = 32, block_k = 32, warps_m = 4, warps_n = 2, stages = 3, source = default>
func.func @prefill(%x: tensor<512x256xbf16>, %l: tensor<512x8xf32>, %wg: tensor<8x256x512xf8E4M3FN>, %wu: tensor<8x256x512xf8E4M3FN>, %wd: tensor<8x512x256xf8E4M3FN>, %sg: tensor<8x2x4xf32>, %su: tensor<8x2x4xf32>, %sd: tensor<8x4x2xf32>) -> tensor<512x256xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x4xf32>, tensor<8x2x4xf32>, tensor<8x4x2xf32>) {top_k = 2, renormalize}
      : tensor<512x256xbf16>, tensor<512x8xf32>, tensor<8x256x512xf8E4M3FN>, tensor<8x256x512xf8E4M3FN>, tensor<8x512x256xf8E4M3FN> -> tensor<512x256xbf16>
  return %y : tensor<512x256xbf16>
}

// LOWERED-LABEL: kgen.kernel @kgen_moe_bf16_e4m3_t2_e8_k2_h256_i512_quant_permuted
// LOWERED: kgen.tile.act_quant
// LOWERED-LABEL: kgen.kernel @kgen_moe_bf16_e4m3_t2_e8_k2_h256_i512_gate_up
// LOWERED-COUNT-2: kgen.tile.block_scale
// LOWERED-LABEL: func.func @decode(
// LOWERED-NOT: kgen.moe
