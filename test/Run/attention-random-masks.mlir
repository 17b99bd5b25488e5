// kgen.attention on the CPU reference against reference.py (float64 numpy
// from the semantics in KgenOps.td) on random inputs exact in the operand
// type: softcap, kv_lens.
// Tolerances (relative Frobenius) follow the result type: f32 1e-5 (also for
// the f32 log-sum-exp), f16 and bf16 1e-2.
//
// RUN: rm -rf %t
// RUN: %python %S/Inputs/reference.py gen attention --dir %t/softcap --seed 110 --dtype f32 --b 1 --hq 2 --hkv 2 --sq 8 --skv 8 --d 32 --scale 0.5 --softcap 2.0 --amp 2.0
// RUN: kgen-run %s --entry=softcap --input=%t/softcap/q.npy,%t/softcap/k.npy,%t/softcap/v.npy \
// RUN:   --compare-file=0:%t/softcap/expected0.npy,1:%t/softcap/expected1.npy \
// RUN:   --tolerance=1e-5 | FileCheck %s --check-prefix=LSE
// RUN: %python %S/Inputs/reference.py gen attention --dir %t/kv_lens --seed 111 --dtype bf16 --b 3 --hq 2 --hkv 2 --sq 4 --skv 24 --d 32 --kv-lens 0,5,100
// RUN: kgen-run %s --entry=kv_lens --input=%t/kv_lens/q.npy,%t/kv_lens/k.npy,%t/kv_lens/v.npy,%t/kv_lens/kv_lens.npy \
// RUN:   --compare-file=0:%t/kv_lens/expected0.npy \
// RUN:   --tolerance=1e-2 | FileCheck %s
// RUN: %python %S/Inputs/reference.py gen attention --dir %t/kv_lens_causal --seed 112 --dtype f32 --b 2 --hq 2 --hkv 1 --sq 4 --skv 16 --d 32 --causal --kv-lens 7,16
// RUN: kgen-run %s --entry=kv_lens_causal --input=%t/kv_lens_causal/q.npy,%t/kv_lens_causal/k.npy,%t/kv_lens_causal/v.npy,%t/kv_lens_causal/kv_lens.npy \
// RUN:   --compare-file=0:%t/kv_lens_causal/expected0.npy,1:%t/kv_lens_causal/expected1.npy \
// RUN:   --tolerance=1e-5 | FileCheck %s --check-prefix=LSE
// RUN: %python %S/Inputs/reference.py gen attention --dir %t/local --seed 113 --dtype f32 --b 2 --hq 2 --hkv 1 --sq 9 --skv 20 --d 32 --window-left 5 --window-right 3 --kv-lens 20,11
// RUN: kgen-run %s --entry=local --input=%t/local/q.npy,%t/local/k.npy,%t/local/v.npy,%t/local/kv_lens.npy \
// RUN:   --compare-file=0:%t/local/expected0.npy,1:%t/local/expected1.npy \
// RUN:   --tolerance=1e-5 | FileCheck %s --check-prefix=LSE
// RUN: %python %S/Inputs/reference.py gen attention --dir %t/alibi --seed 114 --dtype f32 --b 1 --hq 4 --hkv 2 --sq 6 --skv 15 --d 32 --causal --alibi
// RUN: kgen-run %s --entry=alibi --input=%t/alibi/q.npy,%t/alibi/k.npy,%t/alibi/v.npy,%t/alibi/alibi.npy \
// RUN:   --compare-file=0:%t/alibi/expected0.npy,1:%t/alibi/expected1.npy \
// RUN:   --tolerance=1e-5 | FileCheck %s --check-prefix=LSE

// CHECK: compare 0:{{.*}}: OK
// LSE: compare 0:{{.*}}: OK
// LSE: compare 1:{{.*}}: OK

// scale 0.5 and softcap 2; q and k in [-2, 2), so most logits are bent.
func.func @softcap(%q: tensor<1x2x8x32xf32>,
    %k: tensor<1x2x8x32xf32>,
    %v: tensor<1x2x8x32xf32>)
    -> (tensor<1x2x8x32xf32>, tensor<1x2x8xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {scale = 0.5 : f32, softcap = 2.0 : f32}
      : tensor<1x2x8x32xf32>, tensor<1x2x8x32xf32>, tensor<1x2x8x32xf32>
        -> tensor<1x2x8x32xf32>, tensor<1x2x8xf32>
  return %o, %lse : tensor<1x2x8x32xf32>, tensor<1x2x8xf32>
}

// kv_lens [0, 5, 100]: batch 0 sees no key (zeros; lse -inf not
// compared), batch 2 clamps to Skv = 24.
func.func @kv_lens(%q: tensor<3x2x4x32xbf16>,
    %k: tensor<3x2x24x32xbf16>,
    %v: tensor<3x2x24x32xbf16>,
    %lens: tensor<3xi32>)
    -> (tensor<3x2x4x32xbf16>, tensor<3x2x4xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<3xi32>)
      : tensor<3x2x4x32xbf16>, tensor<3x2x24x32xbf16>, tensor<3x2x24x32xbf16>
        -> tensor<3x2x4x32xbf16>, tensor<3x2x4xf32>
  return %o, %lse : tensor<3x2x4x32xbf16>, tensor<3x2x4xf32>
}

// kv_lens [7, 16] with causal (p = i + L - 4) and GQA 2:1.
func.func @kv_lens_causal(%q: tensor<2x2x4x32xf32>,
    %k: tensor<2x1x16x32xf32>,
    %v: tensor<2x1x16x32xf32>,
    %lens: tensor<2xi32>)
    -> (tensor<2x2x4x32xf32>, tensor<2x2x4xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) {causal}
      : tensor<2x2x4x32xf32>, tensor<2x1x16x32xf32>, tensor<2x1x16x32xf32>
        -> tensor<2x2x4x32xf32>, tensor<2x2x4xf32>
  return %o, %lse : tensor<2x2x4x32xf32>, tensor<2x2x4xf32>
}

// A local window of 5 keys before and 3 after each query's position, not
// causal, kv_lens 20 and 11 (bottom-right positions move with the length).
func.func @local(%q: tensor<2x2x9x32xf32>, %k: tensor<2x1x20x32xf32>,
    %v: tensor<2x1x20x32xf32>, %lens: tensor<2xi32>)
    -> (tensor<2x2x9x32xf32>, tensor<2x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) {window_left = 5, window_right = 3}
      : tensor<2x2x9x32xf32>, tensor<2x1x20x32xf32>, tensor<2x1x20x32xf32>
        -> tensor<2x2x9x32xf32>, tensor<2x2x9xf32>
  return %o, %lse : tensor<2x2x9x32xf32>, tensor<2x2x9xf32>
}

// ALiBi slopes per query head (random, of both signs), causal, GQA.
func.func @alibi(%q: tensor<1x4x6x32xf32>, %k: tensor<1x2x15x32xf32>,
    %v: tensor<1x2x15x32xf32>, %slopes: tensor<4xf32>)
    -> (tensor<1x4x6x32xf32>, tensor<1x4x6xf32>) {
  %o, %lse = kgen.attention %q, %k, %v alibi(%slopes : tensor<4xf32>) {causal}
      : tensor<1x4x6x32xf32>, tensor<1x2x15x32xf32>, tensor<1x2x15x32xf32>
        -> tensor<1x4x6x32xf32>, tensor<1x4x6xf32>
  return %o, %lse : tensor<1x4x6x32xf32>, tensor<1x4x6xf32>
}
