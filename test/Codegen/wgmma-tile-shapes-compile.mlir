// wgmma tile shapes past 64/128/256 (issue 11): every N the instruction has
// that the tile layout serves (K-major B: multiples of 8 to 256; MN-major B:
// whole 64-column swizzle blocks) and three consumer warpgroups (block_m 192,
// FlashAttention-3's and CUTLASS's split of registers: 32 producer / 160
// consumer). Each compiles with nvcc for sm_90a with no stack and no spills,
// with the shapes in the PTX; the CPU check of the same tilings is in
// test/Run/tiled-gemm.mlir.
// REQUIRES: nvcc
// RUN: kgen-opt %s --kgen-lower-gemm-to-tiles | kgen-translate --kgen-emit-cuda -o %t.cu
// RUN: FileCheck %s --check-prefix=CUDA < %t.cu
// RUN: %nvcc -gencode arch=compute_90a,code=sm_90a -Xptxas -v -c %t.cu -o %t.o 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %nvcc -gencode arch=compute_90a,code=compute_90a -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// CUDA-LABEL: kgen_gemm_bf16_m200_n300_k256(
// CUDA: using Pipeline = kgen::block::WgmmaPipeline<__nv_bfloat16, 128, 96, 4, false, true>;
// CUDA-LABEL: kgen_gemm_f16_m130_n330_k192(
// CUDA: using Pipeline = kgen::block::WgmmaPipeline<__half, 128, 160, 3, false, true>;
// CUDA-LABEL: kgen_gemm_bf16_m260_n500_k128(
// CUDA: using Pipeline = kgen::block::WgmmaPipeline<__nv_bfloat16, 128, 224, 3, false, true, 2>;
// CUDA-LABEL: kgen_gemm_bf16_m400_n400_k192(
// CUDA: using Pipeline = kgen::block::WgmmaPipeline<__nv_bfloat16, 192, 192, 3, false, false>;
// CUDA-NEXT: static_assert(Pipeline::kThreads == 512,
// CUDA-NEXT: static_assert(Pipeline::kSmemBytes == 148528,
// CUDA-LABEL: kgen_gemm_f8E4M3FN_m200_n260_k256(
// CUDA: using Pipeline = kgen::block::WgmmaPipeline<__nv_fp8_e4m3, 192, 128, 4, false, true>;
// CUDA-LABEL: kgen_gemm_bf16_m64_n200_k1024(
// CUDA: using Pipeline = kgen::block::WgmmaPipeline<__nv_bfloat16, 192, 96, 2, false, true>;
// CUDA-LABEL: kgen_gemm_bf16_m64_n200_k1024_splitk_reduce(
// CUDA: kgen::block::SimtAccumulator<192, 96, 12, 1> acc;
// PTXAS-NOT: warning
// PTXAS-NOT: {{[1-9][0-9]*}} bytes stack frame
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
// PTXAS: Compiling entry function
// PTXAS-NOT: warning
// PTXAS-NOT: {{[1-9][0-9]*}} bytes stack frame
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n96k16.f32.bf16.bf16
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n160k16.f32.f16.f16
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n224k16.f32.bf16.bf16
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 32
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 160
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 40
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 232

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

func.func @m192_n96_split_k(%a: tensor<64x1024xbf16>, %b: tensor<200x1024xbf16>) -> tensor<64x200xbf16> {
  %d = kgen.gemm %a, %b {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 192, block_n = 96, block_k = 64, warps_m = 12, warps_n = 1, stages = 2, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 4, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<64x1024xbf16>, tensor<200x1024xbf16> -> tensor<64x200xbf16>
  return %d : tensor<64x200xbf16>
}
