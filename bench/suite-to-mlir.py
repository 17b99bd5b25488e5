#!/usr/bin/env python3
"""Writes the GEMMs of a shape suite (bench/suites/gemm.json) as a kgen module.

usage: suite-to-mlir.py SUITE.json [--m 4096,16] [--models llama3-8b,...]
                        [--gemms o,qkv]

One function per distinct (M, N, K): y = x W^T with x [M, K] and W [N, K]
(nn.Linear weights, transpose_b) in the suite's dtype, named
<model>_<gemm>_m<M>. Shapes already written under another name are skipped,
as the suite says. Pipe the output to
`kgen-opt --kgen-pipeline="target=... output-dir=..."` to get packages.
"""
import argparse
import json
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite")
    parser.add_argument("--m", help="comma-separated M values (default: the suite's)")
    parser.add_argument("--models", help="comma-separated model names (default: all)")
    parser.add_argument("--gemms", help="comma-separated gemm names of those models, "
                        "e.g. o,qkv (default: all)")
    args = parser.parse_args()
    try:
        with open(args.suite, encoding="utf-8") as f:
            suite = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"suite-to-mlir: cannot read {args.suite}: {e}")
    if suite.get("schema") != "kgen.gemm-suite":
        sys.exit(f"suite-to-mlir: {args.suite} is not a kgen.gemm-suite file")
    ms = [int(m) for m in args.m.split(",")] if args.m else suite["m"]
    wanted = set(args.models.split(",")) if args.models else None
    gemms = set(args.gemms.split(",")) if args.gemms else None
    t = suite.get("dtype", "bf16")
    seen = set()
    out = [f"// GEMMs of {suite['name']} ({args.suite}), y = x W^T, {t}."]
    for model in suite["models"]:
        if wanted and model["name"] not in wanted:
            continue
        for gemm in model["gemms"]:
            if gemms and gemm["name"] not in gemms:
                continue
            for m in ms:
                n, k = gemm["n"], gemm["k"]
                if (m, n, k) in seen:
                    continue
                seen.add((m, n, k))
                name = f"{model['name']}_{gemm['name']}_m{m}".replace("-", "_").replace(".", "_")
                x, w, y = f"tensor<{m}x{k}x{t}>", f"tensor<{n}x{k}x{t}>", f"tensor<{m}x{n}x{t}>"
                out.append(f"func.func @{name}(%x: {x}, %w: {w}) -> {y} {{\n"
                           f"  %y = kgen.gemm %x, %w {{transpose_b}} : {x}, {w} -> {y}\n"
                           f"  return %y : {y}\n}}")
    if (wanted or gemms) and not seen:
        sys.exit("suite-to-mlir: no gemm of the suite matches --models and --gemms")
    print("\n".join(out))


if __name__ == "__main__":
    main()
