// The fused kgen.moe computes exactly (tolerance 0) what its decomposition
// by --kgen-decompose-moe computes (route, permute, gated grouped GEMM, down
// grouped GEMM, combine; the shared expert's two grouped GEMMs), on the same
// seeded random inputs, with and without the DeepSeek extensions. KgenOps.td puts
// the roundings of both forms at the same points. The results must not
// hold NaN (kgen-run's fill for unwritten results), which rt::compare would
// call equal.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: kgen-opt --kgen-decompose-moe %s -o %t/decomposed.mlir
// RUN: FileCheck %s --check-prefix=DECOMPOSED --input-file=%t/decomposed.mlir
//
// RUN: kgen-run %s --entry=mixtral_like --seed=21 --output-dir=%t/mixtral_like \
// RUN:   | FileCheck %s --check-prefix=FUSED
// RUN: kgen-run %t/decomposed.mlir --entry=mixtral_like --seed=21 \
// RUN:   --compare-file=0:%t/mixtral_like/result0.npy | FileCheck %s
// RUN: kgen-run %s --entry=top3_gelu --seed=22 --output-dir=%t/top3_gelu \
// RUN:   | FileCheck %s --check-prefix=FUSED
// RUN: kgen-run %t/decomposed.mlir --entry=top3_gelu --seed=22 \
// RUN:   --compare-file=0:%t/top3_gelu/result0.npy | FileCheck %s
// RUN: kgen-run %s --entry=top1_relu --seed=23 --output-dir=%t/top1_relu \
// RUN:   | FileCheck %s --check-prefix=FUSED
// RUN: kgen-run %t/decomposed.mlir --entry=top1_relu --seed=23 \
// RUN:   --compare-file=0:%t/top1_relu/result0.npy | FileCheck %s

// RUN: kgen-run %s --entry=deepseek_e4m3 --seed=24 --output-dir=%t/deepseek_e4m3 \
// RUN:   | FileCheck %s --check-prefix=FUSED
// RUN: kgen-run %t/decomposed.mlir --entry=deepseek_e4m3 --seed=24 \
// RUN:   --compare-file=0:%t/deepseek_e4m3/result0.npy | FileCheck %s
// RUN: kgen-run %s --entry=sigmoid_shared_bf16 --seed=25 --output-dir=%t/sigmoid_shared_bf16 \
// RUN:   | FileCheck %s --check-prefix=FUSED
// RUN: kgen-run %t/decomposed.mlir --entry=sigmoid_shared_bf16 --seed=25 \
// RUN:   --compare-file=0:%t/sigmoid_shared_bf16/result0.npy | FileCheck %s
// RUN: kgen-run %s --entry=v2_softmax_groups --seed=26 --output-dir=%t/v2_softmax_groups \
// RUN:   | FileCheck %s --check-prefix=FUSED
// RUN: kgen-run %t/decomposed.mlir --entry=v2_softmax_groups --seed=26 \
// RUN:   --compare-file=0:%t/v2_softmax_groups/result0.npy | FileCheck %s

// DECOMPOSED-NOT: kgen.moe {{.*}}top_k
// DECOMPOSED:     kgen.moe_combine
// DECOMPOSED-NOT: kgen.moe {{.*}}top_k

// FUSED: result 0: {{.*}} nan=0
// CHECK: result 0: {{.*}} nan=0
// CHECK: compare 0:{{.*}}result0.npy: OK rel_frob=0.000e+00

// Top-2 of 8 experts, renormalized, silu, bf16.
func.func @mixtral_like(%x: tensor<16x32xbf16>, %logits: tensor<16x8xf32>,
                        %wg: tensor<8x32x64xbf16>, %wu: tensor<8x32x64xbf16>,
                        %wd: tensor<8x64x32xbf16>) -> tensor<16x32xbf16> {
  %y = kgen.moe %x, %logits, %wg, %wu, %wd {top_k = 2, renormalize}
      : tensor<16x32xbf16>, tensor<16x8xf32>, tensor<8x32x64xbf16>,
        tensor<8x32x64xbf16>, tensor<8x64x32xbf16> -> tensor<16x32xbf16>
  return %y : tensor<16x32xbf16>
}

