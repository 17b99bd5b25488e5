// Llama-3-8B decoder block at its real shapes, 2048 tokens of prefill.
//
// One decoder block (pre-norm RMSNorm and RoPE are not kgen ops yet and are
// left out): QKV projection, causal grouped-query attention (32 query
// heads, 8 key/value heads, head_dim 128), output projection with the
// residual fused into its epilogue, and the gated MLP (SiLU(x Wg) * (x Wu))
// Wd with the second residual fused. 2048 tokens (batch 1), hidden 4096,
// intermediate 14336. Weights are [out, in] as in PyTorch, hence
// transpose_b.
func.func @llama3_8b_block(%x: tensor<2048x4096xbf16>, %w_qkv: tensor<6144x4096xbf16>,
    %w_o: tensor<4096x4096xbf16>, %w_gate: tensor<14336x4096xbf16>,
    %w_up: tensor<14336x4096xbf16>, %w_down: tensor<4096x14336xbf16>) -> tensor<2048x4096xbf16> {
  // QKV projection: [T, hid] x [hid, 6144].
  %qkv = kgen.gemm %x, %w_qkv {transpose_b}
      : tensor<2048x4096xbf16>, tensor<6144x4096xbf16> -> tensor<2048x6144xbf16>
  %q2 = tensor.extract_slice %qkv[0, 0] [2048, 4096] [1, 1] : tensor<2048x6144xbf16> to tensor<2048x4096xbf16>
  %k2 = tensor.extract_slice %qkv[0, 4096] [2048, 1024] [1, 1] : tensor<2048x6144xbf16> to tensor<2048x1024xbf16>
  %v2 = tensor.extract_slice %qkv[0, 5120] [2048, 1024] [1, 1] : tensor<2048x6144xbf16> to tensor<2048x1024xbf16>
  // [T, H*D] -> [1, T, H, D] -> [1, H, T, D].
  %q3 = tensor.expand_shape %q2 [[0, 1], [2, 3]] output_shape [1, 2048, 32, 128]
      : tensor<2048x4096xbf16> into tensor<1x2048x32x128xbf16>
  %k3 = tensor.expand_shape %k2 [[0, 1], [2, 3]] output_shape [1, 2048, 8, 128]
      : tensor<2048x1024xbf16> into tensor<1x2048x8x128xbf16>
  %v3 = tensor.expand_shape %v2 [[0, 1], [2, 3]] output_shape [1, 2048, 8, 128]
      : tensor<2048x1024xbf16> into tensor<1x2048x8x128xbf16>
  %q_init = tensor.empty() : tensor<1x32x2048x128xbf16>
  %kv_init = tensor.empty() : tensor<1x8x2048x128xbf16>
  %q = linalg.transpose ins(%q3 : tensor<1x2048x32x128xbf16>) outs(%q_init : tensor<1x32x2048x128xbf16>) permutation = [0, 2, 1, 3]
  %k = linalg.transpose ins(%k3 : tensor<1x2048x8x128xbf16>) outs(%kv_init : tensor<1x8x2048x128xbf16>) permutation = [0, 2, 1, 3]
  %v = linalg.transpose ins(%v3 : tensor<1x2048x8x128xbf16>) outs(%kv_init : tensor<1x8x2048x128xbf16>) permutation = [0, 2, 1, 3]
  %attn = kgen.attention %q, %k, %v {causal}
      : tensor<1x32x2048x128xbf16>, tensor<1x8x2048x128xbf16>, tensor<1x8x2048x128xbf16> -> tensor<1x32x2048x128xbf16>
  // [1, H, T, D] -> [1, T, H, D] -> [T, H*D].
  %o_init = tensor.empty() : tensor<1x2048x32x128xbf16>
  %o4 = linalg.transpose ins(%attn : tensor<1x32x2048x128xbf16>) outs(%o_init : tensor<1x2048x32x128xbf16>) permutation = [0, 2, 1, 3]
  %o2 = tensor.collapse_shape %o4 [[0, 1], [2, 3]] : tensor<1x2048x32x128xbf16> into tensor<2048x4096xbf16>
  // Output projection, residual x fused.
  %h = kgen.gemm %o2, %w_o residual(%x : tensor<2048x4096xbf16>) {transpose_b}
      : tensor<2048x4096xbf16>, tensor<4096x4096xbf16> -> tensor<2048x4096xbf16>
  // Gated MLP: SiLU fused into the gate projection, residual h into the down projection.
  %gate = kgen.gemm %h, %w_gate {transpose_b, activation = #kgen.activation<silu>}
      : tensor<2048x4096xbf16>, tensor<14336x4096xbf16> -> tensor<2048x14336xbf16>
  %up = kgen.gemm %h, %w_up {transpose_b}
      : tensor<2048x4096xbf16>, tensor<14336x4096xbf16> -> tensor<2048x14336xbf16>
  %act = arith.mulf %gate, %up : tensor<2048x14336xbf16>
  %out = kgen.gemm %act, %w_down residual(%h : tensor<2048x4096xbf16>) {transpose_b}
      : tensor<2048x14336xbf16>, tensor<4096x14336xbf16> -> tensor<2048x4096xbf16>
  return %out : tensor<2048x4096xbf16>
}
