"""Runs the tile form of every default strategy of a GEMM suite on the CPU.

usage: check_default_strategies.py WORKDIR --suite SUITE.json
           [--module EXTRA.mlir] [--targets sm_80,sm_90a] [--tolerance T]

For each target:
1. the suite's GEMMs (bench/suite-to-mlir.py: every model, decode and
   prefill M) get the strategy kgen-select-strategy picks with no database;
   the functions of EXTRA.mlir keep the configs they carry (for this target);
2. each is shrunk where the CPU needs it, keeping its config and the grid
   structure that config gives the real shape:
     decode (M < 1024): M and N kept, so the grid (tiles of N, one tile row,
       split-K count) is the real one; K becomes split_k * block_k (one K
       tile per split);
     prefill: M kept (every tile row, every raster group); N becomes two
       tiles plus the real N's remainder, K stages + 1 tiles plus the real
       K's remainder (the stage ring wraps);
   EXTRA.mlir's functions run at their full size;
3. all of them become one @main, run by kgen-run twice with the same seed:
   the reference, then the tile form (kgen-lower-gemm-to-tiles), each
   result compared with its reference. Without split-K the tile form must
   give the reference's bits; with it, the summation order differs and the
   relative Frobenius error may reach the tolerance (default 1e-3).
Prints a line per GEMM with its shape, grid (and the real shape's grid when
it differs) and verdict, then a summary per target; exits 1 if any GEMM
differs. When a combined run fails, each GEMM is run alone to name it.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE_TO_MLIR = os.path.join(HERE, "..", "..", "..", "bench", "suite-to-mlir.py")

FUNC_RE = re.compile(
    r"func\.func @(\w+)\(%\w+: tensor<(\d+)x(\d+)x(\w+)>, %\w+: tensor<(\d+)x(\d+)x\w+>\)"
    r" -> tensor<\d+x\d+x(\w+)> \{\s*%\w+ = kgen\.gemm %\w+, %\w+ \{([^}]*)\}")
CONFIG_RE = re.compile(r"#kgen\.gemm_config<[^>]*>")
FIELD_RE = re.compile(r"(\w+) = (\w+)")
KERNEL_RE = re.compile(r"kgen\.kernel @(\w+) grid \[(\d+), (\d+), (\d+)\]")
LAUNCH_RE = re.compile(r"kgen\.launch @(\w+)\(")


def run(cmd):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


def ceil_div(a, b):
    return -(-a // b)


class Gemm:
    """One kgen.gemm y = x op(w): A [M, K], B [K, N] or [N, K] (transpose_b)."""

    def __init__(self, name, m, n, k, dtype, out, transpose_b, config=None):
        self.name, self.m, self.n, self.k = name, m, n, k
        self.dtype, self.out, self.transpose_b = dtype, out, transpose_b
        self.config = config  # the #kgen.gemm_config text
        self.full = False     # run at its full size

    def field(self, key):
        return int(dict(FIELD_RE.findall(self.config))[key])

    def reduced(self):
        """(M, N, K) to run on the CPU; see the module docstring."""
        if self.full:
            return self.m, self.n, self.k
        bn, bk = self.field("block_n"), self.field("block_k")
        split, stages = self.field("split_k"), self.field("stages")
        if self.m < 1024:
            return self.m, self.n, min(self.k, split * bk)
        return (self.m, min(self.n, 2 * bn + self.n % bn),
                min(self.k, (stages + 1) * bk + self.k % bk))

    def types(self, m, n, k):
        b = f"{n}x{k}" if self.transpose_b else f"{k}x{n}"
        return (f"tensor<{m}x{k}x{self.dtype}>", f"tensor<{b}x{self.dtype}>",
                f"tensor<{m}x{n}x{self.out}>")

    def op(self, x, w, m, n, k):
        ta, tb, ty = self.types(m, n, k)
        attrs = (["transpose_b"] if self.transpose_b else []) + [f"config = {self.config}"]
        return f"kgen.gemm {x}, {w} {{{', '.join(attrs)}}} : {ta}, {tb} -> {ty}"


def parse_gemms(text):
    gemms = []
    for name, m, k, dtype, b0, b1, out, attrs in FUNC_RE.findall(text):
        tb = "transpose_b" in attrs
        n = int(b0) if tb else int(b1)
        config = CONFIG_RE.search(attrs)
        gemms.append(Gemm(name, int(m), n, int(k), dtype, out, tb,
                          config.group(0) if config else None))
    return gemms


def combined_module(gemms, sizes):
    """One @main taking every gemm's operands and returning every result."""
    args, results, body = [], [], []
    for i, (g, (m, n, k)) in enumerate(zip(gemms, sizes)):
        ta, tb, ty = g.types(m, n, k)
        args += [f"%x{i}: {ta}", f"%w{i}: {tb}"]
        results.append(ty)
        body.append(f"  %y{i} = {g.op(f'%x{i}', f'%w{i}', m, n, k)}")
    ret = ", ".join(f"%y{i}" for i in range(len(gemms)))
    return (f"func.func @main({', '.join(args)}) -> ({', '.join(results)}) {{\n"
            + "\n".join(body) + f"\n  return {ret} : {', '.join(results)}\n}}\n")


