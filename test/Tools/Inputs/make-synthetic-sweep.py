#!/usr/bin/env python3
"""Makes up a SYNTHETIC sweep (host "synthetic"; never a GPU's
measurements) of a gemm's whole candidate space, from `kgen-tune --json
--all`, for the tests of the search replay (kgen-tune --report) and of
bench/tuning_bar.py.

usage: make-synthetic-sweep.py RANKING.json OUT_DIR --best-rank R
                               [--best-factor F] [--budget K] [--seconds S]
                               [--given G]

Times are made up by rank r in the search's order (the ranking's order):
0.5 ms * (1 + 0.02 * ((37 r) mod 11)), except rank R, the space's best at
0.5 ms * F. Rank 2 is not in the sweep (never measured), rank 5 is wrong.
Writes into OUT_DIR:
  sweep-db.json   every other candidate, as kgen-bench tune over the whole
                  space writes it
  budget-db.json  the first K (default: 15% of the space) as the search
                  measured them: the same made-up times, times 1.07 (its
                  own run's scale, which the comparison must not use)
  expect.txt      the replay line kgen-tune --report must print (after
                  "would choose"), computed here
  seconds.tsv, budget-results.json
                  the search took S seconds (default 41) and the sweep was
                  given G configs, as bench/device-check.sh records them
                  for tuning_bar.py
"""
import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "bench"))
import tuning_bar  # noqa: E402  (its config summary, as kgen-tune prints it)

KEY_TARGET = {"arch": "sm_90a", "sm_count": 132, "device": "NVIDIA H200"}
TOOLCHAIN = {"cuda": "13.0", "emitter": 1}


def time_of(ms):
    return {"median_ms": ms, "q1_ms": ms * 0.998, "q3_ms": ms * 1.002,
            "min_ms": ms * 0.995, "max_ms": ms * 1.01, "samples": 10}


def candidate(config, ms, status="ok"):
    return {"config": config, "status": status, "correct": status == "ok",
            "time": time_of(ms) if status == "ok" else None,
            "measured_at": "2026-12-01T00:00:00Z", "host": "synthetic"}


def db(op, candidates):
    return {"schema": "kgen.tuning-db", "version": 1,
            "entries": [{"key": {"op": op, "target": KEY_TARGET,
                                 "toolchain": TOOLCHAIN},
                         "candidates": candidates}]}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("ranking")
    p.add_argument("out")
    p.add_argument("--best-rank", type=int, required=True)
    p.add_argument("--best-factor", type=float, default=0.9)
    p.add_argument("--budget", type=int)
    p.add_argument("--seconds", type=float, default=41)
    p.add_argument("--given", type=int, help="configs the sweep was given "
                   "(default: those it has, the space less the one never measured)")
    a = p.parse_args()
    gemm = json.load(open(a.ranking))["gemms"][0]
    ranked = gemm["candidates"]
    assert len(ranked) == gemm["space"], "give the whole space (--all)"
    budget = a.budget or max(1, math.floor(0.15 * gemm["space"]))
    never, wrong = 2, 5

    def truth(r):
        if r == a.best_rank:
            return 0.5 * a.best_factor
        return 0.5 * (1 + 0.02 * ((37 * r) % 11))

    sweep, searched = [], []
    for r, c in enumerate(ranked):
        if r == never:
            continue
        status = "wrong" if r == wrong else "ok"
        sweep.append(candidate(c["config"], truth(r), status))
        if r < budget:
            searched.append(candidate(c["config"], truth(r) * 1.07, status))
    measured = [r for r in range(len(ranked)) if r not in (never, wrong)]
    chosen = min((r for r in measured if r < budget), key=truth)
    best = min(measured, key=truth)
    os.makedirs(a.out, exist_ok=True)
    json.dump(db(gemm["op"], sweep), open(os.path.join(a.out, "sweep-db.json"), "w"),
              indent=1)
    json.dump(db(gemm["op"], searched),
              open(os.path.join(a.out, "budget-db.json"), "w"), indent=1)
    results = {"schema": "kgen.results", "version": 1, "host": "synthetic",
               "results": [{"implementation": "kgen", "name": "c0", "op": gemm["op"]}]}
    results_path = os.path.join(a.out, "budget-results.json")
    json.dump(results, open(results_path, "w"))
    with open(os.path.join(a.out, "seconds.tsv"), "w") as f:
        f.write(f"gemm0\t{a.seconds:g}\t{results_path}\t{a.given or len(ranked) - 1}\n")
    summary = tuning_bar.summary
    with open(os.path.join(a.out, "expect.txt"), "w") as f:
        f.write(f"would choose {summary(ranked[chosen]['config'])} at "
                f"{truth(chosen):.4f} ms: "
                f"{100 * (truth(chosen) / truth(best) - 1):.1f}% over the best, "
                f"{summary(ranked[best]['config'])} at {truth(best):.4f} ms\n")


if __name__ == "__main__":
    main()
