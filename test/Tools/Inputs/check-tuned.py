"""Checks a kgen-tune --measure run against the SYNTHETIC truth that
fake-kgen-bench.py logged: prints what was measured, and whether the
database's best candidate (the one kgen-select-strategy will choose) is the
truly fastest of the measured ones, or within TOLERANCE of it.

usage: check-tuned.py DB.json FAKE_BENCH_STATE [TOLERANCE]
"""
import json
import sys


def strategy(config):
    keys = ["instruction", "block_m", "block_n", "block_k", "warps_m", "warps_n",
            "stages", "split_k", "raster_group"]
    return " ".join(f"{k}={config.get(k)}" for k in keys)


def main():
    db_path, state = sys.argv[1], sys.argv[2]
    tolerance = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    truth, runs = {}, {}
    for line in open(f"{state}/log.txt"):
        invocation, name, ms, strat = line.rstrip("\n").split(" ", 3)
        truth[strat] = float(ms)
        runs.setdefault(int(invocation), []).append(name)
    db = json.load(open(db_path))
    [entry] = db["entries"]
    measured = [c for c in entry["candidates"] if c["correct"]]
    best = min(measured, key=lambda c: c["time"]["median_ms"])
    chosen = truth[strategy(best["config"])]
    fastest = min(truth[strategy(c["config"])] for c in measured)
    print(f"candidates in the database: {len(entry['candidates'])}, "
          f"correct {len(measured)}")
    for invocation in sorted(runs):
        print(f"run {invocation}: {' '.join(runs[invocation])}")
    verdict = "OK" if chosen <= fastest * (1 + tolerance) else "WRONG"
    print(f"tuned choice true {chosen:.6g} ms, fastest measured {fastest:.6g} ms: {verdict}")
    return 0 if verdict == "OK" else 1


if __name__ == "__main__":
    sys.exit(main())
