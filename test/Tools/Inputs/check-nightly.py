#!/usr/bin/env python3
"""bench/nightly.sh end to end on SYNTHETIC recorded runs, as CI proves the
nightly workflow without a GPU (issue 15 item 6).

usage: check-nightly.py KGEN_BENCH NIGHTLY_SH WORKDIR

WORKDIR holds make-perf-runs.py's base.json. Night after night, each in its
own folder passed to `nightly.sh --from-results` with one state folder (the
history and the last good run) and one report folder:
  - night 0, base.json: the first run, nothing to compare with (exit 0);
  - for each cause kgen records (check-injected-causes.py's list): a
    noise-only night (fresh samples, the same everything; exit 0, it becomes
    the last good run), then that cause injected alone with gemm_a 10%
    slower (exit 1; the CSV report's gemm_a row is `regressed` naming
    exactly that cause, the Markdown names it, the HTML marks it, and the
    last good run stays the noise night's);
  - 20 more noise-only nights (exit 0, nothing regressed).
Every night gets the ceilings and rates add-rates.py adds, and its reports
a banner saying the runs are synthetic. Prints a line
per night and a closing count; exits 1 on any failure.
"""
import copy
import csv
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import importlib.util  # noqa: E402

spec = importlib.util.spec_from_file_location(
    "causes", os.path.join(HERE, "check-injected-causes.py"))
causes = importlib.util.module_from_spec(spec)
spec.loader.exec_module(causes)


def write_night(work, index, doc):
    night = os.path.join(work, f"night-{index:02d}")
    os.makedirs(night, exist_ok=True)
    doc = copy.deepcopy(doc)
    doc["created_at"] = f"2026-10-{1 + index // 24:02d}T{index % 24:02d}:00:00Z"
    path = os.path.join(night, "kgen.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    subprocess.run([sys.executable, os.path.join(HERE, "add-rates.py"),
                    "--predict", "gemm_b", path], check=True)
    return night


def nightly(script, bench, work, night, index):
    p = subprocess.run(["bash", script, "--from-results", night, "--bench", bench,
                        "--state", os.path.join(work, "state"),
                        "--out", os.path.join(work, "out"),
                        "--label", f"synthetic night {index}",
                        "--banner", "SYNTHETIC runs (make-perf-runs.py), "
                        "recorded, not measured"],
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


def report_causes(work):
    """gemm_a's verdict and the causes the CSV report names, and the
    verdicts of every kgen kernel."""
    verdict, named, verdicts = "missing", [], []
    with open(os.path.join(work, "out", "report.csv")) as f:
        for row in csv.DictReader(f):
            if row["implementation"] != "kgen":
                continue
            verdicts.append(row["verdict"])
            if row["name"] == "gemm_a":
                verdict = row["verdict"]
                named = [c.split(": ")[0] for c in row["causes"].split("; ") if c]
    return verdict, named, verdicts


def read(work, name):
    with open(os.path.join(work, "out", name)) as f:
        return f.read()


def main():
    bench, script, work = sys.argv[1], sys.argv[2], sys.argv[3]
    base = json.load(open(os.path.join(work, "base.json")))
    base["cublaslt_version"] = "13.1.0"
    failures = 0
    index = 0

    def run_night(doc, what, want_exit, want_causes=None):
        nonlocal index, failures
        night = write_night(work, index, doc)
        code, log = nightly(script, bench, work, night, index)
        verdict, named, verdicts = report_causes(work)
        md, html = read(work, "report.md"), read(work, "report.html")
        ok = code == want_exit and "SYNTHETIC runs" in md and \
            "SYNTHETIC runs" in html
        if want_causes is not None:
            ok = ok and verdict == "regressed" and named == want_causes and \
                all(f"cause? {w}" in md.replace("\\", "") for w in want_causes) and \
                all(f'data-what="{w}"' in html for w in want_causes) and \
                "REGRESSION" in log
        elif index > 0:
            ok = ok and len(verdicts) == 2 and \
                not any(v in ("regressed", "improved") for v in verdicts) and \
                "no regression" in log
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} night {index} ({what}): exit {code}, "
              f"gemm_a {verdict}" + (f", causes {named}" if want_causes is not None else ""))
        if not ok:
            print(log)
        index += 1

    run_night(base, "first run", 0)
    for i, (name, (inject, expected)) in enumerate(sorted(causes.CAUSES.items())):
        run_night(causes.resample(base, 3000 + i), "noise", 0)
        doc = causes.resample(base, 4000 + i, factor_a=1.10)
        inject(doc)
        run_night(doc, f"cause {name}", 1,
                  expected if isinstance(expected, list) else [expected])
    for i in range(20):
        run_night(causes.resample(base, 5000 + i), "noise", 0)
    last_good = open(os.path.join(work, "state", "last-good")).read().strip()
    if last_good != str(index):  # run numbers count from 1, nights from 0
        failures += 1
        print(f"FAIL last good run {last_good}, expected {index}")
    print(f"{index} nights: {len(causes.CAUSES)} injected causes, "
          f"{len(causes.CAUSES) + 20} noise-only, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
