"""Mutation fuzzing of a kgen tool: no input may kill it with a signal or hang it.

usage: mutate.py TOOL SEED COUNT FILE... [-- TOOL-ARGS...]

Makes COUNT deterministic mutants of the given .mlir files (byte flips,
deleted and duplicated spans, truncation, swapped numbers and type names,
spliced lines) and runs `TOOL MUTANT TOOL-ARGS` on each with a time limit.
Prints one line per failure and a summary; exits 1 if the tool died by a
signal, ran past the limit, or reported an internal error (exit 70, see
tools/Register.h) whose stack trace passes through kgen's own code. Exit
codes 0 and 1 of the tool are both fine: a mutant may be valid or invalid
IR. An internal error raised wholly inside an upstream MLIR library (a
known upstream parser bug, for example) is contained by the tool and
listed, not failed: it is not kgen's code.
"""
import os
import random
import re
import subprocess
import sys
import tempfile

TIME_LIMIT_S = 60
INTERNAL_ERROR = 70
# A stack frame in the tool binary itself (kgen's code is linked statically;
# MLIR and LLVM are shared libraries), other than the process entry.
OWN_FRAME = re.compile(r"kgen-(opt|run|translate)\+0x")
ENTRY_FRAME = re.compile(r" (main|_start) \(")
TOKENS = ["0", "1", "-1", "7", "999999999999", "4611686018427387904", "x",
          "bf16", "f16", "f32", "i32", "f8E4M3FN", "i1", "?", "tensor<", ">",
          "kgen.gemm", "kgen.attention", "kgen.moe", "{", "}", "(", ")", ",",
          "causal", "top_k = 0", "%arg0", "#kgen.activation<", "dense<"]


def mutate(text: str, rng: random.Random) -> str:
    data = text
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(6)
        pos = rng.randrange(max(len(data), 1))
        if kind == 0:  # flip a byte
            data = data[:pos] + chr(rng.randrange(32, 127)) + data[pos + 1:]
        elif kind == 1:  # delete a span
            data = data[:pos] + data[pos + rng.randint(1, 40):]
        elif kind == 2:  # duplicate a span
            data = data[:pos] + data[pos:pos + rng.randint(1, 40)] + data[pos:]
        elif kind == 3:  # truncate
            data = data[:pos]
        elif kind == 4:  # insert a token
            data = data[:pos] + rng.choice(TOKENS) + data[pos:]
        else:  # swap two lines
            lines = data.split("\n")
            if len(lines) > 2:
                i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
                lines[i], lines[j] = lines[j], lines[i]
            data = "\n".join(lines)
    return data


def main() -> int:
    args = sys.argv[1:]
    tool_args = []
    if "--" in args:
        tool_args = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    tool, seed, count, files = args[0], int(args[1]), int(args[2]), args[3:]
    sources = [open(f, encoding="utf-8").read() for f in files]
    rng = random.Random(seed)
    failures = upstream = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(count):
            path = os.path.join(tmp, f"mutant{i}.mlir")
            with open(path, "w", encoding="utf-8") as out:
                out.write(mutate(rng.choice(sources), rng))
            try:
                proc = subprocess.run([tool, path] + tool_args,
                                      stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE,
                                      timeout=TIME_LIMIT_S)
            except subprocess.TimeoutExpired:
                failures += 1
                print(f"mutant {i}: timed out after {TIME_LIMIT_S} s")
                continue
            stderr = proc.stderr.decode(errors="replace")
            if proc.returncode == INTERNAL_ERROR:
                own = [l for l in stderr.splitlines()
                       if OWN_FRAME.search(l) and not ENTRY_FRAME.search(l)]
                if not own:
                    upstream += 1
                    print(f"mutant {i}: contained upstream internal error")
                    continue
            if proc.returncode < 0 or proc.returncode > 2:
                failures += 1
                kept = os.path.join(os.getcwd(), f"crash-mutant{i}.mlir")
                with open(kept, "w", encoding="utf-8") as out:
                    out.write(open(path, encoding="utf-8").read())
                print(f"mutant {i}: exit {proc.returncode}, kept as {kept}")
                print(stderr[-2000:])
    print(f"fuzz: {count} mutants, {failures} crashes or hangs, "
          f"{upstream} contained upstream internal errors")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
