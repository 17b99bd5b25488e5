// One case per verifier rule of dialect/KgenOps.cpp, plus ODS-level failures.
// RUN: kgen-opt %s --split-input-file --verify-diagnostics

//===----------------------------------------------------------------------===//
// kgen.gemm: a
//===----------------------------------------------------------------------===//

func.func @gemm_a_rank1(%a: tensor<32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'a' must have rank 2 or 3 ([M, K] or [batch, M, K]); got 'tensor<32xf32>'}}
  %d = kgen.gemm %a, %b : tensor<32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

func.func @gemm_a_rank4(%a: tensor<2x2x16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'a' must have rank 2 or 3 ([M, K] or [batch, M, K]); got 'tensor<2x2x16x32xf32>'}}
  %d = kgen.gemm %a, %b : tensor<2x2x16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

// The layout in the message follows transpose_a.
func.func @gemm_a_rank_transposed(%a: tensor<32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'a' must have rank 2 or 3 ([K, M] or [batch, K, M]); got 'tensor<32xf32>'}}
  %d = kgen.gemm %a, %b {transpose_a} : tensor<32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

func.func @gemm_a_dynamic(%a: tensor<?x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'a' must have a static shape; got 'tensor<?x32xf32>'}}
  %d = kgen.gemm %a, %b : tensor<?x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

func.func @gemm_a_zero_dim(%a: tensor<16x0xf32>, %b: tensor<0x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'a' dimension 1 is 0; kgen ops need non-empty tensors}}
  %d = kgen.gemm %a, %b : tensor<16x0xf32>, tensor<0x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

func.func @gemm_a_int(%a: tensor<16x32xi32>, %b: tensor<32x8xi32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'a' has element type 'i32'; expected f16, bf16, f32 or f8E4M3FN}}
  %d = kgen.gemm %a, %b : tensor<16x32xi32>, tensor<32x8xi32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

func.func @gemm_a_f64(%a: tensor<16x32xf64>, %b: tensor<32x8xf64>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'a' has element type 'f64'; expected f16, bf16, f32 or f8E4M3FN}}
  %d = kgen.gemm %a, %b : tensor<16x32xf64>, tensor<32x8xf64> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

// Only the OCP f8E4M3FN is supported, not the other 8-bit floats.
func.func @gemm_a_f8e5m2(%a: tensor<16x32xf8E5M2>, %b: tensor<32x8xf8E5M2>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'a' has element type 'f8E5M2'; expected f16, bf16, f32 or f8E4M3FN}}
  %d = kgen.gemm %a, %b : tensor<16x32xf8E5M2>, tensor<32x8xf8E5M2> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

//===----------------------------------------------------------------------===//
// kgen.gemm: b
//===----------------------------------------------------------------------===//

// -----

func.func @gemm_b_rank(%a: tensor<16x32xf32>, %b: tensor<32xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'b' must have rank 2 or 3 ([K, N] or [batch, K, N]); got 'tensor<32xf32>'}}
  %d = kgen.gemm %a, %b : tensor<16x32xf32>, tensor<32xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

func.func @gemm_b_rank_transposed(%a: tensor<16x32xf32>, %b: tensor<1x1x8x32xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'b' must have rank 2 or 3 ([N, K] or [batch, N, K]); got 'tensor<1x1x8x32xf32>'}}
  %d = kgen.gemm %a, %b {transpose_b} : tensor<16x32xf32>, tensor<1x1x8x32xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

func.func @gemm_b_dynamic(%a: tensor<16x32xf32>, %b: tensor<32x?xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'b' must have a static shape; got 'tensor<32x?xf32>'}}
  %d = kgen.gemm %a, %b : tensor<16x32xf32>, tensor<32x?xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

func.func @gemm_b_zero_dim(%a: tensor<16x32xf32>, %b: tensor<32x0xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'b' dimension 1 is 0; kgen ops need non-empty tensors}}
  %d = kgen.gemm %a, %b : tensor<16x32xf32>, tensor<32x0xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

func.func @gemm_b_elem(%a: tensor<16x32xbf16>, %b: tensor<32x8xf16>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'b' has element type 'f16'; expected 'bf16' (the element type of 'a')}}
  %d = kgen.gemm %a, %b : tensor<16x32xbf16>, tensor<32x8xf16> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

func.func @gemm_b_batched_a_not(%a: tensor<16x32xf32>, %b: tensor<2x32x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'b' has a batch dimension but 'a' does not; only a 'b' without one is broadcast}}
  %d = kgen.gemm %a, %b : tensor<16x32xf32>, tensor<2x32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

func.func @gemm_b_batch_mismatch(%a: tensor<2x16x32xf32>, %b: tensor<3x32x8xf32>) -> tensor<2x16x8xf32> {
  // expected-error @+1 {{'b' dimension 0 (batch) is 3; expected 2 (batch of 'a')}}
  %d = kgen.gemm %a, %b : tensor<2x16x32xf32>, tensor<3x32x8xf32> -> tensor<2x16x8xf32>
  return %d : tensor<2x16x8xf32>
}

// -----

func.func @gemm_b_k_mismatch(%a: tensor<16x32xf32>, %b: tensor<64x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'b' dimension 0 (K) is 64; expected 32 (K of 'a')}}
  %d = kgen.gemm %a, %b : tensor<16x32xf32>, tensor<64x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

// With transpose_b, K is the last dimension of b.
func.func @gemm_b_k_mismatch_transposed(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{'b' dimension 1 (K) is 8; expected 32 (K of 'a')}}
  %d = kgen.gemm %a, %b {transpose_b} : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x32xf32>
  return %d : tensor<16x32xf32>
}

// -----

// With transpose_a, K is the first dimension of a.
func.func @gemm_b_k_mismatch_transposed_a(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<32x8xf32> {
  // expected-error @+1 {{'b' dimension 0 (K) is 32; expected 16 (K of 'a')}}
  %d = kgen.gemm %a, %b {transpose_a} : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<32x8xf32>
  return %d : tensor<32x8xf32>
}

// -----

func.func @gemm_b_k_mismatch_batched(%a: tensor<2x16x32xf32>, %b: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  // expected-error @+1 {{'b' dimension 1 (K) is 16; expected 32 (K of 'a')}}
  %d = kgen.gemm %a, %b : tensor<2x16x32xf32>, tensor<2x16x8xf32> -> tensor<2x16x8xf32>
  return %d : tensor<2x16x8xf32>
}

//===----------------------------------------------------------------------===//
// kgen.gemm: d
//===----------------------------------------------------------------------===//

// -----

func.func @gemm_d_rank(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<1x16x8xf32> {
  // expected-error @+1 {{'d' must have rank 2 ([M, N]); got 'tensor<1x16x8xf32>'}}
  %d = kgen.gemm %a, %b : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<1x16x8xf32>
  return %d : tensor<1x16x8xf32>
}

// -----

func.func @gemm_d_rank_batched(%a: tensor<2x16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'d' must have rank 3 ([batch, M, N]); got 'tensor<16x8xf32>'}}
  %d = kgen.gemm %a, %b : tensor<2x16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

func.func @gemm_d_dynamic(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'d' must have a static shape; got 'tensor<?x8xf32>'}}
  %d = kgen.gemm %a, %b : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<?x8xf32>
  return %d : tensor<?x8xf32>
}

// -----

func.func @gemm_d_elem(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xi8> {
  // expected-error @+1 {{'d' has element type 'i8'; expected f16, bf16, f32 or f8E4M3FN}}
  %d = kgen.gemm %a, %b : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xi8>
  return %d : tensor<16x8xi8>
}

// -----

func.func @gemm_d_shape(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{'d' has shape [16, 16]; expected [16, 8] ([M, N])}}
  %d = kgen.gemm %a, %b : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x16xf32>
  return %d : tensor<16x16xf32>
}

// -----

// transpose_a: M is the last dimension of a.
func.func @gemm_d_shape_transposed(%a: tensor<32x16xf32>, %b: tensor<32x8xf32>) -> tensor<32x8xf32> {
  // expected-error @+1 {{'d' has shape [32, 8]; expected [16, 8] ([M, N])}}
  %d = kgen.gemm %a, %b {transpose_a} : tensor<32x16xf32>, tensor<32x8xf32> -> tensor<32x8xf32>
  return %d : tensor<32x8xf32>
}

// -----

func.func @gemm_d_shape_batched(%a: tensor<2x16x32xf32>, %b: tensor<8x32xf32>) -> tensor<1x16x8xf32> {
  // expected-error @+1 {{'d' has shape [1, 16, 8]; expected [2, 16, 8] ([batch, M, N])}}
  %d = kgen.gemm %a, %b {transpose_b} : tensor<2x16x32xf32>, tensor<8x32xf32> -> tensor<1x16x8xf32>
  return %d : tensor<1x16x8xf32>
}

//===----------------------------------------------------------------------===//
// kgen.gemm: bias and residual
//===----------------------------------------------------------------------===//

// -----

func.func @gemm_bias_rank(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>, %bias: tensor<1x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'bias' must have rank 1 ([N]); got 'tensor<1x8xf32>'}}
  %d = kgen.gemm %a, %b bias(%bias : tensor<1x8xf32>) : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

func.func @gemm_bias_dynamic(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>, %bias: tensor<?xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'bias' must have a static shape; got 'tensor<?xf32>'}}
  %d = kgen.gemm %a, %b bias(%bias : tensor<?xf32>) : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

func.func @gemm_bias_elem(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>, %bias: tensor<8xi32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'bias' has element type 'i32'; expected f16, bf16, f32 or f8E4M3FN}}
  %d = kgen.gemm %a, %b bias(%bias : tensor<8xi32>) : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

// The bias is per column (N), not per row (M).
func.func @gemm_bias_shape(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>, %bias: tensor<16xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'bias' has shape [16]; expected [8] ([N])}}
  %d = kgen.gemm %a, %b bias(%bias : tensor<16xf32>) : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

func.func @gemm_residual_rank(%a: tensor<2x16x32xf32>, %b: tensor<32x8xf32>, %c: tensor<16x8xf32>) -> tensor<2x16x8xf32> {
  // expected-error @+1 {{'c' must have rank 3 ([batch, M, N]); got 'tensor<16x8xf32>'}}
  %d = kgen.gemm %a, %b residual(%c : tensor<16x8xf32>) : tensor<2x16x32xf32>, tensor<32x8xf32> -> tensor<2x16x8xf32>
  return %d : tensor<2x16x8xf32>
}

// -----

func.func @gemm_residual_zero_dim(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>, %c: tensor<0x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'c' dimension 0 is 0; kgen ops need non-empty tensors}}
  %d = kgen.gemm %a, %b residual(%c : tensor<0x8xf32>) : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

func.func @gemm_residual_elem(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>, %c: tensor<16x8xi16>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'c' has element type 'i16'; expected f16, bf16, f32 or f8E4M3FN}}
  %d = kgen.gemm %a, %b residual(%c : tensor<16x8xi16>) : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

func.func @gemm_residual_shape(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>, %c: tensor<8x16xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'c' has shape [8, 16]; expected [16, 8] ([M, N])}}
  %d = kgen.gemm %a, %b residual(%c : tensor<8x16xf32>) : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

func.func @gemm_beta_without_residual(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'beta' scales the residual and needs a residual operand 'c'}}
  %d = kgen.gemm %a, %b {beta = 0.5 : f32} : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

//===----------------------------------------------------------------------===//
// kgen.gemm: attributes
//===----------------------------------------------------------------------===//

// -----

