#!/usr/bin/env python3
"""Independent numpy reference of kgen's DeepSeek-style MoE extensions.

Written from the semantics in dialect/KgenOps.td (kgen.moe_route, kgen.moe),
not from the C++ lowering: sigmoid scoring, the correction bias (which only
chooses), group-limited top-k, the routed scaling factor, the shared expert
and e4m3 weights with 128 x 128 block scales (activations quantised per
token and 128 columns as DeepSeek-V3's act_quant does). Inputs are exact in
their element type; the routing and the GEMM sums are float64; the
activation quantisation is computed in float32 exactly as defined (amax,
the f32 scale and the f32 division are exact operations, so q is the same
bits); every rounding KgenOps.td names is applied.

    deepseek_moe.py route --dir D --seed N [--t T --e E --top-k K ...]
        writes logits.npy [, bias.npy], expected0.npy (ids), expected1.npy.
    deepseek_moe.py moe --dir D --seed N [shapes, --e4m3, --shared IS ...]
        writes x, logits, wg, wu, wd [, sg, su, sd] [, bias]
        [, wsg, wsu, wsd [, ssg, ssu, ssd]] (.npy, in the op's operand
        order) and expected0.npy; inputs.txt lists them comma-separated.

Ties are made on purpose: the bias is equal within pairs of groups and for
the first two experts of each group, and every other token copies one
group's logits into its pair's and puts that pair at the edge of the kept
groups (the lower group index must win), and gives two experts of a strong
group the same logit (the lower expert index must come first).
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import act, rnd  # noqa: E402

BLOCK = 128


def route(logits, scoring, bias, top_k, renormalize, n_group, topk_group,
          scale):
    """(ids [T, k] int32, weights [T, k] float64): kgen.moe_route."""
    x = np.asarray(logits, dtype=np.float64)
    if scoring == "softmax":
        s = np.exp(x - x.max(axis=1, keepdims=True))
        s = s / s.sum(axis=1, keepdims=True)
    else:
        s = 1.0 / (1.0 + np.exp(-x))
    c = s + bias if bias is not None else s
    T, E = c.shape
    if n_group > 1:
        cg = c.reshape(T, n_group, E // n_group)
        if bias is not None:  # the sum of the two largest
            gscore = np.sort(cg, axis=2)[:, :, -2:].sum(axis=2)
        else:
            gscore = cg.max(axis=2)
        kept = np.argsort(-gscore, axis=1, kind="stable")[:, :topk_group]
        keep = np.zeros((T, n_group), dtype=bool)
        np.put_along_axis(keep, kept, True, axis=1)
        c = np.where(np.repeat(keep, E // n_group, axis=1), c, -np.inf)
    ids = np.argsort(-c, axis=1, kind="stable")[:, :top_k]
    w = np.take_along_axis(s, ids, axis=1)
    if renormalize:
        w = w / w.sum(axis=1, keepdims=True)
    return ids.astype(np.int32), w * float(np.float32(scale))


def quantise(a):
    """Rows of `a` ([R, K], exact in f32) quantised per 128 columns:
    (q [R, K] e4m3 values, s [R, ceil(K/128)]), both float64."""
    a32 = np.asarray(a, dtype=np.float32)
    R, K = a32.shape
    nb = -(-K // BLOCK)
    q = np.zeros((R, K))
    s = np.zeros((R, nb))
    for b in range(nb):
        blk = a32[:, b * BLOCK:(b + 1) * BLOCK]
        amax = np.maximum(np.abs(blk).max(axis=1), np.float32(1e-4))
        sb = (amax / np.float32(448.0)).astype(np.float32)
        q[:, b * BLOCK:(b + 1) * BLOCK] = rnd(
            (blk / sb[:, None]).astype(np.float32).astype(np.float64),
            "f8E4M3FN")
        s[:, b] = sb
    return q, s


def matmul(a, w, scale):
    """a [R, K] @ w [K, N]; with `scale` ([ceil(K/128), ceil(N/128)]) the
    block-scaled e4m3 product of KgenOps.td."""
    if scale is None:
        return a @ w
    q, sa = quantise(a)
    N = w.shape[1]
    acc = np.zeros((a.shape[0], N))
    for b in range(sa.shape[1]):
        ks = slice(b * BLOCK, (b + 1) * BLOCK)
        sw = np.repeat(scale[b], BLOCK)[:N]
        acc += (q[:, ks] @ w[ks]) * (sa[:, b:b + 1] * sw[None, :])
    return acc


def expert(x, wg, wu, wd, sg, su, sd, dtype, activation):
    """The gated FFN of one expert on rows x, with kgen.moe's roundings."""
    a = rnd(act(matmul(x, wg, sg), activation) * matmul(x, wu, su), dtype)
    return rnd(matmul(a, wd, sd), dtype)


