"""Whether two tuning databases hold the same measurements.

usage: same-tuning-db.py A.json B.json

Equal when they have the same keys, and under each key the same candidates
in the same order (config, status, correct, time), whatever order the
entries are in and wherever, whenever and on which shard each candidate was
measured (measured_at, host, provenance are not compared). Prints "same: N
entries, M candidates" and exits 0, or the first difference and exits 1.
"""
import json
import sys


def measurements(path):
    with open(path) as f:
        db = json.load(f)
    out = {}
    for entry in db["entries"]:
        key = json.dumps(entry["key"], sort_keys=True)
        out[key] = [
            {k: c.get(k) for k in ("config", "status", "correct", "time")}
            for c in entry["candidates"]
        ]
    return out


a, b = measurements(sys.argv[1]), measurements(sys.argv[2])
if a.keys() != b.keys():
    only = sorted(set(a) ^ set(b))
    print(f"different keys: {len(a)} and {len(b)} entries; first unmatched: {only[0]}")
    sys.exit(1)
for key in sorted(a):
    if a[key] != b[key]:
        print(f"different candidates under {key}:\n  {a[key]}\n  {b[key]}")
        sys.exit(1)
print(f"same: {len(a)} entries, {sum(len(v) for v in a.values())} candidates")
