// What the emitter does not print yet says so, naming the missing piece.
// RUN: kgen-opt %s --split-input-file --kgen-lower-gemm-to-tiles | not kgen-translate --split-input-file --kgen-emit-cuda 2>&1 | FileCheck %s
// RUN: not kgen-opt %s --split-input-file --kgen-lower-gemm-to-tiles --kgen-emit-packages=output-dir=%t 2>&1 | FileCheck %s --check-prefix=PKG

// CHECK: error: 'kgen.tile.pipeline' op the CUDA emitter prints clusters along M only (blocks sharing the B tile): cluster_n must be 1
// PKG: error: 'kgen.tile.pipeline' op the CUDA emitter prints clusters along M only
func.func @wgmma_cluster_n(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 2, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// CHECK: error: 'kgen.tile.pipeline' op the CUDA emitter prints wgmma kernels with 128-byte K rows (block_k = 64 for 16-bit, 128 for fp8), warps_n = 1, tma and warp_specialized only, for now
// PKG: error: 'kgen.tile.pipeline' op the CUDA emitter prints wgmma kernels with 128-byte K rows
func.func @wgmma_short_k(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 32, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// CHECK: error: 'kgen.tile.pipeline' op the wgmma pipeline needs at least 2 stages: a consumer frees a stage only after waiting for the next one
// PKG: error: 'kgen.tile.pipeline' op the wgmma pipeline needs at least 2 stages
func.func @wgmma_one_stage(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 1, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// MN-major B of one 64-column block cannot be split over two blocks.
// CHECK: error: 'kgen.tile.pipeline' op cluster_m = 2 cannot split the 64-wide B tile evenly (K-major B: bands of a multiple of 8 rows; MN-major B: whole 64-column blocks)
// PKG: error: 'kgen.tile.pipeline' op cluster_m = 2 cannot split the 64-wide B tile evenly
func.func @wgmma_cluster_split(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 64, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// CHECK: error: 'kgen.tile.pipeline' op wgmma on f8E4M3FN needs both operands K-major: A [M, K] and B transposed [N, K]
// PKG: error: 'kgen.tile.pipeline' op wgmma on f8E4M3FN needs both operands K-major
func.func @wgmma_fp8(%a: tensor<256x512xf8E4M3FN>, %b: tensor<512x1024xf8E4M3FN>) -> tensor<256x1024xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 128, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xf8E4M3FN>, tensor<512x1024xf8E4M3FN> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// CHECK: error: 'kgen.tile.pipeline' op the CUDA emitter does not multicast batched B tiles: cluster_m must be 1 with a batched B
// PKG: error: 'kgen.tile.pipeline' op the CUDA emitter does not multicast batched B tiles
func.func @wgmma_batched_cluster(%a: tensor<2x256x64xbf16>, %b: tensor<2x64x256xbf16>) -> tensor<2x256x256xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 128, block_k = 64, warps_m = 8, warps_n = 1, stages = 2, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<2x256x64xbf16>, tensor<2x64x256xbf16> -> tensor<2x256x256xbf16>
  return %d : tensor<2x256x256xbf16>
}

// -----

// CHECK: error: 'kgen.tile.mma' op mma_sync on f8E4M3FN needs both operands K-major: A [M, K] and B transposed [N, K]
// PKG: error: 'kgen.tile.mma' op mma_sync on f8E4M3FN needs both operands K-major
func.func @fp8_mn_major(%a: tensor<64x128xf8E4M3FN>, %b: tensor<128x64xf8E4M3FN>) -> tensor<64x64xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = mma_sync, block_m = 64, block_n = 64, block_k = 64, warps_m = 2, warps_n = 2, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<64x128xf8E4M3FN>, tensor<128x64xf8E4M3FN> -> tensor<64x64xbf16>
  return %d : tensor<64x64xbf16>
}
