// kgen-lower-tiles-to-loops, the CPU execution of tile-level kernels: a
// kernel becomes a function looping over its grid (z, y, x outermost to
// innermost) around its body, a launch a call on buffers whose outputs are
// poisoned first, a pipeline its GPU issue order, and every tile op the loops
// of its definition (KgenTileOps.td). The tile buffers' placement (inside or
// before the grid loops) is the pass's choice: only the BUF run looks at
// the allocations, and only at their types; it also checks that no kgen op
// and no memory space (3: shared, 5: registers) is left anywhere.
// RUN: kgen-opt %s --split-input-file --kgen-lower-tiles-to-loops | FileCheck %s
// RUN: kgen-opt %s --split-input-file --kgen-lower-tiles-to-loops | FileCheck %s --check-prefix=BUF --implicit-check-not=kgen. --implicit-check-not='{{memref<[^>]*, [35]>}}'

//===----------------------------------------------------------------------===//
// Kernels and launches
//===----------------------------------------------------------------------===//

// The grid (2, 3, 4): bz in [0, 4), by in [0, 3), bx in [0, 2), the body
// once per block with the coordinates bound to the loops' induction
// variables; parameters of any layout.
// CHECK-LABEL:  func.func private @grid(
// CHECK-SAME:     %[[IN:.+]]: memref<4x3xf32, strided<[?, ?], offset: ?>>, %[[D:.+]]: memref<4x3x2xf32, strided<[?, ?, ?], offset: ?>>, %[[N:.+]]: memref<2xi32, strided<[?], offset: ?>>) {
// CHECK-DAG:      %[[Z_END:.+]] = arith.constant 4 : index
// CHECK:          scf.for %[[BZ:.+]] = %{{.+}} to %[[Z_END]] step %{{.+}} {
// CHECK-DAG:        %[[Y_END:.+]] = arith.constant 3 : index
// CHECK:            scf.for %[[BY:.+]] = %{{.+}} to %[[Y_END]] step %{{.+}} {
// CHECK-DAG:          %[[X_END:.+]] = arith.constant 2 : index
// CHECK:              scf.for %[[BX:.+]] = %{{.+}} to %[[X_END]] step %{{.+}} {
// CHECK:                %[[V:.+]] = memref.load %[[IN]][%[[BZ]], %[[BY]]]
// CHECK-NEXT:           memref.store %[[V]], %[[D]][%[[BZ]], %[[BY]], %[[BX]]]
// CHECK-NEXT:           %[[I:.+]] = arith.index_cast %[[BX]] : index to i32
// CHECK-NEXT:           memref.store %[[I]], %[[N]][%[[BX]]]
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     return
kgen.kernel @grid grid [2, 3, 4] threads 32 smem 0 attributes {num_outputs = 2, param_names = ["in", "D", "N"]} {
^bb0(%bx: index, %by: index, %bz: index, %in: memref<4x3xf32>, %d: memref<4x3x2xf32>, %n: memref<2xi32>):
  %v = memref.load %in[%bz, %by] : memref<4x3xf32>
  memref.store %v, %d[%bz, %by, %bx] : memref<4x3x2xf32>
  %i = arith.index_cast %bx : index to i32
  memref.store %i, %n[%bx] : memref<2xi32>
}

