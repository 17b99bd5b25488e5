// kgen-lower-moe-to-tiles: a configured kgen.moe becomes the six kernels of
// one package (routing, ranking, gather, the gated and the down grouped
// GEMMs, combine), launched in that order; the first carries the layer's
// signature. The grouped GEMM blocks take their expert and rows from
// kgen.tile.group_tile and run no K tile on rows in no group (live = 0).
// RUN: kgen-opt %s --kgen-lower-moe-to-tiles | FileCheck %s

// CHECK-LABEL: kgen.kernel @kgen_moe_bf16_t10_e4_k2_h32_i48 grid [3, 1, 1] threads 128 smem 0
// CHECK-SAME:    num_outputs = 2 : i64, param_names = ["router_logits", "expert_ids", "weights"], signature = {activation = "silu", dtype = "bf16", dtype_out = "bf16", experts = 4 : i64, hidden = 32 : i64, inter = 48 : i64, kind = "moe", logits_dtype = "f32", renormalize = true, tokens = 10 : i64, top_k = 2 : i64}
// CHECK:         kgen.tile.moe_route %{{.+}} rows(%{{.+}}) into %{{.+}}, %{{.+}} {renormalize, rows = 4 : i64}
// CHECK-LABEL: kgen.kernel @kgen_moe_bf16_t10_e4_k2_h32_i48_rank grid [4, 1, 1] threads 256
// CHECK-NOT:     signature
// CHECK:         kgen.tile.moe_rank %[[IDS:.+]] expert(%arg0) into
// CHECK-LABEL: kgen.kernel @kgen_moe_bf16_t10_e4_k2_h32_i48_gather grid [5, 1, 1] threads 128
// CHECK:         kgen.tile.moe_gather {{.+}} {copies = 4 : i64}
// Gate/up: 20 rows, min(E + 2, 20) = 6 groups, floor((20 + 6 * 15) / 16) = 6
// m tiles, times 2 n tiles.
// CHECK-LABEL: kgen.kernel @kgen_moe_bf16_t10_e4_k2_h32_i48_gate_up grid [12, 1, 1] threads 64 smem 10240
// CHECK-SAME:    param_names = ["permuted", "w_gate", "w_up", "expert_offsets", "h"]
// CHECK:         %[[N:.+]] = arith.divui %arg0, %c6
// CHECK:         %[[T:.+]] = arith.remui %arg0
// CHECK:         %[[E:.+]], %[[R0:.+]], %[[REND:.+]], %[[LIVE:.+]] = kgen.tile.group_tile %arg6 tile(%[[T]]) rows(%c20) {block_m = 16 : i64}
// CHECK:         %[[KT:.+]] = arith.muli %[[LIVE]], %c1
// CHECK:         kgen.tile.pipeline %c0 to %[[KT]] stages 2 load {
// CHECK:           kgen.tile.load %arg3[%[[R0]], %{{.+}}] bounds(%[[REND]], %{{.+}}) into
// CHECK:           kgen.tile.load %arg4[%[[E]], %{{.+}}, %{{.+}}] bounds
// CHECK:           kgen.tile.load %arg5[%[[E]], %{{.+}}, %{{.+}}] bounds
// CHECK:         } compute {
// CHECK:           kgen.tile.mma %[[SA:.+]], %[[SG:.+]][%{{.+}}] into %[[GATE:alloca[_0-9]*]]
// CHECK:           kgen.tile.mma %[[SA]], %[[SU:.+]][%{{.+}}] into %[[UP:alloca[_0-9]*]]
// CHECK:         kgen.tile.gated_epilogue %[[GATE]], %[[UP]] into %arg7[%[[R0]], %{{.+}}] bounds(%[[REND]], %c48) {activation = #kgen.activation<silu>}
// CHECK-LABEL: kgen.kernel @kgen_moe_bf16_t10_e4_k2_h32_i48_down grid [6, 1, 1] threads 64 smem 6144
// CHECK:         kgen.tile.group_tile %arg5 tile(%{{.+}}) rows(%c20) {block_m = 32 : i64}
// CHECK:         kgen.tile.epilogue {{.+}} {activation = #kgen.activation<none>, alpha = 1.000000e+00 : f32, beta = 0.000000e+00 : f32}
// CHECK-LABEL: kgen.kernel @kgen_moe_bf16_t10_e4_k2_h32_i48_combine grid [3, 1, 1] threads 128
// CHECK:         kgen.tile.moe_combine {{.+}} {tokens = 4 : i64}
// CHECK-LABEL: func.func @layer(
// CHECK:         %[[R:.+]]:2 = kgen.launch @kgen_moe_bf16_t10_e4_k2_h32_i48(%arg1)
// CHECK:         %[[K:.+]]:2 = kgen.launch @kgen_moe_bf16_t10_e4_k2_h32_i48_rank(%[[R]]#0)
// CHECK:         %[[P:.+]] = kgen.launch @kgen_moe_bf16_t10_e4_k2_h32_i48_gather(%arg0, %[[K]]#0, %[[K]]#1)
// CHECK:         %[[H:.+]] = kgen.launch @kgen_moe_bf16_t10_e4_k2_h32_i48_gate_up(%[[P]], %arg2, %arg3, %[[K]]#1)
// CHECK:         %[[D:.+]] = kgen.launch @kgen_moe_bf16_t10_e4_k2_h32_i48_down(%[[H]], %arg4, %[[K]]#1)
// CHECK:         %[[Y:.+]] = kgen.launch @kgen_moe_bf16_t10_e4_k2_h32_i48_combine(%[[D]], %[[K]]#0, %[[R]]#1)
// CHECK:         return %[[Y]]
func.func @layer(%x: tensor<10x32xbf16>, %l: tensor<10x4xf32>, %wg: tensor<4x32x48xbf16>, %wu: tensor<4x32x48xbf16>, %wd: tensor<4x48x32xbf16>) -> tensor<10x32xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2, renormalize, gate_up_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 32, block_k = 16, warps_m = 2, warps_n = 1, stages = 3, source = user>}
      : tensor<10x32xbf16>, tensor<10x4xf32>, tensor<4x32x48xbf16>, tensor<4x32x48xbf16>, tensor<4x48x32xbf16> -> tensor<10x32xbf16>
  return %y : tensor<10x32xbf16>
}

// A kgen.moe without configs stays (the reference runs it).
// CHECK-LABEL: func.func @unconfigured(
// CHECK:         kgen.moe
func.func @unconfigured(%x: tensor<10x32xbf16>, %l: tensor<10x4xf32>, %wg: tensor<4x32x48xbf16>, %wu: tensor<4x32x48xbf16>, %wd: tensor<4x48x32xbf16>) -> tensor<10x32xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2}
      : tensor<10x32xbf16>, tensor<10x4xf32>, tensor<4x32x48xbf16>, tensor<4x32x48xbf16>, tensor<4x48x32xbf16> -> tensor<10x32xbf16>
  return %y : tensor<10x32xbf16>
}
