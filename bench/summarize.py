#!/usr/bin/env python3
"""Compact tables of a device check's results (kgen.results JSON files).

  python3 bench/summarize.py OUT_DIR

Reads OUT_DIR/ceilings.json, kgen.json, kgen-attention.json, kgen-moe.json,
kgen-faults.json, baseline-cublaslt.json, baseline-torch.json and
baseline-torch-moe.json (whichever exist) and prints: the device and
ceilings, the kernel packages beside their cuBLASLt baselines, the GEMM
suite with cuBLASLt, torch and Triton side by side, the models' SDPA
baselines, the attention packages beside SDPA's cuDNN and flash backends at
the same op (the suite entry's name; "vs best": the faster backend's median
over kgen's), the MoE layers beside the cuBLAS loop and torch's grouped mm
with the targets (moe_table), and every failure. Names are cut at " = "
(shapes that several models share are listed under the first).
"""

import json
import os
import sys

from torch_baselines import MOE_BASELINES, moe_key, moe_weight_bytes

FILES = ["ceilings.json", "kgen.json", "kgen-attention.json", "kgen-moe.json",
         "kgen-faults.json", "baseline-cublaslt.json", "baseline-torch.json",
         "baseline-torch-moe.json"]
# The MoE targets: kgen's speed-up over the cuBLAS loop and over torch's
# grouped mm at MOE_TARGET_TOKENS, and at <= MOE_DECODE_TOKENS the share of
# the copy ceiling at which the expert weights hit are read.
MOE_TARGET_TOKENS = 4096
MOE_TARGET_OVER_LOOP = 1.3
MOE_TARGET_OVER_GROUPED = 1.0
MOE_DECODE_TOKENS = 64
MOE_TARGET_WEIGHTS_BW = 0.8


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


ATTENTION_BASELINES = ["torch-sdpa-cudnn", "torch-sdpa-flash"]
# The marks of attention rows whose SDPA baselines did not run the op as
# given: mark -> (what their comment says, the note under the table).
ATTENTION_NOTES = {
    "*": ("contiguous cache", "paged KV cache: SDPA (no paged input) on the equivalent "
          "contiguous cache, the page gather not timed"),
    "#": ("dequantised e4m3", "e4m3 operands: SDPA (no e4m3 input) on them dequantised "
          "(to bf16 for a bf16 op or output), reading at least twice the bytes kgen's "
          "kernel does and, with e4m3 queries, multiplying at half the e4m3 tensor-core "
          "rate: not an fp8 baseline"),
}


def attention_table(kgen_results, torch_results):
    """kgen's attention packages and SDPA's backends, one row per op."""
    def key(r):
        return json.dumps(r["op"], sort_keys=True)
    rows_by_op, names = {}, {}
    for r in kgen_results + torch_results:
        if r["op"].get("kind") != "attention":
            continue
        impl = r["implementation"]
        if impl == "kgen" or impl in ATTENTION_BASELINES:
            rows_by_op.setdefault(key(r), {})[impl] = r
            if impl != "kgen" or key(r) not in names:
                names[key(r)] = r["name"]
    if not rows_by_op:
        return ""
    rows = [["attention", "kgen ms", "cudnn ms", "flash ms", "kgen TFLOP/s",
             "cudnn TFLOP/s", "flash TFLOP/s", "kgen %bw", "vs best"]]
    noted = set()
    for k, by in rows_by_op.items():
        kg = by.get("kgen")
        base = [by[i] for i in ATTENTION_BASELINES if i in by]
        best = min((b["time"]["median_ms"] for b in base
                    if b["status"] == "ok" and b["time"]), default=None)
        vs = "-"
        if best and kg and kg["status"] == "ok" and kg["time"]:
            vs = f'{best / kg["time"]["median_ms"]:.2f}x'
        # A paged op's SDPA baselines ran on the contiguous cache, an e4m3
        # op's on its operands dequantised (torch_baselines.py's comment):
        # marked, with a note below.
        comments = [by[i].get("comment", "") for i in ATTENTION_BASELINES if i in by]
        marks = [m for m, (what, _) in ATTENTION_NOTES.items()
                 if any(what in c for c in comments)]
        noted.update(marks)
        cells = [names[k] + "".join(marks), ms(kg) if kg else "-"]
        cells += [ms(by[i]) if i in by else "-" for i in ATTENTION_BASELINES]
        cells += [f'{real(r["tflops"]):.1f}' if r and r["status"] == "ok" else "-"
                  for r in [kg] + [by.get(i) for i in ATTENTION_BASELINES]]
        cells += [percent(kg["fraction_of_copy_ceiling"]) if kg else "-", vs]
        rows.append(cells)
    notes = "".join(f"\n{m} {ATTENTION_NOTES[m][1]}" for m in ATTENTION_NOTES if m in noted)
    return table(rows) + notes


