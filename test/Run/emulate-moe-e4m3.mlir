// Block-scaled e4m3 MoE packages (DeepSeek-V3's checkpoint format) on the
// emulated device: the quantisation kernels, the widened e4m3 main loop
// (cvt.rn.f16x2.e4m3x2 fragments) and the per-K-block promotion, each
// package checked there against the runtime's host reference (y at every
// token, expert_ids exactly), then the first layer against the op's
// reference semantics (kgen-run) on the same inputs, bit for bit: the
// emulated tensor cores sum a K block's exact e4m3 products in the
// reference's order. The schedules' exactness on the CPU is
// tiled-moe-e4m3.mlir.
// RUN: rm -rf %t && mkdir -p %t && kgen-opt %s --kgen-pipeline="target=sm_90a output-dir=%t" -o /dev/null
// RUN: kgen-emulate %t/kgen_moe_bf16_e4m3_t13_e5_k2_h200_i160 %t/kgen_moe_bf16_e4m3_t9_e16_k4_h136_i64_s96 %t/kgen_grouped_gemm_bf16_r40_e3_k300_n96_e4m3 | FileCheck %s
// CHECK-DAG: kgen_moe_bf16_e4m3_t13_e5_k2_h200_i160 mma_sync emulated ok
// CHECK-DAG: kgen_moe_bf16_e4m3_t9_e16_k4_h136_i64_s96 mma_sync emulated ok
// CHECK-DAG: kgen_grouped_gemm_bf16_r40_e3_k300_n96_e4m3 mma_sync emulated ok
// RUN: mkdir -p %t/exact && kgen-emulate --save-tensors %t/exact %t/kgen_moe_bf16_e4m3_t13_e5_k2_h200_i160
// RUN: kgen-run %s --entry=moe_partial_blocks --input=%t/exact/x.npy --input=%t/exact/router_logits.npy --input=%t/exact/w_gate.npy --input=%t/exact/w_up.npy --input=%t/exact/w_down.npy --input=%t/exact/w_gate_scale.npy --input=%t/exact/w_up_scale.npy --input=%t/exact/w_down_scale.npy --compare-file=0:%t/exact/y.npy --tolerance=0 | FileCheck %s --check-prefix=EXACT
// EXACT: compare {{.*}} rel_frob=0.000e+00
//
// Mutations of the emitted kernels that must be caught (proof that these
// checks can fail): the activations' scale of the wrong K block; the
// weights' scale of the wrong 128-column block; the partial last K block
// (H = 200: 72 columns) never promoted; the e4m3 pairs widened in the wrong
// byte order; the quantisation without its 1e-4 floor (the inputs have
// all-zero blocks: 0 / 0); the routing kernel quantising half of its tokens'
// rows of x for the shared expert.
// RUN: sed 's|permuted_scale + kb,|permuted_scale + 0,|' %t/kgen_moe_bf16_e4m3_t13_e5_k2_h200_i160/kernel.cu > %t/ascale.cu
// RUN: sed 's|(tile.expert \* 2 + kb) \* 2 + n0 / 128\]|(tile.expert * 2 + kb) * 2 + 0]|' %t/kgen_moe_bf16_e4m3_t13_e5_k2_h200_i160/kernel.cu > %t/wscale.cu
// RUN: sed 's/ || kt + 1 == 7)/)/' %t/kgen_moe_bf16_e4m3_t13_e5_k2_h200_i160/kernel.cu > %t/nolast.cu
// RUN: sed 's/(unsigned short)(lo | (hi << 8))/(unsigned short)(hi | (lo << 8))/' %t/kgen_moe_bf16_e4m3_t13_e5_k2_h200_i160/kernel.cu > %t/bytes.cu
// RUN: sed 's/moe_detail::max_nan(amax, 1e-4f)/amax/' %t/kgen_moe_bf16_e4m3_t13_e5_k2_h200_i160/kernel.cu > %t/nofloor.cu
// RUN: sed 's/act_quant<128, 4>(x,/act_quant<128, 2>(x,/' %t/kgen_moe_bf16_e4m3_t9_e16_k4_h136_i64_s96/kernel.cu > %t/halfx.cu
// RUN: for m in ascale wscale nolast bytes nofloor; do not cmp -s %t/$m.cu %t/kgen_moe_bf16_e4m3_t13_e5_k2_h200_i160/kernel.cu || exit 1; done
// RUN: not cmp -s %t/halfx.cu %t/kgen_moe_bf16_e4m3_t9_e16_k4_h136_i64_s96/kernel.cu
// RUN: not kgen-emulate %t/kgen_moe_bf16_e4m3_t13_e5_k2_h200_i160 --source %t/ascale.cu 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: not kgen-emulate %t/kgen_moe_bf16_e4m3_t13_e5_k2_h200_i160 --source %t/wscale.cu 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: not kgen-emulate %t/kgen_moe_bf16_e4m3_t13_e5_k2_h200_i160 --source %t/nolast.cu 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: not kgen-emulate %t/kgen_moe_bf16_e4m3_t13_e5_k2_h200_i160 --source %t/bytes.cu 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: not kgen-emulate %t/kgen_moe_bf16_e4m3_t13_e5_k2_h200_i160 --source %t/nofloor.cu 2>&1 | FileCheck %s --check-prefix=WRONG
// RUN: not kgen-emulate %t/kgen_moe_bf16_e4m3_t9_e16_k4_h136_i64_s96 --source %t/halfx.cu 2>&1 | FileCheck %s --check-prefix=FAILS
// WRONG: emulated WRONG
// FAILS: kgen_moe_bf16_e4m3_t9_e16_k4_h136_i64_s96 mma_sync emulated {{WRONG|FAULT|.*uninitialised}}

