// Strategy selection checks the values of the databases and models it reads
// (issue 16): a database holding a time no measurement gives or an
// incomplete op is skipped with one warning naming the file and the field;
// a candidate whose config the gemm legality refuses is skipped with one
// warning per database entry, and the next legal candidate is taken; none
// of these messages carries the module's IR, even with
// --mlir-print-op-on-diagnostic. The databases are edits of the SYNTHETIC
// Inputs/synthetic-tuning-db.json, whose exact entry for this gemm has
// 128x128 s5 (0.185 ms) as its fastest candidate, then 128x256 s4 (0.19 ms).
// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{edit} = %python %S/../Tools/Inputs/json-edit.py %S/Inputs/synthetic-tuning-db.json

// A -5 ms or a 0 ms candidate never wins as measured: the file is skipped.
// RUN: %{edit} %t/negative.json /entries/0/candidates/0/time/median_ms=-5
// RUN: kgen-opt %s --kgen-select-strategy="target=sm_90a db=%t/negative.json" 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: warning: kgen-select-strategy: skipping tuning database: {{.*}}negative.json: entries[0].candidates[0].time{{.*}}: expected
// NEGATIVE-NOT: source = measured
// NEGATIVE: source = model
// NEGATIVE-NOT: source = measured
// RUN: %{edit} %t/zero.json /entries/0/candidates/0/time/median_ms=0 /entries/0/candidates/0/time/q1_ms=0 /entries/0/candidates/0/time/min_ms=0
// RUN: kgen-opt %s --kgen-select-strategy="target=sm_90a db=%t/zero.json" 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: warning: kgen-select-strategy: skipping tuning database: {{.*}}zero.json: entries[0].candidates[0].time.median_ms: expected
// ZERO-NOT: source = measured

// An op of just {"kind": "gemm"}, or one with a field no signature has.
// RUN: %{edit} %t/junk-op.json '/entries/1/key/op={"kind": "gemm"}'
// RUN: kgen-opt %s --kgen-select-strategy="target=sm_90a db=%t/junk-op.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=JUNK
// JUNK: warning: kgen-select-strategy: skipping tuning database: {{.*}}junk-op.json: entries[1].key.op.batch: missing
// RUN: %{edit} %t/extra.json /entries/0/key/op/acc=\"f16\"
// RUN: kgen-opt %s --kgen-select-strategy="target=sm_90a db=%t/extra.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXTRA
// EXTRA: warning: kgen-select-strategy: skipping tuning database: {{.*}}extra.json: entries[0].key.op: unknown field "acc"

// block_m 7 on the fastest candidate: a warning with the file, the entry and
// the legality's message; the next legal candidate (128x256 s4) is taken.
// RUN: %{edit} %t/block-m-7.json /entries/0/candidates/1/config/block_m=7
// RUN: kgen-opt %s --kgen-select-strategy="target=sm_90a db=%t/block-m-7.json" 2>&1 | FileCheck %s --check-prefix=BM7
// BM7: warning: kgen-select-strategy: tuning database {{.*}}block-m-7.json: entries[0].candidates[1].config.block_m: 7; {{.*}} (gemm legality); candidate skipped
// BM7: block_m = 128, block_n = 256, {{.*}} stages = 4, {{.*}} source = measured, entry = "{{.*}}block-m-7.json: 4096x4096x4096 on NVIDIA H200"

