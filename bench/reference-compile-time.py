#!/usr/bin/env python3
"""Compile time of the CPU reference pipeline against the number of ops.

  python3 bench/reference-compile-time.py [--bin build/bin] [--sizes 100,1000,10000]
                                          [--repeat 3] [--run]

For each size n, writes a function of n elementwise tensor ops and times
`kgen-opt --kgen-reference-pipeline` on it (wall seconds, the best of
--repeat runs), on two workloads:

  addf-chain   %x{i+1} = arith.addf %x{i}, %a   (the chain of issue 16)
  mixed-chain  addf, mulf with a constant, maximumf, cmpf + select, and a
               truncf/extf round trip through bf16, in turn

With --run, also `kgen-run` on the same input (parse, lowering, JIT
compilation and the run together), which checks that the result is
computed. Prints one line per workload and size, for each workload the
growth from one size to the next (x10 time per x10 ops is linear), and
the peak memory of the largest run. A benchmark, not a test: the figures depend on the machine and
its load; test/Tools/reference-compile-time.test guards the trend.
"""

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

SHAPE = "tensor<4x4xf32>"


def addf_chain(n):
    lines = [f"func.func @main(%a: {SHAPE}) -> {SHAPE} {{"]
    for i in range(n):
        src = "%a" if i == 0 else f"%x{i}"
        lines.append(f"  %x{i + 1} = arith.addf {src}, %a : {SHAPE}")
    lines.append(f"  return %x{n} : {SHAPE}\n}}")
    return "\n".join(lines)


def mixed_chain(n):
    lines = [f"func.func @main(%a: {SHAPE}, %b: {SHAPE}) -> {SHAPE} {{",
             f"  %half = arith.constant dense<0.5> : {SHAPE}",
             f"  %x0 = arith.addf %a, %b : {SHAPE}"]
    for i in range(n - 1):
        x, y = f"%x{i}", f"%x{i + 1}"
        kind = i % 5
        if kind == 0:
            lines.append(f"  {y} = arith.addf {x}, %b : {SHAPE}")
        elif kind == 1:
            lines.append(f"  {y} = arith.mulf {x}, %half : {SHAPE}")
        elif kind == 2:
            lines.append(f"  {y} = arith.maximumf {x}, %a : {SHAPE}")
        elif kind == 3:
            lines.append(f"  %p{i} = arith.cmpf olt, {x}, %b : {SHAPE}")
            lines.append(f"  {y} = arith.select %p{i}, {x}, %b : "
                         f"tensor<4x4xi1>, {SHAPE}")
        else:
            lines.append(f"  %h{i} = arith.truncf {x} : {SHAPE} to "
                         f"tensor<4x4xbf16>")
            lines.append(f"  {y} = arith.extf %h{i} : tensor<4x4xbf16> to "
                         f"{SHAPE}")
    lines.append(f"  return %x{n - 1} : {SHAPE}\n}}")
    return "\n".join(lines)


WORKLOADS = {"addf-chain": addf_chain, "mixed-chain": mixed_chain}


def timed(cmd):
    """Wall seconds and peak memory (MiB) of one run of `cmd`."""
    start = time.monotonic()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    seconds = time.monotonic() - start
    if proc.returncode != 0:
        sys.exit(f"reference-compile-time: {' '.join(cmd)} failed "
                 f"(exit {proc.returncode}):\n"
                 + proc.stderr.decode(errors="replace")[-2000:])
    return seconds


def peak_mib_of_children():
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=os.path.join(here, "..", "build",
                                                      "bin"),
                        help="folder of kgen-opt and kgen-run")
    parser.add_argument("--sizes", default="100,1000,10000",
                        help="numbers of ops, comma separated")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs per point; the best is printed")
    parser.add_argument("--run", action="store_true",
                        help="also time kgen-run (lowering, JIT, run)")
    parser.add_argument("--workloads", default=",".join(WORKLOADS),
                        help="which of " + ", ".join(WORKLOADS))
    args = parser.parse_args()
    try:
        sizes = [int(s) for s in args.sizes.split(",")]
    except ValueError:
        sys.exit(f"reference-compile-time: --sizes must be integers; got "
                 f"'{args.sizes}'")
    if args.repeat < 1 or any(n < 1 for n in sizes):
        sys.exit("reference-compile-time: --repeat and --sizes must be "
                 "positive")
    workloads = args.workloads.split(",")
    for w in workloads:
        if w not in WORKLOADS:
            sys.exit(f"reference-compile-time: unknown workload '{w}' "
                     f"({', '.join(WORKLOADS)})")
    opt = os.path.join(args.bin, "kgen-opt")
    run = os.path.join(args.bin, "kgen-run")
    for tool in [opt] + ([run] if args.run else []):
        if not os.access(tool, os.X_OK):
            sys.exit(f"reference-compile-time: cannot run {tool} (--bin)")

    print(f"{'workload':12} {'ops':>7} {'pipeline s':>11} {'us/op':>7}"
          + (f" {'kgen-run s':>11}" if args.run else ""))
    with tempfile.TemporaryDirectory() as tmp:
        for w in workloads:
            previous = None
            growth = []
            for n in sizes:
                path = os.path.join(tmp, f"{w}-{n}.mlir")
                with open(path, "w") as f:
                    f.write(WORKLOADS[w](n) + "\n")
                best = min(timed([opt, "--kgen-reference-pipeline", path,
                                  "-o", os.devnull])
                           for _ in range(args.repeat))
                line = f"{w:12} {n:7} {best:11.3f} {1e6 * best / n:7.1f}"
                if args.run:
                    best_run = min(timed([run, path, "--timeout=0"])
                                   for _ in range(args.repeat))
                    line += f" {best_run:11.3f}"
                print(line, flush=True)
                if previous:
                    growth.append(f"x{n / previous[0]:g} ops: "
                                  f"x{best / previous[1]:.1f} time")
                previous = (n, best)
            if growth:
                print(f"{'':12} growth: " + ", ".join(growth))
    print(f"peak memory of the runs: {peak_mib_of_children():.0f} MiB")


if __name__ == "__main__":
    main()
