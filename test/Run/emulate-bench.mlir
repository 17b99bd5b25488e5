// kgen-bench run --emulate: the GPU run's interface (same inputs, same
// verification, a kgen.results file) on the emulated device, with no GPU.
// REQUIRES: kgen-bench
// RUN: rm -rf %t && kgen-opt %s --kgen-pipeline="target=sm_80 output-dir=%t/pkg" -o /dev/null
// RUN: kgen-bench run --emulate %t/pkg/kgen_gemm_bf16_m40_n24_k56 %t/pkg/kgen_gemm_f32_m9_n13_k30 --out %t/r.json --seed 5 2>&1 | FileCheck %s --check-prefix=TABLE
// TABLE: [1/2] kgen_gemm_bf16_m40_n24_k56 (emulated)
// TABLE: [2/2] kgen_gemm_f32_m9_n13_k30 (emulated)
// TABLE: kgen  kgen_gemm_bf16_m40_n24_k56  ok
// TABLE: kgen  kgen_gemm_f32_m9_n13_k30    ok
// RUN: FileCheck %s --check-prefix=JSON < %t/r.json
// JSON: "name": "emulated (host CPU, kgen-emulate)"
// JSON-NOT: "median_ms"
// JSON: "status": "ok"
// JSON: "status": "ok"
// The results file reads back as any other (kgen-bench report).
// RUN: kgen-bench report %t/r.json | FileCheck %s --check-prefix=REPORT
// REPORT: kgen_gemm_bf16_m40_n24_k56  ok
//
// A kernel that fails on the emulated device is one result with its
// reason, the others still run, and the exit code is 1: here the simt
// epilogue's row bound is dropped (an out-of-bounds store) and the
// manifest's source hash updated to match.
// RUN: cp -r %t/pkg/kgen_gemm_f32_m9_n13_k30 %t/oob
// RUN: sed -i 's/    if (row >= a.m || col >= a.n)$/    if (col >= a.n)/' %t/oob/kernel.cu
// RUN: %python -c "import hashlib, json, sys; d = sys.argv[1]; m = json.load(open(d + '/manifest.json')); m['source_sha256'] = hashlib.sha256(open(d + '/kernel.cu', 'rb').read()).hexdigest(); json.dump(m, open(d + '/manifest.json', 'w'))" %t/oob
// RUN: not kgen-bench run --emulate %t/oob %t/pkg/kgen_gemm_bf16_m40_n24_k56 --out %t/oob.json --seed 5 > %t/oob.txt 2>&1
// RUN: FileCheck %s --check-prefix=OOB < %t/oob.txt
// OOB: kgen  kgen_gemm_f32_m9_n13_k30    {{faulted|launch_failed}}
// OOB: kgen  kgen_gemm_bf16_m40_n24_k56  ok
// OOB: kgen_gemm_f32_m9_n13_k30: emulated: kgen-emulate: error: {{.*}}tensor D
// A package whose kernel.cu no longer matches its manifest is refused
// before anything runs (exit 2).
// RUN: cp -r %t/pkg/kgen_gemm_f32_m9_n13_k30 %t/bad && echo '// changed' >> %t/bad/kernel.cu
// RUN: not kgen-bench run --emulate %t/bad --out %t/bad.json 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: kernel.cu
// Usage errors exit 2.
// RUN: not kgen-bench run --emulate=1 %t/pkg/kgen_gemm_f32_m9_n13_k30 --out %t/x.json 2>&1 | FileCheck %s --check-prefix=USAGE
// USAGE: --emulate takes no value
func.func @main(%a: tensor<40x56xbf16>, %b: tensor<56x24xbf16>,
                %c: tensor<9x30xf32>, %d: tensor<30x13xf32>)
    -> (tensor<40x24xbf16>, tensor<9x13xf32>) {
  %x = kgen.gemm %a, %b : tensor<40x56xbf16>, tensor<56x24xbf16> -> tensor<40x24xbf16>
  %y = kgen.gemm %c, %d : tensor<9x30xf32>, tensor<30x13xf32> -> tensor<9x13xf32>
  return %x, %y : tensor<40x24xbf16>, tensor<9x13xf32>
}
