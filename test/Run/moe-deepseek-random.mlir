// The DeepSeek-style extensions of kgen.moe and kgen.moe_route on the CPU
// reference against Inputs/deepseek_moe.py (numpy from the semantics in
// KgenOps.td): sigmoid scoring, the correction bias, group-limited top-k
// (with ties between groups at the edge of the kept ones and between
// experts), the routed scaling factor, a shared expert, and e4m3 weights
// with 128 x 128 block scales (activations quantised per token and 128
// columns). Ids are exact; weights f32 1e-5; layer outputs (relative
// Frobenius) bf16 1e-2, f32 1e-5.
//
// RUN: rm -rf %t
// RUN: %python %S/Inputs/deepseek_moe.py route --dir %t/route_v3 --seed 300 --t 16 --e 256 --top-k 8 --scoring sigmoid --n-group 8 --topk-group 4 --bias --renormalize --scale 2.5
// RUN: kgen-run %s --entry=route_v3 \
// RUN:   --input=%t/route_v3/logits.npy,%t/route_v3/bias.npy \
// RUN:   --compare-file=0:%t/route_v3/expected0.npy,1:%t/route_v3/expected1.npy \
// RUN:   --tolerance=1e-5 | FileCheck %s --check-prefix=ROUTE
// RUN: %python %S/Inputs/deepseek_moe.py route --dir %t/route_v2 --seed 301 --t 16 --e 64 --top-k 6 --scoring softmax --n-group 8 --topk-group 3 --scale 16.0
// RUN: kgen-run %s --entry=route_v2 \
// RUN:   --input=%t/route_v2/logits.npy \
// RUN:   --compare-file=0:%t/route_v2/expected0.npy,1:%t/route_v2/expected1.npy \
// RUN:   --tolerance=1e-5 | FileCheck %s --check-prefix=ROUTE
// RUN: %python %S/Inputs/deepseek_moe.py route --dir %t/route_sigmoid_bias --seed 302 --t 16 --e 16 --top-k 4 --scoring sigmoid --bias --renormalize
// RUN: kgen-run %s --entry=route_sigmoid_bias \
// RUN:   --input=%t/route_sigmoid_bias/logits.npy,%t/route_sigmoid_bias/bias.npy \
// RUN:   --compare-file=0:%t/route_sigmoid_bias/expected0.npy,1:%t/route_sigmoid_bias/expected1.npy \
// RUN:   --tolerance=1e-5 | FileCheck %s --check-prefix=ROUTE
// RUN: %python %S/Inputs/deepseek_moe.py moe --dir %t/moe_e4m3_shared --seed 303 --dtype bf16 --t 8 --h 320 --i 136 --e 16 --top-k 4 --scoring sigmoid --act silu --n-group 4 --topk-group 2 --bias --renormalize --e4m3 --shared 72 --scale 2.5
// RUN: kgen-run %s --entry=moe_e4m3_shared \
// RUN:   --input=%t/moe_e4m3_shared/x.npy,%t/moe_e4m3_shared/logits.npy,%t/moe_e4m3_shared/wg.npy,%t/moe_e4m3_shared/wu.npy,%t/moe_e4m3_shared/wd.npy,%t/moe_e4m3_shared/sg.npy,%t/moe_e4m3_shared/su.npy,%t/moe_e4m3_shared/sd.npy,%t/moe_e4m3_shared/bias.npy,%t/moe_e4m3_shared/wsg.npy,%t/moe_e4m3_shared/wsu.npy,%t/moe_e4m3_shared/wsd.npy,%t/moe_e4m3_shared/ssg.npy,%t/moe_e4m3_shared/ssu.npy,%t/moe_e4m3_shared/ssd.npy \
// RUN:   --compare-file=0:%t/moe_e4m3_shared/expected0.npy \
// RUN:   --tolerance=1e-2 | FileCheck %s --check-prefix=MOE
// RUN: %python %S/Inputs/deepseek_moe.py moe --dir %t/moe_v3_small --seed 304 --dtype bf16 --t 8 --h 32 --i 16 --e 256 --top-k 8 --scoring sigmoid --act silu --n-group 8 --topk-group 4 --bias --renormalize --e4m3 --shared 32 --scale 2.5
// RUN: kgen-run %s --entry=moe_v3_small \
// RUN:   --input=%t/moe_v3_small/x.npy,%t/moe_v3_small/logits.npy,%t/moe_v3_small/wg.npy,%t/moe_v3_small/wu.npy,%t/moe_v3_small/wd.npy,%t/moe_v3_small/sg.npy,%t/moe_v3_small/su.npy,%t/moe_v3_small/sd.npy,%t/moe_v3_small/bias.npy,%t/moe_v3_small/wsg.npy,%t/moe_v3_small/wsu.npy,%t/moe_v3_small/wsd.npy,%t/moe_v3_small/ssg.npy,%t/moe_v3_small/ssu.npy,%t/moe_v3_small/ssd.npy \
// RUN:   --compare-file=0:%t/moe_v3_small/expected0.npy \
// RUN:   --tolerance=1e-2 | FileCheck %s --check-prefix=MOE
// RUN: %python %S/Inputs/deepseek_moe.py moe --dir %t/moe_f32_shared --seed 305 --dtype f32 --t 8 --h 32 --i 64 --e 8 --top-k 2 --scoring sigmoid --act gelu --n-group 4 --topk-group 2 --bias --shared 48
// RUN: kgen-run %s --entry=moe_f32_shared \
// RUN:   --input=%t/moe_f32_shared/x.npy,%t/moe_f32_shared/logits.npy,%t/moe_f32_shared/wg.npy,%t/moe_f32_shared/wu.npy,%t/moe_f32_shared/wd.npy,%t/moe_f32_shared/bias.npy,%t/moe_f32_shared/wsg.npy,%t/moe_f32_shared/wsu.npy,%t/moe_f32_shared/wsd.npy \
// RUN:   --compare-file=0:%t/moe_f32_shared/expected0.npy \
// RUN:   --tolerance=1e-5 | FileCheck %s --check-prefix=MOE

