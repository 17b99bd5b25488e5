// kgen.moe
// on the CPU reference against reference.py (float64 numpy from the
// semantics in KgenOps.td), on random inputs exact in the operand type.
// Tolerances (relative Frobenius) follow the result type: f32 1e-5, bf16
// 1e-2; ids, positions, offsets and copies are exact.
//
// RUN: rm -rf %t
// RUN: %python %S/Inputs/reference.py gen moe --dir %t/moe_bf16 --seed 200 --dtype bf16 --t 16 --h 32 --i 64 --e 8 --top-k 2 --act silu --renormalize
// RUN: kgen-run %s --entry=moe_bf16 \
// RUN:   --input=%t/moe_bf16/x.npy,%t/moe_bf16/logits.npy,%t/moe_bf16/wg.npy,%t/moe_bf16/wu.npy,%t/moe_bf16/wd.npy \
// RUN:   --compare-file=0:%t/moe_bf16/expected0.npy \
// RUN:   --tolerance=1e-2 | FileCheck %s --check-prefix=RES1
// RUN: %python %S/Inputs/reference.py gen moe --dir %t/moe_bf16_raw --seed 201 --dtype bf16 --t 16 --h 32 --i 64 --e 8 --top-k 2 --act silu
// RUN: kgen-run %s --entry=moe_bf16_raw \
// RUN:   --input=%t/moe_bf16_raw/x.npy,%t/moe_bf16_raw/logits.npy,%t/moe_bf16_raw/wg.npy,%t/moe_bf16_raw/wu.npy,%t/moe_bf16_raw/wd.npy \
// RUN:   --compare-file=0:%t/moe_bf16_raw/expected0.npy \
// RUN:   --tolerance=1e-2 | FileCheck %s --check-prefix=RES1
// RUN: %python %S/Inputs/reference.py gen moe --dir %t/moe_f32_gelu --seed 202 --dtype f32 --t 8 --h 16 --i 32 --e 8 --top-k 2 --act gelu
// RUN: kgen-run %s --entry=moe_f32_gelu \
// RUN:   --input=%t/moe_f32_gelu/x.npy,%t/moe_f32_gelu/logits.npy,%t/moe_f32_gelu/wg.npy,%t/moe_f32_gelu/wu.npy,%t/moe_f32_gelu/wd.npy \
// RUN:   --compare-file=0:%t/moe_f32_gelu/expected0.npy \
// RUN:   --tolerance=1e-5 | FileCheck %s --check-prefix=RES1
// RUN: %python %S/Inputs/reference.py gen moe --dir %t/moe_f16_top3 --seed 203 --dtype f16 --t 8 --h 16 --i 24 --e 4 --top-k 3 --act gelu --logits bf16 --out f32
// RUN: kgen-run %s --entry=moe_f16_top3 \
// RUN:   --input=%t/moe_f16_top3/x.npy,%t/moe_f16_top3/logits.npy,%t/moe_f16_top3/wg.npy,%t/moe_f16_top3/wu.npy,%t/moe_f16_top3/wd.npy \
// RUN:   --compare-file=0:%t/moe_f16_top3/expected0.npy \
// RUN:   --tolerance=1e-5 | FileCheck %s --check-prefix=RES1

// RES1: compare 0:{{.*}}: OK

// kgen.moe, top-2 of 8, with and without renormalize.
func.func @moe_bf16(%x: tensor<16x32xbf16>,
    %logits: tensor<16x8xf32>,
    %wg: tensor<8x32x64xbf16>,
    %wu: tensor<8x32x64xbf16>,
    %wd: tensor<8x64x32xbf16>)
    -> tensor<16x32xbf16> {
  %r0 = kgen.moe %x, %logits, %wg, %wu, %wd
      {top_k = 2, renormalize, activation = #kgen.activation<silu>}
      : tensor<16x32xbf16>, tensor<16x8xf32>, tensor<8x32x64xbf16>, tensor<8x32x64xbf16>,
        tensor<8x64x32xbf16> -> tensor<16x32xbf16>
  return %r0 : tensor<16x32xbf16>
}

func.func @moe_bf16_raw(%x: tensor<16x32xbf16>,
    %logits: tensor<16x8xf32>,
    %wg: tensor<8x32x64xbf16>,
    %wu: tensor<8x32x64xbf16>,
    %wd: tensor<8x64x32xbf16>)
    -> tensor<16x32xbf16> {
  %r0 = kgen.moe %x, %logits, %wg, %wu, %wd
      {top_k = 2, activation = #kgen.activation<silu>}
      : tensor<16x32xbf16>, tensor<16x8xf32>, tensor<8x32x64xbf16>, tensor<8x32x64xbf16>,
        tensor<8x64x32xbf16> -> tensor<16x32xbf16>
  return %r0 : tensor<16x32xbf16>
}

func.func @moe_f32_gelu(%x: tensor<8x16xf32>,
    %logits: tensor<8x8xf32>,
    %wg: tensor<8x16x32xf32>,
    %wu: tensor<8x16x32xf32>,
    %wd: tensor<8x32x16xf32>)
    -> tensor<8x16xf32> {
  %r0 = kgen.moe %x, %logits, %wg, %wu, %wd
      {top_k = 2, activation = #kgen.activation<gelu>}
      : tensor<8x16xf32>, tensor<8x8xf32>, tensor<8x16x32xf32>, tensor<8x16x32xf32>,
        tensor<8x32x16xf32> -> tensor<8x16xf32>
  return %r0 : tensor<8x16xf32>
}

// Top-3 of 4, f16 with bf16 router logits (with ties, as for
// kgen.moe_route), into an f32 result.
func.func @moe_f16_top3(%x: tensor<8x16xf16>,
    %logits: tensor<8x4xbf16>,
    %wg: tensor<4x16x24xf16>,
    %wu: tensor<4x16x24xf16>,
    %wd: tensor<4x24x16xf16>)
    -> tensor<8x16xf32> {
  %r0 = kgen.moe %x, %logits, %wg, %wu, %wd
      {top_k = 3, activation = #kgen.activation<gelu>}
      : tensor<8x16xf16>, tensor<8x4xbf16>, tensor<4x16x24xf16>, tensor<4x16x24xf16>,
        tensor<4x24x16xf16> -> tensor<8x16xf32>
  return %r0 : tensor<8x16xf32>
}
