// Every rule of the GEMM families' legality (dialect/GemmLegality.cpp): those
// the #kgen.gemm_config verifier checks alone and those kgen.gemm checks
// against its operands.
// RUN: kgen-opt %s --split-input-file --verify-diagnostics

// block_m zero
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'block_m': 0; expected at least 1}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 0, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// negative split_k
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'split_k': -2; expected at least 1}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = -2, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// epilogue vector
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'epilogue_vector': 3; expected 1, 2, 4, 8 or 16}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 3, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// wgmma on sm_80
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'instruction': wgmma needs target sm_90a; got sm_80}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// tma on sm_80
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'tma': TMA needs target sm_90a; got sm_80}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 4, tma = true, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// cluster on sm_80
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'cluster_m': a 2x1 cluster has more than the 1 blocks sm_80 allows}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// cluster too big
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'cluster_m': a 4x4 cluster has more than the 8 blocks sm_90a allows}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 4, cluster_n = 4, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// ws without tma
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'warp_specialized': needs tma (the producer warpgroup issues TMA loads): expected tma = true}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = false, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// too many threads
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'warps_m': 2048 threads per block; at most 1024}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 64, block_n = 64, block_k = 16, warps_m = 32, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// simt m
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'block_m': 65 must be a multiple of 8 (simt: 4 lane rows per warp row, 4 x warps_m)}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 65, block_n = 64, block_k = 16, warps_m = 2, warps_n = 4, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// simt n
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'block_n': 65 must be a multiple of 64 (simt: 8 lanes of an even column count per warp column, 16 x warps_n)}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 64, block_n = 65, block_k = 16, warps_m = 2, warps_n = 4, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// mma m
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'block_m': 48 must be a multiple of 32 (16-row mma tiles per warp: 16 x warps_m)}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 48, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// mma n
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'block_n': 20 must be a multiple of 32 (16-column ldmatrix tiles per warp: 16 x warps_n)}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 20, block_k = 32, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// mma k
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'block_k': 12 must be a multiple of 8 (the smallest mma K)}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 12, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// wgmma warpgroups
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'warps_m': 6; wgmma runs 1 to 3 consumer warpgroups of 4 warps: expected 4, 8 or 12}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 6, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// wgmma m
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'block_m': 64; 2 consumer warpgroup(s) of 64 rows (warps_m = 8) need block_m = 128}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// wgmma n
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'block_n': 252 must be a multiple of 8 (a wgmma's N step)}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 252, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// wgmma k
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'kgen.gemm' op gemm_config 'block_k': 60; wgmma tiles have 128-byte swizzled K rows: expected 64 for bf16}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 60, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// wgmma n per group
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'block_n': 512; a wgmma's N is at most 256}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 512, block_k = 64, warps_m = 8, warps_n = 1, stages = 1, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// fp8 mma_sync on sm_80
func.func @f(%a: tensor<256x512xf8E4M3FN>, %b: tensor<512x1024xf8E4M3FN>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'kgen.gemm' op gemm_config 'instruction': mma_sync has no f8E4M3FN form on sm_80 (it needs sm_89+): use simt, or target sm_90a}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xf8E4M3FN>, tensor<512x1024xf8E4M3FN> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// instruction K for bf16
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'kgen.gemm' op gemm_config 'block_k': 8 must be a multiple of 16 (the K of one mma_sync for bf16)}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 8, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// instruction K for fp8 wgmma
func.func @f(%a: tensor<256x512xf8E4M3FN>, %b: tensor<512x1024xf8E4M3FN>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'kgen.gemm' op gemm_config 'instruction': wgmma on f8E4M3FN needs both operands K-major: A [M, K] and B transposed [N, K]}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 16, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xf8E4M3FN>, tensor<512x1024xf8E4M3FN> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// shared memory
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'kgen.gemm' op gemm_config 'stages': 5 stages of 128x64 and 64x256 tiles need 246864 bytes of shared memory; sm_90a allows 232448 per block}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 5, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// shared memory sm_80
func.func @f(%a: tensor<256x512xf32>, %b: tensor<512x1024xf32>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'kgen.gemm' op gemm_config 'stages': 4 stages of 128x64 and 64x128 tiles need 262144 bytes of shared memory; sm_80 allows 166912 per block}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 128, block_n = 128, block_k = 64, warps_m = 4, warps_n = 4, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xf32>, tensor<512x1024xf32> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// unknown instruction family
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+2 {{expected one of [simt, mma_sync, wgmma] for matrix instruction family}}
  // expected-error @+1 {{failed to parse Kgen_GemmConfigAttr parameter 'instruction'}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = tcgen05, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// missing parameter
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{struct is missing required parameter: stages}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// tma with rows that are not a multiple of 16 bytes
func.func @f(%a: tensor<256x29xbf16>, %b: tensor<29x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'kgen.gemm' op gemm_config 'tma': TMA needs rows of a multiple of 16 bytes; 'a' has rows of 58 bytes}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x29xbf16>, tensor<29x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// a field past the bound that keeps products in range
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'stages': 70000; expected at most 65535}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 70000, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
// -----

