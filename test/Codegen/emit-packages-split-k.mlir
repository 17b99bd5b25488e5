// A split-K gemm is one package of two kernels: the partial products into a
// workspace W [split, batch, M, N] f32, then the reduction, which sums W in
// split order and applies the epilogue. Both compile with NVRTC with no
// stack and no spills (per-kernel reports in the manifest), and kgen-bench
// loads, validates and compiles the package.
// REQUIRES: kgen-bench
// RUN: rm -rf %t && kgen-opt %s --kgen-select-strategy=target=sm_90a --kgen-lower-gemm-to-tiles --kgen-emit-packages=output-dir=%t -o /dev/null
// RUN: FileCheck %s --check-prefix=SM80 < %t/kgen_gemm_bf16_m30_n64_k512/manifest.json
// RUN: FileCheck %s --check-prefix=SM90A < %t/kgen_gemm_bf16_m1_n4096_k14336/manifest.json
// RUN: FileCheck %s --check-prefix=SRC < %t/kgen_gemm_bf16_m30_n64_k512/kernel.cu
// RUN: ls %t | FileCheck %s --check-prefix=DIRS
// RUN: kgen-bench compile %t/kgen_gemm_bf16_m30_n64_k512 %t/kgen_gemm_bf16_m1_n4096_k14336 --cache %t.cache | FileCheck %s --check-prefix=COMPILE

// One folder per gemm, none for the reduction kernels alone.
// DIRS: kgen_gemm_bf16_m1_n4096_k14336
// DIRS-NEXT: kgen_gemm_bf16_m30_n64_k512
// DIRS-NOT: splitk

// SM80: "kernels": [
// SM80-NEXT: {
// SM80-NEXT: "args": [
// SM80-NEXT: "A",
// SM80-NEXT: "B",
// SM80-NEXT: "bias",
// SM80-NEXT: "C",
// SM80-NEXT: "W"
// SM80-NEXT: ],
// SM80-NEXT: "entry": "kgen_gemm_bf16_m30_n64_k512",
// SM80: "grid": [
// SM80-NEXT: 2,
// SM80-NEXT: 2,
// SM80-NEXT: 1
// SM80: "spill_store_bytes": 0,
// SM80-NEXT: "stack_bytes": 0
// SM80: "args": [
// SM80-NEXT: "W",
// SM80-NEXT: "bias",
// SM80-NEXT: "C",
// SM80-NEXT: "D"
// SM80-NEXT: ],
// SM80-NEXT: "entry": "kgen_gemm_bf16_m30_n64_k512_splitk_reduce",
// SM80: "dynamic_smem_bytes": 0,
// SM80: "spill_store_bytes": 0,
// SM80-NEXT: "stack_bytes": 0
// SM80: "params": [
// SM80: "name": "W",
// SM80-NEXT: "role": "workspace",
// SM80-NEXT: "shape": [
// SM80-NEXT: 2,
// SM80-NEXT: 1,
// SM80-NEXT: 30,
// SM80-NEXT: 64
// SM80: "name": "D",
// SM80-NEXT: "role": "output",
// SM80: "version": 2

// SRC: extern "C" __global__ void __launch_bounds__(64, 1)
// SRC-NEXT: kgen_gemm_bf16_m30_n64_k512(
// SRC: kgen_gemm_bf16_m30_n64_k512_splitk_reduce(

// The decode shape the sm_90a heuristic splits: wgmma partials with their
// tensor maps, then the reduction.
// SM90A: "split_k": 4,
// SM90A: "args": [
// SM90A-NEXT: "A",
// SM90A-NEXT: "B",
// SM90A-NEXT: "W",
// SM90A-NEXT: "tma_A",
// SM90A-NEXT: "tma_B"
// SM90A: "entry": "kgen_gemm_bf16_m1_n4096_k14336",
// SM90A: "entry": "kgen_gemm_bf16_m1_n4096_k14336_splitk_reduce",

// COMPILE-DAG: kgen_gemm_bf16_m30_n64_k512 sm_80 {{[0-9]+}} 0+{{[0-9]+}} 0 0/0
// COMPILE-DAG: kgen_gemm_bf16_m1_n4096_k14336 sm_90a {{[0-9]+}} 0+{{[0-9]+}} 0 0/0

func.func @split_k(%a: tensor<30x512xbf16>, %b: tensor<512x64xbf16>, %bias: tensor<64xf32>, %c: tensor<30x64xbf16>) -> tensor<30x64xbf16> {
  %d = kgen.gemm %a, %b bias(%bias : tensor<64xf32>) residual(%c : tensor<30x64xbf16>) {beta = 1.0 : f32, activation = #kgen.activation<relu>, config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 32, block_k = 32, warps_m = 1, warps_n = 2, stages = 3, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 2, raster_group = 8, epilogue_vector = 4, source = user>} : tensor<30x512xbf16>, tensor<512x64xbf16> -> tensor<30x64xbf16>
  return %d : tensor<30x64xbf16>
}

func.func @decode(%x: tensor<1x14336xbf16>, %w: tensor<4096x14336xbf16>) -> tensor<1x4096xbf16> {
  %y = kgen.gemm %x, %w {transpose_b} : tensor<1x14336xbf16>, tensor<4096x14336xbf16> -> tensor<1x4096xbf16>
  return %y : tensor<1x4096xbf16>
}
