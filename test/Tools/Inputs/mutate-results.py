#!/usr/bin/env python3
"""Structured mutation of results files against kgen-bench compare and
history: no mutant may kill the tool with a signal or hang it, and every
refusal is one line.

usage: mutate-results.py KGEN_BENCH SEED COUNT BASE.json WORKDIR

Each mutant is BASE with 1-3 changes: a value anywhere replaced (by another
type, an extreme or negative number, a huge or empty list or string, a
NaN-like string) or deleted, its samples made huge, empty or all equal, a
result duplicated, or a result's baseline pointed at another result or
itself. Each is run
as `compare BASE MUTANT`, `compare MUTANT BASE`, `history add MUTANT` and
`report MUTANT --compare BASE --html --markdown --csv`.
Prints one line per failure and a summary; exits 1 on any failure. Exit
codes 0, 1 (something regressed, or a history refused) and 2 (refused
input) are fine.
"""
import copy
import json
import os
import random
import subprocess
import sys

TIME_LIMIT_S = 60
VALUES = [None, True, 0, -1, 1e308, -1e308, 1e-308, 2**63, "nan", "inf", "-inf",
          "", "x" * 70000, [], {}, [1, 2], {"kind": "gemm"}, "ok", "faulted"]


def paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node[:40]):
            yield from paths(v, prefix + (i,))


def mutate(doc, rng):
    doc = copy.deepcopy(doc)
    for _ in range(rng.randint(1, 3)):
        choices = [p for p in paths(doc) if p]
        path = rng.choice(choices)
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        kind = rng.randrange(7)
        results = doc.get("results") if isinstance(doc, dict) else None
        if kind >= 4 and isinstance(results, list) and results and all(
                isinstance(r, dict) for r in results):
            # Valid files of odd shape: a result twice, a baseline naming
            # itself or another kgen result, samples all equal.
            r = rng.choice(results)
            if kind == 4:
                results.append(copy.deepcopy(r))
            elif kind == 5:
                r["baseline"] = rng.choice(results).get("name", "")
            elif isinstance(r.get("samples_ms"), list) and r["samples_ms"]:
                r["samples_ms"] = [r["samples_ms"][0]] * len(r["samples_ms"])
        elif kind == 0 and isinstance(parent, dict):
            del parent[path[-1]]
        elif kind == 1 and path[-1] == "samples_ms":
            parent[path[-1]] = [rng.choice([0.0, 1e-300, 1e300, 0.25])] * rng.choice([0, 1, 6, 1000, 1001])
        else:
            parent[path[-1]] = rng.choice(VALUES)
    return doc


def run(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIME_LIMIT_S)
    except subprocess.TimeoutExpired:
        return "timed out"
    if p.returncode < 0:
        return f"killed by signal {-p.returncode}"
    if p.returncode not in (0, 1, 2):
        return f"exit {p.returncode}"
    if p.returncode == 2 and p.stderr.count("\n") != 1:
        return f"refusal not one line: {p.stderr!r:.200}"
    return None


def main():
    tool, seed, count, base, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    doc = json.load(open(base))
    rng = random.Random(seed)
    failures = 0
    for i in range(count):
        mutant = os.path.join(work, f"mutant-{i}.json")
        with open(mutant, "w") as f:
            json.dump(mutate(doc, rng), f)
        db = os.path.join(work, f"mutant-{i}.sqlite")
        report = [tool, "report", mutant, "--compare", base, "--html", mutant + ".html",
                  "--markdown", mutant + ".md", "--csv", mutant + ".csv"]
        for cmd in ([tool, "compare", base, mutant], [tool, "compare", mutant, base],
                    [tool, "history", "add", mutant, "--db", db], report):
            problem = run(cmd)
            if problem:
                failures += 1
                print(f"FAIL mutant-{i}: {' '.join(cmd[1:3])}: {problem}")
        os.remove(mutant)
    print(f"{count} mutants, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
