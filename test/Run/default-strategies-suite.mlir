// The tile form of every default strategy (kgen-select-strategy, no
// database) for the GEMM suite's decode and prefill shapes
// (bench/suites/gemm.json), on sm_80 and sm_90a, against the reference on
// the CPU. Shrunk where the CPU needs it but with the grid the real shape
// gets (see Inputs/check_default_strategies.py): decode keeps M and N (the
// real blocks and split-K count) and runs one K tile per split; prefill
// keeps M (every tile row and raster group) and runs two tile columns.
// The functions below run at full size with the configs the default
// strategy gave them when kgen-run crashed on them (a stack that grew with
// the grid, issue 11): the decode GEMM with split-K 16 and the 1024 x 1024
// x 64 GEMM on both targets.
// RUN: %python %S/Inputs/check_default_strategies.py %t --suite %kgen_src_root/bench/suites/gemm.json --module %s | FileCheck %s
//
// CHECK-DAG: sm_90a report_decode_split16: OK rel_frob={{[0-9.e+-]+}} 1x1000x4096 tile 64x128x64 stages 6 split_k 16 raster 8 grid [8, 16, 1]
// CHECK-DAG: sm_80 report_square_sm80: OK rel_frob=0.000e+00 1024x1024x64 tile 128x128x32 stages 4 split_k 1 raster 8 grid [64, 1, 1]
// CHECK-DAG: sm_90a report_square_sm90a: OK rel_frob=0.000e+00 1024x1024x64 tile 128x256x64 stages 4 split_k 1 raster 8 grid [32, 1, 1]
// A decode shape keeps its grid (no "real" grid printed beside it) whatever
// the strategy; a prefill shape keeps its tile rows.
// CHECK-DAG: sm_90a llama3_8b_gate_up_m1: OK {{.*}} 1x14336x{{[0-9]+}} of 1x14336x4096 {{.*}} grid [{{[0-9]+}}, {{[0-9]+}}, 1]{{$}}
// CHECK-DAG: sm_80 deepseek_v3_kv_a_m16: OK {{.*}} 16x576x{{[0-9]+}} of 16x576x7168 {{.*}} grid [{{[0-9]+}}, {{[0-9]+}}, 1]{{$}}
// CHECK-DAG: sm_90a llama3_70b_gate_up_m4096: OK {{.*}} 4096x{{[0-9]+}}x{{[0-9]+}} of 4096x28672x8192 {{.*}} grid [{{[0-9]+}}, 1, 1] (real [{{[0-9]+}}, 1, 1])
// CHECK-DAG: sm_80: [[N80:[0-9]+]] of [[N80]] gemms OK
// CHECK-DAG: sm_90a: [[N90:[0-9]+]] of [[N90]] gemms OK
// CHECK-NOT: MISMATCH

func.func @report_decode_split16(%x: tensor<1x4096xbf16>, %w: tensor<1000x4096xbf16>) -> tensor<1x1000xbf16> {
  %y = kgen.gemm %x, %w {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 128, block_k = 64, warps_m = 4, warps_n = 1, stages = 6, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 16, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<1x4096xbf16>, tensor<1000x4096xbf16> -> tensor<1x1000xbf16>
  return %y : tensor<1x1000xbf16>
}

func.func @report_square_sm80(%x: tensor<1024x64xbf16>, %w: tensor<64x1024xbf16>) -> tensor<1024x1024xbf16> {
  %y = kgen.gemm %x, %w {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<1024x64xbf16>, tensor<64x1024xbf16> -> tensor<1024x1024xbf16>
  return %y : tensor<1024x1024xbf16>
}

func.func @report_square_sm90a(%x: tensor<1024x64xbf16>, %w: tensor<64x1024xbf16>) -> tensor<1024x1024xbf16> {
  %y = kgen.gemm %x, %w {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>} : tensor<1024x64xbf16>, tensor<64x1024xbf16> -> tensor<1024x1024xbf16>
  return %y : tensor<1024x1024xbf16>
}
