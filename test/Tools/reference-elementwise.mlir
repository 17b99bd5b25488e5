// Elementwise tensor ops on the CPU reference: kgen-lower-to-loops lowers
// those outside loops itself (fused in one loop nest, in place where an
// operand dies; see reference-compile-time.test for why), and
// convert-elementwise-to-linalg those inside loops. Both must give the same
// bits: each function below computes the same values twice, directly and
// inside a one-trip scf.for, and returns both; the two results are compared
// byte for byte (.npy files, bf16 written as exact f32) and with --compare
// at tolerance 0.
//
// RUN: rm -rf %t && mkdir %t
// RUN: kgen-run %s --entry=floats --seed=3 --output-dir=%t/floats --compare=0:1,2:3 | FileCheck %s --check-prefix=SAME2
// RUN: cmp %t/floats/result0.npy %t/floats/result1.npy
// RUN: cmp %t/floats/result2.npy %t/floats/result3.npy
// RUN: kgen-run %s --entry=narrow --seed=4 --output-dir=%t/narrow --compare=0:1,2:3 | FileCheck %s --check-prefix=SAME2
// RUN: cmp %t/narrow/result0.npy %t/narrow/result1.npy
// RUN: cmp %t/narrow/result2.npy %t/narrow/result3.npy
// RUN: kgen-run %s --entry=ints --int-range=-1000:1000 --output-dir=%t/ints --compare=0:1,2:3 | FileCheck %s --check-prefix=SAME2
// RUN: cmp %t/ints/result0.npy %t/ints/result1.npy
// RUN: cmp %t/ints/result2.npy %t/ints/result3.npy
// RUN: kgen-run %s --entry=ranks --seed=5 --output-dir=%t/ranks --compare=0:1,2:3 | FileCheck %s --check-prefix=SAME2
// RUN: cmp %t/ranks/result0.npy %t/ranks/result1.npy
// RUN: cmp %t/ranks/result2.npy %t/ranks/result3.npy
// RUN: kgen-run %s --entry=around_gemm --seed=6 --output-dir=%t/gemm --compare=0:1 | FileCheck %s --check-prefix=SAME1
// RUN: cmp %t/gemm/result0.npy %t/gemm/result1.npy
// RUN: kgen-run %s --entry=branches --seed=7 --output-dir=%t/branches --compare=0:1 | FileCheck %s --check-prefix=SAME1
// RUN: cmp %t/branches/result0.npy %t/branches/result1.npy
// SAME2: compare 0:1: OK rel_frob=0.000e+00 max_abs=0.000e+00 nonfinite_mismatches=0
// SAME2: compare 2:3: OK rel_frob=0.000e+00 max_abs=0.000e+00 nonfinite_mismatches=0
// SAME1: compare 0:1: OK rel_frob=0.000e+00 max_abs=0.000e+00 nonfinite_mismatches=0
//
// The direct halves take the new path: no linalg op is left after
// kgen-lower-to-loops and convert-elementwise-to-linalg, except in loops
// (where linalg.copy writes the results into the loop's own tensors, as
// one-shot bufferization wants).
// RUN: kgen-opt %s --kgen-lower-to-loops --convert-elementwise-to-linalg | FileCheck %s --check-prefix=PATHS
// PATHS-LABEL: func.func @floats(
// PATHS-NOT:   linalg.generic
// PATHS:       scf.for {{.*}} iter_args
// PATHS:       linalg.generic
// PATHS-LABEL: func.func @narrow(

// f32 arithmetic and math, with values used several times (no reuse of
// their buffer) and a constant between the ops (moved before the nest).
func.func @floats(%a: tensor<3x5xf32>, %b: tensor<3x5xf32>)
    -> (tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>) {
  %s = arith.addf %a, %b : tensor<3x5xf32>
  %d = arith.subf %a, %b : tensor<3x5xf32>
  %p = arith.mulf %s, %d : tensor<3x5xf32>
  %three = arith.constant dense<3.0> : tensor<3x5xf32>
  %q = arith.divf %p, %three : tensor<3x5xf32>
  %m = arith.maximumf %q, %s : tensor<3x5xf32>
  %n = arith.minimumf %m, %d : tensor<3x5xf32>
  %e = math.exp %n : tensor<3x5xf32>
  %t = math.tanh %e : tensor<3x5xf32>
  %abs = math.absf %p : tensor<3x5xf32>
  %r = math.sqrt %abs : tensor<3x5xf32>
  %neg = arith.negf %r : tensor<3x5xf32>
  %f = arith.addf %t, %neg fastmath<contract> : tensor<3x5xf32>
  %g = arith.mulf %f, %s : tensor<3x5xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %lf, %lg = scf.for %i = %c0 to %c1 step %c1 iter_args(%x = %a, %y = %b)
      -> (tensor<3x5xf32>, tensor<3x5xf32>) {
    %s2 = arith.addf %a, %b : tensor<3x5xf32>
    %d2 = arith.subf %a, %b : tensor<3x5xf32>
    %p2 = arith.mulf %s2, %d2 : tensor<3x5xf32>
    %q2 = arith.divf %p2, %three : tensor<3x5xf32>
    %m2 = arith.maximumf %q2, %s2 : tensor<3x5xf32>
    %n2 = arith.minimumf %m2, %d2 : tensor<3x5xf32>
    %e2 = math.exp %n2 : tensor<3x5xf32>
    %t2 = math.tanh %e2 : tensor<3x5xf32>
    %abs2 = math.absf %p2 : tensor<3x5xf32>
    %r2 = math.sqrt %abs2 : tensor<3x5xf32>
    %neg2 = arith.negf %r2 : tensor<3x5xf32>
    %f2 = arith.addf %t2, %neg2 fastmath<contract> : tensor<3x5xf32>
    %g2 = arith.mulf %f2, %s2 : tensor<3x5xf32>
    %of = linalg.copy ins(%f2 : tensor<3x5xf32>) outs(%x : tensor<3x5xf32>) -> tensor<3x5xf32>
    %og = linalg.copy ins(%g2 : tensor<3x5xf32>) outs(%y : tensor<3x5xf32>) -> tensor<3x5xf32>
    scf.yield %of, %og : tensor<3x5xf32>, tensor<3x5xf32>
  }
  return %f, %lf, %g, %lg
      : tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5xf32>
}

