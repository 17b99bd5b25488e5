// Strategy selection from tuning databases. The database files are
// synthetic (made up for this test, host "synthetic"), not measurements.
// RUN: kgen-opt %s --split-input-file --verify-diagnostics --kgen-select-strategy="target=sm_90a db=%S/Inputs/synthetic-tuning-db.json" | FileCheck %s
// First database wins, even with a slower config than the second one has:
// RUN: kgen-opt %s --split-input-file --verify-diagnostics --kgen-select-strategy="target=sm_90a db=%S/Inputs/synthetic-tuning-db.json,%S/Inputs/synthetic-tuning-db-second.json" | FileCheck %s
// RUN: kgen-opt %s --split-input-file --verify-diagnostics --kgen-select-strategy="target=sm_90a db=%S/Inputs/synthetic-tuning-db-second.json,%S/Inputs/synthetic-tuning-db.json" | FileCheck %s --check-prefix=SECOND

// The fastest correct candidate of the exact entry: 128x128, 5 stages (a
// faster wrong one and a faulted one are never chosen).
// CHECK-LABEL: func.func @exact
// CHECK: block_m = 128, block_n = 128, block_k = 64, {{.*}} stages = 5, {{.*}} source = measured, entry = "{{.*}}synthetic-tuning-db.json: 4096x4096x4096 on NVIDIA H200">
// SECOND-LABEL: func.func @exact
// SECOND: block_m = 64, block_n = 128, {{.*}} stages = 6, {{.*}} source = measured, entry = "{{.*}}synthetic-tuning-db-second.json: 4096x4096x4096 on NVIDIA H200">
func.func @exact(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  %d = kgen.gemm %a, %b {transpose_b} : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xbf16>
  return %d : tensor<4096x4096xbf16>
}

// -----

// No exact entry: the nearest measured shape of the same op (M = 2048 is
// nearer to 2500 than 4096 is), searched over every database.
// CHECK-LABEL: func.func @nearest
// CHECK: block_m = 128, block_n = 256, {{.*}} stages = 3, {{.*}} source = nearest, entry = "{{.*}}synthetic-tuning-db.json: nearest 2048x4096x4096 on NVIDIA H200">
// SECOND-LABEL: func.func @nearest
// SECOND: source = nearest, entry = "{{.*}}synthetic-tuning-db.json: nearest 2048x4096x4096 on NVIDIA H200">
func.func @nearest(%a: tensor<2500x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<2500x4096xbf16> {
  %d = kgen.gemm %a, %b {transpose_b} : tensor<2500x4096xbf16>, tensor<4096x4096xbf16> -> tensor<2500x4096xbf16>
  return %d : tensor<2500x4096xbf16>
}

// -----

// Another epilogue is another op: no entry, no nearest; the cost model
// decides (its first guesses: no fitted model given), among every valid
// config.
// CHECK-LABEL: func.func @other_op
// CHECK: source = model, entry = "cost model: {{[0-9.]+}} ms predicted">
func.func @other_op(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  %d = kgen.gemm %a, %b {transpose_b, activation = #kgen.activation<relu>} : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xbf16>
  return %d : tensor<4096x4096xbf16>
}

// -----

// Only a stale entry (measured with CUDA 12.4): not used, and said. The
// same op at 4096^3 is a fresher nearest shape, though: it is taken.
// CHECK-LABEL: func.func @stale
// CHECK: source = nearest
func.func @stale(%a: tensor<8192x8192xbf16>, %b: tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> {
  %d = kgen.gemm %a, %b {transpose_b} : tensor<8192x8192xbf16>, tensor<8192x8192xbf16> -> tensor<8192x8192xbf16>
  return %d : tensor<8192x8192xbf16>
}
