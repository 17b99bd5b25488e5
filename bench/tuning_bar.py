#!/usr/bin/env python3
"""How close a tuner's measured search comes to the best of the whole
candidate space: the tuning bars, from the device check's sweep step
(bench/device-check.sh --steps sweep).

usage: tuning_bar.py --budget BUDGET-DB.json --sweep SWEEP-DB.json
                     [--seconds TIMES.tsv]

  --budget   tuning database of `kgen-bench tune` over the candidates a
             search measures (the default strategy and the cost model's
             best: 15% of the space, as `kgen-tune --packages` writes them)
  --sweep    tuning database of `kgen-bench tune` over every valid config
             of the same ops (`kgen-tune --packages --all`)
  --seconds  lines "OP<TAB>SECONDS<TAB>BUDGET-RESULTS.json<TAB>SPACE": how
             long each op's search took and how many configs the sweep was
             given, the op found by the results file's kgen results
             (device-check.sh writes it)

For each op the sweep measured: the size of the space (candidates the sweep
measured), how many the search measured and their share, the search's
choice and the sweep's best, both timed on one scale (the sweep's
drift-corrected medians: the search's own times are on another run's
scale), the gap between them, and the search's seconds; each against its
bar (within 3% of the best, at most 15% of the space measured, under 60 s).

Bars are figures, not tests: exit 0 when the figures could be computed,
met or not; 2 when a file is missing or corrupt, or the two databases
share no op.
"""
import argparse
import json
import sys

GAP_BAR = 0.03        # the search's choice within 3% of the space's best
SHARE_BAR = 0.15      # measuring at most 15% of the space
SECONDS_BAR = 60.0    # in under 60 s per shape

# Config fields that say where a config came from, not what it is.
PROVENANCE = ("source", "entry", "attribute")


class Refused(Exception):
    """An input that cannot be used: the message names the file."""


