#!/usr/bin/env python3
"""A kgen moe package against the suite entry it was made from: its
manifest's op object computes what the entry's does (bench/torch_baselines.py's
moe_key, so the torch baselines find the package's op), holds every field
the entry gives with the entry's value, and its FLOPs and bytes are
moe_work's with all E experts counted (a manifest counts each operand
once; the runtime's moeFlops are the same FLOPs).

  moe-package-matches-suite.py SRC_ROOT SUITE ENTRY PACKAGE_DIR
"""
import importlib.util
import json
import os
import sys

root, suite_path, name, package = sys.argv[1:5]
spec = importlib.util.spec_from_file_location(
    "torch_baselines", os.path.join(root, "bench", "torch_baselines.py"))
tb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tb)

entry = next(e["op"] for e in tb.load_moe_suite(suite_path)["entries"] if e["name"] == name)
with open(os.path.join(package, "manifest.json")) as f:
    manifest = json.load(f)
op = manifest["op"]
differ = sorted(k for k, v in entry.items() if op.get(k) != v)
flops, nbytes = tb.moe_work(entry, hit=entry["experts"])
print(f"{name}: same op: {tb.moe_key(op) == tb.moe_key(entry)}; fields that differ: {differ}")

def compare(what, got, want):
    return f"{what} {got:.10g} {'==' if got == want else '!='} {want:.10g}"


print(f"{compare('flops', manifest['flops'], flops)}; {compare('bytes', manifest['bytes'], nbytes)}")