// Top-3 of 4, not renormalized, gelu, f16 with bf16 router logits.
func.func @top3_gelu(%x: tensor<8x16xf16>, %logits: tensor<8x4xbf16>,
                     %wg: tensor<4x16x24xf16>, %wu: tensor<4x16x24xf16>,
                     %wd: tensor<4x24x16xf16>) -> tensor<8x16xf16> {
  %y = kgen.moe %x, %logits, %wg, %wu, %wd
      {top_k = 3, activation = #kgen.activation<gelu>}
      : tensor<8x16xf16>, tensor<8x4xbf16>, tensor<4x16x24xf16>,
        tensor<4x16x24xf16>, tensor<4x24x16xf16> -> tensor<8x16xf16>
  return %y : tensor<8x16xf16>
}

// Top-1 of 3, relu, bf16 into an f32 result.
func.func @top1_relu(%x: tensor<5x8xbf16>, %logits: tensor<5x3xf32>,
                     %wg: tensor<3x8x8xbf16>, %wu: tensor<3x8x8xbf16>,
                     %wd: tensor<3x8x8xbf16>) -> tensor<5x8xf32> {
  %y = kgen.moe %x, %logits, %wg, %wu, %wd
      {top_k = 1, activation = #kgen.activation<relu>}
      : tensor<5x8xbf16>, tensor<5x3xf32>, tensor<3x8x8xbf16>,
        tensor<3x8x8xbf16>, tensor<3x8x8xbf16> -> tensor<5x8xf32>
  return %y : tensor<5x8xf32>
}

// DeepSeek-V3-style: e4m3 weights with block scales (partial last blocks:
// H 320, I 136, Is 72), sigmoid + bias, 4 groups of 4 with 2 kept, top-4,
// scaled by 2.5, a shared expert.
func.func @deepseek_e4m3(%x: tensor<6x320xbf16>, %logits: tensor<6x16xf32>,
    %wg: tensor<16x320x136xf8E4M3FN>, %wu: tensor<16x320x136xf8E4M3FN>,
    %wd: tensor<16x136x320xf8E4M3FN>, %sg: tensor<16x3x2xf32>,
    %su: tensor<16x3x2xf32>, %sd: tensor<16x2x3xf32>, %bias: tensor<16xf32>,
    %wsg: tensor<320x72xf8E4M3FN>, %wsu: tensor<320x72xf8E4M3FN>,
    %wsd: tensor<72x320xf8E4M3FN>, %ssg: tensor<3x1xf32>,
    %ssu: tensor<3x1xf32>, %ssd: tensor<1x3xf32>) -> tensor<6x320xbf16> {
  %y = kgen.moe %x, %logits, %wg, %wu, %wd
      scales(%sg, %su, %sd : tensor<16x3x2xf32>, tensor<16x3x2xf32>, tensor<16x2x3xf32>)
      correction_bias(%bias : tensor<16xf32>)
      shared(%wsg, %wsu, %wsd : tensor<320x72xf8E4M3FN>, tensor<320x72xf8E4M3FN>, tensor<72x320xf8E4M3FN>)
      shared_scales(%ssg, %ssu, %ssd : tensor<3x1xf32>, tensor<3x1xf32>, tensor<1x3xf32>)
      {top_k = 4, renormalize, scoring = #kgen.scoring<sigmoid>, n_group = 4,
       topk_group = 2, routed_scaling_factor = 2.5 : f32}
      : tensor<6x320xbf16>, tensor<6x16xf32>, tensor<16x320x136xf8E4M3FN>,
        tensor<16x320x136xf8E4M3FN>, tensor<16x136x320xf8E4M3FN> -> tensor<6x320xbf16>
  return %y : tensor<6x320xbf16>
}

// Sigmoid routing with a bias (no groups), a bf16 shared expert, gelu, into
// an f32 result.
func.func @sigmoid_shared_bf16(%x: tensor<5x16xbf16>, %logits: tensor<5x8xf32>,
    %wg: tensor<8x16x24xbf16>, %wu: tensor<8x16x24xbf16>,
    %wd: tensor<8x24x16xbf16>, %bias: tensor<8xf32>,
    %wsg: tensor<16x40xbf16>, %wsu: tensor<16x40xbf16>,
    %wsd: tensor<40x16xbf16>) -> tensor<5x16xf32> {
  %y = kgen.moe %x, %logits, %wg, %wu, %wd
      correction_bias(%bias : tensor<8xf32>)
      shared(%wsg, %wsu, %wsd : tensor<16x40xbf16>, tensor<16x40xbf16>, tensor<40x16xbf16>)
      {top_k = 2, renormalize, activation = #kgen.activation<gelu>,
       scoring = #kgen.scoring<sigmoid>}
      : tensor<5x16xbf16>, tensor<5x8xf32>, tensor<8x16x24xbf16>,
        tensor<8x16x24xbf16>, tensor<8x24x16xbf16> -> tensor<5x16xf32>
  return %y : tensor<5x16xf32>
}

// DeepSeek-V2-style: softmax, groups scored by their best expert, scaled.
func.func @v2_softmax_groups(%x: tensor<7x16xf16>, %logits: tensor<7x16xbf16>,
    %wg: tensor<16x16x8xf16>, %wu: tensor<16x16x8xf16>,
    %wd: tensor<16x8x16xf16>) -> tensor<7x16xf16> {
  %y = kgen.moe %x, %logits, %wg, %wu, %wd
      {top_k = 3, n_group = 8, topk_group = 3, routed_scaling_factor = 16.0 : f32}
      : tensor<7x16xf16>, tensor<7x16xbf16>, tensor<16x16x8xf16>,
        tensor<16x16x8xf16>, tensor<16x8x16xf16> -> tensor<7x16xf16>
  return %y : tensor<7x16xf16>
}
