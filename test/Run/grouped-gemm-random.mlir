// kgen.grouped_gemm
// on the CPU reference against reference.py (float64 numpy from the
// semantics in KgenOps.td), on random inputs exact in the operand type.
// Tolerances (relative Frobenius) follow the result type: f32 1e-5, bf16
// 1e-2; ids, positions, offsets and copies are exact.
//
// RUN: rm -rf %t
// RUN: %python %S/Inputs/reference.py gen grouped_gemm --dir %t/grouped_gated --seed 208 --dtype bf16 --out bf16 --t 24 --k 16 --n 8 --e 6 --act silu --gated
// RUN: kgen-run %s --entry=grouped_gated \
// RUN:   --input=%t/grouped_gated/a.npy,%t/grouped_gated/b.npy,%t/grouped_gated/b_up.npy,%t/grouped_gated/offsets.npy \
// RUN:   --compare-file=0:%t/grouped_gated/expected0.npy \
// RUN:   --tolerance=1e-2 | FileCheck %s --check-prefix=RES1
// RUN: %python %S/Inputs/reference.py gen grouped_gemm --dir %t/grouped_f32 --seed 209 --dtype f32 --out f32 --t 24 --k 16 --n 8 --e 6 --act gelu
// RUN: kgen-run %s --entry=grouped_f32 \
// RUN:   --input=%t/grouped_f32/a.npy,%t/grouped_f32/b.npy,%t/grouped_f32/offsets.npy \
// RUN:   --compare-file=0:%t/grouped_f32/expected0.npy \
// RUN:   --tolerance=1e-5 | FileCheck %s --check-prefix=RES1
// RUN: %python %S/Inputs/reference.py gen grouped_gemm --dir %t/grouped_bf16_into_f32 --seed 210 --dtype bf16 --out f32 --t 20 --k 16 --n 8 --e 4 --act relu --gated
// RUN: kgen-run %s --entry=grouped_bf16_into_f32 \
// RUN:   --input=%t/grouped_bf16_into_f32/a.npy,%t/grouped_bf16_into_f32/b.npy,%t/grouped_bf16_into_f32/b_up.npy,%t/grouped_bf16_into_f32/offsets.npy \
// RUN:   --compare-file=0:%t/grouped_bf16_into_f32/expected0.npy \
// RUN:   --tolerance=1e-5 | FileCheck %s --check-prefix=RES1

// RES1: compare 0:{{.*}}: OK

// kgen.grouped_gemm: random group sizes (some empty), the last row in no
// group.
func.func @grouped_gated(%a: tensor<24x16xbf16>,
    %b: tensor<6x16x8xbf16>,
    %up: tensor<6x16x8xbf16>,
    %off: tensor<7xi32>)
    -> tensor<24x8xbf16> {
  %r0 = kgen.grouped_gemm %a, %b, %off gated(%up : tensor<6x16x8xbf16>)
      {activation = #kgen.activation<silu>}
      : tensor<24x16xbf16>, tensor<6x16x8xbf16>, tensor<7xi32> -> tensor<24x8xbf16>
  return %r0 : tensor<24x8xbf16>
}

func.func @grouped_f32(%a: tensor<24x16xf32>,
    %b: tensor<6x16x8xf32>,
    %off: tensor<7xi32>)
    -> tensor<24x8xf32> {
  %r0 = kgen.grouped_gemm %a, %b, %off
      {activation = #kgen.activation<gelu>}
      : tensor<24x16xf32>, tensor<6x16x8xf32>, tensor<7xi32> -> tensor<24x8xf32>
  return %r0 : tensor<24x8xf32>
}

// bf16 into f32.
func.func @grouped_bf16_into_f32(%a: tensor<20x16xbf16>,
    %b: tensor<4x16x8xbf16>,
    %up: tensor<4x16x8xbf16>,
    %off: tensor<5xi32>)
    -> tensor<20x8xf32> {
  %r0 = kgen.grouped_gemm %a, %b, %off gated(%up : tensor<4x16x8xbf16>)
      {activation = #kgen.activation<relu>}
      : tensor<20x16xbf16>, tensor<4x16x8xbf16>, tensor<5xi32> -> tensor<20x8xf32>
  return %r0 : tensor<20x8xf32>
}
