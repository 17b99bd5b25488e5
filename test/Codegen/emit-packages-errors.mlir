// What kgen-emit-packages refuses, naming the kernel: a kernel without a
// config (the emitter needs the family), a package whose kernels disagree on
// a parameter, a manifest the runtime would reject, a folder it cannot
// write. The emitter's own refusals (configs it cannot print) are in
// emit-cuda-errors.mlir, with this pass's flag too.
// RUN: rm -rf %t && mkdir -p %t
// RUN: kgen-opt %s --split-input-file --kgen-lower-gemm-to-tiles --kgen-emit-packages="output-dir=%t/packages compile=false" --verify-diagnostics
// RUN: touch %t/file
// RUN: not kgen-opt %s --split-input-file --kgen-lower-gemm-to-tiles --kgen-emit-packages="output-dir=%t/file/packages compile=false" 2>&1 | FileCheck %s

// expected-error @+1 {{'kgen.kernel' op has no config: the emitter needs the family}}
kgen.kernel @no_config grid [1, 1, 1] threads 32 smem 0 attributes {param_names = ["D"], signature = {kind = "gemm"}} {
^bb0(%bx: index, %by: index, %bz: index, %d: memref<4x4xf32>):
  kgen.tile.zero %d : memref<4x4xf32>
}

// -----

// The kernels of one package (the second continues the first: it reads its
// result and has no signature) share parameters by name.
#config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>

kgen.kernel @first grid [1, 1, 1] threads 32 smem 0 attributes {config = #config, param_names = ["A", "W"], signature = {kind = "gemm"}} {
^bb0(%bx: index, %by: index, %bz: index, %a: memref<4x4xf32>, %w: memref<4x4xf32>):
}

// expected-error @+1 {{'kgen.kernel' op parameter A differs from the one of that name in an earlier kernel of the package}}
kgen.kernel @second grid [1, 1, 1] threads 32 smem 0 attributes {config = #config, param_names = ["W", "A"]} {
^bb0(%bx: index, %by: index, %bz: index, %w: memref<4x4xf32>, %d: memref<8x8xf32>):
}

func.func @two_kernels(%a: tensor<4x4xf32>) -> tensor<8x8xf32> {
  %w = kgen.launch @first(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %d = kgen.launch @second(%w) : (tensor<4x4xf32>) -> tensor<8x8xf32>
  return %d : tensor<8x8xf32>
}

// -----

// A kernel alone must say which op it computes: the manifest needs op.kind.
// expected-error @+1 {{/alone/manifest.json: refusing to write an invalid manifest: op.kind: missing}}
kgen.kernel @alone grid [1, 1, 1] threads 32 smem 0 attributes {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>, param_names = ["D"]} {
^bb0(%bx: index, %by: index, %bz: index, %d: memref<4x4xf32>):
}

// -----

// Element types outside the runtime's.
// expected-error @+1 {{/f64_output/manifest.json: refusing to write an invalid manifest: params[0].dtype: unknown value "f64"}}
kgen.kernel @f64_output grid [1, 1, 1] threads 32 smem 0 attributes {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>, param_names = ["D"], signature = {kind = "gemm"}} {
^bb0(%bx: index, %by: index, %bz: index, %d: memref<4x4xf64>):
}

// -----

// A folder the pass cannot write: the second RUN line's output folder lies
// under a file (this gemm is the only case that gets that far there).
// CHECK: error: 'kgen.kernel' op cannot write the package: {{.*}}/file/packages/kgen_gemm_bf16_m32_n16_k16: cannot create the package folder
func.func @written(%a: tensor<32x16xbf16>, %b: tensor<16x16xbf16>) -> tensor<32x16xbf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<32x16xbf16>, tensor<16x16xbf16> -> tensor<32x16xbf16>
  return %d : tensor<32x16xbf16>
}