// Two refused candidates in one entry, looked at for two gemms: one warning.
// Nothing legal is left in the entry: the nearest shape's entry decides.
// RUN: %{edit} %t/two.json /entries/0/candidates/1/config/block_m=7 /entries/0/candidates/0/config/split_k=100000
// RUN: kgen-opt %s --kgen-select-strategy="target=sm_90a db=%t/two.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ONCE
// ONCE-COUNT-1: warning:
// ONCE-NOT: warning:
// RUN: kgen-opt %s --kgen-select-strategy="target=sm_90a db=%t/two.json" 2>/dev/null | FileCheck %s --check-prefix=NEAREST
// NEAREST-COUNT-2: source = nearest, entry = "{{.*}}two.json: nearest 2048x4096x4096 on NVIDIA H200"
// A missing config field is named as well.
// RUN: %{edit} %t/no-stages.json /entries/0/candidates/1/config/stages=!delete
// RUN: kgen-opt %s --kgen-select-strategy="target=sm_90a db=%t/no-stages.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFIELD
// NOFIELD: warning: kgen-select-strategy: tuning database {{.*}}no-stages.json: entries[0].candidates[1].config.stages: missing; candidate skipped

// One line per message, never the IR, whatever the tool's flags say.
// RUN: kgen-opt %s --mlir-print-op-on-diagnostic=true --kgen-select-strategy="target=sm_90a db=%t/negative.json,%t/block-m-7.json" -o /dev/null > %t/noir.out 2>&1
// RUN: FileCheck %s --check-prefix=NOIR < %t/noir.out
// RUN: %python -c "import sys; print('lines', len(open(sys.argv[1]).read().splitlines()))" %t/noir.out | FileCheck %s --check-prefix=NOIR-LINES
// NOIR: warning: kgen-select-strategy: skipping tuning database: {{.*}}negative.json
// NOIR-NEXT: warning: kgen-select-strategy: tuning database {{.*}}block-m-7.json
// NOIR-NOT: see current operation
// NOIR-NOT: kgen.gemm
// NOIR-LINES: lines 2

// 200k levels of nesting: one line, not a stack overflow.
// RUN: %{edit} %t/deep.json /entries/0/key/op/x=!deep:200000
// RUN: kgen-opt %s --kgen-select-strategy="target=sm_90a db=%t/deep.json" -o /dev/null > %t/deep.out 2>&1
// RUN: FileCheck %s --check-prefix=DEEP < %t/deep.out
// RUN: %python -c "import sys; print('lines', len(open(sys.argv[1]).read().splitlines()))" %t/deep.out | FileCheck %s --check-prefix=DEEP-LINES
// DEEP: warning: kgen-select-strategy: skipping tuning database: {{.*}}deep.json: {{.*}}
// DEEP-LINES: lines 1

// Model files: an SM count of 132.5 or 2^62 is an error naming the field.
// RUN: %python %S/../Tools/Inputs/json-edit.py %S/Inputs/synthetic-cost-model.json %t/sm-fraction.json /sm_count=132.5
// RUN: not kgen-opt %s --mlir-print-op-on-diagnostic=true --kgen-select-strategy="target=sm_90a model=%t/sm-fraction.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SMFRAC
// SMFRAC: error: kgen-select-strategy: {{.*}}sm-fraction.json: sm_count: expected an integer in [1, 4096], got 132.5
// SMFRAC-NOT: see current operation
// RUN: %python %S/../Tools/Inputs/json-edit.py %S/Inputs/synthetic-cost-model.json %t/sm-huge.json /sm_count=4611686018427387904
// RUN: not kgen-opt %s --kgen-select-strategy="target=sm_90a model=%t/sm-huge.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SMHUGE
// SMHUGE: error: kgen-select-strategy: {{.*}}sm-huge.json: sm_count: expected an integer in [1, 4096], got 4611686018427387904
// RUN: %python %S/../Tools/Inputs/json-edit.py %S/Inputs/synthetic-cost-model.json %t/memory.json /memory_scale=\"1\"
// RUN: not kgen-opt %s --kgen-select-strategy="target=sm_90a model=%t/memory.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MEMORY
// MEMORY: error: kgen-select-strategy: {{.*}}memory.json: memory_scale: expected a positive number in [0.001, 1000], got "1"

func.func @two_gemms(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) {
  %d = kgen.gemm %a, %b {transpose_b} : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xbf16>
  %e = kgen.gemm %a, %b {transpose_b} : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xbf16>
  return %d, %e : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>
}
