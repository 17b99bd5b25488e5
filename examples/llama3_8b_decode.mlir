// Llama-3-8B attention in a decode step at its real shapes: 64 sequences
// of one new token each against a KV cache of up to 8192 positions (their
// lengths in kv_lens), 32 query heads sharing 8 key/value heads (GQA),
// head dim 128. The log-sum-exp is returned too, as a serving engine's
// split-KV merge of a prefix cache needs it.
func.func @llama3_8b_decode(%q: tensor<64x32x1x128xbf16>, %k: tensor<64x8x8192x128xbf16>,
    %v: tensor<64x8x8192x128xbf16>, %lens: tensor<64xi32>)
    -> (tensor<64x32x1x128xbf16>, tensor<64x32x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<64xi32>) {causal}
      : tensor<64x32x1x128xbf16>, tensor<64x8x8192x128xbf16>, tensor<64x8x8192x128xbf16>
        -> tensor<64x32x1x128xbf16>, tensor<64x32x1xf32>
  return %o, %lse : tensor<64x32x1x128xbf16>, tensor<64x32x1xf32>
}
