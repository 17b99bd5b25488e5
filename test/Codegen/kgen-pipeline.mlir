// kgen-opt --kgen-pipeline: select -> lower -> emit, one package per gemm,
// which the runtime loads, validates and compiles with NVRTC (no GPU):
// registers reported, no stack frame, no spills.
// REQUIRES: kgen-bench
// RUN: rm -rf %t && kgen-opt %s --kgen-pipeline="target=sm_80 output-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/kgen_gemm_bf16_m100_n200_k64/manifest.json
// RUN: kgen-bench compile %t/kgen_gemm_bf16_m100_n200_k64 %t/kgen_gemm_f32_m17_n33_k9 --cache %t.cache | FileCheck %s
// RUN: rm -rf %t.sm90a && kgen-opt %s --kgen-pipeline="target=sm_90a output-dir=%t.sm90a" -o /dev/null
// RUN: FileCheck %s --check-prefix=TMA < %t.sm90a/kgen_gemm_bf16_m100_n200_k64/manifest.json
// RUN: kgen-bench compile %t.sm90a/kgen_gemm_bf16_m100_n200_k64 --cache %t.cache | FileCheck %s --check-prefix=SM90A
// TMA: "dynamic_smem_bytes": 173120,
// TMA: "box": [
// TMA-NEXT: 128,
// TMA-NEXT: 64
// TMA: "kind": "tma_descriptor",
// TMA-NEXT: "name": "tma_A",
// TMA-NEXT: "swizzle_bytes": 128,
// TMA-NEXT: "tensor": "A"
// TMA: "box": [
// TMA-NEXT: 208,
// TMA-NEXT: 64
// TMA: "name": "tma_B",
// TMA: "tensor": "B"
// TMA: "target": "sm_90a",
// SM90A: kgen_gemm_bf16_m100_n200_k64 sm_90a {{[0-9]+}} 0+173120 0 0/0
// MANIFEST: "config": {
// MANIFEST: "instruction": "mma_sync",
// MANIFEST: "source": "default",
// MANIFEST: "kernels": [
// MANIFEST-NEXT: {
// MANIFEST-NEXT: "args": [
// MANIFEST-NEXT: "A",
// MANIFEST-NEXT: "B",
// MANIFEST-NEXT: "D"
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "entry": "kgen_gemm_bf16_m100_n200_k64",
// MANIFEST: "resources": {
// MANIFEST-NEXT: "constant_bytes":
// MANIFEST-NEXT: "registers": {{[1-9][0-9]*}},
// MANIFEST-NEXT: "shared_bytes": 0,
// MANIFEST-NEXT: "spill_load_bytes": 0,
// MANIFEST-NEXT: "spill_store_bytes": 0,
// MANIFEST-NEXT: "stack_bytes": 0
// MANIFEST: "op": {
// MANIFEST: "activation": "silu",
// MANIFEST: "kind": "gemm",
// MANIFEST: "m": 100,
// MANIFEST: "transpose_b": true
// MANIFEST: "source": "kernel.cu",
// MANIFEST: "source_sha256": "{{[0-9a-f]+}}",
// MANIFEST: "target": "sm_80",
// MANIFEST: "version": 2
// CHECK: name {{.*}} regs
// CHECK-DAG: kgen_gemm_bf16_m100_n200_k64 sm_80 {{[0-9]+}} 0+65536 0 0/0
// CHECK-DAG: kgen_gemm_f32_m17_n33_k9 sm_80 {{[0-9]+}} 0+{{[0-9]+}} 0 0/0
func.func @main(%x: tensor<100x64xbf16>, %w: tensor<200x64xbf16>, %a: tensor<17x9xf32>, %b: tensor<9x33xf32>) -> (tensor<100x200xbf16>, tensor<17x33xf32>) {
  %y = kgen.gemm %x, %w {transpose_b, activation = #kgen.activation<silu>} : tensor<100x64xbf16>, tensor<200x64xbf16> -> tensor<100x200xbf16>
  %z = kgen.gemm %a, %b : tensor<17x9xf32>, tensor<9x33xf32> -> tensor<17x33xf32>
  return %y, %z : tensor<100x200xbf16>, tensor<17x33xf32>
}
