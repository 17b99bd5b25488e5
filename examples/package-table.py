#!/usr/bin/env python3
"""Prints one line per kernel package: shape, config, who chose it (the
config's source) and ptxas's report. Gemm shapes are M x N x K; attention
shapes B x Hq/Hkv Sq x Skv x D; MoE layers tokens, experts / top-k,
hidden x intermediate.

usage: package-table.py EXAMPLE PACKAGE_DIR...   (folders holding manifest.json)
"""
import json
import os
import sys


def row(example, manifest_path):
    with open(manifest_path, encoding="utf-8") as f:
        m = json.load(f)
    c, op = m["config"], m["op"]
    # Version 1: one kernel at the top level; version 2: "kernels". A
    # package costs what its worst kernel does (spills add up).
    kernels = m.get("kernels") or [m]
    reports = [k.get("resources") for k in kernels]
    if any(r is None for r in reports):
        regs = smem = spills = stack = "?"
    else:
        regs = max(r["registers"] for r in reports)
        smem = max(k["launch"]["dynamic_smem_bytes"] + r["shared_bytes"]
                   for k, r in zip(kernels, reports))
        spills = (f'{sum(r["spill_store_bytes"] for r in reports)}/'
                  f'{sum(r["spill_load_bytes"] for r in reports)}')
        stack = max(r["stack_bytes"] for r in reports)
    if op.get("kind") == "attention":
        # batch, query/KV heads, queries x keys, head dim; the block's
        # query rows x keys per step, split-KV, packed GQA.
        shape = (f'{op["batch"]}x{op["q_heads"]}/{op["kv_heads"]} '
                 f'{op["seq_q"]}x{op["seq_kv"]}x{op["head_dim"]}')
        tile = f'{c["instruction"]} {c["block_m"]}x{c["block_n"]} s{c["stages"]}'
        if c.get("split_kv", 1) > 1:
            tile += f' kv/{c["split_kv"]}'
        if c.get("pack_gqa"):
            tile += ' gqa'
    elif op.get("kind") == "moe":
        # tokens, experts / top-k, hidden x intermediate; the gated and the
        # down expert GEMMs' tiles (rows x columns x K).
        shape = (f'{op["tokens"]}t e{op["experts"]}/{op["top_k"]} '
                 f'{op["hidden"]}x{op["inter"]}')
        g, d = c["gate_up"], c["down"]
        tile = (f'{g["instruction"]} {g["block_m"]}x{g["block_n"]}x{g["block_k"]}'
                f'+{d["block_m"]}x{d["block_n"]}x{d["block_k"]}')
        c = g
    else:
        shape = f'{op["m"]}x{op["n"]}x{op["k"]}'
        tile = f'{c["instruction"]} {c["block_m"]}x{c["block_n"]}x{c["block_k"]} s{c["stages"]}'
        if c.get("split_k", 1) > 1:
            tile += f' k/{c["split_k"]}'
    return (f'{example:<17} {m["name"]:<52} {shape:<24} {tile:<26} {c["source"]:<9} '
            f'{regs:>5} {smem:>7} {spills:>11} {stack:>6}')


def main():
    example, dirs = sys.argv[1], sys.argv[2:]
    for d in sorted(dirs):
        if os.path.isfile(f"{d}/manifest.json"):
            print(row(example, f"{d}/manifest.json"))


if __name__ == "__main__":
    main()
