#!/usr/bin/env python3
"""SYNTHETIC stand-in for `kgen-bench run` (made up for tests: host
"synthetic"), so that kgen-tune's measured search runs without a GPU.

usage: fake-kgen-bench.py run PKG_DIR... --out F.json [kgen-bench options]
       fake-kgen-bench.py ceilings --out C.json [kgen-bench options]

Each package's "true" time is a fixed function of its op and config (a
moe layer's: of its tuned role's config; as kgen-bench, no cuBLASLt
baseline beside a moe layer): a
plausible time for the op times 1.00 to 1.06 by a hash of the strategy, so
several candidates lie within a few percent.
Every invocation of this script is one "run" of the machine and multiplies
all its times by a drift factor (0.94 to 1.06, by invocation number), as
clocks and temperature do between runs; each kernel's median also carries
+-1% noise of its own. The cuBLASLt baseline "measured" beside each kernel
drifts with its run. Environment:
  FAKE_BENCH_STATE    folder for the invocation counter and log.txt, which
                      gets a line per package: invocation, name, true ms,
                      strategy
  FAKE_BENCH_NO_DEVICE  when set: behave as on a machine without a GPU
  FAKE_BENCH_WRONG    a package name whose output is wrong
"""
import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import synthetic  # noqa: E402


def role_config(config):
    """A moe layer candidate's config is its tuned role's (kgen-tune writes
    both roles' and the name of the one it searches)."""
    return config[config["tuned_role"]] if "tuned_role" in config else config


def strategy(config):
    config = role_config(config)
    keys = ["instruction", "block_m", "block_n", "block_k", "warps_m", "warps_n",
            "stages", "split_k", "raster_group"]
    return " ".join(f"{k}={config.get(k)}" for k in keys)


def base_ms(op):
    """A plausible time for the op: the larger of 600 TFLOP/s and 3.5 TB/s,
    plus 4 us. A moe layer: its three expert products over the experts hit."""
    size = {"f32": 4, "f16": 2, "bf16": 2, "f8E4M3FN": 1}
    if op.get("kind") == "moe":
        rows = op["tokens"] * op["top_k"]
        flops = 2.0 * rows * op["hidden"] * op["inter"] * 3
        nbytes = min(op["experts"], rows) * 3 * op["hidden"] * op["inter"] * size[op["dtype"]]
        return max(flops / 600e12, nbytes / 3.5e12) * 1e3 + 0.004
    m, n, k, batch = op["m"], op["n"], op["k"], op["batch"]
    flops = 2.0 * batch * m * n * k
    nbytes = batch * ((m * k + k * n) * size[op["dtype_a"]] + m * n * size[op["dtype_d"]])
    return max(flops / 600e12, nbytes / 3.5e12) * 1e3 + 0.004


def true_ms(config, op):
    """base_ms times 1.00 to 1.06 by a hash of the strategy."""
    h = int(hashlib.sha256(strategy(config).encode()).hexdigest(), 16)
    return base_ms(op) * (1.0 + 0.01 * (h % 7))


def drift(invocation):
    return 1.0 + 0.06 * (((invocation * 3) % 5) - 2) / 2


def noise(invocation, name):
    """Run-to-run noise of one kernel's median, within +-1%: what the
    baseline beside it does not cancel."""
    h = int(hashlib.sha256(f"{invocation} {name}".encode()).hexdigest(), 16)
    return 1.0 + 0.01 * ((h % 5) - 2) / 2


def main():
    args = sys.argv[1:]
    if not args or args[0] not in ("run", "ceilings"):
        print("fake-kgen-bench: only `run` and `ceilings` are faked", file=sys.stderr)
        return 2
    if os.environ.get("FAKE_BENCH_NO_DEVICE"):
        print("kgen-bench: no CUDA device", file=sys.stderr)
        return 3
    if args[0] == "ceilings":
        out = args[args.index("--out") + 1]
        doc = synthetic.results_doc([], "2026-12-01T00:00:00Z")
        doc["ceilings"] = {"copy_gbps": 3500.0, "matmul_tflops": 600.0,
                           "matmul_what": "bf16 8192x8192x8192 (synthetic)"}
        json.dump(doc, open(out, "w"), indent=1)
        return 0
    dirs, out, i = [], None, 1
    while i < len(args):
        if args[i] == "--out":
            out = args[i + 1]
            i += 2
        elif args[i].startswith("--"):
            i += 2
        else:
            dirs.append(args[i])
            i += 1
    state = os.environ["FAKE_BENCH_STATE"]
    os.makedirs(state, exist_ok=True)
    counter = os.path.join(state, "invocations")
    invocation = int(open(counter).read()) if os.path.exists(counter) else 0
    open(counter, "w").write(str(invocation + 1))

    results = []
    with open(os.path.join(state, "log.txt"), "a") as log:
        for d in dirs:
            m = json.load(open(os.path.join(d, "manifest.json")))
            truth = true_ms(m["config"], m["op"])
            ms = truth * drift(invocation) * noise(invocation, m["name"])
            wrong = m["name"] == os.environ.get("FAKE_BENCH_WRONG")
            baseline = 1.02 * base_ms(m["op"]) * drift(invocation)
            log.write(f'{invocation} {m["name"]} {truth:.6g} {strategy(m["config"])}\n')
            base = {"op": m["op"], "reason": "", "tflops": 0, "gbps": 0,
                    "fraction_of_matmul_ceiling": 0, "fraction_of_copy_ceiling": 0,
                    "resources": None, "speedup_over_baseline": 0}
            moe = m["op"].get("kind") == "moe"
            if not moe:
                results.append(dict(base, name="cublaslt/" + m["name"], implementation="cublaslt",
                                    config=None, status="ok", baseline="",
                                    time={"median_ms": baseline, "q1_ms": baseline,
                                          "q3_ms": baseline, "min_ms": baseline,
                                          "max_ms": baseline, "samples": 10},
                                    rel_error=0.0))
            results.append(dict(base, name=m["name"], implementation="kgen", config=m["config"],
                                status="wrong" if wrong else "ok",
                                reason="max error 1e3 (synthetic)" if wrong else "",
                                baseline="" if moe else "cublaslt/" + m["name"],
                                time=None if wrong else {
                                    "median_ms": ms, "q1_ms": ms * 0.995, "q3_ms": ms * 1.005,
                                    "min_ms": ms * 0.99, "max_ms": ms * 1.01, "samples": 10},
                                rel_error=0.5 if wrong else 0.003))
    doc = synthetic.results_doc(results, "2026-12-01T00:00:00Z")
    json.dump(doc, open(out, "w"), indent=1)
    return 1 if any(r["status"] != "ok" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