// Inputs enter as read-only buffers; each output is a fresh buffer filled
// with NaN (integers: 0) before the call, so an element no block writes
// shows, and leaves as a tensor.
// CHECK-LABEL:  func.func @launch(
// CHECK-SAME:     %[[IN_T:.+]]: tensor<4x3xf32>)
// CHECK:          %[[IN_B:.+]] = bufferization.to_buffer %[[IN_T]] read_only : tensor<4x3xf32> to memref<4x3xf32, strided<[?, ?], offset: ?>>
// CHECK:          %[[D_B:.+]] = memref.alloc() : memref<4x3x2xf32>
// CHECK:          %[[NAN:.+]] = arith.constant 0x7FC00000 : f32
// CHECK:          memref.store %[[NAN]], %[[D_B]][
// CHECK:          %[[D_ANY:.+]] = memref.cast %[[D_B]] : memref<4x3x2xf32> to memref<4x3x2xf32, strided<[?, ?, ?], offset: ?>>
// CHECK:          %[[N_B:.+]] = memref.alloc() : memref<2xi32>
// CHECK:          %[[ZERO:.+]] = arith.constant 0 : i32
// CHECK:          memref.store %[[ZERO]], %[[N_B]][
// CHECK:          %[[N_ANY:.+]] = memref.cast %[[N_B]] : memref<2xi32> to memref<2xi32, strided<[?], offset: ?>>
// CHECK:          call @grid(%[[IN_B]], %[[D_ANY]], %[[N_ANY]])
// CHECK-DAG:      %[[D_T:.+]] = bufferization.to_tensor %[[D_B]] restrict writable : memref<4x3x2xf32> to tensor<4x3x2xf32>
// CHECK-DAG:      %[[N_T:.+]] = bufferization.to_tensor %[[N_B]] restrict writable : memref<2xi32> to tensor<2xi32>
// CHECK:          return %[[D_T]], %[[N_T]]
func.func @launch(%in: tensor<4x3xf32>) -> (tensor<4x3x2xf32>, tensor<2xi32>) {
  %d, %n = kgen.launch @grid(%in) : (tensor<4x3xf32>) -> (tensor<4x3x2xf32>, tensor<2xi32>)
  return %d, %n : tensor<4x3x2xf32>, tensor<2xi32>
}

// -----

// Tile buffers in shared memory (3) and registers (5) become plain memory.
// BUF-LABEL:    func.func private @buffers(
// BUF-DAG:        memref.alloca() : memref<2x16x8xbf16>
// BUF-DAG:        memref.alloca() : memref<16x16xf32>
// BUF-NOT:        memref.alloca
// BUF:            return
// CHECK-LABEL:  func.func private @buffers(
// CHECK:          scf.for
// CHECK:            scf.for
// CHECK:              scf.for
// CHECK:                memref.store %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}] : memref<16x16xf32>
// CHECK:                memref.store %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}] : memref<2x16x8xbf16>
kgen.kernel @buffers grid [2, 1, 1] threads 32 smem 512 {
^bb0(%bx: index, %by: index, %bz: index, %src: memref<20x24xbf16>):
  %c0 = arith.constant 0 : index
  %sa = memref.alloca() : memref<2x16x8xbf16, 3>
  %acc = memref.alloca() : memref<16x16xf32, 5>
  kgen.tile.zero %acc : memref<16x16xf32, 5>
  kgen.tile.load %src[%c0, %c0] bounds(%c0, %c0) into %sa[%c0] : memref<20x24xbf16>, memref<2x16x8xbf16, 3>
}

//===----------------------------------------------------------------------===//
// kgen.tile.pipeline: the GPU's issue order
//===----------------------------------------------------------------------===//

// -----

