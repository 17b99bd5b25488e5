// wgmma kernels (sm_90a): the warp-specialised TMA + wgmma pipeline, every
// operand layout, decode and prefill tiles, split-K; each compiles with
// nvcc with no stack and no spills, and the PTX has the Hopper path:
// bulk tensor copies on mbarriers, wgmma, setmaxnreg for the producer and
// consumer warpgroups.
// REQUIRES: nvcc
// RUN: kgen-opt %s --kgen-lower-gemm-to-tiles | kgen-translate --kgen-emit-cuda -o %t.cu
// RUN: FileCheck %s --check-prefix=CUDA < %t.cu
// RUN: %nvcc -gencode arch=compute_90a,code=sm_90a -Xptxas -v -c %t.cu -o %t.o 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %nvcc -gencode arch=compute_90a,code=compute_90a -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// CUDA-LABEL: kgen_gemm_bf16_m300_n520_k200(
// CUDA: const __grid_constant__ CUtensorMap tma_A,
// CUDA-NEXT: const __grid_constant__ CUtensorMap tma_B) {
// CUDA: using Pipeline = kgen::block::WgmmaPipeline<__nv_bfloat16, 128, 256, 4, false, true>;
// CUDA: const bool consumer = Pipeline::run(&tma_A, &tma_B, m0, n0, kt_begin, kt_end, acc.v);
// CUDA-NEXT: if (consumer) acc.epilogue<kgen::cuda::Act::Silu, true, false>(D, 520, m0, n0, 300, 520, bias,
// PTXAS-NOT: warning
// PTXAS-NOT: {{[1-9][0-9]*}} bytes stack frame
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
// PTXAS: Compiling entry function
// PTXAS-NOT: warning
// PTXAS-NOT: {{[1-9][0-9]*}} bytes stack frame
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
// PTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX-DAG: mbarrier.try_wait.parity.shared::cta.b64
// PTX-DAG: setmaxnreg.dec.sync.aligned.u32 40
// PTX-DAG: setmaxnreg.inc.sync.aligned.u32 232
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3
// Clusters of 2 along M sharing B through TMA multicast (K-major B in row
// bands, MN-major B in column blocks), remote releases of the stages, and
// the cluster barriers at the start and the end.
// CUDA-LABEL: kgen_gemm_bf16_m300_n1000_k512(
// CUDA: using Pipeline = kgen::block::WgmmaPipeline<__nv_bfloat16, 128, 256, 4, false, true, 2>;
// CUDA: Pipeline::finish(); // the cluster's blocks leave together
// CUDA-NEXT: }
// CUDA-LABEL: kgen_gemm_f16_m256_n384_k512(
// CUDA: using Pipeline = kgen::block::WgmmaPipeline<__half, 128, 128, 5, false, false, 2>;
// PTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
// PTX-DAG: mbarrier.arrive.release.cluster.shared::cluster.b64
// PTX-DAG: barrier.cluster.arrive.release.aligned
// PTX-DAG: barrier.cluster.wait.acquire.aligned
// PTX-DAG: %cluster_nctarank
// Batched operands through 3-D tensor maps: both batched, and A batched
// with B broadcast over the batch.
// CUDA-LABEL: kgen_gemm_bf16_b3_m200_n320_k128(
// CUDA: using Pipeline = kgen::block::WgmmaPipeline<__nv_bfloat16, 128, 256, 4, false, false, 1, true, true>;
// CUDA: const bool consumer = Pipeline::run(&tma_A, &tma_B, m0, n0, kt_begin, kt_end, acc.v, bz);
// CUDA-LABEL: kgen_gemm_bf16_b4_m64_n512_k256(
// CUDA: using Pipeline = kgen::block::WgmmaPipeline<__nv_bfloat16, 64, 128, 6, false, true, 1, true, false>;
// PTX-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes

func.func @prefill_nt(%a: tensor<300x200xbf16>, %b: tensor<520x200xbf16>, %bias: tensor<520xf32>) -> tensor<300x520xbf16> {
  %d = kgen.gemm %a, %b bias(%bias : tensor<520xf32>) {transpose_b, activation = #kgen.activation<silu>, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<300x200xbf16>, tensor<520x200xbf16> -> tensor<300x520xbf16>
  return %d : tensor<300x520xbf16>
}

func.func @f16_nn(%a: tensor<96x192xf16>, %b: tensor<192x256xf16>, %c: tensor<96x256xf32>) -> tensor<96x256xf32> {
  %d = kgen.gemm %a, %b residual(%c : tensor<96x256xf32>) {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 128, block_k = 64, warps_m = 4, warps_n = 1, stages = 6, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 4, source = user>} : tensor<96x192xf16>, tensor<192x256xf16> -> tensor<96x256xf32>
  return %d : tensor<96x256xf32>
}

func.func @bf16_tt(%a: tensor<128x64xbf16>, %b: tensor<64x128xbf16>) -> tensor<64x64xbf16> {
  %d = kgen.gemm %a, %b {transpose_a, transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 64, block_k = 64, warps_m = 4, warps_n = 1, stages = 3, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<64x64xbf16>
  return %d : tensor<64x64xbf16>
}

func.func @decode_split_k(%a: tensor<16x4096xbf16>, %b: tensor<1024x4096xbf16>) -> tensor<16x1024xbf16> {
  %d = kgen.gemm %a, %b {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 128, block_k = 64, warps_m = 4, warps_n = 1, stages = 6, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 4, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<16x4096xbf16>, tensor<1024x4096xbf16> -> tensor<16x1024xbf16>
  return %d : tensor<16x1024xbf16>
}

func.func @fp8_nt(%a: tensor<200x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>) -> tensor<200x384xbf16> {
  %d = kgen.gemm %a, %b {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 128, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<200x512xf8E4M3FN>, tensor<384x512xf8E4M3FN> -> tensor<200x384xbf16>
  return %d : tensor<200x384xbf16>
}

func.func @cluster_tn(%a: tensor<300x512xbf16>, %b: tensor<1000x512xbf16>) -> tensor<300x1000xbf16> {
  %d = kgen.gemm %a, %b {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<300x512xbf16>, tensor<1000x512xbf16> -> tensor<300x1000xbf16>
  return %d : tensor<300x1000xbf16>
}

func.func @cluster_nn(%a: tensor<256x512xf16>, %b: tensor<512x384xf16>) -> tensor<256x384xf32> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 128, block_k = 64, warps_m = 8, warps_n = 1, stages = 5, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 4, source = user>} : tensor<256x512xf16>, tensor<512x384xf16> -> tensor<256x384xf32>
  return %d : tensor<256x384xf32>
}

func.func @batched(%a: tensor<3x200x128xbf16>, %b: tensor<3x128x320xbf16>) -> tensor<3x200x320xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<3x200x128xbf16>, tensor<3x128x320xbf16> -> tensor<3x200x320xbf16>
  return %d : tensor<3x200x320xbf16>
}

func.func @batched_broadcast_b(%a: tensor<4x64x256xbf16>, %b: tensor<512x256xbf16>) -> tensor<4x64x512xbf16> {
  %d = kgen.gemm %a, %b {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 128, block_k = 64, warps_m = 4, warps_n = 1, stages = 6, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<4x64x256xbf16>, tensor<512x256xbf16> -> tensor<4x64x512xbf16>
  return %d : tensor<4x64x512xbf16>
}