// top-2 of 5, T * k = 26 rows; H = 200 (scale blocks of 128 and 72), I = 160
// (a second scale column); gate_up K tiles of 32, down of 64
func.func @moe_partial_blocks(%x: tensor<13x200xbf16>, %l: tensor<13x5xf32>, %wg: tensor<5x200x160xf8E4M3FN>, %wu: tensor<5x200x160xf8E4M3FN>, %wd: tensor<5x160x200xf8E4M3FN>, %sg: tensor<5x2x2xf32>, %su: tensor<5x2x2xf32>, %sd: tensor<5x2x2xf32>) -> tensor<13x200xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<5x2x2xf32>, tensor<5x2x2xf32>, tensor<5x2x2xf32>) {renormalize, top_k = 2, gate_up_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = user>, down_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 32, block_n = 64, block_k = 64, warps_m = 2, warps_n = 2, stages = 3, source = user>}
      : tensor<13x200xbf16>, tensor<13x5xf32>, tensor<5x200x160xf8E4M3FN>, tensor<5x200x160xf8E4M3FN>, tensor<5x160x200xf8E4M3FN> -> tensor<13x200xbf16>
  return %y : tensor<13x200xbf16>
}

// DeepSeek-style routing (16 experts in 4 groups, 2 kept, top 4, sigmoid +
// bias, scaled) and a shared expert of 96, configs from the heuristic
func.func @deepseek_shared(%x: tensor<9x136xbf16>, %l: tensor<9x16xf32>, %wg: tensor<16x136x64xf8E4M3FN>, %wu: tensor<16x136x64xf8E4M3FN>, %wd: tensor<16x64x136xf8E4M3FN>, %sg: tensor<16x2x1xf32>, %su: tensor<16x2x1xf32>, %sd: tensor<16x1x2xf32>, %b: tensor<16xf32>, %wsg: tensor<136x96xf8E4M3FN>, %wsu: tensor<136x96xf8E4M3FN>, %wsd: tensor<96x136xf8E4M3FN>, %ssg: tensor<2x1xf32>, %ssu: tensor<2x1xf32>, %ssd: tensor<1x2xf32>) -> tensor<9x136xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd scales(%sg, %su, %sd : tensor<16x2x1xf32>, tensor<16x2x1xf32>, tensor<16x1x2xf32>) correction_bias(%b : tensor<16xf32>) shared(%wsg, %wsu, %wsd : tensor<136x96xf8E4M3FN>, tensor<136x96xf8E4M3FN>, tensor<96x136xf8E4M3FN>) shared_scales(%ssg, %ssu, %ssd : tensor<2x1xf32>, tensor<2x1xf32>, tensor<1x2xf32>) {top_k = 4, renormalize, scoring = #kgen.scoring<sigmoid>, n_group = 4, topk_group = 2, routed_scaling_factor = 2.5 : f32}
      : tensor<9x136xbf16>, tensor<9x16xf32>, tensor<16x136x64xf8E4M3FN>, tensor<16x136x64xf8E4M3FN>, tensor<16x64x136xf8E4M3FN> -> tensor<9x136xbf16>
  return %y : tensor<9x136xbf16>
}

// a standalone gated grouped GEMM, K = 300 (the last scale block 44 wide),
// 16-wide K tiles, rows before the first and after the last group
func.func @grouped_gated_k300(%a: tensor<40x300xbf16>, %b: tensor<3x300x96xf8E4M3FN>, %bu: tensor<3x300x96xf8E4M3FN>, %s: tensor<3x3x1xf32>, %su: tensor<3x3x1xf32>, %off: tensor<4xi32>) -> tensor<40x96xbf16> {
  %d = kgen.grouped_gemm %a, %b, %off gated(%bu : tensor<3x300x96xf8E4M3FN>) scales(%s, %su : tensor<3x3x1xf32>, tensor<3x3x1xf32>) {activation = #kgen.activation<silu>, config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 32, block_k = 16, warps_m = 1, warps_n = 2, stages = 4, source = user>}
      : tensor<40x300xbf16>, tensor<3x300x96xf8E4M3FN>, tensor<4xi32> -> tensor<40x96xbf16>
  return %d : tensor<40x96xbf16>
}
