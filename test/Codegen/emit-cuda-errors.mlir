// The emitter trusts the families' legality (dialect/GemmLegality.h) and has
// no rules of its own: a hand-written tile-level kernel whose config does not
// lower for its operands gets the legality's answer, naming the field.
// (Through kgen.gemm the verifier refuses these configs first:
// test/Dialect/gemm-config-invalid.mlir.)
// RUN: not kgen-translate %s --split-input-file --kgen-emit-cuda 2>&1 | FileCheck %s
// RUN: not kgen-opt %s --split-input-file --kgen-emit-packages=output-dir=%t 2>&1 | FileCheck %s
// A refusal is a line or two, not the kernel's IR (unless asked for).
// RUN: not kgen-translate %s --split-input-file --kgen-emit-cuda 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: not kgen-opt %s --split-input-file --kgen-emit-packages=output-dir=%t 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: not kgen-translate %s --split-input-file --kgen-emit-cuda --mlir-print-op-on-diagnostic 2>&1 | FileCheck %s --check-prefix=ASKED
// SHORT-NOT: see current operation
// ASKED: see current operation

// An e4m3 wgmma kernel with 64-element K rows: 64 bytes, not the swizzle's 128.
// CHECK: error: 'kgen.kernel' op config does not lower: gemm_config 'block_k': 64; wgmma tiles have 128-byte swizzled K rows: expected 128 for f8E4M3FN
kgen.kernel @fp8_short_k grid [2, 1, 1] threads 384 smem 1024 attributes {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>, param_names = ["A", "B", "D"]} {
^bb0(%bx: index, %by: index, %bz: index, %a: memref<256x512xf8E4M3FN>, %b: memref<256x512xf8E4M3FN>, %d: memref<256x256xbf16>):
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  %m0 = arith.muli %bx, %c128 : index
  %sa = memref.alloca() : memref<4x128x64xf8E4M3FN, 3>
  %sb = memref.alloca() : memref<4x256x64xf8E4M3FN, 3>
  %acc = memref.alloca() : memref<128x256xf32, 5>
  kgen.tile.zero %acc : memref<128x256xf32, 5>
  kgen.tile.pipeline %c0 to %c8 stages 4 load {
  ^bb0(%k: index, %s: index):
    %k0 = arith.muli %k, %c128 : index
    kgen.tile.load %a[%m0, %k0] bounds(%c256, %c512) into %sa[%s] : memref<256x512xf8E4M3FN>, memref<4x128x64xf8E4M3FN, 3>
    kgen.tile.load %b[%c0, %k0] bounds(%c256, %c512) into %sb[%s] : memref<256x512xf8E4M3FN>, memref<4x256x64xf8E4M3FN, 3>
  } compute {
  ^bb0(%k: index, %s: index):
    kgen.tile.mma %sa, %sb[%s] into %acc {transpose_b} : memref<4x128x64xf8E4M3FN, 3>, memref<4x256x64xf8E4M3FN, 3>, memref<128x256xf32, 5>
  }
  kgen.tile.epilogue %acc into %d[%m0, %c0] bounds(%c256, %c256) {activation = #kgen.activation<none>, alpha = 1.000000e+00 : f32, beta = 0.000000e+00 : f32} : memref<128x256xf32, 5>, memref<256x256xbf16>
}

// -----

// An mma_sync kernel accumulating in f16.
// CHECK: error: 'kgen.kernel' op config does not lower: gemm_config 'instruction': acc_type f16: no kernel family accumulates in f16
kgen.kernel @f16_acc grid [1, 1, 1] threads 32 smem 2048 attributes {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>, param_names = ["A", "B", "D"]} {
^bb0(%bx: index, %by: index, %bz: index, %a: memref<16x16xf16>, %b: memref<16x16xf16>, %d: memref<16x16xf16>):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %sa = memref.alloca() : memref<2x16x16xf16, 3>
  %sb = memref.alloca() : memref<2x16x16xf16, 3>
  %acc = memref.alloca() : memref<16x16xf32, 5>
  kgen.tile.zero %acc : memref<16x16xf32, 5>
  kgen.tile.pipeline %c0 to %c1 stages 2 load {
  ^bb0(%k: index, %s: index):
    kgen.tile.load %a[%c0, %c0] bounds(%c16, %c16) into %sa[%s] : memref<16x16xf16>, memref<2x16x16xf16, 3>
    kgen.tile.load %b[%c0, %c0] bounds(%c16, %c16) into %sb[%s] : memref<16x16xf16>, memref<2x16x16xf16, 3>
  } compute {
  ^bb0(%k: index, %s: index):
    kgen.tile.mma %sa, %sb[%s] into %acc {acc_f16} : memref<2x16x16xf16, 3>, memref<2x16x16xf16, 3>, memref<16x16xf32, 5>
  }
  kgen.tile.epilogue %acc into %d[%c0, %c0] bounds(%c16, %c16) {activation = #kgen.activation<none>, alpha = 1.000000e+00 : f32, beta = 0.000000e+00 : f32} : memref<16x16xf32, 5>, memref<16x16xf16>
}

// -----

// A parameter may not take a name the emitted kernel gives its own values.
// CHECK: error: 'kgen.kernel' op parameter name 'acc' is one the emitted kernel gives its own values (block coordinates, buffers, loop indices): rename the parameter
kgen.kernel @param_named_acc grid [1, 1, 1] threads 32 smem 2048 attributes {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, block_k = 16, warps_m = 1, warps_n = 1, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>, param_names = ["A", "acc", "D"]} {
^bb0(%bx: index, %by: index, %bz: index, %a: memref<16x16xbf16>, %b: memref<16x16xbf16>, %d: memref<16x16xbf16>):
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %sa = memref.alloca() : memref<2x16x16xbf16, 3>
  %sb = memref.alloca() : memref<2x16x16xbf16, 3>
  %acc = memref.alloca() : memref<16x16xf32, 5>
  kgen.tile.zero %acc : memref<16x16xf32, 5>
  kgen.tile.pipeline %c0 to %c1 stages 2 load {
  ^bb0(%k: index, %s: index):
    kgen.tile.load %a[%c0, %c0] bounds(%c16, %c16) into %sa[%s] : memref<16x16xbf16>, memref<2x16x16xbf16, 3>
    kgen.tile.load %b[%c0, %c0] bounds(%c16, %c16) into %sb[%s] : memref<16x16xbf16>, memref<2x16x16xbf16, 3>
  } compute {
  ^bb0(%k: index, %s: index):
    kgen.tile.mma %sa, %sb[%s] into %acc : memref<2x16x16xbf16, 3>, memref<2x16x16xbf16, 3>, memref<16x16xf32, 5>
  }
  kgen.tile.epilogue %acc into %d[%c0, %c0] bounds(%c16, %c16) {activation = #kgen.activation<none>, alpha = 1.000000e+00 : f32, beta = 0.000000e+00 : f32} : memref<16x16xf32, 5>, memref<16x16xbf16>
}
