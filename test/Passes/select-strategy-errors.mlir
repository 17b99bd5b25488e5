// RUN: not kgen-opt %s --kgen-select-strategy=target=sm_70 2>&1 | FileCheck %s
// CHECK: error: kgen-select-strategy: unknown target 'sm_70'; expected sm_80 or sm_90a
func.func @f(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf16> {
  %d = kgen.gemm %a, %b : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf16>
  return %d : tensor<64x64xf16>
}
