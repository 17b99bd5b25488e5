"""Writes a SYNTHETIC kgen-bench results file (made up for tests, host
"synthetic"): two measured candidates of one gemm, a faulted one and a
cuBLASLt baseline, with the op and config JSON of the packages in PKG_DIR.

usage: make-synthetic-results.py PKG_DIR OUT.json
"""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import synthetic  # noqa: E402


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
    # Another config (each package has its own): raster_group changed.
    faulted_config = dict(results[0]["config"])
    faulted_config["raster_group"] = 2 if faulted_config["raster_group"] != 2 else 4
    results.append(dict(results[0], name="faulted", config=faulted_config, status="faulted",
                        time=None, rel_error=None,
                        reason="an illegal memory access was encountered (synthetic)"))
    results.append(dict(results[0], name="cublaslt", implementation="cublaslt", config=None))
    doc = synthetic.results_doc(results, "2026-11-29T00:00:00Z")
    json.dump(doc, open(out, "w"), indent=1)


if __name__ == "__main__":
    main()