// Tiles [lo, hi) through 3 stages: a prologue loads the first
// min(max(hi - lo, 0), 2) tiles; then for each k, the load of tile k + 2
// (when there is one) comes before the computation on tile k, tile t in
// stage (t - lo) % 3. The regions here log the stage of each tile.
// CHECK-LABEL:  func.func private @pipeline(
// CHECK-SAME:     %[[LOADS:.+]]: memref<16xindex, strided<[?], offset: ?>>, %[[COMPUTES:.+]]: memref<16xindex, strided<[?], offset: ?>>) {
// CHECK:          %[[LO:.+]] = arith.addi %[[BX:.+]], %{{.+}} : index
// CHECK-NEXT:     %[[HI:.+]] = arith.addi %[[BX]], %{{.+}} : index
// CHECK:          %[[COUNT:.+]] = arith.subi %[[HI]], %[[LO]] : index
// CHECK-NEXT:     %[[COUNT_POS:.+]] = arith.maxsi %[[COUNT]], %{{.+}} : index
// CHECK-NEXT:     %[[AHEAD_MAX:.+]] = arith.constant 2 : index
// CHECK-NEXT:     %[[PROLOGUE:.+]] = arith.minsi %[[COUNT_POS]], %[[AHEAD_MAX]] : index
// CHECK:          scf.for %[[I:.+]] = %{{.+}} to %[[PROLOGUE]] step %{{.+}} {
// CHECK-NEXT:       %[[K:.+]] = arith.addi %[[LO]], %[[I]] : index
// CHECK-DAG:        %[[STAGES:.+]] = arith.constant 3 : index
// CHECK-DAG:        %[[REL:.+]] = arith.subi %[[K]], %[[LO]] : index
// CHECK:            %[[STAGE:.+]] = arith.remui %[[REL]], %[[STAGES]] : index
// CHECK-NEXT:       memref.store %[[STAGE]], %[[LOADS]][%[[K]]]
// CHECK-NEXT:     }
// CHECK:          scf.for %[[K:.+]] = %[[LO]] to %[[HI]] step %{{.+}} {
// CHECK-NEXT:       %[[DIST:.+]] = arith.constant 2 : index
// CHECK-NEXT:       %[[AHEAD:.+]] = arith.addi %[[K]], %[[DIST]] : index
// CHECK-NEXT:       %[[EXISTS:.+]] = arith.cmpi slt, %[[AHEAD]], %[[HI]] : index
// CHECK-NEXT:       scf.if %[[EXISTS]] {
// CHECK-DAG:          %[[STAGES:.+]] = arith.constant 3 : index
// CHECK-DAG:          %[[REL:.+]] = arith.subi %[[AHEAD]], %[[LO]] : index
// CHECK:              %[[STAGE:.+]] = arith.remui %[[REL]], %[[STAGES]] : index
// CHECK-NEXT:         memref.store %[[STAGE]], %[[LOADS]][%[[AHEAD]]]
// CHECK-NEXT:       }
// CHECK-DAG:        %[[STAGES:.+]] = arith.constant 3 : index
// CHECK-DAG:        %[[REL:.+]] = arith.subi %[[K]], %[[LO]] : index
// CHECK:            %[[STAGE:.+]] = arith.remui %[[REL]], %[[STAGES]] : index
// CHECK-NEXT:       memref.store %[[STAGE]], %[[COMPUTES]][%[[K]]]
// CHECK-NEXT:     }
kgen.kernel @pipeline grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 2} {
^bb0(%bx: index, %by: index, %bz: index, %loads: memref<16xindex>, %computes: memref<16xindex>):
  %c2 = arith.constant 2 : index
  %c9 = arith.constant 9 : index
  %lo = arith.addi %bx, %c2 : index
  %hi = arith.addi %bx, %c9 : index
  kgen.tile.pipeline %lo to %hi stages 3 load {
  ^bb0(%k: index, %s: index):
    memref.store %s, %loads[%k] : memref<16xindex>
  } compute {
  ^bb0(%k: index, %s: index):
    memref.store %s, %computes[%k] : memref<16xindex>
  }
}

//===----------------------------------------------------------------------===//
// Tile ops, by their definitions
//===----------------------------------------------------------------------===//

// -----

// kgen.tile.zero: every element.
// CHECK-LABEL:  func.func private @zero(
// CHECK-SAME:     %[[T:.+]]: memref<16x8xf32, strided<[?, ?], offset: ?>>) {
// CHECK:          %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:      %[[ROWS:.+]] = arith.constant 16 : index
// CHECK:          scf.for %[[R:.+]] = %{{.+}} to %[[ROWS]] step %{{.+}} {
// CHECK-DAG:        %[[COLS:.+]] = arith.constant 8 : index
// CHECK:            scf.for %[[C:.+]] = %{{.+}} to %[[COLS]] step %{{.+}} {
// CHECK-NEXT:         memref.store %[[ZERO]], %[[T]][%[[R]], %[[C]]]
kgen.kernel @zero grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %t: memref<16x8xf32>):
  kgen.tile.zero %t : memref<16x8xf32>
}

// -----

