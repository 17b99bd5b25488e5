"""A single machine's run of a campaign plan, for comparing with the
campaign's merged database: `kgen-bench tune` over each item's candidates,
in the plan's item order, into one database, with the plan's budget.

usage: tune-plan-locally.py PLAN.json KGEN_BENCH DB.json [tune options...]
"""
import json
import os
import subprocess
import sys

plan_path, bench, db = sys.argv[1:4]
root = os.path.dirname(os.path.abspath(plan_path))
with open(plan_path) as f:
    plan = json.load(f)
budget = plan["budget"]
for n, item in enumerate(plan["items"]):
    packages = [os.path.join(root, item["op_folder"], c) for c in item["candidates"]]
    cmd = [bench, "tune", *packages, "--db", db,
           "--out", f"{db}.{n}.results.json",
           "--max-seconds", str(budget["max_seconds"]),
           "--finalists", str(budget["finalists"]),
           "--rounds", str(budget["rounds"]),
           "--seed", str(budget["seed"]), *sys.argv[4:]]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(f"tuned {len(plan['items'])} items into {db}")
