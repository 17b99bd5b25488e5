#!/usr/bin/env python3
"""ptxas's resources of every grouped GEMM config the legality accepts.

The grouped GEMM legality (dialect/GroupedGemmLegality.cpp) promises that an
accepted #kgen.grouped_gemm_config lowers to CUDA with no stack and no
spills. This sweep checks the promise the way the attention legality's
register limits were found: kgen-opt's verifier is the oracle (a kgen.moe
whose gate_up_config or down_config verifies is accepted), and NVRTC's ptxas
report in each package's manifest is the measurement.

  1. Every config of the space (block_m 16..128, block_n 32..256, block_k
     16..64, warps_m/warps_n 1..4, stages 2..4), for each target and
     element type, is asked of the verifier twice: as a kgen.moe's
     gate_up_config (the gated form) and as its down_config, the other
     config fixed at a small legal one. One kgen-opt run over all of them
     (--split-input-file; an error's line names its op). The element type
     e4m3 is DeepSeek-V3's block-scaled layer: bf16 x and y, f8E4M3FN
     weights with `scales(...)` (f32, one per 128 x 128 block), its space
     block_k 128 too (kgen-tune's), its target sm_90a only (sm_80 has no
     e4m3 conversion and is refused by design); --dtypes e4m3 asks it.
  2. The accepted configs are sampled: all of them for the --full
     target:dtype pairs, the edges for the others (a config is an edge when
     doubling block_m, block_n or block_k, or adding a stage, is refused in
     every one of those directions, or when it has one warp row at
     block_m 16: the decode tiles).
  3. Accepted gated and down configs are paired into kgen.moe layers (one
     package of six kernels each, e4m3 eight: two quantise activations),
     lowered and emitted with --kgen-emit-packages (NVRTC compiles each
     package, ptxas's report goes to manifest.json's "resources"), --jobs
     kgen-opt processes at a time.
  4. Every kernel's registers, stack and spill bytes are collected; a
     config is clean when its kernel (and the package's other kernels) has
     no stack and no spills.

--stages widens the stage counts swept (the legality accepts more than 4;
kgen-tune's space stops there), --activation the gated epilogue's.

Output: --json FILE (every record and every refusal reason's count),
--markdown (the per-config register table of docs/moe.md's "Legality from
ptxas") and a summary on stdout; the exit status is 1 when an accepted
config spills or uses stack.

Example (about 4 minutes of NVRTC on 2 cores for the default sample):
  bench/moe-legality-sweep.py --kgen-opt build/bin/kgen-opt \\
      --work /tmp/moe-sweep --json /tmp/moe-sweep.json
Every accepted block-scaled e4m3 config (480 packages, 10 to 17 minutes
on 2 cores):
  bench/moe-legality-sweep.py --targets sm_90a --dtypes e4m3 \
      --full sm_90a:e4m3 --work /tmp/moe-sweep-e4m3 --markdown

Run again with the same arguments and --work, a sweep compiles only the
batches that did not succeed before.
"""
import argparse
import bisect
import collections
import concurrent.futures
import itertools
import json
import os
import re
import shutil
import subprocess
import sys

BLOCK_M = [16, 32, 64, 128]
BLOCK_N = [32, 64, 128, 256]
BLOCK_K = [16, 32, 64]
WARPS = [1, 2, 4]
STAGES = [2, 3, 4]  # --stages
TARGETS = ["sm_80", "sm_90a"]
DTYPES = ["bf16", "f16"]
# A --dtypes name: (x's and y's element type, the weights'); f8E4M3FN
# weights come with block scales.
ELEMENTS = {"bf16": ("bf16", "bf16"), "f16": ("f16", "f16"),
            "e4m3": ("bf16", "f8E4M3FN")}
SCALE_BLOCK = 128
# The config the other expert GEMM of a verified or compiled layer takes
# (legal gated and not: tiled-moe.mlir's decode tile).
FIXED = (16, 32, 32, 1, 2, 2)
FIELDS = ("block_m", "block_n", "block_k", "warps_m", "warps_n", "stages")


def block_scaled(dtype):
    return ELEMENTS[dtype][1] == "f8E4M3FN"


