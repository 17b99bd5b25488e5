// kgen-emit-packages writes one package folder per op, named after its
// first kernel: kernel.cu (the tile primitives inlined: no kgen include
// left) and manifest.json, and leaves the IR as it was. A split-K gemm is one
// package of two kernels, its workspace W a parameter of role "workspace".
// With compile=false nothing is compiled and the manifest has no ptxas
// report (emit-packages-split-k.mlir and emit-packages-tma.mlir compile with
// NVRTC; the refusals are in emit-packages-errors.mlir and, for the
// emitter's own, emit-cuda-errors.mlir).
// The main kernels' shared memory is the lowering's (lower-gemm-to-tiles.mlir):
// DEFINE: %{smem} = -DSMEM_PLAIN=3072 -DSMEM_SPLIT_K=4096
// RUN: rm -rf %t && mkdir -p %t
// RUN: kgen-opt %s --kgen-lower-gemm-to-tiles -o %t/tiles.mlir
// RUN: kgen-opt %t/tiles.mlir --kgen-emit-packages="output-dir=%t/packages compile=false" -o %t/after.mlir
// RUN: diff %t/tiles.mlir %t/after.mlir
// RUN: ls %t/packages | FileCheck %s --check-prefix=DIRS
// RUN: ls %t/packages/kgen_gemm_f32_m40_n64_k96 | FileCheck %s --check-prefix=FILES
// RUN: FileCheck %s %{smem} --check-prefix=PLAIN --implicit-check-not='"resources"' < %t/packages/kgen_gemm_bf16_m37_n45_k29/manifest.json
// RUN: FileCheck %s %{smem} --check-prefix=SPLIT --implicit-check-not='"resources"' < %t/packages/kgen_gemm_f32_m40_n64_k96/manifest.json
// RUN: FileCheck %s --check-prefix=SRC --implicit-check-not='#include "kgen/' < %t/packages/kgen_gemm_f32_m40_n64_k96/kernel.cu
// RUN: %python -c "import hashlib, json, sys; d = sys.argv[1]; assert json.load(open(d + '/manifest.json'))['source_sha256'] == hashlib.sha256(open(d + '/kernel.cu', 'rb').read()).hexdigest()" %t/packages/kgen_gemm_f32_m40_n64_k96
//
// Emitting again into the same folder replaces the packages.
// RUN: kgen-opt %t/tiles.mlir --kgen-emit-packages="output-dir=%t/packages compile=false" -o /dev/null
// RUN: ls %t/packages | FileCheck %s --check-prefix=DIRS
// RUN: ls %t/packages/kgen_gemm_f32_m40_n64_k96 | FileCheck %s --check-prefix=FILES

// One folder per gemm, none for the reduction kernel alone.
// DIRS:      kgen_gemm_bf16_m37_n45_k29
// DIRS-NEXT: kgen_gemm_f32_m40_n64_k96
// DIRS-NOT:  {{.}}

// FILES:      kernel.cu
// FILES-NEXT: manifest.json
// FILES-NOT:  {{.}}

// PLAIN:      "config": {
// PLAIN:        "instruction": "mma_sync",
// PLAIN:      "kernels": [
// PLAIN-NEXT:   {
// PLAIN-NEXT:     "args": [
// PLAIN-NEXT:       "A",
// PLAIN-NEXT:       "B",
// PLAIN-NEXT:       "bias",
// PLAIN-NEXT:       "D"
// PLAIN-NEXT:     ],
// PLAIN-NEXT:     "entry": "kgen_gemm_bf16_m37_n45_k29",
// PLAIN-NEXT:     "launch": {
// PLAIN-NEXT:       "block": [
// PLAIN-NEXT:         32,
// PLAIN:            "dynamic_smem_bytes": [[SMEM_PLAIN]],
// PLAIN-NEXT:       "grid": [
// PLAIN-NEXT:         9,
// PLAIN-NEXT:         1,
// PLAIN-NEXT:         1
// PLAIN-NEXT:       ]
// PLAIN-NEXT:     }
// PLAIN-NEXT:   }
// PLAIN-NEXT: ],
// PLAIN-NEXT: "name": "kgen_gemm_bf16_m37_n45_k29",
// PLAIN-NEXT: "op": {
// PLAIN:        "kind": "gemm",
// PLAIN-NEXT:   "m": 37,
// PLAIN-NEXT:   "n": 45,
// PLAIN:      "schema": "kgen.kernel-package",
// PLAIN-NEXT: "source": "kernel.cu",
// PLAIN-NEXT: "source_sha256": "{{[0-9a-f]+}}",
// PLAIN-NEXT: "target": "sm_80",
func.func @plain(%a: tensor<37x29xbf16>, %b: tensor<29x45xbf16>, %bias: tensor<45xf32>) -> tensor<37x45xbf16> {
  %d = kgen.gemm %a, %b bias(%bias : tensor<45xf32>) {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 3, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 2, epilogue_vector = 8, source = user>} : tensor<37x29xbf16>, tensor<29x45xbf16> -> tensor<37x45xbf16>
  return %d : tensor<37x45xbf16>
}

// SPLIT:      "kernels": [
// SPLIT-NEXT:   {
// SPLIT-NEXT:     "args": [
// SPLIT-NEXT:       "A",
// SPLIT-NEXT:       "B",
// SPLIT-NEXT:       "W"
// SPLIT-NEXT:     ],
// SPLIT-NEXT:     "entry": "kgen_gemm_f32_m40_n64_k96",
// SPLIT:            "dynamic_smem_bytes": [[SMEM_SPLIT_K]],
// SPLIT-NEXT:       "grid": [
// SPLIT-NEXT:         4,
// SPLIT-NEXT:         3,
// SPLIT-NEXT:         1
// SPLIT:          "args": [
// SPLIT-NEXT:       "W",
// SPLIT-NEXT:       "D"
// SPLIT-NEXT:     ],
// SPLIT-NEXT:     "entry": "kgen_gemm_f32_m40_n64_k96_splitk_reduce",
// SPLIT:            "dynamic_smem_bytes": 0,
// SPLIT-NEXT:       "grid": [
// SPLIT-NEXT:         4,
// SPLIT-NEXT:         1,
// SPLIT-NEXT:         1
// SPLIT:      "params": [
// SPLIT:          "name": "W",
// SPLIT-NEXT:     "role": "workspace",
// SPLIT-NEXT:     "shape": [
// SPLIT-NEXT:       3,
// SPLIT-NEXT:       1,
// SPLIT-NEXT:       40,
// SPLIT-NEXT:       64
// SPLIT:          "name": "D",
// SPLIT-NEXT:     "role": "output",

// SRC:      extern "C" __global__ void __launch_bounds__(128, 1)
// SRC-NEXT: kgen_gemm_f32_m40_n64_k96(
// SRC:      extern "C" __global__ void __launch_bounds__(128, 1)
// SRC-NEXT: kgen_gemm_f32_m40_n64_k96_splitk_reduce(
func.func @split_k(%a: tensor<40x96xf32>, %b: tensor<96x64xf32>) -> tensor<40x64xf32> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 32, block_n = 32, block_k = 8, warps_m = 2, warps_n = 2, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 3, raster_group = 8, epilogue_vector = 4, source = user>} : tensor<40x96xf32>, tensor<96x64xf32> -> tensor<40x64xf32>
  return %d : tensor<40x64xf32>
}
