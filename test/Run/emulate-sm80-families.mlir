// The sm_80 families' emitted CUDA on the emulated device, each compared
// with the op's reference semantics (kgen-run) on the same inputs: simt and
// mma_sync (bf16, f16, tf32, e4m3), all four transpositions, a fused
// epilogue (bias, residual, activation), a batch with and without
// broadcast B, split-K (its two kernels), partial tiles in M, N and K
// everywhere (no dimension is a multiple of its tile). Bit for bit, as the
// tile-level check is, except where the hardware computes otherwise than
// the reference, which are compared within a tolerance: split-K (another
// summation order), tf32 (the kernel rounds its inputs to tf32), f32 simt
// (the kernel's fmaf rounds once where the reference's mulf + addf round
// twice; products of 16-bit and 8-bit types are exact, so bf16 simt is bit
// for bit).
// Two functions are checked at once (--jobs=2; the lines keep their order).
// RUN: rm -rf %t && %python %S/Inputs/check_emulated.py %s %t --jobs=2 | FileCheck %s
// CHECK-DAG: nn_bf16: mma_sync emulated ok, reference OK rel_frob=0.000e+00
// CHECK-DAG: tn_f16_f32out: mma_sync emulated ok, reference OK rel_frob=0.000e+00
// CHECK-DAG: nt_bf16: mma_sync emulated ok, reference OK rel_frob=0.000e+00
// CHECK-DAG: tt_bf16: mma_sync emulated ok, reference OK rel_frob=0.000e+00
// CHECK-DAG: tf32: mma_sync emulated ok, reference OK
// CHECK-DAG: e4m3: mma_sync emulated ok, reference OK rel_frob=0.000e+00
// CHECK-DAG: simt_f32: simt emulated ok, reference OK
// CHECK-DAG: simt_bf16_tt: simt emulated ok, reference OK rel_frob=0.000e+00
// CHECK-DAG: epilogue: mma_sync emulated ok, reference OK rel_frob=0.000e+00
// CHECK-DAG: batched: mma_sync emulated ok, reference OK rel_frob=0.000e+00
// CHECK-DAG: broadcast_b: mma_sync emulated ok, reference OK rel_frob=0.000e+00
// CHECK-DAG: split_k: mma_sync emulated ok, reference OK
// CHECK-DAG: few_k_tiles: mma_sync emulated ok, reference OK rel_frob=0.000e+00
// CHECK-DAG: few_k_tiles_simt: simt emulated ok, reference OK rel_frob=0.000e+00

