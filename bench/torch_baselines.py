#!/usr/bin/env python3
"""Framework baselines for kgen on the GPU machine, written as kgen.results JSON.

For every GEMM of a suite (bench/suites/gemm.json): torch.matmul(x, W.t())
(cuBLAS through PyTorch) and, for prefill-sized M, the Triton tutorial matmul
kernel with one fixed configuration. For every model with an "attention"
entry: torch's scaled_dot_product_attention at prefill (one 4096-token causal
sequence) and decode (one query token against 4096 cached ones, batch = each
decode M). Each result is checked against an f32 computation before it is
timed; a wrong one is reported "wrong" and not timed.

Timing matches kgen-bench's method: warm-up, then per sample a 256 MiB
buffer is overwritten (evicting the 60 MB L2), then CUDA events around one
call; at least --min-samples samples, at most --max-samples, stopping after
--target-ms of measured time; median, quartiles and count as numpy's linear
percentiles.

  python3 bench/torch_baselines.py --suite bench/suites/gemm.json \
      --out baseline-torch.json [--ceilings ceilings.json] [--no-triton]

Exit codes: 0 all ok, 1 something failed or was wrong, 2 bad input,
3 no CUDA device. `--self-test-json F` writes a sample document without
torch (the runtime's tests read it back with kgen-bench).
"""

import argparse
import datetime
import json
import math
import os
import socket
import sys

RESULTS_SCHEMA = "kgen.results"
RESULTS_VERSION = 1
PREFILL_SEQ = 4096          # tokens of the prefill sequence and of the decode cache
TRITON_MIN_M = 128          # the fixed Triton tile is 128 rows: skip decode M
FLUSH_BYTES = 256 << 20     # > 4x the H200's 60 MB L2
GEMM_TOLERANCE = 1e-2       # bf16 operands, f32 accumulation (perf-method)
SDPA_TOLERANCE = 2e-2       # bf16 attention: softmax of bf16 scores


# ----------------------------------------------------------------- pure parts

def load_suite(path):
    """The suite's JSON; raises ValueError on a schema mismatch."""
    with open(path) as f:
        suite = json.load(f)
    if suite.get("schema") != "kgen.gemm-suite" or suite.get("version") != 1:
        raise ValueError(f"{path}: expected schema kgen.gemm-suite version 1")
    return suite


def gemm_shapes(suite):
    """Distinct GEMMs as dicts {name, m, n, k}, named as kgen-bench names them
    ("model/gemm m=M", "anchor/name"; duplicates appended as " = other")."""
    shapes, index = [], {}
    expanded = []
    for model in suite["models"]:
        for gemm in model["gemms"]:
            for m in model.get("m", suite["m"]):
                expanded.append((f'{model["name"]}/{gemm["name"]} m={m}',
                                 m, gemm["n"], gemm["k"]))
    for anchor in suite.get("anchors", []):
        expanded.append((f'anchor/{anchor["name"]}', anchor["m"], anchor["n"],
                         anchor["k"]))
    for name, m, n, k in expanded:
        key = (m, n, k)
        if key in index:
            shapes[index[key]]["name"] += " = " + name
        else:
            index[key] = len(shapes)
            shapes.append({"name": name, "m": m, "n": n, "k": k})
    return shapes


def attention_shapes(suite):
    """(name, op) pairs: prefill (causal, seq PREFILL_SEQ) and decode (one
    query against PREFILL_SEQ keys, batch = each decode M) per model."""
    out = []
    decode_batches = [m for m in suite["m"] if m < PREFILL_SEQ]
    for model in suite["models"]:
        att = model.get("attention")
        if not att:
            continue
        base = {"kind": "attention", "heads": att["heads"],
                "kv_heads": att["kv_heads"], "head_dim": att["head_dim"],
                "kv_len": PREFILL_SEQ, "dtype": "bf16"}
        out.append((f'{model["name"]}/sdpa prefill s={PREFILL_SEQ}',
                    dict(base, batch=1, q_len=PREFILL_SEQ, causal=True)))
        for b in decode_batches:
            out.append((f'{model["name"]}/sdpa decode b={b}',
                        dict(base, batch=b, q_len=1, causal=False)))
    return out


def gemm_op(shape):
    """The op object kgen-bench writes for a suite GEMM."""
    return {"kind": "gemm", "batch": 1, "m": shape["m"], "n": shape["n"],
            "k": shape["k"], "transpose_a": False, "transpose_b": True,
            "batched_b": False, "dtype_a": "bf16", "dtype_b": "bf16",
            "dtype_d": "bf16", "dtype_bias": None, "dtype_c": None,
            "alpha": 1.0, "beta": 0.0, "activation": "none", "acc_type": "f32"}