// kgen.tile.load: dst[stage, r, c] = src[i + r, j + c] inside the bounds
// (and the source), else 0; nothing for a stage outside the buffer. Box at
// (4, 6), bounds (18, 22), stage 2 of 3.
// CHECK-LABEL:  func.func private @load(
// CHECK-SAME:     %[[SRC:.+]]: memref<20x24xbf16, strided<[?, ?], offset: ?>>, %[[DST:.+]]: memref<3x16x8xbf16, strided<[?, ?, ?], offset: ?>>) {
// CHECK-DAG:      %[[I:.+]] = arith.constant 4 : index
// CHECK-DAG:      %[[J:.+]] = arith.constant 6 : index
// CHECK-DAG:      %[[ROWS:.+]] = arith.constant 18 : index
// CHECK-DAG:      %[[COLS:.+]] = arith.constant 22 : index
// CHECK-DAG:      %[[S:.+]] = arith.constant 2 : index
// CHECK-DAG:      %[[NUM_STAGES:.+]] = arith.constant 3 : index
// CHECK-DAG:      %[[S_BELOW:.+]] = arith.cmpi slt, %[[S]], %[[NUM_STAGES]] : index
// CHECK-DAG:      %[[S_ABOVE:.+]] = arith.cmpi sge, %[[S]], %{{.+}} : index
// CHECK:          %[[S_VALID:.+]] = arith.andi %[[S_ABOVE]], %[[S_BELOW]] : i1
// CHECK-NEXT:     scf.if %[[S_VALID]] {
// CHECK-DAG:        %[[BOX_ROWS:.+]] = arith.constant 16 : index
// CHECK:            scf.for %[[R:.+]] = %{{.+}} to %[[BOX_ROWS]] step %{{.+}} {
// CHECK-DAG:          %[[BOX_COLS:.+]] = arith.constant 8 : index
// CHECK:              scf.for %[[C:.+]] = %{{.+}} to %[[BOX_COLS]] step %{{.+}} {
// CHECK-NEXT:           %[[Y:.+]] = arith.addi %[[I]], %[[R]] : index
// CHECK-NEXT:           %[[X:.+]] = arith.addi %[[J]], %[[C]] : index
// CHECK-DAG:            %[[SRC_ROWS:.+]] = arith.constant 20 : index
// CHECK-DAG:            %[[SRC_COLS:.+]] = arith.constant 24 : index
// CHECK-DAG:            %[[Y_END:.+]] = arith.minsi %[[ROWS]], %[[SRC_ROWS]] : index
// CHECK-DAG:            %[[X_END:.+]] = arith.minsi %[[COLS]], %[[SRC_COLS]] : index
// CHECK-DAG:            arith.cmpi slt, %[[Y]], %[[Y_END]] : index
// CHECK-DAG:            arith.cmpi slt, %[[X]], %[[X_END]] : index
// CHECK-DAG:            %[[X_READ:.+]] = arith.select %[[IN:.+]], %[[X]], %{{.+}} : index
// CHECK-DAG:            %[[Y_READ:.+]] = arith.select %[[IN]], %[[Y]], %{{.+}} : index
// CHECK:                %[[V:.+]] = memref.load %[[SRC]][%[[Y_READ]], %[[X_READ]]]
// CHECK-NEXT:           %[[ZERO:.+]] = arith.constant 0.000000e+00 : bf16
// CHECK-NEXT:           %[[V_OR_ZERO:.+]] = arith.select %[[IN]], %[[V]], %[[ZERO]] : bf16
// CHECK-NEXT:           memref.store %[[V_OR_ZERO]], %[[DST]][%[[S]], %[[R]], %[[C]]]
kgen.kernel @load grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %src: memref<20x24xbf16>, %dst: memref<3x16x8xbf16>):
  %i = arith.constant 4 : index
  %j = arith.constant 6 : index
  %rows = arith.constant 18 : index
  %cols = arith.constant 22 : index
  %s = arith.constant 2 : index
  kgen.tile.load %src[%i, %j] bounds(%rows, %cols) into %dst[%s] : memref<20x24xbf16>, memref<3x16x8xbf16>
}

// -----

