// One case per diagnostic of dialect/KgenTileOps.cpp (each call site of the
// shared stage-buffer, accumulator and global-operand checks with its own
// operand name), plus the declarative constraints of KgenTileOps.td that a
// hand-written kernel can break. Round trips are in tile-ops.mlir.
// RUN: kgen-opt %s --split-input-file --verify-diagnostics

//===----------------------------------------------------------------------===//
// kgen.kernel
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'grid' must be three positive extents [x, y, z]}}
kgen.kernel @grid_rank grid [4, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %d: memref<4xf32>):
}

// -----

// expected-error @+1 {{'grid' must be three positive extents [x, y, z]}}
kgen.kernel @grid_zero grid [4, 0, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %d: memref<4xf32>):
}

// -----

// expected-error @+1 {{'grid' must be three positive extents [x, y, z]}}
kgen.kernel @grid_negative grid [4, 1, -2] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %d: memref<4xf32>):
}

// -----

// expected-error @+1 {{'threads' is 0; expected 1 to 1024}}
kgen.kernel @threads_zero grid [1, 1, 1] threads 0 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %d: memref<4xf32>):
}

// -----

// expected-error @+1 {{'threads' is -32; expected 1 to 1024}}
kgen.kernel @threads_negative grid [1, 1, 1] threads -32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %d: memref<4xf32>):
}

// -----

// expected-error @+1 {{'threads' is 1025; expected 1 to 1024}}
kgen.kernel @threads_too_many grid [1, 1, 1] threads 1025 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %d: memref<4xf32>):
}

// -----

// expected-error @+1 {{'smem_bytes' must be non-negative}}
kgen.kernel @smem_negative grid [1, 1, 1] threads 32 smem -16 {
^bb0(%bx: index, %by: index, %bz: index, %d: memref<4xf32>):
}

// -----

// expected-error @+1 {{body must start with three index arguments (the block coordinates x, y, z)}}
kgen.kernel @two_coordinates grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index):
}

// -----

// No block label: a body without arguments.
// expected-error @+1 {{body must start with three index arguments (the block coordinates x, y, z)}}
kgen.kernel @no_coordinates grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
  %c0 = arith.constant 0 : index
}

// -----

// expected-error @+1 {{body must start with three index arguments (the block coordinates x, y, z)}}
kgen.kernel @coordinate_not_index grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: i32, %bz: index, %d: memref<4xf32>):
}

// -----

// expected-error @+1 {{'param_names' has 1 names for 2 parameters}}
kgen.kernel @param_names_count grid [1, 1, 1] threads 32 smem 0 attributes {param_names = ["A"]} {
^bb0(%bx: index, %by: index, %bz: index, %a: memref<4xf32>, %d: memref<4xf32>):
}

// -----

// The default num_outputs (1) needs a parameter.
// expected-error @+1 {{'num_outputs' must be between 0 and the number of parameters}}
kgen.kernel @num_outputs_default_no_params grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index):
}

// -----

// expected-error @+1 {{'num_outputs' must be between 0 and the number of parameters}}
kgen.kernel @num_outputs_too_many grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 3} {
^bb0(%bx: index, %by: index, %bz: index, %a: memref<4xf32>, %d: memref<4xf32>):
}

// -----

// expected-error @+1 {{'num_outputs' must be between 0 and the number of parameters}}
kgen.kernel @num_outputs_negative grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = -1} {
^bb0(%bx: index, %by: index, %bz: index, %d: memref<4xf32>):
}

// -----

// expected-error @+1 {{parameter 1 must be a memref; got 'tensor<4xf32>'}}
kgen.kernel @param_tensor grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %a: memref<4xf32>, %d: tensor<4xf32>):
}

// -----

// expected-error @+1 {{parameter 0 must be a memref; got 'f32'}}
kgen.kernel @param_scalar grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %alpha: f32, %d: memref<4xf32>):
}

// -----

// Declarative: the optional attributes' kinds.
// expected-error @+1 {{attribute 'config' failed to satisfy constraint}}
kgen.kernel @config_not_gemm_config grid [1, 1, 1] threads 32 smem 0 attributes {config = 1 : i64} {
^bb0(%bx: index, %by: index, %bz: index, %d: memref<4xf32>):
}

// -----

// expected-error @+1 {{attribute 'param_names' failed to satisfy constraint: string array attribute}}
kgen.kernel @param_names_not_strings grid [1, 1, 1] threads 32 smem 0 attributes {param_names = [1]} {
^bb0(%bx: index, %by: index, %bz: index, %d: memref<4xf32>):
}

// -----

// expected-error @+1 {{attribute 'signature' failed to satisfy constraint: dictionary of named attribute values}}
kgen.kernel @signature_not_dictionary grid [1, 1, 1] threads 32 smem 0 attributes {signature = "gemm"} {
^bb0(%bx: index, %by: index, %bz: index, %d: memref<4xf32>):
}

// -----

// Declarative: one block (SizedRegion<1>, SingleBlock).
// expected-error @+1 {{expects region #0 to have 0 or 1 blocks}}
kgen.kernel @two_blocks grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %d: memref<4xf32>):
  cf.br ^bb1
^bb1:
}

// -----

// Declarative: IsolatedFromAbove, the body sees only its arguments.
%outside = arith.constant 4 : index
// expected-note @+1 {{required by region isolation constraints}}
kgen.kernel @captures grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %d: memref<4xf32>):
  // expected-error @+1 {{using value defined outside the region}}
  %y = arith.addi %bx, %outside : index
}

//===----------------------------------------------------------------------===//
// kgen.launch
//===----------------------------------------------------------------------===//

// -----

func.func @launch_unknown(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{no kgen.kernel named @missing}}
  %d = kgen.launch @missing(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// A symbol that is not a kernel.
func.func private @not_a_kernel(tensor<4xf32>) -> tensor<4xf32>

func.func @launch_function(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{no kgen.kernel named @not_a_kernel}}
  %d = kgen.launch @not_a_kernel(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %a: memref<4xf32>, %d: memref<4xf32>):
}

func.func @launch_param_count(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{kernel @k takes 2 parameters; the launch passes 2 inputs and 1 results}}
  %d = kgen.launch @k(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %a: memref<4xf32>, %d: memref<4xf32>):
}

func.func @launch_input_shape(%a: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand or result 0 of type 'tensor<8xf32>' does not match kernel parameter 'memref<4xf32>'}}
  %d = kgen.launch @k(%a) : (tensor<8xf32>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// Results are counted after the inputs.
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %a: memref<4xf32>, %d: memref<4xf32>):
}

