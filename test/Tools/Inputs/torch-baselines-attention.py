#!/usr/bin/env python3
"""The pure parts of bench/torch_baselines.py's attention suite, without
torch: kgen's kv_lens rule, the cases of a suite (shapes, masks, FLOPs,
bytes, what SDPA cannot do, the e4m3 operands SDPA reads dequantised and
the comments saying so; the fp8 prefills' FLOPs those of the bf16 entries
of their shapes), the run seeds of kgen-bench run's groups, which package
op is which entry's (an e4m3 cache's not the bf16 one's, an fp8 prefill's
not the bf16 prefill's), and a backend's refusal, error, wrong and ok
outcomes with stand-ins for torch.

  torch-baselines-attention.py SRC_ROOT FEATURES.json
"""
import contextlib
import importlib.util
import json
import os
import sys
import warnings

root, features = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location(
    "torch_baselines", os.path.join(root, "bench", "torch_baselines.py"))
tb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tb)

# kgen's attentionKvLens(spec, packageInputSeed(run, "kv_lens")), values
# printed by the C++ runtime (runtime/lib/Attention.cpp) for these inputs.
for batch, skv, run in [(8, 1024, 1), (5, 5, 7), (16, 131072, 12345)]:
    op = {"batch": batch, "seq_kv": skv}
    lens = tb.attention_kv_lens(op, tb.package_input_seed(run, "kv_lens"))
    print(f"kv_lens B={batch} Skv={skv} run={run}: {' '.join(map(str, lens))}")

entries = tb.load_attention_suite(os.path.join(root, "bench", "suites", "attention.json"))
cases = tb.attention_cases(entries)
print(f"cases: {len(cases)}")
for c in cases:
    if c["name"] in ("llama3-70b/prefill 16k causal", "llama3-8b/prefill 4k",
                     "llama3-8b/decode b=16 kv=8k", "hdim64/prefill 4k causal"):
        lens = "-" if c["kv_lens"] is None else len(c["kv_lens"])
        print(f'{c["name"]}: q {c["q_shape"]} kv {c["kv_shape"]} mask {c["mask"]} '
              f'lens {lens} flops {c["work"][0]:.6g} bytes {c["work"][1]:.6g} '
              f'unsupported "{c["unsupported"]}"')
# The e4m3 cache: K and V at one byte, the descales at four; SDPA on the
# cache dequantised to bf16, its comment and log saying so.
for c in cases:
    if "e4m3" in c["name"]:
        print(f'{c["name"]}: kv {c["kv_shape"]} bytes {c["work"][1]:.0f} sdpa {c["sdpa_type"]} '
              f'dequantised {c["e4m3"]} label "{tb.case_label(c)}" unsupported '
              f'"{c["unsupported"]}"')
        print(f'  comment: "{c["comment"][:40]}..." dequantised e4m3 in it: '
              f'{"dequantised e4m3" in c["comment"]}')
# The fp8 prefills: Q, K and V at one byte, out bf16, three descales; the
# FLOPs and mask of the bf16 entry of the same name without "fp8"; SDPA on
# Q, K and V dequantised to bf16, at the 16-bit rate, its comment saying so.
by_name = {c["name"]: c for c in cases}
for c in cases:
    if "prefill fp8" in c["name"]:
        bf16 = by_name[c["name"].replace("prefill fp8", "prefill")]
        print(f'{c["name"]}: q {c["q_shape"]} kv {c["kv_shape"]} mask {c["mask"]} '
              f'flops {c["work"][0]:.6g} (bf16 entry\'s: {c["work"][0] == bf16["work"][0]}) '
              f'bytes {c["work"][1]:.0f} (bf16 entry\'s {bf16["work"][1]:.0f}) sdpa {c["sdpa_type"]} '
              f'dequantised {c["e4m3"]} label "{tb.case_label(c)}" unsupported '
              f'"{c["unsupported"]}"')
        print(f'  comment: "{c["comment"][:43]}..." half the e4m3 tensor-core rate in it: '
              f'{"half the e4m3 tensor-core rate" in c["comment"]}')

for c in tb.attention_cases(tb.load_attention_suite(features)):
    print(f'{c["name"]}: mask {c["mask"]} lens {c["kv_lens"]} unsupported "{c["unsupported"]}" '
          f'sdpa {c["sdpa_type"]} dequantised {c["e4m3"]}{tb.case_label(c)}')

# Packages in kgen-bench run's order: only entries with a package, each with
# the package's op and the kv_lens of its group's seed (run + first index).
decode = [e for e in entries if e["name"] in
          ("llama3-8b/decode b=1 kv=1k", "llama3-8b/decode b=16 kv=1k")]
