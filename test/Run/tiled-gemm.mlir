// Tile-level schedules checked on the CPU: each function's gemm, lowered with
// its hand-written config to a kgen.kernel (kgen-lower-gemm-to-tiles) and run
// block by block (kgen-lower-tiles-to-loops), must give exactly the
// reference's bits: same products, same k order, same epilogue expression.
// Edge shapes (M = 1, N = 3, K = 7, non-multiples of every tile), every
// transposition, batches with and without broadcast B, every instruction
// family's tiling (wgmma N of 96, 160 and 224 and three consumer
// warpgroups among them), one stage, more stages than K tiles,
// rasterisation groups, clusters (tile rows padded to whole clusters: the
// padding blocks load zeros and store nothing). Split-K, which changes the summation order, is in
// tiled-gemm-split-k.mlir.
// RUN: %python %S/Inputs/check_tiled.py %s %t | FileCheck %s
// CHECK-DAG: m1_n3_k7: OK rel_frob=0.000e+00
// CHECK-DAG: cluster_padded_rows: OK rel_frob=0.000e+00
// CHECK-DAG: odd_epilogue: OK rel_frob=0.000e+00
// CHECK-DAG: nn: OK rel_frob=0.000e+00
// CHECK-DAG: tn: OK rel_frob=0.000e+00
// CHECK-DAG: nt: OK rel_frob=0.000e+00
// CHECK-DAG: tt: OK rel_frob=0.000e+00
// CHECK-DAG: batched: OK rel_frob=0.000e+00
// CHECK-DAG: batch_broadcast_b: OK rel_frob=0.000e+00
// CHECK-DAG: f32_simt: OK rel_frob=0.000e+00
// CHECK-DAG: fp8_wgmma_big_tiles: OK rel_frob=0.000e+00
// CHECK-DAG: bf16_wgmma_decode: OK rel_frob=0.000e+00
// CHECK-DAG: one_stage: OK rel_frob=0.000e+00
// CHECK-DAG: stages_beyond_k: OK rel_frob=0.000e+00
// CHECK-DAG: raster_1: OK rel_frob=0.000e+00
// CHECK-DAG: raster_3: OK rel_frob=0.000e+00
// CHECK-DAG: tf32_mma: OK rel_frob=0.000e+00
// CHECK-DAG: n96_tn: OK rel_frob=0.000e+00
// CHECK-DAG: n160_tn_f16: OK rel_frob=0.000e+00
// CHECK-DAG: n224_tn_cluster: OK rel_frob=0.000e+00
// CHECK-DAG: m192_n192_nn: OK rel_frob=0.000e+00
// CHECK-DAG: m192_n128_fp8_tn: OK rel_frob=0.000e+00

func.func @m1_n3_k7(%a: tensor<1x7xbf16>, %b: tensor<7x3xbf16>) -> tensor<1x3xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<1x7xbf16>, tensor<7x3xbf16> -> tensor<1x3xbf16>
  return %d : tensor<1x3xbf16>
}

func.func @odd_epilogue(%a: tensor<37x29xbf16>, %b: tensor<29x45xbf16>, %bias: tensor<45xf32>, %c: tensor<37x45xbf16>) -> tensor<37x45xbf16> {
  %d = kgen.gemm %a, %b bias(%bias : tensor<45xf32>) residual(%c : tensor<37x45xbf16>) {alpha = 2.0 : f32, beta = 0.5 : f32, activation = #kgen.activation<gelu>, config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 3, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 2, epilogue_vector = 8, source = user>} : tensor<37x29xbf16>, tensor<29x45xbf16> -> tensor<37x45xbf16>
  return %d : tensor<37x45xbf16>
}

func.func @nn(%a: tensor<33x40xbf16>, %b: tensor<40x17xbf16>) -> tensor<33x17xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<33x40xbf16>, tensor<40x17xbf16> -> tensor<33x17xbf16>
  return %d : tensor<33x17xbf16>
}