func.func @launch_result_element_type(%a: tensor<4xf32>) -> tensor<4xbf16> {
  // expected-error @+1 {{operand or result 1 of type 'tensor<4xbf16>' does not match kernel parameter 'memref<4xf32>'}}
  %d = kgen.launch @k(%a) : (tensor<4xf32>) -> tensor<4xbf16>
  return %d : tensor<4xbf16>
}

// -----

// Declarative: launches take and give ranked tensors.
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %a: memref<4xf32>, %d: memref<4xf32>):
}

func.func @launch_memref(%a: memref<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{operand #0 must be variadic of ranked tensor of any type values, but got 'memref<4xf32>'}}
  %d = kgen.launch @k(%a) : (memref<4xf32>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// kgen.tile.load
//===----------------------------------------------------------------------===//

// -----

kgen.kernel @load_src_rank1 grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index, %src: memref<64xf32>):
  %c0 = arith.constant 0 : index
  %buf = memref.alloca() : memref<2x16x16xf32, 3>
  // expected-error @+1 {{'src' must have rank 2 or more; got 'memref<64xf32>'}}
  kgen.tile.load %src[%c0] bounds(%c0, %c0) into %buf[%c0] : memref<64xf32>, memref<2x16x16xf32, 3>
}

// -----

kgen.kernel @load_src_indices grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index, %src: memref<2x64x64xf32>):
  %c0 = arith.constant 0 : index
  %buf = memref.alloca() : memref<2x16x16xf32, 3>
  // expected-error @+1 {{'src' has rank 3 but 2 indices}}
  kgen.tile.load %src[%c0, %c0] bounds(%c0, %c0) into %buf[%c0] : memref<2x64x64xf32>, memref<2x16x16xf32, 3>
}

// -----

kgen.kernel @load_dst_rank2 grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index, %src: memref<64x64xf32>):
  %c0 = arith.constant 0 : index
  %buf = memref.alloca() : memref<16x16xf32, 3>
  // expected-error @+1 {{'dst' must be a static [stages, rows, cols] buffer; got 'memref<16x16xf32, 3>'}}
  kgen.tile.load %src[%c0, %c0] bounds(%c0, %c0) into %buf[%c0] : memref<64x64xf32>, memref<16x16xf32, 3>
}

// -----

kgen.kernel @load_dst_dynamic grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index, %src: memref<64x64xf32>, %buf: memref<?x16x16xf32>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'dst' must be a static [stages, rows, cols] buffer; got 'memref<?x16x16xf32>'}}
  kgen.tile.load %src[%c0, %c0] bounds(%c0, %c0) into %buf[%c0] : memref<64x64xf32>, memref<?x16x16xf32>
}

// -----

kgen.kernel @load_element_type grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index, %src: memref<64x64xbf16>):
  %c0 = arith.constant 0 : index
  %buf = memref.alloca() : memref<2x16x16xf16, 3>
  // expected-error @+1 {{'dst' element type 'f16' differs from 'src' element type 'bf16'}}
  kgen.tile.load %src[%c0, %c0] bounds(%c0, %c0) into %buf[%c0] : memref<64x64xbf16>, memref<2x16x16xf16, 3>
}

// -----

// Declarative: tile operands are memrefs. The custom form cannot even
// spell another type; the generic form reaches the ODS check.
func.func @load_tensor(%src: tensor<64x64xf32>, %buf: memref<2x16x16xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{invalid kind of type specified: expected builtin.memref, but found 'tensor<64x64xf32>'}}
  kgen.tile.load %src[%c0, %c0] bounds(%c0, %c0) into %buf[%c0] : tensor<64x64xf32>, memref<2x16x16xf32>
  return
}

// -----

func.func @zero_tensor(%t: tensor<16x16xf32>) {
  // expected-error @+1 {{operand #0 must be memref of any type values, but got 'tensor<16x16xf32>'}}
  "kgen.tile.zero"(%t) : (tensor<16x16xf32>) -> ()
  return
}

//===----------------------------------------------------------------------===//
// kgen.tile.mma
//===----------------------------------------------------------------------===//

// -----

kgen.kernel @mma_a_rank2 grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index):
  %c0 = arith.constant 0 : index
  %a = memref.alloca() : memref<16x8xf16, 3>
  %b = memref.alloca() : memref<2x8x16xf16, 3>
  %acc = memref.alloca() : memref<16x16xf32, 5>
  // expected-error @+1 {{'a' must be a static [stages, rows, cols] buffer; got 'memref<16x8xf16, 3>'}}
  kgen.tile.mma %a, %b[%c0] into %acc : memref<16x8xf16, 3>, memref<2x8x16xf16, 3>, memref<16x16xf32, 5>
}

// -----

kgen.kernel @mma_b_dynamic grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index, %b: memref<2x8x?xf16>):
  %c0 = arith.constant 0 : index
  %a = memref.alloca() : memref<2x16x8xf16, 3>
  %acc = memref.alloca() : memref<16x16xf32, 5>
  // expected-error @+1 {{'b' must be a static [stages, rows, cols] buffer; got 'memref<2x8x?xf16>'}}
  kgen.tile.mma %a, %b[%c0] into %acc : memref<2x16x8xf16, 3>, memref<2x8x?xf16>, memref<16x16xf32, 5>
}

// -----

kgen.kernel @mma_acc_f16 grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index):
  %c0 = arith.constant 0 : index
  %a = memref.alloca() : memref<2x16x8xf16, 3>
  %b = memref.alloca() : memref<2x8x16xf16, 3>
  %acc = memref.alloca() : memref<16x16xf16, 5>
  // expected-error @+1 {{'acc' must be a static [rows, cols] f32 buffer; got 'memref<16x16xf16, 5>'}}
  kgen.tile.mma %a, %b[%c0] into %acc : memref<2x16x8xf16, 3>, memref<2x8x16xf16, 3>, memref<16x16xf16, 5>
}

// -----

kgen.kernel @mma_acc_rank3 grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index):
  %c0 = arith.constant 0 : index
  %a = memref.alloca() : memref<2x16x8xf16, 3>
  %b = memref.alloca() : memref<2x8x16xf16, 3>
  %acc = memref.alloca() : memref<1x16x16xf32, 5>
  // expected-error @+1 {{'acc' must be a static [rows, cols] f32 buffer; got 'memref<1x16x16xf32, 5>'}}
  kgen.tile.mma %a, %b[%c0] into %acc : memref<2x16x8xf16, 3>, memref<2x8x16xf16, 3>, memref<1x16x16xf32, 5>
}

// -----

