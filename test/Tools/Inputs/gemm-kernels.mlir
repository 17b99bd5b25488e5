// GEMMs of every family, for the mutation fuzzers of the GEMM passes and
// the CUDA emitter.
func.func @main(%a: tensor<37x64xbf16>, %b: tensor<48x64xbf16>, %bias: tensor<48xf32>,
                %x: tensor<100x96xf16>, %w: tensor<96x64xf16>, %c: tensor<100x64xf16>,
                %p: tensor<33x20xf32>, %q: tensor<20x17xf32>)
    -> (tensor<37x48xbf16>, tensor<100x64xf16>, tensor<33x17xf32>) {
  %d = kgen.gemm %a, %b bias(%bias : tensor<48xf32>) {transpose_b, activation = #kgen.activation<gelu>, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 64, block_k = 64, warps_m = 4, warps_n = 1, stages = 3, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<37x64xbf16>, tensor<48x64xbf16> -> tensor<37x48xbf16>
  %e = kgen.gemm %x, %w residual(%c : tensor<100x64xf16>) {beta = 0.5 : f32, config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 32, block_k = 32, warps_m = 2, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 2, raster_group = 2, epilogue_vector = 8, source = user>} : tensor<100x96xf16>, tensor<96x64xf16> -> tensor<100x64xf16>
  %f = kgen.gemm %p, %q : tensor<33x20xf32>, tensor<20x17xf32> -> tensor<33x17xf32>
  return %d, %e, %f : tensor<37x48xbf16>, tensor<100x64xf16>, tensor<33x17xf32>
}