func.func @gemm_alpha_inf(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'alpha' must be finite}}
  %d = kgen.gemm %a, %b {alpha = 0x7F800000 : f32} : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

func.func @gemm_alpha_nan(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'alpha' must be finite}}
  %d = kgen.gemm %a, %b {alpha = 0x7FC00000 : f32} : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

func.func @gemm_beta_neg_inf(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'beta' must be finite}}
  %d = kgen.gemm %a, %b residual(%c : tensor<16x8xf32>) {beta = 0xFF800000 : f32} : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

func.func @gemm_acc_type_bf16(%a: tensor<16x32xbf16>, %b: tensor<32x8xbf16>) -> tensor<16x8xbf16> {
  // expected-error @+1 {{'acc_type' is 'bf16'; expected f32 or f16}}
  %d = kgen.gemm %a, %b {acc_type = bf16} : tensor<16x32xbf16>, tensor<32x8xbf16> -> tensor<16x8xbf16>
  return %d : tensor<16x8xbf16>
}

// -----

func.func @gemm_acc_type_int(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'acc_type' is 'i32'; expected f32 or f16}}
  %d = kgen.gemm %a, %b {acc_type = i32} : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

func.func @gemm_acc_f16_with_bf16(%a: tensor<16x32xbf16>, %b: tensor<32x8xbf16>) -> tensor<16x8xbf16> {
  // expected-error @+1 {{'acc_type' f16 needs f16 operands; 'a' has 'bf16'}}
  %d = kgen.gemm %a, %b {acc_type = f16} : tensor<16x32xbf16>, tensor<32x8xbf16> -> tensor<16x8xbf16>
  return %d : tensor<16x8xbf16>
}

// -----

func.func @gemm_acc_f16_with_f32(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf16> {
  // expected-error @+1 {{'acc_type' f16 needs f16 operands; 'a' has 'f32'}}
  %d = kgen.gemm %a, %b {acc_type = f16} : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf16>
  return %d : tensor<16x8xf16>
}

// -----

func.func @gemm_unknown_activation(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+2 {{expected ::mlir::kgen::Activation to be one of: none, relu, gelu, silu}}
  // expected-error @+1 {{failed to parse Kgen_ActivationAttr parameter 'value'}}
  %d = kgen.gemm %a, %b {activation = #kgen.activation<tanh>} : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

// alpha is an f32 attribute.
func.func @gemm_alpha_f64(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{attribute 'alpha' failed to satisfy constraint: 32-bit float attribute}}
  %d = kgen.gemm %a, %b {alpha = 2.0 : f64} : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

// -----

// Operands must be ranked tensors.
func.func @gemm_memref(%a: memref<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  // expected-error @+1 {{operand #0 must be ranked tensor of any type values, but got 'memref<16x32xf32>'}}
  %d = "kgen.gemm"(%a, %b) {operandSegmentSizes = array<i32: 1, 1, 0, 0>} : (memref<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
  return %d : tensor<16x8xf32>
}

//===----------------------------------------------------------------------===//
// kgen.attention: q, k, v
//===----------------------------------------------------------------------===//

// -----

func.func @attention_q_rank(%q: tensor<8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'q' must have rank 4 ([B, Hq, Sq, D]); got 'tensor<8x16x64xf32>'}}
  %o = kgen.attention %q, %k, %v : tensor<8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

func.func @attention_q_dynamic(%q: tensor<1x8x?x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'q' must have a static shape; got 'tensor<1x8x?x64xf32>'}}
  %o = kgen.attention %q, %k, %v : tensor<1x8x?x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

func.func @attention_q_zero_dim(%q: tensor<1x8x0x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<1x8x0x64xf32> {
  // expected-error @+1 {{'q' dimension 2 is 0; kgen ops need non-empty tensors}}
  %o = kgen.attention %q, %k, %v : tensor<1x8x0x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x0x64xf32>
  return %o : tensor<1x8x0x64xf32>
}

// -----

func.func @attention_q_elem(%q: tensor<1x8x16x64xi8>, %k: tensor<1x8x16x64xi8>, %v: tensor<1x8x16x64xi8>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'q' has element type 'i8'; expected f16, bf16, f32 or f8E4M3FN}}
  %o = kgen.attention %q, %k, %v : tensor<1x8x16x64xi8>, tensor<1x8x16x64xi8>, tensor<1x8x16x64xi8> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

func.func @attention_k_rank(%q: tensor<1x8x16x64xf32>, %k: tensor<8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'k' must have rank 4 ([B, Hkv, Skv, D]); got 'tensor<8x16x64xf32>'}}
  %o = kgen.attention %q, %k, %v : tensor<1x8x16x64xf32>, tensor<8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

func.func @attention_k_dynamic(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x?x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'k' must have a static shape; got 'tensor<1x8x?x64xf32>'}}
  %o = kgen.attention %q, %k, %v : tensor<1x8x16x64xf32>, tensor<1x8x?x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

func.func @attention_k_elem(%q: tensor<1x8x16x64xf16>, %k: tensor<1x8x16x64xbf16>, %v: tensor<1x8x16x64xf16>) -> tensor<1x8x16x64xf16> {
  // expected-error @+1 {{'k' has element type 'bf16'; expected 'f16' (the element type of 'q'), or f8E4M3FN (an e4m3 cache) when 'q' is bf16, f16 or f8E4M3FN}}
  %o = kgen.attention %q, %k, %v : tensor<1x8x16x64xf16>, tensor<1x8x16x64xbf16>, tensor<1x8x16x64xf16> -> tensor<1x8x16x64xf16>
  return %o : tensor<1x8x16x64xf16>
}

// -----

func.func @attention_v_rank(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'v' must have rank 4 ([B, Hkv, Skv, D]); got 'tensor<1x1x8x16x64xf32>'}}
  %o = kgen.attention %q, %k, %v : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

func.func @attention_v_zero_dim(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x0xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'v' dimension 3 is 0; kgen ops need non-empty tensors}}
  %o = kgen.attention %q, %k, %v : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x0xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

func.func @attention_v_elem(%q: tensor<1x8x16x64xbf16>, %k: tensor<1x8x16x64xbf16>, %v: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xbf16> {
  // expected-error @+1 {{'v' has element type 'f32'; expected 'bf16' (the element type of 'k')}}
  %o = kgen.attention %q, %k, %v : tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xbf16>
  return %o : tensor<1x8x16x64xbf16>
}

// -----

func.func @attention_head_dim_small(%q: tensor<1x8x16x24xf32>, %k: tensor<1x8x16x24xf32>, %v: tensor<1x8x16x24xf32>) -> tensor<1x8x16x24xf32> {
  // expected-error @+1 {{head_dim (dimension 3 of 'q') is 24; expected a multiple of 8 in [32, 256]}}
  %o = kgen.attention %q, %k, %v : tensor<1x8x16x24xf32>, tensor<1x8x16x24xf32>, tensor<1x8x16x24xf32> -> tensor<1x8x16x24xf32>
  return %o : tensor<1x8x16x24xf32>
}

// -----

func.func @attention_head_dim_large(%q: tensor<1x1x4x264xf32>, %k: tensor<1x1x4x264xf32>, %v: tensor<1x1x4x264xf32>) -> tensor<1x1x4x264xf32> {
  // expected-error @+1 {{head_dim (dimension 3 of 'q') is 264; expected a multiple of 8 in [32, 256]}}
  %o = kgen.attention %q, %k, %v : tensor<1x1x4x264xf32>, tensor<1x1x4x264xf32>, tensor<1x1x4x264xf32> -> tensor<1x1x4x264xf32>
  return %o : tensor<1x1x4x264xf32>
}

// -----

func.func @attention_head_dim_not_multiple_of_8(%q: tensor<1x1x4x36xf32>, %k: tensor<1x1x4x36xf32>, %v: tensor<1x1x4x36xf32>) -> tensor<1x1x4x36xf32> {
  // expected-error @+1 {{head_dim (dimension 3 of 'q') is 36; expected a multiple of 8 in [32, 256]}}
  %o = kgen.attention %q, %k, %v : tensor<1x1x4x36xf32>, tensor<1x1x4x36xf32>, tensor<1x1x4x36xf32> -> tensor<1x1x4x36xf32>
  return %o : tensor<1x1x4x36xf32>
}

// -----

func.func @attention_k_batch(%q: tensor<2x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<2x8x16x64xf32> {
  // expected-error @+1 {{'k' has shape [1, 8, 16, 64]; expected [2, 8, 16, 64] ([B, Hkv, Skv, D] with B and D of 'q')}}
  %o = kgen.attention %q, %k, %v : tensor<2x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<2x8x16x64xf32>
  return %o : tensor<2x8x16x64xf32>
}

// -----

func.func @attention_k_head_dim(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x128xf32>, %v: tensor<1x8x16x128xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'k' has shape [1, 8, 16, 128]; expected [1, 8, 16, 64] ([B, Hkv, Skv, D] with B and D of 'q')}}
  %o = kgen.attention %q, %k, %v : tensor<1x8x16x64xf32>, tensor<1x8x16x128xf32>, tensor<1x8x16x128xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

func.func @attention_v_shape(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x32x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'v' has shape [1, 8, 16, 64]; expected [1, 8, 32, 64] ([B, Hkv, Skv, D], the shape of 'k')}}
  %o = kgen.attention %q, %k, %v : tensor<1x8x16x64xf32>, tensor<1x8x32x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

func.func @attention_heads_not_divisible(%q: tensor<1x8x16x64xf32>, %k: tensor<1x3x16x64xf32>, %v: tensor<1x3x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{query heads (8) must be a multiple of key/value heads (3)}}
  %o = kgen.attention %q, %k, %v : tensor<1x8x16x64xf32>, tensor<1x3x16x64xf32>, tensor<1x3x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

