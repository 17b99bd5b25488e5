// kgen-tune checks what it reads and writes in tuning databases and cost
// models against its meaning (issue 16): an import that would record an
// invalid measurement is refused, with one line naming the file and the
// field, and the database is left as it was; the same results imported
// twice are recorded once. The results are SYNTHETIC
// (Inputs/synthetic-results.json: made up, host "synthetic").
// RUN: rm -rf %t && mkdir -p %t
// RUN: cp %S/Inputs/synthetic-results.json %t/results.json

// Imported twice: merged, the second import adds nothing.
// RUN: kgen-tune --import %t/results.json --db %t/db.json | FileCheck %s --check-prefix=FIRST
// FIRST: kgen-tune: added 2 measured candidates to {{.*}}db.json (1 entries)
// FIRST-NOT: already
// RUN: kgen-tune --import %t/results.json --db %t/db.json | FileCheck %s --check-prefix=AGAIN
// AGAIN: kgen-tune: added 0 measured candidates to {{.*}}db.json (1 entries); 2 already recorded (same config, time and host), not added again
// RUN: %python -c "import json; print('candidates', [len(e['candidates']) for e in json.load(open('%t/db.json'))['entries']])" | FileCheck %s --check-prefix=COUNT
// COUNT: candidates [2]
// RUN: cp %t/db.json %t/db-before.json

// A negative or zero time (refused by the results reader or the import).
// RUN: %python %S/Inputs/json-edit.py %S/Inputs/synthetic-results.json %t/negative.json /results/1/time/median_ms=-1
// RUN: sh -c 'kgen-tune --import %t/negative.json --db %t/db.json; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: kgen-tune: error: {{.*}}negative.json: results[1].time{{.*}}: expected
// NEGATIVE-NEXT: exit 2
// RUN: %python %S/Inputs/json-edit.py %S/Inputs/synthetic-results.json %t/zero.json /results/0/time/median_ms=0 /results/0/time/q1_ms=0 /results/0/time/min_ms=0
// RUN: sh -c 'kgen-tune --import %t/zero.json --db %t/db.json; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: kgen-tune: error: {{.*}}zero.json: results[0].time{{.*}}median_ms{{.*}}: expected
// ZERO-NEXT: exit 2

// An op of just {"kind": "gemm"}: no junk entry.
// RUN: %python %S/Inputs/json-edit.py %S/Inputs/synthetic-results.json %t/junk-op.json '/results/1/op={"kind": "gemm"}'
// RUN: sh -c 'kgen-tune --import %t/junk-op.json --db %t/db.json; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=JUNK
// JUNK: kgen-tune: error: {{.*}}junk-op.json: results[1].op.batch: missing; nothing imported, {{.*}}db.json left as it was
// JUNK-NEXT: exit 2
// RUN: %python %S/Inputs/json-edit.py %S/Inputs/synthetic-results.json %t/typo-op.json /results/0/op/tranpose_b=true
// RUN: not kgen-tune --import %t/typo-op.json --db %t/db.json 2>&1 | FileCheck %s --check-prefix=TYPO
// TYPO: kgen-tune: error: {{.*}}typo-op.json: results[0].op: unknown field "tranpose_b" (a gemm signature has exactly: kind batch m n k

// Configs no gemm can have (the gemm legality), and a target that is no arch.
// RUN: %python %S/Inputs/json-edit.py %S/Inputs/synthetic-results.json %t/block-m-7.json /results/1/config/block_m=7
// RUN: not kgen-tune --import %t/block-m-7.json --db %t/db.json 2>&1 | FileCheck %s --check-prefix=BM7
// BM7: kgen-tune: error: {{.*}}block-m-7.json: results[1].config: gemm_config 'block_m': 7{{.*}}; nothing imported
// RUN: %python %S/Inputs/json-edit.py %S/Inputs/synthetic-results.json %t/split-k.json /results/0/config/split_k=100000
// RUN: not kgen-tune --import %t/split-k.json --db %t/db.json 2>&1 | FileCheck %s --check-prefix=SPLITK
// SPLITK: kgen-tune: error: {{.*}}split-k.json: results[0].config: gemm_config 'split_k': 100000{{.*}}; nothing imported
// RUN: %python %S/Inputs/json-edit.py %S/Inputs/synthetic-results.json %t/no-field.json /results/0/config/stages=!delete
// RUN: not kgen-tune --import %t/no-field.json --db %t/db.json 2>&1 | FileCheck %s --check-prefix=NOFIELD
// NOFIELD: kgen-tune: error: {{.*}}no-field.json: results[0].config: not a complete gemm_config (a field is missing or mistyped); nothing imported
// RUN: %python %S/Inputs/json-edit.py %S/Inputs/synthetic-results.json %t/arch.json '/results/0/config/target="sm_90a;rm -rf /"'
// RUN: not kgen-tune --import %t/arch.json --db %t/db.json 2>&1 | FileCheck %s --check-prefix=ARCH
// ARCH: kgen-tune: error: {{.*}}arch.json: results[0].config.target: expected an arch like "sm_80" or "sm_90a", got "sm_90a;rm -rf /"; nothing imported

// None of them changed the database.
// RUN: cmp %t/db.json %t/db-before.json

