// Round trip of every kgen op and every optional part, in the custom and in
// the generic form.
// RUN: kgen-opt %s --split-input-file | kgen-opt --split-input-file | FileCheck %s
// RUN: kgen-opt %s --split-input-file --mlir-print-op-generic | kgen-opt --split-input-file | FileCheck %s

//===----------------------------------------------------------------------===//
// kgen.gemm
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @gemm_plain(
// CHECK-SAME:    %[[A:.+]]: tensor<128x64xf32>, %[[B:.+]]: tensor<64x256xf32>)
// CHECK:         %[[D:.+]] = kgen.gemm %[[A]], %[[B]] : tensor<128x64xf32>, tensor<64x256xf32> -> tensor<128x256xf32>
// CHECK:         return %[[D]]
func.func @gemm_plain(%a: tensor<128x64xf32>, %b: tensor<64x256xf32>) -> tensor<128x256xf32> {
  %d = kgen.gemm %a, %b : tensor<128x64xf32>, tensor<64x256xf32> -> tensor<128x256xf32>
  return %d : tensor<128x256xf32>
}

// -----

// Default-valued attributes are not printed.
// CHECK-LABEL: func.func @gemm_defaults_elided(
// CHECK:         kgen.gemm %{{.+}}, %{{.+}} : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
func.func @gemm_defaults_elided(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %d = kgen.gemm %a, %b {alpha = 1.0 : f32, activation = #kgen.activation<none>} : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

// CHECK-LABEL: func.func @gemm_transpose_a(
// CHECK-SAME:    %[[A:.+]]: tensor<64x128xf16>, %[[B:.+]]: tensor<64x256xf16>)
// CHECK:         kgen.gemm %[[A]], %[[B]] {transpose_a} : tensor<64x128xf16>, tensor<64x256xf16> -> tensor<128x256xf16>
func.func @gemm_transpose_a(%a: tensor<64x128xf16>, %b: tensor<64x256xf16>) -> tensor<128x256xf16> {
  %d = kgen.gemm %a, %b {transpose_a} : tensor<64x128xf16>, tensor<64x256xf16> -> tensor<128x256xf16>
  return %d : tensor<128x256xf16>
}

// -----

// CHECK-LABEL: func.func @gemm_transpose_b(
// CHECK-SAME:    %[[A:.+]]: tensor<128x64xbf16>, %[[B:.+]]: tensor<256x64xbf16>)
// CHECK:         kgen.gemm %[[A]], %[[B]] {transpose_b} : tensor<128x64xbf16>, tensor<256x64xbf16> -> tensor<128x256xbf16>
func.func @gemm_transpose_b(%a: tensor<128x64xbf16>, %b: tensor<256x64xbf16>) -> tensor<128x256xbf16> {
  %d = kgen.gemm %a, %b {transpose_b} : tensor<128x64xbf16>, tensor<256x64xbf16> -> tensor<128x256xbf16>
  return %d : tensor<128x256xbf16>
}

// -----

// CHECK-LABEL: func.func @gemm_transpose_both(
// CHECK:         kgen.gemm %{{.+}}, %{{.+}} {transpose_a, transpose_b} : tensor<64x128xf32>, tensor<256x64xf32> -> tensor<128x256xf32>
func.func @gemm_transpose_both(%a: tensor<64x128xf32>, %b: tensor<256x64xf32>) -> tensor<128x256xf32> {
  %d = kgen.gemm %a, %b {transpose_a, transpose_b} : tensor<64x128xf32>, tensor<256x64xf32> -> tensor<128x256xf32>
  return %d : tensor<128x256xf32>
}

// -----

// CHECK-LABEL: func.func @gemm_bias(
// CHECK-SAME:    %[[A:.+]]: tensor<32x64xbf16>, %[[B:.+]]: tensor<64x16xbf16>, %[[BIAS:.+]]: tensor<16xbf16>)
// CHECK:         kgen.gemm %[[A]], %[[B]] bias(%[[BIAS]] : tensor<16xbf16>) : tensor<32x64xbf16>, tensor<64x16xbf16> -> tensor<32x16xbf16>
func.func @gemm_bias(%a: tensor<32x64xbf16>, %b: tensor<64x16xbf16>, %bias: tensor<16xbf16>) -> tensor<32x16xbf16> {
  %d = kgen.gemm %a, %b bias(%bias : tensor<16xbf16>) : tensor<32x64xbf16>, tensor<64x16xbf16> -> tensor<32x16xbf16>
  return %d : tensor<32x16xbf16>
}

// -----

// The bias and the residual may have another float type than the operands.
// CHECK-LABEL: func.func @gemm_bias_f32_on_bf16(
// CHECK:         kgen.gemm %{{.+}}, %{{.+}} bias(%{{.+}} : tensor<16xf32>) : tensor<32x64xbf16>, tensor<64x16xbf16> -> tensor<32x16xf32>
func.func @gemm_bias_f32_on_bf16(%a: tensor<32x64xbf16>, %b: tensor<64x16xbf16>, %bias: tensor<16xf32>) -> tensor<32x16xf32> {
  %d = kgen.gemm %a, %b bias(%bias : tensor<16xf32>) : tensor<32x64xbf16>, tensor<64x16xbf16> -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

// A residual without beta: beta stays absent (it means 1.0).
// CHECK-LABEL: func.func @gemm_residual(
// CHECK-SAME:    %[[A:.+]]: tensor<32x64xf16>, %[[B:.+]]: tensor<64x16xf16>, %[[C:.+]]: tensor<32x16xf16>)
// CHECK:         kgen.gemm %[[A]], %[[B]] residual(%[[C]] : tensor<32x16xf16>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf16>
// CHECK-NOT:     beta
func.func @gemm_residual(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf16>) -> tensor<32x16xf16> {
  %d = kgen.gemm %a, %b residual(%c : tensor<32x16xf16>) : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf16>
  return %d : tensor<32x16xf16>
}

// -----

// CHECK-LABEL: func.func @gemm_residual_beta(
// CHECK-SAME:    %[[A:.+]]: tensor<32x64xf16>, %[[B:.+]]: tensor<64x16xf16>, %[[C:.+]]: tensor<32x16xf16>)
// CHECK:         kgen.gemm %[[A]], %[[B]] residual(%[[C]] : tensor<32x16xf16>) {beta = 5.000000e-01 : f32} : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf16>
func.func @gemm_residual_beta(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>, %c: tensor<32x16xf16>) -> tensor<32x16xf16> {
  %d = kgen.gemm %a, %b residual(%c : tensor<32x16xf16>) {beta = 0.5 : f32} : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf16>
  return %d : tensor<32x16xf16>
}

// -----

// CHECK-LABEL: func.func @gemm_bias_and_residual(
// CHECK-SAME:    %[[A:.+]]: tensor<32x64xf32>, %[[B:.+]]: tensor<64x16xf32>, %[[BIAS:.+]]: tensor<16xf32>, %[[C:.+]]: tensor<32x16xf32>)
// CHECK:         kgen.gemm %[[A]], %[[B]] bias(%[[BIAS]] : tensor<16xf32>) residual(%[[C]] : tensor<32x16xf32>) {beta = -2.000000e+00 : f32} : tensor<32x64xf32>, tensor<64x16xf32> -> tensor<32x16xf32>
func.func @gemm_bias_and_residual(%a: tensor<32x64xf32>, %b: tensor<64x16xf32>, %bias: tensor<16xf32>, %c: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %d = kgen.gemm %a, %b bias(%bias : tensor<16xf32>) residual(%c : tensor<32x16xf32>) {beta = -2.0 : f32} : tensor<32x64xf32>, tensor<64x16xf32> -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

// CHECK-LABEL: func.func @gemm_alpha(
// CHECK:         kgen.gemm %{{.+}}, %{{.+}} {alpha = 1.250000e-01 : f32} : tensor<32x64xf32>, tensor<64x16xf32> -> tensor<32x16xf32>
func.func @gemm_alpha(%a: tensor<32x64xf32>, %b: tensor<64x16xf32>) -> tensor<32x16xf32> {
  %d = kgen.gemm %a, %b {alpha = 0.125 : f32} : tensor<32x64xf32>, tensor<64x16xf32> -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

// CHECK-LABEL: func.func @gemm_relu(
// CHECK:         kgen.gemm %{{.+}}, %{{.+}} {activation = #kgen.activation<relu>} : tensor<32x64xf32>, tensor<64x16xf32> -> tensor<32x16xf32>
func.func @gemm_relu(%a: tensor<32x64xf32>, %b: tensor<64x16xf32>) -> tensor<32x16xf32> {
  %d = kgen.gemm %a, %b {activation = #kgen.activation<relu>} : tensor<32x64xf32>, tensor<64x16xf32> -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

// CHECK-LABEL: func.func @gemm_gelu(
// CHECK:         kgen.gemm %{{.+}}, %{{.+}} {activation = #kgen.activation<gelu>} : tensor<32x64xf32>, tensor<64x16xf32> -> tensor<32x16xf32>
func.func @gemm_gelu(%a: tensor<32x64xf32>, %b: tensor<64x16xf32>) -> tensor<32x16xf32> {
  %d = kgen.gemm %a, %b {activation = #kgen.activation<gelu>} : tensor<32x64xf32>, tensor<64x16xf32> -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

// CHECK-LABEL: func.func @gemm_silu(
// CHECK:         kgen.gemm %{{.+}}, %{{.+}} {activation = #kgen.activation<silu>} : tensor<32x64xf32>, tensor<64x16xf32> -> tensor<32x16xf32>
func.func @gemm_silu(%a: tensor<32x64xf32>, %b: tensor<64x16xf32>) -> tensor<32x16xf32> {
  %d = kgen.gemm %a, %b {activation = #kgen.activation<silu>} : tensor<32x64xf32>, tensor<64x16xf32> -> tensor<32x16xf32>
  return %d : tensor<32x16xf32>
}

// -----

// CHECK-LABEL: func.func @gemm_acc_f16(
// CHECK:         kgen.gemm %{{.+}}, %{{.+}} {acc_type = f16} : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf16>
func.func @gemm_acc_f16(%a: tensor<32x64xf16>, %b: tensor<64x16xf16>) -> tensor<32x16xf16> {
  %d = kgen.gemm %a, %b {acc_type = f16} : tensor<32x64xf16>, tensor<64x16xf16> -> tensor<32x16xf16>
  return %d : tensor<32x16xf16>
}

// -----

// An explicit f32 accumulator is kept as written.
// CHECK-LABEL: func.func @gemm_acc_f32(
// CHECK:         kgen.gemm %{{.+}}, %{{.+}} {acc_type = f32} : tensor<32x64xbf16>, tensor<64x16xbf16> -> tensor<32x16xbf16>
func.func @gemm_acc_f32(%a: tensor<32x64xbf16>, %b: tensor<64x16xbf16>) -> tensor<32x16xbf16> {
  %d = kgen.gemm %a, %b {acc_type = f32} : tensor<32x64xbf16>, tensor<64x16xbf16> -> tensor<32x16xbf16>
  return %d : tensor<32x16xbf16>
}

// -----

// CHECK-LABEL: func.func @gemm_f8(
// CHECK:         kgen.gemm %{{.+}}, %{{.+}} {transpose_b} : tensor<32x64xf8E4M3FN>, tensor<16x64xf8E4M3FN> -> tensor<32x16xbf16>
func.func @gemm_f8(%a: tensor<32x64xf8E4M3FN>, %b: tensor<16x64xf8E4M3FN>) -> tensor<32x16xbf16> {
  %d = kgen.gemm %a, %b {transpose_b} : tensor<32x64xf8E4M3FN>, tensor<16x64xf8E4M3FN> -> tensor<32x16xbf16>
  return %d : tensor<32x16xbf16>
}

// -----

// CHECK-LABEL: func.func @gemm_f8_out(
// CHECK:         kgen.gemm %{{.+}}, %{{.+}} : tensor<32x64xf8E4M3FN>, tensor<64x16xf8E4M3FN> -> tensor<32x16xf8E4M3FN>
func.func @gemm_f8_out(%a: tensor<32x64xf8E4M3FN>, %b: tensor<64x16xf8E4M3FN>) -> tensor<32x16xf8E4M3FN> {
  %d = kgen.gemm %a, %b : tensor<32x64xf8E4M3FN>, tensor<64x16xf8E4M3FN> -> tensor<32x16xf8E4M3FN>
  return %d : tensor<32x16xf8E4M3FN>
}

// -----

// CHECK-LABEL: func.func @gemm_batched(
// CHECK-SAME:    %[[A:.+]]: tensor<4x32x64xbf16>, %[[B:.+]]: tensor<4x64x16xbf16>, %[[C:.+]]: tensor<4x32x16xbf16>)
// CHECK:         kgen.gemm %[[A]], %[[B]] residual(%[[C]] : tensor<4x32x16xbf16>) : tensor<4x32x64xbf16>, tensor<4x64x16xbf16> -> tensor<4x32x16xbf16>
func.func @gemm_batched(%a: tensor<4x32x64xbf16>, %b: tensor<4x64x16xbf16>, %c: tensor<4x32x16xbf16>) -> tensor<4x32x16xbf16> {
  %d = kgen.gemm %a, %b residual(%c : tensor<4x32x16xbf16>) : tensor<4x32x64xbf16>, tensor<4x64x16xbf16> -> tensor<4x32x16xbf16>
  return %d : tensor<4x32x16xbf16>
}

// -----

// A `b` without a batch dimension is broadcast over the batch of `a`.
// CHECK-LABEL: func.func @gemm_batched_broadcast_b(
// CHECK-SAME:    %[[A:.+]]: tensor<4x32x64xf16>, %[[B:.+]]: tensor<16x64xf16>, %[[BIAS:.+]]: tensor<16xf16>)
// CHECK:         kgen.gemm %[[A]], %[[B]] bias(%[[BIAS]] : tensor<16xf16>) {transpose_b} : tensor<4x32x64xf16>, tensor<16x64xf16> -> tensor<4x32x16xf16>
func.func @gemm_batched_broadcast_b(%a: tensor<4x32x64xf16>, %b: tensor<16x64xf16>, %bias: tensor<16xf16>) -> tensor<4x32x16xf16> {
  %d = kgen.gemm %a, %b bias(%bias : tensor<16xf16>) {transpose_b} : tensor<4x32x64xf16>, tensor<16x64xf16> -> tensor<4x32x16xf16>
  return %d : tensor<4x32x16xf16>
}

// -----

// CHECK-LABEL: func.func @gemm_batched_transpose_a(
// CHECK:         kgen.gemm %{{.+}}, %{{.+}} {transpose_a} : tensor<2x64x32xf32>, tensor<2x64x16xf32> -> tensor<2x32x16xf32>
func.func @gemm_batched_transpose_a(%a: tensor<2x64x32xf32>, %b: tensor<2x64x16xf32>) -> tensor<2x32x16xf32> {
  %d = kgen.gemm %a, %b {transpose_a} : tensor<2x64x32xf32>, tensor<2x64x16xf32> -> tensor<2x32x16xf32>
  return %d : tensor<2x32x16xf32>
}

// -----

// Everything at once.
// CHECK-LABEL: func.func @gemm_all(
// CHECK-SAME:    %[[A:.+]]: tensor<2x64x32xf16>, %[[B:.+]]: tensor<16x64xf16>, %[[BIAS:.+]]: tensor<16xf32>, %[[C:.+]]: tensor<2x32x16xf16>)
// CHECK:         %[[D:.+]] = kgen.gemm %[[A]], %[[B]] bias(%[[BIAS]] : tensor<16xf32>) residual(%[[C]] : tensor<2x32x16xf16>)
// CHECK-SAME:      acc_type = f16
// CHECK-SAME:      activation = #kgen.activation<silu>
// CHECK-SAME:      alpha = 2.500000e-01 : f32
// CHECK-SAME:      beta = 3.000000e+00 : f32
// CHECK-SAME:      transpose_a
// CHECK-SAME:      transpose_b
// CHECK-SAME:      : tensor<2x64x32xf16>, tensor<16x64xf16> -> tensor<2x32x16xf16>
// CHECK:         return %[[D]]
func.func @gemm_all(%a: tensor<2x64x32xf16>, %b: tensor<16x64xf16>, %bias: tensor<16xf32>, %c: tensor<2x32x16xf16>) -> tensor<2x32x16xf16> {
  %d = kgen.gemm %a, %b bias(%bias : tensor<16xf32>) residual(%c : tensor<2x32x16xf16>)
         {transpose_a, transpose_b, alpha = 0.25 : f32, beta = 3.0 : f32,
          activation = #kgen.activation<silu>, acc_type = f16}
         : tensor<2x64x32xf16>, tensor<16x64xf16> -> tensor<2x32x16xf16>
  return %d : tensor<2x32x16xf16>
}

//===----------------------------------------------------------------------===//
// kgen.attention
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @attention_plain(
// CHECK-SAME:    %[[Q:.+]]: tensor<2x8x128x64xbf16>, %[[K:.+]]: tensor<2x8x256x64xbf16>, %[[V:.+]]: tensor<2x8x256x64xbf16>)
// CHECK:         %[[O:.+]] = kgen.attention %[[Q]], %[[K]], %[[V]] : tensor<2x8x128x64xbf16>, tensor<2x8x256x64xbf16>, tensor<2x8x256x64xbf16> -> tensor<2x8x128x64xbf16>
// CHECK:         return %[[O]]
func.func @attention_plain(%q: tensor<2x8x128x64xbf16>, %k: tensor<2x8x256x64xbf16>, %v: tensor<2x8x256x64xbf16>) -> tensor<2x8x128x64xbf16> {
  %o = kgen.attention %q, %k, %v : tensor<2x8x128x64xbf16>, tensor<2x8x256x64xbf16>, tensor<2x8x256x64xbf16> -> tensor<2x8x128x64xbf16>
  return %o : tensor<2x8x128x64xbf16>
}

// -----

// A paged cache: 40 pages of 16 keys, 8 pages per sequence (Skv 128).
// CHECK-LABEL: func.func @attention_paged(
// CHECK:         kgen.attention %{{.+}}, %{{.+}}, %{{.+}} kv_lens(%{{.+}} : tensor<2xi32>) block_table(%{{.+}} : tensor<2x8xi32>) {causal} : tensor<2x8x1x64xbf16>, tensor<40x2x16x64xbf16>, tensor<40x2x16x64xbf16> -> tensor<2x8x1x64xbf16>
func.func @attention_paged(%q: tensor<2x8x1x64xbf16>, %k: tensor<40x2x16x64xbf16>, %v: tensor<40x2x16x64xbf16>, %lens: tensor<2xi32>, %bt: tensor<2x8xi32>) -> tensor<2x8x1x64xbf16> {
  %o = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) block_table(%bt : tensor<2x8xi32>) {causal} : tensor<2x8x1x64xbf16>, tensor<40x2x16x64xbf16>, tensor<40x2x16x64xbf16> -> tensor<2x8x1x64xbf16>
  return %o : tensor<2x8x1x64xbf16>
}

// -----

// CHECK-LABEL: func.func @attention_lse(
// CHECK:         %[[O:.+]], %[[LSE:.+]] = kgen.attention %{{.+}}, %{{.+}}, %{{.+}} : tensor<1x4x16x32xf16>, tensor<1x4x16x32xf16>, tensor<1x4x16x32xf16> -> tensor<1x4x16x32xf16>, tensor<1x4x16xf32>
// CHECK:         return %[[O]], %[[LSE]]
func.func @attention_lse(%q: tensor<1x4x16x32xf16>, %k: tensor<1x4x16x32xf16>, %v: tensor<1x4x16x32xf16>) -> (tensor<1x4x16x32xf16>, tensor<1x4x16xf32>) {
  %o, %lse = kgen.attention %q, %k, %v : tensor<1x4x16x32xf16>, tensor<1x4x16x32xf16>, tensor<1x4x16x32xf16> -> tensor<1x4x16x32xf16>, tensor<1x4x16xf32>
  return %o, %lse : tensor<1x4x16x32xf16>, tensor<1x4x16xf32>
}

// -----

// CHECK-LABEL: func.func @attention_kv_lens(
// CHECK-SAME:    %[[Q:.+]]: tensor<3x4x1x128xf32>, %[[K:.+]]: tensor<3x4x512x128xf32>, %[[V:.+]]: tensor<3x4x512x128xf32>, %[[LENS:.+]]: tensor<3xi32>)
// CHECK:         kgen.attention %[[Q]], %[[K]], %[[V]] kv_lens(%[[LENS]] : tensor<3xi32>) : tensor<3x4x1x128xf32>, tensor<3x4x512x128xf32>, tensor<3x4x512x128xf32> -> tensor<3x4x1x128xf32>
func.func @attention_kv_lens(%q: tensor<3x4x1x128xf32>, %k: tensor<3x4x512x128xf32>, %v: tensor<3x4x512x128xf32>, %lens: tensor<3xi32>) -> tensor<3x4x1x128xf32> {
  %o = kgen.attention %q, %k, %v kv_lens(%lens : tensor<3xi32>) : tensor<3x4x1x128xf32>, tensor<3x4x512x128xf32>, tensor<3x4x512x128xf32> -> tensor<3x4x1x128xf32>
  return %o : tensor<3x4x1x128xf32>
}

// -----

// CHECK-LABEL: func.func @attention_causal(
// CHECK:         kgen.attention %{{.+}}, %{{.+}}, %{{.+}} {causal} : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
func.func @attention_causal(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %o = kgen.attention %q, %k, %v {causal} : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
}

// -----

// CHECK-LABEL: func.func @attention_sliding_window(
// CHECK:         kgen.attention %{{.+}}, %{{.+}}, %{{.+}} {causal, sliding_window = 16 : i64} : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
func.func @attention_sliding_window(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>) -> tensor<1x2x64x64xbf16> {
  %o = kgen.attention %q, %k, %v {causal, sliding_window = 16} : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
  return %o : tensor<1x2x64x64xbf16>
}

// -----

// CHECK-LABEL: func.func @attention_softcap(
// CHECK:         kgen.attention %{{.+}}, %{{.+}}, %{{.+}} {softcap = 5.000000e+01 : f32} : tensor<1x2x64x256xf16>, tensor<1x2x64x256xf16>, tensor<1x2x64x256xf16> -> tensor<1x2x64x256xf16>
func.func @attention_softcap(%q: tensor<1x2x64x256xf16>, %k: tensor<1x2x64x256xf16>, %v: tensor<1x2x64x256xf16>) -> tensor<1x2x64x256xf16> {
  %o = kgen.attention %q, %k, %v {softcap = 50.0 : f32} : tensor<1x2x64x256xf16>, tensor<1x2x64x256xf16>, tensor<1x2x64x256xf16> -> tensor<1x2x64x256xf16>
  return %o : tensor<1x2x64x256xf16>
}

// -----

// CHECK-LABEL: func.func @attention_scale(
// CHECK:         kgen.attention %{{.+}}, %{{.+}}, %{{.+}} {scale = 1.250000e-01 : f32} : tensor<1x2x64x40xf32>, tensor<1x2x64x40xf32>, tensor<1x2x64x40xf32> -> tensor<1x2x64x40xf32>
func.func @attention_scale(%q: tensor<1x2x64x40xf32>, %k: tensor<1x2x64x40xf32>, %v: tensor<1x2x64x40xf32>) -> tensor<1x2x64x40xf32> {
  %o = kgen.attention %q, %k, %v {scale = 0.125 : f32} : tensor<1x2x64x40xf32>, tensor<1x2x64x40xf32>, tensor<1x2x64x40xf32> -> tensor<1x2x64x40xf32>
  return %o : tensor<1x2x64x40xf32>
}

// -----

// A negative scale is allowed (finite and non-zero).
// CHECK-LABEL: func.func @attention_negative_scale(
// CHECK:         kgen.attention {{.+}} {scale = -1.000000e+00 : f32}
func.func @attention_negative_scale(%q: tensor<1x1x8x32xf32>, %k: tensor<1x1x8x32xf32>, %v: tensor<1x1x8x32xf32>) -> tensor<1x1x8x32xf32> {
  %o = kgen.attention %q, %k, %v {scale = -1.0 : f32} : tensor<1x1x8x32xf32>, tensor<1x1x8x32xf32>, tensor<1x1x8x32xf32> -> tensor<1x1x8x32xf32>
  return %o : tensor<1x1x8x32xf32>
}

// -----

// Grouped-query attention: 32 query heads over 8 key/value heads.
// CHECK-LABEL: func.func @attention_gqa(
// CHECK:         kgen.attention %{{.+}}, %{{.+}}, %{{.+}} {causal} : tensor<1x32x128x128xbf16>, tensor<1x8x128x128xbf16>, tensor<1x8x128x128xbf16> -> tensor<1x32x128x128xbf16>, tensor<1x32x128xf32>
func.func @attention_gqa(%q: tensor<1x32x128x128xbf16>, %k: tensor<1x8x128x128xbf16>, %v: tensor<1x8x128x128xbf16>) -> (tensor<1x32x128x128xbf16>, tensor<1x32x128xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal} : tensor<1x32x128x128xbf16>, tensor<1x8x128x128xbf16>, tensor<1x8x128x128xbf16> -> tensor<1x32x128x128xbf16>, tensor<1x32x128xf32>
  return %o, %lse : tensor<1x32x128x128xbf16>, tensor<1x32x128xf32>
}

// -----

// Multi-query attention: one key/value head.
// CHECK-LABEL: func.func @attention_mqa(
// CHECK:         kgen.attention %{{.+}}, %{{.+}}, %{{.+}} : tensor<2x16x4x64xf16>, tensor<2x1x96x64xf16>, tensor<2x1x96x64xf16> -> tensor<2x16x4x64xf16>
func.func @attention_mqa(%q: tensor<2x16x4x64xf16>, %k: tensor<2x1x96x64xf16>, %v: tensor<2x1x96x64xf16>) -> tensor<2x16x4x64xf16> {
  %o = kgen.attention %q, %k, %v : tensor<2x16x4x64xf16>, tensor<2x1x96x64xf16>, tensor<2x1x96x64xf16> -> tensor<2x16x4x64xf16>
  return %o : tensor<2x16x4x64xf16>
}

// -----

// f8 inputs with a bf16 output.
// CHECK-LABEL: func.func @attention_f8(
// CHECK:         kgen.attention %{{.+}}, %{{.+}}, %{{.+}} : tensor<1x2x8x32xf8E4M3FN>, tensor<1x2x8x32xf8E4M3FN>, tensor<1x2x8x32xf8E4M3FN> -> tensor<1x2x8x32xbf16>
func.func @attention_f8(%q: tensor<1x2x8x32xf8E4M3FN>, %k: tensor<1x2x8x32xf8E4M3FN>, %v: tensor<1x2x8x32xf8E4M3FN>) -> tensor<1x2x8x32xbf16> {
  %o = kgen.attention %q, %k, %v : tensor<1x2x8x32xf8E4M3FN>, tensor<1x2x8x32xf8E4M3FN>, tensor<1x2x8x32xf8E4M3FN> -> tensor<1x2x8x32xbf16>
  return %o : tensor<1x2x8x32xbf16>
}

// -----

// Everything at once.
// CHECK-LABEL: func.func @attention_all(
// CHECK-SAME:    %[[Q:.+]]: tensor<2x8x16x128xbf16>, %[[K:.+]]: tensor<2x2x64x128xbf16>, %[[V:.+]]: tensor<2x2x64x128xbf16>, %[[LENS:.+]]: tensor<2xi32>)
// CHECK:         %[[O:.+]], %[[LSE:.+]] = kgen.attention %[[Q]], %[[K]], %[[V]] kv_lens(%[[LENS]] : tensor<2xi32>)
// CHECK-SAME:      causal
// CHECK-SAME:      scale = 5.000000e-01 : f32
// CHECK-SAME:      sliding_window = 32 : i64
// CHECK-SAME:      softcap = 3.000000e+01 : f32
// CHECK-SAME:      : tensor<2x8x16x128xbf16>, tensor<2x2x64x128xbf16>, tensor<2x2x64x128xbf16> -> tensor<2x8x16x128xbf16>, tensor<2x8x16xf32>
// CHECK:         return %[[O]], %[[LSE]]
func.func @attention_all(%q: tensor<2x8x16x128xbf16>, %k: tensor<2x2x64x128xbf16>, %v: tensor<2x2x64x128xbf16>, %lens: tensor<2xi32>) -> (tensor<2x8x16x128xbf16>, tensor<2x8x16xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>)
      {causal, sliding_window = 32, softcap = 30.0 : f32, scale = 0.5 : f32}
      : tensor<2x8x16x128xbf16>, tensor<2x2x64x128xbf16>, tensor<2x2x64x128xbf16> -> tensor<2x8x16x128xbf16>, tensor<2x8x16xf32>
  return %o, %lse : tensor<2x8x16x128xbf16>, tensor<2x8x16xf32>
}

//===----------------------------------------------------------------------===//
// Mixture of experts
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func.func @moe(
// CHECK-SAME:    %[[X:.+]]: tensor<16x64xbf16>, %[[L:.+]]: tensor<16x8xf32>, %[[WG:.+]]: tensor<8x64x128xbf16>, %[[WU:.+]]: tensor<8x64x128xbf16>, %[[WD:.+]]: tensor<8x128x64xbf16>)
// CHECK:         %[[Y:.+]] = kgen.moe %[[X]], %[[L]], %[[WG]], %[[WU]], %[[WD]] {renormalize, top_k = 2 : i64} : tensor<16x64xbf16>, tensor<16x8xf32>, tensor<8x64x128xbf16>, tensor<8x64x128xbf16>, tensor<8x128x64xbf16> -> tensor<16x64xbf16>
// CHECK:         return %[[Y]]
func.func @moe(%x: tensor<16x64xbf16>, %logits: tensor<16x8xf32>, %wg: tensor<8x64x128xbf16>, %wu: tensor<8x64x128xbf16>, %wd: tensor<8x128x64xbf16>) -> tensor<16x64xbf16> {
  %y = kgen.moe %x, %logits, %wg, %wu, %wd {top_k = 2, renormalize} : tensor<16x64xbf16>, tensor<16x8xf32>, tensor<8x64x128xbf16>, tensor<8x64x128xbf16>, tensor<8x128x64xbf16> -> tensor<16x64xbf16>
  return %y : tensor<16x64xbf16>
}

// -----

// The expert GEMMs' strategies round-trip.
// CHECK-LABEL: func.func @moe_configs(
// CHECK:         kgen.moe {{.+}} {down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 64, block_k = 32, warps_m = 1, warps_n = 4, stages = 4, source = model>, gate_up_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = measured, entry = "e1">, top_k = 2 : i64}
// CHECK:         kgen.grouped_gemm {{.+}} {config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = user>}
func.func @moe_configs(%x: tensor<16x64xbf16>, %logits: tensor<16x8xf32>, %wg: tensor<8x64x128xbf16>, %wu: tensor<8x64x128xbf16>, %wd: tensor<8x128x64xbf16>, %off: tensor<9xi32>) -> (tensor<16x64xbf16>, tensor<16x128xbf16>) {
  %y = kgen.moe %x, %logits, %wg, %wu, %wd {top_k = 2, gate_up_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = measured, entry = "e1">, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 64, block_k = 32, warps_m = 1, warps_n = 4, stages = 4, source = model>} : tensor<16x64xbf16>, tensor<16x8xf32>, tensor<8x64x128xbf16>, tensor<8x64x128xbf16>, tensor<8x128x64xbf16> -> tensor<16x64xbf16>
  %d = kgen.grouped_gemm %x, %wg, %off {config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = user>} : tensor<16x64xbf16>, tensor<8x64x128xbf16>, tensor<9xi32> -> tensor<16x128xbf16>
  return %y, %d : tensor<16x64xbf16>, tensor<16x128xbf16>
}

// -----

// The DeepSeek extensions round-trip; the defaults (softmax scoring, a
// routed scaling factor of 1) are not printed.
// CHECK-LABEL: func.func @moe_deepseek(
// CHECK:         kgen.moe %{{.+}} scales(%{{.+}}, %{{.+}}, %{{.+}} : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) correction_bias(%{{.+}} : tensor<8xf32>) shared(%{{.+}}, %{{.+}}, %{{.+}} : tensor<256x64xf8E4M3FN>, tensor<256x64xf8E4M3FN>, tensor<64x256xf8E4M3FN>) shared_scales(%{{.+}}, %{{.+}}, %{{.+}} : tensor<2x1xf32>, tensor<2x1xf32>, tensor<1x2xf32>) {n_group = 4 : i64, renormalize, routed_scaling_factor = 2.500000e+00 : f32, scoring = #kgen.scoring<sigmoid>, top_k = 4 : i64, topk_group = 2 : i64} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
// CHECK:         kgen.moe_route %{{.+}} correction_bias(%{{.+}} : tensor<8xf32>) {scoring = #kgen.scoring<sigmoid>, top_k = 2 : i64} : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
// CHECK:         kgen.moe_route %{{.+}} {top_k = 2 : i64} : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
// CHECK:         kgen.grouped_gemm %{{.+}} gated(%{{.+}} : tensor<8x256x128xf8E4M3FN>) scales(%{{.+}}, %{{.+}} : tensor<8x2x1xf32>, tensor<8x2x1xf32>) {activation = #kgen.activation<silu>} : tensor<4x256xbf16>, tensor<8x256x128xf8E4M3FN>, tensor<9xi32> -> tensor<4x128xbf16>
// CHECK:         kgen.moe_combine %{{.+}} shared(%{{.+}} : tensor<4x256xbf16>) : tensor<8x256xbf16>, tensor<4x2xi32>, tensor<4x2xf32> -> tensor<4x256xbf16>
func.func @moe_deepseek(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>, %b: tensor<8xf32>, %wsg: tensor<256x64xf8E4M3FN>, %wsu: tensor<256x64xf8E4M3FN>, %wsd: tensor<64x256xf8E4M3FN>, %ssg: tensor<2x1xf32>, %ssu: tensor<2x1xf32>, %ssd: tensor<1x2xf32>, %off: tensor<9xi32>, %eo: tensor<8x256xbf16>, %pos: tensor<4x2xi32>, %w: tensor<4x2xf32>) -> (tensor<4x256xbf16>, tensor<4x2xi32>, tensor<4x2xf32>, tensor<4x2xi32>, tensor<4x2xf32>, tensor<4x128xbf16>, tensor<4x256xbf16>) {
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) correction_bias(%b : tensor<8xf32>) shared(%wsg, %wsu, %wsd : tensor<256x64xf8E4M3FN>, tensor<256x64xf8E4M3FN>, tensor<64x256xf8E4M3FN>) shared_scales(%ssg, %ssu, %ssd : tensor<2x1xf32>, tensor<2x1xf32>, tensor<1x2xf32>) {top_k = 4, renormalize, scoring = #kgen.scoring<sigmoid>, n_group = 4, topk_group = 2, routed_scaling_factor = 2.5 : f32} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  %i, %rw = kgen.moe_route %l correction_bias(%b : tensor<8xf32>) {top_k = 2, scoring = #kgen.scoring<sigmoid>} : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  %i2, %rw2 = kgen.moe_route %l {top_k = 2, scoring = #kgen.scoring<softmax>, routed_scaling_factor = 1.0 : f32} : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  %h = kgen.grouped_gemm %x, %wg, %off gated(%wu : tensor<8x256x128xf8E4M3FN>) scales(%sg, %su : tensor<8x2x1xf32>, tensor<8x2x1xf32>) {activation = #kgen.activation<silu>} : tensor<4x256xbf16>, tensor<8x256x128xf8E4M3FN>, tensor<9xi32> -> tensor<4x128xbf16>
  %c = kgen.moe_combine %eo, %pos, %w shared(%x : tensor<4x256xbf16>) : tensor<8x256xbf16>, tensor<4x2xi32>, tensor<4x2xf32> -> tensor<4x256xbf16>
  return %y, %i, %rw, %i2, %rw2, %h, %c : tensor<4x256xbf16>, tensor<4x2xi32>, tensor<4x2xf32>, tensor<4x2xi32>, tensor<4x2xf32>, tensor<4x128xbf16>, tensor<4x256xbf16>
}

// -----

// The default activation (silu) is not printed; others are.
// CHECK-LABEL: func.func @moe_activations(
// CHECK:         kgen.moe {{.+}} {top_k = 1 : i64} : tensor<4x32xf16>, tensor<4x4xf16>
// CHECK:         kgen.moe {{.+}} {activation = #kgen.activation<gelu>, top_k = 4 : i64} : tensor<4x32xf16>, tensor<4x4xf16>
// CHECK:         kgen.moe {{.+}} {activation = #kgen.activation<relu>, top_k = 3 : i64} : tensor<4x32xf16>, tensor<4x4xf16>
func.func @moe_activations(%x: tensor<4x32xf16>, %logits: tensor<4x4xf16>, %wg: tensor<4x32x16xf16>, %wu: tensor<4x32x16xf16>, %wd: tensor<4x16x32xf16>) -> (tensor<4x32xf16>, tensor<4x32xf16>, tensor<4x32xf16>) {
  %y0 = kgen.moe %x, %logits, %wg, %wu, %wd {top_k = 1, activation = #kgen.activation<silu>} : tensor<4x32xf16>, tensor<4x4xf16>, tensor<4x32x16xf16>, tensor<4x32x16xf16>, tensor<4x16x32xf16> -> tensor<4x32xf16>
  %y1 = kgen.moe %x, %logits, %wg, %wu, %wd {top_k = 4, activation = #kgen.activation<gelu>} : tensor<4x32xf16>, tensor<4x4xf16>, tensor<4x32x16xf16>, tensor<4x32x16xf16>, tensor<4x16x32xf16> -> tensor<4x32xf16>
  %y2 = kgen.moe %x, %logits, %wg, %wu, %wd {top_k = 3, activation = #kgen.activation<relu>} : tensor<4x32xf16>, tensor<4x4xf16>, tensor<4x32x16xf16>, tensor<4x32x16xf16>, tensor<4x16x32xf16> -> tensor<4x32xf16>
  return %y0, %y1, %y2 : tensor<4x32xf16>, tensor<4x32xf16>, tensor<4x32xf16>
}

// -----

// f32 and f8 layers; the output may have another float type than x.
// CHECK-LABEL: func.func @moe_types(
// CHECK:         kgen.moe {{.+}} : tensor<4x32xf32>, tensor<4x2xbf16>, tensor<2x32x8xf32>, tensor<2x32x8xf32>, tensor<2x8x32xf32> -> tensor<4x32xf32>
// CHECK:         kgen.moe {{.+}} : tensor<4x32xf8E4M3FN>, tensor<4x2xf32>, tensor<2x32x8xf8E4M3FN>, tensor<2x32x8xf8E4M3FN>, tensor<2x8x32xf8E4M3FN> -> tensor<4x32xbf16>
func.func @moe_types(%x: tensor<4x32xf32>, %l: tensor<4x2xbf16>, %wg: tensor<2x32x8xf32>, %wu: tensor<2x32x8xf32>, %wd: tensor<2x8x32xf32>,
                     %x8: tensor<4x32xf8E4M3FN>, %l8: tensor<4x2xf32>, %wg8: tensor<2x32x8xf8E4M3FN>, %wu8: tensor<2x32x8xf8E4M3FN>, %wd8: tensor<2x8x32xf8E4M3FN>) -> (tensor<4x32xf32>, tensor<4x32xbf16>) {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2} : tensor<4x32xf32>, tensor<4x2xbf16>, tensor<2x32x8xf32>, tensor<2x32x8xf32>, tensor<2x8x32xf32> -> tensor<4x32xf32>
  %y8 = kgen.moe %x8, %l8, %wg8, %wu8, %wd8 {top_k = 1} : tensor<4x32xf8E4M3FN>, tensor<4x2xf32>, tensor<2x32x8xf8E4M3FN>, tensor<2x32x8xf8E4M3FN>, tensor<2x8x32xf8E4M3FN> -> tensor<4x32xbf16>
  return %y, %y8 : tensor<4x32xf32>, tensor<4x32xbf16>
}

// -----

// CHECK-LABEL: func.func @moe_route(
// CHECK-SAME:    %[[L:.+]]: tensor<16x8xf32>)
// CHECK:         %[[IDS:.+]], %[[W:.+]] = kgen.moe_route %[[L]] {renormalize, top_k = 2 : i64} : tensor<16x8xf32> -> tensor<16x2xi32>, tensor<16x2xf32>
// CHECK:         %[[IDS1:.+]], %[[W1:.+]] = kgen.moe_route %[[L]] {top_k = 8 : i64} : tensor<16x8xf32> -> tensor<16x8xi32>, tensor<16x8xf32>
// CHECK:         return %[[IDS]], %[[W]], %[[IDS1]], %[[W1]]
func.func @moe_route(%logits: tensor<16x8xf32>) -> (tensor<16x2xi32>, tensor<16x2xf32>, tensor<16x8xi32>, tensor<16x8xf32>) {
  %ids, %w = kgen.moe_route %logits {top_k = 2, renormalize} : tensor<16x8xf32> -> tensor<16x2xi32>, tensor<16x2xf32>
  %ids1, %w1 = kgen.moe_route %logits {top_k = 8} : tensor<16x8xf32> -> tensor<16x8xi32>, tensor<16x8xf32>
  return %ids, %w, %ids1, %w1 : tensor<16x2xi32>, tensor<16x2xf32>, tensor<16x8xi32>, tensor<16x8xf32>
}

// -----

// CHECK-LABEL: func.func @moe_route_bf16(
// CHECK:         kgen.moe_route %{{.+}} {top_k = 1 : i64} : tensor<3x5xbf16> -> tensor<3x1xi32>, tensor<3x1xf32>
func.func @moe_route_bf16(%logits: tensor<3x5xbf16>) -> (tensor<3x1xi32>, tensor<3x1xf32>) {
  %ids, %w = kgen.moe_route %logits {top_k = 1} : tensor<3x5xbf16> -> tensor<3x1xi32>, tensor<3x1xf32>
  return %ids, %w : tensor<3x1xi32>, tensor<3x1xf32>
}

// -----

// CHECK-LABEL: func.func @moe_permute(
// CHECK-SAME:    %[[X:.+]]: tensor<16x64xbf16>, %[[IDS:.+]]: tensor<16x2xi32>)
// CHECK:         %[[XP:.+]], %[[POS:.+]], %[[OFF:.+]] = kgen.moe_permute %[[X]], %[[IDS]] {num_experts = 8 : i64} : tensor<16x64xbf16>, tensor<16x2xi32> -> tensor<32x64xbf16>, tensor<16x2xi32>, tensor<9xi32>
// CHECK:         return %[[XP]], %[[POS]], %[[OFF]]
func.func @moe_permute(%x: tensor<16x64xbf16>, %ids: tensor<16x2xi32>) -> (tensor<32x64xbf16>, tensor<16x2xi32>, tensor<9xi32>) {
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 8} : tensor<16x64xbf16>, tensor<16x2xi32> -> tensor<32x64xbf16>, tensor<16x2xi32>, tensor<9xi32>
  return %xp, %pos, %off : tensor<32x64xbf16>, tensor<16x2xi32>, tensor<9xi32>
}

// -----

// One expert, k = 1, f8 rows.
// CHECK-LABEL: func.func @moe_permute_single(
// CHECK:         kgen.moe_permute %{{.+}}, %{{.+}} {num_experts = 1 : i64} : tensor<5x16xf8E4M3FN>, tensor<5x1xi32> -> tensor<5x16xf8E4M3FN>, tensor<5x1xi32>, tensor<2xi32>
func.func @moe_permute_single(%x: tensor<5x16xf8E4M3FN>, %ids: tensor<5x1xi32>) -> (tensor<5x16xf8E4M3FN>, tensor<5x1xi32>, tensor<2xi32>) {
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 1} : tensor<5x16xf8E4M3FN>, tensor<5x1xi32> -> tensor<5x16xf8E4M3FN>, tensor<5x1xi32>, tensor<2xi32>
  return %xp, %pos, %off : tensor<5x16xf8E4M3FN>, tensor<5x1xi32>, tensor<2xi32>
}

// -----

// CHECK-LABEL: func.func @grouped_gemm(
// CHECK-SAME:    %[[A:.+]]: tensor<32x64xbf16>, %[[B:.+]]: tensor<8x64x128xbf16>, %[[OFF:.+]]: tensor<9xi32>)
// CHECK:         %[[D:.+]] = kgen.grouped_gemm %[[A]], %[[B]], %[[OFF]] : tensor<32x64xbf16>, tensor<8x64x128xbf16>, tensor<9xi32> -> tensor<32x128xbf16>
// CHECK:         return %[[D]]
func.func @grouped_gemm(%a: tensor<32x64xbf16>, %b: tensor<8x64x128xbf16>, %off: tensor<9xi32>) -> tensor<32x128xbf16> {
  %d = kgen.grouped_gemm %a, %b, %off : tensor<32x64xbf16>, tensor<8x64x128xbf16>, tensor<9xi32> -> tensor<32x128xbf16>
  return %d : tensor<32x128xbf16>
}

// -----

// CHECK-LABEL: func.func @grouped_gemm_activation(
// CHECK:         kgen.grouped_gemm %{{.+}}, %{{.+}}, %{{.+}} {activation = #kgen.activation<relu>} : tensor<32x64xf32>, tensor<2x64x16xf32>, tensor<3xi32> -> tensor<32x16xf16>
func.func @grouped_gemm_activation(%a: tensor<32x64xf32>, %b: tensor<2x64x16xf32>, %off: tensor<3xi32>) -> tensor<32x16xf16> {
  %d = kgen.grouped_gemm %a, %b, %off {activation = #kgen.activation<relu>} : tensor<32x64xf32>, tensor<2x64x16xf32>, tensor<3xi32> -> tensor<32x16xf16>
  return %d : tensor<32x16xf16>
}

// -----

// CHECK-LABEL: func.func @grouped_gemm_gated(
// CHECK-SAME:    %[[A:.+]]: tensor<32x64xbf16>, %[[B:.+]]: tensor<8x64x128xbf16>, %[[OFF:.+]]: tensor<9xi32>, %[[UP:.+]]: tensor<8x64x128xbf16>)
// CHECK:         %[[D:.+]] = kgen.grouped_gemm %[[A]], %[[B]], %[[OFF]] gated(%[[UP]] : tensor<8x64x128xbf16>) {activation = #kgen.activation<silu>} : tensor<32x64xbf16>, tensor<8x64x128xbf16>, tensor<9xi32> -> tensor<32x128xbf16>
// CHECK:         return %[[D]]
func.func @grouped_gemm_gated(%a: tensor<32x64xbf16>, %b: tensor<8x64x128xbf16>, %off: tensor<9xi32>, %up: tensor<8x64x128xbf16>) -> tensor<32x128xbf16> {
  %d = kgen.grouped_gemm %a, %b, %off gated(%up : tensor<8x64x128xbf16>) {activation = #kgen.activation<silu>} : tensor<32x64xbf16>, tensor<8x64x128xbf16>, tensor<9xi32> -> tensor<32x128xbf16>
  return %d : tensor<32x128xbf16>
}

// -----

// Gated without an activation, on f8 and gelu on f16.
// CHECK-LABEL: func.func @grouped_gemm_gated_types(
// CHECK:         kgen.grouped_gemm %{{.+}}, %{{.+}}, %{{.+}} gated(%{{.+}} : tensor<1x32x8xf8E4M3FN>) : tensor<4x32xf8E4M3FN>, tensor<1x32x8xf8E4M3FN>, tensor<2xi32> -> tensor<4x8xf8E4M3FN>
// CHECK:         kgen.grouped_gemm %{{.+}}, %{{.+}}, %{{.+}} gated(%{{.+}} : tensor<3x32x8xf16>) {activation = #kgen.activation<gelu>} : tensor<4x32xf16>, tensor<3x32x8xf16>, tensor<4xi32> -> tensor<4x8xf16>
func.func @grouped_gemm_gated_types(%a8: tensor<4x32xf8E4M3FN>, %b8: tensor<1x32x8xf8E4M3FN>, %off2: tensor<2xi32>,
                                    %a: tensor<4x32xf16>, %b: tensor<3x32x8xf16>, %off4: tensor<4xi32>) -> (tensor<4x8xf8E4M3FN>, tensor<4x8xf16>) {
  %d8 = kgen.grouped_gemm %a8, %b8, %off2 gated(%b8 : tensor<1x32x8xf8E4M3FN>) : tensor<4x32xf8E4M3FN>, tensor<1x32x8xf8E4M3FN>, tensor<2xi32> -> tensor<4x8xf8E4M3FN>
  %d = kgen.grouped_gemm %a, %b, %off4 gated(%b : tensor<3x32x8xf16>) {activation = #kgen.activation<gelu>} : tensor<4x32xf16>, tensor<3x32x8xf16>, tensor<4xi32> -> tensor<4x8xf16>
  return %d8, %d : tensor<4x8xf8E4M3FN>, tensor<4x8xf16>
}

// -----

// CHECK-LABEL: func.func @moe_combine(
// CHECK-SAME:    %[[YP:.+]]: tensor<32x64xbf16>, %[[POS:.+]]: tensor<16x2xi32>, %[[W:.+]]: tensor<16x2xf32>)
// CHECK:         %[[Y:.+]] = kgen.moe_combine %[[YP]], %[[POS]], %[[W]] : tensor<32x64xbf16>, tensor<16x2xi32>, tensor<16x2xf32> -> tensor<16x64xbf16>
// CHECK:         return %[[Y]]
func.func @moe_combine(%yp: tensor<32x64xbf16>, %pos: tensor<16x2xi32>, %w: tensor<16x2xf32>) -> tensor<16x64xbf16> {
  %y = kgen.moe_combine %yp, %pos, %w : tensor<32x64xbf16>, tensor<16x2xi32>, tensor<16x2xf32> -> tensor<16x64xbf16>
  return %y : tensor<16x64xbf16>
}

// -----

// CHECK-LABEL: func.func @moe_combine_types(
// CHECK:         kgen.moe_combine %{{.+}}, %{{.+}}, %{{.+}} : tensor<12x8xf8E4M3FN>, tensor<4x3xi32>, tensor<4x3xbf16> -> tensor<4x8xf32>
func.func @moe_combine_types(%yp: tensor<12x8xf8E4M3FN>, %pos: tensor<4x3xi32>, %w: tensor<4x3xbf16>) -> tensor<4x8xf32> {
  %y = kgen.moe_combine %yp, %pos, %w : tensor<12x8xf8E4M3FN>, tensor<4x3xi32>, tensor<4x3xbf16> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// The whole decomposed layer, chained.
// CHECK-LABEL: func.func @moe_chain(
// CHECK-SAME:    %[[X:.+]]: tensor<4x32xf16>, %[[L:.+]]: tensor<4x3xf32>, %[[WG:.+]]: tensor<3x32x16xf16>, %[[WU:.+]]: tensor<3x32x16xf16>, %[[WD:.+]]: tensor<3x16x32xf16>)
// CHECK:         %[[IDS:.+]], %[[W:.+]] = kgen.moe_route %[[L]]
// CHECK:         %[[XP:.+]], %[[POS:.+]], %[[OFF:.+]] = kgen.moe_permute %[[X]], %[[IDS]]
// CHECK:         %[[H:.+]] = kgen.grouped_gemm %[[XP]], %[[WG]], %[[OFF]] gated(%[[WU]] : tensor<3x32x16xf16>)
// CHECK:         %[[YP:.+]] = kgen.grouped_gemm %[[H]], %[[WD]], %[[OFF]] :
// CHECK:         %[[Y:.+]] = kgen.moe_combine %[[YP]], %[[POS]], %[[W]]
// CHECK:         return %[[Y]]
func.func @moe_chain(%x: tensor<4x32xf16>, %logits: tensor<4x3xf32>, %wg: tensor<3x32x16xf16>, %wu: tensor<3x32x16xf16>, %wd: tensor<3x16x32xf16>) -> tensor<4x32xf16> {
  %ids, %w = kgen.moe_route %logits {top_k = 2} : tensor<4x3xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 3} : tensor<4x32xf16>, tensor<4x2xi32> -> tensor<8x32xf16>, tensor<4x2xi32>, tensor<4xi32>
  %h = kgen.grouped_gemm %xp, %wg, %off gated(%wu : tensor<3x32x16xf16>) {activation = #kgen.activation<silu>} : tensor<8x32xf16>, tensor<3x32x16xf16>, tensor<4xi32> -> tensor<8x16xf16>
  %yp = kgen.grouped_gemm %h, %wd, %off : tensor<8x16xf16>, tensor<3x16x32xf16>, tensor<4xi32> -> tensor<8x32xf16>
  %y = kgen.moe_combine %yp, %pos, %w : tensor<8x32xf16>, tensor<4x2xi32>, tensor<4x2xf32> -> tensor<4x32xf16>
  return %y : tensor<4x32xf16>
}
