// Every rule of the grouped GEMM legality (dialect/GroupedGemmLegality.cpp):
// those the #kgen.grouped_gemm_config verifier checks alone, and those
// kgen.grouped_gemm and kgen.moe check against their operands (element
// type, the gated form's second B tile and accumulator).
// RUN: kgen-opt %s --split-input-file --verify-diagnostics

// wgmma: the pipeline holds one B operand and one accumulator, so the gated
// form runs mma_sync
func.func @f(%a: tensor<40x256xbf16>, %b: tensor<4x256x512xbf16>, %off: tensor<5xi32>) -> tensor<40x512xbf16> {
  // expected-error @+1 {{grouped_gemm_config 'instruction': the wgmma pipeline holds one B operand and one accumulator: the gated form runs mma_sync}}
  %d = kgen.grouped_gemm %a, %b, %off gated(%b : tensor<4x256x512xbf16>) {activation = #kgen.activation<silu>, config = #kgen.grouped_gemm_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 128, block_k = 64, warps_m = 4, warps_n = 1, stages = 3, source = user>} : tensor<40x256xbf16>, tensor<4x256x512xbf16>, tensor<5xi32> -> tensor<40x512xbf16>
  return %d : tensor<40x512xbf16>
}

// -----

// wgmma, block-scaled e4m3: likewise mma_sync
func.func @f(%a: tensor<40x256xbf16>, %b: tensor<4x256x128xf8E4M3FN>, %s: tensor<4x2x1xf32>, %off: tensor<5xi32>) -> tensor<40x128xbf16> {
  // expected-error @+1 {{grouped_gemm_config 'instruction': the wgmma pipeline holds one B operand and one accumulator: the block-scaled form runs mma_sync}}
  %d = kgen.grouped_gemm %a, %b, %off scales(%s : tensor<4x2x1xf32>) {config = #kgen.grouped_gemm_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 128, block_k = 64, warps_m = 4, warps_n = 1, stages = 3, source = user>} : tensor<40x256xbf16>, tensor<4x256x128xf8E4M3FN>, tensor<5xi32> -> tensor<40x128xbf16>
  return %d : tensor<40x128xbf16>
}

// -----

// wgmma answers to the gemm family's wgmma rules (here: on sm_80)
func.func @f(%a: tensor<40x256xbf16>, %b: tensor<4x256x512xbf16>, %off: tensor<5xi32>) -> tensor<40x512xbf16> {
  // expected-error @+1 {{grouped_gemm_config 'instruction': wgmma needs target sm_90a; got sm_80}}
  %d = kgen.grouped_gemm %a, %b, %off {config = #kgen.grouped_gemm_config<target = sm_80, instruction = wgmma, block_m = 64, block_n = 128, block_k = 64, warps_m = 4, warps_n = 1, stages = 3, source = user>} : tensor<40x256xbf16>, tensor<4x256x512xbf16>, tensor<5xi32> -> tensor<40x512xbf16>
  return %d : tensor<40x512xbf16>
}

// -----

// simt is refused
func.func @f(%a: tensor<40x256xbf16>, %b: tensor<4x256x512xbf16>, %off: tensor<5xi32>) -> tensor<40x512xbf16> {
  // expected-error @+1 {{grouped_gemm_config 'instruction': simt; grouped GEMMs run on tensor cores: expected mma_sync or wgmma}}
  %d = kgen.grouped_gemm %a, %b, %off {config = #kgen.grouped_gemm_config<target = sm_80, instruction = simt, block_m = 64, block_n = 64, block_k = 16, warps_m = 2, warps_n = 2, stages = 2, source = user>} : tensor<40x256xbf16>, tensor<4x256x512xbf16>, tensor<5xi32> -> tensor<40x512xbf16>
  return %d : tensor<40x512xbf16>
}

// -----

// block_m below 16
func.func @f(%a: tensor<40x256xbf16>, %b: tensor<4x256x512xbf16>, %off: tensor<5xi32>) -> tensor<40x512xbf16> {
  // expected-error @+1 {{grouped_gemm_config 'block_m': 8; expected 16 to 128 rows per expert tile}}
  %d = kgen.grouped_gemm %a, %b, %off {config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 8, block_n = 64, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = user>} : tensor<40x256xbf16>, tensor<4x256x512xbf16>, tensor<5xi32> -> tensor<40x512xbf16>
  return %d : tensor<40x512xbf16>
}

// -----

// block_m above 128
func.func @f(%a: tensor<40x256xbf16>, %b: tensor<4x256x512xbf16>, %off: tensor<5xi32>) -> tensor<40x512xbf16> {
  // expected-error @+1 {{grouped_gemm_config 'block_m': 256; expected 16 to 128 rows per expert tile}}
  %d = kgen.grouped_gemm %a, %b, %off {config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 256, block_n = 64, block_k = 32, warps_m = 4, warps_n = 2, stages = 2, source = user>} : tensor<40x256xbf16>, tensor<4x256x512xbf16>, tensor<5xi32> -> tensor<40x512xbf16>
  return %d : tensor<40x512xbf16>
}

// -----

// the gemm family's warp tiles
func.func @f(%a: tensor<40x256xbf16>, %b: tensor<4x256x512xbf16>, %off: tensor<5xi32>) -> tensor<40x512xbf16> {
  // expected-error @+1 {{grouped_gemm_config 'block_m': 48 must be a multiple of 32 (16-row mma tiles per warp: 16 x warps_m)}}
  %d = kgen.grouped_gemm %a, %b, %off {config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 48, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 2, source = user>} : tensor<40x256xbf16>, tensor<4x256x512xbf16>, tensor<5xi32> -> tensor<40x512xbf16>
  return %d : tensor<40x512xbf16>
}

// -----

// f32 operands
func.func @f(%a: tensor<40x256xf32>, %b: tensor<4x256x512xf32>, %off: tensor<5xi32>) -> tensor<40x512xf32> {
  // expected-error @+1 {{grouped_gemm_config 'instruction': the grouped GEMM kernels take bf16 or f16 operands (mma_sync, f32 accumulation), or f8E4M3FN weights with block scales; got f32}}
  %d = kgen.grouped_gemm %a, %b, %off {config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 2, source = user>} : tensor<40x256xf32>, tensor<4x256x512xf32>, tensor<5xi32> -> tensor<40x512xf32>
  return %d : tensor<40x512xf32>
}
// -----

// The gated form: two 128 x 128 accumulators over 2 x 2 warps are 256 per
// thread (the ungated kernel of the same config holds 128)
func.func @f(%a: tensor<40x256xbf16>, %b: tensor<4x256x512xbf16>, %off: tensor<5xi32>) -> tensor<40x512xbf16> {
  // expected-error @+1 {{grouped_gemm_config 'block_n': the gated form holds two B tiles and two accumulators, checked as the gemm tile of block_n = 2 x 128: 128x256 over 2x2 warps gives 256 accumulators per thread; at most 128}}
  %d = kgen.grouped_gemm %a, %b, %off gated(%b : tensor<4x256x512xbf16>) {activation = #kgen.activation<silu>, config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = user>} : tensor<40x256xbf16>, tensor<4x256x512xbf16>, tensor<5xi32> -> tensor<40x512xbf16>
  return %d : tensor<40x512xbf16>
}

// -----

// The same config is legal for the down projection (not gated) but not for
// kgen.moe's gated gate/up GEMM
func.func @f(%x: tensor<16x256xbf16>, %l: tensor<16x4xf32>, %wg: tensor<4x256x512xbf16>, %wu: tensor<4x256x512xbf16>, %wd: tensor<4x512x256xbf16>) -> tensor<16x256xbf16> {
  // expected-error @+1 {{'gate_up_config': grouped_gemm_config 'block_n': the gated form holds two B tiles}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = user>}
      : tensor<16x256xbf16>, tensor<16x4xf32>, tensor<4x256x512xbf16>, tensor<4x256x512xbf16>, tensor<4x512x256xbf16> -> tensor<16x256xbf16>
  return %y : tensor<16x256xbf16>
}

// -----

// Shared memory: 7 stages of a 128 x 32 A tile and two 32 x 128 B tiles
// exceed sm_80's 163 KiB per block (the ungated kernel fits)
func.func @f(%a: tensor<40x256xbf16>, %b: tensor<4x256x512xbf16>, %off: tensor<5xi32>) -> tensor<40x512xbf16> {
  // expected-error @+1 {{grouped_gemm_config 'stages': the gated form holds two B tiles and two accumulators, checked as the gemm tile of block_n = 2 x 128}}
  %d = kgen.grouped_gemm %a, %b, %off gated(%b : tensor<4x256x512xbf16>) {activation = #kgen.activation<silu>, config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 4, stages = 7, source = user>} : tensor<40x256xbf16>, tensor<4x256x512xbf16>, tensor<5xi32> -> tensor<40x512xbf16>
  return %d : tensor<40x512xbf16>
}

// -----

// Block-scaled e4m3 weights: the widened main loop needs sm_89+
func.func @f(%a: tensor<40x256xbf16>, %b: tensor<4x256x128xf8E4M3FN>, %s: tensor<4x2x1xf32>, %off: tensor<5xi32>) -> tensor<40x128xbf16> {
  // expected-error @+1 {{grouped_gemm_config 'target': the block-scaled e4m3 main loop (1 B tile, a partial and a scaled accumulator each): e4m3 tiles are widened by cvt.rn.f16x2.e4m3x2, which needs sm_89+: expected target sm_90a}}
  %d = kgen.grouped_gemm %a, %b, %off scales(%s : tensor<4x2x1xf32>) {config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 2, source = user>} : tensor<40x256xbf16>, tensor<4x256x128xf8E4M3FN>, tensor<5xi32> -> tensor<40x128xbf16>
  return %d : tensor<40x128xbf16>
}

// -----

// Block-scaled: a K tile must lie inside one 128-wide scale block
func.func @f(%a: tensor<40x256xbf16>, %b: tensor<4x256x128xf8E4M3FN>, %s: tensor<4x2x1xf32>, %off: tensor<5xi32>) -> tensor<40x128xbf16> {
  // expected-error @+1 {{grouped_gemm_config 'block_k': 48; block-scaled weights need block_k dividing 128}}
  %d = kgen.grouped_gemm %a, %b, %off scales(%s : tensor<4x2x1xf32>) {config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 32, block_n = 64, block_k = 48, warps_m = 2, warps_n = 2, stages = 2, source = user>} : tensor<40x256xbf16>, tensor<4x256x128xf8E4M3FN>, tensor<5xi32> -> tensor<40x128xbf16>
  return %d : tensor<40x128xbf16>
}

// -----

// Block-scaled: an N tile must lie inside one 128-column scale block
func.func @f(%a: tensor<40x256xbf16>, %b: tensor<4x256x256xf8E4M3FN>, %s: tensor<4x2x2xf32>, %off: tensor<5xi32>) -> tensor<40x256xbf16> {
  // expected-error @+1 {{grouped_gemm_config 'block_n': 96; block-scaled weights need block_n dividing 128}}
  %d = kgen.grouped_gemm %a, %b, %off scales(%s : tensor<4x2x2xf32>) {config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 32, block_n = 96, block_k = 32, warps_m = 2, warps_n = 2, stages = 2, source = user>} : tensor<40x256xbf16>, tensor<4x256x256xf8E4M3FN>, tensor<5xi32> -> tensor<40x256xbf16>
  return %d : tensor<40x256xbf16>
}

// -----

// Block-scaled and gated: four accumulators (a partial and a scaled one per
// product) of a 32 x 32 warp tile are 128 registers a thread, past the
// widened loop's 64 (ptxas spilled there; the ungated gemm rule's 32 would
// pass)
func.func @f(%a: tensor<40x256xbf16>, %b: tensor<4x256x128xf8E4M3FN>, %s: tensor<4x2x1xf32>, %off: tensor<5xi32>) -> tensor<40x128xbf16> {
  // expected-error @+1 {{grouped_gemm_config 'block_n': the block-scaled e4m3 main loop (2 B tiles, a partial and a scaled accumulator each): 4 f32 tiles of 64x64 over 2x2 warps give 128 accumulators per thread; at most 64 in the widened e4m3 loop}}
  %d = kgen.grouped_gemm %a, %b, %off gated(%b : tensor<4x256x128xf8E4M3FN>) scales(%s, %s : tensor<4x2x1xf32>, tensor<4x2x1xf32>) {activation = #kgen.activation<silu>, config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 2, source = user>} : tensor<40x256xbf16>, tensor<4x256x128xf8E4M3FN>, tensor<5xi32> -> tensor<40x128xbf16>
  return %d : tensor<40x128xbf16>
}

// -----

// Block-scaled: the quantisation kernel reads bf16 or f16 activations
func.func @f(%a: tensor<40x256xf32>, %b: tensor<4x256x128xf8E4M3FN>, %s: tensor<4x2x1xf32>, %off: tensor<5xi32>) -> tensor<40x128xbf16> {
  // expected-error @+1 {{grouped_gemm_config 'instruction': block-scaled grouped GEMMs quantise bf16 or f16 activations; got f32}}
  %d = kgen.grouped_gemm %a, %b, %off scales(%s : tensor<4x2x1xf32>) {config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 32, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 2, source = user>} : tensor<40x256xf32>, tensor<4x256x128xf8E4M3FN>, tensor<5xi32> -> tensor<40x128xbf16>
  return %d : tensor<40x128xbf16>
}
