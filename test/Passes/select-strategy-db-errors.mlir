// Databases that cannot be used: a warning naming the file, and the rest of
// the selection goes on (the default here). A stale-only entry gets a remark.
// RUN: kgen-opt %s --kgen-select-strategy="target=sm_90a db=%S/Inputs/corrupt-tuning-db.json,%S/Inputs/synthetic-tuning-db-v2.json,%t.missing.json" 2>&1 | FileCheck %s
// RUN: kgen-opt %s --verify-diagnostics --kgen-select-strategy="target=sm_90a db=%S/Inputs/synthetic-tuning-db-stale.json" -o /dev/null
// CHECK-DAG: warning: kgen-select-strategy: skipping tuning database: {{.*}}corrupt-tuning-db.json
// CHECK-DAG: warning: kgen-select-strategy: skipping tuning database: {{.*}}synthetic-tuning-db-v2.json{{.*}}version 2
// CHECK-DAG: warning: kgen-select-strategy: skipping tuning database: {{.*}}.missing.json
// Databases were asked for, none could be read: the cost model decides.
// CHECK: source = model, entry = "cost model: {{[0-9.]+}} ms predicted">
// A fitted model file names itself; a bad one is an error.
// RUN: kgen-opt %s --kgen-select-strategy="target=sm_90a model=%S/Inputs/synthetic-cost-model.json" 2>&1 | FileCheck %s --check-prefix=MODEL
// MODEL: source = model, entry = "cost model {{.*}}synthetic-cost-model.json: {{[0-9.]+}} ms predicted">
// RUN: not kgen-opt %s --kgen-select-strategy="target=sm_90a model=%t.missing-model.json" 2>&1 | FileCheck %s --check-prefix=BADMODEL
// BADMODEL: error: kgen-select-strategy: {{.*}}missing-model.json
// Neither databases nor a model: the heuristic.
// RUN: kgen-opt %s --kgen-select-strategy="target=sm_90a" 2>&1 | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: source = default>

func.func @stale_only(%a: tensor<8192x8192xbf16>, %b: tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> {
  // Only an entry measured with CUDA 12.4 (synthetic-tuning-db-stale.json).
  // expected-remark @+1 {{stale, the cost model decides}}
  %d = kgen.gemm %a, %b {transpose_b} : tensor<8192x8192xbf16>, tensor<8192x8192xbf16> -> tensor<8192x8192xbf16>
  return %d : tensor<8192x8192xbf16>
}
