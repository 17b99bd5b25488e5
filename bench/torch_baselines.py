#!/usr/bin/env python3
"""Framework baselines for kgen on the GPU machine, written as kgen.results JSON.

For every GEMM of a suite (bench/suites/gemm.json): torch.matmul(x, W.t())
(cuBLAS through PyTorch) and, for prefill-sized M, the Triton tutorial matmul
kernel with one fixed configuration. For every model with an "attention"
entry: torch's scaled_dot_product_attention at prefill (one 4096-token causal
sequence) and decode (one query token against 4096 cached ones, batch = each
decode M). Each result is checked against an f32 computation before it is
timed; a wrong one is reported "wrong" and not timed.

For every entry of an attention suite (--attention-suite, schema
kgen.attention-suite, e.g. bench/suites/attention.json): torch's
scaled_dot_product_attention under sdpa_kernel(SDPBackend.CUDNN_ATTENTION)
and under sdpa_kernel(SDPBackend.FLASH_ATTENTION), results
"torch-sdpa-cudnn" and "torch-sdpa-flash" named as the entry, with the
entry's op object (the kgen package's, when --attention-packages gives
them) and FlashAttention's FLOPs (4 B Hq Sq Skv D, halved when causal: kgen's
attentionFlops). What is compared (bench/README.md, "torch_baselines.py"):
GQA through enable_gqa (K and V not expanded); causal is kgen's
bottom-right alignment, which is torch's is_causal (top-left) when Sq = Skv,
else an explicit mask; kv_lens are the lengths kgen-bench run drew for the
kgen package of that op (its --seed, given here as --kv-lens-seed, and the
package's place among --attention-packages; kgen's own rule,
attentionKvLens), passed as a boolean key mask [B, 1, Sq, Skv] over the
padded cache; the log-sum-exp, which SDPA does not return, is not
computed. A backend that refuses a case is a "skipped" result whose reason
is torch's (its warnings), not a failure. SDPA takes no paged KV cache: a
"paged" entry (K and V as pages read through a block table) is timed on
the equivalent contiguous cache [B, Hkv, Skv, D] (the same math, the same
kv_lens), its results carrying a "comment" that says so ("contiguous
cache"): the gather of the pages, which kgen's kernel does, is not timed.
Nor does SDPA read e4m3: an entry with an e4m3 KV cache ("dtype_kv":
"f8E4M3FN", with k_descale/v_descale) is timed on the equivalent 16-bit
cache, K and V dequantised to Q's type (e4m3 values times their descales,
drawn in [0.5, 2] as kgen draws them, rounded to that type: the same math),
and e4m3 queries alike, to dtype_out (the fp8 prefill entries: Q, K and V
f8E4M3FN with their three descales, out bf16, timed on Q, K and V
dequantised to bf16); its results carry a "comment" with "dequantised
e4m3" (e4m3_comment): SDPA reads twice the bytes kgen's kernel does and,
with e4m3 queries, multiplies on 16-bit tensor cores, half the e4m3 rate,
so this is a bf16 baseline at the e4m3 op, not an fp8 one (torch's public
SDPA takes no e4m3). FLOPs and bytes (hence GB/s) are kgen's for the op,
each e4m3 operand counted at one byte an element.

For every entry of a MoE suite (--moe-suite, schema kgen.moe-suite, e.g.
bench/suites/moe.json): the whole layer from the router logits to y, as
kgen's package times it, in two forms: "torch-moe-cublas-loop" (the
routing of kgen.moe_route in f32: softmax or sigmoid scores, a correction
bias that only chooses, the group limit, top-k, renormalisation, the
scaling factor; the tokens grouped by expert, then per expert that has
tokens torch.matmul (cuBLAS) of its rows by its gate|up weights, act(gate)
* up, torch.matmul by its down weights; the shared expert, when the op has
one, as two torch.matmul over every token; and the weighted combine; the
group sizes come to the host once per call, as any loop needs them) and
"torch-moe-grouped-mm" (the same routing, grouping, shared expert and
combine around two torch._grouped_mm calls, gate|up and down, no host
sync; "skipped" with "not available" where torch lacks it). Gate and up
are one [E, H, 2I] weight, as serving frameworks store them (one GEMM of
2I columns instead of two of I). For an op with e4m3 weights and 128x128
block scales (DeepSeek-V3) both run on the weights dequantised to bf16
(exactly: an upper-bandwidth bf16 baseline, two bytes a weight where kgen
reads one), and a third form, "torch-moe-fp8-rowwise-loop", runs the loop
with torch._scaled_mm on e4m3 operands with row-wise scales (the
activations quantised per row, the weights requantised to one scale per
output column: not the 1x128 / 128x128 blocks kgen computes). Each result
carries a "comment" saying what its baseline computes. All are checked
against an f32 computation of the layer at up to 64 tokens spread over
the batch (same routing) before they are timed, the fp8 form at a looser
tolerance. --moe-packages DIR takes the ops of kgen's moe packages there
(only entries some package has, carrying its op object);
--moe-device-check the entries of the suite's device_check list.
`--moe-cpu-check` runs every form and the reference at small sizes on the
CPU (torch without a GPU), DeepSeek-style layers among them, and the
routing against a plain reading of kgen.moe_route.

Timing matches kgen-bench's method: warm-up, then per sample a 256 MiB
buffer is overwritten (evicting the 60 MB L2), then CUDA events around one
call; at least --min-samples samples, at most --max-samples, stopping after
--target-ms of measured time; median, quartiles and count as numpy's linear
percentiles.

  python3 bench/torch_baselines.py --suite bench/suites/gemm.json \
      --out baseline-torch.json [--ceilings ceilings.json] [--no-triton]
      [--attention-suite bench/suites/attention.json
       [--attention-packages DIR --kv-lens-seed S]]
      [--moe-suite bench/suites/moe.json [--moe-packages DIR | --moe-device-check]]

Exit codes: 0 all ok, 1 something failed or was wrong, 2 bad input,
3 no CUDA device. `--self-test-json F` writes a sample document without
torch (the runtime's tests read it back with kgen-bench).
"""

import argparse
import contextlib
import datetime
import json
import math
import os
import socket
import struct
import sys

RESULTS_SCHEMA = "kgen.results"
RESULTS_VERSION = 1
PREFILL_SEQ = 4096          # tokens of the prefill sequence and of the decode cache
TRITON_MIN_M = 128          # the fixed Triton tile is 128 rows: skip decode M
FLUSH_BYTES = 256 << 20     # > 4x the H200's 60 MB L2
GEMM_TOLERANCE = 1e-2       # bf16 operands, f32 accumulation (perf-method)
SDPA_TOLERANCE = 2e-2       # bf16 attention: softmax of bf16 scores
ATTENTION_BACKENDS = ("cudnn", "flash")   # torch-sdpa-<name>: SDPBackend members
SDPA_BACKEND_ENUM = {"cudnn": "CUDNN_ATTENTION", "flash": "FLASH_ATTENTION"}
CHECK_ROWS = 256            # query rows per checked sequence (spread, first and last)
CHECK_SEQUENCES = 4         # sequences checked (first, last, and between), L > 0
KGEN_GROUP_PACKAGES = 16    # kgen-bench run: packages of one op per child (kGroupPackages)
MOE_CHECK_TOKENS = 64       # tokens of a MoE layer checked against f32 (spread)
MOE_TOLERANCE = 2e-2        # bf16 operands, f32 accumulation, four bf16 roundings
# e4m3 with row-wise scales: x, the weights (requantised per column) and a
# each rounded to e4m3, about 2.5% relative each (u(e4m3) = 2^-4): ~6% on y
MOE_FP8_TOLERANCE = 1e-1
MOE_BASELINES = ("torch-moe-cublas-loop", "torch-moe-grouped-mm")
MOE_FP8_BASELINE = "torch-moe-fp8-rowwise-loop"   # block-scaled ops only
# The fields of a moe op object (kernel package manifests) that say what
# is computed; a package's manifest may hold more (its strategy).
MOE_FIELDS = ("tokens", "hidden", "inter", "experts", "top_k", "renormalize",
              "activation", "dtype", "logits_dtype", "dtype_out", "scoring",
              "correction_bias", "n_group", "topk_group", "routed_scaling_factor",
              "shared_inter", "weight_dtype", "block_scales")
