// kgen.attention on the CPU reference against reference.py (float64 numpy
// from the semantics in KgenOps.td) on random inputs exact in the operand
// type: non-causal, mixed result type.
// Tolerances (relative Frobenius) follow the result type: f32 1e-5 (also for
// the f32 log-sum-exp), f16 and bf16 1e-2.
//
// RUN: rm -rf %t
// RUN: %python %S/Inputs/reference.py gen attention --dir %t/plain_bf16 --seed 100 --dtype bf16 --b 2 --hq 4 --hkv 4 --sq 16 --skv 24 --d 64
// RUN: kgen-run %s --entry=plain_bf16 --input=%t/plain_bf16/q.npy,%t/plain_bf16/k.npy,%t/plain_bf16/v.npy \
// RUN:   --compare-file=0:%t/plain_bf16/expected0.npy \
// RUN:   --tolerance=1e-2 | FileCheck %s
// RUN: %python %S/Inputs/reference.py gen attention --dir %t/plain_f32 --seed 101 --dtype f32 --b 1 --hq 2 --hkv 2 --sq 8 --skv 12 --d 256
// RUN: kgen-run %s --entry=plain_f32 --input=%t/plain_f32/q.npy,%t/plain_f32/k.npy,%t/plain_f32/v.npy \
// RUN:   --compare-file=0:%t/plain_f32/expected0.npy,1:%t/plain_f32/expected1.npy \
// RUN:   --tolerance=1e-5 | FileCheck %s --check-prefix=LSE
// RUN: %python %S/Inputs/reference.py gen attention --dir %t/bf16_into_f32 --seed 105 --dtype bf16 --b 1 --hq 4 --hkv 2 --sq 8 --skv 12 --d 32 --causal --out f32
// RUN: kgen-run %s --entry=bf16_into_f32 --input=%t/bf16_into_f32/q.npy,%t/bf16_into_f32/k.npy,%t/bf16_into_f32/v.npy \
// RUN:   --compare-file=0:%t/bf16_into_f32/expected0.npy,1:%t/bf16_into_f32/expected1.npy \
// RUN:   --tolerance=1e-5 | FileCheck %s --check-prefix=LSE

// CHECK: compare 0:{{.*}}: OK
// LSE: compare 0:{{.*}}: OK
// LSE: compare 1:{{.*}}: OK

// Non-causal, bf16.
func.func @plain_bf16(%q: tensor<2x4x16x64xbf16>,
    %k: tensor<2x4x24x64xbf16>,
    %v: tensor<2x4x24x64xbf16>)
    -> (tensor<2x4x16x64xbf16>, tensor<2x4x16xf32>) {
  %o, %lse = kgen.attention %q, %k, %v
      : tensor<2x4x16x64xbf16>, tensor<2x4x24x64xbf16>, tensor<2x4x24x64xbf16>
        -> tensor<2x4x16x64xbf16>, tensor<2x4x16xf32>
  return %o, %lse : tensor<2x4x16x64xbf16>, tensor<2x4x16xf32>
}

// Non-causal, f32, D = 256, and the log-sum-exp.
func.func @plain_f32(%q: tensor<1x2x8x256xf32>,
    %k: tensor<1x2x12x256xf32>,
    %v: tensor<1x2x12x256xf32>)
    -> (tensor<1x2x8x256xf32>, tensor<1x2x8xf32>) {
  %o, %lse = kgen.attention %q, %k, %v
      : tensor<1x2x8x256xf32>, tensor<1x2x12x256xf32>, tensor<1x2x12x256xf32>
        -> tensor<1x2x8x256xf32>, tensor<1x2x8xf32>
  return %o, %lse : tensor<1x2x8x256xf32>, tensor<1x2x8xf32>
}

// bf16 operands, f32 result (GQA 4:2, causal).
func.func @bf16_into_f32(%q: tensor<1x4x8x32xbf16>,
    %k: tensor<1x2x12x32xbf16>,
    %v: tensor<1x2x12x32xbf16>)
    -> (tensor<1x4x8x32xf32>, tensor<1x4x8xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal}
      : tensor<1x4x8x32xbf16>, tensor<1x2x12x32xbf16>, tensor<1x2x12x32xbf16>
        -> tensor<1x4x8x32xf32>, tensor<1x4x8xf32>
  return %o, %lse : tensor<1x4x8x32xf32>, tensor<1x4x8xf32>
}
