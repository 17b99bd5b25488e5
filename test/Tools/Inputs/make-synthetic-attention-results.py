"""Writes a SYNTHETIC kgen-bench results file (made up for tests, host
"synthetic"): every candidate package of one attention under PKG_DIR
(PKG_DIR/c<i>/<package>) measured, the later ones faster; attention has
no baseline.

usage: make-synthetic-attention-results.py PKG_DIR OUT.json
"""
import glob
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import synthetic  # noqa: E402


def main():
    pkg_dir, out = sys.argv[1], sys.argv[2]
    manifests = sorted(glob.glob(os.path.join(pkg_dir, "c*", "*", "manifest.json")))
    results = []
    for i, path in enumerate(manifests):
        m = json.load(open(path))
        median = 0.010 - 0.002 * i
        results.append({
            "name": m["name"], "implementation": "kgen", "op": m["op"], "config": m["config"],
            "status": "ok", "reason": "",
            "time": {"median_ms": median, "q1_ms": median * 0.99, "q3_ms": median * 1.01,
                     "min_ms": median * 0.98, "max_ms": median * 1.02, "samples": 40},
            "rel_error": 0.003, "tflops": 0, "gbps": 0,
            "fraction_of_matmul_ceiling": 0, "fraction_of_copy_ceiling": 0,
            "resources": None, "baseline": "", "speedup_over_baseline": 0})
    json.dump(synthetic.results_doc(results, "2026-12-01T00:00:00Z"), open(out, "w"), indent=1)


if __name__ == "__main__":
    main()