kgen.kernel @mma_acc_dynamic grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index, %acc: memref<16x?xf32>):
  %c0 = arith.constant 0 : index
  %a = memref.alloca() : memref<2x16x8xf16, 3>
  %b = memref.alloca() : memref<2x8x16xf16, 3>
  // expected-error @+1 {{'acc' must be a static [rows, cols] f32 buffer; got 'memref<16x?xf32>'}}
  kgen.tile.mma %a, %b[%c0] into %acc : memref<2x16x8xf16, 3>, memref<2x8x16xf16, 3>, memref<16x?xf32>
}

// -----

kgen.kernel @mma_k_mismatch grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index):
  %c0 = arith.constant 0 : index
  %a = memref.alloca() : memref<2x16x8xf16, 3>
  %b = memref.alloca() : memref<2x16x16xf16, 3>
  %acc = memref.alloca() : memref<16x16xf32, 5>
  // expected-error @+1 {{K of 'a' (8) differs from K of 'b' (16)}}
  kgen.tile.mma %a, %b[%c0] into %acc : memref<2x16x8xf16, 3>, memref<2x16x16xf16, 3>, memref<16x16xf32, 5>
}

// -----

// K follows the transposition: 'a' [S, BK, BM] and 'b' [S, BN, BK].
kgen.kernel @mma_k_mismatch_transposed grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index):
  %c0 = arith.constant 0 : index
  %a = memref.alloca() : memref<2x16x8xf16, 3>
  %b = memref.alloca() : memref<2x16x8xf16, 3>
  %acc = memref.alloca() : memref<8x16xf32, 5>
  // expected-error @+1 {{K of 'a' (16) differs from K of 'b' (8)}}
  kgen.tile.mma %a, %b[%c0] into %acc {transpose_a, transpose_b} : memref<2x16x8xf16, 3>, memref<2x16x8xf16, 3>, memref<8x16xf32, 5>
}

// -----

kgen.kernel @mma_acc_shape grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index):
  %c0 = arith.constant 0 : index
  %a = memref.alloca() : memref<2x16x8xf16, 3>
  %b = memref.alloca() : memref<2x8x32xf16, 3>
  %acc = memref.alloca() : memref<32x16xf32, 5>
  // expected-error @+1 {{'acc' must be [16, 32] for these tiles; got 'memref<32x16xf32, 5>'}}
  kgen.tile.mma %a, %b[%c0] into %acc : memref<2x16x8xf16, 3>, memref<2x8x32xf16, 3>, memref<32x16xf32, 5>
}

// -----

kgen.kernel @mma_acc_shape_transposed grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index):
  %c0 = arith.constant 0 : index
  %a = memref.alloca() : memref<2x8x16xf16, 3>
  %b = memref.alloca() : memref<2x32x8xf16, 3>
  %acc = memref.alloca() : memref<8x8xf32, 5>
  // expected-error @+1 {{'acc' must be [16, 32] for these tiles; got 'memref<8x8xf32, 5>'}}
  kgen.tile.mma %a, %b[%c0] into %acc {transpose_a, transpose_b} : memref<2x8x16xf16, 3>, memref<2x32x8xf16, 3>, memref<8x8xf32, 5>
}

// -----

kgen.kernel @mma_stages grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index):
  %c0 = arith.constant 0 : index
  %a = memref.alloca() : memref<2x16x8xf16, 3>
  %b = memref.alloca() : memref<3x8x16xf16, 3>
  %acc = memref.alloca() : memref<16x16xf32, 5>
  // expected-error @+1 {{'a' and 'b' must have the same number of stages}}
  kgen.tile.mma %a, %b[%c0] into %acc : memref<2x16x8xf16, 3>, memref<3x8x16xf16, 3>, memref<16x16xf32, 5>
}

// -----

kgen.kernel @mma_element_type grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index):
  %c0 = arith.constant 0 : index
  %a = memref.alloca() : memref<2x16x8xf16, 3>
  %b = memref.alloca() : memref<2x8x16xbf16, 3>
  %acc = memref.alloca() : memref<16x16xf32, 5>
  // expected-error @+1 {{'a' and 'b' must have the same element type}}
  kgen.tile.mma %a, %b[%c0] into %acc : memref<2x16x8xf16, 3>, memref<2x8x16xbf16, 3>, memref<16x16xf32, 5>
}

//===----------------------------------------------------------------------===//
// kgen.tile.accumulate
//===----------------------------------------------------------------------===//

// -----

kgen.kernel @accumulate_src_rank1 grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index, %w: memref<64xf32>):
  %c0 = arith.constant 0 : index
  %acc = memref.alloca() : memref<16x16xf32, 5>
  // expected-error @+1 {{'src' must have rank 2 or more; got 'memref<64xf32>'}}
  kgen.tile.accumulate %w[%c0] bounds(%c0, %c0) into %acc : memref<64xf32>, memref<16x16xf32, 5>
}

// -----

kgen.kernel @accumulate_src_indices grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index, %w: memref<2x1x40x64xf32>):
  %c0 = arith.constant 0 : index
  %acc = memref.alloca() : memref<16x16xf32, 5>
  // expected-error @+1 {{'src' has rank 4 but 3 indices}}
  kgen.tile.accumulate %w[%c0, %c0, %c0] bounds(%c0, %c0) into %acc : memref<2x1x40x64xf32>, memref<16x16xf32, 5>
}

// -----

kgen.kernel @accumulate_acc_bf16 grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index, %w: memref<2x40x64xf32>):
  %c0 = arith.constant 0 : index
  %acc = memref.alloca() : memref<16x16xbf16, 5>
  // expected-error @+1 {{'acc' must be a static [rows, cols] f32 buffer; got 'memref<16x16xbf16, 5>'}}
  kgen.tile.accumulate %w[%c0, %c0, %c0] bounds(%c0, %c0) into %acc : memref<2x40x64xf32>, memref<16x16xbf16, 5>
}

// -----

kgen.kernel @accumulate_src_bf16 grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index, %w: memref<2x40x64xbf16>):
  %c0 = arith.constant 0 : index
  %acc = memref.alloca() : memref<16x16xf32, 5>
  // expected-error @+1 {{'src' must hold f32 partial sums}}
  kgen.tile.accumulate %w[%c0, %c0, %c0] bounds(%c0, %c0) into %acc : memref<2x40x64xbf16>, memref<16x16xf32, 5>
}

//===----------------------------------------------------------------------===//
// kgen.tile.store
//===----------------------------------------------------------------------===//

// -----

