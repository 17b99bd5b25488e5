// Round trip of every tile-level op of dialect/KgenTileOps.td (kgen.kernel,
// kgen.launch, kgen.tile.*) and every optional part, in the custom and in
// the generic form. The verifier's failures are in tile-ops-invalid.mlir.
// RUN: kgen-opt %s --split-input-file | kgen-opt --split-input-file | FileCheck %s
// RUN: kgen-opt %s --split-input-file --mlir-print-op-generic | kgen-opt --split-input-file | FileCheck %s

//===----------------------------------------------------------------------===//
// kgen.kernel and kgen.launch
//===----------------------------------------------------------------------===//

// The smallest kernel: coordinates only, no parameter (so no output).
// CHECK-LABEL: kgen.kernel @empty grid [1, 1, 1] threads 1 smem 0 attributes {num_outputs = 0 : i64} {
// CHECK-NEXT:  ^bb0(%{{.+}}: index, %{{.+}}: index, %{{.+}}: index):
// CHECK-NEXT:  }
kgen.kernel @empty grid [1, 1, 1] threads 1 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index):
}

// -----

// num_outputs' default (1) is not printed.
// CHECK-LABEL: kgen.kernel @default_outputs grid [1, 1, 1] threads 1 smem 0 {
kgen.kernel @default_outputs grid [1, 1, 1] threads 1 smem 0 attributes {num_outputs = 1} {
^bb0(%bx: index, %by: index, %bz: index, %d: memref<4xf32>):
}

// -----

// Every optional attribute of a kernel, and a launch of it.
// CHECK-LABEL: kgen.kernel @full grid [4, 2, 3] threads 1024 smem 49152 attributes {
// CHECK-SAME:    config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 3, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>
// CHECK-SAME:    num_outputs = 2 : i64
// CHECK-SAME:    param_names = ["A", "D", "E"]
// CHECK-SAME:    signature = {kind = "gemm", m = 64 : i64}
// CHECK-NEXT:  ^bb0(%{{.+}}: index, %{{.+}}: index, %{{.+}}: index, %{{.+}}: memref<64x32xf32>, %{{.+}}: memref<64x32xbf16>, %{{.+}}: memref<8xi32>):
kgen.kernel @full grid [4, 2, 3] threads 1024 smem 49152 attributes {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 3, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>, num_outputs = 2, param_names = ["A", "D", "E"], signature = {kind = "gemm", m = 64 : i64}} {
^bb0(%bx: index, %by: index, %bz: index, %a: memref<64x32xf32>, %d: memref<64x32xbf16>, %e: memref<8xi32>):
}

// CHECK-LABEL: func.func @launch_full(
// CHECK-SAME:    %[[A:.+]]: tensor<64x32xf32>)
// CHECK:         %[[R:.+]]:2 = kgen.launch @full(%[[A]]) : (tensor<64x32xf32>) -> (tensor<64x32xbf16>, tensor<8xi32>)
// CHECK:         return %[[R]]#0, %[[R]]#1
func.func @launch_full(%a: tensor<64x32xf32>) -> (tensor<64x32xbf16>, tensor<8xi32>) {
  %d, %e = kgen.launch @full(%a) : (tensor<64x32xf32>) -> (tensor<64x32xbf16>, tensor<8xi32>)
  return %d, %e : tensor<64x32xbf16>, tensor<8xi32>
}

// -----

// A launch with no input: every parameter is an output.
// CHECK-LABEL: kgen.kernel @outputs_only grid [1, 1, 1] threads 32 smem 0 {
kgen.kernel @outputs_only grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %d: memref<16xf32>):
}

// CHECK-LABEL: func.func @launch_no_inputs(
// CHECK:         %[[D:.+]] = kgen.launch @outputs_only() : () -> tensor<16xf32>
// CHECK:         return %[[D]]
func.func @launch_no_inputs() -> tensor<16xf32> {
  %d = kgen.launch @outputs_only() : () -> tensor<16xf32>
  return %d : tensor<16xf32>
}

//===----------------------------------------------------------------------===//
// The tile ops inside a kernel
//===----------------------------------------------------------------------===//

// -----

