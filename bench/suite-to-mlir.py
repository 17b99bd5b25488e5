#!/usr/bin/env python3
"""Writes a shape suite (bench/suites/gemm.json, attention.json or moe.json) as a kgen module.

usage: suite-to-mlir.py SUITE.json [--m 4096,16] [--models llama3-8b,...]
                        [--gemms o,qkv]               (a kgen.gemm-suite)
       suite-to-mlir.py SUITE.json [--entries SUBSTR,...] [--max-kv-gib G]
                                                      (a kgen.attention-suite)
       suite-to-mlir.py SUITE.json [--entries SUBSTR,...] [--device-check]
                                                      (a kgen.moe-suite)

GEMM suite: one function per distinct (M, N, K): y = x W^T with x [M, K] and
W [N, K] (nn.Linear weights, transpose_b) in the suite's dtype, named
<model>_<gemm>_m<M>. Shapes already written under another name are skipped,
as the suite says.

Attention suite: one function per entry, named after it ("llama3-8b/decode
b=1 kv=1k" -> llama3_8b_decode_b_1_kv_1k), holding one kgen.attention of the
entry's op object (docs/kernel-package.md): q [B, Hq, Sq, D], k and v
[B, Hkv, Skv, D], kv_lens ([B] i32) and the lse result ([B, Hq, Sq] f32) when
the entry has them, scale, causal, sliding_window and softcap as given. A
"paged" entry (a paged KV cache) has k and v [num_pages, Hkv, page_size, D]
and a block_table(...) operand [B, Skv / page_size] i32 after kv_lens; one
without page_size or num_pages, or whose seq_kv is not a multiple of
page_size, is refused. K and V are of "dtype_kv" (f8E4M3FN: an e4m3 KV
cache) when the entry gives it, q of dtype; "q_descale", "k_descale" and
"v_descale" add the f32 [1] operands q_descale(%dq : ...), k_descale(%dk :
...), v_descale(%dv : ...), in that order after block_table, each a
function argument. An op object kgen.attention cannot take (dtype_kv
neither dtype nor f8E4M3FN, e4m3 under f32, a descale of an operand that
is not e4m3, an e4m3 dtype without dtype_out) or with a field this script
does not write (alibi, window_left, window_right other than false / null)
is refused.
--entries keeps the entries whose name contains one of the substrings;
--max-kv-gib drops those whose K and V together (2 B Hkv Skv D elements,
2 num_pages Hkv page_size D when paged, at dtype_kv's size) exceed G GiB
(the device check's cut of the largest decode steps). Entries with the
same op are written once, under the first name.

MoE suite: one function per entry, named after it as above, holding one
kgen.moe of the entry's op object: x [T, H], the router logits [T, E] (an
input, of the op's logits_dtype), w_gate and w_up [E, H, I], w_down
[E, I, H], the result [T, H] of dtype_out; top_k, renormalize, and the
activation when it is not silu. The DeepSeek fields (docs/kernel-package.md)
add what they name: "correction_bias" the bias [E] f32 (after the logits),
"shared_inter" Is a shared expert [H, Is], [H, Is], [Is, H], "weight_dtype"
"f8E4M3FN" with "block_scales" e4m3 weights and their f32 scales
(scales(...): [E, ceil(H/128), ceil(I/128)] twice, [E, ceil(I/128),
ceil(H/128)]; shared_scales(...): [ceil(H/128), ceil(Is/128)] twice,
[ceil(Is/128), ceil(H/128)]), "scoring", "n_group" / "topk_group" and
"routed_scaling_factor" the attributes, each only when not its default. An
op object with a field it does not know, or values kgen.moe cannot take
(e4m3 weights without block scales, another weight type), is refused.
--entries as above; --device-check keeps the entries the suite's
"device_check" list names (the device check's cut).

Pipe the output to `kgen-opt --kgen-pipeline="target=... output-dir=..."` to
get packages.
"""
import argparse
import json
import math
import re
import sys


OUT_TYPES = {"bf16": "bf16", "f16": "f16", "f32": "f32"}
MOE_TYPES = OUT_TYPES
E4M3 = "f8E4M3FN"
ATTENTION_TYPES = dict(OUT_TYPES, **{E4M3: E4M3})   # q, k and v
# The fields of an attention op object (docs/kernel-package.md, the
# runtime's parseAttentionOp) that attention_function writes, and those it
# does not, accepted at their defaults (a package's op writes them all).
ATTENTION_FIELDS = {"kind", "batch", "q_heads", "kv_heads", "seq_q", "seq_kv", "head_dim",
                    "dtype", "dtype_kv", "dtype_out", "kv_lens", "lse", "scale", "causal",
                    "sliding_window", "softcap", "paged", "page_size", "num_pages",
                    "q_descale", "k_descale", "v_descale"}
