// One line per kgen op (function, op, operand and result types, GFLOP), then
// a total; the IR is not changed.
// RUN: kgen-opt %s --split-input-file --kgen-print-op-stats -o %t.mlir | FileCheck %s
// RUN: FileCheck %s --check-prefix=IR < %t.mlir

// gemm: 2 * M * N * K = 2 * 128 * 256 * 64 = 4194304 FLOP = 0.004 GFLOP.
// attention: 4 * B * Hq * Sq * Skv * D = 4 * 2 * 8 * 128 * 256 * 64
//   = 134217728 FLOP = 0.134 GFLOP (causal masking does not change it).
// total: 138412032 FLOP = 0.138 GFLOP.
// CHECK:      layer  kgen.gemm  tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xbf16>  0.004 GFLOP
// CHECK-NEXT: layer  kgen.attention  tensor<2x8x128x64xf16>, tensor<2x2x256x64xf16>, tensor<2x2x256x64xf16> -> tensor<2x8x128x64xf16>  0.134 GFLOP
// CHECK-NEXT: total: 2 kgen ops, 0.138 GFLOP
// IR-LABEL:   func.func @layer(
// IR:           kgen.gemm
// IR:           kgen.attention
func.func @layer(%a: tensor<128x64xbf16>, %b: tensor<64x256xbf16>, %q: tensor<2x8x128x64xf16>, %k: tensor<2x2x256x64xf16>, %v: tensor<2x2x256x64xf16>) -> (tensor<128x256xbf16>, tensor<2x8x128x64xf16>) {
  %d = kgen.gemm %a, %b : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xbf16>
  %o = kgen.attention %q, %k, %v {causal} : tensor<2x8x128x64xf16>, tensor<2x2x256x64xf16>, tensor<2x2x256x64xf16> -> tensor<2x8x128x64xf16>
  return %d, %o : tensor<128x256xbf16>, tensor<2x8x128x64xf16>
}

// -----

// Batched gemm with a broadcast, transposed b:
//   2 * batch * M * N * K = 2 * 4 * 512 * 2048 * 1024 = 8589934592 = 8.590 GFLOP.
// moe: 6 * T * top_k * H * I = 6 * 16 * 2 * 4096 * 14336 = 11274289152
//   = 11.274 GFLOP.
// Its decomposed pieces: route, permute and combine have no FLOP count;
// gated grouped_gemm 4 * R * K * N = 4 * 32 * 4096 * 14336 = 7516192768
//   = 7.516 GFLOP; down projection 2 * 32 * 14336 * 4096 = 3758096384
//   = 3.758 GFLOP.
// total: 31138512896 FLOP = 31.139 GFLOP over 7 ops.
// CHECK:      batched  kgen.gemm  tensor<4x512x1024xbf16>, tensor<2048x1024xbf16> -> tensor<4x512x2048xbf16>  8.590 GFLOP
// CHECK-NEXT: moe  kgen.moe  tensor<16x4096xbf16>, tensor<16x8xf32>, tensor<8x4096x14336xbf16>, tensor<8x4096x14336xbf16>, tensor<8x14336x4096xbf16> -> tensor<16x4096xbf16>  11.274 GFLOP
// CHECK-NEXT: moe  kgen.moe_route  tensor<16x8xf32> -> tensor<16x2xi32>, tensor<16x2xf32>{{$}}
// CHECK-NEXT: moe  kgen.moe_permute  tensor<16x4096xbf16>, tensor<16x2xi32> -> tensor<32x4096xbf16>, tensor<16x2xi32>, tensor<9xi32>{{$}}
// CHECK-NEXT: moe  kgen.grouped_gemm  tensor<32x4096xbf16>, tensor<8x4096x14336xbf16>, tensor<9xi32>, tensor<8x4096x14336xbf16> -> tensor<32x14336xbf16>  7.516 GFLOP
// CHECK-NEXT: moe  kgen.grouped_gemm  tensor<32x14336xbf16>, tensor<8x14336x4096xbf16>, tensor<9xi32> -> tensor<32x4096xbf16>  3.758 GFLOP
// CHECK-NEXT: moe  kgen.moe_combine  tensor<32x4096xbf16>, tensor<16x2xi32>, tensor<16x2xf32> -> tensor<16x4096xbf16>{{$}}
// CHECK-NEXT: total: 7 kgen ops, 31.139 GFLOP
// IR-LABEL:   func.func @batched(
// IR-LABEL:   func.func @moe(
// IR:           kgen.moe %
// IR:           kgen.moe_route
// IR:           kgen.moe_combine
func.func @batched(%a: tensor<4x512x1024xbf16>, %b: tensor<2048x1024xbf16>) -> tensor<4x512x2048xbf16> {
  %d = kgen.gemm %a, %b {transpose_b} : tensor<4x512x1024xbf16>, tensor<2048x1024xbf16> -> tensor<4x512x2048xbf16>
  return %d : tensor<4x512x2048xbf16>
}
func.func @moe(%x: tensor<16x4096xbf16>, %logits: tensor<16x8xf32>, %wg: tensor<8x4096x14336xbf16>, %wu: tensor<8x4096x14336xbf16>, %wd: tensor<8x14336x4096xbf16>) -> (tensor<16x4096xbf16>, tensor<16x4096xbf16>) {
  %y = kgen.moe %x, %logits, %wg, %wu, %wd {top_k = 2, renormalize} : tensor<16x4096xbf16>, tensor<16x8xf32>, tensor<8x4096x14336xbf16>, tensor<8x4096x14336xbf16>, tensor<8x14336x4096xbf16> -> tensor<16x4096xbf16>
  %ids, %w = kgen.moe_route %logits {top_k = 2, renormalize} : tensor<16x8xf32> -> tensor<16x2xi32>, tensor<16x2xf32>
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 8} : tensor<16x4096xbf16>, tensor<16x2xi32> -> tensor<32x4096xbf16>, tensor<16x2xi32>, tensor<9xi32>
  %h = kgen.grouped_gemm %xp, %wg, %off gated(%wu : tensor<8x4096x14336xbf16>) {activation = #kgen.activation<silu>} : tensor<32x4096xbf16>, tensor<8x4096x14336xbf16>, tensor<9xi32> -> tensor<32x14336xbf16>
  %yp = kgen.grouped_gemm %h, %wd, %off : tensor<32x14336xbf16>, tensor<8x14336x4096xbf16>, tensor<9xi32> -> tensor<32x4096xbf16>
  %y2 = kgen.moe_combine %yp, %pos, %w : tensor<32x4096xbf16>, tensor<16x2xi32>, tensor<16x2xf32> -> tensor<16x4096xbf16>
  return %y, %y2 : tensor<16x4096xbf16>, tensor<16x4096xbf16>
}

