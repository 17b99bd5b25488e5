"""Runs each function's kernel package on the emulated device and compares it
with the op's reference semantics.

usage: check_emulated.py MODULE.mlir WORKDIR [--seed=N] [--tolerance=T]
                         [--f32-tolerance=T] [--jobs=J] [--against=PASSES]

For every public function F of MODULE (one configured kgen.gemm each, its
arguments in the order A, B, then bias and residual C if it has them; or one
configured kgen.attention, its arguments q, k, v, then cu_seqlens_q and
cu_seqlens_k (a variable-length batch: token-major operands), kv_lens,
block_table (a paged cache: k and v are [N, Hkv, P, D] pages),
alibi_slopes, q_descale, k_descale and v_descale if it has them, its
results out, then lse if it has it; or one
kgen.moe, its arguments x, router_logits, w_gate, w_up, w_down, its result
y):
1. `kgen-opt` on F alone, `--kgen-pipeline` for its config's target (sm_80
   unless the config says sm_90a): one package;
2. `kgen-emulate --save-tensors`: the package's kernel.cu on the emulated
   device, on seeded inputs, compared there with the host reference under
   the GPU verification's tolerance; the inputs and D saved as .npy;
3. `kgen-run MODULE --entry=F` on those inputs, compared with the emulated D
   (`--compare-file`): bit for bit unless a `// tolerance: T` line stands
   right above F (split-K sums in another order; tf32 rounds its inputs)
   or --tolerance gives one for every function; --f32-tolerance gives one
   for functions whose A is f32, where the hardware computes otherwise than
   the reference (simt's fmaf rounds once; tf32 rounds the inputs). An
   attention package holds q, out and lse in the packed-GQA view (the same
   memory): they are reshaped to the function's types first. With
   --against=PASSES (e.g. --kgen-lower-attention-to-tiles) kgen-run runs F
   as `kgen-opt --PASSES` leaves it instead, the tile-level form with the
   kernel's rounding points, where the reference's differ (an e4m3 P):
   the line then says "tile form" for "reference".
Prints one line per function, "F: FAMILY emulated ok, reference OK ..." or
what failed, in the module's order, and exits 1 if anything did. --jobs
checks J functions at once (default 1): each is its own processes and
folder (WORKDIR/F), so only the wall clock changes.
"""
import concurrent.futures
import os
import re
import subprocess
import sys

import numpy


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


def functions(text):
    """(name, tolerance, source) of each func.func in the module."""
    found = []
    for m in re.finditer(r"^func\.func @(\w+)", text, re.M):
        end = text.find("\n}", m.start())
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        tol = re.match(r"//\s*tolerance:\s*(\S+)", before)
        found.append((m.group(1), tol.group(1) if tol else "0",
                      text[m.start():end + 2]))
    return found


def tensor_shapes(source):
    """Shapes of the function's arguments, then of its results, in order."""
    head = source[:source.index("{")]
    args, _, results = head.partition("->")
    shape = lambda t: [int(d) for d in t.split("x")[:-1]]
    return ([shape(t) for t in re.findall(r"tensor<([0-9x]+x\w+)>", args)],
            [shape(t) for t in re.findall(r"tensor<([0-9x]+x\w+)>", results)])


def as_declared(tensors, source, inputs, outputs):
    """Reshapes the saved tensors to the function's types (same elements)."""
    arg_shapes, result_shapes = tensor_shapes(source)
    for name, shape in zip(inputs + outputs, arg_shapes + result_shapes):
        path = os.path.join(tensors, name + ".npy")
        numpy.save(path, numpy.load(path).reshape(shape))


