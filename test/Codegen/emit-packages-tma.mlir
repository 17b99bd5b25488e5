// A wgmma gemm in clusters of two blocks along M: the package launches with
// cluster dimensions (2, 1, 1) over a grid of whole clusters (the tile rows
// padded to an even count), and K-major B's tensor map has a box of half
// the tile's rows, the band each block loads and multicasts. kgen-bench
// loads, validates and compiles it. A batched gemm's maps are 3-D, their
// boxes one plane.
// REQUIRES: kgen-bench
// RUN: rm -rf %t && kgen-opt %s --kgen-lower-gemm-to-tiles --kgen-emit-packages=output-dir=%t -o /dev/null
// RUN: FileCheck %s < %t/kgen_gemm_bf16_m300_n1000_k512/manifest.json
// RUN: FileCheck %s --check-prefix=BATCHED < %t/kgen_gemm_bf16_b3_m200_n320_k128/manifest.json
// RUN: kgen-bench compile %t/kgen_gemm_bf16_m300_n1000_k512 %t/kgen_gemm_bf16_b3_m200_n320_k128 --cache %t.cache | FileCheck %s --check-prefix=COMPILE
// CHECK: "cluster_m": 2,
// CHECK: "kernels": [
// CHECK: "cluster": [
// CHECK-NEXT: 2,
// CHECK-NEXT: 1,
// CHECK-NEXT: 1
// CHECK-NEXT: ],
// CHECK: "grid": [
// CHECK-NEXT: 16,
// CHECK: "box": [
// CHECK-NEXT: 128,
// CHECK-NEXT: 64
// CHECK-NEXT: ],
// CHECK-NEXT: "kind": "tma_descriptor",
// CHECK-NEXT: "name": "tma_A",
// CHECK: "box": [
// CHECK-NEXT: 128,
// CHECK-NEXT: 64
// CHECK-NEXT: ],
// CHECK-NEXT: "kind": "tma_descriptor",
// CHECK-NEXT: "name": "tma_B",
// BATCHED: "box": [
// BATCHED-NEXT: 1,
// BATCHED-NEXT: 128,
// BATCHED-NEXT: 64
// BATCHED-NEXT: ],
// BATCHED-NEXT: "kind": "tma_descriptor",
// BATCHED-NEXT: "name": "tma_A",
// BATCHED: "box": [
// BATCHED-NEXT: 1,
// BATCHED-NEXT: 64,
// BATCHED-NEXT: 64
// BATCHED-NEXT: ],
// BATCHED-NEXT: "kind": "tma_descriptor",
// BATCHED-NEXT: "name": "tma_B",
// COMPILE-DAG: kgen_gemm_bf16_m300_n1000_k512 sm_90a {{[0-9]+}} 0+{{[0-9]+}} 0 0/0
// COMPILE-DAG: kgen_gemm_bf16_b3_m200_n320_k128 sm_90a {{[0-9]+}} 0+{{[0-9]+}} 0 0/0

func.func @cluster(%a: tensor<300x512xbf16>, %b: tensor<1000x512xbf16>) -> tensor<300x1000xbf16> {
  %d = kgen.gemm %a, %b {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<300x512xbf16>, tensor<1000x512xbf16> -> tensor<300x1000xbf16>
  return %d : tensor<300x1000xbf16>
}

func.func @batched(%a: tensor<3x200x128xbf16>, %b: tensor<3x128x320xbf16>) -> tensor<3x200x320xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<3x200x128xbf16>, tensor<3x128x320xbf16> -> tensor<3x200x320xbf16>
  return %d : tensor<3x200x320xbf16>
}
