// kgen.moe_combine
// on the CPU reference against reference.py (float64 numpy from the
// semantics in KgenOps.td), on random inputs exact in the operand type.
// Tolerances (relative Frobenius) follow the result type: f32 1e-5, bf16
// 1e-2; ids, positions, offsets and copies are exact.
//
// RUN: rm -rf %t
// RUN: %python %S/Inputs/reference.py gen moe_combine --dir %t/combine_bf16 --seed 211 --dtype bf16 --out bf16 --t 16 --top-k 2 --h 8
// RUN: kgen-run %s --entry=combine_bf16 \
// RUN:   --input=%t/combine_bf16/expert_out.npy,%t/combine_bf16/positions.npy,%t/combine_bf16/weights.npy \
// RUN:   --compare-file=0:%t/combine_bf16/expected0.npy \
// RUN:   --tolerance=1e-2 | FileCheck %s --check-prefix=RES1
// RUN: %python %S/Inputs/reference.py gen moe_combine --dir %t/combine_f32 --seed 212 --dtype f32 --out f32 --t 16 --top-k 3 --h 8
// RUN: kgen-run %s --entry=combine_f32 \
// RUN:   --input=%t/combine_f32/expert_out.npy,%t/combine_f32/positions.npy,%t/combine_f32/weights.npy \
// RUN:   --compare-file=0:%t/combine_f32/expected0.npy \
// RUN:   --tolerance=1e-5 | FileCheck %s --check-prefix=RES1
// RUN: %python %S/Inputs/reference.py gen moe_combine --dir %t/combine_bf16_into_f32 --seed 213 --dtype bf16 --out f32 --t 8 --top-k 2 --h 8
// RUN: kgen-run %s --entry=combine_bf16_into_f32 \
// RUN:   --input=%t/combine_bf16_into_f32/expert_out.npy,%t/combine_bf16_into_f32/positions.npy,%t/combine_bf16_into_f32/weights.npy \
// RUN:   --compare-file=0:%t/combine_bf16_into_f32/expected0.npy \
// RUN:   --tolerance=1e-5 | FileCheck %s --check-prefix=RES1

// RES1: compare 0:{{.*}}: OK

// kgen.moe_combine: some positions -1 or T * k (dropped).
func.func @combine_bf16(%eo: tensor<32x8xbf16>,
    %pos: tensor<16x2xi32>,
    %w: tensor<16x2xf32>)
    -> tensor<16x8xbf16> {
  %r0 = kgen.moe_combine %eo, %pos, %w
      : tensor<32x8xbf16>, tensor<16x2xi32>, tensor<16x2xf32> -> tensor<16x8xbf16>
  return %r0 : tensor<16x8xbf16>
}

func.func @combine_f32(%eo: tensor<48x8xf32>,
    %pos: tensor<16x3xi32>,
    %w: tensor<16x3xf32>)
    -> tensor<16x8xf32> {
  %r0 = kgen.moe_combine %eo, %pos, %w
      : tensor<48x8xf32>, tensor<16x3xi32>, tensor<16x3xf32> -> tensor<16x8xf32>
  return %r0 : tensor<16x8xf32>
}

// bf16 into f32.
func.func @combine_bf16_into_f32(%eo: tensor<16x8xbf16>,
    %pos: tensor<8x2xi32>,
    %w: tensor<8x2xf32>)
    -> tensor<8x8xf32> {
  %r0 = kgen.moe_combine %eo, %pos, %w
      : tensor<16x8xbf16>, tensor<8x2xi32>, tensor<8x2xf32> -> tensor<8x8xf32>
  return %r0 : tensor<8x8xf32>
}