// Databases that hold such values are refused where they are read, in one
// line: a -5 ms candidate, an incomplete op, 200k levels of nesting.
// RUN: %python %S/Inputs/json-edit.py %t/db.json %t/db-negative.json /entries/0/candidates/0/time/median_ms=-5
// RUN: sh -c 'kgen-tune %s --report --db %t/db-negative.json; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=DBNEG
// DBNEG: kgen-tune: error: {{.*}}db-negative.json: entries[0].candidates[0].time{{.*}}: expected
// DBNEG-NEXT: exit 2
// RUN: sh -c 'kgen-tune --import %t/results.json --db %t/db-negative.json; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=DBNEG-IMPORT
// DBNEG-IMPORT: kgen-tune: error: {{.*}}db-negative.json: entries[0].candidates[0].time{{.*}}: expected {{.*}} (not overwritten)
// DBNEG-IMPORT-NEXT: exit 2
// RUN: %python %S/Inputs/json-edit.py %t/db.json %t/db-junk.json '/entries/0/key/op={"kind": "gemm"}'
// RUN: not kgen-tune %s --report --db %t/db-junk.json 2>&1 | FileCheck %s --check-prefix=DBJUNK
// DBJUNK: kgen-tune: error: {{.*}}db-junk.json: entries[0].key.op.batch: missing
// RUN: %python %S/Inputs/json-edit.py %t/db.json %t/db-deep.json /entries/0/key/op/x=!deep:200000
// RUN: sh -c 'kgen-tune %s --report --db %t/db-deep.json; echo "exit $?"' > %t/deep.out 2>&1
// RUN: FileCheck %s --check-prefix=DEEP < %t/deep.out
// RUN: %python -c "import sys; n = len(open(sys.argv[1]).read().splitlines()); print('lines', n)" %t/deep.out | FileCheck %s --check-prefix=DEEP-LINES
// DEEP: kgen-tune: error: {{.*}}db-deep.json: {{.*}}
// DEEP-NEXT: exit 2
// DEEP-LINES: lines 2

// Cost models: every value an integer or number in its range, or the
// model file is refused, naming the field.
// RUN: %python %S/Inputs/json-edit.py %S/../Passes/Inputs/synthetic-cost-model.json %t/sm-fraction.json /sm_count=132.5
// RUN: sh -c 'kgen-tune %s --model %t/sm-fraction.json; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=SMFRAC
// SMFRAC: kgen-tune: error: {{.*}}sm-fraction.json: sm_count: expected an integer in [1, 4096], got 132.5
// SMFRAC-NEXT: exit 2
// RUN: %python %S/Inputs/json-edit.py %S/../Passes/Inputs/synthetic-cost-model.json %t/sm-huge.json /sm_count=4611686018427387904
// RUN: not kgen-tune %s --model %t/sm-huge.json 2>&1 | FileCheck %s --check-prefix=SMHUGE
// SMHUGE: kgen-tune: error: {{.*}}sm-huge.json: sm_count: expected an integer in [1, 4096], got 4611686018427387904
// RUN: %python %S/Inputs/json-edit.py %S/../Passes/Inputs/synthetic-cost-model.json %t/tflops.json /matmul_tflops=1e300
// RUN: not kgen-tune %s --model %t/tflops.json 2>&1 | FileCheck %s --check-prefix=TFLOPS
// TFLOPS: kgen-tune: error: {{.*}}tflops.json: matmul_tflops: expected a positive number in (0, 100000], got 1e+300
// RUN: %python %S/Inputs/json-edit.py %S/../Passes/Inputs/synthetic-cost-model.json %t/scale.json /compute_scale/wgmma=0
// RUN: not kgen-tune %s --model %t/scale.json 2>&1 | FileCheck %s --check-prefix=SCALE
// SCALE: kgen-tune: error: {{.*}}scale.json: compute_scale.wgmma: expected a positive number in [0.001, 1000], got 0
// RUN: %python %S/Inputs/json-edit.py %S/../Passes/Inputs/synthetic-cost-model.json %t/launch.json /launch_us=!delete
// RUN: not kgen-tune %s --model %t/launch.json 2>&1 | FileCheck %s --check-prefix=LAUNCH
// LAUNCH: kgen-tune: error: {{.*}}launch.json: launch_us: missing; expected a positive number in (0, 10000]
// RUN: %python %S/Inputs/json-edit.py %S/../Passes/Inputs/synthetic-cost-model.json %t/fitted.json /fitted_on=-3
// RUN: not kgen-tune %s --model %t/fitted.json 2>&1 | FileCheck %s --check-prefix=FITTED
// FITTED: kgen-tune: error: {{.*}}fitted.json: fitted_on: expected an integer in [0, 9007199254740992], got -3
// RUN: %python %S/Inputs/json-edit.py %S/../Passes/Inputs/synthetic-cost-model.json %t/model-deep.json /compute_scale/x=!deep:200000
// RUN: sh -c 'kgen-tune %s --model %t/model-deep.json --top 1; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=MODEL-DEEP
// MODEL-DEEP: {{error|valid configs}}
// MODEL-DEEP-NOT: Stack trace
// MODEL-DEEP: exit {{0|2}}

func.func @main(%x: tensor<4096x4096xbf16>, %w: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  %d = kgen.gemm %x, %w {transpose_b} : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xbf16>
  return %d : tensor<4096x4096xbf16>
}
