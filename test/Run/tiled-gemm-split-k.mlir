// Split-K schedules on the CPU: partial tiles per K split, then the
// reduction kernel sums them in split order and applies the epilogue. The
// summation order differs from the reference's, so f32 results agree to
// rounding (1e-6), not bit for bit.
// RUN: %python %S/Inputs/check_tiled.py %s %t --tolerance=1e-6 | FileCheck %s
// CHECK-DAG: split3_f32_out: OK
// CHECK-DAG: split4_bias_residual: OK
// CHECK-DAG: split_batched: OK
// CHECK-DAG: split_more_than_k_tiles: OK
// CHECK-DAG: m192_n96_split_k: OK

func.func @split3_f32_out(%a: tensor<45x200xbf16>, %b: tensor<200x37xbf16>) -> tensor<45x37xf32> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 3, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<45x200xbf16>, tensor<200x37xbf16> -> tensor<45x37xf32>
  return %d : tensor<45x37xf32>
}

func.func @split4_bias_residual(%a: tensor<30x256xbf16>, %b: tensor<256x50xbf16>, %bias: tensor<50xf32>, %c: tensor<30x50xf32>) -> tensor<30x50xf32> {
  %d = kgen.gemm %a, %b bias(%bias : tensor<50xf32>) residual(%c : tensor<30x50xf32>) {beta = 0.25 : f32, activation = #kgen.activation<gelu>, config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 4, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<30x256xbf16>, tensor<256x50xbf16> -> tensor<30x50xf32>
  return %d : tensor<30x50xf32>
}

func.func @split_batched(%a: tensor<2x17x96xbf16>, %b: tensor<2x96x33xbf16>) -> tensor<2x17x33xf32> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 2, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<2x17x96xbf16>, tensor<2x96x33xbf16> -> tensor<2x17x33xf32>
  return %d : tensor<2x17x33xf32>
}

func.func @split_more_than_k_tiles(%a: tensor<16x20xbf16>, %b: tensor<20x16xbf16>) -> tensor<16x16xf32> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 4, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<16x20xbf16>, tensor<20x16xbf16> -> tensor<16x16xf32>
  return %d : tensor<16x16xf32>
}

// Three wgmma consumer warpgroups: the reduction runs their 12 warps.
func.func @m192_n96_split_k(%a: tensor<64x1024xbf16>, %b: tensor<200x1024xbf16>) -> tensor<64x200xf32> {
  %d = kgen.gemm %a, %b {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 192, block_n = 96, block_k = 64, warps_m = 12, warps_n = 1, stages = 2, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 4, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<64x1024xbf16>, tensor<200x1024xbf16> -> tensor<64x200xf32>
  return %d : tensor<64x200xf32>
}