def main_kernel_grids(tile_ir):
    """Grid of each gemm's main kernel, in @main's launch order."""
    grids = {name: (int(x), int(y), int(z)) for name, x, y, z in KERNEL_RE.findall(tile_ir)}
    launches = [n for n in LAUNCH_RE.findall(tile_ir)
                if not re.search(r"_splitk_reduce(_\d+)?$", n)]
    return [grids[n] for n in launches]


def lower_to_tiles(path, out):
    code, log = run(["kgen-opt", path, "--kgen-lower-gemm-to-tiles", "-o", out])
    if code:
        raise RuntimeError(f"kgen-opt --kgen-lower-gemm-to-tiles {path}:\n{log}")
    with open(out, encoding="utf-8") as f:
        return f.read()


def run_and_compare(workdir, gemms, sizes, tolerance):
    """Reference and tile form of one combined module: (ok, per-gemm rel_frob
    or None, log, tile-form IR)."""
    os.makedirs(workdir, exist_ok=True)
    module = os.path.join(workdir, "module.mlir")
    with open(module, "w", encoding="utf-8") as f:
        f.write(combined_module(gemms, sizes))
    tiled = os.path.join(workdir, "tiled.mlir")
    tile_ir = lower_to_tiles(module, tiled)
    ref = os.path.join(workdir, "ref")
    common = ["--seed=5", "--max-gflop=1000", "--timeout=600"]
    code, log = run(["kgen-run", module, f"--output-dir={ref}", *common])
    if code:
        return False, None, "reference run failed:\n" + log, tile_ir
    compares = [f"--compare-file={i}:{os.path.join(ref, f'result{i}.npy')}"
                for i in range(len(gemms))]
    code, log = run(["kgen-run", tiled, f"--tolerance={tolerance}", *common, *compares])
    errors = {}
    for line in log.splitlines():
        hit = re.match(r"compare (\d+):\S+ (OK|MISMATCH).*?rel_frob=(\S+)", line)
        if hit:
            errors[int(hit.group(1))] = float(hit.group(3))
    if len(errors) != len(gemms):
        return False, None, "tile-form run failed:\n" + log, tile_ir
    return True, [errors[i] for i in range(len(gemms))], log, tile_ir