MOE_DEFAULTS = {"renormalize": False, "activation": "silu", "logits_dtype": "f32",
                "scoring": "softmax", "correction_bias": False, "n_group": 1,
                "topk_group": 1, "routed_scaling_factor": 1.0, "shared_inter": 0,
                "block_scales": False}
MOE_SCALE_BLOCK = 128       # block scales: one f32 per 128 x 128 weights
ELEM_BYTES = {"bf16": 2, "f16": 2, "f32": 4, "f8E4M3FN": 1}


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


def load_attention_suite(path):
    """The entries of a kgen.attention-suite file; raises ValueError."""
    with open(path) as f:
        suite = json.load(f)
    if suite.get("schema") != "kgen.attention-suite" or suite.get("version") != 1:
        raise ValueError(f"{path}: expected schema kgen.attention-suite version 1")
    return suite["entries"]


MASK64 = (1 << 64) - 1


def mix_seed(seed, salt):
    """kgen's mixSeed (runtime/lib/HostTensor.cpp): SplitMix64's finaliser."""
    z = (seed + 0x9E3779B97F4A7C15 * (salt + 1)) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def package_input_seed(run_seed, param_name):
    """kgen's packageInputSeed: the seed of one input of a package's run."""
    h = 0xcbf29ce484222325  # FNV-1a
    for c in param_name.encode():
        h = ((h ^ c) * 0x100000001b3) & MASK64
    return mix_seed(run_seed & MASK64, h)


def attention_kv_lens(op, seed):
    """kgen's attentionKvLens: per sequence, with probability 1/2 the full
    Skv, 3/8 uniform in [1, Skv], 1/8 uniform in [0, min(Skv, 8)]."""
    skv, draws, lens = op["seq_kv"], 0, []
    for _ in range(op["batch"]):
        kind = mix_seed(seed, draws) % 8
        draws += 1
        length = skv
        if 4 <= kind < 7:
            length = 1 + mix_seed(seed, draws) % skv
            draws += 1
        elif kind == 7:
            length = mix_seed(seed, draws) % (min(skv, 8) + 1)
            draws += 1
        lens.append(length)
    return lens


OP_DEFAULTS = {"kv_lens": False, "lse": False, "causal": False,
               "sliding_window": None, "softcap": None,
               "paged": False, "page_size": None, "num_pages": None,
               "q_descale": False, "k_descale": False, "v_descale": False}
E4M3 = "f8E4M3FN"
E4M3_DESCALE_RANGE = (0.5, 2.0)   # kgen's attentionDescale draws in [0.5, 2]
PAGED_COMMENT = ("contiguous cache: SDPA on the equivalent contiguous K and V "
                 "[B, Hkv, Skv, D] (the same math and kv_lens; SDPA takes no paged "
                 "cache); the gather of the pages through the block table, which "
                 "kgen's kernel does, is not timed")


def operand_list(names):
    """["k", "v"] -> "K and V", ["q", "k", "v"] -> "Q, K and V"."""
    names = [n.upper() for n in names]
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]


def e4m3_comment(e4m3, sdpa_type):
    """The comment of an op with the e4m3 operands `e4m3` (["k", "v"],
    ["q", "k", "v"]) that SDPA computes on them dequantised to
    `sdpa_type`; with e4m3 queries (then all three are e4m3: kgen's FP8
    kernel) SDPA also multiplies at most at the 16-bit tensor-core rate,
    half the e4m3 one."""
    rate = (f", its QK^T and PV in {sdpa_type}, at most half the e4m3 tensor-core rate"
            if "q" in e4m3 else "")
    return (f"dequantised e4m3: SDPA on {operand_list(e4m3)} dequantised to {sdpa_type} (the e4m3 "
            f"values times their descales: the same math; SDPA reads no e4m3), "
            f"{ELEM_BYTES[sdpa_type]} bytes an element where kgen's kernel reads one{rate}: a "
            f"{sdpa_type} baseline at the e4m3 op, not an fp8 one; FLOPs and bytes are "
            "kgen's for the op")


def sdpa_types(op):
    """(the type SDPA computes in, the e4m3 operands among "q", "k", "v"):
    an e4m3 cache is dequantised to Q's type, e4m3 queries to dtype_out."""
    t, kv = op["dtype"], op.get("dtype_kv") or op["dtype"]
    sdpa = (op.get("dtype_out") or t) if t == E4M3 else t
    e4m3 = [name for name, ty in (("q", t), ("k", kv), ("v", kv)) if ty == E4M3]
    return sdpa, e4m3


def op_matches(entry_op, package_op):
    """Whether a package's op object (every field written, but the paged
    cache's, written only when paged, dtype_kv, only when not dtype, and
    the descales, only when true) is a suite entry's: the fields the entry
    gives, and the op's defaults for the others (dtype_out and dtype_kv the
    dtype; scale whatever the package says)."""
    def full(op):
        return {**OP_DEFAULTS, "dtype_out": op.get("dtype"), "dtype_kv": op.get("dtype"), **op}
    have = full(package_op)
    return all(have.get(k) == v for k, v in full(entry_op).items())


def package_run_seeds(manifest_ops, run_seed):
    """The run seed of each package as kgen-bench run gives it for the list
    in this order: consecutive packages of one op, up to 16, share a child
    and the seed run_seed + the index of the first."""
    seeds, i = [], 0
    while i < len(manifest_ops):
        end = i + 1
        while (end < len(manifest_ops) and end - i < KGEN_GROUP_PACKAGES
               and manifest_ops[end] == manifest_ops[i]):
            end += 1
        seeds += [run_seed + i] * (end - i)
        i = end
    return seeds


