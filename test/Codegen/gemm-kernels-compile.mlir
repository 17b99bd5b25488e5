// Every kernel kgen emits for the simt and mma_sync families compiles with
// nvcc for sm_80 and sm_90a, and ptxas reports no stack frame and no spills.
// REQUIRES: nvcc
// RUN: kgen-opt %s --kgen-lower-gemm-to-tiles | kgen-translate --kgen-emit-cuda -o %t.cu
// RUN: %nvcc -gencode arch=compute_80,code=sm_80 -Xptxas -v -c %t.cu -o %t.sm80.o 2>&1 | FileCheck %s --check-prefixes=PTXAS,SM80
// RUN: %nvcc -gencode arch=compute_90a,code=sm_90a -Xptxas -v -c %t.cu -o %t.sm90a.o 2>&1 | FileCheck %s --check-prefixes=PTXAS,SM90A
// PTXAS-NOT: warning
// PTXAS-NOT: {{[1-9][0-9]*}} bytes stack frame
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
// SM80: Compiling entry function 'kgen_gemm_bf16_m37_n45_k29' for 'sm_80'
// SM90A: Compiling entry function 'kgen_gemm_bf16_m37_n45_k29' for 'sm_90a'
// PTXAS-NOT: warning
// PTXAS-NOT: {{[1-9][0-9]*}} bytes stack frame
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill

func.func @bf16_epilogue(%a: tensor<37x29xbf16>, %b: tensor<29x45xbf16>, %bias: tensor<45xf32>, %c: tensor<37x45xbf16>) -> tensor<37x45xbf16> {
  %d = kgen.gemm %a, %b bias(%bias : tensor<45xf32>) residual(%c : tensor<37x45xbf16>) {alpha = 2.0 : f32, beta = 0.5 : f32, activation = #kgen.activation<gelu>, config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 3, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<37x29xbf16>, tensor<29x45xbf16> -> tensor<37x45xbf16>
  return %d : tensor<37x45xbf16>
}

func.func @f16_nn(%a: tensor<100x72xf16>, %b: tensor<72x96xf16>) -> tensor<100x96xf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<100x72xf16>, tensor<72x96xf16> -> tensor<100x96xf16>
  return %d : tensor<100x96xf16>
}

func.func @f16_tn(%a: tensor<72x100xf16>, %b: tensor<72x96xf16>) -> tensor<100x96xf16> {
  %d = kgen.gemm %a, %b {transpose_a, config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<72x100xf16>, tensor<72x96xf16> -> tensor<100x96xf16>
  return %d : tensor<100x96xf16>
}

func.func @f16_nt(%a: tensor<100x72xf16>, %b: tensor<96x72xf16>) -> tensor<100x96xf16> {
  %d = kgen.gemm %a, %b {transpose_b, activation = #kgen.activation<silu>, config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<100x72xf16>, tensor<96x72xf16> -> tensor<100x96xf16>
  return %d : tensor<100x96xf16>
}

func.func @f16_tt(%a: tensor<72x100xf16>, %b: tensor<96x72xf16>) -> tensor<100x96xf16> {
  %d = kgen.gemm %a, %b {transpose_a, transpose_b, config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<72x100xf16>, tensor<96x72xf16> -> tensor<100x96xf16>
  return %d : tensor<100x96xf16>
}

func.func @tf32_mma(%a: tensor<40x36xf32>, %b: tensor<36x64xf32>) -> tensor<40x64xf32> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 32, block_k = 8, warps_m = 2, warps_n = 2, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 4, source = user>} : tensor<40x36xf32>, tensor<36x64xf32> -> tensor<40x64xf32>
  return %d : tensor<40x64xf32>
}

func.func @f32_simt(%a: tensor<50x90xf32>, %b: tensor<90x70xf32>) -> tensor<50x70xf32> {
  %d = kgen.gemm %a, %b {activation = #kgen.activation<relu>, config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 64, block_n = 64, block_k = 16, warps_m = 2, warps_n = 4, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 4, source = user>} : tensor<50x90xf32>, tensor<90x70xf32> -> tensor<50x70xf32>
  return %d : tensor<50x70xf32>
}

func.func @fp8_simt(%a: tensor<33x48xf8E4M3FN>, %b: tensor<48x64xf8E4M3FN>) -> tensor<33x64xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 32, block_n = 32, block_k = 16, warps_m = 2, warps_n = 2, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<33x48xf8E4M3FN>, tensor<48x64xf8E4M3FN> -> tensor<33x64xbf16>
  return %d : tensor<33x64xbf16>
}

func.func @batched_broadcast(%a: tensor<3x19x40xbf16>, %b: tensor<40x32xbf16>) -> tensor<3x19x32xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 32, block_k = 16, warps_m = 2, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<3x19x40xbf16>, tensor<40x32xbf16> -> tensor<3x19x32xbf16>
  return %d : tensor<3x19x32xbf16>
}

func.func @split_k(%a: tensor<30x512xbf16>, %b: tensor<512x64xbf16>, %bias: tensor<64xf32>) -> tensor<30x64xf32> {
  %d = kgen.gemm %a, %b bias(%bias : tensor<64xf32>) {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 32, block_k = 32, warps_m = 1, warps_n = 2, stages = 3, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 2, raster_group = 8, epilogue_vector = 4, source = user>} : tensor<30x512xbf16>, tensor<512x64xbf16> -> tensor<30x64xf32>
  return %d : tensor<30x64xf32>
}

func.func @default_sm80_shape(%a: tensor<256x384xbf16>, %b: tensor<384x512xbf16>) -> tensor<256x512xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<256x384xbf16>, tensor<384x512xbf16> -> tensor<256x512xbf16>
  return %d : tensor<256x512xbf16>
}
