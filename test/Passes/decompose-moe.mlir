// kgen.moe -> moe_route -> moe_permute -> gated grouped_gemm -> grouped_gemm
// -> moe_combine, with the intermediates in the element type of x.
// RUN: kgen-opt %s --split-input-file --kgen-decompose-moe | FileCheck %s

// CHECK-LABEL: func.func @moe_bf16(
// CHECK-SAME:    %[[X:.+]]: tensor<16x64xbf16>, %[[LOGITS:.+]]: tensor<16x8xf32>, %[[WG:.+]]: tensor<8x64x128xbf16>, %[[WU:.+]]: tensor<8x64x128xbf16>, %[[WD:.+]]: tensor<8x128x64xbf16>)
// CHECK-NOT:     kgen.moe %
// CHECK:         %[[IDS:.+]], %[[W:.+]] = kgen.moe_route %[[LOGITS]] {renormalize, top_k = 2 : i64}
// CHECK-SAME:      : tensor<16x8xf32> -> tensor<16x2xi32>, tensor<16x2xf32>
// CHECK-NEXT:    %[[XP:.+]], %[[POS:.+]], %[[OFF:.+]] = kgen.moe_permute %[[X]], %[[IDS]] {num_experts = 8 : i64}
// CHECK-SAME:      : tensor<16x64xbf16>, tensor<16x2xi32> -> tensor<32x64xbf16>, tensor<16x2xi32>, tensor<9xi32>
// CHECK-NEXT:    %[[H:.+]] = kgen.grouped_gemm %[[XP]], %[[WG]], %[[OFF]] gated(%[[WU]] : tensor<8x64x128xbf16>) {activation = #kgen.activation<silu>}
// CHECK-SAME:      : tensor<32x64xbf16>, tensor<8x64x128xbf16>, tensor<9xi32> -> tensor<32x128xbf16>
// CHECK-NEXT:    %[[YP:.+]] = kgen.grouped_gemm %[[H]], %[[WD]], %[[OFF]]
// CHECK-SAME:      : tensor<32x128xbf16>, tensor<8x128x64xbf16>, tensor<9xi32> -> tensor<32x64xbf16>
// CHECK-NEXT:    %[[Y:.+]] = kgen.moe_combine %[[YP]], %[[POS]], %[[W]]
// CHECK-SAME:      : tensor<32x64xbf16>, tensor<16x2xi32>, tensor<16x2xf32> -> tensor<16x64xbf16>
// CHECK-NEXT:    return %[[Y]]
func.func @moe_bf16(%x: tensor<16x64xbf16>, %logits: tensor<16x8xf32>, %wg: tensor<8x64x128xbf16>, %wu: tensor<8x64x128xbf16>, %wd: tensor<8x128x64xbf16>) -> tensor<16x64xbf16> {
  %y = kgen.moe %x, %logits, %wg, %wu, %wd {top_k = 2, renormalize} : tensor<16x64xbf16>, tensor<16x8xf32>, tensor<8x64x128xbf16>, tensor<8x64x128xbf16>, tensor<8x128x64xbf16> -> tensor<16x64xbf16>
  return %y : tensor<16x64xbf16>
}

// -----