// clusters along N
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'cluster_n': 2; clusters run along M only (blocks sharing B): expected 1}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 2, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
// -----

// a cp.async family with tma
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'tma': mma_sync loads with cp.async: expected tma = false}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, tma = true, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
// -----

// a cp.async family in a cluster
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'cluster_m': 2; clusters multicast TMA loads (wgmma only): expected 1 for mma_sync}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, tma = false, warp_specialized = false, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
// -----

// cp.async stage rows that are not whole 16-byte chunks
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'kgen.gemm' op gemm_config 'block_k': 4 gives A's stage tile rows of 8 bytes; they must be a multiple of 16 (cp.async chunks)}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 128, block_n = 128, block_k = 4, warps_m = 2, warps_n = 4, stages = 3, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
// -----

// simt accumulators past the register budget
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'block_n': 256x256 over 4x4 warps gives the simt 128 accumulators per thread; at most 64, and 208 registers with operands and addresses of at most 128}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 256, block_n = 256, block_k = 32, warps_m = 4, warps_n = 4, stages = 3, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
// -----

// mma_sync accumulators past the register budget
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'block_n': 256x256 over 2x2 warps gives 512 accumulators per thread; at most 128}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 256, block_n = 256, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
// -----

// mma_sync e4m3 not K-major
func.func @f(%a: tensor<256x512xf8E4M3FN>, %b: tensor<512x1024xf8E4M3FN>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'kgen.gemm' op gemm_config 'instruction': mma_sync on f8E4M3FN needs both operands K-major: A [M, K] and B transposed [N, K]}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 64, warps_m = 2, warps_n = 2, stages = 3, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xf8E4M3FN>, tensor<512x1024xf8E4M3FN> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
// -----

// wgmma without the TMA pipeline
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'tma': wgmma kernels are warp-specialised TMA pipelines: expected tma = true and warp_specialized = true}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
// -----

// wgmma warpgroups along N
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'warps_n': 2; wgmma consumer warpgroups split M only: expected 1}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 4, warps_n = 2, stages = 4, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
// -----

// wgmma: three consumer warpgroups and a 256-wide tile
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'block_n': 256; with 3 consumer warpgroups (128 registers per thread at launch, BN / 2 accumulators) block_n is at most 192}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 192, block_n = 256, block_k = 64, warps_m = 12, warps_n = 1, stages = 3, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
// -----

// wgmma with one stage
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'stages': 1; the wgmma pipeline needs at least 2 (a consumer frees a stage only after waiting for the next)}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 1, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
// -----

// wgmma split-K with a block_n the reduction cannot map
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'block_n': 72 must be a multiple of 16 (split-K reduction: 8 lanes of an even column count per warp column, 16 x warps_n)}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 72, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 2, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
// -----

// wgmma cluster that does not divide block_n
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'cluster_m': 3 does not divide block_n (256): the cluster splits the B tile}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 3, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
// -----

// wgmma on f32
func.func @f(%a: tensor<256x512xf32>, %b: tensor<512x1024xf32>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'kgen.gemm' op gemm_config 'instruction': wgmma takes bf16, f16 or f8E4M3FN operands; got f32}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 32, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xf32>, tensor<512x1024xf32> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
// -----

// wgmma MN-major B of part of a swizzle block
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'kgen.gemm' op gemm_config 'block_n': 96 must be a multiple of 64 with an MN-major B (whole 128-byte swizzle blocks)}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 96, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
// -----

