// The fused kgen.moe computes exactly (tolerance 0) what its decomposition
// by --kgen-decompose-moe computes (route, permute, gated grouped GEMM, down
// grouped GEMM, combine), on the same seeded random inputs. KgenOps.td puts
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
