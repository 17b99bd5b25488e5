// One case per verifier rule of the DeepSeek-style MoE extensions
// (dialect/KgenOps.cpp): block-scaled e4m3 weights, the shared expert, the
// routing's correction bias, expert groups and scaling factor, on kgen.moe,
// kgen.moe_route, kgen.grouped_gemm and kgen.moe_combine.
// RUN: kgen-opt %s --split-input-file --verify-diagnostics

//===----------------------------------------------------------------------===//
// kgen.moe: block-scaled e4m3 weights
//===----------------------------------------------------------------------===//

func.func @moe_scales_two(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'scales' takes 3 operands (the scales of w_gate, w_up, w_down); got 2}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su : tensor<8x2x1xf32>, tensor<8x2x1xf32>) {top_k = 2} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_scales_f8_x(%x: tensor<4x256xf8E4M3FN>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{with 'scales', 'x' must be f16, bf16 or f32 (quantised to e4m3 per 128 columns); got 'f8E4M3FN'}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) {top_k = 2} : tensor<4x256xf8E4M3FN>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_scales_bf16_weights(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xbf16>, %wu: tensor<8x256x128xbf16>, %wd: tensor<8x128x256xbf16>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'w_gate' has element type 'bf16'; expected 'f8E4M3FN' (the weights of 'scales' are e4m3)}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) {top_k = 2} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xbf16>, tensor<8x256x128xbf16>, tensor<8x128x256xbf16> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_e4m3_without_scales(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'w_gate' has element type 'f8E4M3FN'; expected 'bf16' (the element type of 'x'; e4m3 weights of another 'x' need 'scales')}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_scale_gate_shape(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x1x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'w_gate scale' has shape [8, 1, 1]; expected [8, 2, 1] ([E, ceil(H/128), ceil(I/128)])}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x1x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) {top_k = 2} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_scale_up_rank(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<2x1xf32>, %sd: tensor<8x1x2xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'w_up scale' must have rank 3 ([E, ceil(H/128), ceil(I/128)]); got 'tensor<2x1xf32>'}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<2x1xf32>, tensor<8x1x2xf32>) {top_k = 2} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_scale_down_shape(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x2x1xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'w_down scale' has shape [8, 2, 1]; expected [8, 1, 2] ([E, ceil(I/128), ceil(H/128)])}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x2x1xf32>) {top_k = 2} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_scale_type(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xbf16>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'w_gate scale' has element type 'bf16'; expected 'f32'}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xbf16>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) {top_k = 2} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

//===----------------------------------------------------------------------===//
// kgen.moe: shared expert
//===----------------------------------------------------------------------===//

// -----