// A whole block program: zero, a pipeline of loads and MMAs, the epilogue.
// CHECK-LABEL: kgen.kernel @gemm_tile grid [2, 1, 1] threads 32 smem 2048 {
// CHECK-NEXT:  ^bb0(%[[BX:.+]]: index, %[[BY:.+]]: index, %[[BZ:.+]]: index, %[[A:.+]]: memref<32x24xf16>, %[[B:.+]]: memref<24x16xf16>, %[[D:.+]]: memref<32x16xf16>):
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG:     %[[C16:.+]] = arith.constant 16 : index
// CHECK-DAG:     %[[C24:.+]] = arith.constant 24 : index
// CHECK-DAG:     %[[C32:.+]] = arith.constant 32 : index
// CHECK:         %[[M0:.+]] = arith.muli %[[BX]], %[[C16]] : index
// CHECK:         %[[SA:.+]] = memref.alloca() : memref<2x16x8xf16, 3>
// CHECK:         %[[SB:.+]] = memref.alloca() : memref<2x8x16xf16, 3>
// CHECK:         %[[ACC:.+]] = memref.alloca() : memref<16x16xf32, 5>
// CHECK:         kgen.tile.zero %[[ACC]] : memref<16x16xf32, 5>
// CHECK:         kgen.tile.pipeline %[[C0]] to %[[C3]] stages 2 load {
// CHECK-NEXT:    ^bb0(%[[K:.+]]: index, %[[S:.+]]: index):
// CHECK:           %[[K0:.+]] = arith.muli %[[K]], %{{.+}} : index
// CHECK:           kgen.tile.load %[[A]][%[[M0]], %[[K0]]] bounds(%[[C32]], %[[C24]]) into %[[SA]][%[[S]]] : memref<32x24xf16>, memref<2x16x8xf16, 3>
// CHECK:           kgen.tile.load %[[B]][%[[K0]], %[[C0]]] bounds(%[[C24]], %[[C16]]) into %[[SB]][%[[S]]] : memref<24x16xf16>, memref<2x8x16xf16, 3>
// CHECK:         } compute {
// CHECK-NEXT:    ^bb0(%{{.+}}: index, %[[S2:.+]]: index):
// CHECK-NEXT:      kgen.tile.mma %[[SA]], %[[SB]][%[[S2]]] into %[[ACC]] : memref<2x16x8xf16, 3>, memref<2x8x16xf16, 3>, memref<16x16xf32, 5>
// CHECK-NEXT:    }
// CHECK:         kgen.tile.epilogue %[[ACC]] into %[[D]][%[[M0]], %[[C0]]] bounds(%[[C32]], %[[C16]]) {activation = #kgen.activation<none>, alpha = 1.000000e+00 : f32, beta = 0.000000e+00 : f32} : memref<16x16xf32, 5>, memref<32x16xf16>
kgen.kernel @gemm_tile grid [2, 1, 1] threads 32 smem 2048 {
^bb0(%bx: index, %by: index, %bz: index, %a: memref<32x24xf16>, %b: memref<24x16xf16>, %d: memref<32x16xf16>):
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c24 = arith.constant 24 : index
  %c32 = arith.constant 32 : index
  %m0 = arith.muli %bx, %c16 : index
  %sa = memref.alloca() : memref<2x16x8xf16, 3>
  %sb = memref.alloca() : memref<2x8x16xf16, 3>
  %acc = memref.alloca() : memref<16x16xf32, 5>
  kgen.tile.zero %acc : memref<16x16xf32, 5>
  kgen.tile.pipeline %c0 to %c3 stages 2 load {
  ^bb0(%k: index, %s: index):
    %k0 = arith.muli %k, %c8 : index
    kgen.tile.load %a[%m0, %k0] bounds(%c32, %c24) into %sa[%s] : memref<32x24xf16>, memref<2x16x8xf16, 3>
    kgen.tile.load %b[%k0, %c0] bounds(%c24, %c16) into %sb[%s] : memref<24x16xf16>, memref<2x8x16xf16, 3>
  } compute {
  ^bb0(%k: index, %s: index):
    kgen.tile.mma %sa, %sb[%s] into %acc : memref<2x16x8xf16, 3>, memref<2x8x16xf16, 3>, memref<16x16xf32, 5>
  }
  kgen.tile.epilogue %acc into %d[%m0, %c0] bounds(%c32, %c16) {alpha = 1.0 : f32, beta = 0.0 : f32, activation = #kgen.activation<none>} : memref<16x16xf32, 5>, memref<32x16xf16>
}

// -----

// Every unit attribute of kgen.tile.mma: transposed stage tiles ([S, BK, BM]
// and [S, BN, BK]) and an f16 running sum.
// CHECK-LABEL: kgen.kernel @mma_flags
// CHECK:         kgen.tile.mma %{{.+}}, %{{.+}}[%{{.+}}] into %{{.+}} {acc_f16, transpose_a, transpose_b} : memref<2x8x16xf16, 3>, memref<2x32x8xf16, 3>, memref<16x32xf32, 5>
// CHECK:         kgen.tile.mma %{{.+}}, %{{.+}}[%{{.+}}] into %{{.+}} {transpose_a} : memref<2x8x16xf16, 3>, memref<2x8x32xf16, 3>, memref<16x32xf32, 5>
// CHECK:         kgen.tile.mma %{{.+}}, %{{.+}}[%{{.+}}] into %{{.+}} {transpose_b} : memref<2x16x8xf16, 3>, memref<2x32x8xf16, 3>, memref<16x32xf32, 5>
kgen.kernel @mma_flags grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index):
  %s = arith.constant 1 : index
  %at = memref.alloca() : memref<2x8x16xf16, 3>
  %a = memref.alloca() : memref<2x16x8xf16, 3>
  %bt = memref.alloca() : memref<2x32x8xf16, 3>
  %b = memref.alloca() : memref<2x8x32xf16, 3>
  %acc = memref.alloca() : memref<16x32xf32, 5>
  kgen.tile.mma %at, %bt[%s] into %acc {transpose_a, transpose_b, acc_f16} : memref<2x8x16xf16, 3>, memref<2x32x8xf16, 3>, memref<16x32xf32, 5>
  kgen.tile.mma %at, %b[%s] into %acc {transpose_a} : memref<2x8x16xf16, 3>, memref<2x8x32xf16, 3>, memref<16x32xf32, 5>
  kgen.tile.mma %a, %bt[%s] into %acc {transpose_b} : memref<2x16x8xf16, 3>, memref<2x32x8xf16, 3>, memref<16x32xf32, 5>
}

