// kgen.moe_route and kgen.moe_permute
// on the CPU reference against reference.py (float64 numpy from the
// semantics in KgenOps.td), on random inputs exact in the operand type.
// Tolerances (relative Frobenius) follow the result type: f32 1e-5, bf16
// 1e-2; ids, positions, offsets and copies are exact.
//
// RUN: rm -rf %t
// RUN: %python %S/Inputs/reference.py gen moe_route --dir %t/route_top2 --seed 204 --t 32 --e 8 --top-k 2 --renormalize --logits f32
// RUN: kgen-run %s --entry=route_top2 \
// RUN:   --input=%t/route_top2/logits.npy \
// RUN:   --compare-file=0:%t/route_top2/expected0.npy,1:%t/route_top2/expected1.npy \
// RUN:   --tolerance=1e-5 | FileCheck %s --check-prefix=RES2
// RUN: %python %S/Inputs/reference.py gen moe_route --dir %t/route_top3 --seed 205 --t 32 --e 8 --top-k 3 --logits f32
// RUN: kgen-run %s --entry=route_top3 \
// RUN:   --input=%t/route_top3/logits.npy \
// RUN:   --compare-file=0:%t/route_top3/expected0.npy,1:%t/route_top3/expected1.npy \
// RUN:   --tolerance=1e-5 | FileCheck %s --check-prefix=RES2
// RUN: %python %S/Inputs/reference.py gen moe_route --dir %t/route_bf16 --seed 206 --t 32 --e 8 --top-k 2 --renormalize --logits bf16
// RUN: kgen-run %s --entry=route_bf16 \
// RUN:   --input=%t/route_bf16/logits.npy \
// RUN:   --compare-file=0:%t/route_bf16/expected0.npy,1:%t/route_bf16/expected1.npy \
// RUN:   --tolerance=1e-5 | FileCheck %s --check-prefix=RES2
// RUN: %python %S/Inputs/reference.py gen moe_permute --dir %t/permute --seed 207 --dtype bf16 --t 16 --h 8 --top-k 2 --e 4
// RUN: kgen-run %s --entry=permute \
// RUN:   --input=%t/permute/x.npy,%t/permute/ids.npy \
// RUN:   --compare-file=0:%t/permute/expected0.npy,1:%t/permute/expected1.npy,2:%t/permute/expected2.npy \
// RUN:   --tolerance=0 | FileCheck %s --check-prefix=RES3

// RES2: compare 0:{{.*}}: OK
// RES2: compare 1:{{.*}}: OK
// RES3: compare 0:{{.*}}: OK
// RES3: compare 1:{{.*}}: OK
// RES3: compare 2:{{.*}}: OK

// kgen.moe_route. In every other token two logits tie (the 1st and 2nd,
// or the 2nd and 3rd), and the lower expert index goes first. A wrong id is
// a relative error far above the tolerance.
func.func @route_top2(%logits: tensor<32x8xf32>)
    -> (tensor<32x2xi32>, tensor<32x2xf32>) {
  %r0, %r1 = kgen.moe_route %logits {top_k = 2, renormalize}
      : tensor<32x8xf32> -> tensor<32x2xi32>, tensor<32x2xf32>
  return %r0, %r1 : tensor<32x2xi32>, tensor<32x2xf32>
}

func.func @route_top3(%logits: tensor<32x8xf32>)
    -> (tensor<32x3xi32>, tensor<32x3xf32>) {
  %r0, %r1 = kgen.moe_route %logits {top_k = 3}
      : tensor<32x8xf32> -> tensor<32x3xi32>, tensor<32x3xf32>
  return %r0, %r1 : tensor<32x3xi32>, tensor<32x3xf32>
}

// bf16 logits, computed in f32.
func.func @route_bf16(%logits: tensor<32x8xbf16>)
    -> (tensor<32x2xi32>, tensor<32x2xf32>) {
  %r0, %r1 = kgen.moe_route %logits {top_k = 2, renormalize}
      : tensor<32x8xbf16> -> tensor<32x2xi32>, tensor<32x2xf32>
  return %r0, %r1 : tensor<32x2xi32>, tensor<32x2xf32>
}

// kgen.moe_permute, exact: ids drawn from [-1, num_experts], so some are
// dropped.
func.func @permute(%x: tensor<16x8xbf16>,
    %ids: tensor<16x2xi32>)
    -> (tensor<32x8xbf16>, tensor<16x2xi32>, tensor<5xi32>) {
  %r0, %r1, %r2 = kgen.moe_permute %x, %ids {num_experts = 4}
      : tensor<16x8xbf16>, tensor<16x2xi32>
        -> tensor<32x8xbf16>, tensor<16x2xi32>, tensor<5xi32>
  return %r0, %r1, %r2 : tensor<32x8xbf16>, tensor<16x2xi32>, tensor<5xi32>
}