// More key/value heads than query heads.
func.func @attention_more_kv_heads(%q: tensor<1x4x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<1x4x16x64xf32> {
  // expected-error @+1 {{query heads (4) must be a multiple of key/value heads (8)}}
  %o = kgen.attention %q, %k, %v : tensor<1x4x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x4x16x64xf32>
  return %o : tensor<1x4x16x64xf32>
}

//===----------------------------------------------------------------------===//
// kgen.attention: results and kv_lens
//===----------------------------------------------------------------------===//

// -----

func.func @attention_out_rank(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<8x16x64xf32> {
  // expected-error @+1 {{'out' must have rank 4 ([B, Hq, Sq, D], as 'q'); got 'tensor<8x16x64xf32>'}}
  %o = kgen.attention %q, %k, %v : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<8x16x64xf32>
  return %o : tensor<8x16x64xf32>
}

// -----

func.func @attention_out_elem(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf64> {
  // expected-error @+1 {{'out' has element type 'f64'; expected f16, bf16, f32 or f8E4M3FN}}
  %o = kgen.attention %q, %k, %v : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf64>
  return %o : tensor<1x8x16x64xf64>
}

// -----

// The output has the query's shape, not the keys'.
func.func @attention_out_shape(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x32x64xf32>, %v: tensor<1x8x32x64xf32>) -> tensor<1x8x32x64xf32> {
  // expected-error @+1 {{'out' has shape [1, 8, 32, 64]; expected [1, 8, 16, 64] ([B, Hq, Sq, D], as 'q')}}
  %o = kgen.attention %q, %k, %v : tensor<1x8x16x64xf32>, tensor<1x8x32x64xf32>, tensor<1x8x32x64xf32> -> tensor<1x8x32x64xf32>
  return %o : tensor<1x8x32x64xf32>
}

// -----

func.func @attention_lse_rank(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> (tensor<1x8x16x64xf32>, tensor<8x16xf32>) {
  // expected-error @+1 {{'lse' must have rank 3 ([B, Hq, Sq]); got 'tensor<8x16xf32>'}}
  %o, %l = kgen.attention %q, %k, %v : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>, tensor<8x16xf32>
  return %o, %l : tensor<1x8x16x64xf32>, tensor<8x16xf32>
}

// -----

// The log-sum-exp is always f32, even for bf16 attention.
func.func @attention_lse_elem(%q: tensor<1x8x16x64xbf16>, %k: tensor<1x8x16x64xbf16>, %v: tensor<1x8x16x64xbf16>) -> (tensor<1x8x16x64xbf16>, tensor<1x8x16xbf16>) {
  // expected-error @+1 {{'lse' has element type 'bf16'; expected 'f32'}}
  %o, %l = kgen.attention %q, %k, %v : tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16> -> tensor<1x8x16x64xbf16>, tensor<1x8x16xbf16>
  return %o, %l : tensor<1x8x16x64xbf16>, tensor<1x8x16xbf16>
}

// -----

func.func @attention_lse_shape(%q: tensor<1x8x16x64xf32>, %k: tensor<1x2x32x64xf32>, %v: tensor<1x2x32x64xf32>) -> (tensor<1x8x16x64xf32>, tensor<1x2x32xf32>) {
  // expected-error @+1 {{'lse' has shape [1, 2, 32]; expected [1, 8, 16] ([B, Hq, Sq])}}
  %o, %l = kgen.attention %q, %k, %v : tensor<1x8x16x64xf32>, tensor<1x2x32x64xf32>, tensor<1x2x32x64xf32> -> tensor<1x8x16x64xf32>, tensor<1x2x32xf32>
  return %o, %l : tensor<1x8x16x64xf32>, tensor<1x2x32xf32>
}

// -----

func.func @attention_f32_q_e4m3_cache(%q: tensor<1x8x16x64xf32>, %k: tensor<1x2x16x64xf8E4M3FN>, %v: tensor<1x2x16x64xf8E4M3FN>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'k' has element type 'f8E4M3FN'; expected 'f32' (the element type of 'q'), or f8E4M3FN (an e4m3 cache) when 'q' is bf16, f16 or f8E4M3FN}}
  %o = kgen.attention %q, %k, %v : tensor<1x8x16x64xf32>, tensor<1x2x16x64xf8E4M3FN>, tensor<1x2x16x64xf8E4M3FN> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

func.func @attention_v_not_e4m3(%q: tensor<1x8x16x64xbf16>, %k: tensor<1x2x16x64xf8E4M3FN>, %v: tensor<1x2x16x64xbf16>) -> tensor<1x8x16x64xbf16> {
  // expected-error @+1 {{'v' has element type 'bf16'; expected 'f8E4M3FN' (the element type of 'k')}}
  %o = kgen.attention %q, %k, %v : tensor<1x8x16x64xbf16>, tensor<1x2x16x64xf8E4M3FN>, tensor<1x2x16x64xbf16> -> tensor<1x8x16x64xbf16>
  return %o : tensor<1x8x16x64xbf16>
}

// -----

func.func @attention_descale_not_e4m3(%q: tensor<1x8x16x64xbf16>, %k: tensor<1x2x16x64xf8E4M3FN>, %v: tensor<1x2x16x64xf8E4M3FN>, %d: tensor<1xf32>) -> tensor<1x8x16x64xbf16> {
  // expected-error @+1 {{'q_descale' dequantises an f8E4M3FN operand, but 'q' is 'bf16'}}
  %o = kgen.attention %q, %k, %v q_descale(%d : tensor<1xf32>) : tensor<1x8x16x64xbf16>, tensor<1x2x16x64xf8E4M3FN>, tensor<1x2x16x64xf8E4M3FN> -> tensor<1x8x16x64xbf16>
  return %o : tensor<1x8x16x64xbf16>
}

// -----

func.func @attention_descale_shape(%q: tensor<1x8x16x64xbf16>, %k: tensor<1x2x16x64xf8E4M3FN>, %v: tensor<1x2x16x64xf8E4M3FN>, %d: tensor<2xf32>) -> tensor<1x8x16x64xbf16> {
  // expected-error @+1 {{'k_descale' has shape [2]; expected [1] ([1], one factor per tensor)}}
  %o = kgen.attention %q, %k, %v k_descale(%d : tensor<2xf32>) : tensor<1x8x16x64xbf16>, tensor<1x2x16x64xf8E4M3FN>, tensor<1x2x16x64xf8E4M3FN> -> tensor<1x8x16x64xbf16>
  return %o : tensor<1x8x16x64xbf16>
}

// -----

func.func @attention_descale_elem(%q: tensor<1x8x16x64xbf16>, %k: tensor<1x2x16x64xf8E4M3FN>, %v: tensor<1x2x16x64xf8E4M3FN>, %d: tensor<1xf16>) -> tensor<1x8x16x64xbf16> {
  // expected-error @+1 {{'v_descale' has element type 'f16'; expected 'f32'}}
  %o = kgen.attention %q, %k, %v v_descale(%d : tensor<1xf16>) : tensor<1x8x16x64xbf16>, tensor<1x2x16x64xf8E4M3FN>, tensor<1x2x16x64xf8E4M3FN> -> tensor<1x8x16x64xbf16>
  return %o : tensor<1x8x16x64xbf16>
}

// -----

func.func @attention_varlen_one_offsets(%q: tensor<40x8x64xbf16>, %k: tensor<50x2x64xbf16>, %v: tensor<50x2x64xbf16>, %cq: tensor<4xi32>) -> tensor<40x8x64xbf16> {
  // expected-error @+1 {{'cu_seqlens_q' and 'cu_seqlens_k' come together}}
  %o = "kgen.attention"(%q, %k, %v, %cq) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0>} : (tensor<40x8x64xbf16>, tensor<50x2x64xbf16>, tensor<50x2x64xbf16>, tensor<4xi32>) -> tensor<40x8x64xbf16>
  return %o : tensor<40x8x64xbf16>
}

// -----

func.func @attention_varlen_kv_lens(%q: tensor<40x8x64xbf16>, %k: tensor<50x2x64xbf16>, %v: tensor<50x2x64xbf16>, %cq: tensor<4xi32>, %ck: tensor<4xi32>, %l: tensor<3xi32>) -> tensor<40x8x64xbf16> {
  // expected-error @+1 {{cu_seqlens gives each sequence its lengths: not with 'kv_lens'}}
  %o = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<4xi32>, tensor<4xi32>) kv_lens(%l : tensor<3xi32>) : tensor<40x8x64xbf16>, tensor<50x2x64xbf16>, tensor<50x2x64xbf16> -> tensor<40x8x64xbf16>
  return %o : tensor<40x8x64xbf16>
}

// -----

func.func @attention_varlen_q_rank(%q: tensor<1x40x8x64xbf16>, %k: tensor<50x2x64xbf16>, %v: tensor<50x2x64xbf16>, %cq: tensor<4xi32>, %ck: tensor<4xi32>) -> tensor<1x40x8x64xbf16> {
  // expected-error @+1 {{'q' must have rank 3 ([Tq, Hq, D] (packed tokens)); got 'tensor<1x40x8x64xbf16>'}}
  %o = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<4xi32>, tensor<4xi32>) : tensor<1x40x8x64xbf16>, tensor<50x2x64xbf16>, tensor<50x2x64xbf16> -> tensor<1x40x8x64xbf16>
  return %o : tensor<1x40x8x64xbf16>
}

// -----

func.func @attention_varlen_offsets_elem(%q: tensor<40x8x64xbf16>, %k: tensor<50x2x64xbf16>, %v: tensor<50x2x64xbf16>, %cq: tensor<4xi64>, %ck: tensor<4xi32>) -> tensor<40x8x64xbf16> {
  // expected-error @+1 {{'cu_seqlens_q' has element type 'i64'; expected 'i32'}}
  %o = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<4xi64>, tensor<4xi32>) : tensor<40x8x64xbf16>, tensor<50x2x64xbf16>, tensor<50x2x64xbf16> -> tensor<40x8x64xbf16>
  return %o : tensor<40x8x64xbf16>
}

// -----

func.func @attention_varlen_offsets_batch(%q: tensor<40x8x64xbf16>, %k: tensor<50x2x64xbf16>, %v: tensor<50x2x64xbf16>, %cq: tensor<4xi32>, %ck: tensor<5xi32>) -> tensor<40x8x64xbf16> {
  // expected-error @+1 {{'cu_seqlens_k' has shape [5]; expected [4] ([B + 1], the shape of 'cu_seqlens_q')}}
  %o = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<4xi32>, tensor<5xi32>) : tensor<40x8x64xbf16>, tensor<50x2x64xbf16>, tensor<50x2x64xbf16> -> tensor<40x8x64xbf16>
  return %o : tensor<40x8x64xbf16>
}

// -----

func.func @attention_varlen_no_sequence(%q: tensor<40x8x64xbf16>, %k: tensor<50x2x64xbf16>, %v: tensor<50x2x64xbf16>, %cq: tensor<1xi32>, %ck: tensor<1xi32>) -> tensor<40x8x64xbf16> {
  // expected-error @+1 {{'cu_seqlens_q' holds no sequence: [B + 1] with B >= 1}}
  %o = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<1xi32>, tensor<1xi32>) : tensor<40x8x64xbf16>, tensor<50x2x64xbf16>, tensor<50x2x64xbf16> -> tensor<40x8x64xbf16>
  return %o : tensor<40x8x64xbf16>
}

// -----

func.func @attention_varlen_kv_heads(%q: tensor<40x8x64xbf16>, %k: tensor<50x3x64xbf16>, %v: tensor<50x3x64xbf16>, %cq: tensor<4xi32>, %ck: tensor<4xi32>) -> tensor<40x8x64xbf16> {
  // expected-error @+1 {{query heads (8) must be a multiple of key/value heads (3)}}
  %o = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<4xi32>, tensor<4xi32>) : tensor<40x8x64xbf16>, tensor<50x3x64xbf16>, tensor<50x3x64xbf16> -> tensor<40x8x64xbf16>
  return %o : tensor<40x8x64xbf16>
}

// -----

func.func @attention_varlen_lse_shape(%q: tensor<40x8x64xbf16>, %k: tensor<50x2x64xbf16>, %v: tensor<50x2x64xbf16>, %cq: tensor<4xi32>, %ck: tensor<4xi32>) -> (tensor<40x8x64xbf16>, tensor<40x8xf32>) {
  // expected-error @+1 {{'lse' has shape [40, 8]; expected [8, 40] ([Hq, Tq])}}
  %o, %l = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<4xi32>, tensor<4xi32>) : tensor<40x8x64xbf16>, tensor<50x2x64xbf16>, tensor<50x2x64xbf16> -> tensor<40x8x64xbf16>, tensor<40x8xf32>
  return %o, %l : tensor<40x8x64xbf16>, tensor<40x8xf32>
}

// -----

func.func @attention_varlen_v_shape(%q: tensor<40x8x64xbf16>, %k: tensor<50x2x64xbf16>, %v: tensor<51x2x64xbf16>, %cq: tensor<4xi32>, %ck: tensor<4xi32>) -> tensor<40x8x64xbf16> {
  // expected-error @+1 {{'v' has shape [51, 2, 64]; expected [50, 2, 64] ([Tk, Hkv, D], the shape of 'k')}}
  %o = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<4xi32>, tensor<4xi32>) : tensor<40x8x64xbf16>, tensor<50x2x64xbf16>, tensor<51x2x64xbf16> -> tensor<40x8x64xbf16>
  return %o : tensor<40x8x64xbf16>
}

