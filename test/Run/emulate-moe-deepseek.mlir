// DeepSeek-style MoE packages (kgen-pipeline: kgen-select-strategy chooses
// the expert GEMM configs, kgen-lower-moe-to-tiles the kernels) on the
// emulated device, each checked there against the runtime's host reference
// (runtime/lib/Moe.cpp: sigmoid or softmax scores, correction bias, expert
// groups, scaling, a shared expert): y at every token within the layer's
// tolerance, expert_ids of every token exactly. The exactness of the
// schedule against the op's reference semantics is tiled-moe-deepseek.mlir.
// RUN: rm -rf %t && mkdir -p %t && kgen-opt %s --kgen-pipeline="target=sm_90a output-dir=%t" -o /dev/null
// RUN: kgen-emulate %t/* | FileCheck %s
// CHECK-DAG: kgen_moe_bf16_t16_e256_k8_h64_i32_s64 mma_sync emulated ok
// CHECK-DAG: kgen_moe_bf16_t20_e64_k6_h32_i64_s32 mma_sync emulated ok
// CHECK-DAG: kgen_moe_f16_t13_e16_k3_h36_i72_s24 mma_sync emulated ok
//
// Mutations of the emitted DeepSeek-V3 package that must be caught: the
// routing without the correction bias, without expert groups, without the
// scaling factor; the combine without the shared expert.
// RUN: sed 's|true, true, true, 8, 4>(router_logits|true, true, false, 8, 4>(router_logits|' %t/kgen_moe_bf16_t16_e256_k8_h64_i32_s64/kernel.cu > %t/nobias.cu
// RUN: sed 's|true, true, true, 8, 4>(router_logits|true, true, true, 1, 1>(router_logits|' %t/kgen_moe_bf16_t16_e256_k8_h64_i32_s64/kernel.cu > %t/nogroups.cu
// RUN: sed 's|v0, 2.5f, expert_ids|v0, 1.f, expert_ids|' %t/kgen_moe_bf16_t16_e256_k8_h64_i32_s64/kernel.cu > %t/noscale.cu
// RUN: sed 's|weights, shared_out, |weights, nullptr, |' %t/kgen_moe_bf16_t16_e256_k8_h64_i32_s64/kernel.cu > %t/noshared.cu
// RUN: not cmp -s %t/nobias.cu %t/kgen_moe_bf16_t16_e256_k8_h64_i32_s64/kernel.cu
// RUN: not cmp -s %t/nogroups.cu %t/kgen_moe_bf16_t16_e256_k8_h64_i32_s64/kernel.cu
// RUN: not cmp -s %t/noscale.cu %t/kgen_moe_bf16_t16_e256_k8_h64_i32_s64/kernel.cu
// RUN: not cmp -s %t/noshared.cu %t/kgen_moe_bf16_t16_e256_k8_h64_i32_s64/kernel.cu
// RUN: not kgen-emulate %t/kgen_moe_bf16_t16_e256_k8_h64_i32_s64 --source %t/nobias.cu 2>&1 | FileCheck %s --check-prefix=ROUTING
// RUN: not kgen-emulate %t/kgen_moe_bf16_t16_e256_k8_h64_i32_s64 --source %t/nogroups.cu 2>&1 | FileCheck %s --check-prefix=ROUTING
// RUN: not kgen-emulate %t/kgen_moe_bf16_t16_e256_k8_h64_i32_s64 --source %t/noscale.cu 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: not kgen-emulate %t/kgen_moe_bf16_t16_e256_k8_h64_i32_s64 --source %t/noshared.cu 2>&1 | FileCheck %s --check-prefix=WRONG
// ROUTING: emulated WRONG
// ROUTING: tokens routed differently
// WRONG: emulated WRONG

// DeepSeek-V3's routing at its 256 experts (8 groups of 32, 4 kept, top 8,
// sigmoid + bias, renormalised, times 2.5) with a shared expert
func.func @deepseek_v3_shared(%x: tensor<16x64xbf16>, %l: tensor<16x256xf32>, %wg: tensor<256x64x32xbf16>, %wu: tensor<256x64x32xbf16>, %wd: tensor<256x32x64xbf16>, %b: tensor<256xf32>, %sg: tensor<64x64xbf16>, %su: tensor<64x64xbf16>, %sd: tensor<64x64xbf16>) -> tensor<16x64xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd correction_bias(%b : tensor<256xf32>) shared(%sg, %su, %sd : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>) {top_k = 8, renormalize, scoring = #kgen.scoring<sigmoid>, n_group = 8, topk_group = 4, routed_scaling_factor = 2.5 : f32}
      : tensor<16x64xbf16>, tensor<16x256xf32>, tensor<256x64x32xbf16>, tensor<256x64x32xbf16>, tensor<256x32x64xbf16> -> tensor<16x64xbf16>
  return %y : tensor<16x64xbf16>
}

// DeepSeek-V2's: softmax over 64 experts in 8 groups, 3 kept, top 6,
// unnormalised, times 16, a shared expert narrower than the routed ones
func.func @v2_softmax_groups(%x: tensor<20x32xbf16>, %l: tensor<20x64xf32>, %wg: tensor<64x32x64xbf16>, %wu: tensor<64x32x64xbf16>, %wd: tensor<64x64x32xbf16>, %sg: tensor<32x32xbf16>, %su: tensor<32x32xbf16>, %sd: tensor<32x32xbf16>) -> tensor<20x32xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd shared(%sg, %su, %sd : tensor<32x32xbf16>, tensor<32x32xbf16>, tensor<32x32xbf16>) {top_k = 6, n_group = 8, topk_group = 3, routed_scaling_factor = 16.0 : f32}
      : tensor<20x32xbf16>, tensor<20x64xf32>, tensor<64x32x64xbf16>, tensor<64x32x64xbf16>, tensor<64x64x32xbf16> -> tensor<20x32xbf16>
  return %y : tensor<20x32xbf16>
}

// f16, gelu, 16 experts in groups of 4 (within one lane round), sigmoid +
// bias, a shared expert; rows of 36 f16 (72 bytes): the combine's element
// path; H and I not multiples of the tiles
func.func @small_groups_f16(%x: tensor<13x36xf16>, %l: tensor<13x16xf32>, %wg: tensor<16x36x72xf16>, %wu: tensor<16x36x72xf16>, %wd: tensor<16x72x36xf16>, %b: tensor<16xf32>, %sg: tensor<36x24xf16>, %su: tensor<36x24xf16>, %sd: tensor<24x36xf16>) -> tensor<13x36xf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd correction_bias(%b : tensor<16xf32>) shared(%sg, %su, %sd : tensor<36x24xf16>, tensor<36x24xf16>, tensor<24x36xf16>) {top_k = 3, renormalize, scoring = #kgen.scoring<sigmoid>, n_group = 4, topk_group = 2, activation = #kgen.activation<gelu>}
      : tensor<13x36xf16>, tensor<13x16xf32>, tensor<16x36x72xf16>, tensor<16x36x72xf16>, tensor<16x72x36xf16> -> tensor<13x36xf16>
  return %y : tensor<13x36xf16>
}