kgen.kernel @store_acc_rank1 grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %w: memref<40x64xf32>):
  %c0 = arith.constant 0 : index
  %acc = memref.alloca() : memref<256xf32, 5>
  // expected-error @+1 {{'acc' must be a static [rows, cols] f32 buffer; got 'memref<256xf32, 5>'}}
  kgen.tile.store %acc into %w[%c0, %c0] bounds(%c0, %c0) : memref<256xf32, 5>, memref<40x64xf32>
}

// -----

kgen.kernel @store_dst_rank1 grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %w: memref<64xf32>):
  %c0 = arith.constant 0 : index
  %acc = memref.alloca() : memref<16x16xf32, 5>
  // expected-error @+1 {{'dst' must have rank 2 or more; got 'memref<64xf32>'}}
  kgen.tile.store %acc into %w[%c0] bounds(%c0, %c0) : memref<16x16xf32, 5>, memref<64xf32>
}

// -----

kgen.kernel @store_dst_indices grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %w: memref<2x1x40x64xf32>):
  %c0 = arith.constant 0 : index
  %acc = memref.alloca() : memref<16x16xf32, 5>
  // expected-error @+1 {{'dst' has rank 4 but 5 indices}}
  kgen.tile.store %acc into %w[%c0, %c0, %c0, %c0, %c0] bounds(%c0, %c0) : memref<16x16xf32, 5>, memref<2x1x40x64xf32>
}

// -----

kgen.kernel @store_dst_f16 grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %w: memref<40x64xf16>):
  %c0 = arith.constant 0 : index
  %acc = memref.alloca() : memref<16x16xf32, 5>
  // expected-error @+1 {{'dst' must hold f32 partial sums}}
  kgen.tile.store %acc into %w[%c0, %c0] bounds(%c0, %c0) : memref<16x16xf32, 5>, memref<40x64xf16>
}

//===----------------------------------------------------------------------===//
// kgen.tile.epilogue
//===----------------------------------------------------------------------===//

// -----

kgen.kernel @epilogue_acc_dynamic grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %acc: memref<?x16xf32>, %d: memref<40x64xbf16>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'acc' must be a static [rows, cols] f32 buffer; got 'memref<?x16xf32>'}}
  kgen.tile.epilogue %acc into %d[%c0, %c0] bounds(%c0, %c0) {alpha = 1.0 : f32, beta = 0.0 : f32, activation = #kgen.activation<none>} : memref<?x16xf32>, memref<40x64xbf16>
}

// -----

kgen.kernel @epilogue_dst_rank1 grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %d: memref<64xbf16>):
  %c0 = arith.constant 0 : index
  %acc = memref.alloca() : memref<16x16xf32, 5>
  // expected-error @+1 {{'dst' must have rank 2 or more; got 'memref<64xbf16>'}}
  kgen.tile.epilogue %acc into %d[%c0] bounds(%c0, %c0) {alpha = 1.0 : f32, beta = 0.0 : f32, activation = #kgen.activation<none>} : memref<16x16xf32, 5>, memref<64xbf16>
}

// -----

kgen.kernel @epilogue_dst_indices grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %d: memref<2x40x64xbf16>):
  %c0 = arith.constant 0 : index
  %acc = memref.alloca() : memref<16x16xf32, 5>
  // expected-error @+1 {{'dst' has rank 3 but 2 indices}}
  kgen.tile.epilogue %acc into %d[%c0, %c0] bounds(%c0, %c0) {alpha = 1.0 : f32, beta = 0.0 : f32, activation = #kgen.activation<none>} : memref<16x16xf32, 5>, memref<2x40x64xbf16>
}

// -----

kgen.kernel @epilogue_bias_rank2 grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %bias: memref<1x64xf32>, %d: memref<40x64xbf16>):
  %c0 = arith.constant 0 : index
  %acc = memref.alloca() : memref<16x16xf32, 5>
  // expected-error @+1 {{'bias' must be one value per output column (rank 1)}}
  kgen.tile.epilogue %acc into %d[%c0, %c0] bounds(%c0, %c0) bias(%bias : memref<1x64xf32>) {alpha = 1.0 : f32, beta = 0.0 : f32, activation = #kgen.activation<none>} : memref<16x16xf32, 5>, memref<40x64xbf16>
}

// -----

kgen.kernel @epilogue_residual_shape grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %c: memref<64x40xbf16>, %d: memref<40x64xbf16>):
  %c0 = arith.constant 0 : index
  %acc = memref.alloca() : memref<16x16xf32, 5>
  // expected-error @+1 {{'residual' must have the shape of 'dst'}}
  kgen.tile.epilogue %acc into %d[%c0, %c0] bounds(%c0, %c0) residual(%c : memref<64x40xbf16>) {alpha = 1.0 : f32, beta = 1.0 : f32, activation = #kgen.activation<none>} : memref<16x16xf32, 5>, memref<40x64xbf16>
}

// -----

// Declarative: alpha and beta are f32 attributes, the activation a kgen one.
kgen.kernel @epilogue_alpha_f64 grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %d: memref<40x64xbf16>):
  %c0 = arith.constant 0 : index
  %acc = memref.alloca() : memref<16x16xf32, 5>
  // expected-error @+1 {{attribute 'alpha' failed to satisfy constraint: 32-bit float attribute}}
  kgen.tile.epilogue %acc into %d[%c0, %c0] bounds(%c0, %c0) {alpha = 1.0 : f64, beta = 0.0 : f32, activation = #kgen.activation<none>} : memref<16x16xf32, 5>, memref<40x64xbf16>
}

// -----

kgen.kernel @epilogue_no_activation grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %d: memref<40x64xbf16>):
  %c0 = arith.constant 0 : index
  %acc = memref.alloca() : memref<16x16xf32, 5>
  // expected-error @+1 {{requires attribute 'activation'}}
  kgen.tile.epilogue %acc into %d[%c0, %c0] bounds(%c0, %c0) {alpha = 1.0 : f32, beta = 0.0 : f32} : memref<16x16xf32, 5>, memref<40x64xbf16>
}

//===----------------------------------------------------------------------===//
// kgen.tile.pipeline
//===----------------------------------------------------------------------===//

// -----

kgen.kernel @pipeline_zero_stages grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index):
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'stages' is 0; expected at least 1}}
  kgen.tile.pipeline %c0 to %c4 stages 0 load {
  ^bb0(%k: index, %s: index):
  } compute {
  ^bb0(%k: index, %s: index):
  }
}

// -----

kgen.kernel @pipeline_negative_stages grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index):
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'stages' is -3; expected at least 1}}
  kgen.tile.pipeline %c0 to %c4 stages -3 load {
  ^bb0(%k: index, %s: index):
  } compute {
  ^bb0(%k: index, %s: index):
  }
}

