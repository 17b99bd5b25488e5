// The six kernels of a kgen.moe package (route, rank, gather, the gated
// gate_up and the down grouped GEMMs, combine) compile with nvcc for sm_80
// and sm_90a with no stack frame and no spills, at the edges of the grouped
// GEMM legality (dialect/GroupedGemmLegality.cpp): the gated form at its
// register edge, 16-row decode tiles with one warp row, 128-row tiles, 4 to
// 16 warps, 4 stages, bf16 and f16, silu and gelu. The register counts in
// the comments are ptxas's (NVRTC, sm_80) from bench/moe-legality-sweep.py,
// which compiles every accepted config (docs/moe.md, "Legality from ptxas").
// REQUIRES: nvcc
// RUN: kgen-opt %s --kgen-lower-moe-to-tiles | kgen-translate --kgen-emit-cuda -o %t.cu
// RUN: %nvcc -gencode arch=compute_80,code=sm_80 -Xptxas -v -c %t.cu -o %t.sm80.o > %t.sm80.log 2>&1
// RUN: FileCheck %s --check-prefix=PTXAS < %t.sm80.log
// RUN: FileCheck %s --check-prefix=SM80 < %t.sm80.log
// RUN: %nvcc -gencode arch=compute_90a,code=sm_90a -Xptxas -v -c %t.cu -o %t.sm90a.o > %t.sm90a.log 2>&1
// RUN: FileCheck %s --check-prefix=PTXAS < %t.sm90a.log
// RUN: FileCheck %s --check-prefix=SM90A < %t.sm90a.log
// No kernel anywhere in ptxas's report has a stack frame or spills:
// PTXAS-NOT: warning
// PTXAS-NOT: {{[1-9][0-9]*}} bytes stack frame
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
// and all seven layers' six kernels were compiled:
// SM80-COUNT-42: Compiling entry function 'kgen_moe_{{[a-z0-9_]+}}' for 'sm_80'
// SM80-NOT: Compiling entry function
// SM90A-COUNT-42: Compiling entry function 'kgen_moe_{{[a-z0-9_]+}}' for 'sm_90a'
// SM90A-NOT: Compiling entry function

// The gated form at its register edge with one warp, gelu: 253 registers of
// 255 (silu: 252; down: 242).
func.func @gated_edge_one_warp(%x: tensor<64x512xbf16>, %l: tensor<64x8xf32>, %wg: tensor<8x512x512xbf16>, %wu: tensor<8x512x512xbf16>, %wd: tensor<8x512x512xbf16>) -> tensor<64x512xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {activation = #kgen.activation<gelu>, top_k = 2, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 32, block_k = 16, warps_m = 1, warps_n = 1, stages = 4, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, block_k = 16, warps_m = 1, warps_n = 1, stages = 4, source = user>}
      : tensor<64x512xbf16>, tensor<64x8xf32>, tensor<8x512x512xbf16>, tensor<8x512x512xbf16>, tensor<8x512x512xbf16> -> tensor<64x512xbf16>
  return %y : tensor<64x512xbf16>
}

// Two warps, 128 rows, 4 stages: the gated kernel at 252 registers (down:
// 244).
func.func @gated_edge_two_warps(%x: tensor<64x512xf16>, %l: tensor<64x8xf32>, %wg: tensor<8x512x512xf16>, %wu: tensor<8x512x512xf16>, %wd: tensor<8x512x512xf16>) -> tensor<64x512xf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2, gate_up_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 128, block_n = 32, block_k = 16, warps_m = 1, warps_n = 2, stages = 4, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 64, block_n = 128, block_k = 16, warps_m = 2, warps_n = 1, stages = 4, source = user>}
      : tensor<64x512xf16>, tensor<64x8xf32>, tensor<8x512x512xf16>, tensor<8x512x512xf16>, tensor<8x512x512xf16> -> tensor<64x512xf16>
  return %y : tensor<64x512xf16>
}

// 128-row tiles over 2 x 2 warps: 250 and 246 registers.
func.func @rows128_four_warps(%x: tensor<64x512xbf16>, %l: tensor<64x8xf32>, %wg: tensor<8x512x512xbf16>, %wu: tensor<8x512x512xbf16>, %wd: tensor<8x512x512xbf16>) -> tensor<64x512xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2, gate_up_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 128, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 4, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 4, source = user>}
      : tensor<64x512xbf16>, tensor<64x8xf32>, tensor<8x512x512xbf16>, tensor<8x512x512xbf16>, tensor<8x512x512xbf16> -> tensor<64x512xbf16>
  return %y : tensor<64x512xbf16>
}

// 128-row tiles over 2 x 4 warps, the widest B tiles: 242 and 234 registers.
func.func @rows128_eight_warps(%x: tensor<64x512xf16>, %l: tensor<64x8xf32>, %wg: tensor<8x512x512xf16>, %wu: tensor<8x512x512xf16>, %wd: tensor<8x512x512xf16>) -> tensor<64x512xf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 4, stages = 4, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 256, block_k = 32, warps_m = 2, warps_n = 4, stages = 4, source = user>}
      : tensor<64x512xf16>, tensor<64x8xf32>, tensor<8x512x512xf16>, tensor<8x512x512xf16>, tensor<8x512x512xf16> -> tensor<64x512xf16>
  return %y : tensor<64x512xf16>
}

// 16 warps (128 registers a thread at launch): 123 and 109.
func.func @rows128_sixteen_warps(%x: tensor<64x512xbf16>, %l: tensor<64x8xf32>, %wg: tensor<8x512x512xbf16>, %wu: tensor<8x512x512xbf16>, %wd: tensor<8x512x512xbf16>) -> tensor<64x512xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 64, block_k = 32, warps_m = 4, warps_n = 4, stages = 3, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 256, block_k = 32, warps_m = 4, warps_n = 4, stages = 3, source = user>}
      : tensor<64x512xbf16>, tensor<64x8xf32>, tensor<8x512x512xbf16>, tensor<8x512x512xbf16>, tensor<8x512x512xbf16> -> tensor<64x512xbf16>
  return %y : tensor<64x512xbf16>
}

// Decode: 16-row tiles with one warp row, one warp (137 and 183 registers).
func.func @decode_one_warp(%x: tensor<64x512xbf16>, %l: tensor<64x8xf32>, %wg: tensor<8x512x512xbf16>, %wu: tensor<8x512x512xbf16>, %wd: tensor<8x512x512xbf16>) -> tensor<64x512xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 64, block_k = 16, warps_m = 1, warps_n = 1, stages = 4, source = user>}
      : tensor<64x512xbf16>, tensor<64x8xf32>, tensor<8x512x512xbf16>, tensor<8x512x512xbf16>, tensor<8x512x512xbf16> -> tensor<64x512xbf16>
  return %y : tensor<64x512xbf16>
}

// Decode: 16-row tiles with one warp row over 4 warp columns, 4 stages (the
// heuristic's first legal decode tiles).
func.func @decode_four_warps(%x: tensor<64x512xf16>, %l: tensor<64x8xf32>, %wg: tensor<8x512x512xf16>, %wu: tensor<8x512x512xf16>, %wd: tensor<8x512x512xf16>) -> tensor<64x512xf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2, gate_up_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 64, block_k = 32, warps_m = 1, warps_n = 4, stages = 4, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 128, block_k = 32, warps_m = 1, warps_n = 4, stages = 4, source = user>}
      : tensor<64x512xf16>, tensor<64x8xf32>, tensor<8x512x512xf16>, tensor<8x512x512xf16>, tensor<8x512x512xf16> -> tensor<64x512xf16>
  return %y : tensor<64x512xf16>
}
