// kgen-lower-gemm-to-tiles reads the strategy, it does not choose one: a
// gemm without a #kgen.gemm_config is refused, naming the pass to run first.
// RUN: kgen-opt %s --split-input-file --kgen-lower-gemm-to-tiles --verify-diagnostics

func.func @no_config(%a: tensor<64x32xbf16>, %b: tensor<32x16xbf16>) -> tensor<64x16xbf16> {
  // expected-error @+1 {{'kgen.gemm' op has no #kgen.gemm_config: run kgen-select-strategy first}}
  %d = kgen.gemm %a, %b : tensor<64x32xbf16>, tensor<32x16xbf16> -> tensor<64x16xbf16>
  return %d : tensor<64x16xbf16>
}

// -----

// A config on one gemm does not stand for another.
func.func @second_without_config(%a: tensor<64x32xbf16>, %b: tensor<32x16xbf16>) -> tensor<64x16xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 16, block_k = 32, warps_m = 2, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<64x32xbf16>, tensor<32x16xbf16> -> tensor<64x16xbf16>
  // expected-error @+1 {{'kgen.gemm' op has no #kgen.gemm_config: run kgen-select-strategy first}}
  %e = kgen.gemm %a, %b : tensor<64x32xbf16>, tensor<32x16xbf16> -> tensor<64x16xbf16>
  return %e : tensor<64x16xbf16>
}
