// kgen-lower-gemm-to-tiles on hand-written configs: the kernel's launch
// shape (grid, threads, shared-memory bytes), its stage buffers and
// accumulator, the pipeline's bounds and depth, the raster's index
// arithmetic, the tile loads / MMA / epilogue and the launch replacing the
// gemm. Variants: the first case runs with a simt and a mma_sync (sm_80)
// and a wgmma (sm_90a) config of the same tiles (a sed picks the config): the
// schedule is the same, only threads, shared memory and the config differ.
// Then a batched transposed gemm, the split-K pair (partials kernel and
// reduction kernel over the workspace), and a wgmma cluster config (tile
// rows padded to whole clusters).
//
// Shared-memory bytes (smem) of each kernel, as kgen-lower-gemm-to-tiles
// computes them (gemmSharedMemoryBytes, dialect/GemmLegality.h): cp.async
// families stages * (BM * BK + BK * BN) * bytes; wgmma 1024 (swizzle
// alignment) + stages * (BM + BN) * BK * bytes + 16 * stages (mbarriers).
// When that formula changes, these are the values to update:
// DEFINE: %{smem} = -DSMEM_SIMT=98304 -DSMEM_MMA_SYNC=98304 -DSMEM_WGMMA=99376 \
// DEFINE:   -DSMEM_BATCHED=4096 -DSMEM_SPLIT_K=8192 -DSMEM_CLUSTER=197696
//
// RUN: sed -e 's/config = #family/config = #simt/' %s | kgen-opt --split-input-file --kgen-lower-gemm-to-tiles | FileCheck %s %{smem} --check-prefixes=CHECK,SIMT
// RUN: kgen-opt %s --split-input-file --kgen-lower-gemm-to-tiles | FileCheck %s %{smem} --check-prefixes=CHECK,MMA-SYNC
// RUN: sed -e 's/config = #family/config = #wgmma/' %s | kgen-opt --split-input-file --kgen-lower-gemm-to-tiles | FileCheck %s %{smem} --check-prefixes=CHECK,WGMMA

// A 300x200x136 bf16 gemm with a bias in 128x128x64 tiles, 3 stages:
// 3 x 2 tiles (the last row and column partial), 3 K tiles (the last
// partial), raster groups of 2 tile rows (the second group has 1 row).
#simt = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 128, block_n = 128, block_k = 64, warps_m = 4, warps_n = 4, stages = 3, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 2, epilogue_vector = 8, source = user>
#mma_sync = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 64, warps_m = 4, warps_n = 2, stages = 3, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 2, epilogue_vector = 8, source = user>
#wgmma = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 128, block_k = 64, warps_m = 8, warps_n = 1, stages = 3, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 2, epilogue_vector = 8, source = user>
// mma_sync unless a RUN line's sed picks another family.
#family = #mma_sync

