// Reduced copy of ../mixtral_moe.mlir for the CPU reference: same structure,
// hidden 256, intermediate 512, 16 tokens.
//
// A Mixtral-style sparse MoE FFN: router projection to 8 expert logits
// (f32 output), softmax top-2 routing with renormalised weights, 8 SiLU
// gated experts of intermediate size 512, weighted combine. 16 tokens,
// hidden 256. `kgen-opt --kgen-decompose-moe` splits kgen.moe into the
// route/permute/grouped-GEMM/combine steps.
func.func @mixtral_moe(%x: tensor<16x256xbf16>, %w_router: tensor<8x256xbf16>,
    %w_gate: tensor<8x256x512xbf16>, %w_up: tensor<8x256x512xbf16>,
    %w_down: tensor<8x512x256xbf16>) -> tensor<16x256xbf16> {
  %logits = kgen.gemm %x, %w_router {transpose_b}
      : tensor<16x256xbf16>, tensor<8x256xbf16> -> tensor<16x8xf32>
  %y = kgen.moe %x, %logits, %w_gate, %w_up, %w_down {top_k = 2, renormalize}
      : tensor<16x256xbf16>, tensor<16x8xf32>, tensor<8x256x512xbf16>, tensor<8x256x512xbf16>,
        tensor<8x512x256xbf16> -> tensor<16x256xbf16>
  return %y : tensor<16x256xbf16>
}