// f32 layer, gelu, no renormalize, bf16 logits: the down projection has no
// activation and the router reads the logits as they are.
// CHECK-LABEL: func.func @moe_f32_gelu(
// CHECK-SAME:    %[[X:.+]]: tensor<6x32xf32>, %[[LOGITS:.+]]: tensor<6x4xbf16>, %[[WG:.+]]: tensor<4x32x48xf32>, %[[WU:.+]]: tensor<4x32x48xf32>, %[[WD:.+]]: tensor<4x48x32xf32>)
// CHECK:         %[[IDS:.+]], %[[W:.+]] = kgen.moe_route %[[LOGITS]] {top_k = 3 : i64}
// CHECK-SAME:      : tensor<6x4xbf16> -> tensor<6x3xi32>, tensor<6x3xf32>
// CHECK-NEXT:    %[[XP:.+]], %[[POS:.+]], %[[OFF:.+]] = kgen.moe_permute %[[X]], %[[IDS]] {num_experts = 4 : i64}
// CHECK-SAME:      : tensor<6x32xf32>, tensor<6x3xi32> -> tensor<18x32xf32>, tensor<6x3xi32>, tensor<5xi32>
// CHECK-NEXT:    %[[H:.+]] = kgen.grouped_gemm %[[XP]], %[[WG]], %[[OFF]] gated(%[[WU]] : tensor<4x32x48xf32>) {activation = #kgen.activation<gelu>}
// CHECK-SAME:      : tensor<18x32xf32>, tensor<4x32x48xf32>, tensor<5xi32> -> tensor<18x48xf32>
// CHECK-NEXT:    %[[YP:.+]] = kgen.grouped_gemm %[[H]], %[[WD]], %[[OFF]] : tensor<18x48xf32>, tensor<4x48x32xf32>, tensor<5xi32> -> tensor<18x32xf32>
// CHECK-NEXT:    %[[Y:.+]] = kgen.moe_combine %[[YP]], %[[POS]], %[[W]]
// CHECK-SAME:      : tensor<18x32xf32>, tensor<6x3xi32>, tensor<6x3xf32> -> tensor<6x32xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @moe_f32_gelu(%x: tensor<6x32xf32>, %logits: tensor<6x4xbf16>, %wg: tensor<4x32x48xf32>, %wu: tensor<4x32x48xf32>, %wd: tensor<4x48x32xf32>) -> tensor<6x32xf32> {
  %y = kgen.moe %x, %logits, %wg, %wu, %wd {top_k = 3, activation = #kgen.activation<gelu>} : tensor<6x32xf32>, tensor<6x4xbf16>, tensor<4x32x48xf32>, tensor<4x32x48xf32>, tensor<4x48x32xf32> -> tensor<6x32xf32>
  return %y : tensor<6x32xf32>
}

// -----