// -----

// A varlen batch over a paged cache: K and V are pages.
func.func @attention_varlen_paged_k_rank(%q: tensor<40x8x64xbf16>, %k: tensor<50x2x64xbf16>, %v: tensor<50x2x64xbf16>, %cq: tensor<4xi32>, %ck: tensor<4xi32>, %bt: tensor<3x4xi32>) -> tensor<40x8x64xbf16> {
  // expected-error @+1 {{'k' must have rank 4 ([N, Hkv, P, D] (pages)); got 'tensor<50x2x64xbf16>'}}
  %o = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<4xi32>, tensor<4xi32>) block_table(%bt : tensor<3x4xi32>) : tensor<40x8x64xbf16>, tensor<50x2x64xbf16>, tensor<50x2x64xbf16> -> tensor<40x8x64xbf16>
  return %o : tensor<40x8x64xbf16>
}

// -----

func.func @attention_varlen_paged_table_rows(%q: tensor<40x8x64xbf16>, %k: tensor<9x2x16x64xbf16>, %v: tensor<9x2x16x64xbf16>, %cq: tensor<4xi32>, %ck: tensor<4xi32>, %bt: tensor<4x4xi32>) -> tensor<40x8x64xbf16> {
  // expected-error @+1 {{'block_table' has shape [4, 4]; expected [3, 4] ([B, M] with B + 1 of 'cu_seqlens_q')}}
  %o = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<4xi32>, tensor<4xi32>) block_table(%bt : tensor<4x4xi32>) : tensor<40x8x64xbf16>, tensor<9x2x16x64xbf16>, tensor<9x2x16x64xbf16> -> tensor<40x8x64xbf16>
  return %o : tensor<40x8x64xbf16>
}

// -----

func.func @attention_nhd_unpaged(%q: tensor<1x8x16x64xbf16>, %k: tensor<1x2x16x64xbf16>, %v: tensor<1x2x16x64xbf16>) -> tensor<1x8x16x64xbf16> {
  // expected-error @+1 {{'pages_nhd' orders the pages of a paged cache: give a 'block_table'}}
  %o = kgen.attention %q, %k, %v {pages_nhd} : tensor<1x8x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16> -> tensor<1x8x16x64xbf16>
  return %o : tensor<1x8x16x64xbf16>
}

// -----

// NHD pages [N, P, Hkv, D]: V in the HND order.
func.func @attention_nhd_v_shape(%q: tensor<2x8x16x64xbf16>, %k: tensor<9x16x2x64xbf16>, %v: tensor<9x2x16x64xbf16>, %bt: tensor<2x4xi32>) -> tensor<2x8x16x64xbf16> {
  // expected-error @+1 {{'v' has shape [9, 2, 16, 64]; expected [9, 16, 2, 64] ([N, P, Hkv, D], the shape of 'k')}}
  %o = kgen.attention %q, %k, %v block_table(%bt : tensor<2x4xi32>) {pages_nhd} : tensor<2x8x16x64xbf16>, tensor<9x16x2x64xbf16>, tensor<9x2x16x64xbf16> -> tensor<2x8x16x64xbf16>
  return %o : tensor<2x8x16x64xbf16>
}

// -----

func.func @attention_out_e4m3(%q: tensor<1x8x16x64xf8E4M3FN>, %k: tensor<1x2x16x64xf8E4M3FN>, %v: tensor<1x2x16x64xf8E4M3FN>) -> tensor<1x8x16x64xf8E4M3FN> {
  // expected-error @+1 {{'out' has element type f8E4M3FN; an attention's output is bf16, f16 or f32}}
  %o = kgen.attention %q, %k, %v : tensor<1x8x16x64xf8E4M3FN>, tensor<1x2x16x64xf8E4M3FN>, tensor<1x2x16x64xf8E4M3FN> -> tensor<1x8x16x64xf8E4M3FN>
  return %o : tensor<1x8x16x64xf8E4M3FN>
}

// -----

func.func @attention_table_elem(%q: tensor<2x8x16x64xf32>, %k: tensor<8x2x16x64xf32>, %v: tensor<8x2x16x64xf32>, %bt: tensor<2x4xi64>) -> tensor<2x8x16x64xf32> {
  // expected-error @+1 {{'block_table' has element type 'i64'; expected 'i32'}}
  %o = kgen.attention %q, %k, %v block_table(%bt : tensor<2x4xi64>) : tensor<2x8x16x64xf32>, tensor<8x2x16x64xf32>, tensor<8x2x16x64xf32> -> tensor<2x8x16x64xf32>
  return %o : tensor<2x8x16x64xf32>
}

// -----

func.func @attention_table_rank(%q: tensor<2x8x16x64xf32>, %k: tensor<8x2x16x64xf32>, %v: tensor<8x2x16x64xf32>, %bt: tensor<2xi32>) -> tensor<2x8x16x64xf32> {
  // expected-error @+1 {{'block_table' must have rank 2 ([B, M]); got 'tensor<2xi32>'}}
  %o = kgen.attention %q, %k, %v block_table(%bt : tensor<2xi32>) : tensor<2x8x16x64xf32>, tensor<8x2x16x64xf32>, tensor<8x2x16x64xf32> -> tensor<2x8x16x64xf32>
  return %o : tensor<2x8x16x64xf32>
}

// -----

func.func @attention_table_batch(%q: tensor<2x8x16x64xf32>, %k: tensor<8x2x16x64xf32>, %v: tensor<8x2x16x64xf32>, %bt: tensor<3x4xi32>) -> tensor<2x8x16x64xf32> {
  // expected-error @+1 {{'block_table' has shape [3, 4]; expected [2, 4] ([B, M] with B of 'q')}}
  %o = kgen.attention %q, %k, %v block_table(%bt : tensor<3x4xi32>) : tensor<2x8x16x64xf32>, tensor<8x2x16x64xf32>, tensor<8x2x16x64xf32> -> tensor<2x8x16x64xf32>
  return %o : tensor<2x8x16x64xf32>
}

// -----

func.func @attention_page_size(%q: tensor<2x8x16x64xf32>, %k: tensor<8x2x300x64xf32>, %v: tensor<8x2x300x64xf32>, %bt: tensor<2x1xi32>) -> tensor<2x8x16x64xf32> {
  // expected-error @+1 {{page size (dimension 2 of 'k') is 300; expected 1 to 256}}
  %o = kgen.attention %q, %k, %v block_table(%bt : tensor<2x1xi32>) : tensor<2x8x16x64xf32>, tensor<8x2x300x64xf32>, tensor<8x2x300x64xf32> -> tensor<2x8x16x64xf32>
  return %o : tensor<2x8x16x64xf32>
}

// -----

func.func @attention_paged_k_dim(%q: tensor<2x8x16x64xf32>, %k: tensor<8x2x16x32xf32>, %v: tensor<8x2x16x32xf32>, %bt: tensor<2x4xi32>) -> tensor<2x8x16x64xf32> {
  // expected-error @+1 {{'k' has shape [8, 2, 16, 32]; expected [8, 2, 16, 64] ([N, Hkv, P, D] with D of 'q')}}
  %o = kgen.attention %q, %k, %v block_table(%bt : tensor<2x4xi32>) : tensor<2x8x16x64xf32>, tensor<8x2x16x32xf32>, tensor<8x2x16x32xf32> -> tensor<2x8x16x64xf32>
  return %o : tensor<2x8x16x64xf32>
}

// -----

func.func @attention_kv_lens_rank(%q: tensor<2x8x16x64xf32>, %k: tensor<2x8x16x64xf32>, %v: tensor<2x8x16x64xf32>, %lens: tensor<2x1xi32>) -> tensor<2x8x16x64xf32> {
  // expected-error @+1 {{'kv_lens' must have rank 1 ([B]); got 'tensor<2x1xi32>'}}
  %o = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2x1xi32>) : tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32> -> tensor<2x8x16x64xf32>
  return %o : tensor<2x8x16x64xf32>
}

// -----

func.func @attention_kv_lens_elem(%q: tensor<2x8x16x64xf32>, %k: tensor<2x8x16x64xf32>, %v: tensor<2x8x16x64xf32>, %lens: tensor<2xi64>) -> tensor<2x8x16x64xf32> {
  // expected-error @+1 {{'kv_lens' has element type 'i64'; expected 'i32'}}
  %o = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi64>) : tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32> -> tensor<2x8x16x64xf32>
  return %o : tensor<2x8x16x64xf32>
}

// -----

func.func @attention_kv_lens_shape(%q: tensor<2x8x16x64xf32>, %k: tensor<2x8x16x64xf32>, %v: tensor<2x8x16x64xf32>, %lens: tensor<3xi32>) -> tensor<2x8x16x64xf32> {
  // expected-error @+1 {{'kv_lens' has shape [3]; expected [2] ([B])}}
  %o = kgen.attention %q, %k, %v kv_lens(%lens : tensor<3xi32>) : tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32> -> tensor<2x8x16x64xf32>
  return %o : tensor<2x8x16x64xf32>
}

// -----

func.func @attention_kv_lens_dynamic(%q: tensor<2x8x16x64xf32>, %k: tensor<2x8x16x64xf32>, %v: tensor<2x8x16x64xf32>, %lens: tensor<?xi32>) -> tensor<2x8x16x64xf32> {
  // expected-error @+1 {{'kv_lens' must have a static shape; got 'tensor<?xi32>'}}
  %o = kgen.attention %q, %k, %v kv_lens(%lens : tensor<?xi32>) : tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32>, tensor<2x8x16x64xf32> -> tensor<2x8x16x64xf32>
  return %o : tensor<2x8x16x64xf32>
}

//===----------------------------------------------------------------------===//
// kgen.attention: attributes
//===----------------------------------------------------------------------===//

// -----

func.func @attention_scale_zero(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'scale' must be finite and non-zero}}
  %o = kgen.attention %q, %k, %v {scale = 0.0 : f32} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

func.func @attention_scale_neg_zero(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'scale' must be finite and non-zero}}
  %o = kgen.attention %q, %k, %v {scale = -0.0 : f32} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

func.func @attention_scale_inf(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'scale' must be finite and non-zero}}
  %o = kgen.attention %q, %k, %v {scale = 0x7F800000 : f32} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

func.func @attention_scale_nan(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'scale' must be finite and non-zero}}
  %o = kgen.attention %q, %k, %v {scale = 0x7FC00000 : f32} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

func.func @attention_softcap_zero(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'softcap' must be finite and positive}}
  %o = kgen.attention %q, %k, %v {softcap = 0.0 : f32} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

func.func @attention_softcap_negative(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'softcap' must be finite and positive}}
  %o = kgen.attention %q, %k, %v {softcap = -30.0 : f32} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

func.func @attention_softcap_inf(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'softcap' must be finite and positive}}
  %o = kgen.attention %q, %k, %v {softcap = 0x7F800000 : f32} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

func.func @attention_softcap_nan(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'softcap' must be finite and positive}}
  %o = kgen.attention %q, %k, %v {softcap = 0x7FC00000 : f32} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

func.func @attention_window_without_causal(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'sliding_window' needs 'causal'}}
  %o = kgen.attention %q, %k, %v {sliding_window = 4} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