func.func @nn_bf16(%a: tensor<33x40xbf16>, %b: tensor<40x17xbf16>) -> tensor<33x17xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<33x40xbf16>, tensor<40x17xbf16> -> tensor<33x17xbf16>
  return %d : tensor<33x17xbf16>
}
func.func @tn_f16_f32out(%a: tensor<72x65xf16>, %b: tensor<72x40xf16>) -> tensor<65x40xf32> {
  %d = kgen.gemm %a, %b {transpose_a, config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 32, block_k = 32, warps_m = 2, warps_n = 1, stages = 3, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<72x65xf16>, tensor<72x40xf16> -> tensor<65x40xf32>
  return %d : tensor<65x40xf32>
}
func.func @nt_bf16(%a: tensor<50x48xbf16>, %b: tensor<30x48xbf16>) -> tensor<50x30xbf16> {
  %d = kgen.gemm %a, %b {transpose_b, config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 32, block_k = 16, warps_m = 2, warps_n = 2, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<50x48xbf16>, tensor<30x48xbf16> -> tensor<50x30xbf16>
  return %d : tensor<50x30xbf16>
}
func.func @tt_bf16(%a: tensor<24x19xbf16>, %b: tensor<21x24xbf16>) -> tensor<19x21xbf16> {
  %d = kgen.gemm %a, %b {transpose_a, transpose_b, config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<24x19xbf16>, tensor<21x24xbf16> -> tensor<19x21xbf16>
  return %d : tensor<19x21xbf16>
}
// tolerance: 3e-3
func.func @tf32(%a: tensor<40x36xf32>, %b: tensor<36x24xf32>) -> tensor<40x24xf32> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 8, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 4, source = user>} : tensor<40x36xf32>, tensor<36x24xf32> -> tensor<40x24xf32>
  return %d : tensor<40x24xf32>
}
func.func @e4m3(%a: tensor<45x96xf8E4M3FN>, %b: tensor<26x96xf8E4M3FN>) -> tensor<45x26xbf16> {
  %d = kgen.gemm %a, %b {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = mma_sync, block_m = 32, block_n = 32, block_k = 32, warps_m = 2, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<45x96xf8E4M3FN>, tensor<26x96xf8E4M3FN> -> tensor<45x26xbf16>
  return %d : tensor<45x26xbf16>
}
// tolerance: 1e-6
func.func @simt_f32(%a: tensor<50x90xf32>, %b: tensor<90x70xf32>) -> tensor<50x70xf32> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 32, block_n = 32, block_k = 8, warps_m = 2, warps_n = 2, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 4, source = user>} : tensor<50x90xf32>, tensor<90x70xf32> -> tensor<50x70xf32>
  return %d : tensor<50x70xf32>
}
func.func @simt_bf16_tt(%a: tensor<29x23xbf16>, %b: tensor<31x29xbf16>) -> tensor<23x31xf32> {
  %d = kgen.gemm %a, %b {transpose_a, transpose_b, config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 32, block_n = 32, block_k = 8, warps_m = 2, warps_n = 2, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 4, source = user>} : tensor<29x23xbf16>, tensor<31x29xbf16> -> tensor<23x31xf32>
  return %d : tensor<23x31xf32>
}
func.func @epilogue(%a: tensor<37x29xbf16>, %b: tensor<29x45xbf16>, %bias: tensor<45xf32>, %c: tensor<37x45xbf16>) -> tensor<37x45xbf16> {
  %d = kgen.gemm %a, %b bias(%bias : tensor<45xf32>) residual(%c : tensor<37x45xbf16>) {beta = 0.5 : f32, activation = #kgen.activation<gelu>, config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<37x29xbf16>, tensor<29x45xbf16> -> tensor<37x45xbf16>
  return %d : tensor<37x45xbf16>
}
func.func @batched(%a: tensor<3x19x23xbf16>, %b: tensor<3x23x21xbf16>) -> tensor<3x19x21xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<3x19x23xbf16>, tensor<3x23x21xbf16> -> tensor<3x19x21xbf16>
  return %d : tensor<3x19x21xbf16>
}
func.func @broadcast_b(%a: tensor<2x27x23xbf16>, %b: tensor<23x22xbf16>) -> tensor<2x27x22xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<2x27x23xbf16>, tensor<23x22xbf16> -> tensor<2x27x22xbf16>
  return %d : tensor<2x27x22xbf16>
}
// tolerance: 1e-6
func.func @split_k(%a: tensor<30x256xbf16>, %b: tensor<256x50xbf16>, %bias: tensor<50xf32>, %c: tensor<30x50xf32>) -> tensor<30x50xf32> {
  %d = kgen.gemm %a, %b bias(%bias : tensor<50xf32>) residual(%c : tensor<30x50xf32>) {beta = 0.25 : f32, activation = #kgen.activation<silu>, config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 4, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<30x256xbf16>, tensor<256x50xbf16> -> tensor<30x50xf32>
  return %d : tensor<30x50xf32>
}

// Fewer K tiles than stages - 1 (one and two tiles, four stages): the
// prologue must still commit one cp.async group per stage, or the wait
// leaves tile k's copies in flight (found by the emulated device: an
// ldmatrix read a byte whose cp.async had not completed).
func.func @few_k_tiles(%a: tensor<40x56xbf16>, %b: tensor<56x24xbf16>) -> tensor<40x24xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, block_k = 64, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<40x56xbf16>, tensor<56x24xbf16> -> tensor<40x24xbf16>
  return %d : tensor<40x24xbf16>
}
func.func @few_k_tiles_simt(%a: tensor<20x24xbf16>, %b: tensor<24x36xbf16>) -> tensor<20x36xf32> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 32, block_n = 32, block_k = 16, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 4, source = user>} : tensor<20x24xbf16>, tensor<24x36xbf16> -> tensor<20x36xf32>
  return %d : tensor<20x36xf32>
}