// -----

kgen.kernel @pipeline_load_one_argument grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index):
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{each region takes two index arguments (k, stage)}}
  kgen.tile.pipeline %c0 to %c4 stages 2 load {
  ^bb0(%k: index):
  } compute {
  ^bb0(%k: index, %s: index):
  }
}

// -----

kgen.kernel @pipeline_compute_not_index grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index):
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{each region takes two index arguments (k, stage)}}
  kgen.tile.pipeline %c0 to %c4 stages 2 load {
  ^bb0(%k: index, %s: index):
  } compute {
  ^bb0(%k: index, %s: i32):
  }
}

// -----

// No block label: a region without arguments.
kgen.kernel @pipeline_no_arguments grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index):
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{each region takes two index arguments (k, stage)}}
  kgen.tile.pipeline %c0 to %c4 stages 2 load {
    %x = arith.constant 1 : index
  } compute {
  ^bb0(%k: index, %s: index):
  }
}

// -----

// Declarative: each region is one block (SizedRegion<1>).
kgen.kernel @pipeline_empty_region grid [1, 1, 1] threads 32 smem 0 attributes {num_outputs = 0} {
^bb0(%bx: index, %by: index, %bz: index):
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{region #0 ('load') failed to verify constraint: region with 1 blocks}}
  kgen.tile.pipeline %c0 to %c4 stages 2 load {
  } compute {
  ^bb0(%k: index, %s: index):
  }
}

// -----

// Names reach generated CUDA: a kernel named to inject a preprocessor line
// (issue 16's reproducer) is refused before anything is emitted, and the
// name is printed escaped.
// expected-error @+1 {{'kgen.kernel' op name 'evil\x0a#include </etc/passwd>\x0aint x;' cannot name a CUDA kernel: it has a character other than letters, digits and '_'}}
kgen.kernel @"evil\0A#include </etc/passwd>\0Aint x;" grid [1, 1, 1] threads 32 smem 0 attributes {param_names = ["A", "D"]} {
^bb0(%bx: index, %by: index, %bz: index, %a: memref<4x4xf32>, %d: memref<4x4xf32>):
}

// -----

// expected-error @+1 {{'kgen.kernel' op name 'int' cannot name a CUDA kernel: it is a C++ or CUDA keyword or built-in}}
kgen.kernel @int grid [1, 1, 1] threads 32 smem 0 attributes {param_names = ["A", "D"]} {
^bb0(%bx: index, %by: index, %bz: index, %a: memref<4x4xf32>, %d: memref<4x4xf32>):
}

// -----

// expected-error @+1 {{'kgen.kernel' op name '__LINE__' cannot name a CUDA kernel: it is reserved to the C++ implementation (a leading '__' or '_' and a capital)}}
kgen.kernel @__LINE__ grid [1, 1, 1] threads 32 smem 0 attributes {param_names = ["A", "D"]} {
^bb0(%bx: index, %by: index, %bz: index, %a: memref<4x4xf32>, %d: memref<4x4xf32>):
}

// -----

// expected-error @+1 {{'kgen.kernel' op parameter 1's name 'D) { asm("trap;"); } void f(int *x' cannot be a CUDA identifier: it has a character other than letters, digits and '_'}}
kgen.kernel @param_injection grid [1, 1, 1] threads 32 smem 0 attributes {param_names = ["A", "D) { asm(\"trap;\"); } void f(int *x"]} {
^bb0(%bx: index, %by: index, %bz: index, %a: memref<4x4xf32>, %d: memref<4x4xf32>):
}

// -----

// expected-error @+1 {{'kgen.kernel' op parameter name 'A' is given twice}}
kgen.kernel @param_twice grid [1, 1, 1] threads 32 smem 0 attributes {param_names = ["A", "A"]} {
^bb0(%bx: index, %by: index, %bz: index, %a: memref<4x4xf32>, %d: memref<4x4xf32>):
}

// -----

// expected-error @+1 {{'kgen.kernel' op name 'kernel_with_a_very_long_name_01234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890' cannot name a CUDA kernel: it is longer than 128 characters}}
kgen.kernel @kernel_with_a_very_long_name_01234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890 grid [1, 1, 1] threads 32 smem 0 attributes {param_names = ["A", "D"]} {
^bb0(%bx: index, %by: index, %bz: index, %a: memref<4x4xf32>, %d: memref<4x4xf32>):
}

// -----

//===----------------------------------------------------------------------===//
// Attention steps
//===----------------------------------------------------------------------===//

// softmax_init: stats not [2, rows]
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %st: memref<3x16xf32>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'stats' must be a [2, rows] f32 buffer (row max, row sum); got 'memref<3x16xf32>'}}
  kgen.tile.softmax_init %st : memref<3x16xf32>
}

// -----

// qk: q with two stages
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %q: memref<2x16x32xbf16>, %k: memref<2x16x32xbf16>, %s: memref<16x16xf32>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'q' must be one tile [1, rows, head_dim]; got 'memref<2x16x32xbf16>'}}
  kgen.tile.qk %q, %k[%c0] into %s : memref<2x16x32xbf16>, memref<2x16x32xbf16>, memref<16x16xf32>
}

// -----

// qk: head dims differ
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %q: memref<1x16x32xbf16>, %k: memref<2x16x48xbf16>, %s: memref<16x16xf32>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{head dim of 'q' (32) differs from head dim of 'k' (48)}}
  kgen.tile.qk %q, %k[%c0] into %s : memref<1x16x32xbf16>, memref<2x16x48xbf16>, memref<16x16xf32>
}

// -----

// qk: element types differ
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %q: memref<1x16x32xbf16>, %k: memref<2x16x32xf16>, %s: memref<16x16xf32>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'q' and 'k' must have the same element type}}
  kgen.tile.qk %q, %k[%c0] into %s : memref<1x16x32xbf16>, memref<2x16x32xf16>, memref<16x16xf32>
}

// -----

// qk: scores shape
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %q: memref<1x16x32xbf16>, %k: memref<2x32x32xbf16>, %s: memref<16x16xf32>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'s' must be [16, 32] for these tiles; got 'memref<16x16xf32>'}}
  kgen.tile.qk %q, %k[%c0] into %s : memref<1x16x32xbf16>, memref<2x32x32xbf16>, memref<16x16xf32>
}

// -----

// qk: scores not f32
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %q: memref<1x16x32xbf16>, %k: memref<2x16x32xbf16>, %s: memref<16x16xbf16>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'s' must be a static [rows, cols] f32 buffer; got 'memref<16x16xbf16>'}}
  kgen.tile.qk %q, %k[%c0] into %s : memref<1x16x32xbf16>, memref<2x16x32xbf16>, memref<16x16xbf16>
}