def gemm_work(shape):
    """(flops, fewest bytes) of a bf16 GEMM."""
    m, n, k = shape["m"], shape["n"], shape["k"]
    return 2.0 * m * n * k, 2.0 * (m * k + n * k + m * n)


def attention_work(op):
    """(flops, fewest bytes): QK^T and PV, halved when causal; q, k, v read
    and o written once."""
    b, h, hk, d = op["batch"], op["heads"], op["kv_heads"], op["head_dim"]
    sq, skv = op["q_len"], op["kv_len"]
    flops = 4.0 * b * h * sq * skv * d * (0.5 if op["causal"] else 1.0)
    elems = b * h * sq * d * 2 + b * hk * skv * d * 2
    return flops, 2.0 * elems


def percentile(sorted_values, q):
    """numpy.percentile(x, q) with the default linear method."""
    pos = q / 100 * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def summarize(samples_ms):
    x = sorted(samples_ms)
    return {"median_ms": percentile(x, 50), "q1_ms": percentile(x, 25),
            "q3_ms": percentile(x, 75), "min_ms": x[0], "max_ms": x[-1],
            "samples": len(x)}


def json_real(v):
    """A number, or the strings kgen's reader takes for inf and nan."""
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def make_result(name, implementation, op, status="skipped", reason="",
                time=None, rel_error=None, work=(0.0, 0.0), ceilings=None):
    """One entry of "results" (docs/results-schema.md)."""
    tflops = gbps = frac_mm = frac_bw = 0.0
    if time is not None and time["median_ms"] > 0:
        seconds = time["median_ms"] * 1e-3
        tflops = work[0] / seconds * 1e-12
        gbps = work[1] / seconds * 1e-9
        if ceilings and ceilings.get("matmul_tflops", 0) > 0:
            frac_mm = tflops / ceilings["matmul_tflops"]
        if ceilings and ceilings.get("copy_gbps", 0) > 0:
            frac_bw = gbps / ceilings["copy_gbps"]
    return {"name": name, "implementation": implementation, "op": op,
            "config": None, "status": status, "reason": reason, "time": time,
            "rel_error": None if rel_error is None else json_real(rel_error),
            "tflops": tflops, "gbps": gbps,
            "fraction_of_matmul_ceiling": frac_mm,
            "fraction_of_copy_ceiling": frac_bw, "resources": None,
            "baseline": "", "speedup_over_baseline": 0.0}


def make_document(device, ceilings, results):
    return {"schema": RESULTS_SCHEMA, "version": RESULTS_VERSION,
            "created_at": datetime.datetime.now(datetime.timezone.utc)
            .strftime("%Y-%m-%dT%H:%M:%SZ"),
            "commit": os.environ.get("KGEN_COMMIT", ""),
            "host": socket.gethostname(), "device": device,
            "ceilings": ceilings, "results": results}


def write_atomic(path, document):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(document, f, indent=2)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def empty_device():
    return {"name": "", "sm_count": 0, "cc_major": 0, "cc_minor": 0,
            "sm_clock_khz": 0, "mem_clock_khz": 0, "l2_bytes": 0,
            "memory_bytes": 0, "driver_version": "", "runtime_version": ""}


def self_test_document():
    """A document exercising every field kind, without torch."""
    device = dict(empty_device(), name="self-test", sm_count=132, cc_major=9,
                  l2_bytes=60 << 20)
    ceilings = {"copy_gbps": 4300.0, "matmul_tflops": 780.0,
                "matmul_what": "self-test"}
    suite = {"m": [4096, 1], "models": [{"name": "toy", "gemms": [
        {"name": "up", "n": 256, "k": 128}],
        "attention": {"heads": 4, "kv_heads": 2, "head_dim": 64}}]}
    results = []
    for shape in gemm_shapes(suite):
        results.append(make_result(shape["name"], "torch", gemm_op(shape), "ok",
                                   time=summarize([1.0, 2.0, 3.0]), rel_error=1e-3,
                                   work=gemm_work(shape), ceilings=ceilings))
    for name, op in attention_shapes(suite):
        results.append(make_result(name, "torch-sdpa", op, "wrong",
                                   "self-test", rel_error=float("inf")))
    return make_document(device, ceilings, results)


# ------------------------------------------------------------- on the device