// -----

// Batched boxes: the leading indices pick the matrix. The split-K pair's
// tile ops: partials stored to and accumulated from an f32 workspace
// [split, batch, M, N].
// CHECK-LABEL: kgen.kernel @batched_and_split
// CHECK-NEXT:  ^bb0(%[[BX:.+]]: index, %[[BY:.+]]: index, %[[BZ:.+]]: index, %[[A:.+]]: memref<3x40x24xbf16>, %[[W:.+]]: memref<2x3x40x64xf32>):
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C40:.+]] = arith.constant 40 : index
// CHECK-DAG:     %[[C64:.+]] = arith.constant 64 : index
// CHECK-DAG:     %[[C24:.+]] = arith.constant 24 : index
// CHECK:         %[[SA:.+]] = memref.alloca() : memref<1x32x8xbf16, 3>
// CHECK:         %[[ACC:.+]] = memref.alloca() : memref<32x32xf32, 5>
// CHECK:         kgen.tile.load %[[A]][%[[BZ]], %[[C0]], %[[C0]]] bounds(%[[C40]], %[[C24]]) into %[[SA]][%[[C0]]] : memref<3x40x24xbf16>, memref<1x32x8xbf16, 3>
// CHECK:         kgen.tile.store %[[ACC]] into %[[W]][%[[BY]], %[[BZ]], %[[C0]], %[[C0]]] bounds(%[[C40]], %[[C64]]) : memref<32x32xf32, 5>, memref<2x3x40x64xf32>
// CHECK:         kgen.tile.accumulate %[[W]][%[[BY]], %[[BZ]], %[[C0]], %[[C0]]] bounds(%[[C40]], %[[C64]]) into %[[ACC]] : memref<2x3x40x64xf32>, memref<32x32xf32, 5>
kgen.kernel @batched_and_split grid [1, 2, 3] threads 32 smem 512 {
^bb0(%bx: index, %by: index, %bz: index, %a: memref<3x40x24xbf16>, %w: memref<2x3x40x64xf32>):
  %c0 = arith.constant 0 : index
  %c40 = arith.constant 40 : index
  %c64 = arith.constant 64 : index
  %c24 = arith.constant 24 : index
  %sa = memref.alloca() : memref<1x32x8xbf16, 3>
  %acc = memref.alloca() : memref<32x32xf32, 5>
  kgen.tile.load %a[%bz, %c0, %c0] bounds(%c40, %c24) into %sa[%c0] : memref<3x40x24xbf16>, memref<1x32x8xbf16, 3>
  kgen.tile.store %acc into %w[%by, %bz, %c0, %c0] bounds(%c40, %c64) : memref<32x32xf32, 5>, memref<2x3x40x64xf32>
  kgen.tile.accumulate %w[%by, %bz, %c0, %c0] bounds(%c40, %c64) into %acc : memref<2x3x40x64xf32>, memref<32x32xf32, 5>
}