def attention_suite_work(op):
    """(flops, fewest bytes) as kgen counts them (Attention.h attentionFlops
    and attentionBytes): 4 B Hq Sq Skv D, halved with causal; q, k, v, out,
    and lse (f32) and kv_lens (i32) when the op has them, once each; k and
    v at dtype_kv's size (one byte for an e4m3 cache); with a paged cache
    they count the B * M pages the sequences name (as many elements as the
    contiguous cache) and the i32 block table [B, M]; 4 bytes a descale."""
    b, hq, hkv = op["batch"], op["q_heads"], op["kv_heads"]
    sq, skv, d = op["seq_q"], op["seq_kv"], op["head_dim"]
    flops = 4.0 * b * hq * sq * skv * d * (0.5 if op.get("causal") else 1.0)
    t = ELEM_BYTES[op["dtype"]]
    t_kv = ELEM_BYTES[op.get("dtype_kv") or op["dtype"]]
    t_out = ELEM_BYTES[op.get("dtype_out") or op["dtype"]]
    nbytes = b * hq * sq * d * (t + t_out) + 2 * b * hkv * skv * d * t_kv
    if op.get("lse"):
        nbytes += 4 * b * hq * sq
    if op.get("kv_lens"):
        nbytes += 4 * b
    if op.get("paged"):
        nbytes += 4 * b * (skv // op["page_size"])
    nbytes += 4 * sum(bool(op.get(f)) for f in ("q_descale", "k_descale", "v_descale"))
    return flops, float(nbytes)


def attention_cases(entries, packages=None, run_seed=1):
    """What the torch step measures per attention suite entry: dicts with
    name, op (the package's when `packages` is a list of (dir, op) in the
    order kgen-bench ran them; then only entries some package has), q_shape
    [B, Hq, Sq, D], kv_shape [B, Hkv, Skv, D], kv_lens (a list, or None),
    mask ("none", "is_causal" or "explicit": kv_lens, or causal with
    Sq != Skv, or a window), unsupported (why SDPA cannot compute the op,
    or ""), work (flops, bytes), sdpa_type and e4m3 (sdpa_types: SDPA's
    type, the e4m3 operands it reads dequantised), comment (PAGED_COMMENT
    for a paged op, which SDPA computes on the contiguous kv_shape, and
    e4m3_comment for one with e4m3 operands, joined by "; "; else "")."""
    seeds = package_run_seeds([op for _, op in packages], run_seed) if packages else []
    cases = []
    for index, entry in enumerate(entries):
        op = entry["op"]
        seed = run_seed + index
        if packages is not None:
            found = [i for i, (_, pop) in enumerate(packages) if op_matches(op, pop)]
            if not found:
                continue
            op, seed = packages[found[0]][1], seeds[found[0]]
        b, hq, hkv = op["batch"], op["q_heads"], op["kv_heads"]
        sq, skv, d = op["seq_q"], op["seq_kv"], op["head_dim"]
        kv_lens = None
        if op.get("kv_lens"):
            kv_lens = attention_kv_lens(op, package_input_seed(seed, "kv_lens"))
        causal, window = bool(op.get("causal")), op.get("sliding_window")
        if kv_lens is not None or window is not None or (causal and sq != skv):
            mask = "explicit"
        elif causal:
            mask = "is_causal"
        else:
            mask = "none"
        unsupported = []
        if op.get("softcap") is not None:
            unsupported.append("SDPA has no softcap")
        sdpa, e4m3 = sdpa_types(op)
        if (op.get("dtype_out") or op["dtype"]) != sdpa:
            unsupported.append("SDPA writes out in the inputs' dtype")
        comment = [PAGED_COMMENT] if op.get("paged") else []
        if e4m3:
            comment.append(e4m3_comment(e4m3, sdpa))
        cases.append({"name": entry["name"], "op": op,
                      "q_shape": [b, hq, sq, d], "kv_shape": [b, hkv, skv, d],
                      "kv_lens": kv_lens, "mask": mask,
                      "unsupported": "; ".join(unsupported),
                      "work": attention_suite_work(op), "sdpa_type": sdpa, "e4m3": e4m3,
                      "comment": "; ".join(comment)})
    return cases


def load_moe_suite(path):
    """A kgen.moe-suite file; raises ValueError."""
    with open(path) as f:
        suite = json.load(f)
    if suite.get("schema") != "kgen.moe-suite" or suite.get("version") != 1:
        raise ValueError(f"{path}: expected schema kgen.moe-suite version 1")
    names = {e["name"] for e in suite["entries"]}
    unknown = [n for n in suite.get("device_check", []) if n not in names]
    if unknown:
        raise ValueError(f"{path}: device_check names no entry: {', '.join(unknown)}")
    return suite


def moe_key(op):
    """What a moe op computes: MOE_FIELDS with their defaults (dtype_out and
    weight_dtype the dtype), so that an entry and a package's fuller op
    object compare; routed_scaling_factor as the f32 the package holds."""
    full = {**MOE_DEFAULTS, "dtype_out": op.get("dtype"), "weight_dtype": op.get("dtype"),
            **op}
    full["routed_scaling_factor"] = struct.unpack(
        "f", struct.pack("f", float(full["routed_scaling_factor"])))[0]
    return tuple(full.get(f) for f in MOE_FIELDS)


def moe_experts_hit(op):
    """The expected number of distinct experts T tokens hit when each picks
    top_k distinct experts uniformly at random: E (1 - (1 - k/E)^T)."""
    e, k, t = op["experts"], op["top_k"], op["tokens"]
    return e * (1.0 - (1.0 - k / e) ** t)


def moe_scale_blocks(n):
    """ceil(n / 128): the scale blocks along a dimension of n weights."""
    return -(-n // MOE_SCALE_BLOCK)


def moe_ffn_bytes(op, inter):
    """Bytes of one gated FFN's three weights of inner size `inter` (w_gate,
    w_up [H, inter], w_down [inter, H]) in the op's weight_dtype (e4m3: one
    byte), with their f32 scales per 128 x 128 block when block_scales."""
    h = op["hidden"]
    scales = 3 * 4 * moe_scale_blocks(h) * moe_scale_blocks(inter) \
        if op.get("block_scales") else 0
    return 3 * h * inter * ELEM_BYTES[op.get("weight_dtype") or op["dtype"]] + scales


def moe_weight_bytes(op, hit=None):
    """Bytes of the weights a layer must read at least: w_gate, w_up and
    w_down (with their block scales) of the experts hit, `hit` of them or
    the expected number for uniform routing (moe_experts_hit), and the
    shared expert's (every token goes through it)."""
    shared = op.get("shared_inter", 0)
    hit = moe_experts_hit(op) if hit is None else hit
    return hit * moe_ffn_bytes(op, op["inter"]) + (moe_ffn_bytes(op, shared) if shared else 0)


def moe_work(op, hit=None):
    """(flops, fewest bytes) of a moe layer, as the runtime's moeFlops and
    moeBytes count them: the three expert GEMMs of every routed copy and of
    the shared expert (2 T 3 H (k I + Is)); x, the logits and y once, the
    correction bias, and the weights (moe_weight_bytes: the experts hit,
    the expected number unless `hit` says; the runtime's moeBytes takes
    min(E, T k), a package's manifest all E)."""
    t, h, e = op["tokens"], op["hidden"], op["experts"]
    flops = 2.0 * t * 3 * h * (op["top_k"] * op["inter"] + op.get("shared_inter", 0))
    nbytes = (t * h * (ELEM_BYTES[op["dtype"]] + ELEM_BYTES[op.get("dtype_out") or op["dtype"]])
              + t * e * ELEM_BYTES[op.get("logits_dtype") or "f32"]
              + moe_weight_bytes(op, hit) + (4 * e if op.get("correction_bias") else 0))
    return flops, float(nbytes)


def moe_cases(suite, packages=None, device_check=False):
    """What the torch step measures per moe suite entry: dicts with name,
    op (the package's when `packages` is a list of (dir, op); then only
    entries some package has), work (flops, bytes). With device_check, only
    the entries of the suite's device_check list."""
    listed = set(suite.get("device_check", []))
    cases = []
    for entry in suite["entries"]:
        op = entry["op"]
        if device_check and entry["name"] not in listed:
            continue
        if packages is not None:
            found = [pop for _, pop in packages
                     if pop.get("kind") == "moe" and moe_key(pop) == moe_key(op)]
            if not found:
                continue
            op = found[0]
        cases.append({"name": entry["name"], "op": op, "work": moe_work(op)})
    return cases


def visible_keys(op, length, i):
    """[begin, end): the keys query row i sees (kgen's bottom-right rule,
    Attention.h) in a sequence of `length` valid keys."""
    end = length
    p = i + length - op["seq_q"]
    if op.get("causal"):
        end = max(0, min(p + 1, length))
    begin = 0
    if op.get("sliding_window") is not None:
        begin = max(0, min(p - op["sliding_window"] + 1, end))
    return begin, end


def spread(n, count):
    """Up to `count` indices spread over [0, n), first and last."""
    if n <= count:
        return list(range(n))
    step = (n - 1) / (count - 1)
    return sorted({round(k * step) for k in range(count)})


def check_rows(seq_q):
    """Up to CHECK_ROWS query rows spread over [0, seq_q), first and last."""
    return spread(seq_q, CHECK_ROWS)


def check_sequences(kv_lens, batch):
    """Up to CHECK_SEQUENCES batch indices to check, spread, first and last
    among those with a visible key (SDPA's output for a row whose keys are
    all masked is not defined: NaN on its math path, kgen writes 0)."""
    valid = [b for b in range(batch) if kv_lens is None or kv_lens[b] > 0]
    if len(valid) <= CHECK_SEQUENCES:
        return valid
    step = (len(valid) - 1) / (CHECK_SEQUENCES - 1)
    return sorted({valid[round(k * step)] for k in range(CHECK_SEQUENCES)})


def refusal_reason(error, warning_messages):
    """torch's reason when a forced SDPA backend refuses a case (it raises
    "No available kernel" after warning why), else None."""
    if not isinstance(error, RuntimeError) or "No available kernel" not in str(error):
        return None
    reasons = []
    for m in warning_messages:
        m = " ".join(str(m).split())
        if m and m not in reasons:
            reasons.append(m)
    return ("refused: " + ("; ".join(reasons) or str(error)))[:2000]


def run_backend(result, backend, call, check, time_fn, tolerance, work, ceilings):
    """One implementation on one case: `backend` a context manager factory
    (forcing an SDPA backend, or contextlib.nullcontext), `call()` one call,
    `check()` -> relative error, `time_fn(fn)` the timer. A refusal
    (refusal_reason) is a "skipped" result with torch's reason; an error
    (a compile error, out of memory) is "launch_failed"; a wrong result is
    not timed."""
    import warnings
    try:
        with backend():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    call()
                except Exception as e:  # noqa: BLE001 - classified below
                    reason = refusal_reason(e, [w.message for w in caught])
                    if reason is None:
                        raise
                    result["status"], result["reason"] = "skipped", reason
                    return result
            err = check()
            result["rel_error"] = json_real(err)
            if not err <= tolerance:
                result["status"] = "wrong"
                result["reason"] = f"relative error {err:.3g} exceeds {tolerance:g}"
                return result
            time = time_fn(call)
    except Exception as e:  # noqa: BLE001 - reported, and the run goes on
        result["status"] = "launch_failed"
        result["reason"] = f"{type(e).__name__}: {e}"[:2000]
        return result
    return make_result(result["name"], result["implementation"], result["op"],
                       "ok", time=time, rel_error=err, work=work,
                       ceilings=ceilings)


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
    return run_backend(result, contextlib.nullcontext, fn, check, timer.time,
                       tolerance, work, ceilings)


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


def attention_mask(torch, case):
    """The boolean mask [B, 1, Sq, Skv] (True: attend) of an "explicit"
    case: key j of sequence b visible from query i as kgen.attention says."""
    op = case["op"]
    b, _, sq, _ = case["q_shape"]
    skv = op["seq_kv"]
    lens = case["kv_lens"] or [skv] * b
    length = torch.tensor(lens, device="cuda").view(b, 1, 1, 1)
    i = torch.arange(sq, device="cuda").view(1, 1, sq, 1)
    j = torch.arange(skv, device="cuda").view(1, 1, 1, skv)
    p = i + length - sq
    mask = j < length
    if op.get("causal"):
        mask = mask & (j <= p)
    if op.get("sliding_window") is not None:
        mask = mask & (j > p - op["sliding_window"])
    return mask


def attention_suite_reference(torch, case, q, k, v, mask, b, rows):
    """f32 attention of sequence b, the first query head group, at query
    `rows`; rows without a visible key are 0 (kgen's rule)."""
    op = case["op"]
    group = op["q_heads"] // op["kv_heads"]
    scale = op.get("scale") or 1 / math.sqrt(op["head_dim"])
    qf = q[b, :group, rows].float()
    scores = qf @ k[b, 0].float().transpose(-1, -2) * scale
    if mask is not None:
        scores = scores.masked_fill(~mask[b, 0, rows], float("-inf"))
    elif case["mask"] == "is_causal":
        i = torch.tensor(rows, device="cuda").view(-1, 1)
        j = torch.arange(op["seq_kv"], device="cuda").view(1, -1)
        scores = scores.masked_fill(j > i, float("-inf"))
    probs = torch.softmax(scores, dim=-1).nan_to_num(0.0)
    return probs @ v[b, 0].float()


def attention_operand(torch, gen, case, name, dtype):
    """Operand `name` ("q", "k", "v") of a case, of dtype (SDPA's): values
    uniform in [-1, 1); an e4m3 operand's rounded to e4m3 and dequantised:
    times its descale when the op has one (drawn in E4M3_DESCALE_RANGE,
    kgen's range), rounded to dtype."""
    x = uniform(torch, case["q_shape" if name == "q" else "kv_shape"], gen)
    if name in case["e4m3"]:
        lo, hi = E4M3_DESCALE_RANGE
        scale = 1.0
        if case["op"].get(f"{name}_descale"):
            scale = lo + (hi - lo) * torch.rand(1, generator=gen, device="cuda").item()
        x = x.float().to(torch.float8_e4m3fn).float() * scale
    return x.to(dtype)


def case_label(case):
    """What the log says after a case's name when SDPA does not run its op
    as given: " (contiguous cache, K and V dequantised to bf16)"."""
    notes = ["contiguous cache"] if case["op"].get("paged") else []
    if case.get("e4m3"):
        notes.append(f'{operand_list(case["e4m3"])} dequantised from e4m3 '
                     f'to {case["sdpa_type"]}')
    return f' ({", ".join(notes)})' if notes else ""


def run_attention_suite(torch, timer, cases, ceilings, gen, log):
    """Every case under each of ATTENTION_BACKENDS (module docstring)."""
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    results = []

    def labelled(result, case):
        """A result with its case's comment (the contiguous cache of a
        paged op, the dequantised operands of an e4m3 one), when it has
        one."""
        return dict(result, comment=case["comment"]) if case.get("comment") else result

    for case in cases:
        op = case["op"]
        impls = [(name, f"torch-sdpa-{name}") for name in ATTENTION_BACKENDS]
        if case["unsupported"]:
            for _, impl in impls:
                results.append(labelled(make_result(case["name"], impl, op, "skipped",
                                                    case["unsupported"]), case))
                log(f'{impl} {case["name"]}: skipped: {case["unsupported"]}')
            continue
        dtype = {"bf16": torch.bfloat16, "f16": torch.float16,
                 "f32": torch.float32}[case["sdpa_type"]]
        try:
            q, k, v = (attention_operand(torch, gen, case, name, dtype)
                       for name in ("q", "k", "v"))
            mask = attention_mask(torch, case) if case["mask"] == "explicit" else None
        except Exception as e:  # noqa: BLE001 - out of memory: reported
            for _, impl in impls:
                results.append(labelled(make_result(
                    case["name"], impl, op, "launch_failed",
                    f"inputs: {type(e).__name__}: {e}"[:2000]), case))
            q = k = v = mask = None
            torch.cuda.empty_cache()
            continue
        scale = op.get("scale")

        def call():
            return F.scaled_dot_product_attention(
                q, k, v, attn_mask=mask, is_causal=case["mask"] == "is_causal",
                scale=scale, enable_gqa=op["q_heads"] != op["kv_heads"])

        def check():
            rows = check_rows(op["seq_q"])
            group = op["q_heads"] // op["kv_heads"]
            out, sq_err, sq_ref = call(), 0.0, 0.0
            for b in check_sequences(case["kv_lens"], op["batch"]):
                ref = attention_suite_reference(torch, case, q, k, v, mask, b, rows)
                got = out[b, :group, rows].float()
                if torch.isnan(got).any():
                    return float("inf")
                sq_err += torch.linalg.vector_norm(got - ref).item() ** 2
                sq_ref += torch.linalg.vector_norm(ref).item() ** 2
            return math.sqrt(sq_err / sq_ref) if sq_ref > 0 else 0.0

        for name, impl in impls:
            member = getattr(SDPBackend, SDPA_BACKEND_ENUM[name])
            r = make_result(case["name"], impl, op)
            results.append(labelled(run_backend(r, lambda: sdpa_kernel(member), call,
                                                check, timer.time, SDPA_TOLERANCE,
                                                case["work"], ceilings), case))
            log(f'{impl} {case["name"]}{case_label(case)}: {results[-1]["status"]} '
                f'{results[-1]["reason"][:200]}')
        del q, k, v, mask
        torch.cuda.empty_cache()
    return results


MOE_TORCH_DTYPES = {"bf16": "bfloat16", "f16": "float16", "f32": "float32"}
E4M3_MAX = 448.0            # the largest finite f8E4M3FN
E4M3_MIN_AMAX = 1e-4        # act_quant's floor on a block's amax (kgen.moe)


def moe_activation(torch, name):
    """kgen's activation (gelu is the tanh form) as a function of a tensor."""
    import torch.nn.functional as F
    return {"silu": F.silu, "relu": F.relu,
            "gelu": lambda v: F.gelu(v, approximate="tanh")}[name]


def moe_route(torch, logits, op, bias=None):
    """kgen.moe_route in f32 (dialect/KgenOps.td): scores s, the softmax
    of the logits or (scoring sigmoid) each logit's sigmoid; choice scores
    c = s + bias (correction_bias) or s; with n_group groups of experts,
    only those of the topk_group best groups (a group scored by the sum of
    its two best c with a bias, its best c without); the top_k experts by
    c, their weights s, divided by their sum with renormalize, times
    routed_scaling_factor. -> (weights [T, k] f32, expert ids [T, k])."""
    logits = logits.float()
    if op.get("scoring", "softmax") == "sigmoid":
        s = torch.sigmoid(logits)
    else:
        s = torch.softmax(logits, dim=-1)
    c = s if bias is None else s + bias
    groups, kept = op.get("n_group", 1), op.get("topk_group", 1)
    if kept < groups:
        t, e = c.shape
        grouped = c.view(t, groups, e // groups)
        score = grouped.topk(2, dim=-1).values.sum(-1) if bias is not None \
            else grouped.amax(dim=-1)
        best = score.topk(kept, dim=-1).indices
        keep = torch.zeros_like(score, dtype=torch.bool).scatter_(1, best, True)
        c = c.masked_fill(~keep.repeat_interleave(e // groups, dim=1), float("-inf"))
    ids = torch.topk(c, op["top_k"], dim=-1).indices
    weights = s.gather(1, ids)
    if op.get("renormalize"):
        weights = weights / weights.sum(dim=-1, keepdim=True)
    return weights * float(op.get("routed_scaling_factor", 1.0)), ids


def moe_route_plain(op, logits, bias=None):
    """kgen.moe_route for one token in Python floats, straight from its
    definition (the CPU check's second opinion on moe_route): (ids, weights)."""
    if op.get("scoring", "softmax") == "sigmoid":
        s = [1 / (1 + math.exp(-v)) for v in logits]
    else:
        top = max(logits)
        s = [math.exp(v - top) for v in logits]
        s = [v / sum(s) for v in s]
    c = [v + (bias[e] if bias is not None else 0.0) for e, v in enumerate(s)]
    groups, kept = op.get("n_group", 1), op.get("topk_group", 1)
    size = len(c) // groups

    def group_score(g):
        best = sorted(c[g * size:(g + 1) * size], reverse=True)
        return best[0] + best[1] if bias is not None else best[0]
    chosen = sorted(range(groups), key=lambda g: (-group_score(g), g))[:kept]
    eligible = [e for e in range(len(c)) if e // size in chosen]
    ids = sorted(eligible, key=lambda e: (-c[e], e))[:op["top_k"]]
    w = [s[e] for e in ids]
    if op.get("renormalize"):
        w = [v / sum(w) for v in w]
    return ids, [v * op.get("routed_scaling_factor", 1.0) for v in w]


def moe_permute(torch, x, ids, experts):
    """kgen.moe_permute: the copies of x's rows grouped by expert, in
    (token, slot) order. -> (permuted [T k, H], positions [T, k] of each
    copy, rows per expert [E], group ends [E] i32 as torch._grouped_mm
    takes them)."""
    k = ids.shape[1]
    flat = ids.reshape(-1)
    order = torch.sort(flat, stable=True).indices
    positions = torch.empty_like(order)
    positions[order] = torch.arange(order.numel(), device=order.device)
    counts = torch.bincount(flat, minlength=experts)
    return x[order // k], positions.view(-1, k), counts, \
        torch.cumsum(counts, 0).to(torch.int32)


def moe_combine(torch, expert_out, positions, weights, dtype_out, shared_out=None):
    """kgen.moe_combine: y[t] = sum_s weights[t, s] expert_out[positions[t, s]]
    in f32, plus the shared expert's row when there is one, rounded to
    dtype_out."""
    t, k = positions.shape
    rows = expert_out[positions.reshape(-1)].view(t, k, -1).float()
    y = (rows * weights.unsqueeze(-1)).sum(dim=1)
    if shared_out is not None:
        y = y + shared_out.float()
    return y.to(dtype_out)


def moe_gated(torch, op, gu):
    """act(gate) * up of a [rows, 2n] gate|up product."""
    n = gu.shape[-1] // 2
    return moe_activation(torch, op.get("activation", "silu"))(gu[:, :n]) * gu[:, n:]


def moe_shared(torch, inp, op):
    """The shared expert's output [T, H] (x's dtype; None without one): a
    dense gated FFN over every token (torch.matmul)."""
    if inp["ws13"] is None:
        return None
    return torch.matmul(moe_gated(torch, op, torch.matmul(inp["x"], inp["ws13"])), inp["wsd"])


def moe_loop(torch, inp, op, dtype_out):
    """The layer as a loop of per-expert torch.matmul (cuBLAS) calls over
    the experts with tokens; the group sizes are read on the host."""
    weights, ids = moe_route(torch, inp["logits"], op, inp["bias"])
    xp, positions, counts, _ = moe_permute(torch, inp["x"], ids, op["experts"])
    w13, wd = inp["w13"], inp["wd"]
    out = torch.empty((xp.shape[0], op["hidden"]), dtype=xp.dtype, device=xp.device)
    begin = 0
    for e, n in enumerate(counts.tolist()):
        if n == 0:
            continue
        h = moe_gated(torch, op, torch.matmul(xp[begin:begin + n], w13[e]))
        torch.matmul(h, wd[e], out=out[begin:begin + n])
        begin += n
    return moe_combine(torch, out, positions, weights, dtype_out, moe_shared(torch, inp, op))


def moe_grouped(torch, inp, op, dtype_out):
    """The layer with torch._grouped_mm for the expert GEMMs (no host sync)."""
    weights, ids = moe_route(torch, inp["logits"], op, inp["bias"])
    xp, positions, _, ends = moe_permute(torch, inp["x"], ids, op["experts"])
    h = moe_gated(torch, op, torch._grouped_mm(xp, inp["w13"], offs=ends))
    out = torch._grouped_mm(h, inp["wd"], offs=ends)
    return moe_combine(torch, out, positions, weights, dtype_out, moe_shared(torch, inp, op))


def moe_quantise_rows(torch, a):
    """a [M, K] as e4m3 with one f32 scale per row, amax / 448 (floored as
    act_quant floors a block's): (codes [M, K], scales [M, 1])."""
    amax = a.abs().amax(dim=-1, keepdim=True).float()
    scale = torch.clamp(amax, min=E4M3_MIN_AMAX) / E4M3_MAX
    return (a.float() / scale).to(torch.float8_e4m3fn), scale


def moe_scaled_mm(torch, q, scale, w_q, w_scale, dtype):
    """torch._scaled_mm with row-wise scales: the e4m3 rows q [M, K] (scales
    [M, 1]) times the e4m3 weight w_q [N, K] (scales [1, N] per output
    column) -> [M, N] of dtype."""
    return torch._scaled_mm(q, w_q.t(), scale_a=scale, scale_b=w_scale, out_dtype=dtype)


def moe_fp8_rowwise(torch, inp, op, dtype_out):
    """The layer as a loop of per-expert torch._scaled_mm calls on e4m3
    operands with row-wise scales: the token copies quantised per row once,
    each expert's a per row; the weights as moe_inputs requantised them
    (one scale per output column); the shared expert the same way."""
    weights, ids = moe_route(torch, inp["logits"], op, inp["bias"])
    xp, positions, counts, _ = moe_permute(torch, inp["x"], ids, op["experts"])
    dtype = xp.dtype
    xq, xs = moe_quantise_rows(torch, xp)
    out = torch.empty((xp.shape[0], op["hidden"]), dtype=dtype, device=xp.device)
    begin = 0
    for e, n in enumerate(counts.tolist()):
        if n == 0:
            continue
        rows = slice(begin, begin + n)
        gu = moe_scaled_mm(torch, xq[rows], xs[rows], inp["w13_q"][e], inp["w13_s"][e], dtype)
        hq, hs = moe_quantise_rows(torch, moe_gated(torch, op, gu))
        out[rows] = moe_scaled_mm(torch, hq, hs, inp["wd_q"][e], inp["wd_s"][e], dtype)
        begin += n
    shared = None
    if inp["ws13_q"] is not None:
        sq, ss = moe_quantise_rows(torch, inp["x"])
        gu = moe_scaled_mm(torch, sq, ss, inp["ws13_q"], inp["ws13_s"], dtype)
        hq, hs = moe_quantise_rows(torch, moe_gated(torch, op, gu))
        shared = moe_scaled_mm(torch, hq, hs, inp["wsd_q"], inp["wsd_s"], dtype)
    return moe_combine(torch, out, positions, weights, dtype_out, shared)


def moe_reference(torch, inp, op, tokens):
    """The layer in f32 at the given token rows (the same routing): per
    expert hit, its rows' act(x w_gate) * (x w_up), times w_down, weighted;
    plus the shared expert's. On the weights as they stand for (block-scaled
    ones dequantised exactly), activations not quantised."""
    index = torch.tensor(tokens, device=inp["x"].device)
    weights, ids = moe_route(torch, inp["logits"][index], op, inp["bias"])
    xs = inp["x"][index].float()
    y = torch.zeros((len(tokens), op["hidden"]), dtype=torch.float32, device=xs.device)
    for e in torch.unique(ids).tolist():
        rows, slots = (ids == e).nonzero(as_tuple=True)
        h = moe_gated(torch, op, xs[rows] @ inp["w13"][e].float())
        y.index_add_(0, rows, weights[rows, slots].unsqueeze(-1) * (h @ inp["wd"][e].float()))
    if inp["ws13"] is not None:
        y += moe_gated(torch, op, xs @ inp["ws13"].float()) @ inp["wsd"].float()
    return y


def moe_block_scaled(torch, k, n, gen, device, dtype):
    """A [k, n] weight of fan-in k as DeepSeek-V3's checkpoint holds one: e4m3
    codes (uniform in [-448, 448) rounded) times an f32 scale per 128 x 128
    block, 2^b (8 + m) / 8 2^j with 2^b about 1 / (448 sqrt(k)), m in [0, 8)
    and j in {-1, 0, 1} drawn per block (the runtime's blockScales varies
    them the same way). Returns the weight dequantised, [k, n] of dtype
    (exact in bf16: a code's 4 significant bits times the scale's 4), and
    requantised for torch._scaled_mm: codes [n, k] with one scale per
    output column [1, n], the largest of the column's block scales (the
    blocks of smaller scale rounded to e4m3 again)."""
    codes = ((torch.rand((k, n), generator=gen, device=device) * 2 - 1) * E4M3_MAX) \
        .to(torch.float8_e4m3fn)
    base = 2.0 ** round(math.log2(1 / (E4M3_MAX * math.sqrt(k))))
    blocks = (moe_scale_blocks(k), moe_scale_blocks(n))
    m = torch.randint(0, 8, blocks, generator=gen, device=device).float()
    j = torch.randint(-1, 2, blocks, generator=gen, device=device).float()
    scale = base * (8 + m) / 8 * torch.exp2(j)
    full = scale.repeat_interleave(MOE_SCALE_BLOCK, 0)[:k] \
        .repeat_interleave(MOE_SCALE_BLOCK, 1)[:, :n]
    w = codes.float() * full
    column = full.amax(dim=0, keepdim=True)
    return w.to(dtype), (w / column).to(torch.float8_e4m3fn).t().contiguous(), column


def moe_ffn_inputs(torch, op, gen, device, dtype, count, inter):
    """`count` gated FFNs (count 0: one, without the expert dimension):
    w13 [.., H, 2 inter] (gate | up) and wd [.., inter, H] of dtype, and
    with block_scales their row-wise e4m3 forms (moe_block_scaled): w13_q
    [.., 2 inter, H], w13_s [.., 1, 2 inter], wd_q [.., H, inter], wd_s
    [.., 1, H]; else those four None. Plain weights are uniform scaled by
    1/sqrt(fan-in), so that the gate's activation is not saturated."""
    h = op["hidden"]
    lead = (count,) if count else ()
    if not op.get("block_scales"):
        def uniform_(shape, fan_in):
            bound = 1 / math.sqrt(fan_in)
            return torch.empty(lead + shape, dtype=dtype, device=device) \
                .uniform_(-bound, bound, generator=gen)
        return uniform_((h, 2 * inter), h), uniform_((inter, h), inter), None, None, None, None
    e4m3 = torch.float8_e4m3fn
    w13 = torch.empty(lead + (h, 2 * inter), dtype=dtype, device=device)
    wd = torch.empty(lead + (inter, h), dtype=dtype, device=device)
    w13_q = torch.empty(lead + (2 * inter, h), dtype=e4m3, device=device)
    w13_s = torch.empty(lead + (1, 2 * inter), dtype=torch.float32, device=device)
    wd_q = torch.empty(lead + (h, inter), dtype=e4m3, device=device)
    wd_s = torch.empty(lead + (1, h), dtype=torch.float32, device=device)
    for i in range(max(count, 1)):
        at = (i,) if count else ()
        for half in (slice(0, inter), slice(inter, 2 * inter)):   # gate, up
            w, q, column = moe_block_scaled(torch, h, inter, gen, device, dtype)
            w13[at][:, half], w13_q[at][half], w13_s[at][:, half] = w, q, column
        wd[at], wd_q[at], wd_s[at] = moe_block_scaled(torch, inter, h, gen, device, dtype)
    return w13, wd, w13_q, w13_s, wd_q, wd_s


def moe_inputs(torch, op, gen, device):
    """The layer's inputs on `device`: x [T, H] uniform in [-1, 1), logits
    [T, E] uniform in [-4, 4), the correction bias [E] f32 in [-1/8, 1/8)
    (None without), the routed experts' w13 [E, H, 2I] (gate | up) and wd
    [E, I, H] and the shared expert's ws13 [H, 2Is] and wsd [Is, H] (None
    without), of x's dtype (moe_ffn_inputs: e4m3 block-scaled weights
    dequantised), and with block_scales their row-wise e4m3 forms (w13_q,
    w13_s, wd_q, wd_s, ws13_q, ws13_s, wsd_q, wsd_s; else None)."""
    dtype = getattr(torch, MOE_TORCH_DTYPES[op["dtype"]])
    logits_dtype = getattr(torch, MOE_TORCH_DTYPES[op.get("logits_dtype") or "f32"])
    t, h, e = op["tokens"], op["hidden"], op["experts"]

    def uniform_(shape, dt, bound):
        return torch.empty(shape, dtype=dt, device=device).uniform_(-bound, bound, generator=gen)
    inp = {"x": uniform_((t, h), dtype, 1.0), "logits": uniform_((t, e), logits_dtype, 4.0),
           "bias": uniform_((e,), torch.float32, 1 / 8) if op.get("correction_bias") else None}
    names = ("w13", "wd", "w13_q", "w13_s", "wd_q", "wd_s")
    inp.update(zip(names, moe_ffn_inputs(torch, op, gen, device, dtype, e, op["inter"])))
    shared = op.get("shared_inter", 0)
    parts = moe_ffn_inputs(torch, op, gen, device, dtype, 0, shared) if shared else (None,) * 6
    inp.update(zip(("ws13", "wsd", "ws13_q", "ws13_s", "wsd_q", "wsd_s"), parts))
    return inp


def moe_routing_comment(op):
    """What the baselines' routing does, in words."""
    scoring = op.get("scoring", "softmax")
    parts = [f"{scoring} scores"]
    if op.get("correction_bias"):
        parts.append("chosen by score + correction bias")
    if op.get("topk_group", 1) < op.get("n_group", 1):
        parts.append(f"within the best {op['topk_group']} of {op['n_group']} expert groups")
    parts.append(f"top {op['top_k']}")
    if op.get("renormalize"):
        parts.append("renormalised")
    if op.get("routed_scaling_factor", 1.0) != 1.0:
        parts.append(f"times {op['routed_scaling_factor']:g}")
    return ", ".join(parts)


def moe_implementations(torch, op):
    """(implementation, function or None, why not, tolerance, comment) of
    MOE_BASELINES and, for block-scaled ops, MOE_FP8_BASELINE. The comment
    (each result's "comment") says what the baseline computes."""
    layer = (f"the whole layer from the router logits to y: routing in f32 "
             f"({moe_routing_comment(op)}), the token copies grouped by expert, the "
             f"expert GEMMs, the weighted combine in f32"
             + (", and the shared expert (a dense gated FFN over every token)"
                if op.get("shared_inter") else ""))
    scaled = bool(op.get("block_scales"))
    bf16 = ("; an upper-bandwidth bf16 baseline: kgen's e4m3 weights with 128x128 block "
            "scales, dequantised ahead of time (exactly) and read as bf16, twice kgen's "
            "weight bytes; activations not quantised") if scaled else ""
    grouped, why = moe_grouped, ""
    if not hasattr(torch, "_grouped_mm"):
        grouped = None
        why = (f"not available: torch {torch.__version__} has no torch._grouped_mm "
               "(torch 2.8 and later have it)")
    impls = [(MOE_BASELINES[0], moe_loop, "", MOE_TOLERANCE,
              f"per-expert torch.matmul (cuBLAS) loop; {layer}{bf16}"),
             (MOE_BASELINES[1], grouped, why, MOE_TOLERANCE,
              f"two torch._grouped_mm calls (gate|up, down); {layer}{bf16}")]
    if scaled:
        fp8, why = moe_fp8_rowwise, ""
        if not hasattr(torch, "_scaled_mm") or not hasattr(torch, "float8_e4m3fn"):
            fp8, why = None, f"not available: torch {torch.__version__} has no torch._scaled_mm"
        impls.append((MOE_FP8_BASELINE, fp8, why, MOE_FP8_TOLERANCE,
                      "per-expert torch._scaled_mm loop on e4m3 with row-wise scales: "
                      "each activation row quantised with one scale (amax / 448), the "
                      "weights requantised ahead of time to one scale per output column "
                      "(the largest of its 128x128 block scales); not DeepSeek-V3's 1x128 "
                      "activation and 128x128 weight blocks that kgen computes, so checked "
                      f"against the f32 layer at {MOE_FP8_TOLERANCE:g}; {layer}"))
    return impls


def moe_check(torch, fn, inp, op, tokens, ref, dtype_out):
    """The relative Frobenius error of fn's layer at `tokens` against `ref`."""
    got = fn(torch, inp, op, dtype_out)[tokens]
    return rel_error(torch, got, ref)


def run_moe_suite(torch, timer, cases, ceilings, gen, log, device="cuda"):
    """Every case under each of moe_implementations (module docstring),
    with inputs on `device`."""
    results = []
    for case in cases:
        op = case["op"]
        impls = moe_implementations(torch, op)
        dtype_out = getattr(torch, MOE_TORCH_DTYPES[op.get("dtype_out") or op["dtype"]])
        tokens = spread(op["tokens"], MOE_CHECK_TOKENS)
        try:
            inp = moe_inputs(torch, op, gen, device)
            ref = moe_reference(torch, inp, op, tokens)
        except Exception as e:  # noqa: BLE001 - out of memory: reported
            for impl, _, _, _, comment in impls:
                results.append(dict(make_result(case["name"], impl, op, "launch_failed",
                                                f"inputs: {type(e).__name__}: {e}"[:2000]),
                                    comment=comment))
            inp = ref = None
            torch.cuda.empty_cache()
            continue
        for impl, fn, why, tolerance, comment in impls:
            if fn is None:
                result = make_result(case["name"], impl, op, "skipped", why)
            else:
                def call(fn=fn):
                    return fn(torch, inp, op, dtype_out)

                def check(fn=fn):
                    return moe_check(torch, fn, inp, op, tokens, ref, dtype_out)
                result = judge_and_time(timer, make_result(case["name"], impl, op),
                                        call, check, tolerance, case["work"], ceilings)
            results.append(dict(result, comment=comment))
            log(f'{impl} {case["name"]}: {result["status"]} {result["reason"][:200]}')
        del inp, ref
        torch.cuda.empty_cache()
    return results


# The CPU check's layers: (T, H, I, E, k, renormalize, activation, DeepSeek
# fields). The DeepSeek ones with partial 128-blocks (H 192, Is 80) and
# dimensions that torch._scaled_mm takes (multiples of 16).
MOE_CPU_CASES = [
    (13, 64, 32, 6, 2, True, "silu", {}),
    (5, 32, 48, 16, 4, False, "gelu", {}),
    (1, 64, 16, 8, 8, True, "relu", {}),
    (21, 256, 128, 16, 4, True, "silu",
     {"scoring": "sigmoid", "correction_bias": True, "n_group": 4, "topk_group": 2,
      "routed_scaling_factor": 2.5, "shared_inter": 128, "weight_dtype": "f8E4M3FN",
      "block_scales": True}),
    (7, 192, 96, 32, 8, True, "silu",
     {"scoring": "sigmoid", "correction_bias": True, "n_group": 8, "topk_group": 4,
      "routed_scaling_factor": 2.5, "shared_inter": 80, "weight_dtype": "f8E4M3FN",
      "block_scales": True}),
    (9, 64, 32, 12, 3, False, "silu", {"n_group": 3, "topk_group": 2, "shared_inter": 48}),
]


def moe_cpu_check(log):
    """Every baseline and the reference at small sizes on the CPU (no GPU),
    the routing also against moe_route_plain at every token: 0 when every
    relative error is within its tolerance and the routing agrees, else 1."""
    import torch
    gen = torch.Generator()
    gen.manual_seed(1)
    failed = 0
    for t, h, i, e, k, renorm, act, extra in MOE_CPU_CASES:
        op = {"kind": "moe", "tokens": t, "hidden": h, "inter": i, "experts": e,
              "top_k": k, "renormalize": renorm, "activation": act, "dtype": "bf16",
              "logits_dtype": "f32", "dtype_out": "bf16", **extra}
        inp = moe_inputs(torch, op, gen, "cpu")
        tokens = spread(t, MOE_CHECK_TOKENS)
        ref = moe_reference(torch, inp, op, tokens)
        weights, ids = moe_route(torch, inp["logits"], op, inp["bias"])
        bias = inp["bias"].tolist() if inp["bias"] is not None else None
        routed = 0
        for row in range(t):
            want_ids, want_w = moe_route_plain(op, inp["logits"][row].tolist(), bias)
            routed += ids[row].tolist() == want_ids and all(
                abs(a - b) <= 1e-5 * abs(b) for a, b in zip(weights[row].tolist(), want_w))
        failed += routed != t
        line = (f"T={t} H={h} I={i} E={e} k={k} {act}{' renormalize' if renorm else ''}"
                f"{' ' + moe_routing_comment(op) if extra else ''}"
                f"{' shared ' + str(op['shared_inter']) if op.get('shared_inter') else ''}"
                f"{' e4m3 block-scaled' if op.get('block_scales') else ''}: "
                f"routing {routed}/{t}")
        for impl, fn, why, tolerance, _ in moe_implementations(torch, op):
            if fn is None:
                line += f" {impl} {why}"
                continue
            err = moe_check(torch, fn, inp, op, tokens, ref, torch.bfloat16)
            failed += not err <= tolerance
            line += f" {impl} {err:.1e}"
        log(line)
    return 1 if failed else 0


def package_ops(pkg_dir):
    """(dir, op) of the packages under pkg_dir, in the order the device check
    hands them to kgen-bench run (paths sorted bytewise, LC_ALL=C)."""
    out = []
    for name in sorted(os.listdir(pkg_dir)):
        manifest = os.path.join(pkg_dir, name, "manifest.json")
        if os.path.isfile(manifest):
            with open(manifest) as f:
                out.append((os.path.join(pkg_dir, name), json.load(f)["op"]))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite")
    parser.add_argument("--out")
    parser.add_argument("--ceilings", help="ceilings file from kgen-bench ceilings")
    parser.add_argument("--no-triton", action="store_true")
    parser.add_argument("--attention-suite", metavar="F",
                        help="a kgen.attention-suite file: SDPA (cuDNN, flash) per entry")
    parser.add_argument("--attention-packages", metavar="DIR",
                        help="the kgen attention packages kgen-bench run measured: only "
                        "their ops, with the kv_lens that run drew")
    parser.add_argument("--kv-lens-seed", type=int, default=1,
                        help="kgen-bench run's --seed for those packages (default 1)")
    parser.add_argument("--attention-only", action="store_true",
                        help="with --attention-suite: no GEMMs, no --suite")
    parser.add_argument("--moe-suite", metavar="F",
                        help="a kgen.moe-suite file: the cuBLAS loop and torch._grouped_mm "
                        "per entry (block-scaled ones: also the fp8 row-wise loop)")
    parser.add_argument("--moe-packages", metavar="DIR",
                        help="the kgen moe packages kgen-bench run measured: only their ops")
    parser.add_argument("--moe-device-check", action="store_true",
                        help="only the entries of the moe suite's device_check list")
    parser.add_argument("--moe-only", action="store_true",
                        help="with --moe-suite: no GEMMs, no --suite")
    parser.add_argument("--moe-cpu-check", action="store_true",
                        help="check the moe baselines against f32 at small sizes on the "
                        "CPU (torch, no GPU) and exit")
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
    if args.moe_cpu_check:
        return moe_cpu_check(log)
    only = args.attention_only or args.moe_only
    if not args.out or not (args.suite or only):
        parser.error("--suite (or --attention-only, --moe-only) and --out are required")
    if args.attention_only and not args.attention_suite:
        parser.error("--attention-only needs --attention-suite")
    if args.moe_only and not args.moe_suite:
        parser.error("--moe-only needs --moe-suite")
    if args.moe_packages and args.moe_device_check:
        parser.error("--moe-packages and --moe-device-check both pick entries: give one")
    try:
        suite = load_suite(args.suite) if not only else None
        cases = []
        if args.attention_suite:
            entries = load_attention_suite(args.attention_suite)
            packages = package_ops(args.attention_packages) \
                if args.attention_packages else None
            cases = attention_cases(entries, packages, args.kv_lens_seed)
            if packages is not None and not cases:
                raise ValueError(f"no package under {args.attention_packages} has "
                                 f"the op of an entry of {args.attention_suite}")
        moe = []
        if args.moe_suite:
            packages = package_ops(args.moe_packages) if args.moe_packages else None
            moe = moe_cases(load_moe_suite(args.moe_suite), packages, args.moe_device_check)
            if packages is not None and not moe:
                raise ValueError(f"no package under {args.moe_packages} has the op of "
                                 f"an entry of {args.moe_suite}")
        ceilings = None
        if args.ceilings:
            with open(args.ceilings) as f:
                ceilings = json.load(f).get("ceilings")
    except (OSError, ValueError, KeyError, TypeError) as e:
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
    if suite is not None:
        results += run_gemms(torch, timer, suite, ceilings, not args.no_triton,
                             gen, log)
        write_atomic(args.out, make_document(device, ceilings, results))
        results += run_attention(torch, timer, suite, ceilings, gen, log)
        write_atomic(args.out, make_document(device_info(torch), ceilings, results))
    if cases:
        results += run_attention_suite(torch, timer, cases, ceilings, gen, log)
        write_atomic(args.out, make_document(device_info(torch), ceilings, results))
    if moe:
        results += run_moe_suite(torch, timer, moe, ceilings, gen, log)
        write_atomic(args.out, make_document(device_info(torch), ceilings, results))
    failed = [r for r in results if r["status"] not in ("ok", "skipped")]
    for r in failed:
        log(f'{r["implementation"]} {r["name"]}: {r["status"]}: {r["reason"]}')
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