// -----

// online_softmax: stats rows
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %s: memref<16x16xf32>, %st: memref<2x32xf32>, %acc: memref<16x32xf32>):
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'stats' must be a [2, 16] f32 buffer (row max, row sum); got 'memref<2x32xf32>'}}
  kgen.tile.online_softmax %s, %st, %acc rows(%c0) cols(%c0) kv_len(%c0) seq_q(%c4) {scale = 1.0 : f32} : memref<16x16xf32>, memref<2x32xf32>, memref<16x32xf32>
}

// -----

// online_softmax: acc rows
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %s: memref<16x16xf32>, %st: memref<2x16xf32>, %acc: memref<32x32xf32>):
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'acc' must have the 16 rows of 's'; got 'memref<32x32xf32>'}}
  kgen.tile.online_softmax %s, %st, %acc rows(%c0) cols(%c0) kv_len(%c0) seq_q(%c4) {scale = 1.0 : f32} : memref<16x16xf32>, memref<2x16xf32>, memref<32x32xf32>
}

// -----

// online_softmax: seq_q
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %s: memref<16x16xf32>, %st: memref<2x16xf32>, %acc: memref<16x32xf32>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'seq_q' is 0; expected at least 1}}
  kgen.tile.online_softmax %s, %st, %acc rows(%c0) cols(%c0) kv_len(%c0) seq_q(%c0) {scale = 1.0 : f32} : memref<16x16xf32>, memref<2x16xf32>, memref<16x32xf32>
}

// -----

// online_softmax: scale
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %s: memref<16x16xf32>, %st: memref<2x16xf32>, %acc: memref<16x32xf32>):
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'scale' must be finite and non-zero}}
  kgen.tile.online_softmax %s, %st, %acc rows(%c0) cols(%c0) kv_len(%c0) seq_q(%c4) {scale = 0.0 : f32} : memref<16x16xf32>, memref<2x16xf32>, memref<16x32xf32>
}

// -----

// online_softmax: window_left
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %s: memref<16x16xf32>, %st: memref<2x16xf32>, %acc: memref<16x32xf32>):
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'window_left' is -1; expected at least 0}}
  kgen.tile.online_softmax %s, %st, %acc rows(%c0) cols(%c0) kv_len(%c0) seq_q(%c4) {scale = 1.0 : f32, window_left = -1} : memref<16x16xf32>, memref<2x16xf32>, memref<16x32xf32>
}

// -----

// online_softmax: alibi slopes not f32
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %s: memref<16x16xf32>, %st: memref<2x16xf32>, %acc: memref<16x32xf32>, %sl: memref<8xbf16>):
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'alibi' must be f32 slopes [query heads]; got 'memref<8xbf16>'}}
  kgen.tile.online_softmax %s, %st, %acc rows(%c0) cols(%c0) kv_len(%c0) seq_q(%c4) alibi(%sl[%c0] : memref<8xbf16>) {scale = 1.0 : f32} : memref<16x16xf32>, memref<2x16xf32>, memref<16x32xf32>
}

// -----

// online_softmax: softcap
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %s: memref<16x16xf32>, %st: memref<2x16xf32>, %acc: memref<16x32xf32>):
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'softcap' must be finite and positive}}
  kgen.tile.online_softmax %s, %st, %acc rows(%c0) cols(%c0) kv_len(%c0) seq_q(%c4) {scale = 1.0 : f32, softcap = -1.0 : f32} : memref<16x16xf32>, memref<2x16xf32>, memref<16x32xf32>
}

// -----

// pv: key counts differ
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %p: memref<16x16xf32>, %v: memref<2x32x32xbf16>, %acc: memref<16x32xf32>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'p' has 16 columns but the 'v' stage 32 rows}}
  kgen.tile.pv %p, %v[%c0] into %acc : memref<16x16xf32>, memref<2x32x32xbf16>, memref<16x32xf32>
}

// -----

// pv: acc shape
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %p: memref<16x16xf32>, %v: memref<2x16x32xbf16>, %acc: memref<16x48xf32>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'acc' must be [16, 32] for these tiles; got 'memref<16x48xf32>'}}
  kgen.tile.pv %p, %v[%c0] into %acc : memref<16x16xf32>, memref<2x16x32xbf16>, memref<16x48xf32>
}

// -----

// attention_store: lse shape
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %acc: memref<16x32xf32>, %st: memref<2x16xf32>, %o: memref<1x2x9x32xbf16>, %l: memref<1x2x8xf32>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'lse' must be f32 of shape [dims of 'dst' but the last]; got 'memref<1x2x8xf32>'}}
  kgen.tile.attention_store %acc, %st into %o[%c0, %c0, %c0, %c0] bounds(%c0, %c0) lse(%l : memref<1x2x8xf32>) : memref<16x32xf32>, memref<2x16xf32>, memref<1x2x9x32xbf16>
}

// -----

// attention_store: indices
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %acc: memref<16x32xf32>, %st: memref<2x16xf32>, %o: memref<1x2x9x32xbf16>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'dst' has rank 4 but 3 indices}}
  kgen.tile.attention_store %acc, %st into %o[%c0, %c0, %c0] bounds(%c0, %c0) : memref<16x32xf32>, memref<2x16xf32>, memref<1x2x9x32xbf16>
}

// -----

// attention_combine: partial shape
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %p: memref<3x1x2x9x16xf32>, %pl: memref<3x1x2x9xf32>, %o: memref<1x2x9x32xbf16>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'partial' must be f32 [splits, dims of 'dst'...]; got 'memref<3x1x2x9x16xf32>'}}
  kgen.tile.attention_combine %p, %pl into %o[%c0, %c0, %c0, %c0] bounds(%c0, %c0) {box_rows = 16} : memref<3x1x2x9x16xf32>, memref<3x1x2x9xf32>, memref<1x2x9x32xbf16>
}

// -----

// attention_combine: partial lse splits
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %p: memref<3x1x2x9x32xf32>, %pl: memref<2x1x2x9xf32>, %o: memref<1x2x9x32xbf16>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'partial_lse' must be f32 [splits, dims of 'dst' but the last]; got 'memref<2x1x2x9xf32>'}}
  kgen.tile.attention_combine %p, %pl into %o[%c0, %c0, %c0, %c0] bounds(%c0, %c0) {box_rows = 16} : memref<3x1x2x9x32xf32>, memref<2x1x2x9xf32>, memref<1x2x9x32xbf16>
}

// -----

