#!/usr/bin/env python3
"""The pure parts of bench/torch_baselines.py's MoE suite, without torch:
the cases of bench/suites/moe.json (all, the device check's cut, those
with a package, whose fuller op object they then carry), the expected
number of experts hit for uniform routing, FLOPs and bytes (and the
runtime's count, min(E, T k) experts hit), the baselines each op gets
(with a stand-in for torch) and what their results' comments say.

  torch-baselines-moe.py SRC_ROOT
"""
import importlib.util
import os
import sys

root = sys.argv[1]
spec = importlib.util.spec_from_file_location(
    "torch_baselines", os.path.join(root, "bench", "torch_baselines.py"))
tb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tb)

suite = tb.load_moe_suite(os.path.join(root, "bench", "suites", "moe.json"))
cases = tb.moe_cases(suite)
print(f"cases: {len(cases)}")
for c in cases:
    if c["name"] in ("mixtral-8x7b/1 token", "mixtral-8x7b/4096 tokens",
                     "qwen3-30b-a3b/16 tokens", "qwen3-30b-a3b/64 tokens",
                     "deepseek-v3/64 tokens", "deepseek-v3/8192 tokens"):
        op = c["op"]
        print(f'{c["name"]}: hit {tb.moe_experts_hit(op):.2f} weights '
              f'{tb.moe_weight_bytes(op):.6g} flops {c["work"][0]:.6g} '
              f'bytes {c["work"][1]:.6g}')
print("device check:", [c["name"] for c in tb.moe_cases(suite, device_check=True)])

# The runtime's moeBytes counts min(E, T k) experts hit (moeFlops the same
# FLOPs); DeepSeek-V3's e4m3 weights one byte each, their scales, the shared
# expert's and the correction bias counted.
for name in ("deepseek-v3/1 token", "deepseek-v3/4096 tokens"):
    op = next(c["op"] for c in cases if c["name"] == name)
    flops, nbytes = tb.moe_work(op, hit=min(op["experts"], op["tokens"] * op["top_k"]))
    print(f"{name}: runtime's count: flops {flops:.10g} bytes {nbytes:.10g}; "
          f"per expert {tb.moe_ffn_bytes(op, op['inter'])}, shared "
          f"{tb.moe_ffn_bytes(op, op['shared_inter'])}")


class StandIn:
    """What moe_implementations asks of torch: which functions it has."""
    __version__ = "stand-in"
    _grouped_mm = _scaled_mm = float8_e4m3fn = object()


for name in ("mixtral-8x7b/1 token", "deepseek-v3/4096 tokens"):
    op = next(c["op"] for c in cases if c["name"] == name)
    impls = tb.moe_implementations(StandIn, op)
    print(f"{name}: {[(impl, tolerance) for impl, _, _, tolerance, _ in impls]}")
    for impl, _, _, _, comment in impls:
        print(f"  {impl}: {comment}")

# Packages: only their ops, each case carrying the package's op object
# (its strategy fields too); a package of another kind or op matches none.
entry = next(e for e in suite["entries"] if e["name"] == "qwen3-30b-a3b/64 tokens")
fuller = dict(entry["op"], gate_up_config="c0", down_config="c1")
brief = {k: v for k, v in entry["op"].items() if k not in ("activation", "logits_dtype")}
other = dict(entry["op"], tokens=65)
for label, pkgs in [("fuller", [("p0", other), ("p1", fuller)]),
                    ("defaults", [("p0", brief)]),
                    ("attention", [("p0", {"kind": "attention", "batch": 1})])]:
    got = tb.moe_cases(suite, pkgs)
    print(f"{label}: {[(c['name'], c['op'].get('gate_up_config')) for c in got]}")
print("renormalize differs:",
      tb.moe_key(entry["op"]) == tb.moe_key(dict(entry["op"], renormalize=False)))
# DeepSeek-V3's real layer is not its bf16 softmax simplification; a
# package's factor (an f32, as the runtime writes it) and explicit defaults
# still match.
deep = next(e["op"] for e in suite["entries"] if e["name"] == "deepseek-v3/64 tokens")
plain = {k: v for k, v in deep.items() if k in tb.MOE_FIELDS[:10] or k == "kind"}
print("deepseek e4m3 matches bf16 softmax:", tb.moe_key(deep) == tb.moe_key(plain),
      "| factor as f32:", tb.moe_key(deep) == tb.moe_key(dict(deep, routed_scaling_factor=2.5)),
      tb.moe_key(dict(deep, routed_scaling_factor=0.3)) ==
      tb.moe_key(dict(deep, routed_scaling_factor=0.30000001192092896)),
      "| explicit defaults:", tb.moe_key(entry["op"]) == tb.moe_key(
          dict(entry["op"], weight_dtype="bf16", n_group=1, topk_group=1, shared_inter=0,
               scoring="softmax", correction_bias=False, block_scales=False)))
print("spread of 4096:", len(tb.spread(4096, tb.MOE_CHECK_TOKENS)),
      tb.spread(4096, tb.MOE_CHECK_TOKENS)[:2], tb.spread(4096, tb.MOE_CHECK_TOKENS)[-1],
      "| of 1:", tb.spread(1, tb.MOE_CHECK_TOKENS))