def check(module, workdir, seed, name, tolerance, source, against=None):
    """Steps 1-3 for function `name`: (its line, 1 if it failed else 0)."""
    target = "sm_90a" if "target = sm_90a" in source else "sm_80"
    work = os.path.join(workdir, name)
    os.makedirs(work, exist_ok=True)
    single = os.path.join(work, "f.mlir")
    with open(single, "w", encoding="utf-8") as f:
        f.write(source)
    pkgs = os.path.join(work, "pkg")
    code, out = run(["kgen-opt", single,
                     f"--kgen-pipeline=target={target} output-dir={pkgs}",
                     "-o", os.devnull])
    if code or len(os.listdir(pkgs)) != 1:
        return f"{name}: pipeline failed\n{out}", 1
    pkg = os.path.join(pkgs, os.listdir(pkgs)[0])
    tensors = os.path.join(work, "tensors")
    os.makedirs(tensors, exist_ok=True)
    code, out = run(["kgen-emulate", "--seed", seed, "--save-tensors",
                     tensors, pkg])
    line = next((l for l in out.splitlines() if " emulated " in l), "")
    if code or not line:
        return f"{name}: emulation failed\n{out}", 1
    family = line.split()[1]
    if "kgen.attention" in source:
        inputs = ["q", "k", "v"] \
            + (["cu_seqlens_q", "cu_seqlens_k"] if "cu_seqlens(" in source
               else []) \
            + (["kv_lens"] if "kv_lens(" in source else []) \
            + (["block_table"] if "block_table(" in source else []) \
            + (["alibi_slopes"] if "alibi(" in source else []) \
            + [d for d in ("q_descale", "k_descale", "v_descale")
               if d + "(" in source]
        outputs = ["out"] + (["lse"] if "%lse" in source else [])
        as_declared(tensors, source, inputs, outputs)
    elif "kgen.moe" in source:
        inputs = ["x", "router_logits", "w_gate", "w_up", "w_down"]
        outputs = ["y"]
    else:
        inputs = ["A", "B"]
        inputs += ["bias"] if "bias(" in source else []
        inputs += ["C"] if "residual(" in source else []
        outputs = ["D"]
    compares = ",".join(f"{i}:{os.path.join(tensors, o + '.npy')}"
                        for i, o in enumerate(outputs))
    what = "reference"
    if against:
        what = "tile form"
        module = os.path.join(work, "tiles.mlir")
        code, out = run(["kgen-opt", single, *against.split(), "-o", module])
        if code:
            return f"{name}: {against} failed\n{out}", 1
    code, out = run(["kgen-run", module, f"--entry={name}",
                     *[f"--input={os.path.join(tensors, i + '.npy')}" for i in inputs],
                     f"--compare-file={compares}",
                     f"--tolerance={tolerance}"])
    cmp = [l for l in out.splitlines() if l.startswith("compare")]
    status = "OK" if code == 0 and len(cmp) == len(outputs) else "MISMATCH"
    detail = " | ".join(l.split(": ", 1)[1].split(" ", 1)[1] for l in cmp) \
        if cmp else out.strip()
    return (f"{name}: {family} emulated ok, {what} {status} {detail}",
            int(status != "OK"))


def main():
    module, workdir = sys.argv[1], sys.argv[2]
    seed, default_tolerance, f32_tolerance, jobs = "1", None, None, 1
    against = None
    for arg in sys.argv[3:]:
        if arg.startswith("--seed="):
            seed = arg[len("--seed="):]
        elif arg.startswith("--tolerance="):
            default_tolerance = arg[len("--tolerance="):]
        elif arg.startswith("--f32-tolerance="):
            f32_tolerance = arg[len("--f32-tolerance="):]
        elif arg.startswith("--against="):
            against = arg[len("--against="):]
        elif arg.startswith("--jobs="):
            jobs = max(1, int(arg[len("--jobs="):]))
    text = open(module, encoding="utf-8").read()
    checks = []
    for name, tolerance, source in functions(text):
        if f32_tolerance is not None and tolerance == "0" and \
                re.search(r"%a: tensor<[0-9x]*xf32>", source):
            tolerance = f32_tolerance
        if default_tolerance is not None and tolerance == "0":
            tolerance = default_tolerance
        checks.append((module, workdir, seed, name, tolerance, source,
                       against))
    failed = 0
    # Threads only wait for their processes; lines come in the module's order.
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for line, bad in pool.map(lambda c: check(*c), checks):
            print(line, flush=True)
            failed += bad
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