// kgen.tile.mma: acc[m, n] += sum over k in order of a[s, m, k] * b[s, k, n]
// in f32, for m < 16, n < 32, k < 8 (stage 2 of 3); nothing for a stage
// outside either buffer.
// CHECK-LABEL:  func.func private @mma(
// CHECK-SAME:     %[[A:.+]]: memref<3x16x8xbf16, strided<[?, ?, ?], offset: ?>>, %[[B:.+]]: memref<3x8x32xbf16, strided<[?, ?, ?], offset: ?>>, %[[ACC:.+]]: memref<16x32xf32, strided<[?, ?], offset: ?>>) {
// CHECK:          %[[S:.+]] = arith.constant 2 : index
// CHECK:          scf.if %{{.+}} {
// CHECK-DAG:        %[[BM:.+]] = arith.constant 16 : index
// CHECK:            scf.for %[[M:.+]] = %{{.+}} to %[[BM]] step %{{.+}} {
// CHECK-DAG:          %[[BN:.+]] = arith.constant 32 : index
// CHECK:              scf.for %[[N:.+]] = %{{.+}} to %[[BN]] step %{{.+}} {
// CHECK-NEXT:           %[[CUR:.+]] = memref.load %[[ACC]][%[[M]], %[[N]]]
// CHECK-DAG:            %[[BK:.+]] = arith.constant 8 : index
// CHECK:                %[[SUM:.+]] = scf.for %[[K:.+]] = %{{.+}} to %[[BK]] step %{{.+}} iter_args(%[[PART:.+]] = %[[CUR]]) -> (f32) {
// CHECK-NEXT:             %[[AV:.+]] = memref.load %[[A]][%[[S]], %[[M]], %[[K]]]
// CHECK-NEXT:             %[[AF:.+]] = arith.extf %[[AV]] : bf16 to f32
// CHECK-NEXT:             %[[BV:.+]] = memref.load %[[B]][%[[S]], %[[K]], %[[N]]]
// CHECK-NEXT:             %[[BF:.+]] = arith.extf %[[BV]] : bf16 to f32
// CHECK-NEXT:             %[[PROD:.+]] = arith.mulf %[[AF]], %[[BF]] : f32
// CHECK-NEXT:             %[[NEXT:.+]] = arith.addf %[[PART]], %[[PROD]] : f32
// CHECK-NEXT:             scf.yield %[[NEXT]] : f32
// CHECK-NEXT:           }
// CHECK-NEXT:           memref.store %[[SUM]], %[[ACC]][%[[M]], %[[N]]]
kgen.kernel @mma grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %a: memref<3x16x8xbf16>, %b: memref<3x8x32xbf16>, %acc: memref<16x32xf32>):
  %s = arith.constant 2 : index
  kgen.tile.mma %a, %b[%s] into %acc : memref<3x16x8xbf16>, memref<3x8x32xbf16>, memref<16x32xf32>
}

// -----

// Transposed tiles, a[s, k, m] and b[s, n, k]; with acc_f16 the running sum
// is rounded to f16 after every step.
// CHECK-LABEL:  func.func private @mma_transposed_f16(
// CHECK-SAME:     %[[A:.+]]: memref<3x8x16xf16, strided<[?, ?, ?], offset: ?>>, %[[B:.+]]: memref<3x32x8xf16, strided<[?, ?, ?], offset: ?>>, %[[ACC:.+]]: memref<16x32xf32, strided<[?, ?], offset: ?>>) {
// CHECK:          %[[S:.+]] = arith.constant 2 : index
// CHECK:          scf.if %{{.+}} {
// CHECK-DAG:        %[[BM:.+]] = arith.constant 16 : index
// CHECK:            scf.for %[[M:.+]] = %{{.+}} to %[[BM]] step %{{.+}} {
// CHECK-DAG:          %[[BN:.+]] = arith.constant 32 : index
// CHECK:              scf.for %[[N:.+]] = %{{.+}} to %[[BN]] step %{{.+}} {
// CHECK:                scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[PART:.+]] = %{{.+}}) -> (f32) {
// CHECK-NEXT:             memref.load %[[A]][%[[S]], %[[K]], %[[M]]]
// CHECK:                  memref.load %[[B]][%[[S]], %[[N]], %[[K]]]
// CHECK:                  %[[NEXT:.+]] = arith.addf %[[PART]], %{{.+}} : f32
// CHECK-NEXT:             %[[HALF:.+]] = arith.truncf %[[NEXT]] : f32 to f16
// CHECK-NEXT:             %[[ROUNDED:.+]] = arith.extf %[[HALF]] : f16 to f32
// CHECK-NEXT:             scf.yield %[[ROUNDED]] : f32
kgen.kernel @mma_transposed_f16 grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %a: memref<3x8x16xf16>, %b: memref<3x32x8xf16>, %acc: memref<16x32xf32>):
  %s = arith.constant 2 : index
  kgen.tile.mma %a, %b[%s] into %acc {transpose_a, transpose_b, acc_f16} : memref<3x8x16xf16>, memref<3x32x8xf16>, memref<16x32xf32>
}

// -----