ATTENTION_UNWRITTEN = {"alibi": False, "window_left": None, "window_right": None}
# The descale clauses in kgen.attention's order: (field, value name, the
# field of the operand's type).
DESCALES = (("q_descale", "dq", "dtype"), ("k_descale", "dk", "dtype_kv"),
            ("v_descale", "dv", "dtype_kv"))


def function_name(name):
    """A suite entry's name as an MLIR symbol: runs of other characters
    than letters and digits become one underscore."""
    return re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_")


def gemm_module(suite, path, args):
    ms = [int(m) for m in args.m.split(",")] if args.m else suite["m"]
    wanted = set(args.models.split(",")) if args.models else None
    gemms = set(args.gemms.split(",")) if args.gemms else None
    t = suite.get("dtype", "bf16")
    seen = set()
    out = [f"// GEMMs of {suite['name']} ({path}), y = x W^T, {t}."]
    for model in suite["models"]:
        if wanted and model["name"] not in wanted:
            continue
        for gemm in model["gemms"]:
            if gemms and gemm["name"] not in gemms:
                continue
            for m in ms:
                n, k = gemm["n"], gemm["k"]
                if (m, n, k) in seen:
                    continue
                seen.add((m, n, k))
                name = f"{model['name']}_{gemm['name']}_m{m}".replace("-", "_").replace(".", "_")
                x, w, y = f"tensor<{m}x{k}x{t}>", f"tensor<{n}x{k}x{t}>", f"tensor<{m}x{n}x{t}>"
                out.append(f"func.func @{name}(%x: {x}, %w: {w}) -> {y} {{\n"
                           f"  %y = kgen.gemm %x, %w {{transpose_b}} : {x}, {w} -> {y}\n"
                           f"  return %y : {y}\n}}")
    if (wanted or gemms) and not seen:
        sys.exit("suite-to-mlir: no gemm of the suite matches --models and --gemms")
    return out


class Refused(Exception):
    """An op object suite-to-mlir cannot write as a kgen op (moe,
    attention)."""


def kv_bytes(op):
    """Bytes of K and V together (at dtype_kv's size): the whole page pool
    when paged."""
    elem = {"f32": 4, E4M3: 1}.get(op.get("dtype_kv") or op["dtype"], 2)
    rows = op["num_pages"] * op["page_size"] if op.get("paged") else op["batch"] * op["seq_kv"]
    return 2 * rows * op["kv_heads"] * op["head_dim"] * elem


