#!/usr/bin/env python3
"""Writes a shape suite (bench/suites/gemm.json or attention.json) as a kgen module.

usage: suite-to-mlir.py SUITE.json [--m 4096,16] [--models llama3-8b,...]
                        [--gemms o,qkv]               (a kgen.gemm-suite)
       suite-to-mlir.py SUITE.json [--entries SUBSTR,...] [--max-kv-gib G]
                                                      (a kgen.attention-suite)

GEMM suite: one function per distinct (M, N, K): y = x W^T with x [M, K] and
W [N, K] (nn.Linear weights, transpose_b) in the suite's dtype, named
<model>_<gemm>_m<M>. Shapes already written under another name are skipped,
as the suite says.

Attention suite: one function per entry, named after it ("llama3-8b/decode
b=1 kv=1k" -> llama3_8b_decode_b_1_kv_1k), holding one kgen.attention of the
entry's op object (docs/kernel-package.md): q [B, Hq, Sq, D], k and v
[B, Hkv, Skv, D], kv_lens ([B] i32) and the lse result ([B, Hq, Sq] f32) when
the entry has them, scale, causal, sliding_window and softcap as given.
--entries keeps the entries whose name contains one of the substrings;
--max-kv-gib drops those whose K and V together (2 B Hkv Skv D elements)
exceed G GiB (the device check's cut of the largest decode steps). Entries with the same op are
written once, under the first name.

Pipe the output to `kgen-opt --kgen-pipeline="target=... output-dir=..."` to
get packages.
"""
import argparse
import json
import re
import sys


ATTENTION_TYPES = {"bf16": "bf16", "f16": "f16", "f32": "f32"}


def function_name(name):
    """A suite entry's name as an MLIR symbol: runs of other characters
    than letters and digits become one underscore."""
    return re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_")


def gemm_module(suite, path, args):
    ms = [int(m) for m in args.m.split(",")] if args.m else suite["m"]
    wanted = set(args.models.split(",")) if args.models else None
    gemms = set(args.gemms.split(",")) if args.gemms else None
    t = suite.get("dtype", "bf16")
    seen = set()
    out = [f"// GEMMs of {suite['name']} ({path}), y = x W^T, {t}."]
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
    return out


def kv_bytes(op):
    """Bytes of K and V together."""
    elem = 4 if op["dtype"] == "f32" else 2
    return 2 * op["batch"] * op["kv_heads"] * op["seq_kv"] * op["head_dim"] * elem


def attention_function(name, op):
    """The function of one attention suite entry (its op object)."""
    b, hq, hkv = op["batch"], op["q_heads"], op["kv_heads"]
    sq, skv, d = op["seq_q"], op["seq_kv"], op["head_dim"]
    t = ATTENTION_TYPES[op["dtype"]]
    to = ATTENTION_TYPES[op.get("dtype_out") or op["dtype"]]
    q, kv = f"tensor<{b}x{hq}x{sq}x{d}x{t}>", f"tensor<{b}x{hkv}x{skv}x{d}x{t}>"
    o, lse, lens = f"tensor<{b}x{hq}x{sq}x{d}x{to}>", f"tensor<{b}x{hq}x{sq}xf32>", f"tensor<{b}xi32>"
    attrs = []
    if op.get("scale") is not None:
        attrs.append(f"scale = {float(op['scale'])!r} : f32")
    if op.get("causal"):
        attrs.append("causal")
    if op.get("sliding_window") is not None:
        attrs.append(f"sliding_window = {int(op['sliding_window'])} : i64")
    if op.get("softcap") is not None:
        attrs.append(f"softcap = {float(op['softcap'])!r} : f32")
    args = [f"%q: {q}", f"%k: {kv}", f"%v: {kv}"]
    operands = "%q, %k, %v"
    if op.get("kv_lens"):
        args.append(f"%lens: {lens}")
        operands += f" kv_lens(%lens : {lens})"
    results, values = [o], ["%o"]
    if op.get("lse"):
        results.append(lse)
        values.append("%lse")
    attr_dict = f" {{{', '.join(attrs)}}}" if attrs else ""
    ret = ", ".join(results)
    return (f"func.func @{function_name(name)}({', '.join(args)}) -> ({ret}) {{\n"
            f"  {', '.join(values)} = kgen.attention {operands}{attr_dict}\n"
            f"      : {q}, {kv}, {kv} -> {ret}\n"
            f"  return {', '.join(values)} : {ret}\n}}")


def attention_module(suite, path, args):
    wanted = args.entries.split(",") if args.entries else None
    seen = set()
    out = [f"// Attention of {suite['name']} ({path}): one function per entry."]
    for entry in suite["entries"]:
        name, op = entry["name"], entry["op"]
        if wanted and not any(w in name for w in wanted):
            continue
        if args.max_kv_gib is not None and kv_bytes(op) > args.max_kv_gib * 2**30:
            continue
        key = json.dumps(op, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        out.append(f"// {name}\n{attention_function(name, op)}")
    if not seen:
        sys.exit("suite-to-mlir: no attention entry of the suite matches --entries and --max-kv-gib")
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite")
    parser.add_argument("--m", help="gemm suite: comma-separated M values (default: the suite's)")
    parser.add_argument("--models", help="gemm suite: comma-separated model names (default: all)")
    parser.add_argument("--gemms", help="gemm suite: comma-separated gemm names of those "
                        "models, e.g. o,qkv (default: all)")
    parser.add_argument("--entries", help="attention suite: comma-separated substrings of "
                        "entry names (default: all)")
    parser.add_argument("--max-kv-gib", type=float, help="attention suite: leave out "
                        "entries whose K and V together exceed this many GiB")
    args = parser.parse_args()
    try:
        with open(args.suite, encoding="utf-8") as f:
            suite = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"suite-to-mlir: cannot read {args.suite}: {e}")
    schema = suite.get("schema")
    if schema == "kgen.gemm-suite":
        if args.entries or args.max_kv_gib is not None:
            sys.exit("suite-to-mlir: --entries and --max-kv-gib are for attention suites")
        out = gemm_module(suite, args.suite, args)
    elif schema == "kgen.attention-suite":
        if args.m or args.models or args.gemms:
            sys.exit("suite-to-mlir: --m, --models and --gemms are for gemm suites")
        out = attention_module(suite, args.suite, args)
    else:
        sys.exit(f"suite-to-mlir: {args.suite} is neither a kgen.gemm-suite "
                 "nor a kgen.attention-suite file")
    print("\n".join(out))


if __name__ == "__main__":
    main()
