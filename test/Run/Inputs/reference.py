#!/usr/bin/env python3
"""Independent numpy reference of the kgen ops, for the tests in test/Run.

Written from the semantics in dialect/KgenOps.td, not from the C++ lowering:
inputs are rounded to their element type as kgen-run rounds them (to nearest,
ties to even), all arithmetic is float64, and each result is rounded once to
its element type (plus the intermediate roundings that KgenOps.td names).

    reference.py gen OP --dir D --seed N [shape options]
        writes the inputs (<name>.npy, float32 values exact in the target
        type; int32 for ids, offsets and lengths) and expected<I>.npy, the
        reference value of result I (float32, or int16/int8 bit patterns).
    reference.py selftest
        cross-checks the bit-level rounding against independent methods.
"""
import argparse
import math
import os
import sys
from collections import namedtuple

import numpy as np

# ---------------------------------------------------------------------------
# Narrow float formats, rounded with integer bit manipulation.
# ---------------------------------------------------------------------------

# mant: explicit mantissa bits; bias: exponent bias; max_code: largest finite
# magnitude code; overflow_code: what larger magnitudes become (infinity, or
# the largest finite value for the saturating f8E4M3FN); nan_code: the quiet
# NaN produced; ieee: all-ones exponent means inf/NaN (else only 0x7F is NaN).
Format = namedtuple("Format", "bits mant bias max_code overflow_code nan_code ieee")
FORMATS = {
    "bf16": Format(16, 7, 127, 0x7F7F, 0x7F80, 0x7FC0, True),
    "f16": Format(16, 10, 15, 0x7BFF, 0x7C00, 0x7E00, True),
    "f8E4M3FN": Format(8, 3, 7, 0x7E, 0x7E, 0x7F, False),
}
U = np.uint64


def encode(x, fmt):
    """Codes (uint64) of float64 `x` rounded to nearest-even in `fmt`."""
    f = FORMATS[fmt] if isinstance(fmt, str) else fmt
    bits = np.ascontiguousarray(x, dtype=np.float64).view(np.uint64)
    sign = bits >> U(63)
    mag = bits & U(0x7FFF_FFFF_FFFF_FFFF)

    # Normal results: round the 52-bit fraction to `mant` bits by adding
    # half an ulp minus one plus the kept lsb (ties to even); a carry runs
    # into the exponent as it should. Then rebias the exponent field.
    drop = U(52 - f.mant)
    lsb = (mag >> drop) & U(1)
    rounded = (mag + (U(1) << (drop - U(1))) - U(1) + lsb) >> drop
    rebias = U((1023 - f.bias) << f.mant)
    normal = np.where(rounded >= rebias, rounded - rebias, U(0))

    # Subnormal results (|x| below the smallest normal 2^(1-bias)): count
    # quanta of 2^(1-bias-mant). |x| = sig * 2^(e - 1075).
    e = (mag >> U(52)).astype(np.int64)
    sig = (mag & U((1 << 52) - 1)) | np.where(e > 0, U(1 << 52), U(0))
    shift = np.clip(1076 - f.bias - f.mant - np.maximum(e, 1), 1, 63).astype(np.uint64)
    q = sig >> shift
    rem = sig & ((U(1) << shift) - U(1))
    half = U(1) << (shift - U(1))
    q = q + ((rem > half) | ((rem == half) & ((q & U(1)) == U(1)))).astype(np.uint64)

    min_normal = U((1023 + 1 - f.bias) << 52)
    code = np.where(mag < min_normal, q, normal)
    code = np.where(code > U(f.max_code), U(f.overflow_code), code)
    code = np.where(mag > U(0x7FF0_0000_0000_0000), U(f.nan_code), code)
    return code | (sign << U(f.bits - 1))


def decode(code, fmt):
    """float64 values of codes of `fmt`."""
    f = FORMATS[fmt]
    code = np.asarray(code).astype(np.int64) & ((1 << f.bits) - 1)
    neg = (code >> (f.bits - 1)) == 1
    mag = code & ((1 << (f.bits - 1)) - 1)
    e, m = mag >> f.mant, mag & ((1 << f.mant) - 1)
    val = np.where(e == 0, np.ldexp(m.astype(np.float64), 1 - f.bias - f.mant),
                   np.ldexp((m | (1 << f.mant)).astype(np.float64),
                            (e - f.bias - f.mant).astype(np.int32)))
    if f.ieee:
        top = e == (1 << (f.bits - 1 - f.mant)) - 1
        val = np.where(top & (m == 0), np.inf, val)
        val = np.where(top & (m != 0), np.nan, val)
    else:
        val = np.where(mag == (1 << (f.bits - 1)) - 1, np.nan, val)
    return np.where(neg, -val, val)


