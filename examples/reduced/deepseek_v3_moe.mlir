// Reduced copy of ../deepseek_v3_moe.mlir for the CPU reference: same
// structure (256 experts in 8 groups, 4 kept, top 8, a shared expert, e4m3
// weights with 128 x 128 block scales), hidden 256 (two scale blocks),
// intermediate 128, 16 tokens.
//
// The router projection to 256 expert logits (bf16 weights, f32 output);
// DeepSeek-V3's routing: sigmoid scores, the e_score_correction_bias added
// to choose, 8 groups of 32 experts each scored by its two best, the 4 best
// groups kept, the top 8 experts among them, their uncorrected scores
// renormalised and scaled by 2.5; 256 SiLU gated experts and one shared
// expert. `kgen-opt --kgen-decompose-moe` splits kgen.moe into the
// route/permute/grouped-GEMM/combine steps (and the shared expert's two
// grouped GEMMs).
func.func @deepseek_v3_moe(%x: tensor<16x256xbf16>, %w_router: tensor<256x256xbf16>,
    %e_score_correction_bias: tensor<256xf32>,
    %w_gate: tensor<256x256x128xf8E4M3FN>, %w_up: tensor<256x256x128xf8E4M3FN>,
    %w_down: tensor<256x128x256xf8E4M3FN>,
    %w_gate_scale: tensor<256x2x1xf32>, %w_up_scale: tensor<256x2x1xf32>,
    %w_down_scale: tensor<256x1x2xf32>,
    %w_shared_gate: tensor<256x128xf8E4M3FN>, %w_shared_up: tensor<256x128xf8E4M3FN>,
    %w_shared_down: tensor<128x256xf8E4M3FN>,
    %w_shared_gate_scale: tensor<2x1xf32>, %w_shared_up_scale: tensor<2x1xf32>,
    %w_shared_down_scale: tensor<1x2xf32>) -> tensor<16x256xbf16> {
  %logits = kgen.gemm %x, %w_router {transpose_b}
      : tensor<16x256xbf16>, tensor<256x256xbf16> -> tensor<16x256xf32>
  %y = kgen.moe %x, %logits, %w_gate, %w_up, %w_down
      scales(%w_gate_scale, %w_up_scale, %w_down_scale
             : tensor<256x2x1xf32>, tensor<256x2x1xf32>, tensor<256x1x2xf32>)
      correction_bias(%e_score_correction_bias : tensor<256xf32>)
      shared(%w_shared_gate, %w_shared_up, %w_shared_down
             : tensor<256x128xf8E4M3FN>, tensor<256x128xf8E4M3FN>, tensor<128x256xf8E4M3FN>)
      shared_scales(%w_shared_gate_scale, %w_shared_up_scale, %w_shared_down_scale
                    : tensor<2x1xf32>, tensor<2x1xf32>, tensor<1x2xf32>)
      {top_k = 8, renormalize, scoring = #kgen.scoring<sigmoid>, n_group = 8,
       topk_group = 4, routed_scaling_factor = 2.5 : f32}
      : tensor<16x256xbf16>, tensor<16x256xf32>, tensor<256x256x128xf8E4M3FN>, tensor<256x256x128xf8E4M3FN>,
        tensor<256x128x256xf8E4M3FN> -> tensor<16x256xbf16>
  return %y : tensor<16x256xbf16>
}