// kgen.tile.accumulate: acc[r, c] += src[p, i + r, j + c] inside the bounds,
// the leading (split) index clamped into the buffer for the read and
// checked for the condition.
// CHECK-LABEL:  func.func private @accumulate(
// CHECK-SAME:     %[[W:.+]]: memref<3x20x24xf32, strided<[?, ?, ?], offset: ?>>, %[[ACC:.+]]: memref<16x8xf32, strided<[?, ?], offset: ?>>) {
// CHECK-DAG:      %[[P:.+]] = arith.constant 2 : index
// CHECK-DAG:      %[[I:.+]] = arith.constant 4 : index
// CHECK-DAG:      %[[J:.+]] = arith.constant 6 : index
// CHECK-DAG:        %[[BOX_ROWS:.+]] = arith.constant 16 : index
// CHECK:            scf.for %[[R:.+]] = %{{.+}} to %[[BOX_ROWS]] step %{{.+}} {
// CHECK-DAG:          %[[BOX_COLS:.+]] = arith.constant 8 : index
// CHECK:              scf.for %[[C:.+]] = %{{.+}} to %[[BOX_COLS]] step %{{.+}} {
// CHECK-NEXT:           %[[Y:.+]] = arith.addi %[[I]], %[[R]] : index
// CHECK-NEXT:           %[[X:.+]] = arith.addi %[[J]], %[[C]] : index
// CHECK-DAG:            %[[SPLITS:.+]] = arith.constant 3 : index
// CHECK-DAG:            arith.cmpi slt, %[[P]], %[[SPLITS]] : index
// CHECK-DAG:            %[[X_READ:.+]] = arith.select %[[IN:.+]], %[[X]], %{{.+}} : index
// CHECK-DAG:            %[[Y_READ:.+]] = arith.select %[[IN]], %[[Y]], %{{.+}} : index
// CHECK-DAG:            %[[P_ABOVE:.+]] = arith.maxsi %[[P]], %{{.+}} : index
// CHECK-DAG:            %[[P_READ:.+]] = arith.minsi %[[P_ABOVE]], %{{.+}} : index
// CHECK:                %[[CUR:.+]] = memref.load %[[ACC]][%[[R]], %[[C]]]
// CHECK-NEXT:           %[[V:.+]] = memref.load %[[W]][%[[P_READ]], %[[Y_READ]], %[[X_READ]]]
// CHECK-NEXT:           %[[SUM:.+]] = arith.addf %[[CUR]], %[[V]] : f32
// CHECK-NEXT:           %[[NEW:.+]] = arith.select %[[IN]], %[[SUM]], %[[CUR]] : f32
// CHECK-NEXT:           memref.store %[[NEW]], %[[ACC]][%[[R]], %[[C]]]
kgen.kernel @accumulate grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %w: memref<3x20x24xf32>, %acc: memref<16x8xf32>):
  %p = arith.constant 2 : index
  %i = arith.constant 4 : index
  %j = arith.constant 6 : index
  %rows = arith.constant 18 : index
  %cols = arith.constant 22 : index
  kgen.tile.accumulate %w[%p, %i, %j] bounds(%rows, %cols) into %acc : memref<3x20x24xf32>, memref<16x8xf32>
}

// -----

// kgen.tile.store: dst[i + r, j + c] = acc[r, c], only inside the bounds.
// CHECK-LABEL:  func.func private @store(
// CHECK-SAME:     %[[ACC:.+]]: memref<16x8xf32, strided<[?, ?], offset: ?>>, %[[W:.+]]: memref<20x24xf32, strided<[?, ?], offset: ?>>) {
// CHECK-DAG:        %[[BOX_ROWS:.+]] = arith.constant 16 : index
// CHECK:            scf.for %[[R:.+]] = %{{.+}} to %[[BOX_ROWS]] step %{{.+}} {
// CHECK-DAG:          %[[BOX_COLS:.+]] = arith.constant 8 : index
// CHECK:              scf.for %[[C:.+]] = %{{.+}} to %[[BOX_COLS]] step %{{.+}} {
// CHECK-DAG:            %[[X_WRITE:.+]] = arith.select %[[IN:.+]], %{{.+}}, %{{.+}} : index
// CHECK-DAG:            %[[Y_WRITE:.+]] = arith.select %[[IN]], %{{.+}}, %{{.+}} : index
// CHECK:                scf.if %[[IN]] {
// CHECK-NEXT:             %[[V:.+]] = memref.load %[[ACC]][%[[R]], %[[C]]]
// CHECK-NEXT:             memref.store %[[V]], %[[W]][%[[Y_WRITE]], %[[X_WRITE]]]
// CHECK-NEXT:           }
kgen.kernel @store grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %acc: memref<16x8xf32>, %w: memref<20x24xf32>):
  %i = arith.constant 4 : index
  %j = arith.constant 6 : index
  %rows = arith.constant 18 : index
  %cols = arith.constant 22 : index
  kgen.tile.store %acc into %w[%i, %j] bounds(%rows, %cols) : memref<16x8xf32>, memref<20x24xf32>
}