func.func @moe_shared_two(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>, %wsg: tensor<256x128xf8E4M3FN>, %wsu: tensor<256x128xf8E4M3FN>, %ssg: tensor<2x1xf32>, %ssu: tensor<2x1xf32>, %ssd: tensor<1x2xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'shared' takes 3 operands (the shared expert's gate, up and down weights); got 2}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) shared(%wsg, %wsu : tensor<256x128xf8E4M3FN>, tensor<256x128xf8E4M3FN>) shared_scales(%ssg, %ssu, %ssd : tensor<2x1xf32>, tensor<2x1xf32>, tensor<1x2xf32>) {top_k = 2} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_shared_gate_hidden(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>, %wsg: tensor<128x128xf8E4M3FN>, %wsu: tensor<256x128xf8E4M3FN>, %wsd: tensor<128x256xf8E4M3FN>, %ssg: tensor<2x1xf32>, %ssu: tensor<2x1xf32>, %ssd: tensor<1x2xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'shared gate' dimension 0 (H) is 128; expected 256 (H of 'x')}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) shared(%wsg, %wsu, %wsd : tensor<128x128xf8E4M3FN>, tensor<256x128xf8E4M3FN>, tensor<128x256xf8E4M3FN>) shared_scales(%ssg, %ssu, %ssd : tensor<2x1xf32>, tensor<2x1xf32>, tensor<1x2xf32>) {top_k = 2} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_shared_gate_type(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>, %wsg: tensor<256x128xbf16>, %wsu: tensor<256x128xbf16>, %wsd: tensor<128x256xbf16>, %ssg: tensor<2x1xf32>, %ssu: tensor<2x1xf32>, %ssd: tensor<1x2xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'shared gate' has element type 'bf16'; expected 'f8E4M3FN' (the weights of 'scales' are e4m3)}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) shared(%wsg, %wsu, %wsd : tensor<256x128xbf16>, tensor<256x128xbf16>, tensor<128x256xbf16>) shared_scales(%ssg, %ssu, %ssd : tensor<2x1xf32>, tensor<2x1xf32>, tensor<1x2xf32>) {top_k = 2} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_shared_up_shape(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>, %wsg: tensor<256x128xf8E4M3FN>, %wsu: tensor<256x64xf8E4M3FN>, %wsd: tensor<128x256xf8E4M3FN>, %ssg: tensor<2x1xf32>, %ssu: tensor<2x1xf32>, %ssd: tensor<1x2xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'shared up' has shape [256, 64]; expected [256, 128] ([H, Is], as the shared gate)}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) shared(%wsg, %wsu, %wsd : tensor<256x128xf8E4M3FN>, tensor<256x64xf8E4M3FN>, tensor<128x256xf8E4M3FN>) shared_scales(%ssg, %ssu, %ssd : tensor<2x1xf32>, tensor<2x1xf32>, tensor<1x2xf32>) {top_k = 2} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_shared_down_shape(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>, %wsg: tensor<256x128xf8E4M3FN>, %wsu: tensor<256x128xf8E4M3FN>, %wsd: tensor<256x128xf8E4M3FN>, %ssg: tensor<2x1xf32>, %ssu: tensor<2x1xf32>, %ssd: tensor<1x2xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'shared down' has shape [256, 128]; expected [128, 256] ([Is, H] with Is of the shared gate)}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) shared(%wsg, %wsu, %wsd : tensor<256x128xf8E4M3FN>, tensor<256x128xf8E4M3FN>, tensor<256x128xf8E4M3FN>) shared_scales(%ssg, %ssu, %ssd : tensor<2x1xf32>, tensor<2x1xf32>, tensor<1x2xf32>) {top_k = 2} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_shared_missing_scales(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>, %wsg: tensor<256x128xf8E4M3FN>, %wsu: tensor<256x128xf8E4M3FN>, %wsd: tensor<128x256xf8E4M3FN>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{the shared expert's e4m3 weights need 'shared_scales', as the routed ones have 'scales'}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) shared(%wsg, %wsu, %wsd : tensor<256x128xf8E4M3FN>, tensor<256x128xf8E4M3FN>, tensor<128x256xf8E4M3FN>) {top_k = 2} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_shared_scales_unscaled(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xbf16>, %wu: tensor<8x256x128xbf16>, %wd: tensor<8x128x256xbf16>, %wsg: tensor<256x128xbf16>, %wsu: tensor<256x128xbf16>, %wsd: tensor<128x256xbf16>, %ssg: tensor<2x1xf32>, %ssu: tensor<2x1xf32>, %ssd: tensor<1x2xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'shared_scales' needs 'scales': the shared expert's weights are e4m3 only when the routed ones are}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd shared(%wsg, %wsu, %wsd : tensor<256x128xbf16>, tensor<256x128xbf16>, tensor<128x256xbf16>) shared_scales(%ssg, %ssu, %ssd : tensor<2x1xf32>, tensor<2x1xf32>, tensor<1x2xf32>) {top_k = 2} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xbf16>, tensor<8x256x128xbf16>, tensor<8x128x256xbf16> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_shared_scales_two(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>, %wsg: tensor<256x128xf8E4M3FN>, %wsu: tensor<256x128xf8E4M3FN>, %wsd: tensor<128x256xf8E4M3FN>, %ssg: tensor<2x1xf32>, %ssu: tensor<2x1xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'shared_scales' takes 3 operands (the scales of the shared gate, up and down weights); got 2}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) shared(%wsg, %wsu, %wsd : tensor<256x128xf8E4M3FN>, tensor<256x128xf8E4M3FN>, tensor<128x256xf8E4M3FN>) shared_scales(%ssg, %ssu : tensor<2x1xf32>, tensor<2x1xf32>) {top_k = 2} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_shared_scale_shape(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>, %wsg: tensor<256x128xf8E4M3FN>, %wsu: tensor<256x128xf8E4M3FN>, %wsd: tensor<128x256xf8E4M3FN>, %ssg: tensor<2x1xf32>, %ssu: tensor<2x1xf32>, %ssd: tensor<2x1xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'shared down scale' has shape [2, 1]; expected [1, 2] ([ceil(Is/128), ceil(H/128)])}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) shared(%wsg, %wsu, %wsd : tensor<256x128xf8E4M3FN>, tensor<256x128xf8E4M3FN>, tensor<128x256xf8E4M3FN>) shared_scales(%ssg, %ssu, %ssd : tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>) {top_k = 2} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_shared_scales_without_shared(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>, %ssg: tensor<2x1xf32>, %ssu: tensor<2x1xf32>, %ssd: tensor<1x2xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'shared_scales' needs a shared expert ('shared')}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) shared_scales(%ssg, %ssu, %ssd : tensor<2x1xf32>, tensor<2x1xf32>, tensor<1x2xf32>) {top_k = 2} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

//===----------------------------------------------------------------------===//
// kgen.moe: routing (the rules kgen.moe_route shares)
//===----------------------------------------------------------------------===//

// -----

func.func @moe_bias_shape(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>, %b: tensor<4xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'correction_bias' has shape [4]; expected [8] ([E], one per expert)}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) correction_bias(%b : tensor<4xf32>) {top_k = 2} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_bias_type(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>, %b: tensor<8xbf16>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'correction_bias' has element type 'bf16'; expected 'f32'}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) correction_bias(%b : tensor<8xbf16>) {top_k = 2} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_n_group_alone(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'n_group' and 'topk_group' go together: give both or neither}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) {top_k = 2, n_group = 4} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_topk_group_alone(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'n_group' and 'topk_group' go together: give both or neither}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) {top_k = 2, topk_group = 1} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_n_group_divisor(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'n_group' is 3; expected a divisor of the number of experts (8)}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) {top_k = 2, n_group = 3, topk_group = 1} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_n_group_zero(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'n_group' is 0; expected a divisor of the number of experts (8)}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) {top_k = 2, n_group = 0, topk_group = 1} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_topk_group_big(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'topk_group' is 5; expected between 1 and 'n_group' (4)}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) {top_k = 2, n_group = 4, topk_group = 5} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_topk_group_zero(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'topk_group' is 0; expected between 1 and 'n_group' (4)}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) {top_k = 2, n_group = 4, topk_group = 0} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_bias_group_of_one(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>, %b: tensor<8xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{with 'correction_bias' a group is scored by its two best experts, but 'n_group' 8 leaves 1 expert per group}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) correction_bias(%b : tensor<8xf32>) {top_k = 2, n_group = 8, topk_group = 2} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_top_k_beyond_groups(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'top_k' is 3; the 1 kept group(s) of 2 experts hold only 2}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) {top_k = 3, n_group = 4, topk_group = 1} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_scaling_zero(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'routed_scaling_factor' must be finite and positive}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) {top_k = 2, routed_scaling_factor = 0.0 : f32} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_scaling_inf(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{'routed_scaling_factor' must be finite and positive}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) {top_k = 2, routed_scaling_factor = 0x7F800000 : f32} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

