#!/usr/bin/env python3
"""Prints one line per kernel package: shape, config and ptxas's report.

usage: package-table.py EXAMPLE PACKAGE_DIR...   (folders holding manifest.json)
"""
import json
import os
import sys


def row(example, manifest_path):
    with open(manifest_path, encoding="utf-8") as f:
        m = json.load(f)
    c, r, op = m["config"], m.get("resources", {}), m["op"]
    smem = m["launch"]["dynamic_smem_bytes"] + r.get("shared_bytes", 0)
    spills = f'{r.get("spill_store_bytes", "?")}/{r.get("spill_load_bytes", "?")}'
    shape = f'{op["m"]}x{op["n"]}x{op["k"]}'
    tile = f'{c["instruction"]} {c["block_m"]}x{c["block_n"]}x{c["block_k"]} s{c["stages"]}'
    return (f'{example:<16} {m["name"]:<36} {shape:<17} {tile:<23} '
            f'{r.get("registers", "?"):>5} {smem:>7} {spills:>11} {r.get("stack_bytes", "?"):>6}')


def main():
    example, dirs = sys.argv[1], sys.argv[2:]
    for d in sorted(dirs):
        if os.path.isfile(f"{d}/manifest.json"):
            print(row(example, f"{d}/manifest.json"))


if __name__ == "__main__":
    main()