func.func @tn(%a: tensor<40x33xbf16>, %b: tensor<40x17xbf16>) -> tensor<33x17xbf16> {
  %d = kgen.gemm %a, %b {transpose_a, config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<40x33xbf16>, tensor<40x17xbf16> -> tensor<33x17xbf16>
  return %d : tensor<33x17xbf16>
}

func.func @nt(%a: tensor<33x40xbf16>, %b: tensor<17x40xbf16>) -> tensor<33x17xbf16> {
  %d = kgen.gemm %a, %b {transpose_b, config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<33x40xbf16>, tensor<17x40xbf16> -> tensor<33x17xbf16>
  return %d : tensor<33x17xbf16>
}

func.func @tt(%a: tensor<40x33xbf16>, %b: tensor<17x40xbf16>) -> tensor<33x17xbf16> {
  %d = kgen.gemm %a, %b {transpose_a, transpose_b, activation = #kgen.activation<silu>, config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<40x33xbf16>, tensor<17x40xbf16> -> tensor<33x17xbf16>
  return %d : tensor<33x17xbf16>
}

func.func @batched(%a: tensor<3x19x23xbf16>, %b: tensor<3x23x21xbf16>) -> tensor<3x19x21xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<3x19x23xbf16>, tensor<3x23x21xbf16> -> tensor<3x19x21xbf16>
  return %d : tensor<3x19x21xbf16>
}

func.func @batch_broadcast_b(%a: tensor<3x19x23xbf16>, %b: tensor<23x21xbf16>) -> tensor<3x19x21xbf16> {
  %d = kgen.gemm %a, %b {activation = #kgen.activation<relu>, config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<3x19x23xbf16>, tensor<23x21xbf16> -> tensor<3x19x21xbf16>
  return %d : tensor<3x19x21xbf16>
}

func.func @f32_simt(%a: tensor<50x90xf32>, %b: tensor<90x70xf32>) -> tensor<50x70xf32> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 32, block_n = 32, block_k = 8, warps_m = 2, warps_n = 2, stages = 3, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 4, source = user>} : tensor<50x90xf32>, tensor<90x70xf32> -> tensor<50x70xf32>
  return %d : tensor<50x70xf32>
}

func.func @fp8_wgmma_big_tiles(%a: tensor<70x144xf8E4M3FN>, %b: tensor<304x144xf8E4M3FN>) -> tensor<70x304xbf16> {
  %d = kgen.gemm %a, %b {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 128, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<70x144xf8E4M3FN>, tensor<304x144xf8E4M3FN> -> tensor<70x304xbf16>
  return %d : tensor<70x304xbf16>
}

func.func @bf16_wgmma_decode(%a: tensor<3x296xbf16>, %b: tensor<296x200xbf16>) -> tensor<3x200xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 128, block_k = 64, warps_m = 4, warps_n = 1, stages = 6, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<3x296xbf16>, tensor<296x200xbf16> -> tensor<3x200xbf16>
  return %d : tensor<3x200xbf16>
}

func.func @one_stage(%a: tensor<20x50xbf16>, %b: tensor<50x20xbf16>) -> tensor<20x20xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 1, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<20x50xbf16>, tensor<50x20xbf16> -> tensor<20x20xbf16>
  return %d : tensor<20x20xbf16>
}

func.func @stages_beyond_k(%a: tensor<20x20xbf16>, %b: tensor<20x20xbf16>) -> tensor<20x20xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<20x20xbf16>, tensor<20x20xbf16> -> tensor<20x20xbf16>
  return %d : tensor<20x20xbf16>
}

func.func @raster_1(%a: tensor<100x16xbf16>, %b: tensor<16x100xbf16>) -> tensor<100x100xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 1, epilogue_vector = 8, source = user>} : tensor<100x16xbf16>, tensor<16x100xbf16> -> tensor<100x100xbf16>
  return %d : tensor<100x100xbf16>
}

func.func @raster_3(%a: tensor<100x16xbf16>, %b: tensor<16x100xbf16>) -> tensor<100x100xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 3, epilogue_vector = 8, source = user>} : tensor<100x16xbf16>, tensor<16x100xbf16> -> tensor<100x100xbf16>
  return %d : tensor<100x100xbf16>
}

func.func @tf32_mma(%a: tensor<40x36xf32>, %b: tensor<36x24xf32>) -> tensor<40x24xf32> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 8, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 4, source = user>} : tensor<40x36xf32>, tensor<36x24xf32> -> tensor<40x24xf32>
  return %d : tensor<40x24xf32>
}

// Three tile rows in clusters of two, raster groups of three: four rows
// (the last of padding) in groups of four.
func.func @cluster_padded_rows(%a: tensor<150x96xbf16>, %b: tensor<300x96xbf16>) -> tensor<150x300xbf16> {
  %d = kgen.gemm %a, %b {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 128, block_k = 64, warps_m = 4, warps_n = 1, stages = 2, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 3, epilogue_vector = 8, source = user>} : tensor<150x96xbf16>, tensor<300x96xbf16> -> tensor<150x300xbf16>
  return %d : tensor<150x300xbf16>
}

func.func @n96_tn(%a: tensor<200x256xbf16>, %b: tensor<300x256xbf16>) -> tensor<200x300xbf16> {
  %d = kgen.gemm %a, %b {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 96, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<200x256xbf16>, tensor<300x256xbf16> -> tensor<200x300xbf16>
  return %d : tensor<200x300xbf16>
}

func.func @n160_tn_f16(%a: tensor<130x192xf16>, %b: tensor<330x192xf16>) -> tensor<130x330xf32> {
  %d = kgen.gemm %a, %b {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 160, block_k = 64, warps_m = 8, warps_n = 1, stages = 3, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<130x192xf16>, tensor<330x192xf16> -> tensor<130x330xf32>
  return %d : tensor<130x330xf32>
}

func.func @n224_tn_cluster(%a: tensor<260x128xbf16>, %b: tensor<500x128xbf16>) -> tensor<260x500xbf16> {
  %d = kgen.gemm %a, %b {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 224, block_k = 64, warps_m = 8, warps_n = 1, stages = 3, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<260x128xbf16>, tensor<500x128xbf16> -> tensor<260x500xbf16>
  return %d : tensor<260x500xbf16>
}

func.func @m192_n192_nn(%a: tensor<400x192xbf16>, %b: tensor<192x400xbf16>) -> tensor<400x400xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 192, block_n = 192, block_k = 64, warps_m = 12, warps_n = 1, stages = 3, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<400x192xbf16>, tensor<192x400xbf16> -> tensor<400x400xbf16>
  return %d : tensor<400x400xbf16>
}

func.func @m192_n128_fp8_tn(%a: tensor<200x256xf8E4M3FN>, %b: tensor<260x256xf8E4M3FN>) -> tensor<200x260xbf16> {
  %d = kgen.gemm %a, %b {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 192, block_n = 128, block_k = 128, warps_m = 12, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<200x256xf8E4M3FN>, tensor<260x256xf8E4M3FN> -> tensor<200x260xbf16>
  return %d : tensor<200x260xbf16>
}