def rnd(x, dtype):
    """float64 `x` rounded to `dtype` (f32, f16, bf16, f8E4M3FN; f64 as is)."""
    x = np.asarray(x, dtype=np.float64)
    if dtype == "f64":
        return x
    if dtype == "f32":
        return x.astype(np.float32).astype(np.float64)
    return decode(encode(x, dtype), dtype)


def round_by_value(x, fmt):
    """Cross-check of rnd: scale to a count of quanta and np.rint it."""
    f = FORMATS[fmt]
    x = np.asarray(x, dtype=np.float64)
    _, ex = np.frexp(x)  # |x| in [2^(ex-1), 2^ex)
    quantum = np.ldexp(1.0, np.maximum(ex - 1, 1 - f.bias) - f.mant)
    r = np.rint(x / quantum) * quantum
    big = float(decode(f.max_code, fmt))
    over = np.inf if f.ieee else big
    r = np.where(np.abs(r) > big, np.copysign(over, x), r)
    return np.where(np.isnan(x), np.nan, r)


# ---------------------------------------------------------------------------
# The ops (dialect/KgenOps.td).
# ---------------------------------------------------------------------------

def act(x, kind):
    if kind == "relu":
        return np.maximum(x, 0.0)
    if kind == "gelu":  # tanh form
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    if kind == "silu":
        return x / (1 + np.exp(-x))
    return x


def f32(v):
    """An F32Attr's value."""
    return float(np.float32(v))


def gemm(a, b, dtype, out, bias=None, c=None, epi_dtype=None, ta=False,
         tb=False, alpha=1.0, beta=None, activation="none", acc="f32"):
    """D = act(alpha * op(A) op(B) + beta * C + bias); B may lack the batch."""
    epi_dtype = epi_dtype or out
    a, b = rnd(a, dtype), rnd(b, dtype)
    if ta:
        a = np.swapaxes(a, -1, -2)
    if tb:
        b = np.swapaxes(b, -1, -2)
    if acc == "f16":  # the running sum is rounded to f16 after every step
        s = np.zeros(a.shape[:-1] + b.shape[-1:])
        for k in range(a.shape[-1]):
            s = rnd(s + a[..., :, k:k + 1] * b[..., k:k + 1, :], "f16")
    else:
        s = a @ b
    d = f32(alpha) * s
    if c is not None:
        d = d + (1.0 if beta is None else f32(beta)) * rnd(c, epi_dtype)
    if bias is not None:
        d = d + rnd(bias, epi_dtype)
    return rnd(act(d, activation), out)


def attention(q, k, v, dtype, out, scale=None, causal=False, window=None,
              softcap=None, kv_lens=None, left=None, right=None, slopes=None):
    """(O, lse): softmax(scale Q K^T - alibi + mask) V, bottom-right causal,
    GQA; `window` hides j <= p - window, `left` j < p - left, `right`
    j > p + right; `slopes` (per query head) subtract slope * |p - j|."""
    q, k, v = rnd(q, dtype), rnd(k, dtype), rnd(v, dtype)
    B, Hq, Sq, D = q.shape
    Hkv, Skv = k.shape[1], k.shape[2]
    scale = f32(1 / math.sqrt(D)) if scale is None else f32(scale)
    o = np.zeros(q.shape)
    lse = np.full((B, Hq, Sq), -np.inf)
    j = np.arange(Skv)[None, :]
    for bi in range(B):
        L = Skv if kv_lens is None else int(np.clip(kv_lens[bi], 0, Skv))
        p = np.arange(Sq)[:, None] + L - Sq  # position of each query
        visible = np.repeat(j < L, Sq, axis=0)  # [Sq, Skv]
        if causal:
            visible = visible & (j <= p)
        if window is not None:
            visible = visible & (j > p - window)
        if left is not None:
            visible = visible & (j >= p - left)
        if right is not None:
            visible = visible & (j <= p + right)
        for h in range(Hq):
            kv = h // (Hq // Hkv)
            s = scale * (q[bi, h] @ k[bi, kv].T)
            if softcap is not None:
                c = f32(softcap)
                s = c * np.tanh(s / c)
            if slopes is not None:
                s = s - slopes[h] * np.abs(p - j)
            s = np.where(visible, s, -np.inf)
            for i in range(Sq):
                if not visible[i].any():
                    continue
                m = s[i].max()
                e = np.exp(s[i] - m)
                o[bi, h, i] = (e / e.sum()) @ v[bi, kv]
                lse[bi, h, i] = m + math.log(e.sum())
    return rnd(o, out), rnd(lse, "f32")