// -----

// kgen.tile.epilogue: dst[y, x] = act(alpha * acc[r, c] + beta * C[y, x] +
// bias[x]) in f32 in that order, rounded once, only inside the bounds.
// CHECK-LABEL:  func.func private @epilogue(
// CHECK-SAME:     %[[ACC:.+]]: memref<16x8xf32, strided<[?, ?], offset: ?>>, %[[BIAS:.+]]: memref<24xf32, strided<[?], offset: ?>>, %[[C_IN:.+]]: memref<20x24xbf16, strided<[?, ?], offset: ?>>, %[[D:.+]]: memref<20x24xbf16, strided<[?, ?], offset: ?>>) {
// CHECK-DAG:      %[[J:.+]] = arith.constant 6 : index
// CHECK-DAG:        %[[BOX_ROWS:.+]] = arith.constant 16 : index
// CHECK:            scf.for %[[R:.+]] = %{{.+}} to %[[BOX_ROWS]] step %{{.+}} {
// CHECK-DAG:          %[[BOX_COLS:.+]] = arith.constant 8 : index
// CHECK:              scf.for %[[C:.+]] = %{{.+}} to %[[BOX_COLS]] step %{{.+}} {
// CHECK:                %[[X:.+]] = arith.addi %[[J]], %[[C]] : index
// CHECK-DAG:            %[[X_AT:.+]] = arith.select %[[IN:.+]], %[[X]], %{{.+}} : index
// CHECK-DAG:            %[[Y_AT:.+]] = arith.select %[[IN]], %{{.+}}, %{{.+}} : index
// CHECK:                scf.if %[[IN]] {
// CHECK-NEXT:             %[[A:.+]] = memref.load %[[ACC]][%[[R]], %[[C]]]
// CHECK-NEXT:             %[[ALPHA:.+]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:             %[[SCALED:.+]] = arith.mulf %[[ALPHA]], %[[A]] : f32
// CHECK-DAG:              %[[CV:.+]] = memref.load %[[C_IN]][%[[Y_AT]], %[[X_AT]]]
// CHECK-DAG:              %[[CF:.+]] = arith.extf %[[CV]] : bf16 to f32
// CHECK-DAG:              %[[BETA:.+]] = arith.constant 5.000000e-01 : f32
// CHECK:                  %[[RES:.+]] = arith.mulf %[[BETA]], %[[CF]] : f32
// CHECK-NEXT:             %[[WITH_RES:.+]] = arith.addf %[[SCALED]], %[[RES]] : f32
// CHECK-NEXT:             %[[BV:.+]] = memref.load %[[BIAS]][%[[X]]]
// CHECK-NEXT:             %[[WITH_BIAS:.+]] = arith.addf %[[WITH_RES]], %[[BV]] : f32
// CHECK-NEXT:             %[[FZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:             %[[RELU:.+]] = arith.maximumf %[[WITH_BIAS]], %[[FZERO]] : f32
// CHECK-NEXT:             %[[OUT:.+]] = arith.truncf %[[RELU]] : f32 to bf16
// CHECK-NEXT:             memref.store %[[OUT]], %[[D]][%[[Y_AT]], %[[X_AT]]]
// CHECK-NEXT:           }
kgen.kernel @epilogue grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %acc: memref<16x8xf32>, %bias: memref<24xf32>, %c: memref<20x24xbf16>, %d: memref<20x24xbf16>):
  %i = arith.constant 4 : index
  %j = arith.constant 6 : index
  %rows = arith.constant 18 : index
  %cols = arith.constant 22 : index
  kgen.tile.epilogue %acc into %d[%i, %j] bounds(%rows, %cols) bias(%bias : memref<24xf32>) residual(%c : memref<20x24xbf16>) {alpha = 2.0 : f32, beta = 0.5 : f32, activation = #kgen.activation<relu>} : memref<16x8xf32>, memref<20x24xbf16>
}
