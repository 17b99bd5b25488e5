// Kernels with an sm_90a target compile for sm_90a (fp8 mma.sync needs
// sm_89+): no stack frame, no spills, and the e4m3 mma in the PTX.
// REQUIRES: nvcc
// RUN: kgen-opt %s --kgen-lower-gemm-to-tiles | kgen-translate --kgen-emit-cuda -o %t.cu
// RUN: %nvcc -gencode arch=compute_90a,code=sm_90a -Xptxas -v -c %t.cu -o %t.o 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %nvcc -gencode arch=compute_90a,code=compute_90a -ptx %t.cu -o - | FileCheck %s --check-prefix=PTX
// PTXAS-NOT: warning
// PTXAS: Compiling entry function 'kgen_gemm_f8E4M3FN_m64_n128_k256' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTX: cp.async.cg.shared.global
// PTX: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
// PTX: cvt.rn.satfinite.e4m3x2.f32

func.func @fp8_mma_hopper(%a: tensor<64x256xf8E4M3FN>, %b: tensor<128x256xf8E4M3FN>) -> tensor<64x128xf8E4M3FN> {
  %d = kgen.gemm %a, %b {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = mma_sync, block_m = 64, block_n = 64, block_k = 64, warps_m = 2, warps_n = 2, stages = 3, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 16, source = user>} : tensor<64x256xf8E4M3FN>, tensor<128x256xf8E4M3FN> -> tensor<64x128xf8E4M3FN>
  return %d : tensor<64x128xf8E4M3FN>
}
