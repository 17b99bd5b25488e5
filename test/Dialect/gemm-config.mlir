// #kgen.gemm_config round-trips, in custom and generic form; every family,
// the optional entry, and a config on an op of each element type.
// RUN: kgen-opt %s --split-input-file | kgen-opt --split-input-file | FileCheck %s
// RUN: kgen-opt %s --split-input-file --mlir-print-op-generic | kgen-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @wgmma
// CHECK: kgen.gemm %{{.*}}, %{{.*}} {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>}
func.func @wgmma(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xbf16>, tensor<512x1024xbf16> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}

// -----

// CHECK-LABEL: func.func @mma_sync
// CHECK: kgen.gemm %{{.*}}, %{{.*}} {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>}
func.func @mma_sync(%a: tensor<256x512xf16>, %b: tensor<512x1024xf16>) -> tensor<256x1024xf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xf16>, tensor<512x1024xf16> -> tensor<256x1024xf16>
  return %d : tensor<256x1024xf16>
}

// -----

// CHECK-LABEL: func.func @simt
// CHECK: kgen.gemm %{{.*}}, %{{.*}} {config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 64, block_n = 64, block_k = 16, warps_m = 2, warps_n = 4, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>}
func.func @simt(%a: tensor<256x512xf32>, %b: tensor<512x1024xf32>) -> tensor<256x1024xf32> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 64, block_n = 64, block_k = 16, warps_m = 2, warps_n = 4, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<256x512xf32>, tensor<512x1024xf32> -> tensor<256x1024xf32>
  return %d : tensor<256x1024xf32>
}

// -----

// CHECK-LABEL: func.func @measured
// CHECK: kgen.gemm %{{.*}}, %{{.*}} {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 128, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = measured, entry = "h200/gemm/4096x4096x4096">, transpose_b}
func.func @measured(%a: tensor<256x512xf8E4M3FN>, %b: tensor<1024x512xf8E4M3FN>) -> tensor<256x1024xbf16> {
  %d = kgen.gemm %a, %b {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 128, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = measured, entry = "h200/gemm/4096x4096x4096">} : tensor<256x512xf8E4M3FN>, tensor<1024x512xf8E4M3FN> -> tensor<256x1024xbf16>
  return %d : tensor<256x1024xbf16>
}