full = lambda op: dict(tb.OP_DEFAULTS, dtype_out=op["dtype"], scale=0.0883883, **op)
pkgs = [("p0", full(decode[1]["op"])), ("p1", full(decode[1]["op"])),
        ("p2", full(decode[0]["op"]))]
print("run seeds:", tb.package_run_seeds([op for _, op in pkgs], 100))
for c in tb.attention_cases(entries, pkgs, run_seed=100):
    expect = tb.attention_kv_lens(c["op"], tb.package_input_seed(
        100 if c["op"]["batch"] == 16 else 102, "kv_lens"))
    print(f'{c["name"]}: scale {c["op"]["scale"]} lens as kgen-bench drew them: '
          f'{c["kv_lens"] == expect}')
prefill = dict(entries[0]["op"])
print("kv_lens false matches an entry without kv_lens:",
      tb.op_matches(prefill, full(prefill)),
      "| with kv_lens true:", tb.op_matches(prefill, dict(full(prefill), kv_lens=True)))

# A package of the e4m3 cache (dtype_kv and the descales written, as the
# dialect writes them) is the e4m3 entry's, not the bf16 entry's of the
# same shape; a bf16 package (neither written) is the bf16 entry's alone.
named = {e["name"]: e["op"] for e in entries}
bf16, e4m3 = named["llama3-8b/decode b=16 kv=8k"], named["llama3-8b/decode e4m3-kv b=16 kv=8k"]
# A package writes the descales only when true.
e4m3_pkg = {k: v for k, v in full(e4m3).items() if k != "q_descale"}
print("e4m3 package: e4m3 entry", tb.op_matches(e4m3, e4m3_pkg), "| bf16 entry",
      tb.op_matches(bf16, e4m3_pkg), "| bf16 package: e4m3 entry",
      tb.op_matches(e4m3, full(bf16)), "| bf16 entry", tb.op_matches(bf16, full(bf16)))
print("cases of an e4m3 and a bf16 package:",
      [(c["name"], c["op"].get("dtype_kv", "-"), c["e4m3"])
       for c in tb.attention_cases(entries, [("p0", e4m3_pkg), ("p1", full(bf16))])])
# An fp8 prefill's package (dtype f8E4M3FN, every descale written) is the
# fp8 entry's alone; the bf16 prefill's package is not the fp8 entry's.
bf16, fp8 = named["llama3-8b/prefill 16k"], named["llama3-8b/prefill fp8 16k"]
fp8_pkg = dict(full(bf16), **fp8)
print("fp8 package: fp8 entry", tb.op_matches(fp8, fp8_pkg), "| bf16 entry",
      tb.op_matches(bf16, fp8_pkg), "| bf16 package: fp8 entry",
      tb.op_matches(fp8, full(bf16)), "| cases:",
      [(c["name"], c["op"]["dtype"], c["sdpa_type"])
       for c in tb.attention_cases(entries, [("p0", full(bf16)), ("p1", fp8_pkg)])])

print("check rows of 16384:", len(tb.check_rows(16384)), tb.check_rows(16384)[:2],
      tb.check_rows(16384)[-1], "| of 3:", tb.check_rows(3))
print("check sequences:", tb.check_sequences([0, 5, 0, 7, 1, 9, 2, 0], 8),
      tb.check_sequences(None, 2))


# A backend: a refusal, an error, a wrong result, a right one.
def refuse():
    warnings.warn("Flash attention does not support the use of attn_mask")
    warnings.warn("Flash attention does not support the use of attn_mask")
    raise RuntimeError("No available kernel. Aborting execution.")


def fail():
    raise RuntimeError("CUDA out of memory")


work = (4e12, 1e9)
ceilings = {"matmul_tflops": 800.0, "copy_gbps": 4000.0}
for label, call, err in [("refused", refuse, 0.0), ("error", fail, 0.0),
                         ("wrong", lambda: None, 0.5), ("right", lambda: None, 3e-3)]:
    r = tb.make_result("x", "torch-sdpa-flash", {"kind": "attention"})
    r = tb.run_backend(r, contextlib.nullcontext, call, lambda: err,
                       lambda fn: tb.summarize([10.0, 10.0, 10.0]),
                       tb.SDPA_TOLERANCE, work, ceilings)
    print(f'{label}: {r["status"]} "{r["reason"]}" tflops {r["tflops"]:.1f} '
          f'gbps {r["gbps"]:.1f} time {json.dumps(r["time"] and r["time"]["median_ms"])}')