def moe_route(logits, dtype, top_k, renormalize=False):
    """(expert_ids, weights): top-k of softmax, ties to the lower index."""
    x = rnd(logits, dtype)
    p = np.exp(x - x.max(axis=1, keepdims=True))
    p = p / p.sum(axis=1, keepdims=True)
    ids = np.argsort(-p, axis=1, kind="stable")[:, :top_k]
    w = np.take_along_axis(p, ids, axis=1)
    if renormalize:
        w = w / w.sum(axis=1, keepdims=True)
    return ids.astype(np.int32), rnd(w, "f32")


def moe_permute(x, ids, dtype, num_experts):
    """(permuted, positions, expert_offsets), rows grouped by expert."""
    x = rnd(x, dtype)
    T, k = ids.shape
    permuted = np.zeros((T * k, x.shape[1]))
    positions = np.full((T, k), -1, dtype=np.int32)
    order = [(t, s) for e in range(num_experts) for t in range(T)
             for s in range(k) if ids[t, s] == e]
    for row, (t, s) in enumerate(order):
        positions[t, s] = row
        permuted[row] = x[t]
    counts = [(ids == e).sum() for e in range(num_experts)]
    return permuted, positions, np.cumsum([0] + counts).astype(np.int32)


def grouped_gemm(a, b, offsets, dtype, out, b_up=None, activation="none"):
    """d[r] = act(a[r] b[e]) (* a[r] b_up[e]) for r in group e."""
    a, b = rnd(a, dtype), rnd(b, dtype)
    up = None if b_up is None else rnd(b_up, dtype)
    R = a.shape[0]
    d = np.zeros((R, b.shape[2]))
    off = np.clip(np.asarray(offsets, dtype=np.int64), 0, R)
    for e in range(b.shape[0]):
        rows = slice(off[e], off[e + 1])
        if off[e + 1] <= off[e]:
            continue
        d[rows] = act(a[rows] @ b[e], activation)
        if up is not None:
            d[rows] *= a[rows] @ up[e]
    return rnd(d, out)


def moe_combine(expert_out, positions, weights, dtype, w_dtype, out):
    """y[t] = sum_s weights[t, s] expert_out[positions[t, s]] (valid ones)."""
    eo, w = rnd(expert_out, dtype), rnd(weights, w_dtype)
    T, k = positions.shape
    y = np.zeros((T, eo.shape[1]))
    for t in range(T):
        for s in range(k):
            if 0 <= positions[t, s] < T * k:
                y[t] += w[t, s] * eo[positions[t, s]]
    return rnd(y, out)


def moe(x, logits, wg, wu, wd, dtype, logits_dtype, out, top_k,
        renormalize=False, activation="silu"):
    """The fused layer, with its roundings of `a` and `y_e` to x's type."""
    x, wg, wu, wd = (rnd(t, dtype) for t in (x, wg, wu, wd))
    ids, w = moe_route(logits, logits_dtype, top_k, renormalize)
    y = np.zeros(x.shape)
    for t in range(x.shape[0]):
        for s in range(top_k):
            e = ids[t, s]
            a = rnd(act(x[t] @ wg[e], activation) * (x[t] @ wu[e]), dtype)
            y[t] += w[t, s] * rnd(a @ wd[e], dtype)
    return rnd(y, out)


# ---------------------------------------------------------------------------
# Tricky inputs of the float conversions.
# ---------------------------------------------------------------------------

def tricky_values():
    """float32 values at the rounding and range edges of each format: exact
    ties (to an even and to an odd neighbour) and the floats just around
    them, in the normal and subnormal ranges and at the overflow edge."""
    vals = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, 3.4028235e38, -3.4028235e38,
            2.0**-126, 2.0**-149, -2.0**-149]
    for name, f in FORMATS.items():
        big = float(decode(f.max_code, name))
        min_normal = 2.0**(1 - f.bias)
        tiny = 2.0**(1 - f.bias - f.mant)  # smallest subnormal
        ulp1 = 2.0**-f.mant  # ulp of 1
        for base in (1.0, 1.0 + ulp1, -3.0, big, min_normal, min_normal - tiny,
                     0.0, -tiny, 3 * tiny):
            # The spacing of the format's values just above |base|.
            e = math.floor(math.log2(abs(base))) if base else 0
            spacing = 2.0**(max(e, 1 - f.bias) - f.mant)
            tie = np.float32(base + math.copysign(spacing / 2, base or 1.0))
            vals += [base, tie, np.nextafter(tie, np.float32(np.inf)),
                     np.nextafter(tie, np.float32(-np.inf))]
        vals += [-big, 2 * big, -2 * big, tiny / 4, min_normal * (1 - ulp1 / 2)]
    with np.errstate(over="ignore"):  # 2 * big of bf16 is inf in f32
        return np.array(vals, dtype=np.float32)