// -----

// The epilogue's optional operands: bias alone, residual alone, both; any
// activation; a batched output.
// CHECK-LABEL: kgen.kernel @epilogues
// CHECK-NEXT:  ^bb0(%{{.+}}: index, %{{.+}}: index, %[[BZ:.+]]: index, %[[BIAS:.+]]: memref<64xf32>, %[[C:.+]]: memref<2x40x64xbf16>, %[[D:.+]]: memref<2x40x64xbf16>):
// CHECK:         kgen.tile.epilogue %[[ACC:.+]] into %[[D]][%[[BZ]], %[[I:.+]], %[[I]]] bounds(%[[M:.+]], %[[N:.+]]) bias(%[[BIAS]] : memref<64xf32>) {activation = #kgen.activation<relu>, alpha = 1.000000e+00 : f32, beta = 0.000000e+00 : f32} : memref<32x32xf32, 5>, memref<2x40x64xbf16>
// CHECK:         kgen.tile.epilogue %[[ACC]] into %[[D]][%[[BZ]], %[[I]], %[[I]]] bounds(%[[M]], %[[N]]) residual(%[[C]] : memref<2x40x64xbf16>) {activation = #kgen.activation<silu>, alpha = 2.000000e+00 : f32, beta = 5.000000e-01 : f32} : memref<32x32xf32, 5>, memref<2x40x64xbf16>
// CHECK:         kgen.tile.epilogue %[[ACC]] into %[[D]][%[[BZ]], %[[I]], %[[I]]] bounds(%[[M]], %[[N]]) bias(%[[BIAS]] : memref<64xf32>) residual(%[[C]] : memref<2x40x64xbf16>) {activation = #kgen.activation<gelu>, alpha = -1.000000e+00 : f32, beta = 1.000000e+00 : f32} : memref<32x32xf32, 5>, memref<2x40x64xbf16>
kgen.kernel @epilogues grid [2, 2, 2] threads 64 smem 0 attributes {num_outputs = 1, param_names = ["bias", "C", "D"]} {
^bb0(%bx: index, %by: index, %bz: index, %bias: memref<64xf32>, %c: memref<2x40x64xbf16>, %d: memref<2x40x64xbf16>):
  %c0 = arith.constant 0 : index
  %c40 = arith.constant 40 : index
  %c64 = arith.constant 64 : index
  %acc = memref.alloca() : memref<32x32xf32, 5>
  kgen.tile.epilogue %acc into %d[%bz, %c0, %c0] bounds(%c40, %c64) bias(%bias : memref<64xf32>) {alpha = 1.0 : f32, beta = 0.0 : f32, activation = #kgen.activation<relu>} : memref<32x32xf32, 5>, memref<2x40x64xbf16>
  kgen.tile.epilogue %acc into %d[%bz, %c0, %c0] bounds(%c40, %c64) residual(%c : memref<2x40x64xbf16>) {alpha = 2.0 : f32, beta = 0.5 : f32, activation = #kgen.activation<silu>} : memref<32x32xf32, 5>, memref<2x40x64xbf16>
  kgen.tile.epilogue %acc into %d[%bz, %c0, %c0] bounds(%c40, %c64) bias(%bias : memref<64xf32>) residual(%c : memref<2x40x64xbf16>) {alpha = -1.0 : f32, beta = 1.0 : f32, activation = #kgen.activation<gelu>} : memref<32x32xf32, 5>, memref<2x40x64xbf16>
}

// -----

// A pipeline's attributes beyond `stages` are printed after `attributes`;
// its regions may be empty of ops, and a pipeline may sit in a loop.
// CHECK-LABEL: kgen.kernel @pipeline_forms
// CHECK:         scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK-NEXT:      kgen.tile.pipeline %[[I]] to %{{.+}} stages 1 attributes {note = "one stage"} load {
// CHECK-NEXT:      ^bb0(%{{.+}}: index, %{{.+}}: index):
// CHECK-NEXT:      } compute {
// CHECK-NEXT:      ^bb0(%{{.+}}: index, %{{.+}}: index):
// CHECK-NEXT:      }
// CHECK-NEXT:    }
kgen.kernel @pipeline_forms grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    kgen.tile.pipeline %i to %c4 stages 1 attributes {note = "one stage"} load {
    ^bb0(%k: index, %s: index):
    } compute {
    ^bb0(%k: index, %s: index):
    }
  }
}

// -----

// Tile ops on buffers of any memory space and element type (the verifier
// asks for the shapes only; fp8 tiles, i8 globals).
// CHECK-LABEL: kgen.kernel @any_memory
// CHECK:         kgen.tile.zero %{{.+}} : memref<4x8xi8>
// CHECK:         kgen.tile.zero %{{.+}} : memref<2x16x32xf8E4M3FN, 3>
// CHECK:         kgen.tile.load %{{.+}}[%{{.+}}, %{{.+}}] bounds(%{{.+}}, %{{.+}}) into %{{.+}}[%{{.+}}] : memref<64x64xf8E4M3FN>, memref<2x16x32xf8E4M3FN, 3>
kgen.kernel @any_memory grid [1, 1, 1] threads 32 smem 1024 {
^bb0(%bx: index, %by: index, %bz: index, %g: memref<64x64xf8E4M3FN>):
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = memref.alloca() : memref<4x8xi8>
  %s = memref.alloca() : memref<2x16x32xf8E4M3FN, 3>
  kgen.tile.zero %t : memref<4x8xi8>
  kgen.tile.zero %s : memref<2x16x32xf8E4M3FN, 3>
  kgen.tile.load %g[%c0, %c0] bounds(%c64, %c64) into %s[%c0] : memref<64x64xf8E4M3FN>, memref<2x16x32xf8E4M3FN, 3>
}

// -----

// The DeepSeek forms of the MoE steps: routing with a bias and every
// routing attribute, a shared expert's offsets and its rows in the combine.
// CHECK-LABEL: kgen.kernel @deepseek_moe_steps
// CHECK:         kgen.tile.moe_route %{{.+}} bias(%{{.+}} : memref<16xf32>) rows(%{{.+}}) into %{{.+}}, %{{.+}} {n_group = 4 : i64, renormalize, routed_scaling_factor = 2.500000e+00 : f32, rows = 4 : i64, scoring = #kgen.scoring<sigmoid>, topk_group = 2 : i64} : memref<8x16xf32>, memref<8x4xi32>, memref<8x4xf32>
// CHECK:         kgen.tile.moe_single_group into %{{.+}} {rows = 8 : i64} : memref<2xi32>
// CHECK:         kgen.tile.moe_combine %{{.+}}, %{{.+}}, %{{.+}} shared(%{{.+}} : memref<8x32xbf16>) tokens(%{{.+}}) into %{{.+}} {tokens = 4 : i64} : memref<32x32xbf16>, memref<8x4xi32>, memref<8x4xf32>, memref<8x32xbf16>
kgen.kernel @deepseek_moe_steps grid [2, 1, 1] threads 128 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %l: memref<8x16xf32>, %b: memref<16xf32>, %ids: memref<8x4xi32>, %w: memref<8x4xf32>, %off: memref<2xi32>, %eo: memref<32x32xbf16>, %z: memref<8x32xbf16>, %y: memref<8x32xbf16>):
  kgen.tile.moe_route %l bias(%b : memref<16xf32>) rows(%bx) into %ids, %w {rows = 4, renormalize, scoring = #kgen.scoring<sigmoid>, n_group = 4, topk_group = 2, routed_scaling_factor = 2.5 : f32} : memref<8x16xf32>, memref<8x4xi32>, memref<8x4xf32>
  kgen.tile.moe_single_group into %off {rows = 8} : memref<2xi32>
  kgen.tile.moe_combine %eo, %ids, %w shared(%z : memref<8x32xbf16>) tokens(%bx) into %y {tokens = 4} : memref<32x32xbf16>, memref<8x4xi32>, memref<8x4xf32>, memref<8x32xbf16>
}