// f8 layer with a bf16 result: the intermediates stay f8 (the element type
// of x), only the combine produces the result type. relu activation.
// CHECK-LABEL: func.func @moe_f8_relu(
// CHECK-SAME:    %[[X:.+]]: tensor<4x16xf8E4M3FN>, %[[LOGITS:.+]]: tensor<4x2xf32>, %[[WG:.+]]: tensor<2x16x32xf8E4M3FN>, %[[WU:.+]]: tensor<2x16x32xf8E4M3FN>, %[[WD:.+]]: tensor<2x32x16xf8E4M3FN>)
// CHECK:         %[[IDS:.+]], %[[W:.+]] = kgen.moe_route %[[LOGITS]] {top_k = 1 : i64} : tensor<4x2xf32> -> tensor<4x1xi32>, tensor<4x1xf32>
// CHECK-NEXT:    %[[XP:.+]], %[[POS:.+]], %[[OFF:.+]] = kgen.moe_permute %[[X]], %[[IDS]] {num_experts = 2 : i64}
// CHECK-SAME:      -> tensor<4x16xf8E4M3FN>, tensor<4x1xi32>, tensor<3xi32>
// CHECK-NEXT:    %[[H:.+]] = kgen.grouped_gemm %[[XP]], %[[WG]], %[[OFF]] gated(%[[WU]] : tensor<2x16x32xf8E4M3FN>) {activation = #kgen.activation<relu>}
// CHECK-SAME:      -> tensor<4x32xf8E4M3FN>
// CHECK-NEXT:    %[[YP:.+]] = kgen.grouped_gemm %[[H]], %[[WD]], %[[OFF]] :
// CHECK-SAME:      -> tensor<4x16xf8E4M3FN>
// CHECK-NEXT:    %[[Y:.+]] = kgen.moe_combine %[[YP]], %[[POS]], %[[W]]
// CHECK-SAME:      : tensor<4x16xf8E4M3FN>, tensor<4x1xi32>, tensor<4x1xf32> -> tensor<4x16xbf16>
// CHECK-NEXT:    return %[[Y]]
func.func @moe_f8_relu(%x: tensor<4x16xf8E4M3FN>, %logits: tensor<4x2xf32>, %wg: tensor<2x16x32xf8E4M3FN>, %wu: tensor<2x16x32xf8E4M3FN>, %wd: tensor<2x32x16xf8E4M3FN>) -> tensor<4x16xbf16> {
  %y = kgen.moe %x, %logits, %wg, %wu, %wd {top_k = 1, activation = #kgen.activation<relu>} : tensor<4x16xf8E4M3FN>, tensor<4x2xf32>, tensor<2x16x32xf8E4M3FN>, tensor<2x16x32xf8E4M3FN>, tensor<2x32x16xf8E4M3FN> -> tensor<4x16xbf16>
  return %y : tensor<4x16xbf16>
}

// -----

// Two layers in a row: each is decomposed, the second reads the first's
// combine.
// CHECK-LABEL: func.func @moe_twice(
// CHECK-SAME:    %[[X:.+]]: tensor<4x32xf16>, %[[LOGITS:.+]]: tensor<4x4xf32>
// CHECK:         kgen.moe_route %[[LOGITS]]
// CHECK:         kgen.moe_permute %[[X]],
// CHECK:         %[[Y1:.+]] = kgen.moe_combine
// CHECK:         kgen.moe_route %[[LOGITS]]
// CHECK:         kgen.moe_permute %[[Y1]],
// CHECK:         %[[Y2:.+]] = kgen.moe_combine
// CHECK:         return %[[Y2]]
// CHECK-NOT:     kgen.moe %
func.func @moe_twice(%x: tensor<4x32xf16>, %logits: tensor<4x4xf32>, %wg: tensor<4x32x8xf16>, %wu: tensor<4x32x8xf16>, %wd: tensor<4x8x32xf16>) -> tensor<4x32xf16> {
  %y1 = kgen.moe %x, %logits, %wg, %wu, %wd {top_k = 2} : tensor<4x32xf16>, tensor<4x4xf32>, tensor<4x32x8xf16>, tensor<4x32x8xf16>, tensor<4x8x32xf16> -> tensor<4x32xf16>
  %y2 = kgen.moe %y1, %logits, %wg, %wu, %wd {top_k = 2} : tensor<4x32xf16>, tensor<4x4xf32>, tensor<4x32x8xf16>, tensor<4x32x8xf16>, tensor<4x8x32xf16> -> tensor<4x32xf16>
  return %y2 : tensor<4x32xf16>
}

// -----

// Everything that is not a kgen.moe is left alone, including the pieces
// a decomposition would produce.
// CHECK-LABEL: func.func @unrelated(
// CHECK-SAME:    %[[A:.+]]: tensor<16x32xf32>, %[[B:.+]]: tensor<32x8xf32>, %[[L:.+]]: tensor<16x4xf32>, %[[X:.+]]: tensor<16x32xf32>, %[[WB:.+]]: tensor<4x32x8xf32>)
// CHECK-NEXT:    %[[D:.+]] = kgen.gemm %[[A]], %[[B]] {activation = #kgen.activation<relu>} : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
// CHECK-NEXT:    %[[IDS:.+]], %[[W:.+]] = kgen.moe_route %[[L]] {top_k = 1 : i64}
// CHECK-NEXT:    %[[XP:.+]], %[[POS:.+]], %[[OFF:.+]] = kgen.moe_permute %[[X]], %[[IDS]] {num_experts = 4 : i64}
// CHECK-NEXT:    %[[G:.+]] = kgen.grouped_gemm %[[XP]], %[[WB]], %[[OFF]] :
// CHECK-NEXT:    %[[C:.+]] = kgen.moe_combine %[[G]], %[[POS]], %[[W]]
// CHECK-NEXT:    %[[S:.+]] = arith.addf %[[D]], %[[C]] : tensor<16x8xf32>
// CHECK-NEXT:    return %[[S]]
func.func @unrelated(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>, %l: tensor<16x4xf32>, %x: tensor<16x32xf32>, %wb: tensor<4x32x8xf32>) -> tensor<16x8xf32> {
  %d = kgen.gemm %a, %b {activation = #kgen.activation<relu>} : tensor<16x32xf32>, tensor<32x8xf32> -> tensor<16x8xf32>
  %ids, %w = kgen.moe_route %l {top_k = 1} : tensor<16x4xf32> -> tensor<16x1xi32>, tensor<16x1xf32>
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 4} : tensor<16x32xf32>, tensor<16x1xi32> -> tensor<16x32xf32>, tensor<16x1xi32>, tensor<5xi32>
  %g = kgen.grouped_gemm %xp, %wb, %off : tensor<16x32xf32>, tensor<4x32x8xf32>, tensor<5xi32> -> tensor<16x8xf32>
  %c = kgen.moe_combine %g, %pos, %w : tensor<16x8xf32>, tensor<16x1xi32>, tensor<16x1xf32> -> tensor<16x8xf32>
  %s = arith.addf %d, %c : tensor<16x8xf32>
  return %s : tensor<16x8xf32>
}

// -----

// A moe inside a region (an scf.for body) is decomposed too.
// CHECK-LABEL: func.func @moe_in_loop(
// CHECK:         scf.for
// CHECK:           kgen.moe_route
// CHECK:           kgen.moe_permute
// CHECK:           kgen.grouped_gemm {{.+}} gated(
// CHECK:           kgen.grouped_gemm
// CHECK:           %[[Y:.+]] = kgen.moe_combine
// CHECK:           scf.yield %[[Y]]
// CHECK-NOT:     kgen.moe %
func.func @moe_in_loop(%x: tensor<4x32xf16>, %logits: tensor<4x4xf32>, %wg: tensor<4x32x8xf16>, %wu: tensor<4x32x8xf16>, %wd: tensor<4x8x32xf16>) -> tensor<4x32xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%h = %x) -> (tensor<4x32xf16>) {
    %y = kgen.moe %h, %logits, %wg, %wu, %wd {top_k = 2} : tensor<4x32xf16>, tensor<4x4xf32>, tensor<4x32x8xf16>, tensor<4x32x8xf16>, tensor<4x8x32xf16> -> tensor<4x32xf16>
    scf.yield %y : tensor<4x32xf16>
  }
  return %r : tensor<4x32xf16>
}