# ---------------------------------------------------------------------------
# Command line.
# ---------------------------------------------------------------------------

def save(d, name, arr):
    np.save(os.path.join(d, name + ".npy"), arr)


def gen(args):
    os.makedirs(args.dir, exist_ok=True)
    rng = np.random.default_rng(args.seed)

    def inp(name, shape, dtype, amp=1.0):
        """A random input exact in `dtype`, saved as float32."""
        x = rnd(rng.uniform(-amp, amp, size=shape), dtype)
        save(args.dir, name, x.astype(np.float32))
        return x

    def ints(name, arr):
        save(args.dir, name, np.asarray(arr, dtype=np.int32))
        return np.asarray(arr, dtype=np.int64)

    def expect(*results):
        for i, r in enumerate(results):
            save(args.dir, "expected%d" % i,
                 r if r.dtype.kind == "i" else r.astype(np.float32))

    out = args.out or args.dtype
    if args.op == "gemm":
        M, N, K = args.m, args.n, args.k
        batch = [args.batch] if args.batch else []
        a = inp("a", batch + ([K, M] if args.ta else [M, K]), args.dtype)
        bb = batch if args.batch and not args.broadcast_b else []
        b = inp("b", bb + ([N, K] if args.tb else [K, N]), args.dtype)
        epi = args.epi or out
        bias = inp("bias", [N], epi) if args.bias else None
        c = inp("c", batch + [M, N], epi) if args.residual else None
        expect(gemm(a, b, args.dtype, out, bias, c, epi, args.ta, args.tb,
                    args.alpha, args.beta, args.act, args.acc))
    elif args.op == "attention":
        B, Hq, Hkv, D = args.b, args.hq, args.hkv, args.d
        q = inp("q", [B, Hq, args.sq, D], args.dtype, args.amp)
        k = inp("k", [B, Hkv, args.skv, D], args.dtype, args.amp)
        v = inp("v", [B, Hkv, args.skv, D], args.dtype)
        lens = ints("kv_lens", args.kv_lens) if args.kv_lens else None
        slopes = inp("alibi", [Hq], "f32") if args.alibi else None
        o, lse = attention(q, k, v, args.dtype, out, args.scale, args.causal,
                           args.window, args.softcap, lens, args.window_left,
                           args.window_right, slopes)
        expect(o, lse)
    elif args.op in ("moe", "moe_route"):
        T, H, I, E = args.t, args.h, args.i, args.e
        logits = inp("logits", [T, E], args.logits, 4.0)
        # Ties, which go to the lower expert index: in every fourth token the
        # two largest logits are equal, and two tokens later the 2nd and 3rd.
        for t in range(0, T, 2) if E >= 3 else []:
            order = np.argsort(-logits[t])
            r = t // 2 % 2
            logits[t, order[r + 1]] = logits[t, order[r]]
        save(args.dir, "logits", logits.astype(np.float32))
        if args.op == "moe_route":
            expect(*moe_route(logits, args.logits, args.top_k, args.renormalize))
        else:
            x = inp("x", [T, H], args.dtype)
            ws = [inp(n, s, args.dtype) for n, s in
                  (("wg", [E, H, I]), ("wu", [E, H, I]), ("wd", [E, I, H]))]
            expect(moe(x, logits, *ws, args.dtype, args.logits, out, args.top_k,
                       args.renormalize, args.act))
    elif args.op == "moe_permute":
        x = inp("x", [args.t, args.h], args.dtype)
        # Ids in [-1, E]: the two ends are out of range and dropped.
        ids = ints("ids", rng.integers(-1, args.e + 1, size=(args.t, args.top_k)))
        expect(*moe_permute(x, ids, args.dtype, args.e))
    elif args.op == "grouped_gemm":
        R, K, N, E = args.t, args.k, args.n, args.e
        a = inp("a", [R, K], args.dtype)
        b = inp("b", [E, K, N], args.dtype)
        up = inp("b_up", [E, K, N], args.dtype) if args.gated else None
        # Sorted cut points: some groups empty, rows past the last are zero.
        cuts = np.sort(rng.integers(0, R + 1, size=E - 1))
        offs = ints("offsets", [0] + list(cuts) + [R - 1])
        expect(grouped_gemm(a, b, offs, args.dtype, out, up, args.act))
    elif args.op == "moe_combine":
        T, k, H = args.t, args.top_k, args.h
        eo = inp("expert_out", [T * k, H], args.dtype)
        # Positions: a permutation of the rows, some dropped or out of range.
        pos = rng.permutation(T * k).reshape(T, k)
        pos[rng.random((T, k)) < 0.2] = -1
        pos[0, 0] = T * k
        pos = ints("positions", pos)
        w = inp("weights", [T, k], "f32")
        expect(moe_combine(eo, pos, w, args.dtype, "f32", out))
    elif args.op == "float_conversions":
        # 4096 values: the tricky ones, then random bit patterns (no NaN).
        bits = rng.integers(0, 2**32, size=4096, dtype=np.uint64).astype(np.uint32)
        bits[(bits & 0x7F800000) == 0x7F800000] &= 0xFF7FFFFF
        x = np.concatenate([tricky_values(), bits.view(np.float32)])[:4096]
        save(args.dir, "x", x)
        # Expected bit patterns, as the signed integers of the same width.
        code16 = lambda t: encode(x, t).astype(np.uint16).view(np.int16)
        expect(code16("bf16"), code16("f16"),
               encode(x, "f8E4M3FN").astype(np.uint8).view(np.int8))
        nans = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FFFFFFF,
                         0xFF812345], dtype=np.uint32).view(np.float32)
        save(args.dir, "nans", nans)
    else:
        sys.exit("unknown op " + args.op)


