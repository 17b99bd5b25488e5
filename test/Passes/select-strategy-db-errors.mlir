// Databases that cannot be used: a warning naming the file, and the rest of
// the selection goes on (the default here). A stale-only entry gets a remark.
// RUN: kgen-opt %s --kgen-select-strategy="target=sm_90a db=%S/Inputs/corrupt-tuning-db.json,%S/Inputs/synthetic-tuning-db-v2.json,%t.missing.json" 2>&1 | FileCheck %s
// RUN: kgen-opt %s --verify-diagnostics --kgen-select-strategy="target=sm_90a db=%S/Inputs/synthetic-tuning-db-stale.json" -o /dev/null
// CHECK-DAG: warning: kgen-select-strategy: skipping tuning database: {{.*}}corrupt-tuning-db.json
// CHECK-DAG: warning: kgen-select-strategy: skipping tuning database: {{.*}}synthetic-tuning-db-v2.json{{.*}}version 2
// CHECK-DAG: warning: kgen-select-strategy: skipping tuning database: {{.*}}.missing.json
// CHECK: source = default>

func.func @stale_only(%a: tensor<8192x8192xbf16>, %b: tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> {
  // Only an entry measured with CUDA 12.4 (synthetic-tuning-db-stale.json).
  // expected-remark @+1 {{tuning entries for this gemm were measured with another toolchain}}
  %d = kgen.gemm %a, %b {transpose_b} : tensor<8192x8192xbf16>, tensor<8192x8192xbf16> -> tensor<8192x8192xbf16>
  return %d : tensor<8192x8192xbf16>
}