def median_ms(result):
    """The median of an ok result, else None."""
    if result and result["status"] == "ok" and result["time"]:
        return result["time"]["median_ms"]
    return None


def moe_target(op, kgen_ms, loop_ms, grouped_ms, weights_bw):
    """The target of an op's row, met or missed, or "-" where none applies
    or a number is missing."""
    if op["tokens"] == MOE_TARGET_TOKENS:
        checks = [base_ms / kgen_ms >= bar for base_ms, bar in
                  [(loop_ms, MOE_TARGET_OVER_LOOP), (grouped_ms, MOE_TARGET_OVER_GROUPED)]
                  if kgen_ms and base_ms]
        if not checks:
            return "-"
        missing = "; a baseline missing" if len(checks) < 2 else ""
        return ("met" if all(checks) else "missed") + \
            f" (>= {MOE_TARGET_OVER_LOOP}x loop, >= {MOE_TARGET_OVER_GROUPED}x grouped{missing})"
    if op["tokens"] <= MOE_DECODE_TOKENS:
        if weights_bw is None:
            return "-"
        return ("met" if weights_bw >= MOE_TARGET_WEIGHTS_BW else "missed") + \
            f" (>= {100 * MOE_TARGET_WEIGHTS_BW:.0f}% bw)"
    return "-"


def moe_table(kgen_results, torch_results, copy_gbps):
    """kgen's MoE packages beside the cuBLAS loop and torch's grouped mm,
    one row per op: medians, kgen's speed-up over each, kgen's TFLOP/s, and
    at <= MOE_DECODE_TOKENS tokens the weights' share of the copy ceiling:
    the bytes of w_gate, w_up and w_down of the experts hit (the expected
    number for uniform routing, E (1 - (1 - k/E)^T)), with their block
    scales and the shared expert's weights where the layer has them
    (torch_baselines.moe_weight_bytes), over kgen's median,
    over the measured copy bandwidth."""
    rows_by_op, names = {}, {}
    for r in kgen_results + torch_results:
        impl = r["implementation"]
        if r["op"].get("kind") != "moe" or (impl != "kgen" and impl not in MOE_BASELINES):
            continue
        k = moe_key(r["op"])
        rows_by_op.setdefault(k, {})[impl] = r
        if impl != "kgen" or k not in names:
            names[k] = r["name"]
    if not rows_by_op:
        return ""
    rows = [["moe", "kgen ms", "loop ms", "grouped ms", "vs loop", "vs grouped",
             "kgen TFLOP/s", "weights GB", "kgen %bw", "target"]]
    for k, by in rows_by_op.items():
        kg = by.get("kgen")
        loop, grouped = by.get(MOE_BASELINES[0]), by.get(MOE_BASELINES[1])
        op = (kg or loop or grouped)["op"]
        kgen_ms, loop_ms, grouped_ms = median_ms(kg), median_ms(loop), median_ms(grouped)
        weights = moe_weight_bytes(op)
        weights_bw = None
        if kgen_ms and copy_gbps and op["tokens"] <= MOE_DECODE_TOKENS:
            weights_bw = weights / (kgen_ms * 1e-3) / (copy_gbps * 1e9)
        rows.append([names[k], ms(kg) if kg else "-", ms(loop) if loop else "-",
                     ms(grouped) if grouped else "-",
                     f"{loop_ms / kgen_ms:.2f}x" if kgen_ms and loop_ms else "-",
                     f"{grouped_ms / kgen_ms:.2f}x" if kgen_ms and grouped_ms else "-",
                     f'{real(kg["tflops"]):.1f}' if kgen_ms else "-",
                     f"{weights / 1e9:.2f}",
                     percent(weights_bw) if weights_bw is not None else "-",
                     moe_target(op, kgen_ms, loop_ms, grouped_ms, weights_bw)])
    return table(rows) + (
        "\n(the whole layer, logits to y; weights GB: w_gate, w_up and w_down of the "
        "experts hit, the expected number for uniform routing, with their block scales "
        "and the shared expert's weights where the layer has them; kgen %bw: those bytes "
        f"over kgen's median, of the copy ceiling, at <= {MOE_DECODE_TOKENS} tokens)")


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
    attention = attention_table(docs.get("kgen-attention.json", {}).get("results", []),
                                torch_results)
    if attention:
        out += ["", attention]
    ceilings = docs.get("ceilings.json", {}).get("ceilings") or {}
    moe = moe_table(docs.get("kgen-moe.json", {}).get("results", []),
                    docs.get("baseline-torch-moe.json", {}).get("results", []),
                    real(ceilings.get("copy_gbps", 0)))
    if moe:
        out += ["", moe]
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