// wgmma multicast of a batched B
func.func @f(%a: tensor<2x256x512xbf16>, %b: tensor<2x512x1024xbf16>) -> tensor<2x256x1024xbf16> {
  // expected-error @+1 {{'kgen.gemm' op gemm_config 'cluster_m': 2; a batched B is not multicast: expected 1}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<2x256x512xbf16>, tensor<2x512x1024xbf16> -> tensor<2x256x1024xbf16>
  return %d : tensor<2x256x1024xbf16>
}
// -----

// wgmma K-major B bands that are not whole swizzle atoms
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<1024x512xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'kgen.gemm' op gemm_config 'cluster_m': 2 splits block_n (72) into bands of 36 rows; they must be whole 8-row swizzle atoms}}
  %d = kgen.gemm %a, %b {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 72, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<1024x512xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
// -----

// wgmma MN-major B blocks the cluster cannot split
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'kgen.gemm' op gemm_config 'cluster_m': 2 does not divide block_n's 3 swizzle blocks of an MN-major B}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 192, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
// -----

// an f16 accumulator
func.func @f(%a: tensor<256x512xf16>, %b: tensor<512x1024xf16>) -> tensor<256x1024xf16> {
  // expected-error @+1 {{'kgen.gemm' op gemm_config 'instruction': acc_type f16: no kernel family accumulates in f16 (the kernels accumulate in f32); drop acc_type}}
  %d = kgen.gemm %a, %b {acc_type = f16, config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xf16>, tensor<512x1024xf16> -> tensor<256x1024xf16>
  return %d : tensor<256x1024xf16>
}
// -----

// cp.async stage rows of B that are not whole 16-byte chunks
func.func @f(%a: tensor<512x256xbf16>, %b: tensor<1024x512xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'kgen.gemm' op gemm_config 'block_k': 4 gives B's stage tile rows of 8 bytes; they must be a multiple of 16 (cp.async chunks)}}
  %d = kgen.gemm %a, %b {transpose_a, transpose_b, config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 16, block_n = 64, block_k = 4, warps_m = 1, warps_n = 4, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<512x256xbf16>, tensor<1024x512xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// cp.async loads of more than 4 chunks per thread
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'kgen.gemm' op gemm_config 'block_k': 256: B's 256x128 stage tile is 4096 16-byte chunks, 8 per thread of 512; at most 4}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 32, block_n = 128, block_k = 256, warps_m = 4, warps_n = 4, stages = 1, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
// -----

// mma_sync fragments of every unrolled K step past the registers
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'kgen.gemm' op gemm_config 'block_k': 64: 128 accumulators and the fragments of 4 K steps need about 304 registers per thread; 128 threads have 255}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 64, warps_m = 2, warps_n = 2, stages = 3, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
// -----

// simt accumulators past the registers of 1024 threads
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'block_n': 256x128 over 8x4 warps gives the simt 32 accumulators per thread; at most 64, and 100 registers with operands and addresses of at most 64}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 256, block_n = 128, block_k = 32, warps_m = 8, warps_n = 4, stages = 3, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
// -----

// a split-K reduction kernel holding too many accumulators
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'block_n': 128x256 over 8x1 warps gives the split-K reduction 128 accumulators per thread; at most 64, and 304 registers with operands and addresses of at most 255}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 2, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
// -----

// an epilogue operand no family reads
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>, %c: tensor<256x1024xf8E4M3FN>) -> tensor<256x1024xf8E4M3FN> {
  // expected-error @+1 {{'kgen.gemm' op gemm_config 'instruction': the epilogue of every family reads residual 'c' as f32, bf16 or f16; got f8E4M3FN}}
  %d = kgen.gemm %a, %b residual(%c : tensor<256x1024xf8E4M3FN>) {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xf8E4M3FN>
  return %d : tensor<256x1024xf8E4M3FN>
}
// -----

// an e4m3 result on sm_80
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xf8E4M3FN> {
  // expected-error @+1 {{'kgen.gemm' op gemm_config 'target': an f8E4M3FN result is rounded by cvt.rn.satfinite.e4m3x2, which needs sm_89+: expected target sm_90a}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xf8E4M3FN>
  return %d : tensor<256x1024xf8E4M3FN>
}
