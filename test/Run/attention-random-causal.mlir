// kgen.attention on the CPU reference against reference.py (float64 numpy
// from the semantics in KgenOps.td) on random inputs exact in the operand
// type: causal, Sq < Skv and Sq > Skv.
// Tolerances (relative Frobenius) follow the result type: f32 1e-5 (also for
// the f32 log-sum-exp), f16 and bf16 1e-2.
//
// RUN: rm -rf %t
// RUN: %python %S/Inputs/reference.py gen attention --dir %t/causal_short_q --seed 102 --dtype f16 --b 1 --hq 2 --hkv 2 --sq 8 --skv 20 --d 32 --causal
// RUN: kgen-run %s --entry=causal_short_q --input=%t/causal_short_q/q.npy,%t/causal_short_q/k.npy,%t/causal_short_q/v.npy \
// RUN:   --compare-file=0:%t/causal_short_q/expected0.npy \
// RUN:   --tolerance=1e-2 | FileCheck %s
// RUN: %python %S/Inputs/reference.py gen attention --dir %t/causal_short_q_f32 --seed 103 --dtype f32 --b 1 --hq 2 --hkv 2 --sq 8 --skv 20 --d 32 --causal
// RUN: kgen-run %s --entry=causal_short_q_f32 --input=%t/causal_short_q_f32/q.npy,%t/causal_short_q_f32/k.npy,%t/causal_short_q_f32/v.npy \
// RUN:   --compare-file=0:%t/causal_short_q_f32/expected0.npy,1:%t/causal_short_q_f32/expected1.npy \
// RUN:   --tolerance=1e-5 | FileCheck %s --check-prefix=LSE
// RUN: %python %S/Inputs/reference.py gen attention --dir %t/causal_long_q --seed 104 --dtype f32 --b 2 --hq 1 --hkv 1 --sq 12 --skv 5 --d 32 --causal
// RUN: kgen-run %s --entry=causal_long_q --input=%t/causal_long_q/q.npy,%t/causal_long_q/k.npy,%t/causal_long_q/v.npy \
// RUN:   --compare-file=0:%t/causal_long_q/expected0.npy \
// RUN:   --tolerance=1e-5 | FileCheck %s

// CHECK: compare 0:{{.*}}: OK
// LSE: compare 0:{{.*}}: OK
// LSE: compare 1:{{.*}}: OK

// Causal, Sq = 8 < Skv = 20: query i sits at p = i + 12.
func.func @causal_short_q(%q: tensor<1x2x8x32xf16>,
    %k: tensor<1x2x20x32xf16>,
    %v: tensor<1x2x20x32xf16>)
    -> (tensor<1x2x8x32xf16>, tensor<1x2x8xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal}
      : tensor<1x2x8x32xf16>, tensor<1x2x20x32xf16>, tensor<1x2x20x32xf16>
        -> tensor<1x2x8x32xf16>, tensor<1x2x8xf32>
  return %o, %lse : tensor<1x2x8x32xf16>, tensor<1x2x8xf32>
}

// The same in f32, and the log-sum-exp.
func.func @causal_short_q_f32(%q: tensor<1x2x8x32xf32>,
    %k: tensor<1x2x20x32xf32>,
    %v: tensor<1x2x20x32xf32>)
    -> (tensor<1x2x8x32xf32>, tensor<1x2x8xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal}
      : tensor<1x2x8x32xf32>, tensor<1x2x20x32xf32>, tensor<1x2x20x32xf32>
        -> tensor<1x2x8x32xf32>, tensor<1x2x8xf32>
  return %o, %lse : tensor<1x2x8x32xf32>, tensor<1x2x8xf32>
}

// Causal, Sq = 12 > Skv = 5: query i sits at p = i - 7, so rows 0..6 see no
// key and are zero. Their lse, -inf, is not compared: an infinite reference
// makes rt::compare's norm infinite, which hides every finite error
// (attention-hand.mlir checks the -inf).
func.func @causal_long_q(%q: tensor<2x1x12x32xf32>,
    %k: tensor<2x1x5x32xf32>,
    %v: tensor<2x1x5x32xf32>)
    -> (tensor<2x1x12x32xf32>, tensor<2x1x12xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal}
      : tensor<2x1x12x32xf32>, tensor<2x1x5x32xf32>, tensor<2x1x5x32xf32>
        -> tensor<2x1x12x32xf32>, tensor<2x1x12xf32>
  return %o, %lse : tensor<2x1x12x32xf32>, tensor<2x1x12xf32>
}