// attention_combine: box rows
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %p: memref<3x1x2x9x32xf32>, %pl: memref<3x1x2x9xf32>, %o: memref<1x2x9x32xbf16>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'box_rows' is 0; expected at least 1}}
  kgen.tile.attention_combine %p, %pl into %o[%c0, %c0, %c0, %c0] bounds(%c0, %c0) {box_rows = 0} : memref<3x1x2x9x32xf32>, memref<3x1x2x9xf32>, memref<1x2x9x32xbf16>
}

// -----

// moe_route: ids not i32
func.func @f(%l: memref<8x4xf32>, %ids: memref<8x2xi64>, %w: memref<8x2xf32>, %c0: index) {
  // expected-error @+1 {{'ids' must be a static rank-2 [T, k] i32 buffer; got 'memref<8x2xi64>'}}
  kgen.tile.moe_route %l rows(%c0) into %ids, %w {rows = 4} : memref<8x4xf32>, memref<8x2xi64>, memref<8x2xf32>
  return
}

// -----

// moe_route: more slots than experts
func.func @f(%l: memref<8x4xf32>, %ids: memref<8x5xi32>, %w: memref<8x5xf32>, %c0: index) {
  // expected-error @+1 {{top_k (5) exceeds the experts of 'logits' (4)}}
  kgen.tile.moe_route %l rows(%c0) into %ids, %w {rows = 4} : memref<8x4xf32>, memref<8x5xi32>, memref<8x5xf32>
  return
}

// -----

// moe_route: rows
func.func @f(%l: memref<8x4xf32>, %ids: memref<8x2xi32>, %w: memref<8x2xf32>, %c0: index) {
  // expected-error @+1 {{'rows' is 0; expected at least 1}}
  kgen.tile.moe_route %l rows(%c0) into %ids, %w {rows = 0} : memref<8x4xf32>, memref<8x2xi32>, memref<8x2xf32>
  return
}

// -----

// moe_route: a bias that is not [E] f32
func.func @f(%l: memref<8x4xf32>, %b: memref<8xf32>, %ids: memref<8x2xi32>, %w: memref<8x2xf32>, %c0: index) {
  // expected-error @+1 {{'bias' must be a static rank-1 [E] f32 buffer; got 'memref<8xf32>'}}
  kgen.tile.moe_route %l bias(%b : memref<8xf32>) rows(%c0) into %ids, %w {rows = 4} : memref<8x4xf32>, memref<8x2xi32>, memref<8x2xf32>
  return
}

// -----

// moe_route: groups that do not divide the experts
func.func @f(%l: memref<8x6xf32>, %ids: memref<8x2xi32>, %w: memref<8x2xf32>, %c0: index) {
  // expected-error @+1 {{n_group (4) must divide the 6 experts and topk_group (1) be in [1, n_group]}}
  kgen.tile.moe_route %l rows(%c0) into %ids, %w {rows = 4, n_group = 4} : memref<8x6xf32>, memref<8x2xi32>, memref<8x2xf32>
  return
}

// -----

