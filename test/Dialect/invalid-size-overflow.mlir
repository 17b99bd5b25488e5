// Sizes computed from attributes and dimensions near INT64_MAX must be
// rejected with an overflow message, not wrap around: E + 1 for
// 'expert_offsets' with E = INT64_MAX wraps to INT64_MIN, which is
// ShapedType::kDynamic, so the verifier asked for a shape "[?]".
// RUN: not kgen-opt %s --split-input-file 2>&1 | FileCheck %s

// CHECK:     error: 'kgen.moe_permute' op
// CHECK-NOT: [?]
// CHECK-NOT: internal error
func.func @permute_num_experts_max(%x: tensor<4x32xf32>, %ids: tensor<4x2xi32>) -> (tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>) {
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 9223372036854775807} : tensor<4x32xf32>, tensor<4x2xi32> -> tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>
  return %xp, %pos, %off : tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>
}

// -----

// CHECK:     error: 'kgen.grouped_gemm' op
// CHECK-NOT: [?]
// CHECK-NOT: internal error
func.func @grouped_gemm_experts_max(%a: tensor<8x32xf32>, %b: tensor<9223372036854775807x32x16xf32>, %off: tensor<3xi32>) -> tensor<8x16xf32> {
  %d = kgen.grouped_gemm %a, %b, %off : tensor<8x32xf32>, tensor<9223372036854775807x32x16xf32>, tensor<3xi32> -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}
