// kgen-tune --measure: the default config and the cost model's best,
// compiled in parallel, measured in batches by a kgen-bench, the best few
// measured again in interleaved rounds, all into a tuning database that
// kgen-select-strategy reads. The bench here is a SYNTHETIC stand-in
// (Inputs/fake-kgen-bench.py: made-up times with drift between runs and
// noise), so the search itself is tested without a GPU.
// REQUIRES: kgen-bench
// RUN: rm -rf %t && mkdir -p %t
// RUN: env FAKE_BENCH_STATE=%t/bench kgen-tune %s --measure --db %t/db.json --work-dir %t/work --bench %S/Inputs/fake-kgen-bench.py --cache %t/cache --max-candidates 10 --jobs 2 | FileCheck %s
// The GPU's ceilings first (the roofline of the model; no GPU: stop here).
// CHECK: ceilings: 600 TFLOP/s matmul, 3500 GB/s copy, 132 SMs ({{.*}}ceilings.json)
// CHECK-NEXT: gemm 0: 1x512x2048x1024 bf16: {{[0-9]+}} valid configs; measuring 10 ({{[0-9]+}}% of the space): the default and the model's best
// CHECK-NEXT: compiled 10 packages in {{.*}} s on 2 threads; 0 dropped
// CHECK-NEXT: [1/10] wgmma {{.*}} ms  (model {{.*}} ms)  cuBLASLt {{.*}} ms  (default)
// CHECK: [10/10] wgmma
// CHECK-NEXT: re-measured the best 3 in 3 more interleaved rounds; paired scores (1 = the runs' median), on time over cuBLASLt in the same process:
// CHECK-COUNT-3: {{^    wgmma .* -> .* ms   runs:( [0-9.]+){4}$}}
// CHECK: op            space  measured     s   default ms     tuned ms  speed-up  tuned config
// CHECK-NEXT: {{^gemm0 +[0-9]+ +10 .* [0-9.]+x  wgmma }}
// CHECK-NEXT: kgen-tune: {{.*}}db.json: 1 entries

// Batches of 8 (a kgen-bench run each), then three rounds of the three
// finalists, each in another order; the database's best is the truly
// fastest measured candidate.
// RUN: %python %S/Inputs/check-tuned.py %t/db.json %t/bench | FileCheck %s --check-prefix=TRUTH
// TRUTH: candidates in the database: 10, correct 10
// TRUTH-NEXT: run 0: gemm0_c0 gemm0_c1 gemm0_c2 gemm0_c3 gemm0_c4 gemm0_c5 gemm0_c6 gemm0_c7
// TRUTH-NEXT: run 1: gemm0_c8 gemm0_c9
// TRUTH-NEXT: run 2: [[B:gemm0_c[0-9]]] [[C:gemm0_c[0-9]]] [[A:gemm0_c[0-9]]]
// TRUTH-NEXT: run 3: [[C]] [[A]] [[B]]
// TRUTH-NEXT: run 4: [[A]] [[B]] [[C]]
// TRUTH-NEXT: tuned choice {{.*}}: OK

// The database decides the strategy, and says so.
// RUN: kgen-opt %s --kgen-select-strategy="target=sm_90a db=%t/db.json" | FileCheck %s --check-prefix=SELECT
// SELECT: source = measured, entry = "{{.*}}db.json: 512x2048x1024 on NVIDIA H200"
// And the pipeline recompiles the gemm with it.
// RUN: kgen-opt %s --kgen-pipeline="target=sm_90a output-dir=%t/tuned db=%t/db.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=TUNED < %t/tuned/kgen_gemm_bf16_m512_n2048_k1024/manifest.json
// TUNED: "source": "measured",

