// The measured search replayed on a sweep of the whole space (kgen-tune
// --report), and the tuning bars read off a device check's sweep step
// (bench/tuning_bar.py). The sweeps here are SYNTHETIC
// (Inputs/make-synthetic-sweep.py: made-up times by rank in the search's
// order; one config never measured, one wrong), not a GPU's.
// RUN: rm -rf %t && mkdir -p %t
// RUN: kgen-tune %s --json --all > %t/ranking.json
// RUN: %python -c "import json; d = json.load(open('%t/ranking.json')); g = d['gemms'][0]; c = g['candidates']; print(d['schema'], d['version'], g['space'] == len(c), c[0]['default'], sum(x['default'] for x in c), [x['rank'] for x in c[:3]])" | FileCheck %s --check-prefix=JSON
// JSON: kgen.tune-ranking 1 True True 1 [0, 1, 2]

// The space's best lies outside the search's candidates: the replay names
// the search's choice and how far it is from the best.
// RUN: %python %S/Inputs/make-synthetic-sweep.py %t/ranking.json %t/outside --best-rank 200
// RUN: kgen-tune %s --report --db %t/outside/sweep-db.json > %t/outside/report.txt
// RUN: FileCheck %s --check-prefix=OUTSIDE < %t/outside/report.txt
// OUTSIDE: gemm 0: 1x4096x4096x4096
// OUTSIDE: {{^  search replay \(}}[[C:[0-9]+]] of the [[S:[0-9]+]] configs measured, NVIDIA H200): the search's {{[0-9]+}} candidates (15% of the space; {{[0-9]+}} measured here) would choose wgmma {{.*}} at 0.5000 ms: 11.1% over the best, {{.*}} at 0.4500 ms
// OUTSIDE: cost model error over [[C]] measured candidates
// And exactly what the generator computed, summaries spelled alike.
// RUN: grep -F -f %t/outside/expect.txt %t/outside/report.txt
// The same sweep with the device check's bar script.
// RUN: %python %kgen_src_root/bench/tuning_bar.py --budget %t/outside/budget-db.json --sweep %t/outside/sweep-db.json --seconds %t/outside/seconds.tsv | FileCheck %s --check-prefix=BAR
// BAR: 1x4096x4096x4096 bf16 on NVIDIA H200:
// BAR-NEXT: space: {{[0-9]+}} configs measured in the sweep (1 not correct or not timed)
// BAR-NEXT: the search measured {{[0-9]+}}: 14.{{[0-9]}}% of the space (bar: at most 15%: met)
// BAR-NEXT: the space's best: {{.*}}, 0.4500 ms
// The search's choice on the sweep's scale, not its own run's (x 1.07).
// BAR-NEXT: the search's choice: wgmma {{.*}}, 0.5000 ms in the sweep: 11.1% over the best (bar: within 3%: MISSED)
// BAR-NEXT: the search took 41 s (bar: under 60 s: met)

// The best inside: the search finds it.
// RUN: %python %S/Inputs/make-synthetic-sweep.py %t/ranking.json %t/inside --best-rank 3 --seconds 75
// RUN: kgen-tune %s --report --db %t/inside/sweep-db.json --fit | FileCheck %s --check-prefix=INSIDE
// INSIDE: search replay ({{.*}} would choose [[BEST:.*]] at 0.4500 ms: 0.0% over the best, [[BEST]] at 0.4500 ms
// INSIDE: after the fit (in-sample): search replay ({{.*}} would choose
// RUN: %python %kgen_src_root/bench/tuning_bar.py --budget %t/inside/budget-db.json --sweep %t/inside/sweep-db.json --seconds %t/inside/seconds.tsv | FileCheck %s --check-prefix=INBAR
// INBAR: the search's choice: {{.*}}, 0.4500 ms in the sweep: 0.0% over the best (bar: within 3%: met)
// INBAR-NEXT: the search took 75 s (bar: under 60 s: MISSED)

// A sweep cut short by its budget says so; the share counts the whole space.
// RUN: %python %S/Inputs/make-synthetic-sweep.py %t/ranking.json %t/cut --best-rank 3 --given 1000
// RUN: %python %kgen_src_root/bench/tuning_bar.py --budget %t/cut/budget-db.json --sweep %t/cut/sweep-db.json --seconds %t/cut/seconds.tsv | FileCheck %s --check-prefix=CUT
// CUT: the sweep was given 1000 but measured only {{[0-9]+}} (its budget ran out): its best is the best of those
// CUT-NEXT: the search measured {{[0-9]+}}: 13.2% of the space (bar: at most 15%: met)
// RUN: printf 'gemm0\t41\n' > %t/short.tsv
// RUN: not %python %kgen_src_root/bench/tuning_bar.py --budget %t/cut/budget-db.json --sweep %t/cut/sweep-db.json --seconds %t/short.tsv 2>&1 | FileCheck %s --check-prefix=TSV
// TSV: tuning_bar: {{.*}}short.tsv:1: expected OP<TAB>SECONDS<TAB>RESULTS.json<TAB>SPACE

// A database with no more of the space than a search measures is no sweep:
// nothing to replay.
// RUN: kgen-tune %s --report --db %t/inside/budget-db.json | FileCheck %s --check-prefix=NOSWEEP
// NOSWEEP: cost model error over
// NOSWEEP-NOT: search replay

// Bad inputs: exit 2 with the file named.
// RUN: echo '{"schema": "kgen.tuning-db", "version": 1, "entries": [' > %t/corrupt.json
// RUN: not %python %kgen_src_root/bench/tuning_bar.py --budget %t/inside/budget-db.json --sweep %t/corrupt.json 2>&1 | FileCheck %s --check-prefix=CORRUPT
// CORRUPT: tuning_bar: {{.*}}corrupt.json: the tuning database is not valid JSON
// RUN: sed 's/"version": 1/"version": 2/' %t/inside/sweep-db.json > %t/v2.json
// RUN: not %python %kgen_src_root/bench/tuning_bar.py --budget %t/inside/budget-db.json --sweep %t/v2.json 2>&1 | FileCheck %s --check-prefix=VERSION
// VERSION: tuning_bar: {{.*}}v2.json: version 2: this script understands only version 1
// RUN: sed 's/NVIDIA H200/NVIDIA H100/' %t/inside/budget-db.json > %t/other-device.json
// RUN: not %python %kgen_src_root/bench/tuning_bar.py --budget %t/other-device.json --sweep %t/inside/sweep-db.json > %t/other.out 2>&1
// RUN: FileCheck %s --check-prefix=OTHER < %t/other.out
// OTHER: 1x4096x4096x4096 bf16 on NVIDIA H200: measured in the sweep only
// OTHER: tuning_bar: the sweep and budget databases share no op
// RUN: not %python %kgen_src_root/bench/tuning_bar.py --budget %t/missing.json --sweep %t/inside/sweep-db.json 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: tuning_bar: {{.*}}missing.json: cannot read the tuning database
// RUN: not kgen-tune %s --json --packages %t/pkgs 2>&1 | FileCheck %s --check-prefix=JSONPKG
// JSONPKG: kgen-tune: error: --json lists the ranking; it does not go with --packages

func.func @main(%x: tensor<4096x4096xbf16>, %w: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  %d = kgen.gemm %x, %w {transpose_b} : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xbf16>
  return %d : tensor<4096x4096xbf16>
}