// -----

// GQA decode step: 4 * 8 * 32 * 1 * 4096 * 128 = 536870912 FLOP = 0.537 GFLOP
// (the FLOPs count query heads, not key/value heads).
// CHECK:      decode  kgen.attention  tensor<8x32x1x128xbf16>, tensor<8x8x4096x128xbf16>, tensor<8x8x4096x128xbf16>, tensor<8xi32> -> tensor<8x32x1x128xbf16>, tensor<8x32x1xf32>  0.537 GFLOP
// CHECK-NEXT: total: 1 kgen ops, 0.537 GFLOP
func.func @decode(%q: tensor<8x32x1x128xbf16>, %k: tensor<8x8x4096x128xbf16>, %v: tensor<8x8x4096x128xbf16>, %lens: tensor<8xi32>) -> (tensor<8x32x1x128xbf16>, tensor<8x32x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<8xi32>) : tensor<8x32x1x128xbf16>, tensor<8x8x4096x128xbf16>, tensor<8x8x4096x128xbf16> -> tensor<8x32x1x128xbf16>, tensor<8x32x1xf32>
  return %o, %lse : tensor<8x32x1x128xbf16>, tensor<8x32x1xf32>
}

// -----

// No kgen op: only the total.
// CHECK-NOT:  plain
// CHECK:      total: 0 kgen ops, 0.000 GFLOP
// IR-LABEL:   func.func @plain(
// IR:           arith.addf
func.func @plain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.addf %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A kgen op outside any function is listed under <module>:
// 2 * 1024^3 = 2147483648 FLOP = 2.147 GFLOP.
// CHECK:      <module>  kgen.gemm  tensor<1024x1024xf32>, tensor<1024x1024xf32> -> tensor<1024x1024xf32>  2.147 GFLOP
// CHECK-NEXT: total: 1 kgen ops, 2.147 GFLOP
%c = arith.constant dense<1.0> : tensor<1024x1024xf32>
%d = kgen.gemm %c, %c : tensor<1024x1024xf32>, tensor<1024x1024xf32> -> tensor<1024x1024xf32>
