// Reduced copy of ../llama3_8b_block.mlir for the CPU reference: same structure,
// hidden 512, 4 query heads and 1 key/value head of head_dim 128, 32 tokens.
//
// One decoder block (pre-norm RMSNorm and RoPE are not kgen ops yet and are
// left out): QKV projection, causal grouped-query attention (4 query
// heads, 1 key/value heads, head_dim 128), output projection with the
// residual fused into its epilogue, and the gated MLP (SiLU(x Wg) * (x Wu))
// Wd with the second residual fused. 32 tokens (batch 1), hidden 512,
// intermediate 1024. Weights are [out, in] as in PyTorch, hence
// transpose_b.
func.func @llama3_8b_block(%x: tensor<32x512xbf16>, %w_qkv: tensor<768x512xbf16>,
    %w_o: tensor<512x512xbf16>, %w_gate: tensor<1024x512xbf16>,
    %w_up: tensor<1024x512xbf16>, %w_down: tensor<512x1024xbf16>) -> tensor<32x512xbf16> {
  // QKV projection: [T, hid] x [hid, 768].
  %qkv = kgen.gemm %x, %w_qkv {transpose_b}
      : tensor<32x512xbf16>, tensor<768x512xbf16> -> tensor<32x768xbf16>
  %q2 = tensor.extract_slice %qkv[0, 0] [32, 512] [1, 1] : tensor<32x768xbf16> to tensor<32x512xbf16>
  %k2 = tensor.extract_slice %qkv[0, 512] [32, 128] [1, 1] : tensor<32x768xbf16> to tensor<32x128xbf16>
  %v2 = tensor.extract_slice %qkv[0, 640] [32, 128] [1, 1] : tensor<32x768xbf16> to tensor<32x128xbf16>
  // [T, H*D] -> [1, T, H, D] -> [1, H, T, D].
  %q3 = tensor.expand_shape %q2 [[0, 1], [2, 3]] output_shape [1, 32, 4, 128]
      : tensor<32x512xbf16> into tensor<1x32x4x128xbf16>
  %k3 = tensor.expand_shape %k2 [[0, 1], [2, 3]] output_shape [1, 32, 1, 128]
      : tensor<32x128xbf16> into tensor<1x32x1x128xbf16>
  %v3 = tensor.expand_shape %v2 [[0, 1], [2, 3]] output_shape [1, 32, 1, 128]
      : tensor<32x128xbf16> into tensor<1x32x1x128xbf16>
  %q_init = tensor.empty() : tensor<1x4x32x128xbf16>
  %kv_init = tensor.empty() : tensor<1x1x32x128xbf16>
  %q = linalg.transpose ins(%q3 : tensor<1x32x4x128xbf16>) outs(%q_init : tensor<1x4x32x128xbf16>) permutation = [0, 2, 1, 3]
  %k = linalg.transpose ins(%k3 : tensor<1x32x1x128xbf16>) outs(%kv_init : tensor<1x1x32x128xbf16>) permutation = [0, 2, 1, 3]
  %v = linalg.transpose ins(%v3 : tensor<1x32x1x128xbf16>) outs(%kv_init : tensor<1x1x32x128xbf16>) permutation = [0, 2, 1, 3]
  %attn = kgen.attention %q, %k, %v {causal}
      : tensor<1x4x32x128xbf16>, tensor<1x1x32x128xbf16>, tensor<1x1x32x128xbf16> -> tensor<1x4x32x128xbf16>
  // [1, H, T, D] -> [1, T, H, D] -> [T, H*D].
  %o_init = tensor.empty() : tensor<1x32x4x128xbf16>
  %o4 = linalg.transpose ins(%attn : tensor<1x4x32x128xbf16>) outs(%o_init : tensor<1x32x4x128xbf16>) permutation = [0, 2, 1, 3]
  %o2 = tensor.collapse_shape %o4 [[0, 1], [2, 3]] : tensor<1x32x4x128xbf16> into tensor<32x512xbf16>
  // Output projection, residual x fused.
  %h = kgen.gemm %o2, %w_o residual(%x : tensor<32x512xbf16>) {transpose_b}
      : tensor<32x512xbf16>, tensor<512x512xbf16> -> tensor<32x512xbf16>
  // Gated MLP: SiLU fused into the gate projection, residual h into the down projection.
  %gate = kgen.gemm %h, %w_gate {transpose_b, activation = #kgen.activation<silu>}
      : tensor<32x512xbf16>, tensor<1024x512xbf16> -> tensor<32x1024xbf16>
  %up = kgen.gemm %h, %w_up {transpose_b}
      : tensor<32x512xbf16>, tensor<1024x512xbf16> -> tensor<32x1024xbf16>
  %act = arith.mulf %gate, %up : tensor<32x1024xbf16>
  %out = kgen.gemm %act, %w_down residual(%h : tensor<32x512xbf16>) {transpose_b}
      : tensor<32x1024xbf16>, tensor<512x1024xbf16> -> tensor<32x512xbf16>
  return %out : tensor<32x512xbf16>
}
