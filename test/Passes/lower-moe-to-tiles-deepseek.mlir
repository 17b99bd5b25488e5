// kgen-lower-moe-to-tiles on a DeepSeek-style layer: the routing kernel
// takes the correction bias as a second input and the routing attributes,
// and with a shared expert also writes its offsets [0, T]; the shared
// expert's weights, seen as one expert, go through two more grouped GEMMs
// over every token (on the layer's configs), and the combine adds their
// output after the routed slots. Eight kernels, one package.
// RUN: kgen-opt %s --kgen-lower-moe-to-tiles | FileCheck %s

// CHECK-LABEL: kgen.kernel @kgen_moe_bf16_t6_e16_k4_h32_i48_s64 grid [2, 1, 1] threads 128 smem 0
// CHECK-SAME:    num_outputs = 3 : i64, param_names = ["router_logits", "correction_bias", "expert_ids", "weights", "shared_offsets"]
// CHECK-SAME:    signature = {activation = "silu", correction_bias = true, {{.+}}, n_group = 4 : i64, renormalize = true, routed_scaling_factor = 2.500000e+00 : f32, scoring = "sigmoid", shared_inter = 64 : i64, tokens = 6 : i64, top_k = 4 : i64, topk_group = 2 : i64}
// CHECK:         kgen.tile.moe_route %arg3 bias(%arg4 : memref<16xf32>) rows(%{{.+}}) into %arg5, %arg6 {n_group = 4 : i64, renormalize, routed_scaling_factor = 2.500000e+00 : f32, rows = 4 : i64, scoring = #kgen.scoring<sigmoid>, topk_group = 2 : i64}
// CHECK:         kgen.tile.moe_single_group into %arg7 {rows = 6 : i64} : memref<2xi32>
// CHECK-LABEL: kgen.kernel @kgen_moe_bf16_t6_e16_k4_h32_i48_s64_rank
// CHECK-LABEL: kgen.kernel @kgen_moe_bf16_t6_e16_k4_h32_i48_s64_gather
// CHECK-LABEL: kgen.kernel @kgen_moe_bf16_t6_e16_k4_h32_i48_s64_gate_up
// CHECK-LABEL: kgen.kernel @kgen_moe_bf16_t6_e16_k4_h32_i48_s64_down
// Shared gate/up: 6 rows, min(1 + 2, 6) = 3 groups, floor((6 + 3 * 15) / 16)
// = 3 m tiles (the head and tail are empty), times 2 n tiles.
// CHECK-LABEL: kgen.kernel @kgen_moe_bf16_t6_e16_k4_h32_i48_s64_shared_gate_up grid [6, 1, 1] threads 64 smem 10240
// CHECK-SAME:    param_names = ["x", "shared_gate", "shared_up", "shared_offsets", "shared_h"]
// CHECK:         kgen.tile.group_tile %arg6 tile(%{{.+}}) rows(%c6) {block_m = 16 : i64} : memref<2xi32>
// CHECK:         kgen.tile.gated_epilogue {{.+}} bounds(%{{.+}}, %c64) {activation = #kgen.activation<silu>}
// CHECK-LABEL: kgen.kernel @kgen_moe_bf16_t6_e16_k4_h32_i48_s64_shared_down grid [3, 1, 1] threads 128 smem 18432
// CHECK-SAME:    param_names = ["shared_h", "shared_down", "shared_offsets", "shared_out"]
// CHECK:         kgen.tile.group_tile %arg5 tile(%{{.+}}) rows(%c6) {block_m = 32 : i64} : memref<2xi32>
// CHECK-LABEL: kgen.kernel @kgen_moe_bf16_t6_e16_k4_h32_i48_s64_combine
// CHECK-SAME:    param_names = ["expert_out", "positions", "weights", "shared_out", "y"]
// CHECK:         kgen.tile.moe_combine %arg3, %arg4, %arg5 shared(%arg6 : memref<6x32xbf16>) tokens(%{{.+}}) into %arg7 {tokens = 4 : i64}
// CHECK-LABEL: func.func @deepseek(
// CHECK:         %[[R:.+]]:3 = kgen.launch @kgen_moe_bf16_t6_e16_k4_h32_i48_s64(%arg1, %arg5)
// CHECK:         %[[K:.+]]:2 = kgen.launch @kgen_moe_bf16_t6_e16_k4_h32_i48_s64_rank(%[[R]]#0)
// CHECK:         %[[D:.+]] = kgen.launch @kgen_moe_bf16_t6_e16_k4_h32_i48_s64_down(
// CHECK-DAG:     %[[SG:.+]] = tensor.expand_shape %arg6 {{\[\[}}0, 1], [2]] output_shape [1, 32, 64]
// CHECK-DAG:     %[[SU:.+]] = tensor.expand_shape %arg7 {{\[\[}}0, 1], [2]] output_shape [1, 32, 64]
// CHECK:         %[[SH:.+]] = kgen.launch @kgen_moe_bf16_t6_e16_k4_h32_i48_s64_shared_gate_up(%arg0, %[[SG]], %[[SU]], %[[R]]#2)
// CHECK:         %[[SD:.+]] = tensor.expand_shape %arg8 {{\[\[}}0, 1], [2]] output_shape [1, 64, 32]
// CHECK:         %[[Z:.+]] = kgen.launch @kgen_moe_bf16_t6_e16_k4_h32_i48_s64_shared_down(%[[SH]], %[[SD]], %[[R]]#2)
// CHECK:         %[[Y:.+]] = kgen.launch @kgen_moe_bf16_t6_e16_k4_h32_i48_s64_combine(%[[D]], %[[K]]#0, %[[R]]#1, %[[Z]])
// CHECK:         return %[[Y]]
func.func @deepseek(%x: tensor<6x32xbf16>, %l: tensor<6x16xf32>, %wg: tensor<16x32x48xbf16>, %wu: tensor<16x32x48xbf16>, %wd: tensor<16x48x32xbf16>, %b: tensor<16xf32>, %sg: tensor<32x64xbf16>, %su: tensor<32x64xbf16>, %sd: tensor<64x32xbf16>) -> tensor<6x32xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd correction_bias(%b : tensor<16xf32>) shared(%sg, %su, %sd : tensor<32x64xbf16>, tensor<32x64xbf16>, tensor<64x32xbf16>) {top_k = 4, renormalize, scoring = #kgen.scoring<sigmoid>, n_group = 4, topk_group = 2, routed_scaling_factor = 2.5 : f32, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = user>}
      : tensor<6x32xbf16>, tensor<6x16xf32>, tensor<16x32x48xbf16>, tensor<16x32x48xbf16>, tensor<16x48x32xbf16> -> tensor<6x32xbf16>
  return %y : tensor<6x32xbf16>
}