// The cost model fitted to those measurements, its error before and after
// (in-sample and held out), written to a model file that ranks with.
// RUN: kgen-tune %s --report --db %t/db.json --fit --model-out %t/model.json | FileCheck %s --check-prefix=FIT
// FIT: cost model error over 10 measured candidates: median {{[0-9.]+}}%, worst {{[0-9.]+}}%
// FIT-NEXT: fitted on 10 measured candidates: compute scale simt 1.000, mma_sync 1.000, wgmma {{[0-9.]+}}; memory scale {{[0-9.]+}}
// FIT-NEXT: after the fit, in-sample: median {{[0-9.]+}}%, worst {{[0-9.]+}}%
// FIT-NEXT: after the fit, held out (2-fold): median {{[0-9.]+}}% and {{[0-9.]+}}%, worst {{[0-9.]+}}%
// FIT-NEXT: kgen-tune: wrote the fitted model to {{.*}}model.json
// RUN: kgen-tune %s --model %t/model.json --top 1 | FileCheck %s --check-prefix=MODEL
// MODEL: {{^ +0 +wgmma .* ms .* TFLOP/s$}}
// RUN: echo '{"schema": "kgen.cost-model", "version": 1, "matmul_tflops": -5}' > %t/bad-model.json
// RUN: not kgen-tune %s --model %t/bad-model.json 2>&1 | FileCheck %s --check-prefix=BADMODEL
// BADMODEL: kgen-tune: error: {{.*}}bad-model.json: matmul_tflops: expected a positive number
// RUN: not kgen-tune %s --model %t/missing-model.json 2>&1 | FileCheck %s --check-prefix=NOMODEL
// NOMODEL: kgen-tune: error: {{.*}}missing-model.json
// RUN: not kgen-tune %s --fit 2>&1 | FileCheck %s --check-prefix=FITALONE
// FITALONE: kgen-tune: error: --fit goes with --report

// A second search adds to the database; a wrong kernel is kept as such and
// never chosen.
// RUN: env FAKE_BENCH_STATE=%t/bench2 FAKE_BENCH_WRONG=gemm0_c1 kgen-tune %s --measure --db %t/db.json --work-dir %t/work --bench %S/Inputs/fake-kgen-bench.py --cache %t/cache --max-candidates 3 --rounds 1 | FileCheck %s --check-prefix=WRONG
// WRONG: [2/3] wgmma {{.*}} wrong: max error 1e3 (synthetic)
// RUN: %python -c "import json; c = json.load(open('%t/db.json'))['entries'][0]['candidates']; print(len(c), sum(not x['correct'] for x in c))" | FileCheck %s --check-prefix=WRONGDB
// WRONGDB: 13 1

// No GPU: nothing measured, the database left as it was, exit 3.
// RUN: cp %t/db.json %t/db-before.json
// RUN: env FAKE_BENCH_STATE=%t/bench3 FAKE_BENCH_NO_DEVICE=1 kgen-tune %s --measure --db %t/db.json --work-dir %t/work --bench %S/Inputs/fake-kgen-bench.py --cache %t/cache --max-candidates 2 > %t/nodev.out 2>&1 || echo "exit $?" >> %t/nodev.out
// RUN: FileCheck %s --check-prefix=NODEV < %t/nodev.out
// NODEV: kgen-tune: error: kgen-bench found no CUDA device: nothing measured, {{.*}}db.json left as it was
// NODEV: exit 3
// RUN: cmp %t/db.json %t/db-before.json

// The time budget stops the measurement between batches.
// RUN: env FAKE_BENCH_STATE=%t/bench4 not kgen-tune %s --measure --db %t/db4.json --work-dir %t/work --bench %S/Inputs/fake-kgen-bench.py --cache %t/cache --max-candidates 2 --max-seconds 0.001 | FileCheck %s --check-prefix=BUDGET
// BUDGET: time budget of 0.001 s spent: 0 of 2 candidates measured
// BUDGET: the time budget was spent before measuring (compiling took it)

// Bad options and files: exit 2, the database not overwritten.
// RUN: not kgen-tune %s --measure 2>&1 | FileCheck %s --check-prefix=NODB
// NODB: kgen-tune: error: --measure needs --db
// RUN: not kgen-tune %s --measure --db %t/db.json --bench %t/no-such-bench 2>&1 | FileCheck %s --check-prefix=NOBENCH
// NOBENCH: kgen-tune: error: cannot run {{.*}}no-such-bench (--bench)
// RUN: echo '{"schema": "kgen.tuning-db", "version": 1, "entries": [' > %t/corrupt.json
// RUN: not kgen-tune %s --measure --db %t/corrupt.json --bench %S/Inputs/fake-kgen-bench.py 2>&1 | FileCheck %s --check-prefix=CORRUPT
// CORRUPT: kgen-tune: error: {{.*}}corrupt.json: {{.*}} (not overwritten)

func.func @main(%x: tensor<512x1024xbf16>, %w: tensor<2048x1024xbf16>) -> tensor<512x2048xbf16> {
  %y = kgen.gemm %x, %w {transpose_b} : tensor<512x1024xbf16>, tensor<2048x1024xbf16> -> tensor<512x2048xbf16>
  return %y : tensor<512x2048xbf16>
}