def read_json(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise Refused(f"{path}: cannot read the {what}: {e.strerror}")
    except ValueError as e:
        raise Refused(f"{path}: the {what} is not valid JSON: {e}")


def read_db(path):
    db = read_json(path, "tuning database")
    if not isinstance(db, dict) or db.get("schema") != "kgen.tuning-db":
        raise Refused(f"{path}: not a kgen.tuning-db file")
    if db.get("version") != 1:
        raise Refused(f"{path}: version {db.get('version')!r}: this script "
                      "understands only version 1")
    entries = db.get("entries")
    if not isinstance(entries, list):
        raise Refused(f"{path}: entries: expected a list")
    for i, e in enumerate(entries):
        if not isinstance(e, dict) or not isinstance(e.get("key"), dict) or \
                not isinstance(e.get("candidates"), list):
            raise Refused(f"{path}: entries[{i}]: expected a key and a list "
                          "of candidates")
    return entries


def canonical(value):
    """A key's identity as the C++ reader defines it (docs/tuning-db.md):
    sorted members, and floats with integer values compared as integers."""
    def norm(v):
        if isinstance(v, dict):
            return {k: norm(x) for k, x in v.items()}
        if isinstance(v, list):
            return [norm(x) for x in v]
        if isinstance(v, float) and v.is_integer():
            return int(v)
        return v
    return json.dumps(norm(value), sort_keys=True, separators=(",", ":"))


def strategy(config):
    """A config without its provenance: equal for one strategy however it
    was chosen."""
    if not isinstance(config, dict):
        return None
    return canonical({k: v for k, v in config.items() if k not in PROVENANCE})


def summary(config):
    """'wgmma 128x256x64 w8x1 s4 k1 r8' (' c2x1' with a cluster), as
    kgen-tune prints a config."""
    c = config
    text = (f"{c.get('instruction')} {c.get('block_m')}x{c.get('block_n')}x"
            f"{c.get('block_k')} w{c.get('warps_m')}x{c.get('warps_n')} "
            f"s{c.get('stages')} k{c.get('split_k')} r{c.get('raster_group')}")
    if c.get("cluster_m", 1) * c.get("cluster_n", 1) > 1:
        text += f" c{c.get('cluster_m')}x{c.get('cluster_n')}"
    return text


def timed(candidate):
    """The candidate's median when it is correct and timed, else None."""
    t = candidate.get("time")
    if candidate.get("status") != "ok" or candidate.get("correct") is not True \
            or not isinstance(t, dict):
        return None
    ms = t.get("median_ms")
    return float(ms) if isinstance(ms, (int, float)) and ms > 0 else None


def best(candidates):
    """(candidate, ms) of the fastest correct one (the first of equals, as
    TuningEntry::best), or (None, None)."""
    chosen, chosen_ms = None, None
    for c in candidates:
        ms = timed(c)
        if ms is not None and (chosen_ms is None or ms < chosen_ms):
            chosen, chosen_ms = c, ms
    return chosen, chosen_ms


def op_name(op):
    return (f"{op.get('batch')}x{op.get('m')}x{op.get('n')}x{op.get('k')} "
            f"{op.get('dtype_a')}")


def read_seconds(path):
    """{canonical op: (seconds, space)} from the TSV and the results files
    it names."""
    seconds = {}
    usage = "expected OP<TAB>SECONDS<TAB>RESULTS.json<TAB>SPACE"
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except OSError as e:
        raise Refused(f"{path}: cannot read the search times: {e.strerror}")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        fields = line.split("\t")
        try:
            value, space = float(fields[1]), int(fields[3])
        except (IndexError, ValueError):
            raise Refused(f"{path}:{n}: {usage}")
        doc = read_json(fields[2], "results file")
        results = doc.get("results") if isinstance(doc, dict) else None
        if not isinstance(results, list):
            raise Refused(f"{fields[2]}: not a kgen.results file")
        ops = {canonical(r["op"]) for r in results
               if isinstance(r, dict) and r.get("implementation") == "kgen"
               and isinstance(r.get("op"), dict)}
        for op in ops:
            seconds[op] = (value, space)
    return seconds


def verdict(met):
    return "met" if met else "MISSED"


def report(budget, sweep, seconds, out):
    by_key = {canonical(e["key"]): e for e in budget}
    compared = 0
    for entry in sweep:
        key = entry["key"]
        target = key.get("target", {})
        op = key.get("op", {})
        name = f"{op_name(op)} on {target.get('device') or 'an unknown device'}"
        searched = by_key.get(canonical(key))
        if searched is None:
            print(f"{name}: measured in the sweep only (no search of it in "
                  "the budget database)", file=out)
            continue
        compared += 1
        space = entry["candidates"]
        measured = searched["candidates"]
        took, given = (seconds or {}).get(canonical(op), (None, None))
        # Distinct strategies: a database may hold a config measured twice.
        swept = {strategy(c.get("config")) for c in space}
        swept_ok = {strategy(c.get("config")) for c in space if timed(c) is not None}
        space_size, failed = len(swept), len(swept - swept_ok)
        measured_size = len({strategy(c.get("config")) for c in measured})
        top, top_ms = best(space)
        choice, choice_own_ms = best(measured)
        print(f"{name}:", file=out)
        print(f"  space: {space_size} configs measured in the sweep"
              + (f" ({failed} not correct or not timed)" if failed else ""),
              file=out)
        if given is not None and space_size < given:
            print(f"  the sweep was given {given} but measured only "
                  f"{space_size} (its budget ran out): its best is the best "
                  "of those", file=out)
            space_size = given
        share = measured_size / space_size if space_size else float("inf")
        print(f"  the search measured {measured_size}: {100 * share:.1f}% of "
              f"the space (bar: at most {100 * SHARE_BAR:.0f}%: "
              f"{verdict(share <= SHARE_BAR + 1e-9)})", file=out)
        if top is None:
            print("  the sweep has no correct, timed candidate: no best to "
                  "compare with", file=out)
            continue
        print(f"  the space's best: {summary(top['config'])}, {top_ms:.4f} ms",
              file=out)
        if choice is None:
            print("  the search found no correct candidate (bar: MISSED)",
                  file=out)
        else:
            mine = [timed(c) for c in space
                    if strategy(c.get("config")) == strategy(choice["config"])]
            mine = [ms for ms in mine if ms is not None]
            if not mine:
                print(f"  the search's choice: {summary(choice['config'])} "
                      f"({choice_own_ms:.4f} ms in its own run) is not "
                      "correct and timed in the sweep: no comparison", file=out)
            else:
                gap = min(mine) / top_ms - 1
                print(f"  the search's choice: {summary(choice['config'])}, "
                      f"{min(mine):.4f} ms in the sweep: {100 * gap:.1f}% over "
                      f"the best (bar: within {100 * GAP_BAR:.0f}%: "
                      f"{verdict(gap <= GAP_BAR)})", file=out)
        if took is not None:
            print(f"  the search took {took:.0f} s (bar: under "
                  f"{SECONDS_BAR:.0f} s: {verdict(took < SECONDS_BAR)})",
                  file=out)
    if compared == 0:
        raise Refused("the sweep and budget databases share no op (same op, "
                      "target and toolchain): nothing to compare")


def main(argv):
    parser = argparse.ArgumentParser(
        description="How close a measured search comes to the best of the "
                    "whole space (the tuning bars).")
    parser.add_argument("--budget", required=True)
    parser.add_argument("--sweep", required=True)
    parser.add_argument("--seconds")
    args = parser.parse_args(argv)
    try:
        budget, sweep = read_db(args.budget), read_db(args.sweep)
        seconds = read_seconds(args.seconds) if args.seconds else None
        report(budget, sweep, seconds, sys.stdout)
    except Refused as e:
        sys.stdout.flush()  # what was compared comes before why it stopped
        print(f"tuning_bar: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
