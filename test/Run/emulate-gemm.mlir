// The emitted CUDA of the simt and mma_sync families, run on the emulated
// device (docs/emulated-device.md): kgen-opt --kgen-pipeline writes the
// packages, kgen-emulate compiles each kernel.cu for the host with the
// emulated instruction layer, runs it with every CUDA thread as a fiber and
// compares D with the host reference under the GPU verification's tolerance
// (partial tiles in M, N and K in both).
// RUN: rm -rf %t && kgen-opt %s --kgen-pipeline="target=sm_80 output-dir=%t" -o /dev/null
// RUN: kgen-emulate %t/kgen_gemm_bf16_m100_n72_k200 %t/kgen_gemm_f32_m37_n48_k72 | FileCheck %s
// Another schedule of the fibers and other inputs.
// RUN: kgen-emulate --seed 11 %t/kgen_gemm_bf16_m100_n72_k200 | FileCheck %s --check-prefix=SEED
// CHECK: kgen_gemm_bf16_m100_n72_k200 mma_sync emulated ok
// CHECK: kgen_gemm_f32_m37_n48_k72 simt emulated ok
// SEED: kgen_gemm_bf16_m100_n72_k200 mma_sync emulated ok
func.func @main(%x: tensor<100x200xbf16>, %w: tensor<200x72xbf16>,
                %a: tensor<37x72xf32>, %b: tensor<72x48xf32>)
    -> (tensor<100x72xbf16>, tensor<37x48xf32>) {
  %y = kgen.gemm %x, %w : tensor<100x200xbf16>, tensor<200x72xbf16> -> tensor<100x72xbf16>
  %z = kgen.gemm %a, %b : tensor<37x72xf32>, tensor<72x48xf32> -> tensor<37x48xf32>
  return %y, %z : tensor<100x72xbf16>, tensor<37x48xf32>
}
