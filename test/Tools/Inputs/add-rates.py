#!/usr/bin/env python3
"""Adds what `kgen-bench run --ceilings` records to SYNTHETIC results files
(make-perf-runs.py writes none): measured ceilings (copy 4000 GB/s, matmul
800 TFLOP/s, made up), and per timed gemm result its TFLOP/s, GB/s (bf16
operands and output moved once), fractions of the ceilings and speed-up
over its baseline, computed from the result's own median as kgen-bench
does. With --predict NAME, NAME's config also records a cost-model
prediction (predicted_ms: 0.9 x its median), as a package could.

usage: add-rates.py [--predict NAME] FILE.json...
"""
import json
import sys

COPY_GBPS, MATMUL_TFLOPS = 4000.0, 800.0


def main():
    args = sys.argv[1:]
    predict = None
    if args[:1] == ["--predict"]:
        predict, args = args[1], args[2:]
    for path in args:
        doc = json.load(open(path))
        doc["ceilings"] = {"copy_gbps": COPY_GBPS, "matmul_tflops": MATMUL_TFLOPS,
                           "matmul_what": "bf16 8192x8192x8192 cuBLASLt (synthetic)"}
        medians = {r["name"]: r["time"]["median_ms"] for r in doc["results"]
                   if r.get("time")}
        for r in doc["results"]:
            op = r.get("op") or {}
            if not r.get("time") or op.get("kind") != "gemm":
                continue
            m, n, k = op["m"], op["n"], op["k"]
            seconds = r["time"]["median_ms"] / 1e3
            r["tflops"] = 2.0 * m * n * k / seconds / 1e12
            r["gbps"] = 2.0 * (m * k + k * n + m * n) / seconds / 1e9
            r["fraction_of_matmul_ceiling"] = r["tflops"] / MATMUL_TFLOPS
            r["fraction_of_copy_ceiling"] = r["gbps"] / COPY_GBPS
            if r.get("baseline") in medians:
                r["speedup_over_baseline"] = medians[r["baseline"]] / r["time"]["median_ms"]
            if r["name"] == predict and isinstance(r.get("config"), dict):
                r["config"]["predicted_ms"] = 0.9 * r["time"]["median_ms"]
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