func.func @attention_window_zero(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'sliding_window' is 0; expected at least 1}}
  %o = kgen.attention %q, %k, %v {causal, sliding_window = 0} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

func.func @attention_window_negative(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'sliding_window' is -8; expected at least 1}}
  %o = kgen.attention %q, %k, %v {causal, sliding_window = -8} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

// Two results and a missing lse type: the custom parser needs both types.
func.func @attention_two_results_one_type(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{operation defines 1 results but was provided 2 to bind}}
  %o, %l = kgen.attention %q, %k, %v : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

//===----------------------------------------------------------------------===//
// kgen.moe
//===----------------------------------------------------------------------===//

// -----

func.func @moe_missing_top_k(%x: tensor<4x32xf32>, %l: tensor<4x8xf32>, %wg: tensor<8x32x16xf32>, %wu: tensor<8x32x16xf32>, %wd: tensor<8x16x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'kgen.moe' op requires attribute 'top_k'}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd : tensor<4x32xf32>, tensor<4x8xf32>, tensor<8x32x16xf32>, tensor<8x32x16xf32>, tensor<8x16x32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_top_k_float(%x: tensor<4x32xf32>, %l: tensor<4x8xf32>, %wg: tensor<8x32x16xf32>, %wu: tensor<8x32x16xf32>, %wd: tensor<8x16x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{attribute 'top_k' failed to satisfy constraint: 64-bit signless integer attribute}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2.0 : f32} : tensor<4x32xf32>, tensor<4x8xf32>, tensor<8x32x16xf32>, tensor<8x32x16xf32>, tensor<8x16x32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_x_rank(%x: tensor<4x32x1xf32>, %l: tensor<4x8xf32>, %wg: tensor<8x32x16xf32>, %wu: tensor<8x32x16xf32>, %wd: tensor<8x16x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'x' must have rank 2 ([T, H]); got 'tensor<4x32x1xf32>'}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2} : tensor<4x32x1xf32>, tensor<4x8xf32>, tensor<8x32x16xf32>, tensor<8x32x16xf32>, tensor<8x16x32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_x_dynamic(%x: tensor<?x32xf32>, %l: tensor<4x8xf32>, %wg: tensor<8x32x16xf32>, %wu: tensor<8x32x16xf32>, %wd: tensor<8x16x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'x' must have a static shape; got 'tensor<?x32xf32>'}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2} : tensor<?x32xf32>, tensor<4x8xf32>, tensor<8x32x16xf32>, tensor<8x32x16xf32>, tensor<8x16x32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_x_zero_dim(%x: tensor<0x32xf32>, %l: tensor<0x8xf32>, %wg: tensor<8x32x16xf32>, %wu: tensor<8x32x16xf32>, %wd: tensor<8x16x32xf32>) -> tensor<0x32xf32> {
  // expected-error @+1 {{'x' dimension 0 is 0; kgen ops need non-empty tensors}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2} : tensor<0x32xf32>, tensor<0x8xf32>, tensor<8x32x16xf32>, tensor<8x32x16xf32>, tensor<8x16x32xf32> -> tensor<0x32xf32>
  return %y : tensor<0x32xf32>
}

// -----

func.func @moe_x_elem(%x: tensor<4x32xi32>, %l: tensor<4x8xf32>, %wg: tensor<8x32x16xi32>, %wu: tensor<8x32x16xi32>, %wd: tensor<8x16x32xi32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'x' has element type 'i32'; expected f16, bf16, f32 or f8E4M3FN}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2} : tensor<4x32xi32>, tensor<4x8xf32>, tensor<8x32x16xi32>, tensor<8x32x16xi32>, tensor<8x16x32xi32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_logits_rank(%x: tensor<4x32xf32>, %l: tensor<32xf32>, %wg: tensor<8x32x16xf32>, %wu: tensor<8x32x16xf32>, %wd: tensor<8x16x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'router_logits' must have rank 2 ([T, E]); got 'tensor<32xf32>'}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2} : tensor<4x32xf32>, tensor<32xf32>, tensor<8x32x16xf32>, tensor<8x32x16xf32>, tensor<8x16x32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_logits_elem(%x: tensor<4x32xf32>, %l: tensor<4x8xi32>, %wg: tensor<8x32x16xf32>, %wu: tensor<8x32x16xf32>, %wd: tensor<8x16x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'router_logits' has element type 'i32'; expected f16, bf16, f32 or f8E4M3FN}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2} : tensor<4x32xf32>, tensor<4x8xi32>, tensor<8x32x16xf32>, tensor<8x32x16xf32>, tensor<8x16x32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_logits_tokens(%x: tensor<4x32xf32>, %l: tensor<5x8xf32>, %wg: tensor<8x32x16xf32>, %wu: tensor<8x32x16xf32>, %wd: tensor<8x16x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'router_logits' dimension 0 (T) is 5; expected 4 (tokens of 'x')}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2} : tensor<4x32xf32>, tensor<5x8xf32>, tensor<8x32x16xf32>, tensor<8x32x16xf32>, tensor<8x16x32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_w_gate_rank(%x: tensor<4x32xf32>, %l: tensor<4x8xf32>, %wg: tensor<32x16xf32>, %wu: tensor<8x32x16xf32>, %wd: tensor<8x16x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'w_gate' must have rank 3 ([E, H, I]); got 'tensor<32x16xf32>'}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2} : tensor<4x32xf32>, tensor<4x8xf32>, tensor<32x16xf32>, tensor<8x32x16xf32>, tensor<8x16x32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_w_gate_elem(%x: tensor<4x32xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x32x16xf16>, %wu: tensor<8x32x16xbf16>, %wd: tensor<8x16x32xbf16>) -> tensor<4x32xbf16> {
  // expected-error @+1 {{'w_gate' has element type 'f16'; expected 'bf16' (the element type of 'x')}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2} : tensor<4x32xbf16>, tensor<4x8xf32>, tensor<8x32x16xf16>, tensor<8x32x16xbf16>, tensor<8x16x32xbf16> -> tensor<4x32xbf16>
  return %y : tensor<4x32xbf16>
}

// -----

func.func @moe_w_gate_experts(%x: tensor<4x32xf32>, %l: tensor<4x8xf32>, %wg: tensor<4x32x16xf32>, %wu: tensor<4x32x16xf32>, %wd: tensor<4x16x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'w_gate' has shape [4, 32, 16]; expected [8, 32, 16] ([E, H, I] with E of 'router_logits', H of 'x')}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2} : tensor<4x32xf32>, tensor<4x8xf32>, tensor<4x32x16xf32>, tensor<4x32x16xf32>, tensor<4x16x32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_w_gate_hidden(%x: tensor<4x32xf32>, %l: tensor<4x8xf32>, %wg: tensor<8x16x32xf32>, %wu: tensor<8x16x32xf32>, %wd: tensor<8x32x16xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'w_gate' has shape [8, 16, 32]; expected [8, 32, 32] ([E, H, I] with E of 'router_logits', H of 'x')}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2} : tensor<4x32xf32>, tensor<4x8xf32>, tensor<8x16x32xf32>, tensor<8x16x32xf32>, tensor<8x32x16xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_w_up_rank(%x: tensor<4x32xf32>, %l: tensor<4x8xf32>, %wg: tensor<8x32x16xf32>, %wu: tensor<8x32x16x1xf32>, %wd: tensor<8x16x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'w_up' must have rank 3 ([E, H, I]); got 'tensor<8x32x16x1xf32>'}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2} : tensor<4x32xf32>, tensor<4x8xf32>, tensor<8x32x16xf32>, tensor<8x32x16x1xf32>, tensor<8x16x32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_w_up_elem(%x: tensor<4x32xf32>, %l: tensor<4x8xf32>, %wg: tensor<8x32x16xf32>, %wu: tensor<8x32x16xbf16>, %wd: tensor<8x16x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'w_up' has element type 'bf16'; expected 'f32' (the element type of 'x')}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2} : tensor<4x32xf32>, tensor<4x8xf32>, tensor<8x32x16xf32>, tensor<8x32x16xbf16>, tensor<8x16x32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_w_up_shape(%x: tensor<4x32xf32>, %l: tensor<4x8xf32>, %wg: tensor<8x32x16xf32>, %wu: tensor<8x32x24xf32>, %wd: tensor<8x16x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'w_up' has shape [8, 32, 24]; expected [8, 32, 16] ([E, H, I], as 'w_gate')}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2} : tensor<4x32xf32>, tensor<4x8xf32>, tensor<8x32x16xf32>, tensor<8x32x24xf32>, tensor<8x16x32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_w_down_rank(%x: tensor<4x32xf32>, %l: tensor<4x8xf32>, %wg: tensor<8x32x16xf32>, %wu: tensor<8x32x16xf32>, %wd: tensor<16x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'w_down' must have rank 3 ([E, I, H]); got 'tensor<16x32xf32>'}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2} : tensor<4x32xf32>, tensor<4x8xf32>, tensor<8x32x16xf32>, tensor<8x32x16xf32>, tensor<16x32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_w_down_elem(%x: tensor<4x32xf16>, %l: tensor<4x8xf32>, %wg: tensor<8x32x16xf16>, %wu: tensor<8x32x16xf16>, %wd: tensor<8x16x32xf32>) -> tensor<4x32xf16> {
  // expected-error @+1 {{'w_down' has element type 'f32'; expected 'f16' (the element type of 'x')}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2} : tensor<4x32xf16>, tensor<4x8xf32>, tensor<8x32x16xf16>, tensor<8x32x16xf16>, tensor<8x16x32xf32> -> tensor<4x32xf16>
  return %y : tensor<4x32xf16>
}

// -----

// w_down is [E, I, H], the transpose of what w_gate is per expert.
func.func @moe_w_down_shape(%x: tensor<4x32xf32>, %l: tensor<4x8xf32>, %wg: tensor<8x32x16xf32>, %wu: tensor<8x32x16xf32>, %wd: tensor<8x32x16xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'w_down' has shape [8, 32, 16]; expected [8, 16, 32] ([E, I, H] with E, I of 'w_gate')}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2} : tensor<4x32xf32>, tensor<4x8xf32>, tensor<8x32x16xf32>, tensor<8x32x16xf32>, tensor<8x32x16xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_y_rank(%x: tensor<4x32xf32>, %l: tensor<4x8xf32>, %wg: tensor<8x32x16xf32>, %wu: tensor<8x32x16xf32>, %wd: tensor<8x16x32xf32>) -> tensor<128xf32> {
  // expected-error @+1 {{'y' must have rank 2 ([T, H]); got 'tensor<128xf32>'}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2} : tensor<4x32xf32>, tensor<4x8xf32>, tensor<8x32x16xf32>, tensor<8x32x16xf32>, tensor<8x16x32xf32> -> tensor<128xf32>
  return %y : tensor<128xf32>
}

// -----

func.func @moe_y_elem(%x: tensor<4x32xf32>, %l: tensor<4x8xf32>, %wg: tensor<8x32x16xf32>, %wu: tensor<8x32x16xf32>, %wd: tensor<8x16x32xf32>) -> tensor<4x32xi32> {
  // expected-error @+1 {{'y' has element type 'i32'; expected f16, bf16, f32 or f8E4M3FN}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2} : tensor<4x32xf32>, tensor<4x8xf32>, tensor<8x32x16xf32>, tensor<8x32x16xf32>, tensor<8x16x32xf32> -> tensor<4x32xi32>
  return %y : tensor<4x32xi32>
}

// -----