// moe_route: more slots than the kept groups' experts
func.func @f(%l: memref<8x8xf32>, %ids: memref<8x3xi32>, %w: memref<8x3xf32>, %c0: index) {
  // expected-error @+1 {{top_k (3) exceeds the 2 experts of the kept groups}}
  kgen.tile.moe_route %l rows(%c0) into %ids, %w {rows = 4, n_group = 4, topk_group = 1, scoring = #kgen.scoring<sigmoid>} : memref<8x8xf32>, memref<8x3xi32>, memref<8x3xf32>
  return
}

// -----

// moe_rank: positions of another shape
func.func @f(%ids: memref<8x2xi32>, %pos: memref<8x3xi32>, %off: memref<5xi32>, %e: index) {
  // expected-error @+1 {{'positions' must have the shape of 'ids'; got 'memref<8x3xi32>'}}
  kgen.tile.moe_rank %ids expert(%e) into %pos, %off : memref<8x2xi32>, memref<8x3xi32>, memref<5xi32>
  return
}

// -----

// moe_rank: offsets of no expert
func.func @f(%ids: memref<8x2xi32>, %pos: memref<8x2xi32>, %off: memref<1xi32>, %e: index) {
  // expected-error @+1 {{'offsets' must be a static rank-1 [E + 1] i32 (E >= 1) buffer; got 'memref<1xi32>'}}
  kgen.tile.moe_rank %ids expert(%e) into %pos, %off : memref<8x2xi32>, memref<8x2xi32>, memref<1xi32>
  return
}

// -----

// moe_gather: permuted rows are not T * k
func.func @f(%x: memref<8x16xbf16>, %pos: memref<8x2xi32>, %off: memref<5xi32>, %p: memref<15x16xbf16>, %c0: index) {
  // expected-error @+1 {{expected x [T, H], positions [T, k] and permuted [T * k, H]}}
  kgen.tile.moe_gather %x, %pos, %off copies(%c0) into %p {copies = 4} : memref<8x16xbf16>, memref<8x2xi32>, memref<5xi32>, memref<15x16xbf16>
  return
}

// -----

// moe_gather: permuted of another element type
func.func @f(%x: memref<8x16xbf16>, %pos: memref<8x2xi32>, %off: memref<5xi32>, %p: memref<16x16xf16>, %c0: index) {
  // expected-error @+1 {{'permuted' must be a static rank-2 [T * k, H] (x's element type) buffer; got 'memref<16x16xf16>'}}
  kgen.tile.moe_gather %x, %pos, %off copies(%c0) into %p {copies = 4} : memref<8x16xbf16>, memref<8x2xi32>, memref<5xi32>, memref<16x16xf16>
  return
}

// -----

// group_tile: block_m
func.func @f(%off: memref<5xi32>, %t: index) {
  // expected-error @+1 {{'block_m' is 0; expected at least 1}}
  %e, %r0, %r1, %live = kgen.tile.group_tile %off tile(%t) rows(%t) {block_m = 0} : memref<5xi32>
  return
}

// -----

// gated_epilogue: accumulators of two shapes
func.func @f(%g: memref<16x32xf32>, %u: memref<16x16xf32>, %d: memref<40x64xbf16>, %c0: index) {
  // expected-error @+1 {{'gate' and 'up' must have one shape; got 'memref<16x32xf32>' and 'memref<16x16xf32>'}}
  kgen.tile.gated_epilogue %g, %u into %d[%c0, %c0] bounds(%c0, %c0) {activation = #kgen.activation<silu>} : memref<16x32xf32>, memref<16x16xf32>, memref<40x64xbf16>
  return
}

// -----

// moe_combine: weights not [T, k]
func.func @f(%eo: memref<16x32xbf16>, %pos: memref<8x2xi32>, %w: memref<8x1xf32>, %y: memref<8x32xbf16>, %c0: index) {
  // expected-error @+1 {{expected expert_out [T * k, H], positions and weights [T, k], y [T, H]}}
  kgen.tile.moe_combine %eo, %pos, %w tokens(%c0) into %y {tokens = 4} : memref<16x32xbf16>, memref<8x2xi32>, memref<8x1xf32>, memref<8x32xbf16>
  return
}

// -----

// moe_combine: a shared expert's output not of y's shape
func.func @f(%eo: memref<16x32xbf16>, %pos: memref<8x2xi32>, %w: memref<8x2xf32>, %z: memref<8x16xbf16>, %y: memref<8x32xbf16>, %c0: index) {
  // expected-error @+1 {{'shared' must be a static rank-2 [T, H] float (y's shape) buffer; got 'memref<8x16xbf16>'}}
  kgen.tile.moe_combine %eo, %pos, %w shared(%z : memref<8x16xbf16>) tokens(%c0) into %y {tokens = 4} : memref<16x32xbf16>, memref<8x2xi32>, memref<8x2xf32>, memref<8x32xbf16>
  return
}

// -----

// moe_single_group: offsets not [2] i32
func.func @f(%off: memref<3xi32>) {
  // expected-error @+1 {{'offsets' must be a static rank-1 [2] i32 buffer; got 'memref<3xi32>'}}
  kgen.tile.moe_single_group into %off {rows = 4} : memref<3xi32>
  return
}

// -----

// widen: the source is not e4m3
func.func @f(%s: memref<2x16x32xbf16, 3>, %d: memref<1x16x32xbf16, 3>, %c0: index) {
  // expected-error @+1 {{'src' must hold f8E4M3FN elements; got 'bf16'}}
  kgen.tile.widen %s[%c0] into %d[%c0] : memref<2x16x32xbf16, 3>, memref<1x16x32xbf16, 3>
  return
}

// -----

// widen: to f32
func.func @f(%s: memref<2x16x32xf8E4M3FN, 3>, %d: memref<1x16x32xf32, 3>, %c0: index) {
  // expected-error @+1 {{'dst' must hold bf16 or f16 elements; got 'f32'}}
  kgen.tile.widen %s[%c0] into %d[%c0] : memref<2x16x32xf8E4M3FN, 3>, memref<1x16x32xf32, 3>
  return
}

// -----

// widen: tiles of other shapes
func.func @f(%s: memref<2x16x32xf8E4M3FN, 3>, %d: memref<1x32x32xbf16, 3>, %c0: index) {
  // expected-error @+1 {{'src' tiles 'memref<2x16x32xf8E4M3FN, 3>' and 'dst' tiles 'memref<1x32x32xbf16, 3>' differ in rows or columns}}
  kgen.tile.widen %s[%c0] into %d[%c0] : memref<2x16x32xf8E4M3FN, 3>, memref<1x32x32xbf16, 3>
  return
}

// -----

// widen: rows not whole 16-element chunks
func.func @f(%s: memref<2x16x40xf8E4M3FN, 3>, %d: memref<1x16x40xbf16, 3>, %c0: index) {
  // expected-error @+1 {{widened tiles have rows of whole 16-element chunks; got 40 columns}}
  kgen.tile.widen %s[%c0] into %d[%c0] : memref<2x16x40xf8E4M3FN, 3>, memref<1x16x40xbf16, 3>
  return
}

// -----

// widen: in a pipeline's load step (the stage has not landed)
func.func @f(%s: memref<2x16x32xf8E4M3FN, 3>, %d: memref<1x16x32xbf16, 3>, %c0: index, %c4: index) {
  kgen.tile.pipeline %c0 to %c4 stages 2 load {
  ^bb0(%k: index, %st: index):
    // expected-error @+1 {{widens a landed stage: in a pipeline, only in its compute step}}
    kgen.tile.widen %s[%st] into %d[%c0] : memref<2x16x32xf8E4M3FN, 3>, memref<1x16x32xbf16, 3>
  } compute {
  ^bb0(%k: index, %st: index):
  }
  return
}

// -----

// widen: another stage than the compute step's
func.func @f(%s: memref<2x16x32xf8E4M3FN, 3>, %d: memref<1x16x32xbf16, 3>, %c0: index, %c4: index) {
  kgen.tile.pipeline %c0 to %c4 stages 2 load {
  ^bb0(%k: index, %st: index):
  } compute {
  ^bb0(%k: index, %st: index):
    // expected-error @+1 {{in a pipeline's compute step, widens the step's stage (its second argument)}}
    kgen.tile.widen %s[%c0] into %d[%c0] : memref<2x16x32xf8E4M3FN, 3>, memref<1x16x32xbf16, 3>
  }
  return
}

// -----

// sequence_tile: offsets not [B + 1] i32
func.func @f(%off: memref<4xi64>, %t: index) {
  // expected-error @+1 {{'offsets' must be [B + 1] i32 with B >= 1; got 'memref<4xi64>'}}
  %b, %r, %v = kgen.tile.sequence_tile %off[%t] block_m(16) : memref<4xi64>
  return
}

// -----

// sequence_tile: no rows per tile
func.func @f(%off: memref<4xi32>, %t: index) {
  // expected-error @+1 {{'block_m' is 0; expected at least 1}}
  %b, %r, %v = kgen.tile.sequence_tile %off[%t] block_m(0) : memref<4xi32>
  return
}

// -----

// attention_store: lse_at without an lse
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %acc: memref<16x32xf32>, %st: memref<2x16xf32>, %o: memref<9x64xbf16>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'lse_at' places an 'lse': give one}}
  kgen.tile.attention_store %acc, %st into %o[%c0, %c0] bounds(%c0, %c0) lse_at[%c0, %c0] : memref<16x32xf32>, memref<2x16xf32>, memref<9x64xbf16>
}

// -----

// attention_store: lse_at not indexing every dimension
kgen.kernel @k grid [1, 1, 1] threads 32 smem 0 {
^bb0(%bx: index, %by: index, %bz: index, %acc: memref<16x32xf32>, %st: memref<2x16xf32>, %o: memref<9x64xbf16>, %l: memref<2x9xf32>):
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'lse_at' must index every dimension of an f32 'lse'; got 1 indices for 'memref<2x9xf32>'}}
  kgen.tile.attention_store %acc, %st into %o[%c0, %c0] bounds(%c0, %c0) lse(%l : memref<2x9xf32>) lse_at[%c0] : memref<16x32xf32>, memref<2x16xf32>, memref<9x64xbf16>
}
