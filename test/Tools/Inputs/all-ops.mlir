// Every kgen op once, at small shapes: the seed of the mutation fuzzers.
func.func @main(%a: tensor<4x8xbf16>, %b: tensor<8x16xbf16>, %bias: tensor<16xf32>,
                %q: tensor<1x4x8x32xf16>, %k: tensor<1x2x8x32xf16>, %v: tensor<1x2x8x32xf16>,
                %lens: tensor<1xi32>, %x: tensor<4x32xbf16>, %l: tensor<4x8xf32>,
                %wg: tensor<8x32x64xbf16>, %wu: tensor<8x32x64xbf16>, %wd: tensor<8x64x32xbf16>)
    -> (tensor<4x16xbf16>, tensor<1x4x8x32xf16>, tensor<1x4x8xf32>, tensor<4x32xbf16>, tensor<4x32xbf16>) {
  %d = kgen.gemm %a, %b bias(%bias : tensor<16xf32>) {activation = #kgen.activation<gelu>, alpha = 0.5 : f32}
      : tensor<4x8xbf16>, tensor<8x16xbf16> -> tensor<4x16xbf16>
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<1xi32>) {causal, sliding_window = 4, softcap = 30.0 : f32}
      : tensor<1x4x8x32xf16>, tensor<1x2x8x32xf16>, tensor<1x2x8x32xf16> -> tensor<1x4x8x32xf16>, tensor<1x4x8xf32>
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2, renormalize}
      : tensor<4x32xbf16>, tensor<4x8xf32>, tensor<8x32x64xbf16>, tensor<8x32x64xbf16>, tensor<8x64x32xbf16> -> tensor<4x32xbf16>
  %ids, %w = kgen.moe_route %l {top_k = 2} : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 8}
      : tensor<4x32xbf16>, tensor<4x2xi32> -> tensor<8x32xbf16>, tensor<4x2xi32>, tensor<9xi32>
  %h = kgen.grouped_gemm %xp, %wg, %off gated(%wu : tensor<8x32x64xbf16>) {activation = #kgen.activation<silu>}
      : tensor<8x32xbf16>, tensor<8x32x64xbf16>, tensor<9xi32> -> tensor<8x64xbf16>
  %yp = kgen.grouped_gemm %h, %wd, %off : tensor<8x64xbf16>, tensor<8x64x32xbf16>, tensor<9xi32> -> tensor<8x32xbf16>
  %y2 = kgen.moe_combine %yp, %pos, %w : tensor<8x32xbf16>, tensor<4x2xi32>, tensor<4x2xf32> -> tensor<4x32xbf16>
  return %d, %o, %lse, %y, %y2 : tensor<4x16xbf16>, tensor<1x4x8x32xf16>, tensor<1x4x8xf32>, tensor<4x32xbf16>, tensor<4x32xbf16>
}
