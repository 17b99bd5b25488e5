#!/usr/bin/env python3
"""Checks the kernel packages that kgen-opt --kgen-pipeline wrote for an
attention suite (bench/suite-to-mlir.py):

  check-attention-packages.py PKG_DIR SUITE.json COUNT

PKG_DIR holds exactly COUNT packages; each manifest's op object is the op of
a suite entry (every field the entry gives, equal; the op's defaults for the
others), its q param is of the op's dtype, its k and v params of its
dtype_kv (dtype by default) and it has a q_descale, k_descale, v_descale
param (an f32 [1] input) exactly when the op has that flag, and every
kernel was compiled (registers > 0) with no spills and no stack frame.
Prints one line per package, sorted by name (an e4m3 cache's type, e4m3
Q, K and V, the descales, the target and the strategy's instruction
named); exit 1 on any mismatch.
"""
import glob
import json
import os
import sys


# The fields that count even where an entry leaves them out (a package
# writes them only when they are not their defaults): a paged package is
# not the contiguous entry of the same shape, an e4m3 cache's not the bf16
# one's.
UNLESS_DEFAULT = ("paged", "page_size", "num_pages", "dtype_kv",
                  "q_descale", "k_descale", "v_descale")


def same_op(op, entry_op):
    """Whether a manifest's op is a suite entry's: every field the entry
    gives, and those of UNLESS_DEFAULT with their defaults (dtype_kv the
    dtype, the others false or absent)."""
    def value(o, k):
        return (o.get(k) or o.get("dtype")) if k == "dtype_kv" else (o.get(k) or None)
    return (all(op.get(k) == v for k, v in entry_op.items() if k not in UNLESS_DEFAULT)
            and all(value(op, k) == value(entry_op, k) for k in UNLESS_DEFAULT))


def main():
    pkg_dir, suite_path, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(suite_path) as f:
        entries = json.load(f)["entries"]
    manifests = sorted(glob.glob(os.path.join(pkg_dir, "*", "manifest.json")))
    bad = []
    if len(manifests) != count:
        bad.append(f"{len(manifests)} packages, expected {count}")
    for path in manifests:
        with open(path) as f:
            m = json.load(f)
        op = m["op"]
        entry = next((e["name"] for e in entries if same_op(op, e["op"])), None)
        if entry is None:
            bad.append(f'{m["name"]}: op matches no suite entry: {json.dumps(op)}')
        kernels = m["kernels"]
        for k in kernels:
            r = k["resources"]
            if r["registers"] <= 0:
                bad.append(f'{k["entry"]}: not compiled (no registers)')
            if r["spill_store_bytes"] or r["spill_load_bytes"] or r["stack_bytes"]:
                bad.append(f'{k["entry"]}: spills {r["spill_store_bytes"]}/'
                           f'{r["spill_load_bytes"]} bytes, stack {r["stack_bytes"]}')
        params = {p["name"]: p for p in m["params"]}
        kv_type = op.get("dtype_kv") or op["dtype"]
        for name, want in (("q", op["dtype"]), ("k", kv_type), ("v", kv_type)):
            if params.get(name, {}).get("dtype") != want:
                bad.append(f'{m["name"]}: param {name} is not {want}: {params.get(name)}')
        descales = [d for d in ("q_descale", "k_descale", "v_descale") if op.get(d)]
        for d in ("q_descale", "k_descale", "v_descale"):
            p = params.get(d)
            if d in descales and (p is None or (p["dtype"], p["shape"], p["role"])
                                  != ("f32", [1], "input")):
                bad.append(f'{m["name"]}: the op has {d}, the params no f32 [1] input {d}: {p}')
            elif d not in descales and p is not None:
                bad.append(f'{m["name"]}: param {d} for an op without {d}')
        split = "o_partial" in params
        e4m3 = (f", K/V {kv_type}" if kv_type != op["dtype"] else
                f", Q/K/V {kv_type}" if kv_type == "f8E4M3FN" else "")
        scaled = f', {" ".join(descales)}' if descales else ""
        instruction = m.get("config", {}).get("instruction", "no instruction")
        print(f'{m["name"]}: "{entry}", {len(kernels)} kernel(s)'
              f'{", split-KV" if split else ""}{e4m3}{scaled}, {m["target"]}, {instruction}')
    for line in bad:
        print(f"check-attention-packages: {line}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