// Narrow floats: bf16 and f16 arithmetic (emulated in f32 and rounded),
// conversions through f8E4M3FN, a bitcast. (Not extf to f32 then straight
// truncf to f8: convert-elementwise-to-linalg folds the pair into a bf16 ->
// f8 truncf, which kgen-expand-float-conversions does not expand, so the
// loop half would not compile.)
func.func @narrow(%a: tensor<4x8xbf16>, %b: tensor<4x8xbf16>, %h: tensor<4x8xf16>)
    -> (tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xi16>, tensor<4x8xi16>) {
  %s = arith.addf %a, %b : tensor<4x8xbf16>
  %p = arith.mulf %s, %a : tensor<4x8xbf16>
  %w = arith.extf %p : tensor<4x8xbf16> to tensor<4x8xf32>
  %ww = arith.mulf %w, %w : tensor<4x8xf32>
  %f8 = arith.truncf %ww : tensor<4x8xf32> to tensor<4x8xf8E4M3FN>
  %back = arith.extf %f8 : tensor<4x8xf8E4M3FN> to tensor<4x8xf32>
  %n = arith.truncf %back : tensor<4x8xf32> to tensor<4x8xbf16>
  %hh = arith.mulf %h, %h : tensor<4x8xf16>
  %bits = arith.bitcast %hh : tensor<4x8xf16> to tensor<4x8xi16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ln, %lbits = scf.for %i = %c0 to %c1 step %c1 iter_args(%x = %a, %y = %bits)
      -> (tensor<4x8xbf16>, tensor<4x8xi16>) {
    %s2 = arith.addf %a, %b : tensor<4x8xbf16>
    %p2 = arith.mulf %s2, %a : tensor<4x8xbf16>
    %w2 = arith.extf %p2 : tensor<4x8xbf16> to tensor<4x8xf32>
    %ww2 = arith.mulf %w2, %w2 : tensor<4x8xf32>
    %f82 = arith.truncf %ww2 : tensor<4x8xf32> to tensor<4x8xf8E4M3FN>
    %back2 = arith.extf %f82 : tensor<4x8xf8E4M3FN> to tensor<4x8xf32>
    %n2 = arith.truncf %back2 : tensor<4x8xf32> to tensor<4x8xbf16>
    %hh2 = arith.mulf %h, %h : tensor<4x8xf16>
    %bits2 = arith.bitcast %hh2 : tensor<4x8xf16> to tensor<4x8xi16>
    %on = linalg.copy ins(%n2 : tensor<4x8xbf16>) outs(%x : tensor<4x8xbf16>) -> tensor<4x8xbf16>
    %ob = linalg.copy ins(%bits2 : tensor<4x8xi16>) outs(%y : tensor<4x8xi16>) -> tensor<4x8xi16>
    scf.yield %on, %ob : tensor<4x8xbf16>, tensor<4x8xi16>
  }
  return %n, %ln, %bits, %lbits
      : tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<4x8xi16>, tensor<4x8xi16>
}