def device_info(torch):
    props = torch.cuda.get_device_properties(0)
    info = dict(empty_device(), name=props.name,
                sm_count=props.multi_processor_count, cc_major=props.major,
                cc_minor=props.minor, l2_bytes=int(props.L2_cache_size),
                memory_bytes=int(props.total_memory),
                runtime_version=str(torch.version.cuda or ""))
    try:  # clocks and driver through NVML when the package is there
        import pynvml
        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        info["sm_clock_khz"] = 1000 * pynvml.nvmlDeviceGetClockInfo(
            handle, pynvml.NVML_CLOCK_SM)
        info["mem_clock_khz"] = 1000 * pynvml.nvmlDeviceGetClockInfo(
            handle, pynvml.NVML_CLOCK_MEM)
        v = pynvml.nvmlSystemGetCudaDriverVersion()
        info["driver_version"] = f"{v // 1000}.{(v % 1000) // 10}"
        pynvml.nvmlShutdown()
    except Exception:  # noqa: BLE001 - clocks are a nicety
        pass
    return info


class Timer:
    """kgen-bench's method in PyTorch (see the module docstring)."""

    def __init__(self, torch, min_samples, max_samples, target_ms):
        self.torch = torch
        self.flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device="cuda")
        self.min_samples, self.max_samples = min_samples, max_samples
        self.target_ms = target_ms

    def time(self, fn):
        torch = self.torch
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        samples, total = [], 0.0
        while len(samples) < self.max_samples and not (
                len(samples) >= self.min_samples and total >= self.target_ms):
            batch = min(16, self.max_samples - len(samples))
            events = [(torch.cuda.Event(enable_timing=True),
                       torch.cuda.Event(enable_timing=True)) for _ in range(batch)]
            for start, end in events:
                self.flush.fill_(1)  # evicts L2 and keeps the GPU busy
                start.record()
                fn()
                end.record()
            torch.cuda.synchronize()
            for start, end in events:
                ms = start.elapsed_time(end)
                samples.append(ms)
                total += ms
        return summarize(samples)


def rel_error(torch, got, ref):
    got, ref = got.float(), ref.float()
    if torch.isnan(got).any():
        return float("inf")
    return (torch.linalg.vector_norm(got - ref) /
            torch.linalg.vector_norm(ref)).item()


def judge_and_time(timer, result, fn, check, tolerance, work, ceilings):
    """Runs check() -> relative error; times fn() only when it passes. An
    exception (a compile error, out of memory) makes the result
    launch_failed."""
    try:
        err = check()
        result["rel_error"] = json_real(err)
        if not err <= tolerance:
            result["status"] = "wrong"
            result["reason"] = f"relative error {err:.3g} exceeds {tolerance:g}"
            return result
        time = timer.time(fn)
    except Exception as e:  # noqa: BLE001 - reported, and the run goes on
        result["status"] = "launch_failed"
        result["reason"] = f"{type(e).__name__}: {e}"[:2000]
        return result
    return make_result(result["name"], result["implementation"], result["op"],
                       "ok", time=time, rel_error=err, work=work,
                       ceilings=ceilings)


def triton_matmul(torch):
    """The Triton tutorial's matmul (03-matrix-multiplication) without
    autotuning: one 128x256x64 tile, grouped rasterisation, f32 accumulation.
    Returns f(a [M,K], b [K,N] any strides) -> c [M,N] bf16, or None."""
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return None

    @triton.jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                      stride_am, stride_ak, stride_bk, stride_bn,
                      stride_cm, stride_cn,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
        pid = tl.program_id(axis=0)
        num_pid_m = tl.cdiv(M, BLOCK_M)
        num_pid_n = tl.cdiv(N, BLOCK_N)
        num_pid_in_group = GROUP_M * num_pid_n
        group_id = pid // num_pid_in_group
        first_pid_m = group_id * GROUP_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
        pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
        pid_n = (pid % num_pid_in_group) // group_size_m
        offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
        offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
            acc = tl.dot(a, b, acc)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        c = acc.to(tl.bfloat16)
        offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))

    def matmul(a, b):
        m, k = a.shape
        n = b.shape[1]
        c = torch.empty((m, n), device=a.device, dtype=torch.bfloat16)
        grid = (triton.cdiv(m, 128) * triton.cdiv(n, 256),)
        matmul_kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1),
                            b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                            BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_M=8,
                            num_warps=8, num_stages=3)
        return c

    return matmul


def uniform(torch, shape, gen):
    """bf16 values uniform in [-1, 1): random, never zeros."""
    return (torch.rand(shape, generator=gen, device="cuda") * 2 - 1).to(torch.bfloat16)


