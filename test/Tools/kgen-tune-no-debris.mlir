// kgen-tune leaves no debris (issue 16). --packages DIR builds each gemm's
// packages in one temporary folder beside DIR/gemm<i> that replaces
// DIR/gemm<i> whole: an interrupted run leaves no staging folder (it used to
// leave a pendingN folder per candidate that no later run removed), what a
// killed run left is removed by the next run, and a rerun leaves nothing of
// an earlier one. Databases and models are written through temporaries
// beside them (FileUtil.h), and a write removes what killed runs left there.
// The results are SYNTHETIC (Inputs/synthetic-results.json).
// REQUIRES: kgen-bench
// RUN: rm -rf %t && mkdir -p %t/pkgs/gemm0/pending7 %t/pkgs/gemm0/c5 %t/db
// Left by killed runs (a pid no process has): a staging folder, temporaries
// of a database and of a model.
// RUN: mkdir -p %t/pkgs/gemm0.tmp.2147483000.0/pending3
// RUN: echo '{}' > %t/db/db.json.tmp.2147483000.4
// RUN: kgen-tune --import %S/Inputs/synthetic-results.json --db %t/db/db.json
// RUN: ls -A %t/db | FileCheck %s --check-prefix=DB --implicit-check-not={{.}}
// DB: db.json
// RUN: echo '{}' > %t/db/model.json.tmp.2147483000.5
// RUN: kgen-tune %s --report --db %t/db/db.json --fit --model-out %t/db/model.json
// RUN: ls -A %t/db | FileCheck %s --check-prefix=MODEL --implicit-check-not={{.}}
// MODEL: db.json
// MODEL-NEXT: model.json
// RUN: kgen-tune %s --top 2 --packages %t/pkgs --cache %t/cache | FileCheck %s --check-prefix=RUN1
// RUN1: 0  wgmma {{.*}} -> {{.*}}pkgs/gemm0/c0
// RUN1: 1  wgmma {{.*}} -> {{.*}}pkgs/gemm0/c1
// RUN: ls -A %t/pkgs | FileCheck %s --check-prefix=TOP --implicit-check-not={{.}}
// TOP: gemm0
// RUN: ls -A %t/pkgs/gemm0 | FileCheck %s --check-prefix=GEMM0 --implicit-check-not={{.}}
// GEMM0: c0
// GEMM0-NEXT: c1

// Interrupted while it compiles (SIGINT, then SIGTERM): no temporary, no
// pendingN; DIR/gemm0 is the earlier run's or, had it finished, this one's.
// RUN: not timeout -s INT 2 kgen-tune %s --top 40 --packages %t/pkgs --jobs 1 --cache %t/cache-int
// RUN: ls -A %t/pkgs | FileCheck %s --check-prefix=TOP --implicit-check-not={{.}}
// RUN: find %t/pkgs -name 'pending*' | count 0
// RUN: not timeout -s TERM 2 kgen-tune %s --top 40 --packages %t/pkgs --jobs 1 --cache %t/cache-term
// RUN: ls -A %t/pkgs | FileCheck %s --check-prefix=TOP --implicit-check-not={{.}}
// RUN: find %t/pkgs -name 'pending*' | count 0

// A path that is a file: one line, a usage error.
// RUN: touch %t/file
// RUN: sh -c 'kgen-tune %s --top 2 --packages %t/file; echo "exit $?"' > %t/file.out 2>&1
// RUN: FileCheck %s --check-prefix=FILE < %t/file.out
// FILE: kgen-tune: error: --packages {{.*}}file: is a file, not a folder
// FILE-NEXT: exit 2
// FILE-NOT: {{.}}

func.func @main(%x: tensor<4096x4096xbf16>, %w: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  %d = kgen.gemm %x, %w {transpose_b} : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xbf16>
  return %d : tensor<4096x4096xbf16>
}