func.func @moe_y_shape(%x: tensor<4x32xf32>, %l: tensor<4x8xf32>, %wg: tensor<8x32x16xf32>, %wu: tensor<8x32x16xf32>, %wd: tensor<8x16x32xf32>) -> tensor<8x32xf32> {
  // expected-error @+1 {{'y' has shape [8, 32]; expected [4, 32] ([T, H], as 'x')}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2} : tensor<4x32xf32>, tensor<4x8xf32>, tensor<8x32x16xf32>, tensor<8x32x16xf32>, tensor<8x16x32xf32> -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

func.func @moe_activation_none(%x: tensor<4x32xf32>, %l: tensor<4x8xf32>, %wg: tensor<8x32x16xf32>, %wu: tensor<8x32x16xf32>, %wd: tensor<8x16x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{the gated FFN needs an activation: silu, gelu or relu}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2, activation = #kgen.activation<none>} : tensor<4x32xf32>, tensor<4x8xf32>, tensor<8x32x16xf32>, tensor<8x32x16xf32>, tensor<8x16x32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_top_k_zero(%x: tensor<4x32xf32>, %l: tensor<4x8xf32>, %wg: tensor<8x32x16xf32>, %wu: tensor<8x32x16xf32>, %wd: tensor<8x16x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'top_k' is 0; expected between 1 and the number of experts (8)}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 0} : tensor<4x32xf32>, tensor<4x8xf32>, tensor<8x32x16xf32>, tensor<8x32x16xf32>, tensor<8x16x32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_top_k_negative(%x: tensor<4x32xf32>, %l: tensor<4x8xf32>, %wg: tensor<8x32x16xf32>, %wu: tensor<8x32x16xf32>, %wd: tensor<8x16x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'top_k' is -1; expected between 1 and the number of experts (8)}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = -1} : tensor<4x32xf32>, tensor<4x8xf32>, tensor<8x32x16xf32>, tensor<8x32x16xf32>, tensor<8x16x32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_top_k_too_large(%x: tensor<4x32xf32>, %l: tensor<4x8xf32>, %wg: tensor<8x32x16xf32>, %wu: tensor<8x32x16xf32>, %wd: tensor<8x16x32xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'top_k' is 9; expected between 1 and the number of experts (8)}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 9} : tensor<4x32xf32>, tensor<4x8xf32>, tensor<8x32x16xf32>, tensor<8x32x16xf32>, tensor<8x16x32xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

//===----------------------------------------------------------------------===//
// kgen.moe_route
//===----------------------------------------------------------------------===//

// -----

func.func @moe_route_missing_top_k(%l: tensor<4x8xf32>) -> (tensor<4x2xi32>, tensor<4x2xf32>) {
  // expected-error @+1 {{'kgen.moe_route' op requires attribute 'top_k'}}
  %i, %w = kgen.moe_route %l : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return %i, %w : tensor<4x2xi32>, tensor<4x2xf32>
}

// -----

func.func @moe_route_logits_rank(%l: tensor<4x8x1xf32>) -> (tensor<4x2xi32>, tensor<4x2xf32>) {
  // expected-error @+1 {{'router_logits' must have rank 2 ([T, E]); got 'tensor<4x8x1xf32>'}}
  %i, %w = kgen.moe_route %l {top_k = 2} : tensor<4x8x1xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return %i, %w : tensor<4x2xi32>, tensor<4x2xf32>
}

// -----

func.func @moe_route_logits_dynamic(%l: tensor<?x8xf32>) -> (tensor<4x2xi32>, tensor<4x2xf32>) {
  // expected-error @+1 {{'router_logits' must have a static shape; got 'tensor<?x8xf32>'}}
  %i, %w = kgen.moe_route %l {top_k = 2} : tensor<?x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return %i, %w : tensor<4x2xi32>, tensor<4x2xf32>
}

// -----

func.func @moe_route_logits_zero_dim(%l: tensor<4x0xf32>) -> (tensor<4x2xi32>, tensor<4x2xf32>) {
  // expected-error @+1 {{'router_logits' dimension 1 is 0; kgen ops need non-empty tensors}}
  %i, %w = kgen.moe_route %l {top_k = 2} : tensor<4x0xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return %i, %w : tensor<4x2xi32>, tensor<4x2xf32>
}

// -----

func.func @moe_route_logits_elem(%l: tensor<4x8xi32>) -> (tensor<4x2xi32>, tensor<4x2xf32>) {
  // expected-error @+1 {{'router_logits' has element type 'i32'; expected f16, bf16, f32 or f8E4M3FN}}
  %i, %w = kgen.moe_route %l {top_k = 2} : tensor<4x8xi32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return %i, %w : tensor<4x2xi32>, tensor<4x2xf32>
}

// -----

func.func @moe_route_top_k_zero(%l: tensor<4x8xf32>) -> (tensor<4x0xi32>, tensor<4x0xf32>) {
  // expected-error @+1 {{'top_k' is 0; expected between 1 and the number of experts (8)}}
  %i, %w = kgen.moe_route %l {top_k = 0} : tensor<4x8xf32> -> tensor<4x0xi32>, tensor<4x0xf32>
  return %i, %w : tensor<4x0xi32>, tensor<4x0xf32>
}

// -----

func.func @moe_route_top_k_too_large(%l: tensor<4x8xf32>) -> (tensor<4x9xi32>, tensor<4x9xf32>) {
  // expected-error @+1 {{'top_k' is 9; expected between 1 and the number of experts (8)}}
  %i, %w = kgen.moe_route %l {top_k = 9} : tensor<4x8xf32> -> tensor<4x9xi32>, tensor<4x9xf32>
  return %i, %w : tensor<4x9xi32>, tensor<4x9xf32>
}

// -----

func.func @moe_route_ids_rank(%l: tensor<4x8xf32>) -> (tensor<8xi32>, tensor<4x2xf32>) {
  // expected-error @+1 {{'expert_ids' must have rank 2 ([T, top_k]); got 'tensor<8xi32>'}}
  %i, %w = kgen.moe_route %l {top_k = 2} : tensor<4x8xf32> -> tensor<8xi32>, tensor<4x2xf32>
  return %i, %w : tensor<8xi32>, tensor<4x2xf32>
}

// -----

func.func @moe_route_ids_elem(%l: tensor<4x8xf32>) -> (tensor<4x2xi64>, tensor<4x2xf32>) {
  // expected-error @+1 {{'expert_ids' has element type 'i64'; expected 'i32'}}
  %i, %w = kgen.moe_route %l {top_k = 2} : tensor<4x8xf32> -> tensor<4x2xi64>, tensor<4x2xf32>
  return %i, %w : tensor<4x2xi64>, tensor<4x2xf32>
}

// -----

func.func @moe_route_ids_shape(%l: tensor<4x8xf32>) -> (tensor<4x3xi32>, tensor<4x2xf32>) {
  // expected-error @+1 {{'expert_ids' has shape [4, 3]; expected [4, 2] ([T, top_k])}}
  %i, %w = kgen.moe_route %l {top_k = 2} : tensor<4x8xf32> -> tensor<4x3xi32>, tensor<4x2xf32>
  return %i, %w : tensor<4x3xi32>, tensor<4x2xf32>
}

// -----

func.func @moe_route_weights_rank(%l: tensor<4x8xf32>) -> (tensor<4x2xi32>, tensor<4x2x1xf32>) {
  // expected-error @+1 {{'weights' must have rank 2 ([T, top_k]); got 'tensor<4x2x1xf32>'}}
  %i, %w = kgen.moe_route %l {top_k = 2} : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2x1xf32>
  return %i, %w : tensor<4x2xi32>, tensor<4x2x1xf32>
}

// -----

// The routing weights are always f32, whatever the logits' type.
func.func @moe_route_weights_elem(%l: tensor<4x8xbf16>) -> (tensor<4x2xi32>, tensor<4x2xbf16>) {
  // expected-error @+1 {{'weights' has element type 'bf16'; expected 'f32'}}
  %i, %w = kgen.moe_route %l {top_k = 2} : tensor<4x8xbf16> -> tensor<4x2xi32>, tensor<4x2xbf16>
  return %i, %w : tensor<4x2xi32>, tensor<4x2xbf16>
}

// -----

func.func @moe_route_weights_shape(%l: tensor<4x8xf32>) -> (tensor<4x2xi32>, tensor<2x4xf32>) {
  // expected-error @+1 {{'weights' has shape [2, 4]; expected [4, 2] ([T, top_k])}}
  %i, %w = kgen.moe_route %l {top_k = 2} : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<2x4xf32>
  return %i, %w : tensor<4x2xi32>, tensor<2x4xf32>
}

//===----------------------------------------------------------------------===//
// kgen.moe_permute
//===----------------------------------------------------------------------===//

// -----

func.func @moe_permute_missing_num_experts(%x: tensor<4x32xf32>, %ids: tensor<4x2xi32>) -> (tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>) {
  // expected-error @+1 {{'kgen.moe_permute' op requires attribute 'num_experts'}}
  %xp, %pos, %off = kgen.moe_permute %x, %ids : tensor<4x32xf32>, tensor<4x2xi32> -> tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>
  return %xp, %pos, %off : tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>
}

// -----

func.func @moe_permute_x_rank(%x: tensor<128xf32>, %ids: tensor<4x2xi32>) -> (tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>) {
  // expected-error @+1 {{'x' must have rank 2 ([T, H]); got 'tensor<128xf32>'}}
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 8} : tensor<128xf32>, tensor<4x2xi32> -> tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>
  return %xp, %pos, %off : tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>
}

// -----

func.func @moe_permute_x_elem(%x: tensor<4x32xi8>, %ids: tensor<4x2xi32>) -> (tensor<8x32xi8>, tensor<4x2xi32>, tensor<9xi32>) {
  // expected-error @+1 {{'x' has element type 'i8'; expected f16, bf16, f32 or f8E4M3FN}}
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 8} : tensor<4x32xi8>, tensor<4x2xi32> -> tensor<8x32xi8>, tensor<4x2xi32>, tensor<9xi32>
  return %xp, %pos, %off : tensor<8x32xi8>, tensor<4x2xi32>, tensor<9xi32>
}

// -----

func.func @moe_permute_ids_rank(%x: tensor<4x32xf32>, %ids: tensor<8xi32>) -> (tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>) {
  // expected-error @+1 {{'expert_ids' must have rank 2 ([T, k]); got 'tensor<8xi32>'}}
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 8} : tensor<4x32xf32>, tensor<8xi32> -> tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>
  return %xp, %pos, %off : tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>
}

// -----

func.func @moe_permute_ids_dynamic(%x: tensor<4x32xf32>, %ids: tensor<4x?xi32>) -> (tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>) {
  // expected-error @+1 {{'expert_ids' must have a static shape; got 'tensor<4x?xi32>'}}
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 8} : tensor<4x32xf32>, tensor<4x?xi32> -> tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>
  return %xp, %pos, %off : tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>
}

// -----

func.func @moe_permute_ids_elem(%x: tensor<4x32xf32>, %ids: tensor<4x2xi64>) -> (tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>) {
  // expected-error @+1 {{'expert_ids' has element type 'i64'; expected 'i32'}}
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 8} : tensor<4x32xf32>, tensor<4x2xi64> -> tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>
  return %xp, %pos, %off : tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>
}

// -----

func.func @moe_permute_ids_tokens(%x: tensor<4x32xf32>, %ids: tensor<2x4xi32>) -> (tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>) {
  // expected-error @+1 {{'expert_ids' dimension 0 (T) is 2; expected 4 (tokens of 'x')}}
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 8} : tensor<4x32xf32>, tensor<2x4xi32> -> tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>
  return %xp, %pos, %off : tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>
}