def run_gemms(torch, timer, suite, ceilings, use_triton, gen, log):
    results = []
    triton_mm = triton_matmul(torch) if use_triton else None
    if use_triton and triton_mm is None:
        log("triton does not import: Triton matmul skipped")
    for shape in gemm_shapes(suite):
        m, n, k = shape["m"], shape["n"], shape["k"]
        x, w = uniform(torch, (m, k), gen), uniform(torch, (n, k), gen)
        ref = x.float() @ w.float().t()
        op, work = gemm_op(shape), gemm_work(shape)

        def run_torch():
            return torch.matmul(x, w.t())
        r = make_result(shape["name"], "torch", op)
        results.append(judge_and_time(
            timer, r, run_torch, lambda: rel_error(torch, run_torch(), ref),
            GEMM_TOLERANCE, work, ceilings))
        log(f'torch  {shape["name"]}: {results[-1]["status"]}')
        if triton_mm is not None and m >= TRITON_MIN_M:
            def run_triton():
                return triton_mm(x, w.t())
            r = make_result(shape["name"], "triton", op)
            results.append(judge_and_time(
                timer, r, run_triton, lambda: rel_error(torch, run_triton(), ref),
                GEMM_TOLERANCE, work, ceilings))
            log(f'triton {shape["name"]}: {results[-1]["status"]}')
            if results[-1]["status"] == "launch_failed":
                log("Triton failed; skipping it for the other shapes")
                triton_mm = None
        del x, w, ref
    return results


def attention_reference(torch, q, k, v, causal):
    """f32 attention of batch 0 and the first query head group only (cheap)."""
    group = q.shape[1] // k.shape[1]
    qf, kf, vf = q[0, :group].float(), k[0, :1].float(), v[0, :1].float()
    scores = qf @ kf.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if causal:
        sq, skv = q.shape[2], k.shape[2]
        mask = torch.ones(sq, skv, device="cuda", dtype=torch.bool).tril(skv - sq)
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1) @ vf


def run_attention(torch, timer, suite, ceilings, gen, log):
    import torch.nn.functional as F
    results = []
    for name, op in attention_shapes(suite):
        b, h, hk, d = op["batch"], op["heads"], op["kv_heads"], op["head_dim"]
        q = uniform(torch, (b, h, op["q_len"], d), gen)
        k = uniform(torch, (b, hk, op["kv_len"], d), gen)
        v = uniform(torch, (b, hk, op["kv_len"], d), gen)

        def run():
            return F.scaled_dot_product_attention(q, k, v, is_causal=op["causal"],
                                                  enable_gqa=True)

        def check():
            group = h // hk
            ref = attention_reference(torch, q, k, v, op["causal"])
            return rel_error(torch, run()[0, :group], ref)
        r = make_result(name, "torch-sdpa", op)
        results.append(judge_and_time(timer, r, run, check, SDPA_TOLERANCE,
                                      attention_work(op), ceilings))
        log(f'sdpa   {name}: {results[-1]["status"]}')
        del q, k, v
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite")
    parser.add_argument("--out")
    parser.add_argument("--ceilings", help="ceilings file from kgen-bench ceilings")
    parser.add_argument("--no-triton", action="store_true")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--min-samples", type=int, default=20)
    parser.add_argument("--max-samples", type=int, default=200)
    parser.add_argument("--target-ms", type=float, default=500.0)
    parser.add_argument("--self-test-json", metavar="F",
                        help="write a sample document (no torch) and exit")
    args = parser.parse_args()

    def log(line):
        print(f"torch_baselines: {line}", file=sys.stderr, flush=True)

    if args.self_test_json:
        write_atomic(args.self_test_json, self_test_document())
        return 0
    if not args.suite or not args.out:
        parser.error("--suite and --out are required")
    try:
        suite = load_suite(args.suite)
        ceilings = None
        if args.ceilings:
            with open(args.ceilings) as f:
                ceilings = json.load(f).get("ceilings")
    except (OSError, ValueError, KeyError) as e:
        log(str(e))
        return 2

    import torch
    if not torch.cuda.is_available():
        log("no CUDA device")
        return 3
    torch.backends.cuda.matmul.allow_tf32 = False
    gen = torch.Generator(device="cuda")
    gen.manual_seed(args.seed)
    timer = Timer(torch, args.min_samples, args.max_samples, args.target_ms)
    device = device_info(torch)
    results = []
    results += run_gemms(torch, timer, suite, ceilings, not args.no_triton, gen, log)
    write_atomic(args.out, make_document(device, ceilings, results))
    results += run_attention(torch, timer, suite, ceilings, gen, log)
    write_atomic(args.out, make_document(device_info(torch), ceilings, results))
    failed = [r for r in results if r["status"] not in ("ok", "skipped")]
    for r in failed:
        log(f'{r["implementation"]} {r["name"]}: {r["status"]}: {r["reason"]}')
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