// -----

// DeepSeek-V3-style: the routing attributes and the bias go to
// kgen.moe_route, the block scales to the grouped GEMMs, and the shared
// expert becomes two grouped GEMMs over all tokens as one group (its
// weights and scales expanded to one expert) whose output the combine adds.
// CHECK-LABEL: func.func @moe_deepseek(
// CHECK-SAME:    %[[X:[^:]+]]: tensor<4x256xbf16>, %[[L:[^:]+]]: tensor<4x16xf32>, %[[WG:[^:]+]]: tensor<16x256x128xf8E4M3FN>, %[[WU:[^:]+]]: tensor<16x256x128xf8E4M3FN>, %[[WD:[^:]+]]: tensor<16x128x256xf8E4M3FN>, %[[SG:[^:]+]]: tensor<16x2x1xf32>, %[[SU:[^:]+]]: tensor<16x2x1xf32>, %[[SD:[^:]+]]: tensor<16x1x2xf32>, %[[B:[^:]+]]: tensor<16xf32>, %[[WSG:[^:]+]]: tensor<256x128xf8E4M3FN>, %[[WSU:[^:]+]]: tensor<256x128xf8E4M3FN>, %[[WSD:[^:]+]]: tensor<128x256xf8E4M3FN>, %[[SSG:[^:]+]]: tensor<2x1xf32>, %[[SSU:[^:]+]]: tensor<2x1xf32>, %[[SSD:[^:]+]]: tensor<1x2xf32>)
// CHECK-DAG:     %[[ALL:.+]] = arith.constant dense<[0, 4]> : tensor<2xi32>
// CHECK:         %[[IDS:.+]], %[[W:.+]] = kgen.moe_route %[[L]] correction_bias(%[[B]] : tensor<16xf32>) {n_group = 4 : i64, renormalize, routed_scaling_factor = 2.500000e+00 : f32, scoring = #kgen.scoring<sigmoid>, top_k = 4 : i64, topk_group = 2 : i64}
// CHECK-SAME:      : tensor<4x16xf32> -> tensor<4x4xi32>, tensor<4x4xf32>
// CHECK-NEXT:    %[[XP:.+]], %[[POS:.+]], %[[OFF:.+]] = kgen.moe_permute %[[X]], %[[IDS]] {num_experts = 16 : i64}
// CHECK-NEXT:    %[[H:.+]] = kgen.grouped_gemm %[[XP]], %[[WG]], %[[OFF]] gated(%[[WU]] : tensor<16x256x128xf8E4M3FN>) scales(%[[SG]], %[[SU]] : tensor<16x2x1xf32>, tensor<16x2x1xf32>) {activation = #kgen.activation<silu>}
// CHECK-SAME:      : tensor<16x256xbf16>, tensor<16x256x128xf8E4M3FN>, tensor<17xi32> -> tensor<16x128xbf16>
// CHECK-NEXT:    %[[YP:.+]] = kgen.grouped_gemm %[[H]], %[[WD]], %[[OFF]] scales(%[[SD]] : tensor<16x1x2xf32>)
// CHECK-SAME:      : tensor<16x128xbf16>, tensor<16x128x256xf8E4M3FN>, tensor<17xi32> -> tensor<16x256xbf16>
// CHECK-NEXT:    %[[WSG1:.+]] = tensor.expand_shape %[[WSG]] {{\[\[}}0, 1], [2]] output_shape [1, 256, 128]
// CHECK-NEXT:    %[[WSU1:.+]] = tensor.expand_shape %[[WSU]]
// CHECK-NEXT:    %[[WSD1:.+]] = tensor.expand_shape %[[WSD]]
// CHECK-NEXT:    %[[SSG1:.+]] = tensor.expand_shape %[[SSG]] {{\[\[}}0, 1], [2]] output_shape [1, 2, 1]
// CHECK-NEXT:    %[[SSU1:.+]] = tensor.expand_shape %[[SSU]]
// CHECK-NEXT:    %[[SSD1:.+]] = tensor.expand_shape %[[SSD]]
// CHECK-NEXT:    %[[HS:.+]] = kgen.grouped_gemm %[[X]], %[[WSG1]], %[[ALL]] gated(%[[WSU1]] : tensor<1x256x128xf8E4M3FN>) scales(%[[SSG1]], %[[SSU1]] : tensor<1x2x1xf32>, tensor<1x2x1xf32>) {activation = #kgen.activation<silu>}
// CHECK-SAME:      : tensor<4x256xbf16>, tensor<1x256x128xf8E4M3FN>, tensor<2xi32> -> tensor<4x128xbf16>
// CHECK-NEXT:    %[[ZS:.+]] = kgen.grouped_gemm %[[HS]], %[[WSD1]], %[[ALL]] scales(%[[SSD1]] : tensor<1x1x2xf32>)
// CHECK-SAME:      : tensor<4x128xbf16>, tensor<1x128x256xf8E4M3FN>, tensor<2xi32> -> tensor<4x256xbf16>
// CHECK-NEXT:    %[[Y:.+]] = kgen.moe_combine %[[YP]], %[[POS]], %[[W]] shared(%[[ZS]] : tensor<4x256xbf16>)
// CHECK-SAME:      : tensor<16x256xbf16>, tensor<4x4xi32>, tensor<4x4xf32> -> tensor<4x256xbf16>
// CHECK-NEXT:    return %[[Y]]
func.func @moe_deepseek(%x: tensor<4x256xbf16>, %l: tensor<4x16xf32>, %wg: tensor<16x256x128xf8E4M3FN>, %wu: tensor<16x256x128xf8E4M3FN>, %wd: tensor<16x128x256xf8E4M3FN>, %sg: tensor<16x2x1xf32>, %su: tensor<16x2x1xf32>, %sd: tensor<16x1x2xf32>, %b: tensor<16xf32>, %wsg: tensor<256x128xf8E4M3FN>, %wsu: tensor<256x128xf8E4M3FN>, %wsd: tensor<128x256xf8E4M3FN>, %ssg: tensor<2x1xf32>, %ssu: tensor<2x1xf32>, %ssd: tensor<1x2xf32>) -> tensor<4x256xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<16x2x1xf32>, tensor<16x2x1xf32>, tensor<16x1x2xf32>) correction_bias(%b : tensor<16xf32>) shared(%wsg, %wsu, %wsd : tensor<256x128xf8E4M3FN>, tensor<256x128xf8E4M3FN>, tensor<128x256xf8E4M3FN>) shared_scales(%ssg, %ssu, %ssd : tensor<2x1xf32>, tensor<2x1xf32>, tensor<1x2xf32>) {top_k = 4, renormalize, scoring = #kgen.scoring<sigmoid>, n_group = 4, topk_group = 2, routed_scaling_factor = 2.5 : f32} : tensor<4x256xbf16>, tensor<4x16xf32>, tensor<16x256x128xf8E4M3FN>, tensor<16x256x128xf8E4M3FN>, tensor<16x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}
