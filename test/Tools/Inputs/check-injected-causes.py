#!/usr/bin/env python3
"""The comparator on SYNTHETIC runs, one injected cause at a time, as CI
proves the detector without a GPU (issue 15 item 6).

usage: check-injected-causes.py KGEN_BENCH WORKDIR

From make-perf-runs.py's base.json it writes, for each cause kgen records,
a run where gemm_a is 10% slower and exactly that one thing changed (the
strategy, its source, the generated source, registers, spills, shared
memory, the kgen commit, NVRTC, CUDA runtime, driver, cuBLASLt, SM clock,
machine), and 40 noise-only runs (fresh samples, same everything). It runs
`kgen-bench compare base.json RUN --json` on each and prints one line per
run: the cause files' verdict and the causes named, the noise runs'
verdicts. Exits 1 when a cause run is not a regression (exit 1) naming
exactly its cause (a strategy whose source changed: the strategy, then its
source), or a noise run exits non-zero or has a regression or improvement.
"""
import copy
import json
import math
import os
import random
import subprocess
import sys


def resample(doc, seed, factor_a=1.0):
    """`doc` with fresh 1% log-normal samples around each result's median
    (gemm_a's times `factor_a`)."""
    rng = random.Random(seed)
    out = copy.deepcopy(doc)
    for r in out["results"]:
        if not r.get("samples_ms"):
            continue
        median = sorted(r["samples_ms"])[len(r["samples_ms"]) // 2]
        if r["name"] == "gemm_a":
            median *= factor_a
        xs = [median * math.exp(rng.gauss(0, 0.01)) for _ in r["samples_ms"]]
        r["samples_ms"] = xs
        s = sorted(xs)
        r["time"] = {"median_ms": s[len(s) // 2], "q1_ms": s[len(s) // 4],
                     "q3_ms": s[3 * len(s) // 4], "min_ms": s[0],
                     "max_ms": s[-1], "samples": len(s)}
    return out


def gemm_a(doc):
    return next(r for r in doc["results"] if r["name"] == "gemm_a")


# name: (how to inject it, the cause kgen-bench must name)
CAUSES = {
    "strategy": (lambda d: gemm_a(d)["config"].update(block_m=64), "strategy"),
    "strategy-source": (lambda d: gemm_a(d)["config"].update(source="model"),
                        ["strategy", "strategy source"]),
    "source": (lambda d: gemm_a(d).update(source_sha256="c3" * 32),
               "generated source (sha256)"),
    "registers": (lambda d: gemm_a(d)["resources"].update(registers=168),
                  "registers"),
    "spills": (lambda d: gemm_a(d)["resources"].update(spill_store_bytes=64),
               "spill stores (bytes)"),
    "smem": (lambda d: gemm_a(d)["resources"].update(shared_bytes=49152),
             "static shared memory (bytes)"),
    "commit": (lambda d: d.update(commit="newcommit"), "kgen commit"),
    "nvrtc": (lambda d: d.update(nvrtc_version="13.1"), "NVRTC"),
    "runtime": (lambda d: d["device"].update(runtime_version="13.1"),
                "CUDA runtime"),
    "driver": (lambda d: d["device"].update(driver_version="13.1"), "driver"),
    "cublaslt": (lambda d: d.update(cublaslt_version="13.2.0"), "cuBLASLt"),
    "clock": (lambda d: d["device"].update(sm_clock_khz=1580000),
              "SM clock (MHz)"),
    "machine": (lambda d: d.update(machine_id="synthetic0000002"), "machine"),
}


def compare(tool, base, new):
    p = subprocess.run([tool, "compare", base, new, "--json"],
                       capture_output=True, text=True, timeout=60)
    return p.returncode, json.loads(p.stdout)


def main():
    tool, work = sys.argv[1], sys.argv[2]
    base_path = os.path.join(work, "base.json")
    base = json.load(open(base_path))
    base["cublaslt_version"] = "13.1.0"
    json.dump(base, open(base_path, "w"))
    failures = 0
    for i, (name, (inject, expected)) in enumerate(sorted(CAUSES.items())):
        doc = resample(base, 1000 + i, factor_a=1.10)
        inject(doc)
        path = os.path.join(work, f"cause-{name}.json")
        json.dump(doc, open(path, "w"))
        code, c = compare(tool, base_path, path)
        row = next(k for k in c["kernels"] if k["name"] == "gemm_a")
        named = [x["what"] for x in row["causes"]]
        want = expected if isinstance(expected, list) else [expected]
        ok = code == 1 and row["verdict"] == "regressed" and named == want
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} cause {name}: {row['verdict']}, "
              f"exit {code}, causes {named}")
    called = 0
    for i in range(40):
        path = os.path.join(work, f"noise-{i:02d}.json")
        json.dump(resample(base, 2000 + i), open(path, "w"))
        code, c = compare(tool, base_path, path)
        verdicts = [k["verdict"] for k in c["kernels"] if not k["baseline"]]
        if code != 0 or any(v in ("regressed", "improved") for v in verdicts):
            called += 1
            print(f"FAIL noise {i}: exit {code}, {verdicts}")
    failures += called
    print(f"{len(CAUSES)} injected causes, 40 noise-only runs, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
