// kgen-select-strategy on MoE layers: each expert GEMM gets a
// #kgen.grouped_gemm_config. The heuristic sizes block_m to the rows an
// expert gets with uniform routing (T * k / min(E, T * k)): a decode step
// takes 16-row tiles, not 128; the cost model (model=) ranks the legal
// space and records its prediction; a layer no kernel lowers (f32,
// DeepSeek routing over more than 256 experts) keeps no config, with a
// remark. Every choice lowers (kgen-lower-moe-to-tiles). Block-scaled e4m3
// layers: select-strategy-moe-e4m3.mlir.
// RUN: kgen-opt %s --split-input-file --verify-diagnostics --kgen-select-strategy=target=sm_90a | FileCheck %s --check-prefixes=CHECK,DEFAULT
// RUN: kgen-opt %s --split-input-file --verify-diagnostics --kgen-select-strategy="target=sm_80 model=%S/Inputs/synthetic-cost-model.json" | FileCheck %s --check-prefixes=CHECK,MODEL
// RUN: kgen-opt %s --split-input-file --verify-diagnostics --kgen-select-strategy=target=sm_90a --kgen-lower-moe-to-tiles -o /dev/null

// Mixtral's shapes at one token: two rows, one per expert hit.
// CHECK-LABEL: func.func @mixtral_decode(
// DEFAULT: down_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 128, block_k = 32, warps_m = 1, warps_n = 4, stages = 4, source = default>
// DEFAULT-SAME: gate_up_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 128, block_k = 32, warps_m = 1, warps_n = 4, stages = 4, source = default>
// MODEL: down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = {{[0-9]+}}, block_k = {{[0-9]+}}, warps_m = {{[0-9]+}}, warps_n = {{[0-9]+}}, stages = {{[0-9]+}}, source = model, entry = "cost model {{[^"]+}}: {{[0-9.]+}} ms predicted">
// MODEL-SAME: gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = {{[0-9]+}}, block_k = {{[0-9]+}}, warps_m = {{[0-9]+}}, warps_n = {{[0-9]+}}, stages = {{[0-9]+}}, source = model, entry = "cost model {{[^"]+}}: {{[0-9.]+}} ms predicted">
func.func @mixtral_decode(%x: tensor<1x4096xbf16>, %l: tensor<1x8xf32>, %wg: tensor<8x4096x14336xbf16>, %wu: tensor<8x4096x14336xbf16>, %wd: tensor<8x14336x4096xbf16>) -> tensor<1x4096xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2, renormalize}
      : tensor<1x4096xbf16>, tensor<1x8xf32>, tensor<8x4096x14336xbf16>, tensor<8x4096x14336xbf16>, tensor<8x14336x4096xbf16> -> tensor<1x4096xbf16>
  return %y : tensor<1x4096xbf16>
}

// -----

// 40 rows per expert: 64-row tiles.
// CHECK-LABEL: func.func @forty_rows_per_expert(
// DEFAULT: down_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 64,
// DEFAULT-SAME: gate_up_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 64,
// MODEL: source = model
func.func @forty_rows_per_expert(%x: tensor<160x256xbf16>, %l: tensor<160x8xf32>, %wg: tensor<8x256x512xbf16>, %wu: tensor<8x256x512xbf16>, %wd: tensor<8x512x256xbf16>) -> tensor<160x256xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2, renormalize}
      : tensor<160x256xbf16>, tensor<160x8xf32>, tensor<8x256x512xbf16>, tensor<8x256x512xbf16>, tensor<8x512x256xbf16> -> tensor<160x256xbf16>
  return %y : tensor<160x256xbf16>
}

// -----

// Prefill: 512 rows per expert: 128-row tiles.
// CHECK-LABEL: func.func @mixtral_prefill(
// DEFAULT: down_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 4, stages = 3, source = default>
func.func @mixtral_prefill(%x: tensor<2048x4096xbf16>, %l: tensor<2048x8xf32>, %wg: tensor<8x4096x14336xbf16>, %wu: tensor<8x4096x14336xbf16>, %wd: tensor<8x14336x4096xbf16>) -> tensor<2048x4096xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2, renormalize}
      : tensor<2048x4096xbf16>, tensor<2048x8xf32>, tensor<8x4096x14336xbf16>, tensor<8x4096x14336xbf16>, tensor<8x14336x4096xbf16> -> tensor<2048x4096xbf16>
  return %y : tensor<2048x4096xbf16>
}

// -----

// f32: no grouped GEMM kernel takes it.
// CHECK-LABEL: func.func @f32_layer(
// CHECK-NOT: config
func.func @f32_layer(%x: tensor<8x32xf32>, %l: tensor<8x4xf32>, %wg: tensor<4x32x32xf32>, %wu: tensor<4x32x32xf32>, %wd: tensor<4x32x32xf32>) -> tensor<8x32xf32> {
  // expected-remark @+1 {{no kernel family lowers this MoE layer's gated expert GEMM on sm_}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2, renormalize}
      : tensor<8x32xf32>, tensor<8x4xf32>, tensor<4x32x32xf32>, tensor<4x32x32xf32>, tensor<4x32x32xf32> -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

// DeepSeek-V3's routing with a shared expert: configured (the shared
// expert's GEMMs run on the layer's configs).
// CHECK-LABEL: func.func @deepseek_layer(
// CHECK: kgen.moe
// CHECK-SAME: down_config = #kgen.grouped_gemm_config<
// CHECK-SAME: gate_up_config = #kgen.grouped_gemm_config<
func.func @deepseek_layer(%x: tensor<8x32xbf16>, %l: tensor<8x16xf32>, %wg: tensor<16x32x32xbf16>, %wu: tensor<16x32x32xbf16>, %wd: tensor<16x32x32xbf16>, %b: tensor<16xf32>, %sg: tensor<32x64xbf16>, %su: tensor<32x64xbf16>, %sd: tensor<64x32xbf16>) -> tensor<8x32xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd correction_bias(%b : tensor<16xf32>) shared(%sg, %su, %sd : tensor<32x64xbf16>, tensor<32x64xbf16>, tensor<64x32xbf16>) {top_k = 4, renormalize, scoring = #kgen.scoring<sigmoid>, n_group = 4, topk_group = 2, routed_scaling_factor = 2.5 : f32}
      : tensor<8x32xbf16>, tensor<8x16xf32>, tensor<16x32x32xbf16>, tensor<16x32x32xbf16>, tensor<16x32x32xbf16> -> tensor<8x32xbf16>
  return %y : tensor<8x32xbf16>
}

// -----

// DeepSeek routing over more than 256 experts: not lowered.
// CHECK-LABEL: func.func @too_many_experts_for_groups(
// CHECK-NOT: config
func.func @too_many_experts_for_groups(%x: tensor<8x32xbf16>, %l: tensor<8x512xf32>, %wg: tensor<512x32x32xbf16>, %wu: tensor<512x32x32xbf16>, %wd: tensor<512x32x32xbf16>) -> tensor<8x32xbf16> {
  // expected-remark @+1 {{the DeepSeek routing kernel (sigmoid, correction bias, expert groups or scaling) takes at most 256 experts; got 512}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2, scoring = #kgen.scoring<sigmoid>}
      : tensor<8x32xbf16>, tensor<8x512xf32>, tensor<512x32x32xbf16>, tensor<512x32x32xbf16>, tensor<512x32x32xbf16> -> tensor<8x32xbf16>
  return %y : tensor<8x32xbf16>
}