// ROUTE: compare 0:{{.*}}: OK rel_frob=0.000e+00
// ROUTE: compare 1:{{.*}}: OK
// MOE: compare 0:{{.*}}: OK

// DeepSeek-V3's router: 256 experts in 8 groups, 4 kept, top-8 by
// sigmoid + bias, renormalised, times 2.5.
func.func @route_v3(%logits: tensor<16x256xf32>, %bias: tensor<256xf32>) -> (tensor<16x8xi32>, tensor<16x8xf32>) {
  %ids, %w = kgen.moe_route %logits correction_bias(%bias : tensor<256xf32>)
      {top_k = 8, renormalize, scoring = #kgen.scoring<sigmoid>, n_group = 8, topk_group = 4, routed_scaling_factor = 2.5 : f32}
      : tensor<16x256xf32> -> tensor<16x8xi32>, tensor<16x8xf32>
  return %ids, %w : tensor<16x8xi32>, tensor<16x8xf32>
}

// DeepSeek-V2's: softmax, groups scored by their best expert, top-6 of
// the 3 kept groups, not renormalised, times 16.
func.func @route_v2(%logits: tensor<16x64xf32>) -> (tensor<16x6xi32>, tensor<16x6xf32>) {
  %ids, %w = kgen.moe_route %logits
      {top_k = 6, n_group = 8, topk_group = 3, routed_scaling_factor = 16.0 : f32}
      : tensor<16x64xf32> -> tensor<16x6xi32>, tensor<16x6xf32>
  return %ids, %w : tensor<16x6xi32>, tensor<16x6xf32>
}

// Sigmoid and a bias without groups.
func.func @route_sigmoid_bias(%logits: tensor<16x16xf32>, %bias: tensor<16xf32>) -> (tensor<16x4xi32>, tensor<16x4xf32>) {
  %ids, %w = kgen.moe_route %logits correction_bias(%bias : tensor<16xf32>)
      {top_k = 4, renormalize, scoring = #kgen.scoring<sigmoid>}
      : tensor<16x16xf32> -> tensor<16x4xi32>, tensor<16x4xf32>
  return %ids, %w : tensor<16x4xi32>, tensor<16x4xf32>
}

// e4m3 weights with block scales, partial last blocks along H (320 =
// 2 x 128 + 64), I (136) and Is (72), a shared expert, grouped sigmoid
// routing with a bias.
func.func @moe_e4m3_shared(%x: tensor<8x320xbf16>,
    %logits: tensor<8x16xf32>,
    %wg: tensor<16x320x136xf8E4M3FN>,
    %wu: tensor<16x320x136xf8E4M3FN>,
    %wd: tensor<16x136x320xf8E4M3FN>,
    %sg: tensor<16x3x2xf32>,
    %su: tensor<16x3x2xf32>,
    %sd: tensor<16x2x3xf32>,
    %bias: tensor<16xf32>,
    %wsg: tensor<320x72xf8E4M3FN>,
    %wsu: tensor<320x72xf8E4M3FN>,
    %wsd: tensor<72x320xf8E4M3FN>,
    %ssg: tensor<3x1xf32>,
    %ssu: tensor<3x1xf32>,
    %ssd: tensor<1x3xf32>) -> tensor<8x320xbf16> {
  %y = kgen.moe %x, %logits, %wg, %wu, %wd
      scales(%sg, %su, %sd : tensor<16x3x2xf32>, tensor<16x3x2xf32>, tensor<16x2x3xf32>)
      correction_bias(%bias : tensor<16xf32>)
      shared(%wsg, %wsu, %wsd : tensor<320x72xf8E4M3FN>, tensor<320x72xf8E4M3FN>, tensor<72x320xf8E4M3FN>)
      shared_scales(%ssg, %ssu, %ssd : tensor<3x1xf32>, tensor<3x1xf32>, tensor<1x3xf32>)
      {top_k = 4, renormalize, scoring = #kgen.scoring<sigmoid>, n_group = 4, topk_group = 2, routed_scaling_factor = 2.5 : f32}
      : tensor<8x320xbf16>, tensor<8x16xf32>, tensor<16x320x136xf8E4M3FN>, tensor<16x320x136xf8E4M3FN>,
        tensor<16x136x320xf8E4M3FN> -> tensor<8x320xbf16>
  return %y : tensor<8x320xbf16>
}

// DeepSeek-V3's routing and layout at a small H and I: 256 experts, 8
// groups, 4 kept, top-8, e4m3 with scales, one shared expert.
func.func @moe_v3_small(%x: tensor<8x32xbf16>,
    %logits: tensor<8x256xf32>,
    %wg: tensor<256x32x16xf8E4M3FN>,
    %wu: tensor<256x32x16xf8E4M3FN>,
    %wd: tensor<256x16x32xf8E4M3FN>,
    %sg: tensor<256x1x1xf32>,
    %su: tensor<256x1x1xf32>,
    %sd: tensor<256x1x1xf32>,
    %bias: tensor<256xf32>,
    %wsg: tensor<32x32xf8E4M3FN>,
    %wsu: tensor<32x32xf8E4M3FN>,
    %wsd: tensor<32x32xf8E4M3FN>,
    %ssg: tensor<1x1xf32>,
    %ssu: tensor<1x1xf32>,
    %ssd: tensor<1x1xf32>) -> tensor<8x32xbf16> {
  %y = kgen.moe %x, %logits, %wg, %wu, %wd
      scales(%sg, %su, %sd : tensor<256x1x1xf32>, tensor<256x1x1xf32>, tensor<256x1x1xf32>)
      correction_bias(%bias : tensor<256xf32>)
      shared(%wsg, %wsu, %wsd : tensor<32x32xf8E4M3FN>, tensor<32x32xf8E4M3FN>, tensor<32x32xf8E4M3FN>)
      shared_scales(%ssg, %ssu, %ssd : tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>)
      {top_k = 8, renormalize, scoring = #kgen.scoring<sigmoid>, n_group = 8, topk_group = 4, routed_scaling_factor = 2.5 : f32}
      : tensor<8x32xbf16>, tensor<8x256xf32>, tensor<256x32x16xf8E4M3FN>, tensor<256x32x16xf8E4M3FN>,
        tensor<256x16x32xf8E4M3FN> -> tensor<8x32xbf16>
  return %y : tensor<8x32xbf16>
}

// f32 weights (no scales), a shared expert, gelu, grouped sigmoid
// routing with a bias, not renormalised.
func.func @moe_f32_shared(%x: tensor<8x32xf32>,
    %logits: tensor<8x8xf32>,
    %wg: tensor<8x32x64xf32>,
    %wu: tensor<8x32x64xf32>,
    %wd: tensor<8x64x32xf32>,
    %bias: tensor<8xf32>,
    %wsg: tensor<32x48xf32>,
    %wsu: tensor<32x48xf32>,
    %wsd: tensor<48x32xf32>) -> tensor<8x32xf32> {
  %y = kgen.moe %x, %logits, %wg, %wu, %wd
      correction_bias(%bias : tensor<8xf32>)
      shared(%wsg, %wsu, %wsd : tensor<32x48xf32>, tensor<32x48xf32>, tensor<48x32xf32>)
      {top_k = 2, activation = #kgen.activation<gelu>, scoring = #kgen.scoring<sigmoid>, n_group = 4, topk_group = 2}
      : tensor<8x32xf32>, tensor<8x8xf32>, tensor<8x32x64xf32>, tensor<8x32x64xf32>,
        tensor<8x64x32xf32> -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}