// -----

func.func @moe_scoring_not_scoring(%x: tensor<4x256xbf16>, %l: tensor<4x8xf32>, %wg: tensor<8x256x128xf8E4M3FN>, %wu: tensor<8x256x128xf8E4M3FN>, %wd: tensor<8x128x256xf8E4M3FN>, %sg: tensor<8x2x1xf32>, %su: tensor<8x2x1xf32>, %sd: tensor<8x1x2xf32>) -> tensor<4x256xbf16> {
  // expected-error @+1 {{attribute 'scoring' failed to satisfy constraint: router scoring function}}
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<8x2x1xf32>, tensor<8x2x1xf32>, tensor<8x1x2xf32>) {top_k = 2, scoring = #kgen.activation<silu>} : tensor<4x256xbf16>, tensor<4x8xf32>, tensor<8x256x128xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<8x128x256xf8E4M3FN> -> tensor<4x256xbf16>
  return %y : tensor<4x256xbf16>
}

//===----------------------------------------------------------------------===//
// kgen.moe_route
//===----------------------------------------------------------------------===//

// -----

func.func @route_bias_rank(%l: tensor<4x8xf32>, %b: tensor<1x8xf32>) -> (tensor<4x2xi32>, tensor<4x2xf32>) {
  // expected-error @+1 {{'correction_bias' must have rank 1 ([E]); got 'tensor<1x8xf32>'}}
  %i, %w = kgen.moe_route %l correction_bias(%b : tensor<1x8xf32>) {top_k = 2} : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return %i, %w : tensor<4x2xi32>, tensor<4x2xf32>
}

// -----

