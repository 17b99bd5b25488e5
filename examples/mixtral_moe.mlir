// Mixtral-8x7B MoE layer at its real shapes, 2048 tokens.
//
// A Mixtral-style sparse MoE FFN: router projection to 8 expert logits
// (f32 output), softmax top-2 routing with renormalised weights, 8 SiLU
// gated experts of intermediate size 14336, weighted combine. 2048 tokens,
// hidden 4096. `kgen-opt --kgen-decompose-moe` splits kgen.moe into the
// route/permute/grouped-GEMM/combine steps.
func.func @mixtral_moe(%x: tensor<2048x4096xbf16>, %w_router: tensor<8x4096xbf16>,
    %w_gate: tensor<8x4096x14336xbf16>, %w_up: tensor<8x4096x14336xbf16>,
    %w_down: tensor<8x14336x4096xbf16>) -> tensor<2048x4096xbf16> {
  %logits = kgen.gemm %x, %w_router {transpose_b}
      : tensor<2048x4096xbf16>, tensor<8x4096xbf16> -> tensor<2048x8xf32>
  %y = kgen.moe %x, %logits, %w_gate, %w_up, %w_down {top_k = 2, renormalize}
      : tensor<2048x4096xbf16>, tensor<2048x8xf32>, tensor<8x4096x14336xbf16>, tensor<8x4096x14336xbf16>,
        tensor<8x14336x4096xbf16> -> tensor<2048x4096xbf16>
  return %y : tensor<2048x4096xbf16>
}
