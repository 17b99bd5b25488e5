// kgen-lower-to-loops is the reference of the tensor-level ops only: the
// tile-level form (kgen-lower-gemm-to-tiles' output) is run on the CPU by
// kgen-lower-tiles-to-loops, and here an op without a reference lowering
// is refused.
// RUN: kgen-opt %s --kgen-lower-to-loops --verify-diagnostics

kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %d: memref<4x4xf32>):
  kgen.tile.zero %d : memref<4x4xf32>
}

func.func @launch() -> tensor<4x4xf32> {
  // expected-error @+1 {{'kgen.launch' op has no reference lowering}}
  %d = kgen.launch @k() : () -> tensor<4x4xf32>
  return %d : tensor<4x4xf32>
}
