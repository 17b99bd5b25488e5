#!/usr/bin/env python3
"""SYNTHETIC kgen.results version 2 files for the kgen-bench compare and
history tests (host "synthetic"; never a GPU's measurements).

Usage: make-perf-runs.py OUTDIR

Writes, each with two gemm kernels (gemm_a, gemm_b) and their cuBLASLt
baselines, 30 timing samples each with 1% log-normal noise (seeded):
  base.json      the reference run
  same.json      the same build measured again (noise only)
  slow.json      gemm_a 10% slower, its generated source and registers changed
  drift.json     every kernel and baseline 10% slower (the machine)
  noisy.json     gemm_a with 30% noise and 6 samples
  faulted.json   gemm_a faulted
  otherdev.json  the same numbers on another device
  v1.json        base.json as version 1 (no samples, hash, machine id)
  series-01.json .. series-12.json
                 a nightly series: gemm_a 10% slower (and a new source)
                 from series-08 on, gemm_b unchanged
"""
import json
import math
import os
import random
import sys

DEVICE = {"name": "NVIDIA H200", "sm_count": 132, "cc_major": 9, "cc_minor": 0,
          "sm_clock_khz": 1980000, "mem_clock_khz": 3201000,
          "l2_bytes": 62914560, "memory_bytes": 151397597184,
          "driver_version": "13.0", "runtime_version": "13.0"}

OPS = {"gemm_a": {"kind": "gemm", "m": 4096, "n": 4096, "k": 4096},
       "gemm_b": {"kind": "gemm", "m": 8192, "n": 1024, "k": 4096}}
MEDIAN_MS = {"gemm_a": 0.250, "gemm_b": 0.180}
BASELINE_MS = {"gemm_a": 0.240, "gemm_b": 0.200}


def samples(rng, median, noise=0.01, count=30):
    return [median * math.exp(rng.gauss(0, noise)) for _ in range(count)]


def summary(xs):
    s = sorted(xs)

    def pct(q):
        i = q * (len(s) - 1)
        lo = math.floor(i)
        hi = min(lo + 1, len(s) - 1)
        return s[lo] + (s[hi] - s[lo]) * (i - lo)
    return {"median_ms": pct(0.5), "q1_ms": pct(0.25), "q3_ms": pct(0.75),
            "min_ms": s[0], "max_ms": s[-1], "samples": len(s)}


def result(name, impl, xs, op, config=None, baseline="", sha="", regs=0,
           status="ok"):
    r = {"name": name, "implementation": impl, "op": op, "config": config,
         "status": status, "reason": "" if status == "ok" else "synthetic fault",
         "time": summary(xs) if xs else None, "rel_error": 0.001 if xs else None,
         "tflops": 0, "gbps": 0, "fraction_of_matmul_ceiling": 0,
         "fraction_of_copy_ceiling": 0,
         "resources": None if not regs else
         {"registers": regs, "shared_bytes": 0, "stack_bytes": 0,
          "spill_store_bytes": 0, "spill_load_bytes": 0, "constant_bytes": 0},
         "baseline": baseline, "speedup_over_baseline": 0,
         "samples_ms": xs or None, "source_sha256": sha}
    return r


def run(seed, created_at, slow=None, drift=1.0, noisy=None, faulted=None,
        sha_a="a1" * 32, regs_a=128, device=DEVICE):
    rng = random.Random(seed)
    results = []
    for name, op in OPS.items():
        base_name = "cublaslt_" + name
        results.append(result(base_name, "cublaslt",
                              samples(rng, BASELINE_MS[name] * drift), op))
        factor = drift * (1.10 if name == slow else 1.0)
        noise, count = (0.30, 6) if name == noisy else (0.01, 30)
        xs = samples(rng, MEDIAN_MS[name] * factor, noise, count)
        sha = sha_a if name == "gemm_a" else "b2" * 32
        regs = regs_a if name == "gemm_a" else 96
        status = "faulted" if name == faulted else "ok"
        results.append(result(name, "kgen", None if status != "ok" else xs, op,
                              {"source": "default", "block_m": 128},
                              base_name, sha, regs, status))
    return {"schema": "kgen.results", "version": 2, "created_at": created_at,
            "commit": "synthetic", "host": "synthetic",
            "machine_id": "synthetic0000001", "nvrtc_version": "13.0",
            "device": device, "ceilings": None, "results": results}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    files = {
        "base.json": run(1, "2026-12-01T01:00:00Z"),
        "same.json": run(2, "2026-12-01T02:00:00Z"),
        "slow.json": run(3, "2026-12-01T03:00:00Z", slow="gemm_a",
                         sha_a="c3" * 32, regs_a=168),
        "drift.json": run(4, "2026-12-01T04:00:00Z", drift=1.10),
        "noisy.json": run(5, "2026-12-01T05:00:00Z", noisy="gemm_a"),
        "faulted.json": run(6, "2026-12-01T06:00:00Z", faulted="gemm_a"),
        "otherdev.json": run(7, "2026-12-01T07:00:00Z",
                             device=dict(DEVICE, name="NVIDIA A100-SXM4-80GB",
                                         sm_count=108, cc_major=8)),
    }
    for night in range(1, 13):
        slow = night >= 8
        files[f"series-{night:02d}.json"] = run(
            100 + night, f"2026-11-{night:02d}T03:00:00Z",
            slow="gemm_a" if slow else None,
            sha_a=("c3" if slow else "a1") * 32)
    v1 = run(1, "2026-12-01T00:30:00Z")
    v1["version"] = 1
    for key in ("machine_id", "nvrtc_version"):
        del v1[key]
    for r in v1["results"]:
        del r["samples_ms"], r["source_sha256"]
    files["v1.json"] = v1
    for name, doc in files.items():
        with open(os.path.join(out, name), "w") as f:
            json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
