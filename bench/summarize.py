#!/usr/bin/env python3
"""Compact tables of a device check's results (kgen.results JSON files).

  python3 bench/summarize.py OUT_DIR

Reads OUT_DIR/ceilings.json, kgen.json, kgen-faults.json,
baseline-cublaslt.json and baseline-torch.json (whichever exist) and prints:
the device and ceilings, the kernel packages beside their cuBLASLt
baselines, the GEMM suite with cuBLASLt, torch and Triton side by side, the
attention baselines, and every failure. Names are cut at " = " (shapes that
several models share are listed under the first).
"""

import json
import os
import sys

FILES = ["ceilings.json", "kgen.json", "kgen-faults.json",
         "baseline-cublaslt.json", "baseline-torch.json"]


def load(out_dir):
    docs = {}
    for name in FILES:
        path = os.path.join(out_dir, name)
        if os.path.exists(path):
            with open(path) as f:
                docs[name] = json.load(f)
    return docs


def short(name):
    return name.split(" = ")[0]


def ms(result):
    t = result.get("time")
    return f'{t["median_ms"]:.4f}' if t else result["status"]


def real(v):
    return v if isinstance(v, (int, float)) else float(v)


def percent(v):
    v = real(v)
    return f"{100 * v:.0f}%" if v > 0 else "-"


def table(rows):
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()
                     for r in rows)


def device_lines(docs):
    lines = []
    for doc in docs.values():
        d = doc["device"]
        if d["name"]:
            lines.append(f'device: {d["name"]}, {d["sm_count"]} SMs, CC '
                         f'{d["cc_major"]}.{d["cc_minor"]}, L2 '
                         f'{d["l2_bytes"] >> 20} MiB, driver {d["driver_version"]}, '
                         f'runtime {d["runtime_version"]}, SM clock '
                         f'{d["sm_clock_khz"] // 1000} MHz')
            break
    c = docs.get("ceilings.json", {}).get("ceilings")
    if c:
        lines.append(f'ceilings: copy {real(c["copy_gbps"]):.0f} GB/s, matmul '
                     f'{real(c["matmul_tflops"]):.1f} TFLOP/s ({c["matmul_what"]})')
    return lines


def package_table(results):
    rows = [["package", "status", "kgen ms", "cublaslt ms", "speedup",
             "TFLOP/s", "GB/s", "%mm", "%bw", "rel err"]]
    baselines = {r["name"]: r for r in results if r["implementation"] == "cublaslt"}
    for r in results:
        if r["implementation"] != "kgen":
            continue
        base = baselines.get(r["baseline"], {})
        speedup = real(r.get("speedup_over_baseline", 0))
        rel = r.get("rel_error")
        rows.append([r["name"], r["status"], ms(r), ms(base) if base else "-",
                     f"{speedup:.2f}x" if speedup > 0 else "-",
                     f'{real(r["tflops"]):.1f}', f'{real(r["gbps"]):.0f}',
                     percent(r["fraction_of_matmul_ceiling"]),
                     percent(r["fraction_of_copy_ceiling"]),
                     "-" if rel is None else f"{real(rel):.1e}"])
    return table(rows)


def suite_table(cublaslt, torch_results):
    by_impl = {}
    for r in cublaslt + torch_results:
        by_impl.setdefault(r["implementation"], {})[short(r["name"])] = r
    rows = [["gemm", "cublaslt ms", "torch ms", "triton ms", "cublaslt TFLOP/s",
             "%mm", "%bw"]]
    for r in cublaslt:
        name = short(r["name"])
        torch_r = by_impl.get("torch", {}).get(name)
        triton_r = by_impl.get("triton", {}).get(name)
        rows.append([name, ms(r), ms(torch_r) if torch_r else "-",
                     ms(triton_r) if triton_r else "-",
                     f'{real(r["tflops"]):.1f}',
                     percent(r["fraction_of_matmul_ceiling"]),
                     percent(r["fraction_of_copy_ceiling"])])
    return table(rows)


def sdpa_table(results):
    rows = [["attention", "torch-sdpa ms", "TFLOP/s", "GB/s", "%mm", "%bw"]]
    for r in results:
        if r["implementation"] == "torch-sdpa":
            rows.append([r["name"], ms(r), f'{real(r["tflops"]):.1f}',
                         f'{real(r["gbps"]):.0f}',
                         percent(r["fraction_of_matmul_ceiling"]),
                         percent(r["fraction_of_copy_ceiling"])])
    return table(rows) if len(rows) > 1 else ""


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    docs = load(sys.argv[1])
    if not docs:
        print(f"summarize: no results in {sys.argv[1]}", file=sys.stderr)
        return 2
    out = device_lines(docs)
    packages = docs.get("kgen.json", {}).get("results", []) + \
        docs.get("kgen-faults.json", {}).get("results", [])
    if packages:
        out += ["", package_table(packages)]
    cublaslt = docs.get("baseline-cublaslt.json", {}).get("results", [])
    torch_results = docs.get("baseline-torch.json", {}).get("results", [])
    if cublaslt:
        out += ["", suite_table(cublaslt, torch_results)]
    sdpa = sdpa_table(torch_results)
    if sdpa:
        out += ["", sdpa]
    failures = [f'{name}: {r["implementation"]} {short(r["name"])}: {r["status"]}: '
                f'{r["reason"][:200]}'
                for name, doc in docs.items() for r in doc.get("results", [])
                if r["status"] not in ("ok", "skipped")]
    if failures:
        out += ["", "not ok:"] + ["  " + f for f in failures]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
