// Every rule of the #kgen.gemm_config verifier (KgenAttrs.cpp) and of the
// kgen.gemm checks against its operands (KgenOps.cpp).
// RUN: kgen-opt %s --split-input-file --verify-diagnostics

// block_m zero
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'block_m' is 0; expected at least 1}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 0, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// negative split_k
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'split_k' is -2; expected at least 1}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = -2, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// epilogue vector
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config 'epilogue_vector' is 3; expected 1, 2, 4, 8 or 16}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 3, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// wgmma on sm_80
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config instruction wgmma needs target sm_90a; got sm_80}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// tma on sm_80
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config tma needs target sm_90a; got sm_80}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 4, tma = true, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// cluster on sm_80
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config a thread-block cluster needs target sm_90a; got sm_80}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// cluster too big
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config cluster 4x4 has more than 8 blocks}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 4, cluster_n = 4, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// ws without tma
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config warp_specialized needs tma (the producer warpgroup issues TMA loads)}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = false, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// too many threads
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config has 2048 threads per block; at most 1024}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 64, block_n = 64, block_k = 16, warps_m = 32, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// simt m
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config block_m (4 lane rows per warp) (65) must be a multiple of 8}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 65, block_n = 64, block_k = 16, warps_m = 2, warps_n = 4, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// simt n
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config block_n (8 lane columns of 2 per warp) (65) must be a multiple of 64}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 64, block_n = 65, block_k = 16, warps_m = 2, warps_n = 4, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// mma m
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config block_m (16 rows per warp mma) (48) must be a multiple of 32}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 48, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// mma n
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config block_n (16 columns per warp ldmatrix) (20) must be a multiple of 32}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 20, block_k = 32, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// mma k
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config block_k (12) must be a multiple of 8}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 12, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// wgmma warpgroups
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config wgmma needs whole warpgroups: warps_m (6) must be a multiple of 4}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 6, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// wgmma m
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config block_m (64 rows per warpgroup) (64) must be a multiple of 128}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// wgmma n
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config block_n (8 columns per wgmma N step) (252) must be a multiple of 8}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 252, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// wgmma k
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config block_k (60) must be a multiple of 8}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 60, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// wgmma n per group
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{gemm_config wgmma N per warpgroup is 512; at most 256}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 512, block_k = 64, warps_m = 8, warps_n = 1, stages = 1, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// fp8 mma_sync on sm_80
func.func @f(%a: tensor<256x512xf8E4M3FN>, %b: tensor<512x1024xf8E4M3FN>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'kgen.gemm' op config: mma_sync has no f8E4M3FN form on sm_80; use simt, or target sm_90a}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xf8E4M3FN>, tensor<512x1024xf8E4M3FN> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// instruction K for bf16
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'kgen.gemm' op config block_k (8) must be a multiple of 16, the K of one mma_sync instruction for 'bf16'}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 8, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// instruction K for fp8 wgmma
func.func @f(%a: tensor<256x512xf8E4M3FN>, %b: tensor<512x1024xf8E4M3FN>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'kgen.gemm' op config block_k (16) must be a multiple of 32, the K of one wgmma instruction for 'f8E4M3FN'}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 16, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xf8E4M3FN>, tensor<512x1024xf8E4M3FN> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// shared memory
func.func @f(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'kgen.gemm' op config needs 245760 bytes of shared memory (5 stages x (128x64 + 64x256) x 2 bytes); sm_90a allows 232448 per block}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 5, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// shared memory sm_80
func.func @f(%a: tensor<256x512xf32>, %b: tensor<512x1024xf32>) -> tensor<256x1024xbf16> {
  // expected-error @+1 {{'kgen.gemm' op config needs 262144 bytes of shared memory (2 stages x (256x64 + 64x256) x 4 bytes); sm_80 allows 166912 per block}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 256, block_n = 256, block_k = 64, warps_m = 4, warps_n = 4, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xf32>, tensor<512x1024xf32> -> tensor<256x1024xbf16>
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
  // expected-error @+1 {{'kgen.gemm' op config uses tma, which needs rows of a multiple of 16 bytes; 'a' has rows of 58 bytes}}
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x29xbf16>, tensor<29x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
