// kgen-tune: ranked candidates from the cost model; the top ones as packages
// (NVRTC-checked); measured results imported into a tuning database, which
// kgen-select-strategy then reads. The measurements here are SYNTHETIC
// (Inputs/make-synthetic-results.py), not from a GPU.
// RUN: kgen-tune %s --top 3 | FileCheck %s --check-prefix=RANK
// RANK: gemm 0: 1x4096x4096x4096 bf16, {{[0-9]+}} valid configs for sm_90a
// RANK-NEXT: {{^ +0 +wgmma .* ms .* TFLOP/s$}}
// RANK-NEXT: {{^ +1 +}}
// RANK-NEXT: {{^ +2 +}}
// RANK-NOT: {{^ +3 +}}
// --all lists the whole space, ranked: as many lines as valid configs.
// RUN: kgen-tune %s --all | %python -c "import re, sys; t = sys.stdin.read(); n = int(re.search(r'(\d+) valid configs', t).group(1)); r = re.findall(r'(?m)^ +(\d+) +(?:simt|mma_sync|wgmma) ', t); print('space', n, 'listed', len(r), 'last', r[-1])" | FileCheck %s --check-prefix=ALL
// ALL: space [[N:[0-9]+]] listed [[N]] last
// RUN: kgen-tune %s --target=sm_80 --top 1 | FileCheck %s --check-prefix=SM80
// SM80: valid configs for sm_80
// SM80-NEXT: {{^ +0 +mma_sync}}

// REQUIRES: kgen-bench
// RUN: rm -rf %t && kgen-tune %s --top 2 --packages %t/pkgs | FileCheck %s --check-prefix=PKG
// PKG: 0  wgmma {{.*}} -> {{.*}}pkgs/gemm0/c0
// PKG: 1  wgmma {{.*}} -> {{.*}}pkgs/gemm0/c1
// RUN: %python %S/Inputs/make-synthetic-results.py %t/pkgs/gemm0/c1 %t/results.json
// RUN: %python %S/Inputs/make-synthetic-results.py %t/pkgs/gemm0/c0 %t/results0.json
// RUN: kgen-tune --import %t/results0.json --db %t/db.json
// RUN: kgen-tune --import %t/results.json --db %t/db.json | FileCheck %s --check-prefix=IMPORT
// IMPORT: kgen-tune: added 2 measured candidates to {{.*}}db.json (1 entries)
// RUN: kgen-opt %s --kgen-select-strategy="target=sm_90a db=%t/db.json" | FileCheck %s --check-prefix=SELECT
// SELECT: source = measured, entry = "{{.*}}db.json: 4096x4096x4096 on NVIDIA H200"
// RUN: not kgen-tune --import %t/missing.json --db %t/db.json 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: kgen-tune: error: {{.*}}missing.json
func.func @main(%x: tensor<4096x4096xbf16>, %w: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  %d = kgen.gemm %x, %w {transpose_b} : tensor<4096x4096xbf16>, tensor<4096x4096xbf16> -> tensor<4096x4096xbf16>
  return %d : tensor<4096x4096xbf16>
}
// The cost model against the (synthetic) measurements, and its error.
// RUN: kgen-tune %s --report --db %t/db.json | FileCheck %s --check-prefix=REPORT
// REPORT: gemm 0: 1x4096x4096x4096
// REPORT: wgmma 128x256x64 {{.*}} predicted {{.*}} ms  measured {{.*}} ms  error {{.*}}%  (NVIDIA H200)
// REPORT: cost model error over 2 measured candidates: median {{[0-9.]+}}%, worst {{[0-9.]+}}%
// RUN: not kgen-tune %s --report 2>&1 | FileCheck %s --check-prefix=NODB
// NODB: kgen-tune: error: --report needs --db