def selftest(_):
    """Checks rnd against np.float16 and against round_by_value."""
    rng = np.random.default_rng(0)
    f32_bits = rng.integers(0, 2**32, size=200000, dtype=np.uint64).astype(np.uint32)
    with np.errstate(invalid="ignore"):  # signalling NaNs among the bits
        x = np.concatenate([tricky_values(), f32_bits.view(np.float32)])
        x = np.concatenate([x.astype(np.float64), rng.standard_normal(100000)
                            * np.exp2(rng.integers(-30, 30, 100000))])
    failures = 0
    for fmt in FORMATS:
        got = rnd(x, fmt)
        want = round_by_value(x, fmt)
        bad = ~((got == want) & (np.signbit(got) == np.signbit(want)) |
                np.isnan(got) & np.isnan(want))
        failures += bad.sum()
        codes = np.arange(1 << FORMATS[fmt].bits)
        vals = decode(codes, fmt)
        back = encode(vals, fmt)
        ok = (back == codes) | np.isnan(vals)
        failures += (~ok).sum()
        print("%s: %d rounding mismatches, %d codes that do not round-trip"
              % (fmt, bad.sum(), (~ok).sum()))
    with np.errstate(over="ignore"):
        np16 = x.astype(np.float16)
    mine = encode(x, "f16").astype(np.uint16)
    bad = (np16.view(np.uint16) != mine) & ~np.isnan(np16)
    failures += bad.sum()
    print("f16 vs numpy float16: %d mismatches" % bad.sum())
    print("selftest:", "OK" if failures == 0 else "FAILED")
    return 0 if failures == 0 else 1


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("selftest")
    g = sub.add_parser("gen")
    g.add_argument("op")
    g.add_argument("--dir", required=True)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--dtype", default="f32", help="operand element type")
    g.add_argument("--out", help="result element type (default: --dtype)")
    g.add_argument("--epi", help="gemm bias and residual type (default: --out)")
    g.add_argument("--logits", default="f32", help="router logits type")
    for dim, default in (("m", 8), ("n", 8), ("k", 8), ("batch", 0), ("b", 1),
                         ("hq", 1), ("hkv", 1), ("sq", 4), ("skv", 4),
                         ("d", 32), ("t", 4), ("h", 8), ("i", 8), ("e", 4),
                         ("top-k", 2), ("window", None), ("window-left", None),
                         ("window-right", None)):
        g.add_argument("--" + dim, type=int, default=default)
    for flag in ("ta", "tb", "broadcast-b", "bias", "residual", "causal",
                 "renormalize", "gated", "alibi"):
        g.add_argument("--" + flag, action="store_true")
    g.add_argument("--alpha", type=float, default=1.0)
    g.add_argument("--beta", type=float)
    g.add_argument("--act", default="none")
    g.add_argument("--acc", default="f32")
    g.add_argument("--scale", type=float)
    g.add_argument("--softcap", type=float)
    g.add_argument("--amp", type=float, default=1.0, help="range of q and k")
    g.add_argument("--kv-lens", type=lambda s: [int(v) for v in s.split(",")])
    args = p.parse_args()
    return selftest(args) if args.cmd == "selftest" else gen(args)


if __name__ == "__main__":
    sys.exit(main())