// CHECK-LABEL:  kgen.kernel @kgen_gemm_bf16_m300_n200_k136 grid [6, 1, 1]
// SIMT-SAME:      threads 512 smem [[SMEM_SIMT]] attributes {config = #kgen.gemm_config<target = sm_80, instruction = simt,
// MMA-SYNC-SAME:  threads 256 smem [[SMEM_MMA_SYNC]] attributes {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync,
// WGMMA-SAME:     threads 384 smem [[SMEM_WGMMA]] attributes {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma,
// CHECK-SAME:     param_names = ["A", "B", "bias", "D"]
// CHECK-SAME:     signature = {{{.*}}kind = "gemm"{{.*}}m = 300 : i64, n = 200 : i64
// CHECK-NEXT:   ^bb0(%[[BX:.+]]: index, %[[BY:.+]]: index, %[[BZ:.+]]: index, %[[A:.+]]: memref<300x136xbf16>, %[[B:.+]]: memref<136x200xbf16>, %[[BIAS:.+]]: memref<200xf32>, %[[D:.+]]: memref<300x200xbf16>):
//
// Raster: (m0, n0) of block bx, tiles visited a group of 2 tile rows at a
// time (4 tiles per group), column by column inside the group.
// CHECK-DAG:      %[[PER_GROUP:.+]] = arith.constant 4 : index
// CHECK:          %[[GROUP_IDX:.+]] = arith.divui %[[BX]], %[[PER_GROUP]] : index
// CHECK-DAG:      %[[GROUP:.+]] = arith.constant 2 : index
// CHECK:          %[[FIRST_M:.+]] = arith.muli %[[GROUP_IDX]], %[[GROUP]] : index
// CHECK-DAG:      %[[TILES_M:.+]] = arith.constant 3 : index
// CHECK-DAG:      %[[GROUP_MAX:.+]] = arith.constant 2 : index
// CHECK-DAG:      %[[ROWS_LEFT:.+]] = arith.subi %[[TILES_M]], %[[FIRST_M]] : index
// CHECK:          %[[ROWS:.+]] = arith.minui %[[ROWS_LEFT]], %[[GROUP_MAX]] : index
// CHECK:          %[[IN_GROUP:.+]] = arith.remui %[[BX]], %[[PER_GROUP]] : index
// CHECK:          %[[ROW:.+]] = arith.remui %[[IN_GROUP]], %[[ROWS]] : index
// CHECK:          %[[TM:.+]] = arith.addi %[[FIRST_M]], %[[ROW]] : index
// CHECK:          %[[TN:.+]] = arith.divui %[[IN_GROUP]], %[[ROWS]] : index
// CHECK-DAG:      %[[BM:.+]] = arith.constant 128 : index
// CHECK:          %[[M0:.+]] = arith.muli %[[TM]], %[[BM]] : index
// CHECK-DAG:      %[[BN:.+]] = arith.constant 128 : index
// CHECK:          %[[N0:.+]] = arith.muli %[[TN]], %[[BN]] : index
//
// Stage buffers (S, BM, BK) and (S, BK, BN) in shared memory (space 3), the
// (BM, BN) f32 accumulator in registers (space 5).
// CHECK:          %[[SA:.+]] = memref.alloca() : memref<3x128x64xbf16, 3>
// CHECK:          %[[SB:.+]] = memref.alloca() : memref<3x64x128xbf16, 3>
// CHECK:          %[[ACC:.+]] = memref.alloca() : memref<128x128xf32, 5>
// CHECK:          kgen.tile.zero %[[ACC]] : memref<128x128xf32, 5>
// CHECK:          kgen.tile.pipeline %[[KT_LO:.+]] to %[[KT_HI:.+]] stages 3 load {
// CHECK-NEXT:     ^bb0(%[[K:.+]]: index, %[[STAGE:.+]]: index):
// CHECK-DAG:        %[[BK:.+]] = arith.constant 64 : index
// CHECK:            %[[K0:.+]] = arith.muli %[[K]], %[[BK]] : index
// CHECK-DAG:        %[[M:.+]] = arith.constant 300 : index
// CHECK-DAG:        %[[N:.+]] = arith.constant 200 : index
// CHECK-DAG:        %[[KDIM:.+]] = arith.constant 136 : index
// CHECK:            kgen.tile.load %[[A]][%[[M0]], %[[K0]]] bounds(%[[M]], %[[KDIM]]) into %[[SA]][%[[STAGE]]] : memref<300x136xbf16>, memref<3x128x64xbf16, 3>
// CHECK-NEXT:       kgen.tile.load %[[B]][%[[K0]], %[[N0]]] bounds(%[[KDIM]], %[[N]]) into %[[SB]][%[[STAGE]]] : memref<136x200xbf16>, memref<3x64x128xbf16, 3>
// CHECK-NEXT:     } compute {
// CHECK-NEXT:     ^bb0(%{{.+}}: index, %[[STAGE2:.+]]: index):
// CHECK-NEXT:       kgen.tile.mma %[[SA]], %[[SB]][%[[STAGE2]]] into %[[ACC]] : memref<3x128x64xbf16, 3>, memref<3x64x128xbf16, 3>, memref<128x128xf32, 5>
// CHECK-NEXT:     }
// CHECK-NOT:      kgen.tile.store
// CHECK:          kgen.tile.epilogue %[[ACC]] into %[[D]][%[[M0]], %[[N0]]] bounds(%{{.+}}, %{{.+}}) bias(%[[BIAS]] : memref<200xf32>) {activation = #kgen.activation<none>, alpha = 1.000000e+00 : f32, beta = 0.000000e+00 : f32} : memref<128x128xf32, 5>, memref<300x200xbf16>
// CHECK-NEXT:   }
// CHECK-LABEL:  func.func @family(
// CHECK-SAME:     %[[AT:.+]]: tensor<300x136xbf16>, %[[BT:.+]]: tensor<136x200xbf16>, %[[BIAST:.+]]: tensor<200xf32>)
// CHECK-NEXT:     %[[R:.+]] = kgen.launch @kgen_gemm_bf16_m300_n200_k136(%[[AT]], %[[BT]], %[[BIAST]]) : (tensor<300x136xbf16>, tensor<136x200xbf16>, tensor<200xf32>) -> tensor<300x200xbf16>
// CHECK-NEXT:     return %[[R]]
func.func @family(%a: tensor<300x136xbf16>, %b: tensor<136x200xbf16>, %bias: tensor<200xf32>) -> tensor<300x200xbf16> {
  %d = kgen.gemm %a, %b bias(%bias : tensor<200xf32>) {config = #family} : tensor<300x136xbf16>, tensor<136x200xbf16> -> tensor<300x200xbf16>
  return %d : tensor<300x200xbf16>
}

// -----

// Batched, both operands transposed (simt, f32): the stage buffers follow
// the operands' layouts, (S, BK, BM) and (S, BN, BK); the block's z
// coordinate picks the batch in every load and in the store; grid z is the
// batch.
// CHECK-LABEL:  kgen.kernel @kgen_gemm_f32_b2_m40_n64_k24 grid [4, 1, 2]
// CHECK-SAME:     threads 128 smem [[SMEM_BATCHED]] attributes {
// CHECK-SAME:     param_names = ["A", "B", "D"]
// CHECK-NEXT:   ^bb0(%{{.+}}: index, %{{.+}}: index, %[[BZ:.+]]: index, %[[A:.+]]: memref<2x24x40xf32>, %[[B:.+]]: memref<2x64x24xf32>, %[[D:.+]]: memref<2x40x64xf32>):
// CHECK-DAG:      %[[BM:.+]] = arith.constant 32 : index
// CHECK:          %[[M0:.+]] = arith.muli %{{.+}}, %[[BM]] : index
// CHECK-DAG:      %[[BN:.+]] = arith.constant 32 : index
// CHECK:          %[[N0:.+]] = arith.muli %{{.+}}, %[[BN]] : index
// CHECK:          %[[SA:.+]] = memref.alloca() : memref<2x8x32xf32, 3>
// CHECK:          %[[SB:.+]] = memref.alloca() : memref<2x32x8xf32, 3>
// CHECK:          %[[ACC:.+]] = memref.alloca() : memref<32x32xf32, 5>
// CHECK:          kgen.tile.pipeline %{{.+}} to %{{.+}} stages 2 load {
// CHECK-NEXT:     ^bb0(%[[K:.+]]: index, %[[STAGE:.+]]: index):
// CHECK:            %[[K0:.+]] = arith.muli %[[K]], %{{.+}} : index
// CHECK-DAG:        %[[M:.+]] = arith.constant 40 : index
// CHECK-DAG:        %[[N:.+]] = arith.constant 64 : index
// CHECK-DAG:        %[[KDIM:.+]] = arith.constant 24 : index
// CHECK:            kgen.tile.load %[[A]][%[[BZ]], %[[K0]], %[[M0]]] bounds(%[[KDIM]], %[[M]]) into %[[SA]][%[[STAGE]]] : memref<2x24x40xf32>, memref<2x8x32xf32, 3>
// CHECK-NEXT:       kgen.tile.load %[[B]][%[[BZ]], %[[N0]], %[[K0]]] bounds(%[[N]], %[[KDIM]]) into %[[SB]][%[[STAGE]]] : memref<2x64x24xf32>, memref<2x32x8xf32, 3>
// CHECK:            kgen.tile.mma %[[SA]], %[[SB]][%{{.+}}] into %[[ACC]] {transpose_a, transpose_b} : memref<2x8x32xf32, 3>, memref<2x32x8xf32, 3>, memref<32x32xf32, 5>
// CHECK:          kgen.tile.epilogue %[[ACC]] into %[[D]][%[[BZ]], %[[M0]], %[[N0]]] bounds(
// CHECK-LABEL:  func.func @simt_batched_tt(
// CHECK:          kgen.launch @kgen_gemm_f32_b2_m40_n64_k24(%{{.+}}, %{{.+}}) : (tensor<2x24x40xf32>, tensor<2x64x24xf32>) -> tensor<2x40x64xf32>
func.func @simt_batched_tt(%a: tensor<2x24x40xf32>, %b: tensor<2x64x24xf32>) -> tensor<2x40x64xf32> {
  %d = kgen.gemm %a, %b {transpose_a, transpose_b, config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 32, block_n = 32, block_k = 8, warps_m = 2, warps_n = 2, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 4, source = user>} : tensor<2x24x40xf32>, tensor<2x64x24xf32> -> tensor<2x40x64xf32>
  return %d : tensor<2x40x64xf32>
}

// -----

// Split-K 4 of a batched gemm with a broadcast B, a bias and a residual:
// 2 x 3 tiles of 32x32, 16 K tiles of 32, 4 per split. The partials kernel
// (grid y: the split) stores its f32 accumulator into the workspace W
// [split, batch, M, N] and has no epilogue; the reduction kernel (same
// tiles, one split, the config's consumer threads, no shared memory) sums W
// over the splits in order and applies the epilogue.
// CHECK-LABEL:  kgen.kernel @kgen_gemm_bf16_b2_m48_n96_k512 grid [6, 4, 2]
// CHECK-SAME:     threads 128 smem [[SMEM_SPLIT_K]] attributes {
// CHECK-SAME:     param_names = ["A", "B", "bias", "C", "W"]
// CHECK-SAME:     signature = {
// CHECK-NEXT:   ^bb0(%{{.+}}: index, %[[BY:.+]]: index, %[[BZ:.+]]: index, %[[A:.+]]: memref<2x48x512xbf16>, %[[B:.+]]: memref<512x96xbf16>, %{{.+}}: memref<96xf32>, %{{.+}}: memref<2x48x96xbf16>, %[[W:.+]]: memref<4x2x48x96xf32>):
// CHECK-DAG:      %[[PER_GROUP:.+]] = arith.constant 24 : index
// CHECK:          arith.divui %{{.+}}, %[[PER_GROUP]] : index
// CHECK-DAG:      %[[BM:.+]] = arith.constant 32 : index
// CHECK:          %[[M0:.+]] = arith.muli %{{.+}}, %[[BM]] : index
// CHECK-DAG:      %[[BN:.+]] = arith.constant 32 : index
// CHECK:          %[[N0:.+]] = arith.muli %{{.+}}, %[[BN]] : index
//
// K tiles of split by: [min(by * 4, 16), min(that + 4, 16)).
// CHECK-DAG:      %[[K_TILES:.+]] = arith.constant 16 : index
// CHECK-DAG:      %[[PER_SPLIT:.+]] = arith.constant 4 : index
// CHECK-DAG:      %[[SPLIT_START:.+]] = arith.muli %[[BY]], %[[PER_SPLIT]] : index
// CHECK:          %[[KT_LO:.+]] = arith.minui %[[SPLIT_START]], %[[K_TILES]] : index
// CHECK-DAG:      %[[K_TILES2:.+]] = arith.constant 16 : index
// CHECK-DAG:      %[[PER_SPLIT2:.+]] = arith.constant 4 : index
// CHECK-DAG:      %[[SPLIT_END:.+]] = arith.addi %[[KT_LO]], %[[PER_SPLIT2]] : index
// CHECK:          %[[KT_HI:.+]] = arith.minui %[[SPLIT_END]], %[[K_TILES2]] : index
// CHECK:          %[[SA:.+]] = memref.alloca() : memref<2x32x32xbf16, 3>
// CHECK:          %[[SB:.+]] = memref.alloca() : memref<2x32x32xbf16, 3>
// CHECK:          %[[ACC:.+]] = memref.alloca() : memref<32x32xf32, 5>
// CHECK:          kgen.tile.pipeline %[[KT_LO]] to %[[KT_HI]] stages 2 load {
// CHECK:            kgen.tile.load %[[A]][%[[BZ]], %[[M0]], %[[K0:.+]]] bounds(
// The broadcast B has no batch index.
// CHECK-NEXT:       kgen.tile.load %[[B]][%[[K0]], %[[N0]]] bounds(
// CHECK:            kgen.tile.mma
// CHECK-NOT:      kgen.tile.epilogue
// CHECK:          kgen.tile.store %[[ACC]] into %[[W]][%[[BY]], %[[BZ]], %[[M0]], %[[N0]]] bounds(%{{.+}}, %{{.+}}) : memref<32x32xf32, 5>, memref<4x2x48x96xf32>
// CHECK-NEXT:   }
//
// CHECK-LABEL:  kgen.kernel @kgen_gemm_bf16_b2_m48_n96_k512_splitk_reduce grid [6, 1, 2] threads 128 smem 0 attributes {
// CHECK-SAME:     param_names = ["W", "bias", "C", "D"]
// CHECK-NOT:      signature
// CHECK-SAME:     {
// CHECK-NEXT:   ^bb0(%{{.+}}: index, %{{.+}}: index, %[[BZ:.+]]: index, %[[W:.+]]: memref<4x2x48x96xf32>, %[[BIAS:.+]]: memref<96xf32>, %[[C:.+]]: memref<2x48x96xbf16>, %[[D:.+]]: memref<2x48x96xbf16>):
// CHECK-DAG:      %[[PER_GROUP:.+]] = arith.constant 24 : index
// CHECK:          arith.divui %{{.+}}, %[[PER_GROUP]] : index
// CHECK-DAG:      %[[BM:.+]] = arith.constant 32 : index
// CHECK:          %[[M0:.+]] = arith.muli %{{.+}}, %[[BM]] : index
// CHECK-DAG:      %[[BN:.+]] = arith.constant 32 : index
// CHECK:          %[[N0:.+]] = arith.muli %{{.+}}, %[[BN]] : index
// CHECK:          %[[ACC:.+]] = memref.alloca() : memref<32x32xf32, 5>
// CHECK-NEXT:     kgen.tile.zero %[[ACC]]
// CHECK-DAG:      %[[ZERO:.+]] = arith.constant 0 : index
// CHECK-DAG:      %[[SPLITS:.+]] = arith.constant 4 : index
// CHECK-DAG:      %[[ONE:.+]] = arith.constant 1 : index
// CHECK:          scf.for %[[S:.+]] = %[[ZERO]] to %[[SPLITS]] step %[[ONE]] {
// CHECK-NEXT:       kgen.tile.accumulate %[[W]][%[[S]], %[[BZ]], %[[M0]], %[[N0]]] bounds(%{{.+}}, %{{.+}}) into %[[ACC]] : memref<4x2x48x96xf32>, memref<32x32xf32, 5>
// CHECK-NEXT:     }
// CHECK-NEXT:     kgen.tile.epilogue %[[ACC]] into %[[D]][%[[BZ]], %[[M0]], %[[N0]]] bounds(%{{.+}}, %{{.+}}) bias(%[[BIAS]] : memref<96xf32>) residual(%[[C]] : memref<2x48x96xbf16>) {activation = #kgen.activation<relu>, alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32} : memref<32x32xf32, 5>, memref<2x48x96xbf16>
// CHECK-NEXT:   }
//
// CHECK-LABEL:  func.func @split_k(
// CHECK-SAME:     %[[AT:.+]]: tensor<2x48x512xbf16>, %[[BT:.+]]: tensor<512x96xbf16>, %[[BIAST:.+]]: tensor<96xf32>, %[[CT:.+]]: tensor<2x48x96xbf16>)
// CHECK-NEXT:     %[[WT:.+]] = kgen.launch @kgen_gemm_bf16_b2_m48_n96_k512(%[[AT]], %[[BT]], %[[BIAST]], %[[CT]]) : (tensor<2x48x512xbf16>, tensor<512x96xbf16>, tensor<96xf32>, tensor<2x48x96xbf16>) -> tensor<4x2x48x96xf32>
// CHECK-NEXT:     %[[DT:.+]] = kgen.launch @kgen_gemm_bf16_b2_m48_n96_k512_splitk_reduce(%[[WT]], %[[BIAST]], %[[CT]]) : (tensor<4x2x48x96xf32>, tensor<96xf32>, tensor<2x48x96xbf16>) -> tensor<2x48x96xbf16>
// CHECK-NEXT:     return %[[DT]]
func.func @split_k(%a: tensor<2x48x512xbf16>, %b: tensor<512x96xbf16>, %bias: tensor<96xf32>, %c: tensor<2x48x96xbf16>) -> tensor<2x48x96xbf16> {
  %d = kgen.gemm %a, %b bias(%bias : tensor<96xf32>) residual(%c : tensor<2x48x96xbf16>) {beta = 1.0 : f32, activation = #kgen.activation<relu>, config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 32, block_k = 32, warps_m = 2, warps_n = 2, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 4, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<2x48x512xbf16>, tensor<512x96xbf16> -> tensor<2x48x96xbf16>
  return %d : tensor<2x48x96xbf16>
}

// -----

// wgmma in clusters of 2 blocks along M, B transposed: 600 rows are 5 tiles
// of 128, padded to 6 (whole clusters), in raster groups of 3 rounded up to
// 4; 4 tile columns of 256. Grid x: 6 * 4 = 24 blocks, 16 per group.
// CHECK-LABEL:  kgen.kernel @kgen_gemm_bf16_m600_n1000_k512 grid [24, 1, 1]
// CHECK-SAME:     threads 384 smem [[SMEM_CLUSTER]] attributes {
// CHECK-SAME:     config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, {{.*}}cluster_m = 2, cluster_n = 1
// CHECK-NEXT:   ^bb0(%[[BX:.+]]: index, %{{.+}}: index, %{{.+}}: index, %[[A:.+]]: memref<600x512xbf16>, %[[B:.+]]: memref<1000x512xbf16>, %[[D:.+]]: memref<600x1000xbf16>):
// CHECK-DAG:      %[[PER_GROUP:.+]] = arith.constant 16 : index
// CHECK:          %[[GROUP_IDX:.+]] = arith.divui %[[BX]], %[[PER_GROUP]] : index
// CHECK-DAG:      %[[GROUP:.+]] = arith.constant 4 : index
// CHECK:          %[[FIRST_M:.+]] = arith.muli %[[GROUP_IDX]], %[[GROUP]] : index
// CHECK-DAG:      %[[TILES_M:.+]] = arith.constant 6 : index
// CHECK-DAG:      %[[GROUP_MAX:.+]] = arith.constant 4 : index
// CHECK-DAG:      %[[ROWS_LEFT:.+]] = arith.subi %[[TILES_M]], %[[FIRST_M]] : index
// CHECK:          %[[ROWS:.+]] = arith.minui %[[ROWS_LEFT]], %[[GROUP_MAX]] : index
// CHECK:          %[[IN_GROUP:.+]] = arith.remui %[[BX]], %[[PER_GROUP]] : index
// CHECK:          %[[ROW:.+]] = arith.remui %[[IN_GROUP]], %[[ROWS]] : index
// CHECK:          %[[TM:.+]] = arith.addi %[[FIRST_M]], %[[ROW]] : index
// CHECK:          %[[TN:.+]] = arith.divui %[[IN_GROUP]], %[[ROWS]] : index
// CHECK-DAG:      %[[BM:.+]] = arith.constant 128 : index
// CHECK:          %[[M0:.+]] = arith.muli %[[TM]], %[[BM]] : index
// CHECK-DAG:      %[[BN:.+]] = arith.constant 256 : index
// CHECK:          %[[N0:.+]] = arith.muli %[[TN]], %[[BN]] : index
// CHECK:          %[[SA:.+]] = memref.alloca() : memref<4x128x64xbf16, 3>
// CHECK:          %[[SB:.+]] = memref.alloca() : memref<4x256x64xbf16, 3>
// CHECK:          %[[ACC:.+]] = memref.alloca() : memref<128x256xf32, 5>
// CHECK:          kgen.tile.pipeline %{{.+}} to %{{.+}} stages 4 load {
// CHECK:            kgen.tile.load %[[A]][%[[M0]], %[[K0:.+]]] bounds(
// CHECK-NEXT:       kgen.tile.load %[[B]][%[[N0]], %[[K0]]] bounds(
// CHECK:            kgen.tile.mma %[[SA]], %[[SB]][%{{.+}}] into %[[ACC]] {transpose_b}
// CHECK:          kgen.tile.epilogue %[[ACC]] into %[[D]][%[[M0]], %[[N0]]]
func.func @cluster(%a: tensor<600x512xbf16>, %b: tensor<1000x512xbf16>) -> tensor<600x1000xbf16> {
  %d = kgen.gemm %a, %b {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 3, epilogue_vector = 8, source = user>} : tensor<600x512xbf16>, tensor<1000x512xbf16> -> tensor<600x1000xbf16>
  return %d : tensor<600x1000xbf16>
}
