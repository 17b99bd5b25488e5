// kgen-select-strategy on kgen.moe from tuning databases, as for gemm and
// attention: each expert GEMM is its own key (docs/tuning-db.md: role
// gate_up or down, experts, top_k, k, n, types and the tokens bucket, the
// smallest power of two >= T). Measured: the fastest correct candidate of
// the entry with that key (so T = 50 takes T = 64's entry); else nearest:
// another bucket of the same op and regime (decode-like, at most 16 rows
// per expert hit at the bucket, or prefill-like), the nearest on log
// tokens, its config re-checked against the grouped GEMM legality; else
// the cost model, which says so in the entry. The database is SYNTHETIC
// (host "synthetic"), not measurements:
// Inputs/synthetic-moe-tuning-db.json.
// RUN: kgen-opt %s --split-input-file --kgen-select-strategy="target=sm_90a db=%S/Inputs/synthetic-moe-tuning-db.json" 2>/dev/null | FileCheck %s
// The warnings (a stored config skipped) and remarks (stale), in order.
// RUN: kgen-opt %s --split-input-file --kgen-select-strategy="target=sm_90a db=%S/Inputs/synthetic-moe-tuning-db.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DIAG
// Every chosen config lowers.
// RUN: kgen-opt %s --split-input-file --kgen-select-strategy="target=sm_90a db=%S/Inputs/synthetic-moe-tuning-db.json" --kgen-lower-moe-to-tiles -o /dev/null 2>/dev/null
// On sm_80 no entry matches (the target is part of the key): the model.
// RUN: kgen-opt %s --split-input-file --kgen-select-strategy="target=sm_80 db=%S/Inputs/synthetic-moe-tuning-db.json" 2>/dev/null | FileCheck %s --check-prefix=SM80

// Mixtral-8x7B's experts at 64 tokens: each role's entry, its fastest
// correct candidate (a faster faulted one is never chosen).
// CHECK-LABEL: func.func @exact(
// CHECK: down_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 64, block_k = 32, warps_m = 1, warps_n = 4, stages = 4, source = measured, entry = "{{.*}}synthetic-moe-tuning-db.json: down e8 top2 k14336 n4096 T33-64 on NVIDIA H200">
// CHECK-SAME: gate_up_config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 32, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, source = measured, entry = "{{.*}}synthetic-moe-tuning-db.json: gate_up e8 top2 k4096 n14336 T33-64 on NVIDIA H200">
// SM80-LABEL: func.func @exact(
// SM80: down_config = {{[^>]*}} source = model, entry = "cost model: {{[0-9.]+}} ms predicted">
// SM80-SAME: gate_up_config = {{[^>]*}} source = model, entry = "cost model: {{[0-9.]+}} ms predicted">
func.func @exact(%x: tensor<64x4096xbf16>, %l: tensor<64x8xf32>, %wg: tensor<8x4096x14336xbf16>, %wu: tensor<8x4096x14336xbf16>, %wd: tensor<8x14336x4096xbf16>) -> tensor<64x4096xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2, renormalize}
      : tensor<64x4096xbf16>, tensor<64x8xf32>, tensor<8x4096x14336xbf16>, tensor<8x4096x14336xbf16>, tensor<8x14336x4096xbf16> -> tensor<64x4096xbf16>
  return %y : tensor<64x4096xbf16>
}

// -----

// 50 tokens are in 64's bucket: the same entries, measured (not nearest).
// CHECK-LABEL: func.func @same_bucket(
// CHECK: down_config = {{[^>]*}}block_m = 16, block_n = 64, {{.*}}source = measured, entry = "{{.*}}: down e8 top2 k14336 n4096 T33-64 on NVIDIA H200">
// CHECK-SAME: gate_up_config = {{[^>]*}}block_m = 32, block_n = 64, {{.*}}source = measured, entry = "{{.*}}: gate_up e8 top2 k4096 n14336 T33-64 on NVIDIA H200">
func.func @same_bucket(%x: tensor<50x4096xbf16>, %l: tensor<50x8xf32>, %wg: tensor<8x4096x14336xbf16>, %wu: tensor<8x4096x14336xbf16>, %wd: tensor<8x14336x4096xbf16>) -> tensor<50x4096xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2, renormalize}
      : tensor<50x4096xbf16>, tensor<50x8xf32>, tensor<8x4096x14336xbf16>, tensor<8x4096x14336xbf16>, tensor<8x14336x4096xbf16> -> tensor<50x4096xbf16>
  return %y : tensor<50x4096xbf16>
}

// -----

