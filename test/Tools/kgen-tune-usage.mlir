// kgen-tune's usage errors (issue 16 item 5): each is one line and exit 2,
// before any file is read or anything is ranked, compiled or measured.
// Each run prints the tool's output, then its exit code; a check prefix
// X-NOT: {{.}} first means nothing came before the message.
//
// An option that takes a value, given twice: the tool reads and writes one
// database (one model, one target, ...), so the last would win silently.
// RUN: sh -c 'kgen-tune %s --report --db=%t.a.json --db=%t.b.json; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=DB-TWICE
// RUN: sh -c 'kgen-tune --import=%t.r.json --db %t.a.json --db %t.b.json; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=DB-TWICE
// DB-TWICE-NOT: {{.}}
// DB-TWICE:      kgen-tune: error: --db is given 2 times; give it once
// DB-TWICE-NEXT: exit 2
// RUN: sh -c 'kgen-tune %s --target=sm_80 --target=sm_90a; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=TARGET-TWICE
// TARGET-TWICE-NOT: {{.}}
// TARGET-TWICE:      kgen-tune: error: --target is given 2 times; give it once
// TARGET-TWICE-NEXT: exit 2
//
// --top and --all both say how many candidates to keep.
// RUN: sh -c 'kgen-tune %s --top=3 --all; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=TOP-ALL
// TOP-ALL-NOT: {{.}}
// TOP-ALL:      kgen-tune: error: --top and --all both say how many candidates to keep: give one
// TOP-ALL-NEXT: exit 2
//
// --model-out writes what --fit fits (and nothing is written); --fit goes
// with --report.
// RUN: rm -f %t.model.json
// RUN: sh -c 'kgen-tune %s --model-out=%t.model.json; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=MODEL-OUT
// RUN: sh -c 'kgen-tune %s --report --db=%t.a.json --model-out=%t.model.json; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=MODEL-OUT
// RUN: not test -e %t.model.json
// MODEL-OUT-NOT: {{.}}
// MODEL-OUT:      kgen-tune: error: --model-out writes the model --fit fits: give --report --fit too
// MODEL-OUT-NEXT: exit 2
// RUN: sh -c 'kgen-tune %s --measure --fit --db=%t.a.json; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=FIT
// FIT-NOT: {{.}}
// FIT:      kgen-tune: error: --fit goes with --report
// FIT-NEXT: exit 2
//
// One mode at a time; --import reads no module.
// RUN: sh -c 'kgen-tune %s --measure --report --db=%t.a.json; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=MODES
// MODES-NOT: {{.}}
// MODES:      kgen-tune: error: --import, --measure, --report, --json and --packages are separate modes: give one
// MODES-NEXT: exit 2
// RUN: sh -c 'kgen-tune %s --import=%t.r.json --db=%t.a.json; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=IMPORT-MODULE
// IMPORT-MODULE-NOT: {{.}}
// IMPORT-MODULE:      kgen-tune: error: --import adds results to --db and reads no module; got {{.*}}kgen-tune-usage.mlir
// IMPORT-MODULE-NEXT: exit 2
//
// An unknown target, even one that reads like a shell command, is a usage
// error; so is an unknown option (in the option parser's own words).
// RUN: sh -c 'kgen-tune %s "--target=sm_90a;rm -rf /"; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET-NOT: {{.}}
// TARGET:      kgen-tune: error: --target must be sm_80 or sm_90a; got 'sm_90a;rm -rf /'
// TARGET-NEXT: exit 2
// RUN: sh -c 'kgen-tune %s "--arch=sm_90a;rm -rf /"; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN-NOT: {{.}}
// UNKNOWN:     kgen-tune: Unknown command line argument '--arch=sm_90a;rm -rf /'
// UNKNOWN:     exit 2
//
// A module with no kgen.gemm has nothing to tune, in every mode that reads
// one.
// RUN: echo 'func.func @f(%%x: tensor<4xf32>) -> tensor<4xf32> { return %%x : tensor<4xf32> }' > %t.nogemm.mlir
// RUN: sh -c 'kgen-tune %t.nogemm.mlir; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=NOGEMM
// RUN: sh -c 'kgen-tune %t.nogemm.mlir --json; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=NOGEMM
// RUN: sh -c 'kgen-tune %t.nogemm.mlir --report --db=%t.a.json; echo "exit $?"' 2>&1 | FileCheck %s --check-prefix=NOGEMM
// NOGEMM-NOT: {{.}}
// NOGEMM:      kgen-tune: error: {{.*}}nogemm.mlir: no kgen.gemm, kgen.attention or kgen.moe in the module: nothing to tune
// NOGEMM-NEXT: exit 2
//
// The well-formed command lines still work.
// RUN: kgen-tune %s --top=1 | FileCheck %s --check-prefix=OK
// RUN: kgen-tune %s --all | FileCheck %s --check-prefix=OK
// OK: gemm 0: 1x64x64x64 f16

func.func @main(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf16> {
  %d = kgen.gemm %a, %b : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf16>
  return %d : tensor<64x64xf16>
}
