#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target into OUT/<target>/ from the
repository's tests and fuzz/corpus/<target>/ (committed seeds, including
the inputs of crashes found and fixed).

usage: make-seeds.py ROOT OUT

  mlir-pipeline  test/**/*.mlir, examples/**/*.mlir, split at '// -----'
                 (--split-input-file), pieces up to 16 KiB
  tuning-db      test/Passes/Inputs/*tuning-db*.json
  select-db      the same databases
  cost-model     test/Passes/Inputs/*cost-model*.json
  manifest       runtime/test/data/packages/*/manifest.json, the source
                 renamed kernel.cu and its hash '@SHA@' (manifest.cpp)
  gemm-suite     bench/suites/*.json of schema kgen.gemm-suite
  results, npy, bench-cli   fuzz/corpus only
"""
import glob
import hashlib
import json
import os
import re
import shutil
import sys

MAX_MLIR_BYTES = 16 * 1024  # mlir-pipeline.cpp's kMaxBytes


def write(out_dir, data):
    """One seed, named by its content's hash (duplicates collapse)."""
    if isinstance(data, str):
        data = data.encode()
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(out_dir, name), "wb") as f:
        f.write(data)


def files(root, *patterns):
    found = []
    for pattern in patterns:
        found += glob.glob(os.path.join(root, pattern), recursive=True)
    return sorted(set(found))


def main():
    root, out = sys.argv[1], sys.argv[2]
    seeds = {t: [] for t in ("mlir-pipeline", "tuning-db", "select-db", "cost-model",
                             "manifest", "gemm-suite", "results", "npy", "bench-cli")}

    for path in files(root, "test/**/*.mlir", "examples/**/*.mlir"):
        text = open(path, encoding="utf-8", errors="replace").read()
        for piece in re.split(r"^// -----\s*$", text, flags=re.M):
            if piece.strip() and len(piece.encode()) <= MAX_MLIR_BYTES:
                seeds["mlir-pipeline"].append(piece)

    for path in files(root, "test/Passes/Inputs/*tuning-db*.json"):
        data = open(path, "rb").read()
        seeds["tuning-db"].append(data)
        seeds["select-db"].append(data)
    for path in files(root, "test/Passes/Inputs/*cost-model*.json"):
        seeds["cost-model"].append(open(path, "rb").read())
    for path in files(root, "runtime/test/data/packages/*/manifest.json"):
        manifest = json.load(open(path))
        manifest["source"] = "kernel.cu"
        manifest["source_sha256"] = "@SHA@"
        seeds["manifest"].append(json.dumps(manifest, indent=1))
    for path in files(root, "bench/suites/*.json"):
        text = open(path, "rb").read()
        if b'"kgen.gemm-suite"' in text:
            seeds["gemm-suite"].append(text)

    # Committed seeds: select-db shares tuning-db's.
    for target in seeds:
        source = "tuning-db" if target == "select-db" else target
        for path in files(root, f"fuzz/corpus/{source}/*"):
            seeds[target].append(open(path, "rb").read())

    for target, datas in seeds.items():
        out_dir = os.path.join(out, target)
        shutil.rmtree(out_dir, ignore_errors=True)
        os.makedirs(out_dir)
        for data in datas:
            write(out_dir, data)
        print(f"fuzz: {target}: {len(os.listdir(out_dir))} seeds")


if __name__ == "__main__":
    main()