func.func @route_groups_alone(%l: tensor<4x8xf32>) -> (tensor<4x2xi32>, tensor<4x2xf32>) {
  // expected-error @+1 {{'n_group' and 'topk_group' go together: give both or neither}}
  %i, %w = kgen.moe_route %l {top_k = 2, n_group = 2} : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return %i, %w : tensor<4x2xi32>, tensor<4x2xf32>
}

// -----

func.func @route_n_group_divisor(%l: tensor<4x8xf32>) -> (tensor<4x2xi32>, tensor<4x2xf32>) {
  // expected-error @+1 {{'n_group' is 16; expected a divisor of the number of experts (8)}}
  %i, %w = kgen.moe_route %l {top_k = 2, n_group = 16, topk_group = 1} : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return %i, %w : tensor<4x2xi32>, tensor<4x2xf32>
}

// -----

func.func @route_topk_group(%l: tensor<4x8xf32>) -> (tensor<4x2xi32>, tensor<4x2xf32>) {
  // expected-error @+1 {{'topk_group' is 3; expected between 1 and 'n_group' (2)}}
  %i, %w = kgen.moe_route %l {top_k = 2, n_group = 2, topk_group = 3} : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return %i, %w : tensor<4x2xi32>, tensor<4x2xf32>
}

// -----

func.func @route_bias_group_of_one(%l: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x2xi32>, tensor<4x2xf32>) {
  // expected-error @+1 {{with 'correction_bias' a group is scored by its two best experts, but 'n_group' 8 leaves 1 expert per group}}
  %i, %w = kgen.moe_route %l correction_bias(%b : tensor<8xf32>) {top_k = 2, n_group = 8, topk_group = 4} : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return %i, %w : tensor<4x2xi32>, tensor<4x2xf32>
}

// -----

func.func @route_top_k_beyond_groups(%l: tensor<4x8xf32>) -> (tensor<4x2xi32>, tensor<4x2xf32>) {
  // expected-error @+1 {{'top_k' is 2; the 1 kept group(s) of 1 experts hold only 1}}
  %i, %w = kgen.moe_route %l {top_k = 2, n_group = 8, topk_group = 1} : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return %i, %w : tensor<4x2xi32>, tensor<4x2xf32>
}

// -----

func.func @route_scaling_negative(%l: tensor<4x8xf32>) -> (tensor<4x2xi32>, tensor<4x2xf32>) {
  // expected-error @+1 {{'routed_scaling_factor' must be finite and positive}}
  %i, %w = kgen.moe_route %l {top_k = 2, routed_scaling_factor = -2.5 : f32} : tensor<4x8xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return %i, %w : tensor<4x2xi32>, tensor<4x2xf32>
}

//===----------------------------------------------------------------------===//
// kgen.grouped_gemm: block-scaled e4m3 b
//===----------------------------------------------------------------------===//

// -----

func.func @grouped_scales_bf16_b(%a: tensor<16x256xbf16>, %b: tensor<8x256x128xbf16>, %off: tensor<9xi32>, %s0: tensor<8x2x1xf32>) -> tensor<16x128xbf16> {
  // expected-error @+1 {{'b' has element type 'bf16'; expected 'f8E4M3FN' (the weights of 'scales' are e4m3)}}
  %d = kgen.grouped_gemm %a, %b, %off scales(%s0 : tensor<8x2x1xf32>) : tensor<16x256xbf16>, tensor<8x256x128xbf16>, tensor<9xi32> -> tensor<16x128xbf16>
  return %d : tensor<16x128xbf16>
}

// -----

func.func @grouped_scales_f8_a(%a: tensor<16x256xf8E4M3FN>, %b: tensor<8x256x128xf8E4M3FN>, %off: tensor<9xi32>, %s0: tensor<8x2x1xf32>) -> tensor<16x128xbf16> {
  // expected-error @+1 {{with 'scales', 'a' must be f16, bf16 or f32 (quantised to e4m3 per 128 columns); got 'f8E4M3FN'}}
  %d = kgen.grouped_gemm %a, %b, %off scales(%s0 : tensor<8x2x1xf32>) : tensor<16x256xf8E4M3FN>, tensor<8x256x128xf8E4M3FN>, tensor<9xi32> -> tensor<16x128xbf16>
  return %d : tensor<16x128xbf16>
}

// -----