// 8 tokens: the gate_up entry's fastest candidate has block_m 8, which no
// grouped GEMM can have: warned about (the file, the candidate, the field,
// the legality) and skipped; its next candidate is taken.
// DIAG: warning: kgen-select-strategy: tuning database {{.*}}synthetic-moe-tuning-db.json: entries[4].candidates[0].config.block_m: 8; expected 16 to 128 rows per expert tile (grouped GEMM legality); candidate skipped
// CHECK-LABEL: func.func @illegal_skipped(
// CHECK: down_config = {{[^>]*}}source = measured, entry = "{{.*}}: down e8 top2 k14336 n4096 T5-8 on NVIDIA H200">
// CHECK-SAME: gate_up_config = {{[^>]*}}block_m = 16, block_n = 64, block_k = 32, warps_m = 1, warps_n = 4, stages = 4, source = measured, entry = "{{.*}}: gate_up e8 top2 k4096 n14336 T5-8 on NVIDIA H200">
func.func @illegal_skipped(%x: tensor<8x4096xbf16>, %l: tensor<8x8xf32>, %wg: tensor<8x4096x14336xbf16>, %wu: tensor<8x4096x14336xbf16>, %wd: tensor<8x14336x4096xbf16>) -> tensor<8x4096xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2, renormalize}
      : tensor<8x4096xbf16>, tensor<8x8xf32>, tensor<8x4096x14336xbf16>, tensor<8x4096x14336xbf16>, tensor<8x14336x4096xbf16> -> tensor<8x4096xbf16>
  return %y : tensor<8x4096xbf16>
}

// -----

// 16 tokens: the gate_up entry's fastest tile (128 x 256) is legal for a
// plain grouped GEMM but not for the gated one (twice the accumulators):
// its own entry, so warned about, and the next candidate taken.
// DIAG: warning: kgen-select-strategy: tuning database {{.*}}: entries[6].candidates[0].config.block_n: the gated form holds two B tiles {{.*}} (grouped GEMM legality, for this grouped GEMM); candidate skipped
// CHECK-LABEL: func.func @illegal_for_this_op(
// CHECK: gate_up_config = {{[^>]*}}block_m = 16, block_n = 64, block_k = 16, warps_m = 1, warps_n = 4, stages = 4, source = measured, entry = "{{.*}}: gate_up e8 top2 k4096 n14336 T9-16 on NVIDIA H200">
func.func @illegal_for_this_op(%x: tensor<16x4096xbf16>, %l: tensor<16x8xf32>, %wg: tensor<8x4096x14336xbf16>, %wu: tensor<8x4096x14336xbf16>, %wd: tensor<8x14336x4096xbf16>) -> tensor<16x4096xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2, renormalize}
      : tensor<16x4096xbf16>, tensor<16x8xf32>, tensor<8x4096x14336xbf16>, tensor<8x4096x14336xbf16>, tensor<8x14336x4096xbf16> -> tensor<16x4096xbf16>
  return %y : tensor<16x4096xbf16>
}

// -----

// Qwen3-30B-A3B's experts at 200 tokens (bucket 256: 16 rows per expert,
// decode-like): no entry. The 512 bucket is nearer on log tokens (0.69
// against 1.39) but prefill-like (32 rows per expert); the 64 bucket's
// configs are borrowed, re-checked for this op.
// CHECK-LABEL: func.func @nearest_same_regime(
// CHECK: down_config = {{[^>]*}}block_m = 16, block_n = 128, block_k = 32, warps_m = 1, warps_n = 4, stages = 4, source = nearest, entry = "{{.*}}: nearest down e128 top8 k768 n2048 T33-64 on NVIDIA H200">
// CHECK-SAME: gate_up_config = {{[^>]*}}block_m = 16, block_n = 64, block_k = 32, warps_m = 1, warps_n = 4, stages = 4, source = nearest, entry = "{{.*}}: nearest gate_up e128 top8 k2048 n768 T33-64 on NVIDIA H200">
func.func @nearest_same_regime(%x: tensor<200x2048xbf16>, %l: tensor<200x128xf32>, %wg: tensor<128x2048x768xbf16>, %wu: tensor<128x2048x768xbf16>, %wd: tensor<128x768x2048xbf16>) -> tensor<200x2048xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 8, renormalize}
      : tensor<200x2048xbf16>, tensor<200x128xf32>, tensor<128x2048x768xbf16>, tensor<128x2048x768xbf16>, tensor<128x768x2048xbf16> -> tensor<200x2048xbf16>
  return %y : tensor<200x2048xbf16>
}

// -----