def moe(x, logits, ws, scales, shared, shared_scales, dtype, out, activation,
        **routing):
    ids, w = route(logits, **routing)
    y = np.zeros(x.shape)
    for t in range(x.shape[0]):
        for s in range(ids.shape[1]):
            e = ids[t, s]
            sc = [None] * 3 if scales is None else [m[e] for m in scales]
            y[t] += w[t, s] * expert(x[t:t + 1], *(m[e] for m in ws), *sc,
                                     dtype, activation)[0]
    if shared is not None:
        sc = [None] * 3 if shared_scales is None else shared_scales
        y += expert(x, *shared, *sc, dtype, activation)
    return rnd(y, out)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("op", choices=["route", "moe"])
    p.add_argument("--dir", required=True)
    p.add_argument("--seed", type=int, default=1)
    for dim, default in (("t", 8), ("h", 32), ("i", 16), ("e", 16),
                         ("top-k", 4), ("n-group", 1), ("topk-group", 1),
                         ("shared", 0)):
        p.add_argument("--" + dim, type=int, default=default)
    p.add_argument("--dtype", default="bf16")
    p.add_argument("--out", help="result type (default: --dtype)")
    p.add_argument("--scoring", default="sigmoid")
    p.add_argument("--act", default="silu")
    p.add_argument("--scale", type=float, default=1.0,
                   help="routed_scaling_factor")
    for flag in ("bias", "renormalize", "e4m3"):
        p.add_argument("--" + flag, action="store_true")
    args = p.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    names = []

    def save(name, arr, listed=True):
        np.save(os.path.join(args.dir, name + ".npy"), arr)
        if listed:
            names.append(os.path.join(args.dir, name + ".npy"))

    def inp(name, shape, dtype, lo=-1.0, hi=1.0):
        v = rnd(rng.uniform(lo, hi, size=shape), dtype)
        save(name, v.astype(np.float32))
        return v

    T, E, G = args.t, args.e, args.n_group
    gs = E // G
    logits = rnd(rng.uniform(-4, 4, size=(T, E)), "f32")
    bias = None
    if args.bias:
        bias = rnd(rng.uniform(-0.2, 0.2, size=E), "f32")
        if G > 1 and G % 2 == 0:  # pairs of groups share their biases
            b = bias.reshape(G // 2, 2, gs)
            b[:, 1] = b[:, 0]
        if gs >= 2:  # the first two experts of a group: the largest bias
            bias.reshape(G, gs)[:, :2] = 0.25
    for t in range(0, T, 2):
        row = logits[t]
        strong = 0  # the group whose first two experts tie, high
        if G > 1 and G % 2 == 0 and args.topk_group < G:
            # Groups 2j and 2j + 1 identical, at the edge of the kept ones:
            # topk_group - 1 groups above them, the rest below.
            j = (t // 2) % (G // 2)
            pair = (2 * j, 2 * j + 1)
            others = [g for g in range(G) if g not in pair]
            for rank, g in enumerate(others):
                shift = 3.0 if rank < args.topk_group - 1 else -3.0
                row[g * gs:(g + 1) * gs] = np.clip(
                    row[g * gs:(g + 1) * gs] + shift, -8, 8)
            # The pair: low but for one top expert, which must be chosen
            # from the lower group.
            lo = pair[0] * gs
            row[lo:lo + gs] = np.clip(row[lo:lo + gs] - 3.0, -8, 8)
            row[lo] = 9.0
            row[pair[1] * gs:(pair[1] + 1) * gs] = row[lo:lo + gs]
            strong = others[0] if args.topk_group > 1 else pair[0]
        if gs >= 2:  # two experts tie, high (and with the pair's top one)
            row[strong * gs] = row[strong * gs + 1] = 9.0
    routing = dict(scoring=args.scoring, bias=bias, top_k=args.top_k,
                   renormalize=args.renormalize, n_group=G,
                   topk_group=args.topk_group, scale=args.scale)

    if args.op == "route":
        save("logits", logits.astype(np.float32))
        if bias is not None:
            save("bias", bias.astype(np.float32))
        ids, w = route(logits, **routing)
        save("expected0", ids, listed=False)
        save("expected1", rnd(w, "f32").astype(np.float32), listed=False)
    else:
        H, I, Is = args.h, args.i, args.shared
        wdt = "f8E4M3FN" if args.e4m3 else args.dtype
        nb = lambda n: -(-n // BLOCK)
        x = inp("x", (T, H), args.dtype)
        save("logits", logits.astype(np.float32))
        ws = [inp("wg", (E, H, I), wdt), inp("wu", (E, H, I), wdt),
              inp("wd", (E, I, H), wdt)]
        scales = None
        if args.e4m3:
            scales = [inp("sg", (E, nb(H), nb(I)), "f32", 0.02, 0.1),
                      inp("su", (E, nb(H), nb(I)), "f32", 0.02, 0.1),
                      inp("sd", (E, nb(I), nb(H)), "f32", 0.02, 0.1)]
        if bias is not None:
            save("bias", bias.astype(np.float32))
        shared = shared_scales = None
        if Is:
            shared = [inp("wsg", (H, Is), wdt), inp("wsu", (H, Is), wdt),
                      inp("wsd", (Is, H), wdt)]
            if args.e4m3:
                shared_scales = [inp("ssg", (nb(H), nb(Is)), "f32", 0.02, 0.1),
                                 inp("ssu", (nb(H), nb(Is)), "f32", 0.02, 0.1),
                                 inp("ssd", (nb(Is), nb(H)), "f32", 0.02, 0.1)]
        y = moe(x, logits, ws, scales, shared, shared_scales, args.dtype,
                args.out or args.dtype, args.act, **routing)
        save("expected0", y.astype(np.float32), listed=False)
    with open(os.path.join(args.dir, "inputs.txt"), "w") as f:
        f.write(",".join(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