// -----

func.func @moe_permute_num_experts_zero(%x: tensor<4x32xf32>, %ids: tensor<4x2xi32>) -> (tensor<8x32xf32>, tensor<4x2xi32>, tensor<1xi32>) {
  // expected-error @+1 {{'num_experts' is 0; expected at least 1}}
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 0} : tensor<4x32xf32>, tensor<4x2xi32> -> tensor<8x32xf32>, tensor<4x2xi32>, tensor<1xi32>
  return %xp, %pos, %off : tensor<8x32xf32>, tensor<4x2xi32>, tensor<1xi32>
}

// -----

func.func @moe_permute_num_experts_negative(%x: tensor<4x32xf32>, %ids: tensor<4x2xi32>) -> (tensor<8x32xf32>, tensor<4x2xi32>, tensor<1xi32>) {
  // expected-error @+1 {{'num_experts' is -3; expected at least 1}}
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = -3} : tensor<4x32xf32>, tensor<4x2xi32> -> tensor<8x32xf32>, tensor<4x2xi32>, tensor<1xi32>
  return %xp, %pos, %off : tensor<8x32xf32>, tensor<4x2xi32>, tensor<1xi32>
}

// -----

// T * k does not fit in 64 bits.
func.func @moe_permute_rows_overflow(%x: tensor<4611686018427387904x1xf32>, %ids: tensor<4611686018427387904x4xi32>) -> (tensor<8x1xf32>, tensor<4611686018427387904x4xi32>, tensor<9xi32>) {
  // expected-error @+1 {{tokens * k overflows a 64-bit size}}
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 8} : tensor<4611686018427387904x1xf32>, tensor<4611686018427387904x4xi32> -> tensor<8x1xf32>, tensor<4611686018427387904x4xi32>, tensor<9xi32>
  return %xp, %pos, %off : tensor<8x1xf32>, tensor<4611686018427387904x4xi32>, tensor<9xi32>
}

// -----

func.func @moe_permute_permuted_rank(%x: tensor<4x32xf32>, %ids: tensor<4x2xi32>) -> (tensor<256xf32>, tensor<4x2xi32>, tensor<9xi32>) {
  // expected-error @+1 {{'permuted' must have rank 2 ([T * k, H]); got 'tensor<256xf32>'}}
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 8} : tensor<4x32xf32>, tensor<4x2xi32> -> tensor<256xf32>, tensor<4x2xi32>, tensor<9xi32>
  return %xp, %pos, %off : tensor<256xf32>, tensor<4x2xi32>, tensor<9xi32>
}

// -----

// The permuted rows are copies: they keep the element type of x.
func.func @moe_permute_permuted_elem(%x: tensor<4x32xbf16>, %ids: tensor<4x2xi32>) -> (tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>) {
  // expected-error @+1 {{'permuted' has element type 'f32'; expected 'bf16' (the element type of 'x')}}
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 8} : tensor<4x32xbf16>, tensor<4x2xi32> -> tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>
  return %xp, %pos, %off : tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi32>
}

// -----

func.func @moe_permute_permuted_shape(%x: tensor<4x32xf32>, %ids: tensor<4x2xi32>) -> (tensor<4x32xf32>, tensor<4x2xi32>, tensor<9xi32>) {
  // expected-error @+1 {{'permuted' has shape [4, 32]; expected [8, 32] ([T * k, H])}}
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 8} : tensor<4x32xf32>, tensor<4x2xi32> -> tensor<4x32xf32>, tensor<4x2xi32>, tensor<9xi32>
  return %xp, %pos, %off : tensor<4x32xf32>, tensor<4x2xi32>, tensor<9xi32>
}

// -----

func.func @moe_permute_positions_rank(%x: tensor<4x32xf32>, %ids: tensor<4x2xi32>) -> (tensor<8x32xf32>, tensor<8xi32>, tensor<9xi32>) {
  // expected-error @+1 {{'positions' must have rank 2 ([T, k], as 'expert_ids'); got 'tensor<8xi32>'}}
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 8} : tensor<4x32xf32>, tensor<4x2xi32> -> tensor<8x32xf32>, tensor<8xi32>, tensor<9xi32>
  return %xp, %pos, %off : tensor<8x32xf32>, tensor<8xi32>, tensor<9xi32>
}

// -----

func.func @moe_permute_positions_elem(%x: tensor<4x32xf32>, %ids: tensor<4x2xi32>) -> (tensor<8x32xf32>, tensor<4x2xindex>, tensor<9xi32>) {
  // expected-error @+1 {{'positions' has element type 'index'; expected 'i32'}}
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 8} : tensor<4x32xf32>, tensor<4x2xi32> -> tensor<8x32xf32>, tensor<4x2xindex>, tensor<9xi32>
  return %xp, %pos, %off : tensor<8x32xf32>, tensor<4x2xindex>, tensor<9xi32>
}

// -----

func.func @moe_permute_positions_shape(%x: tensor<4x32xf32>, %ids: tensor<4x2xi32>) -> (tensor<8x32xf32>, tensor<2x4xi32>, tensor<9xi32>) {
  // expected-error @+1 {{'positions' has shape [2, 4]; expected [4, 2] ([T, k], as 'expert_ids')}}
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 8} : tensor<4x32xf32>, tensor<4x2xi32> -> tensor<8x32xf32>, tensor<2x4xi32>, tensor<9xi32>
  return %xp, %pos, %off : tensor<8x32xf32>, tensor<2x4xi32>, tensor<9xi32>
}

// -----

func.func @moe_permute_offsets_rank(%x: tensor<4x32xf32>, %ids: tensor<4x2xi32>) -> (tensor<8x32xf32>, tensor<4x2xi32>, tensor<1x9xi32>) {
  // expected-error @+1 {{'expert_offsets' must have rank 1 ([num_experts + 1]); got 'tensor<1x9xi32>'}}
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 8} : tensor<4x32xf32>, tensor<4x2xi32> -> tensor<8x32xf32>, tensor<4x2xi32>, tensor<1x9xi32>
  return %xp, %pos, %off : tensor<8x32xf32>, tensor<4x2xi32>, tensor<1x9xi32>
}

// -----

func.func @moe_permute_offsets_elem(%x: tensor<4x32xf32>, %ids: tensor<4x2xi32>) -> (tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi64>) {
  // expected-error @+1 {{'expert_offsets' has element type 'i64'; expected 'i32'}}
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 8} : tensor<4x32xf32>, tensor<4x2xi32> -> tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi64>
  return %xp, %pos, %off : tensor<8x32xf32>, tensor<4x2xi32>, tensor<9xi64>
}

// -----

func.func @moe_permute_offsets_shape(%x: tensor<4x32xf32>, %ids: tensor<4x2xi32>) -> (tensor<8x32xf32>, tensor<4x2xi32>, tensor<8xi32>) {
  // expected-error @+1 {{'expert_offsets' has shape [8]; expected [9] ([num_experts + 1])}}
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 8} : tensor<4x32xf32>, tensor<4x2xi32> -> tensor<8x32xf32>, tensor<4x2xi32>, tensor<8xi32>
  return %xp, %pos, %off : tensor<8x32xf32>, tensor<4x2xi32>, tensor<8xi32>
}

//===----------------------------------------------------------------------===//
// kgen.grouped_gemm
//===----------------------------------------------------------------------===//

// -----

func.func @grouped_gemm_a_rank(%a: tensor<1x8x32xf32>, %b: tensor<2x32x16xf32>, %off: tensor<3xi32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'a' must have rank 2 ([R, K]); got 'tensor<1x8x32xf32>'}}
  %d = kgen.grouped_gemm %a, %b, %off : tensor<1x8x32xf32>, tensor<2x32x16xf32>, tensor<3xi32> -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}

// -----

func.func @grouped_gemm_a_dynamic(%a: tensor<?x32xf32>, %b: tensor<2x32x16xf32>, %off: tensor<3xi32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'a' must have a static shape; got 'tensor<?x32xf32>'}}
  %d = kgen.grouped_gemm %a, %b, %off : tensor<?x32xf32>, tensor<2x32x16xf32>, tensor<3xi32> -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}

// -----

func.func @grouped_gemm_a_elem(%a: tensor<8x32xi32>, %b: tensor<2x32x16xi32>, %off: tensor<3xi32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'a' has element type 'i32'; expected f16, bf16, f32 or f8E4M3FN}}
  %d = kgen.grouped_gemm %a, %b, %off : tensor<8x32xi32>, tensor<2x32x16xi32>, tensor<3xi32> -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}

// -----

func.func @grouped_gemm_b_rank(%a: tensor<8x32xf32>, %b: tensor<32x16xf32>, %off: tensor<3xi32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'b' must have rank 3 ([E, K, N]); got 'tensor<32x16xf32>'}}
  %d = kgen.grouped_gemm %a, %b, %off : tensor<8x32xf32>, tensor<32x16xf32>, tensor<3xi32> -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}

// -----

func.func @grouped_gemm_b_zero_experts(%a: tensor<8x32xf32>, %b: tensor<0x32x16xf32>, %off: tensor<1xi32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'b' dimension 0 is 0; kgen ops need non-empty tensors}}
  %d = kgen.grouped_gemm %a, %b, %off : tensor<8x32xf32>, tensor<0x32x16xf32>, tensor<1xi32> -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}

// -----

func.func @grouped_gemm_b_elem(%a: tensor<8x32xf8E4M3FN>, %b: tensor<2x32x16xbf16>, %off: tensor<3xi32>) -> tensor<8x16xbf16> {
  // expected-error @+1 {{'b' has element type 'bf16'; expected 'f8E4M3FN' (the element type of 'a')}}
  %d = kgen.grouped_gemm %a, %b, %off : tensor<8x32xf8E4M3FN>, tensor<2x32x16xbf16>, tensor<3xi32> -> tensor<8x16xbf16>
  return %d : tensor<8x16xbf16>
}

// -----

func.func @grouped_gemm_b_k(%a: tensor<8x32xf32>, %b: tensor<2x16x32xf32>, %off: tensor<3xi32>) -> tensor<8x32xf32> {
  // expected-error @+1 {{'b' dimension 1 (K) is 16; expected 32 (K of 'a')}}
  %d = kgen.grouped_gemm %a, %b, %off : tensor<8x32xf32>, tensor<2x16x32xf32>, tensor<3xi32> -> tensor<8x32xf32>
  return %d : tensor<8x32xf32>
}

// -----

func.func @grouped_gemm_offsets_rank(%a: tensor<8x32xf32>, %b: tensor<2x32x16xf32>, %off: tensor<3x1xi32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'expert_offsets' must have rank 1 ([E + 1] with E of 'b'); got 'tensor<3x1xi32>'}}
  %d = kgen.grouped_gemm %a, %b, %off : tensor<8x32xf32>, tensor<2x32x16xf32>, tensor<3x1xi32> -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}

// -----

func.func @grouped_gemm_offsets_elem(%a: tensor<8x32xf32>, %b: tensor<2x32x16xf32>, %off: tensor<3xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'expert_offsets' has element type 'f32'; expected 'i32'}}
  %d = kgen.grouped_gemm %a, %b, %off : tensor<8x32xf32>, tensor<2x32x16xf32>, tensor<3xf32> -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}

// -----

