// Reduced copy of ../llama3_8b_decode.mlir for the CPU reference: same
// structure (GQA 32/8, head dim 128, kv_lens, the LSE), 4 sequences
// against a KV cache of up to 300 positions.
func.func @llama3_8b_decode(%q: tensor<4x32x1x128xbf16>, %k: tensor<4x8x300x128xbf16>,
    %v: tensor<4x8x300x128xbf16>, %lens: tensor<4xi32>)
    -> (tensor<4x32x1x128xbf16>, tensor<4x32x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<4xi32>) {causal}
      : tensor<4x32x1x128xbf16>, tensor<4x8x300x128xbf16>, tensor<4x8x300x128xbf16>
        -> tensor<4x32x1x128xbf16>, tensor<4x32x1xf32>
  return %o, %lse : tensor<4x32x1x128xbf16>, tensor<4x32x1xf32>
}