def space(target, dtype, stages):
    """The configs swept for `target`/`dtype` (none for block-scaled
    weights on sm_80)."""
    if block_scaled(dtype) and target == "sm_80":
        return []
    block_k = BLOCK_K + [SCALE_BLOCK] if block_scaled(dtype) else BLOCK_K
    return itertools.product(BLOCK_M, BLOCK_N, block_k, WARPS, WARPS, stages)


def manifest_dtype(op):
    """The --dtypes name of a package's manifest "op"."""
    elements = (op["dtype"], op.get("weight_dtype", op["dtype"]))
    return next(d for d, e in ELEMENTS.items() if e == elements)


def config_attr(target, c):
    bm, bn, bk, wm, wn, st = c
    return (f"#kgen.grouped_gemm_config<target = {target}, instruction = "
            f"mma_sync, block_m = {bm}, block_n = {bn}, block_k = {bk}, "
            f"warps_m = {wm}, warps_n = {wn}, stages = {st}, source = user>")


def parse_attr(text):
    fields = dict(re.findall(r"(\w+) = (\w+)", text))
    return fields["target"], tuple(int(fields[f]) for f in FIELDS)


class Layer:
    """The kgen.moe layer every config is checked and compiled in: T tokens,
    hidden H, intermediate I, E experts, top k (H and I multiples of every
    block_n and block_k of the space)."""

    def __init__(self, tokens, hidden, inter, experts, top_k, activation):
        self.t, self.h, self.i = tokens, hidden, inter
        self.e, self.k, self.act = experts, top_k, activation

    def func(self, name, dtype, gate_up, down):
        t, h, i, e = self.t, self.h, self.i, self.e
        dt, wt = ELEMENTS[dtype]
        x, l, y = f"tensor<{t}x{h}x{dt}>", f"tensor<{t}x{e}xf32>", f"tensor<{t}x{h}x{dt}>"
        wgu, wd = f"tensor<{e}x{h}x{i}x{wt}>", f"tensor<{e}x{i}x{h}x{wt}>"
        act = f"activation = #kgen.activation<{self.act}>, " if self.act != "silu" else ""
        args, scales = "", ""
        if block_scaled(dtype):
            hb, ib = -(-h // SCALE_BLOCK), -(-i // SCALE_BLOCK)
            sgu, sd = f"tensor<{e}x{hb}x{ib}xf32>", f"tensor<{e}x{ib}x{hb}xf32>"
            args = f", %sg: {sgu}, %su: {sgu}, %sd: {sd}"
            scales = f" scales(%sg, %su, %sd : {sgu}, {sgu}, {sd})"
        return (
            f"func.func @{name}(%x: {x}, %l: {l}, %wg: {wgu}, %wu: {wgu}, %wd: {wd}{args}) -> {y} {{\n"
            f"  %y = kgen.moe %x, %l, %wg, %wu, %wd{scales} {{{act}top_k = {self.k}, "
            f"gate_up_config = {gate_up}, down_config = {down}}}\n"
            f"      : {x}, {l}, {wgu}, {wgu}, {wd} -> {y}\n"
            f"  return %y : {y}\n}}\n")


def verify_all(kgen_opt, layer, work, targets, dtypes, stages):
    """{(target, dtype, form, config): None if accepted, else the error}."""
    keys, chunks = [], []
    for target, dtype in itertools.product(targets, dtypes):
        fixed = config_attr(target, FIXED)
        for c in space(target, dtype, stages):
            cfg = config_attr(target, c)
            keys.append((target, dtype, "gate_up", c))
            chunks.append(layer.func("f", dtype, cfg, fixed))
            keys.append((target, dtype, "down", c))
            chunks.append(layer.func("f", dtype, fixed, cfg))
    starts, line, text = [], 1, []
    for ch in chunks:
        starts.append(line)
        text.append(ch + "// -----\n")
        line += ch.count("\n") + 1
    path = os.path.join(work, "verify.mlir")
    with open(path, "w") as f:
        f.write("".join(text))
    r = subprocess.run([kgen_opt, path, "--split-input-file", "-o", os.devnull],
                       capture_output=True, text=True)
    verdict = {k: None for k in keys}
    for m in re.finditer(r"verify\.mlir:(\d+):\d+: error: (.*)", r.stderr):
        i = bisect.bisect_right(starts, int(m.group(1))) - 1
        verdict[keys[i]] = m.group(2)
    if r.returncode == 0 and any(verdict.values()):
        sys.exit("kgen-opt reported errors but succeeded")
    return verdict


def edges(accepted):
    """The accepted configs at the edge of the legal space (see the module
    docstring)."""
    out = set()
    for c in accepted:
        bm, bn, bk, wm, wn, st = c
        grown = [(2 * bm, bn, bk, wm, wn, st), (bm, 2 * bn, bk, wm, wn, st),
                 (bm, bn, 2 * bk, wm, wn, st), (bm, bn, bk, wm, wn, st + 1)]
        if not any(g in accepted for g in grown) or (bm == 16 and wm == 1):
            out.add(c)
    return out


def compile_batch(kgen_opt, path, outdir):
    """Lowers and emits the layers of `path` into `outdir`; a batch that
    succeeded in an earlier run of the same sweep (its outdir.ok) is kept."""
    if os.path.exists(outdir + ".ok"):
        return path, 0, ""
    shutil.rmtree(outdir, ignore_errors=True)
    r = subprocess.run([kgen_opt, path, "--kgen-lower-moe-to-tiles",
                        f"--kgen-emit-packages=output-dir={outdir}",
                        "-o", os.devnull], capture_output=True, text=True)
    if r.returncode == 0:
        open(outdir + ".ok", "w").close()
    return path, r.returncode, r.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kgen-opt", default="build/bin/kgen-opt")
    ap.add_argument("--work", required=True, help="scratch folder")
    ap.add_argument("--full", action="append", metavar="TARGET:DTYPE",
                    help="compile every accepted config of this pair "
                         "(repeatable; default sm_80:bf16 and sm_90a:bf16); "
                         "the other pairs compile their edges")
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--dtypes", default=",".join(DTYPES))
    ap.add_argument("--stages", default=",".join(map(str, STAGES)))
    ap.add_argument("--activation", default="silu",
                    choices=["silu", "gelu", "relu"])
    ap.add_argument("--tokens", type=int, default=64)
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--inter", type=int, default=512)
    ap.add_argument("--experts", type=int, default=8)
    ap.add_argument("--top-k", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=16,
                    help="layers per kgen-opt process")
    ap.add_argument("--json", help="write every record here")
    ap.add_argument("--markdown", action="store_true",
                    help="print the register table (docs/moe.md)")
    args = ap.parse_args()

    targets, dtypes = args.targets.split(","), args.dtypes.split(",")
    full = set(tuple(p.split(":")) for p in (args.full or ["sm_80:bf16",
                                                           "sm_90a:bf16"]))
    layer = Layer(args.tokens, args.hidden, args.inter, args.experts,
                  args.top_k, args.activation)
    os.makedirs(args.work, exist_ok=True)
    stages = [int(s) for s in args.stages.split(",")]
    verdict = verify_all(args.kgen_opt, layer, args.work, targets, dtypes,
                         stages)
    refusals = collections.Counter(
        (k[1], k[2], re.sub(r"\d+", "N", v.split("grouped_gemm_config ", 1)[-1]))
        for k, v in verdict.items() if v)

    # Sample and pair.
    funcs, sampled = [], {}
    for target, dtype in itertools.product(targets, dtypes):
        lists = {}
        for form in ("gate_up", "down"):
            acc = {k[3] for k, v in verdict.items()
                   if v is None and k[:3] == (target, dtype, form)}
            chosen = acc if (target, dtype) in full else edges(acc)
            lists[form] = sorted(chosen)
            sampled[(target, dtype, form)] = (len(chosen), len(acc))
        g, d = lists["gate_up"], lists["down"]
        for n in range(max(len(g), len(d))):
            gc = g[n] if n < len(g) else FIXED
            dc = d[n] if n < len(d) else FIXED
            funcs.append((dtype, config_attr(target, gc),
                          config_attr(target, dc)))
    for (target, dtype, form), (n, total) in sorted(sampled.items()):
        print(f"{target} {dtype} {form}: {total} accepted, {n} compiled")
    print(f"{len(funcs)} packages")
    sys.stdout.flush()

    jobs = []
    for b in range(0, len(funcs), args.batch):
        name = f"{b // args.batch:04d}"
        path = os.path.join(args.work, f"batch-{name}.mlir")
        with open(path, "w") as f:
            for n, (dtype, g, d) in enumerate(funcs[b:b + args.batch]):
                f.write(layer.func(f"m{b + n}", dtype, g, d))
        jobs.append((path, os.path.join(args.work, f"pkg-{name}")))
    failures = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for path, rc, err in pool.map(lambda j: compile_batch(args.kgen_opt, *j),
                                      jobs):
            if rc != 0:
                failures += 1
                print(f"{path}: kgen-opt failed:\n{err[:2000]}")

    # Collect.
    records, others = {}, collections.Counter()
    for _, outdir in jobs:
        if not os.path.isdir(outdir):
            continue
        for pkg in sorted(os.listdir(outdir)):
            with open(os.path.join(outdir, pkg, "manifest.json")) as f:
                m = json.load(f)
            dt = manifest_dtype(m["op"])
            for kern in m["kernels"]:
                entry, res = kern["entry"], kern["resources"]
                # Symbol names are uniqued with a "_N" suffix.
                form = re.search(r"_(gate_up|down)(_\d+)?$", entry)
                form = form and form.group(1)
                dirty = res["stack_bytes"] > 0 or res["spill_store_bytes"] > 0
                if form is None:
                    others["dirty" if dirty else "clean"] += 1
                    continue
                target, c = parse_attr(m["config"][form]["attribute"])
                if c == FIXED and (target, dt, form, c) not in verdict:
                    continue  # outside a --stages sweep's space
                records[(target, dt, form, c)] = {
                    "target": target, "dtype": dt, "form": form,
                    **dict(zip(FIELDS, c)),
                    "threads": 32 * c[3] * c[4],
                    "registers": res["registers"],
                    "stack_bytes": res["stack_bytes"],
                    "spill_store_bytes": res["spill_store_bytes"],
                    "spill_load_bytes": res["spill_load_bytes"]}
    recs = sorted(records.values(), key=lambda r: (
        r["target"], r["dtype"], r["form"], *(r[f] for f in FIELDS)))
    dirty = [r for r in recs if r["stack_bytes"] or r["spill_store_bytes"]]
    print(f"{len(recs)} accepted expert GEMM kernels measured, {len(dirty)} "
          f"with stack or spills; route/rank/gather/quantise/combine kernels: "
          f"{dict(others)}")
    for r in dirty:
        print("  DIRTY " + " ".join(f"{k}={r[k]}" for k in r))
    # Block-scaled kernels (another main loop) have maxima of their own.
    for scaled, form in itertools.product((False, True), ("gate_up", "down")):
        for threads in (32, 64, 128, 256, 512):
            rs = [r for r in recs if r["form"] == form and r["threads"] == threads
                  and block_scaled(r["dtype"]) == scaled]
            if rs:
                top = max(rs, key=lambda r: r["registers"])
                print(f"  {form} {threads} threads: max {top['registers']} "
                      f"registers ({', '.join(f'{f}={top[f]}' for f in FIELDS)}, "
                      f"{top['target']} {top['dtype']})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"layer": vars(layer), "records": recs,
                       "refusals": [{"dtype": k[0], "form": k[1],
                                     "reason": k[2], "count": n}
                                    for k, n in refusals.most_common()]},
                      f, indent=1)
    if args.markdown:
        for target, dtype in sorted(full):
            print_markdown(recs, target, dtype)
    return 1 if dirty or failures or others["dirty"] else 0


def print_markdown(recs, target, dtype):
    """The registers of `target`/`dtype`'s kernels, a row per tile and warp
    grid, a column per form and stage count ('-': refused, or not
    compiled)."""
    regs = {(r["form"], *(r[f] for f in FIELDS)): r["registers"]
            for r in recs if (r["target"], r["dtype"]) == (target, dtype)}
    stages = sorted({k[6] for k in regs})
    tiles = sorted({k[1:6] for k in regs})
    cols = [f"{form} s{st}" for form in ("gate_up", "down") for st in stages]
    print(f"Registers per thread, {target} {dtype}:\n")
    print("| block_m | block_n | block_k | warps_m x n | " + " | ".join(cols) + " |")
    print("|---|---|---|---|" + "---|" * len(cols))
    for bm, bn, bk, wm, wn in tiles:
        cells = [str(regs.get((form, bm, bn, bk, wm, wn, st), "-"))
                 for form in ("gate_up", "down") for st in stages]
        print(f"| {bm} | {bn} | {bk} | {wm}x{wn} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    sys.exit(main())