def check_target(target, suite_text, extra, workdir, tolerance):
    """Lines to print and the number of failures for one target."""
    os.makedirs(workdir, exist_ok=True)
    full = os.path.join(workdir, "suite.mlir")
    with open(full, "w", encoding="utf-8") as f:
        f.write(suite_text)
    selected = os.path.join(workdir, "suite-selected.mlir")
    code, log = run(["kgen-opt", full, f"--kgen-select-strategy=target={target}",
                     "-o", selected])
    if code:
        return [f"{target}: kgen-select-strategy failed\n{log}"], 1
    with open(selected, encoding="utf-8") as f:
        gemms = parse_gemms(f.read())
    for g in parse_gemms(extra):
        if g.config and f"target = {target}," in g.config:
            g.full = True
            gemms.append(g)
    # The real shapes' grids, from their tile form (IR only, nothing runs).
    real = os.path.join(workdir, "real.mlir")
    with open(real, "w", encoding="utf-8") as f:
        f.write(combined_module(gemms, [(g.m, g.n, g.k) for g in gemms]))
    real_grids = main_kernel_grids(lower_to_tiles(real, os.path.join(workdir, "real-tiled.mlir")))

    # Equal reduced problems (same shape and config) run once.
    unique, sizes, index = [], [], {}
    for g in gemms:
        key = (g.reduced(), g.transpose_b, g.dtype, g.out, g.config)
        if key not in index:
            index[key] = len(unique)
            unique.append(g)
            sizes.append(g.reduced())
    ok, errs, log, tile_ir = run_and_compare(os.path.join(workdir, "all"), unique, sizes, tolerance)
    grids = main_kernel_grids(tile_ir)
    if not ok:  # name the culprits
        errs = []
        for i, (g, s) in enumerate(zip(unique, sizes)):
            one_ok, one, one_log, _ = run_and_compare(
                os.path.join(workdir, f"one{i}"), [g], [s], tolerance)
            errs.append(one[0] if one_ok else one_log.strip().replace("\n", " | "))

    lines, failed = [], 0
    for g, real_grid in zip(gemms, real_grids):
        i = index[(g.reduced(), g.transpose_b, g.dtype, g.out, g.config)]
        m, n, k = sizes[i]
        split = g.field("split_k")
        err = errs[i]
        if isinstance(err, float):
            good = err == 0 if split == 1 else err <= tolerance
            verdict = f"{'OK' if good else 'MISMATCH'} rel_frob={err:.3e}"
        else:
            good, verdict = False, f"MISMATCH {err}"
        failed += not good
        grid = grids[i]
        shape = f"{m}x{n}x{k}" + ("" if (m, n, k) == (g.m, g.n, g.k) else f" of {g.m}x{g.n}x{g.k}")
        where = f"grid [{grid[0]}, {grid[1]}, {grid[2]}]"
        if grid != real_grid:
            where += f" (real [{real_grid[0]}, {real_grid[1]}, {real_grid[2]}])"
        tile = f"{g.field('block_m')}x{g.field('block_n')}x{g.field('block_k')}"
        lines.append(f"{target} {g.name}: {verdict} {shape} tile {tile} "
                     f"stages {g.field('stages')} split_k {split} "
                     f"raster {g.field('raster_group')} {where}")
    lines.append(f"{target}: {len(gemms) - failed} of {len(gemms)} gemms OK "
                 f"({len(unique)} distinct runs)")
    return lines, failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workdir")
    parser.add_argument("--suite", required=True)
    parser.add_argument("--module", help="extra gemms with their own configs, full size")
    parser.add_argument("--targets", default="sm_80,sm_90a")
    parser.add_argument("--tolerance", type=float, default=1e-3)
    args = parser.parse_args()
    code, suite_text = run([sys.executable, SUITE_TO_MLIR, args.suite])
    if code:
        print(suite_text)
        return 1
    extra = ""
    if args.module:
        with open(args.module, encoding="utf-8") as f:
            extra = f.read()
    targets = args.targets.split(",")
    # One target per core: each runs its two kgen-run processes in turn.
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        jobs = [pool.submit(check_target, t, suite_text, extra,
                            os.path.join(args.workdir, t), args.tolerance)
                for t in targets]
        results = [job.result() for job in jobs]
    failed = 0
    for lines, count in results:
        print("\n".join(lines))
        failed += count
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