// Integers, comparisons and selects (i1 tensors), and an op with two
// results.
func.func @ints(%a: tensor<6xi32>, %b: tensor<6xi32>)
    -> (tensor<6xi32>, tensor<6xi32>, tensor<6xi1>, tensor<6xi1>) {
  %m = arith.muli %a, %b : tensor<6xi32>
  %k = arith.constant dense<3> : tensor<6xi32>
  %sh = arith.shrsi %m, %k : tensor<6xi32>
  %lt = arith.cmpi slt, %sh, %b : tensor<6xi32>
  %sel = arith.select %lt, %sh, %a : tensor<6xi1>, tensor<6xi32>
  %sum, %over = arith.addui_extended %sel, %m : tensor<6xi32>, tensor<6xi1>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %lsum, %lover = scf.for %i = %c0 to %c1 step %c1 iter_args(%x = %a, %y = %over)
      -> (tensor<6xi32>, tensor<6xi1>) {
    %m2 = arith.muli %a, %b : tensor<6xi32>
    %sh2 = arith.shrsi %m2, %k : tensor<6xi32>
    %lt2 = arith.cmpi slt, %sh2, %b : tensor<6xi32>
    %sel2 = arith.select %lt2, %sh2, %a : tensor<6xi1>, tensor<6xi32>
    %sum2, %over2 = arith.addui_extended %sel2, %m2 : tensor<6xi32>, tensor<6xi1>
    %os = linalg.copy ins(%sum2 : tensor<6xi32>) outs(%x : tensor<6xi32>) -> tensor<6xi32>
    %oo = linalg.copy ins(%over2 : tensor<6xi1>) outs(%y : tensor<6xi1>) -> tensor<6xi1>
    scf.yield %os, %oo : tensor<6xi32>, tensor<6xi1>
  }
  return %sum, %lsum, %over, %lover
      : tensor<6xi32>, tensor<6xi32>, tensor<6xi1>, tensor<6xi1>
}

// Rank 0 (no loop) and rank 3, and a change of shape between two chains
// (two nests).
func.func @ranks(%a: tensor<f32>, %b: tensor<2x3x4xf32>)
    -> (tensor<f32>, tensor<f32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %s = arith.mulf %a, %a : tensor<f32>
  %t = arith.addf %s, %a : tensor<f32>
  %u = arith.mulf %b, %b : tensor<2x3x4xf32>
  %v = arith.subf %u, %b : tensor<2x3x4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %lt, %lv = scf.for %i = %c0 to %c1 step %c1 iter_args(%x = %a, %y = %b)
      -> (tensor<f32>, tensor<2x3x4xf32>) {
    %s2 = arith.mulf %a, %a : tensor<f32>
    %t2 = arith.addf %s2, %a : tensor<f32>
    %u2 = arith.mulf %b, %b : tensor<2x3x4xf32>
    %v2 = arith.subf %u2, %b : tensor<2x3x4xf32>
    %ot = linalg.copy ins(%t2 : tensor<f32>) outs(%x : tensor<f32>) -> tensor<f32>
    %ov = linalg.copy ins(%v2 : tensor<2x3x4xf32>) outs(%y : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    scf.yield %ot, %ov : tensor<f32>, tensor<2x3x4xf32>
  }
  return %t, %lt, %v, %lv
      : tensor<f32>, tensor<f32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// Around a kgen op: the bias is added into the gemm's own buffer (its only
// use), then rounded to bf16.
func.func @around_gemm(%a: tensor<8x16xbf16>, %b: tensor<16x8xbf16>, %bias: tensor<8x8xf32>)
    -> (tensor<8x8xbf16>, tensor<8x8xbf16>) {
  %d = kgen.gemm %a, %b : tensor<8x16xbf16>, tensor<16x8xbf16> -> tensor<8x8xf32>
  %e = arith.addf %d, %bias : tensor<8x8xf32>
  %r = arith.truncf %e : tensor<8x8xf32> to tensor<8x8xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %lr = scf.for %i = %c0 to %c1 step %c1 iter_args(%x = %r) -> tensor<8x8xbf16> {
    %d2 = kgen.gemm %a, %b : tensor<8x16xbf16>, tensor<16x8xbf16> -> tensor<8x8xf32>
    %e2 = arith.addf %d2, %bias : tensor<8x8xf32>
    %r2 = arith.truncf %e2 : tensor<8x8xf32> to tensor<8x8xbf16>
    %or = linalg.copy ins(%r2 : tensor<8x8xbf16>) outs(%x : tensor<8x8xbf16>) -> tensor<8x8xbf16>
    scf.yield %or : tensor<8x8xbf16>
  }
  return %r, %lr : tensor<8x8xbf16>, tensor<8x8xbf16>
}

// Inside scf.if (run at most once: lowered by kgen-lower-to-loops), a value
// of the enclosing block read in both branches.
func.func @branches(%a: tensor<5x5xf32>, %b: tensor<5x5xf32>)
    -> (tensor<5x5xf32>, tensor<5x5xf32>) {
  %s = arith.addf %a, %b : tensor<5x5xf32>
  %true = arith.constant true
  %r = scf.if %true -> tensor<5x5xf32> {
    %m = arith.mulf %s, %a : tensor<5x5xf32>
    %n = arith.subf %m, %s : tensor<5x5xf32>
    scf.yield %n : tensor<5x5xf32>
  } else {
    scf.yield %s : tensor<5x5xf32>
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %lr = scf.for %i = %c0 to %c1 step %c1 iter_args(%x = %a) -> tensor<5x5xf32> {
    %s2 = arith.addf %a, %b : tensor<5x5xf32>
    %m2 = arith.mulf %s2, %a : tensor<5x5xf32>
    %n2 = arith.subf %m2, %s2 : tensor<5x5xf32>
    %on = linalg.copy ins(%n2 : tensor<5x5xf32>) outs(%x : tensor<5x5xf32>) -> tensor<5x5xf32>
    scf.yield %on : tensor<5x5xf32>
  }
  return %r, %lr : tensor<5x5xf32>, tensor<5x5xf32>
}
