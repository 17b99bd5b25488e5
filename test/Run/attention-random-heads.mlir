// kgen.attention on the CPU reference against reference.py (float64 numpy
// from the semantics in KgenOps.td) on random inputs exact in the operand
// type: GQA, MQA, sliding window.
// Tolerances (relative Frobenius) follow the result type: f32 1e-5 (also for
// the f32 log-sum-exp), f16 and bf16 1e-2.
//
// RUN: rm -rf %t
// RUN: %python %S/Inputs/reference.py gen attention --dir %t/gqa --seed 106 --dtype bf16 --b 1 --hq 8 --hkv 2 --sq 8 --skv 16 --d 64 --causal
// RUN: kgen-run %s --entry=gqa --input=%t/gqa/q.npy,%t/gqa/k.npy,%t/gqa/v.npy \
// RUN:   --compare-file=0:%t/gqa/expected0.npy \
// RUN:   --tolerance=1e-2 | FileCheck %s
// RUN: %python %S/Inputs/reference.py gen attention --dir %t/mqa --seed 107 --dtype f32 --b 2 --hq 4 --hkv 1 --sq 4 --skv 32 --d 128
// RUN: kgen-run %s --entry=mqa --input=%t/mqa/q.npy,%t/mqa/k.npy,%t/mqa/v.npy \
// RUN:   --compare-file=0:%t/mqa/expected0.npy,1:%t/mqa/expected1.npy \
// RUN:   --tolerance=1e-5 | FileCheck %s --check-prefix=LSE
// RUN: %python %S/Inputs/reference.py gen attention --dir %t/window --seed 108 --dtype f32 --b 1 --hq 2 --hkv 1 --sq 16 --skv 16 --d 32 --causal --window 4
// RUN: kgen-run %s --entry=window --input=%t/window/q.npy,%t/window/k.npy,%t/window/v.npy \
// RUN:   --compare-file=0:%t/window/expected0.npy,1:%t/window/expected1.npy \
// RUN:   --tolerance=1e-5 | FileCheck %s --check-prefix=LSE
// RUN: %python %S/Inputs/reference.py gen attention --dir %t/window_long_kv --seed 109 --dtype bf16 --b 1 --hq 2 --hkv 2 --sq 6 --skv 20 --d 32 --causal --window 3
// RUN: kgen-run %s --entry=window_long_kv --input=%t/window_long_kv/q.npy,%t/window_long_kv/k.npy,%t/window_long_kv/v.npy \
// RUN:   --compare-file=0:%t/window_long_kv/expected0.npy \
// RUN:   --tolerance=1e-2 | FileCheck %s

// CHECK: compare 0:{{.*}}: OK
// LSE: compare 0:{{.*}}: OK
// LSE: compare 1:{{.*}}: OK

// GQA 8:2, causal.
func.func @gqa(%q: tensor<1x8x8x64xbf16>,
    %k: tensor<1x2x16x64xbf16>,
    %v: tensor<1x2x16x64xbf16>)
    -> (tensor<1x8x8x64xbf16>, tensor<1x8x8xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal}
      : tensor<1x8x8x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>
        -> tensor<1x8x8x64xbf16>, tensor<1x8x8xf32>
  return %o, %lse : tensor<1x8x8x64xbf16>, tensor<1x8x8xf32>
}

// MQA 4:1, D = 128.
func.func @mqa(%q: tensor<2x4x4x128xf32>,
    %k: tensor<2x1x32x128xf32>,
    %v: tensor<2x1x32x128xf32>)
    -> (tensor<2x4x4x128xf32>, tensor<2x4x4xf32>) {
  %o, %lse = kgen.attention %q, %k, %v
      : tensor<2x4x4x128xf32>, tensor<2x1x32x128xf32>, tensor<2x1x32x128xf32>
        -> tensor<2x4x4x128xf32>, tensor<2x4x4xf32>
  return %o, %lse : tensor<2x4x4x128xf32>, tensor<2x4x4xf32>
}

// Sliding window 4, Sq = Skv, GQA 2:1.
func.func @window(%q: tensor<1x2x16x32xf32>,
    %k: tensor<1x1x16x32xf32>,
    %v: tensor<1x1x16x32xf32>)
    -> (tensor<1x2x16x32xf32>, tensor<1x2x16xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, sliding_window = 4 : i64}
      : tensor<1x2x16x32xf32>, tensor<1x1x16x32xf32>, tensor<1x1x16x32xf32>
        -> tensor<1x2x16x32xf32>, tensor<1x2x16xf32>
  return %o, %lse : tensor<1x2x16x32xf32>, tensor<1x2x16xf32>
}

// Sliding window 3, Sq = 6 < Skv = 20.
func.func @window_long_kv(%q: tensor<1x2x6x32xbf16>,
    %k: tensor<1x2x20x32xbf16>,
    %v: tensor<1x2x20x32xbf16>)
    -> (tensor<1x2x6x32xbf16>, tensor<1x2x6xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, sliding_window = 3 : i64}
      : tensor<1x2x6x32xbf16>, tensor<1x2x20x32xbf16>, tensor<1x2x20x32xbf16>
        -> tensor<1x2x6x32xbf16>, tensor<1x2x6xf32>
  return %o, %lse : tensor<1x2x6x32xbf16>, tensor<1x2x6xf32>
}