func.func @grouped_gemm_offsets_shape(%a: tensor<8x32xf32>, %b: tensor<2x32x16xf32>, %off: tensor<2xi32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'expert_offsets' has shape [2]; expected [3] ([E + 1] with E of 'b')}}
  %d = kgen.grouped_gemm %a, %b, %off : tensor<8x32xf32>, tensor<2x32x16xf32>, tensor<2xi32> -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}

// -----

func.func @grouped_gemm_offsets_zero_dim(%a: tensor<8x32xf32>, %b: tensor<2x32x16xf32>, %off: tensor<0xi32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'expert_offsets' dimension 0 is 0; kgen ops need non-empty tensors}}
  %d = kgen.grouped_gemm %a, %b, %off : tensor<8x32xf32>, tensor<2x32x16xf32>, tensor<0xi32> -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}

// -----

func.func @grouped_gemm_b_up_rank(%a: tensor<8x32xf32>, %b: tensor<2x32x16xf32>, %off: tensor<3xi32>, %up: tensor<32x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'b_up' must have rank 3 ([E, K, N]); got 'tensor<32x16xf32>'}}
  %d = kgen.grouped_gemm %a, %b, %off gated(%up : tensor<32x16xf32>) : tensor<8x32xf32>, tensor<2x32x16xf32>, tensor<3xi32> -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}

// -----

func.func @grouped_gemm_b_up_dynamic(%a: tensor<8x32xf32>, %b: tensor<2x32x16xf32>, %off: tensor<3xi32>, %up: tensor<2x32x?xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'b_up' must have a static shape; got 'tensor<2x32x?xf32>'}}
  %d = kgen.grouped_gemm %a, %b, %off gated(%up : tensor<2x32x?xf32>) : tensor<8x32xf32>, tensor<2x32x16xf32>, tensor<3xi32> -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}

// -----

func.func @grouped_gemm_b_up_elem(%a: tensor<8x32xf16>, %b: tensor<2x32x16xf16>, %off: tensor<3xi32>, %up: tensor<2x32x16xbf16>) -> tensor<8x16xf16> {
  // expected-error @+1 {{'b_up' has element type 'bf16'; expected 'f16' (the element type of 'b')}}
  %d = kgen.grouped_gemm %a, %b, %off gated(%up : tensor<2x32x16xbf16>) : tensor<8x32xf16>, tensor<2x32x16xf16>, tensor<3xi32> -> tensor<8x16xf16>
  return %d : tensor<8x16xf16>
}

// -----

func.func @grouped_gemm_b_up_shape(%a: tensor<8x32xf32>, %b: tensor<2x32x16xf32>, %off: tensor<3xi32>, %up: tensor<2x32x8xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'b_up' has shape [2, 32, 8]; expected [2, 32, 16] ([E, K, N], as 'b')}}
  %d = kgen.grouped_gemm %a, %b, %off gated(%up : tensor<2x32x8xf32>) : tensor<8x32xf32>, tensor<2x32x16xf32>, tensor<3xi32> -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}

// -----

func.func @grouped_gemm_d_rank(%a: tensor<8x32xf32>, %b: tensor<2x32x16xf32>, %off: tensor<3xi32>) -> tensor<128xf32> {
  // expected-error @+1 {{'d' must have rank 2 ([R, N]); got 'tensor<128xf32>'}}
  %d = kgen.grouped_gemm %a, %b, %off : tensor<8x32xf32>, tensor<2x32x16xf32>, tensor<3xi32> -> tensor<128xf32>
  return %d : tensor<128xf32>
}

// -----

func.func @grouped_gemm_d_elem(%a: tensor<8x32xf32>, %b: tensor<2x32x16xf32>, %off: tensor<3xi32>) -> tensor<8x16xi32> {
  // expected-error @+1 {{'d' has element type 'i32'; expected f16, bf16, f32 or f8E4M3FN}}
  %d = kgen.grouped_gemm %a, %b, %off : tensor<8x32xf32>, tensor<2x32x16xf32>, tensor<3xi32> -> tensor<8x16xi32>
  return %d : tensor<8x16xi32>
}

// -----

func.func @grouped_gemm_d_shape(%a: tensor<8x32xf32>, %b: tensor<2x32x16xf32>, %off: tensor<3xi32>) -> tensor<8x32xf32> {
  // expected-error @+1 {{'d' has shape [8, 32]; expected [8, 16] ([R, N])}}
  %d = kgen.grouped_gemm %a, %b, %off : tensor<8x32xf32>, tensor<2x32x16xf32>, tensor<3xi32> -> tensor<8x32xf32>
  return %d : tensor<8x32xf32>
}

//===----------------------------------------------------------------------===//
// kgen.moe_combine
//===----------------------------------------------------------------------===//

// -----

func.func @moe_combine_expert_out_rank(%yp: tensor<8x32x1xf32>, %pos: tensor<4x2xi32>, %w: tensor<4x2xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'expert_out' must have rank 2 ([T * k, H]); got 'tensor<8x32x1xf32>'}}
  %y = kgen.moe_combine %yp, %pos, %w : tensor<8x32x1xf32>, tensor<4x2xi32>, tensor<4x2xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_combine_expert_out_dynamic(%yp: tensor<?x32xf32>, %pos: tensor<4x2xi32>, %w: tensor<4x2xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'expert_out' must have a static shape; got 'tensor<?x32xf32>'}}
  %y = kgen.moe_combine %yp, %pos, %w : tensor<?x32xf32>, tensor<4x2xi32>, tensor<4x2xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_combine_expert_out_elem(%yp: tensor<8x32xi32>, %pos: tensor<4x2xi32>, %w: tensor<4x2xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'expert_out' has element type 'i32'; expected f16, bf16, f32 or f8E4M3FN}}
  %y = kgen.moe_combine %yp, %pos, %w : tensor<8x32xi32>, tensor<4x2xi32>, tensor<4x2xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_combine_positions_rank(%yp: tensor<8x32xf32>, %pos: tensor<8xi32>, %w: tensor<4x2xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'positions' must have rank 2 ([T, k]); got 'tensor<8xi32>'}}
  %y = kgen.moe_combine %yp, %pos, %w : tensor<8x32xf32>, tensor<8xi32>, tensor<4x2xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_combine_positions_zero_dim(%yp: tensor<8x32xf32>, %pos: tensor<4x0xi32>, %w: tensor<4x2xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'positions' dimension 1 is 0; kgen ops need non-empty tensors}}
  %y = kgen.moe_combine %yp, %pos, %w : tensor<8x32xf32>, tensor<4x0xi32>, tensor<4x2xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_combine_positions_elem(%yp: tensor<8x32xf32>, %pos: tensor<4x2xi64>, %w: tensor<4x2xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'positions' has element type 'i64'; expected 'i32'}}
  %y = kgen.moe_combine %yp, %pos, %w : tensor<8x32xf32>, tensor<4x2xi64>, tensor<4x2xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

// T * k does not fit in 64 bits.
func.func @moe_combine_rows_overflow(%yp: tensor<8x32xf32>, %pos: tensor<4611686018427387904x4xi32>, %w: tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x32xf32> {
  // expected-error @+1 {{tokens * k overflows a 64-bit size}}
  %y = kgen.moe_combine %yp, %pos, %w : tensor<8x32xf32>, tensor<4611686018427387904x4xi32>, tensor<4611686018427387904x4xf32> -> tensor<4611686018427387904x32xf32>
  return %y : tensor<4611686018427387904x32xf32>
}

// -----

func.func @moe_combine_rows(%yp: tensor<4x32xf32>, %pos: tensor<4x2xi32>, %w: tensor<4x2xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'expert_out' dimension 0 (T * k) is 4; expected 8 (tokens * k of 'positions')}}
  %y = kgen.moe_combine %yp, %pos, %w : tensor<4x32xf32>, tensor<4x2xi32>, tensor<4x2xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_combine_weights_rank(%yp: tensor<8x32xf32>, %pos: tensor<4x2xi32>, %w: tensor<8xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'weights' must have rank 2 ([T, k]); got 'tensor<8xf32>'}}
  %y = kgen.moe_combine %yp, %pos, %w : tensor<8x32xf32>, tensor<4x2xi32>, tensor<8xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_combine_weights_elem(%yp: tensor<8x32xf32>, %pos: tensor<4x2xi32>, %w: tensor<4x2xi32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'weights' has element type 'i32'; expected f16, bf16, f32 or f8E4M3FN}}
  %y = kgen.moe_combine %yp, %pos, %w : tensor<8x32xf32>, tensor<4x2xi32>, tensor<4x2xi32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_combine_weights_shape(%yp: tensor<8x32xf32>, %pos: tensor<4x2xi32>, %w: tensor<2x4xf32>) -> tensor<4x32xf32> {
  // expected-error @+1 {{'weights' has shape [2, 4]; expected [4, 2] ([T, k], as 'positions')}}
  %y = kgen.moe_combine %yp, %pos, %w : tensor<8x32xf32>, tensor<4x2xi32>, tensor<2x4xf32> -> tensor<4x32xf32>
  return %y : tensor<4x32xf32>
}

// -----

func.func @moe_combine_y_rank(%yp: tensor<8x32xf32>, %pos: tensor<4x2xi32>, %w: tensor<4x2xf32>) -> tensor<1x4x32xf32> {
  // expected-error @+1 {{'y' must have rank 2 ([T, H]); got 'tensor<1x4x32xf32>'}}
  %y = kgen.moe_combine %yp, %pos, %w : tensor<8x32xf32>, tensor<4x2xi32>, tensor<4x2xf32> -> tensor<1x4x32xf32>
  return %y : tensor<1x4x32xf32>
}

// -----

func.func @moe_combine_y_elem(%yp: tensor<8x32xf32>, %pos: tensor<4x2xi32>, %w: tensor<4x2xf32>) -> tensor<4x32xf64> {
  // expected-error @+1 {{'y' has element type 'f64'; expected f16, bf16, f32 or f8E4M3FN}}
  %y = kgen.moe_combine %yp, %pos, %w : tensor<8x32xf32>, tensor<4x2xi32>, tensor<4x2xf32> -> tensor<4x32xf64>
  return %y : tensor<4x32xf64>
}

// -----

// y has T rows, not T * k.
func.func @moe_combine_y_shape(%yp: tensor<8x32xf32>, %pos: tensor<4x2xi32>, %w: tensor<4x2xf32>) -> tensor<8x32xf32> {
  // expected-error @+1 {{'y' has shape [8, 32]; expected [4, 32] ([T, H])}}
  %y = kgen.moe_combine %yp, %pos, %w : tensor<8x32xf32>, tensor<4x2xi32>, tensor<4x2xf32> -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

func.func @attention_window_left_negative(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'window_left' is -1; expected at least 0}}
  %o = kgen.attention %q, %k, %v {window_left = -1} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

func.func @attention_two_left_windows(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'sliding_window' is 'window_left' + 1 with 'causal': give one of them}}
  %o = kgen.attention %q, %k, %v {causal, sliding_window = 4, window_left = 3} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

func.func @attention_alibi_shape(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>, %s: tensor<4xf32>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'alibi_slopes' has shape [4]; expected [8] ([Hq], one per query head)}}
  %o = kgen.attention %q, %k, %v alibi(%s : tensor<4xf32>) : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

func.func @attention_alibi_type(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>, %s: tensor<8xbf16>) -> tensor<1x8x16x64xf32> {
  // expected-error @+1 {{'alibi_slopes' has element type 'bf16'; expected 'f32'}}
  %o = kgen.attention %q, %k, %v alibi(%s : tensor<8xbf16>) : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}
