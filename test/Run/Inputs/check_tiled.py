"""Runs every public function of a module twice on the CPU and compares.

usage: check_tiled.py MODULE.mlir WORKDIR [--pipeline=PASSES] [--tolerance=T]
                     [--int-range=LO:HI]

1. the reference: `kgen-run MODULE --entry=F` (kgen ops by their definitions);
2. the schedule:  `kgen-opt MODULE --PASSES` (default: lower each configured
   kgen.gemm to its tile-level kernel), then `kgen-run` of that with the same
   seed, compared with the reference (`--compare-file`).
Prints one line per function, "F: OK ..." or "F: MISMATCH ...", and exits 1
if any differs by more than the tolerance.
"""
import os
import re
import subprocess
import sys


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


def main():
    module, workdir = sys.argv[1], sys.argv[2]
    passes = "--kgen-lower-gemm-to-tiles"
    tolerance = "0"
    int_range = "0:16"  # kgen-run's default: random integer inputs
    for arg in sys.argv[3:]:
        if arg.startswith("--pipeline="):
            passes = arg[len("--pipeline="):]
        elif arg.startswith("--tolerance="):
            tolerance = arg[len("--tolerance="):]
        elif arg.startswith("--int-range="):
            int_range = arg[len("--int-range="):]
    os.makedirs(workdir, exist_ok=True)
    scheduled = os.path.join(workdir, "scheduled.mlir")
    code, out = run(["kgen-opt", module, *passes.split(), "-o", scheduled])
    if code:
        print(out)
        return 1
    text = open(module, encoding="utf-8").read()
    functions = re.findall(r"^func\.func @(\w+)", text, re.M)
    failed = 0
    for f in functions:
        ref = os.path.join(workdir, f)
        code, out = run(["kgen-run", module, f"--entry={f}", "--seed=11",
                         f"--int-range={int_range}", f"--output-dir={ref}"])
        if code:
            print(f"{f}: reference run failed\n{out}")
            failed += 1
            continue
        compares = [f"--compare-file={i}:{os.path.join(ref, name)}"
                    for i, name in enumerate(sorted(os.listdir(ref)))]
        code, out = run(["kgen-run", scheduled, f"--entry={f}", "--seed=11",
                         f"--int-range={int_range}", f"--tolerance={tolerance}",
                         *compares])
        lines = [l for l in out.splitlines() if l.startswith("compare")]
        status = "OK" if code == 0 and lines else "MISMATCH"
        failed += status != "OK"
        detail = " | ".join(l.split(": ", 1)[1].split(" ", 1)[1] for l in lines) or out.strip()
        print(f"{f}: {status} {detail}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