func.func @grouped_scales_gated_one(%a: tensor<16x256xbf16>, %b: tensor<8x256x128xf8E4M3FN>, %off: tensor<9xi32>, %bu: tensor<8x256x128xf8E4M3FN>, %s0: tensor<8x2x1xf32>) -> tensor<16x128xbf16> {
  // expected-error @+1 {{'scales' takes 2 operands (the scales of b and b_up); got 1}}
  %d = kgen.grouped_gemm %a, %b, %off gated(%bu : tensor<8x256x128xf8E4M3FN>) scales(%s0 : tensor<8x2x1xf32>) : tensor<16x256xbf16>, tensor<8x256x128xf8E4M3FN>, tensor<9xi32> -> tensor<16x128xbf16>
  return %d : tensor<16x128xbf16>
}

// -----

func.func @grouped_scales_two(%a: tensor<16x256xbf16>, %b: tensor<8x256x128xf8E4M3FN>, %off: tensor<9xi32>, %s0: tensor<8x2x1xf32>, %s1: tensor<8x2x1xf32>) -> tensor<16x128xbf16> {
  // expected-error @+1 {{'scales' takes 1 operand (the scale of b); got 2}}
  %d = kgen.grouped_gemm %a, %b, %off scales(%s0, %s1 : tensor<8x2x1xf32>, tensor<8x2x1xf32>) : tensor<16x256xbf16>, tensor<8x256x128xf8E4M3FN>, tensor<9xi32> -> tensor<16x128xbf16>
  return %d : tensor<16x128xbf16>
}

// -----

func.func @grouped_scale_shape(%a: tensor<16x256xbf16>, %b: tensor<8x256x128xf8E4M3FN>, %off: tensor<9xi32>, %s0: tensor<8x1x2xf32>) -> tensor<16x128xbf16> {
  // expected-error @+1 {{'b scale' has shape [8, 1, 2]; expected [8, 2, 1] ([E, ceil(K/128), ceil(N/128)])}}
  %d = kgen.grouped_gemm %a, %b, %off scales(%s0 : tensor<8x1x2xf32>) : tensor<16x256xbf16>, tensor<8x256x128xf8E4M3FN>, tensor<9xi32> -> tensor<16x128xbf16>
  return %d : tensor<16x128xbf16>
}

// -----

func.func @grouped_up_scale_shape(%a: tensor<16x256xbf16>, %b: tensor<8x256x128xf8E4M3FN>, %off: tensor<9xi32>, %bu: tensor<8x256x128xf8E4M3FN>, %s0: tensor<8x2x1xf32>, %s1: tensor<8x2x2xf32>) -> tensor<16x128xbf16> {
  // expected-error @+1 {{'b_up scale' has shape [8, 2, 2]; expected [8, 2, 1] ([E, ceil(K/128), ceil(N/128)])}}
  %d = kgen.grouped_gemm %a, %b, %off gated(%bu : tensor<8x256x128xf8E4M3FN>) scales(%s0, %s1 : tensor<8x2x1xf32>, tensor<8x2x2xf32>) : tensor<16x256xbf16>, tensor<8x256x128xf8E4M3FN>, tensor<9xi32> -> tensor<16x128xbf16>
  return %d : tensor<16x128xbf16>
}

//===----------------------------------------------------------------------===//
// kgen.moe_combine: shared expert output
//===----------------------------------------------------------------------===//

// -----

func.func @combine_shared_shape(%eo: tensor<8x32xbf16>, %pos: tensor<4x2xi32>, %w: tensor<4x2xf32>, %z: tensor<4x16xbf16>) -> tensor<4x32xbf16> {
  // expected-error @+1 {{'shared_out' has shape [4, 16]; expected [4, 32] ([T, H], as 'y')}}
  %y = kgen.moe_combine %eo, %pos, %w shared(%z : tensor<4x16xbf16>) : tensor<8x32xbf16>, tensor<4x2xi32>, tensor<4x2xf32> -> tensor<4x32xbf16>
  return %y : tensor<4x32xbf16>
}

// -----

func.func @combine_shared_type(%eo: tensor<8x32xbf16>, %pos: tensor<4x2xi32>, %w: tensor<4x2xf32>, %z: tensor<4x32xi32>) -> tensor<4x32xbf16> {
  // expected-error @+1 {{'shared_out' has element type 'i32'; expected f16, bf16, f32 or f8E4M3FN}}
  %y = kgen.moe_combine %eo, %pos, %w shared(%z : tensor<4x32xi32>) : tensor<8x32xbf16>, tensor<4x2xi32>, tensor<4x2xf32> -> tensor<4x32xbf16>
  return %y : tensor<4x32xbf16>
}
