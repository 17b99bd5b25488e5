"""Writes a SYNTHETIC kgen-bench results file (made up for tests, host
"synthetic"): two measured candidates of one gemm, a faulted one and a
cuBLASLt baseline, with the op and config JSON of the packages in PKG_DIR.

usage: make-synthetic-results.py PKG_DIR OUT.json
"""
import glob
import json
import os
import sys


def main():
    pkg_dir, out = sys.argv[1], sys.argv[2]
    manifests = sorted(glob.glob(os.path.join(pkg_dir, "*", "manifest.json")))
    results = []
    for i, path in enumerate(manifests):
        m = json.load(open(path))
        median = 0.30 - 0.05 * i  # the later candidate is faster
        results.append({
            "name": m["name"], "implementation": "kgen", "op": m["op"], "config": m["config"],
            "status": "ok", "reason": "",
            "time": {"median_ms": median, "q1_ms": median * 0.99, "q3_ms": median * 1.01,
                     "min_ms": median * 0.98, "max_ms": median * 1.02, "samples": 40},
            "rel_error": 0.003, "tflops": 0, "gbps": 0,
            "fraction_of_matmul_ceiling": 0, "fraction_of_copy_ceiling": 0,
            "resources": None, "baseline": "cublaslt", "speedup_over_baseline": 1.0})
    results.append(dict(results[0], name="faulted", status="faulted", time=None, rel_error=None,
                        reason="an illegal memory access was encountered (synthetic)"))
    results.append(dict(results[0], name="cublaslt", implementation="cublaslt", config=None))
    doc = {"schema": "kgen.results", "version": 1, "created_at": "2026-11-29T00:00:00Z",
           "commit": "synthetic", "host": "synthetic",
           "device": {"name": "NVIDIA H200", "sm_count": 132, "cc_major": 9, "cc_minor": 0,
                      "sm_clock_khz": 0, "mem_clock_khz": 0, "l2_bytes": 0, "memory_bytes": 0,
                      "driver_version": "13.0", "runtime_version": "13.0"},
           "ceilings": None, "results": results}
    json.dump(doc, open(out, "w"), indent=1)


if __name__ == "__main__":
    main()
