#!/usr/bin/env python3
"""Checks the kernel packages that kgen-opt --kgen-pipeline wrote for an
attention suite (bench/suite-to-mlir.py):

  check-attention-packages.py PKG_DIR SUITE.json COUNT

PKG_DIR holds exactly COUNT packages; each manifest's op object is the op of
a suite entry (every field the entry gives, equal; the op's defaults for the
others) and every kernel was compiled (registers > 0) with no spills and no
stack frame. Prints one line per package, sorted by name; exit 1 on any
mismatch.
"""
import glob
import json
import os
import sys


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
        # The paging fields count even where an entry leaves them out: a
        # paged package is not the contiguous entry of the same shape.
        paging = ("paged", "page_size", "num_pages")
        entry = next((e["name"] for e in entries
                      if all(op.get(k) == v for k, v in e["op"].items())
                      and all(op.get(k) == e["op"].get(k) for k in paging)),
                     None)
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
        split = any(p["name"] == "o_partial" for p in m["params"])
        print(f'{m["name"]}: "{entry}", {len(kernels)} kernel(s)'
              f'{", split-KV" if split else ""}, {m["target"]}')
    for line in bad:
        print(f"check-attention-packages: {line}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