// 3000 tokens (bucket 4096, prefill-like): the 2048 bucket is nearest.
// CHECK-LABEL: func.func @nearest_prefill(
// CHECK: down_config = {{[^>]*}}block_m = 128, block_n = 128, {{.*}}source = nearest, entry = "{{.*}}: nearest down e128 top8 k768 n2048 T1025-2048 on NVIDIA H200">
// CHECK-SAME: gate_up_config = {{[^>]*}}block_m = 128, block_n = 128, {{.*}}source = nearest, entry = "{{.*}}: nearest gate_up e128 top8 k2048 n768 T1025-2048 on NVIDIA H200">
func.func @nearest_prefill(%x: tensor<3000x2048xbf16>, %l: tensor<3000x128xf32>, %wg: tensor<128x2048x768xbf16>, %wu: tensor<128x2048x768xbf16>, %wd: tensor<128x768x2048xbf16>) -> tensor<3000x2048xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 8, renormalize}
      : tensor<3000x2048xbf16>, tensor<3000x128xf32>, tensor<128x2048x768xbf16>, tensor<128x2048x768xbf16>, tensor<128x768x2048xbf16> -> tensor<3000x2048xbf16>
  return %y : tensor<3000x2048xbf16>
}

// -----

// Mixtral at 200 tokens (bucket 256: 64 rows per expert, prefill-like):
// its entries are all decode-like, so none stands for it: the cost model
// decides, and says so.
// CHECK-LABEL: func.func @other_regime(
// CHECK: down_config = {{[^>]*}}source = model, entry = "cost model: {{[0-9.]+}} ms predicted">
// CHECK-SAME: gate_up_config = {{[^>]*}}source = model, entry = "cost model: {{[0-9.]+}} ms predicted">
func.func @other_regime(%x: tensor<200x4096xbf16>, %l: tensor<200x8xf32>, %wg: tensor<8x4096x14336xbf16>, %wu: tensor<8x4096x14336xbf16>, %wd: tensor<8x14336x4096xbf16>) -> tensor<200x4096xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2, renormalize}
      : tensor<200x4096xbf16>, tensor<200x8xf32>, tensor<8x4096x14336xbf16>, tensor<8x4096x14336xbf16>, tensor<8x14336x4096xbf16> -> tensor<200x4096xbf16>
  return %y : tensor<200x4096xbf16>
}

// -----

// Other types are another key: f16 Mixtral at 64 tokens, the model.
// CHECK-LABEL: func.func @other_types(
// CHECK: down_config = {{[^>]*}}source = model,
// CHECK-SAME: gate_up_config = {{[^>]*}}source = model,
func.func @other_types(%x: tensor<64x4096xf16>, %l: tensor<64x8xf32>, %wg: tensor<8x4096x14336xf16>, %wu: tensor<8x4096x14336xf16>, %wd: tensor<8x14336x4096xf16>) -> tensor<64x4096xf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2, renormalize}
      : tensor<64x4096xf16>, tensor<64x8xf32>, tensor<8x4096x14336xf16>, tensor<8x4096x14336xf16>, tensor<8x14336x4096xf16> -> tensor<64x4096xf16>
  return %y : tensor<64x4096xf16>
}

// -----

// DeepSeek-V2-Lite's experts at one token: only stale entries (CUDA
// 12.4): not used, and said, for each GEMM; the model decides.
// DIAG: remark: tuning entries for this MoE layer's gated expert GEMM were measured with another toolchain (now CUDA {{[0-9.]+}}, emitter 1): stale, the cost model decides
// DIAG: remark: tuning entries for this MoE layer's down expert GEMM were measured with another toolchain
// CHECK-LABEL: func.func @stale(
// CHECK: down_config = {{[^>]*}}source = model,
// CHECK-SAME: gate_up_config = {{[^>]*}}source = model,
func.func @stale(%x: tensor<1x2048xbf16>, %l: tensor<1x64xf32>, %wg: tensor<64x2048x1408xbf16>, %wu: tensor<64x2048x1408xbf16>, %wd: tensor<64x1408x2048xbf16>) -> tensor<1x2048xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 6, renormalize}
      : tensor<1x2048xbf16>, tensor<1x64xf32>, tensor<64x2048x1408xbf16>, tensor<64x2048x1408xbf16>, tensor<64x1408x2048xbf16> -> tensor<1x2048xbf16>
  return %y : tensor<1x2048xbf16>
}

// -----

// A kgen.grouped_gemm of its own is keyed with role grouped, its rows as
// tokens (100: bucket 128), top_k 1.
// CHECK-LABEL: func.func @grouped(
// CHECK: config = #kgen.grouped_gemm_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 64, block_k = 32, warps_m = 1, warps_n = 2, stages = 2, source = measured, entry = "{{.*}}: grouped e8 top1 k256 n512 T65-128 on NVIDIA H200">
func.func @grouped(%a: tensor<100x256xbf16>, %b: tensor<8x256x512xbf16>, %off: tensor<9xi32>) -> tensor<100x512xbf16> {
  %d = kgen.grouped_gemm %a, %b, %off : tensor<100x256xbf16>, tensor<8x256x512xbf16>, tensor<9xi32> -> tensor<100x512xbf16>
  return %d : tensor<100x512xbf16>
}
