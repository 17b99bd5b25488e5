// DeepSeek-V3 MoE layer at its real shapes, 4096 tokens.
//
// The router projection to 256 expert logits (bf16 weights, f32 output);
// DeepSeek-V3's routing: sigmoid scores, the e_score_correction_bias added
// to choose, 8 groups of 32 experts each scored by its two best, the 4 best
// groups kept, the top 8 experts among them, their uncorrected scores
// renormalised and scaled by 2.5; 256 SiLU gated experts of intermediate
// size 2048 and one shared expert of intermediate size 2048, all with e4m3
// weights and 128 x 128 f32 block scales as DeepGEMM takes them (the bf16
// activations quantised per token and 128 columns). Hidden 7168.
// `kgen-opt --kgen-decompose-moe` splits kgen.moe into the
// route/permute/grouped-GEMM/combine steps (and the shared expert's two
// grouped GEMMs).
func.func @deepseek_v3_moe(%x: tensor<4096x7168xbf16>, %w_router: tensor<256x7168xbf16>,
    %e_score_correction_bias: tensor<256xf32>,
    %w_gate: tensor<256x7168x2048xf8E4M3FN>, %w_up: tensor<256x7168x2048xf8E4M3FN>,
    %w_down: tensor<256x2048x7168xf8E4M3FN>,
    %w_gate_scale: tensor<256x56x16xf32>, %w_up_scale: tensor<256x56x16xf32>,
    %w_down_scale: tensor<256x16x56xf32>,
    %w_shared_gate: tensor<7168x2048xf8E4M3FN>, %w_shared_up: tensor<7168x2048xf8E4M3FN>,
    %w_shared_down: tensor<2048x7168xf8E4M3FN>,
    %w_shared_gate_scale: tensor<56x16xf32>, %w_shared_up_scale: tensor<56x16xf32>,
    %w_shared_down_scale: tensor<16x56xf32>) -> tensor<4096x7168xbf16> {
  %logits = kgen.gemm %x, %w_router {transpose_b}
      : tensor<4096x7168xbf16>, tensor<256x7168xbf16> -> tensor<4096x256xf32>
  %y = kgen.moe %x, %logits, %w_gate, %w_up, %w_down
      scales(%w_gate_scale, %w_up_scale, %w_down_scale
             : tensor<256x56x16xf32>, tensor<256x56x16xf32>, tensor<256x16x56xf32>)
      correction_bias(%e_score_correction_bias : tensor<256xf32>)
      shared(%w_shared_gate, %w_shared_up, %w_shared_down
             : tensor<7168x2048xf8E4M3FN>, tensor<7168x2048xf8E4M3FN>, tensor<2048x7168xf8E4M3FN>)
      shared_scales(%w_shared_gate_scale, %w_shared_up_scale, %w_shared_down_scale
                    : tensor<56x16xf32>, tensor<56x16xf32>, tensor<16x56xf32>)
      {top_k = 8, renormalize, scoring = #kgen.scoring<sigmoid>, n_group = 8,
       topk_group = 4, routed_scaling_factor = 2.5 : f32}
      : tensor<4096x7168xbf16>, tensor<4096x256xf32>, tensor<256x7168x2048xf8E4M3FN>, tensor<256x7168x2048xf8E4M3FN>,
        tensor<256x2048x7168xf8E4M3FN> -> tensor<4096x7168xbf16>
  return %y : tensor<4096x7168xbf16>
}
