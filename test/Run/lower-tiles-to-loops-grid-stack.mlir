// kgen-lower-tiles-to-loops allocates a kernel's tile buffers (shared
// memory stages, accumulators) once, before the loops over the grid: an
// alloca inside them took new stack at every block (scf.for frees nothing
// per iteration once lowered to LLVM), so a grid of 64 blocks of 128 KiB
// overflowed an 8 MiB stack. Every block reuses the buffers, as a GPU block
// gets shared memory of undefined contents.
// RUN: kgen-opt %s --split-input-file --kgen-lower-gemm-to-tiles --kgen-lower-tiles-to-loops | FileCheck %s

// Split-K: the main kernel's stages and accumulator, and the reduction
// kernel's accumulator, precede the grid loops (bz, by, bx) and nothing is
// allocated inside them.
// CHECK-LABEL: func.func private @kgen_gemm_bf16_m30_n40_k96(
// CHECK-NEXT:    %[[SA:.+]] = memref.alloca() : memref<2x16x16xbf16>
// CHECK-NEXT:    %[[SB:.+]] = memref.alloca() : memref<2x16x16xbf16>
// CHECK-NEXT:    %[[ACC:.+]] = memref.alloca() : memref<16x16xf32>
// CHECK-NOT:     memref.alloca
// CHECK:         scf.for %[[BZ:.+]] = %{{.+}} to %{{.+}}
// CHECK-NOT:     memref.alloca
// CHECK:           scf.for %[[BY:.+]] = %{{.+}} to %{{.+}}
// CHECK-NOT:       memref.alloca
// CHECK:             scf.for %[[BX:.+]] = %{{.+}} to %{{.+}}
// CHECK-NOT:         memref.alloca
// CHECK:               memref.store %{{.+}}, %[[SA]][
// CHECK-NOT:         memref.alloca
// CHECK:               memref.store %{{.+}}, %[[SB]][
// CHECK-NOT:         memref.alloca
// CHECK:               memref.store %{{.+}}, %[[ACC]][
// CHECK-NOT:     memref.alloca
// CHECK:         return
// CHECK-LABEL: func.func private @kgen_gemm_bf16_m30_n40_k96_splitk_reduce(
// CHECK-NEXT:    memref.alloca() : memref<16x16xf32>
// CHECK-NOT:     memref.alloca
// CHECK:         scf.for
// CHECK-NOT:     memref.alloca
// CHECK:         return
// CHECK-LABEL: func.func @split_k(
func.func @split_k(%a: tensor<30x96xbf16>, %b: tensor<96x40xbf16>) -> tensor<30x40xf32> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 2, raster_group = 8, epilogue_vector = 4, source = user>} : tensor<30x96xbf16>, tensor<96x40xbf16> -> tensor<30x40xf32>
  return %d : tensor<30x40xf32>
}

// -----

// Hand-written tile IR: a statically shaped buffer moves out from any depth
// (here a loop of the body), in plain memory; a dynamically sized one cannot
// and stays where it is.
// CHECK-LABEL: func.func private @hand(
// CHECK-NEXT:    memref.alloca() : memref<8xf32>
// CHECK-NOT:     memref.alloca
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             scf.for %[[BX:.+]] = %{{.+}} to %{{.+}}
// CHECK:               scf.for
// CHECK-NEXT:            memref.alloca(%[[BX]]) : memref<?xf32>
// CHECK-NOT:     memref.alloca
// CHECK:         return
kgen.kernel @hand grid [4, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %out: memref<4x8xf32>):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %c2 step %c1 {
    %t = memref.alloca() : memref<8xf32, 5>
    %d = memref.alloca(%bx) : memref<?xf32>
  }
}