def paged_pages(op):
    """(page_size, num_pages, pages per sequence) of a paged attention op
    object; raises Refused."""
    size, count, skv = op.get("page_size"), op.get("num_pages"), op["seq_kv"]
    for field, v, hi in (("page_size", size, 256), ("num_pages", count, None)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1 or (hi and v > hi):
            bound = f"in [1, {hi}]" if hi else ">= 1"
            raise Refused(f"a paged op needs {field} (an integer {bound}), not {v!r}")
    if skv % size:
        raise Refused(f"seq_kv {skv} is not a multiple of page_size {size}")
    return size, count, skv // size


def attention_types(op):
    """(q, k and v, out) element types of an attention op object; raises
    Refused where kgen.attention cannot take them."""
    unknown = sorted(set(op) - ATTENTION_FIELDS - set(ATTENTION_UNWRITTEN))
    if unknown:
        raise Refused(f"unknown field(s) {', '.join(unknown)}")
    for field, default in ATTENTION_UNWRITTEN.items():
        if op.get(field, default) != default:
            raise Refused(f"{field} {json.dumps(op[field])} is not written by suite-to-mlir "
                          f"(only {json.dumps(default)})")
    t, tkv = op["dtype"], op.get("dtype_kv") or op["dtype"]
    to = op.get("dtype_out") or t
    if t == E4M3 and "dtype_out" not in op:
        raise Refused(f"an {E4M3} dtype needs a dtype_out ({', '.join(OUT_TYPES)})")
    for field, v, types in (("dtype", t, ATTENTION_TYPES), ("dtype_kv", tkv, ATTENTION_TYPES),
                            ("dtype_out", to, OUT_TYPES)):
        if v not in types:
            raise Refused(f"{field} {v!r} is not one of {', '.join(types)}")
    if tkv not in (t, E4M3) or (tkv == E4M3 and t == "f32"):
        raise Refused(f"dtype_kv {tkv!r} is neither dtype ({t}) nor {E4M3} under a "
                      "bf16, f16 or e4m3 dtype")
    types = {"dtype": t, "dtype_kv": tkv}
    for field, _, of in DESCALES:
        if op.get(field) and types[of] != E4M3:
            raise Refused(f"{field} needs {of} {E4M3} (it is {types[of]}: only an "
                          "e4m3 operand has a descale)")
    return t, tkv, to


def attention_function(name, op):
    """The function of one attention suite entry (its op object); raises
    Refused."""
    b, hq, hkv = op["batch"], op["q_heads"], op["kv_heads"]
    sq, skv, d = op["seq_q"], op["seq_kv"], op["head_dim"]
    t, tkv, to = attention_types(op)
    q, kv = f"tensor<{b}x{hq}x{sq}x{d}x{t}>", f"tensor<{b}x{hkv}x{skv}x{d}x{tkv}>"
    if op.get("paged"):
        size, count, per_seq = paged_pages(op)
        kv, table = f"tensor<{count}x{hkv}x{size}x{d}x{tkv}>", f"tensor<{b}x{per_seq}xi32>"
    elif any(op.get(f) is not None for f in ("page_size", "num_pages")):
        raise Refused("page_size and num_pages need \"paged\": true")
    o, lse, lens = f"tensor<{b}x{hq}x{sq}x{d}x{to}>", f"tensor<{b}x{hq}x{sq}xf32>", f"tensor<{b}xi32>"
    attrs = []
    if op.get("scale") is not None:
        attrs.append(f"scale = {float(op['scale'])!r} : f32")
    if op.get("causal"):
        attrs.append("causal")
    if op.get("sliding_window") is not None:
        attrs.append(f"sliding_window = {int(op['sliding_window'])} : i64")
    if op.get("softcap") is not None:
        attrs.append(f"softcap = {float(op['softcap'])!r} : f32")
    args = [f"%q: {q}", f"%k: {kv}", f"%v: {kv}"]
    operands = "%q, %k, %v"
    if op.get("kv_lens"):
        args.append(f"%lens: {lens}")
        operands += f" kv_lens(%lens : {lens})"
    if op.get("paged"):
        args.append(f"%bt: {table}")
        operands += f" block_table(%bt : {table})"
    for field, value, _ in DESCALES:
        if op.get(field):
            args.append(f"%{value}: tensor<1xf32>")
            operands += f" {field}(%{value} : tensor<1xf32>)"
    results, values = [o], ["%o"]
    if op.get("lse"):
        results.append(lse)
        values.append("%lse")
    attr_dict = f" {{{', '.join(attrs)}}}" if attrs else ""
    ret = ", ".join(results)
    return (f"func.func @{function_name(name)}({', '.join(args)}) -> ({ret}) {{\n"
            f"  {', '.join(values)} = kgen.attention {operands}{attr_dict}\n"
            f"      : {q}, {kv}, {kv} -> {ret}\n"
            f"  return {', '.join(values)} : {ret}\n}}")


def entry_functions(suite, args, keep, function, what, filters):
    """The functions of an entry suite's entries (attention, moe): those
    whose name contains one of --entries' substrings and that keep(name,
    op) accepts, an op given twice written once, under the first name."""
    wanted = args.entries.split(",") if args.entries else None
    seen, out = set(), []
    for entry in suite["entries"]:
        name, op = entry["name"], entry["op"]
        if wanted and not any(w in name for w in wanted):
            continue
        if not keep(name, op):
            continue
        key = json.dumps(op, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        out.append(f"// {name}\n{function(name, op)}")
    if not seen:
        sys.exit(f"suite-to-mlir: no {what} entry of the suite matches {filters}")
    return out


def attention_module(suite, path, args):
    def refuse(name, e):
        sys.exit(f"suite-to-mlir: entry {name!r}: cannot write its op as a "
                 f"kgen.attention: {e}")

    def keep(name, op):
        try:
            attention_types(op)   # before kv_bytes reads dtype_kv
            if op.get("paged"):
                paged_pages(op)   # before kv_bytes reads the page pool
        except Refused as e:
            refuse(name, e)
        return args.max_kv_gib is None or kv_bytes(op) <= args.max_kv_gib * 2**30

    def function(name, op):
        try:
            return attention_function(name, op)
        except Refused as e:
            refuse(name, e)
    return [f"// Attention of {suite['name']} ({path}): one function per entry."] + \
        entry_functions(suite, args, keep, function, "attention",
                        "--entries and --max-kv-gib")


# The fields of a moe op object (docs/kernel-package.md, the runtime's
# parseMoeOp) that moe_function writes.
MOE_FIELDS = {"kind", "tokens", "hidden", "inter", "experts", "top_k", "renormalize",
              "activation", "dtype", "logits_dtype", "dtype_out", "scoring",
              "correction_bias", "n_group", "topk_group", "routed_scaling_factor",
              "shared_inter", "weight_dtype", "block_scales"}
SCALE_BLOCK = 128   # block scales: one f32 per 128 x 128 weights


def scale_blocks(n):
    """ceil(n / 128): the blocks of a dimension of block-scaled weights."""
    return -(-n // SCALE_BLOCK)


def moe_parts(op):
    """The checked parts of a moe op object: (T, H, I, E, k, x type, logits
    type, y type, scaled, Is, attributes). Raises Refused."""
    def need(cond, why):
        if not cond:
            raise Refused(why)

    unknown = sorted(set(op) - MOE_FIELDS)
    need(not unknown, f"unknown field(s) {', '.join(unknown)}")
    need(op.get("kind") == "moe", f"kind {op.get('kind')!r} is not \"moe\"")

    def size(field, default=None, lo=1):
        v = op.get(field, default)
        need(isinstance(v, int) and not isinstance(v, bool) and v >= lo,
             f"{field} {v!r} is not an integer >= {lo}")
        return v

    def flag(field):
        v = op.get(field, False)
        need(isinstance(v, bool), f"{field} {v!r} is not true or false")
        return v

    def elem(field, default):
        v = op.get(field, default)
        need(v in MOE_TYPES, f"{field} {v!r} is not one of {', '.join(MOE_TYPES)}")
        return MOE_TYPES[v]

    t_count, h, i, e, k = (size(f) for f in ("tokens", "hidden", "inter", "experts", "top_k"))
    t = elem("dtype", None)
    tl, to = elem("logits_dtype", "f32"), elem("dtype_out", op.get("dtype"))
    weights, scaled = op.get("weight_dtype", op["dtype"]), flag("block_scales")
    need(weights in (op["dtype"], "f8E4M3FN"),
         f"weight_dtype {weights!r} is neither dtype nor \"f8E4M3FN\"")
    need(scaled == (weights == "f8E4M3FN"),
         "e4m3 weights and block_scales go together (kgen.moe's scales(...))")
    shared = size("shared_inter", 0, lo=0)
    attrs = [f"top_k = {k}"]
    if flag("renormalize"):
        attrs.append("renormalize")
    activation = op.get("activation", "silu")
    need(activation in ("silu", "gelu", "relu"), f"activation {activation!r} is not "
         "silu, gelu or relu")
    if activation != "silu":
        attrs.append(f"activation = #kgen.activation<{activation}>")
    scoring = op.get("scoring", "softmax")
    need(scoring in ("softmax", "sigmoid"), f"scoring {scoring!r} is not softmax or sigmoid")
    if scoring != "softmax":
        attrs.append(f"scoring = #kgen.scoring<{scoring}>")
    groups = size("n_group", 1), size("topk_group", 1)
    if groups != (1, 1):
        attrs += [f"n_group = {groups[0]}", f"topk_group = {groups[1]}"]
    factor = op.get("routed_scaling_factor", 1.0)
    need(isinstance(factor, (int, float)) and not isinstance(factor, bool)
         and math.isfinite(factor), f"routed_scaling_factor {factor!r} is not a number")
    if factor != 1.0:
        attrs.append(f"routed_scaling_factor = {float(factor)!r} : f32")
    return (t_count, h, i, e, k, t, tl, to, scaled, shared, flag("correction_bias"), attrs)


def moe_function(name, op):
    """The function of one moe suite entry (its op object); raises Refused."""
    t_count, h, i, e, _, t, tl, to, scaled, shared, bias, attrs = moe_parts(op)
    w = "f8E4M3FN" if scaled else t
    x, logits = f"tensor<{t_count}x{h}x{t}>", f"tensor<{t_count}x{e}x{tl}>"
    w_in, w_down, y = f"tensor<{e}x{h}x{i}x{w}>", f"tensor<{e}x{i}x{h}x{w}>", \
        f"tensor<{t_count}x{h}x{to}>"
    args = [("x", x), ("logits", logits)]
    clauses = []

    def clause(keyword, names, types):
        args.extend(zip(names, types))
        values = ", ".join(f"%{n}" for n in names)
        clauses.append(f"\n      {keyword}({values} : {', '.join(types)})")

    if bias:
        args.append(("bias", f"tensor<{e}xf32>"))
    args += [("wg", w_in), ("wu", w_in), ("wd", w_down)]
    hb, ib, sb = scale_blocks(h), scale_blocks(i), scale_blocks(shared)
    if scaled:
        s_in, s_down = f"tensor<{e}x{hb}x{ib}xf32>", f"tensor<{e}x{ib}x{hb}xf32>"
        clause("scales", ["sg", "su", "sd"], [s_in, s_in, s_down])
    if bias:
        clauses.append(f"\n      correction_bias(%bias : tensor<{e}xf32>)")
    if shared:
        ws_in, ws_down = f"tensor<{h}x{shared}x{w}>", f"tensor<{shared}x{h}x{w}>"
        clause("shared", ["wsg", "wsu", "wsd"], [ws_in, ws_in, ws_down])
        if scaled:
            ss_in, ss_down = f"tensor<{hb}x{sb}xf32>", f"tensor<{sb}x{hb}xf32>"
            clause("shared_scales", ["ssg", "ssu", "ssd"], [ss_in, ss_in, ss_down])
    # The attributes after the operands' clauses, on a line of their own
    # when there are clauses.
    attr_sep = "\n      " if clauses else " "
    params = ", ".join(f"%{n}: {ty}" for n, ty in args)
    return (f"func.func @{function_name(name)}({params}) -> {y} {{\n"
            f"  %y = kgen.moe %x, %logits, %wg, %wu, %wd{''.join(clauses)}"
            f"{attr_sep}{{{', '.join(attrs)}}}\n"
            f"      : {x}, {logits}, {w_in}, {w_in}, {w_down} -> {y}\n"
            f"  return %y : {y}\n}}")


def moe_module(suite, path, args):
    listed = set(suite.get("device_check", []))

    def keep(name, _):
        return not args.device_check or name in listed

    def function(name, op):
        try:
            return moe_function(name, op)
        except Refused as e:
            sys.exit(f"suite-to-mlir: entry {name!r}: cannot write its op as a kgen.moe: {e}")
    return [f"// MoE layers of {suite['name']} ({path}): one function per entry."] + \
        entry_functions(suite, args, keep, function, "moe", "--entries and --device-check")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite")
    parser.add_argument("--m", help="gemm suite: comma-separated M values (default: the suite's)")
    parser.add_argument("--models", help="gemm suite: comma-separated model names (default: all)")
    parser.add_argument("--gemms", help="gemm suite: comma-separated gemm names of those "
                        "models, e.g. o,qkv (default: all)")
    parser.add_argument("--entries", help="attention or moe suite: comma-separated "
                        "substrings of entry names (default: all)")
    parser.add_argument("--max-kv-gib", type=float, help="attention suite: leave out "
                        "entries whose K and V together exceed this many GiB")
    parser.add_argument("--device-check", action="store_true", help="moe suite: only "
                        "the entries of the suite's device_check list")
    args = parser.parse_args()
    try:
        with open(args.suite, encoding="utf-8") as f:
            suite = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"suite-to-mlir: cannot read {args.suite}: {e}")
    schema = suite.get("schema")
    if schema != "kgen.gemm-suite" and (args.m or args.models or args.gemms):
        sys.exit("suite-to-mlir: --m, --models and --gemms are for gemm suites")
    if schema != "kgen.moe-suite" and args.device_check:
        sys.exit("suite-to-mlir: --device-check is for moe suites")
    if schema == "kgen.gemm-suite":
        if args.entries or args.max_kv_gib is not None:
            sys.exit("suite-to-mlir: --entries and --max-kv-gib are for attention suites")
        out = gemm_module(suite, args.suite, args)
    elif schema == "kgen.attention-suite":
        out = attention_module(suite, args.suite, args)
    elif schema == "kgen.moe-suite":
        if args.max_kv_gib is not None:
            sys.exit("suite-to-mlir: --max-kv-gib is for attention suites")
        out = moe_module(suite, args.suite, args)
    else:
        sys.exit(f"suite-to-mlir: {args.suite} is not a kgen.gemm-suite, "
                 "kgen.attention-suite or kgen.moe-suite file")
    print("\n".join(out))


if __name__ == "__main__":
    main()
