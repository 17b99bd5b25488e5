"""Checks kgen-tune --json's attention rankings: as many candidates as the
space (--all), the default first, the rest in the model's order, every
prediction positive; writes CONFIGS.mlir, one function per candidate with
the op and the candidate's config, for kgen-opt's verifier (the attention
legality) to accept or refuse.

usage: check-attention-ranking.py RANKING.json CONFIGS.mlir
"""
import json
import sys


def op_text(op, config):
    b, hq, hkv = op["batch"], op["q_heads"], op["kv_heads"]
    sq, skv, d, t = op["seq_q"], op["seq_kv"], op["head_dim"], op["dtype"]
    q = "tensor<%dx%dx%dx%dx%s>" % (b, hq, sq, d, t)
    kv = "tensor<%dx%dx%dx%dx%s>" % (b, hkv, skv, d, t)
    attrs = ["config = " + config["attribute"]]
    if op["causal"]:
        attrs.insert(0, "causal")
    return ("  %%o = kgen.attention %%q, %%k, %%v {%s} : %s, %s, %s -> %s\n"
            "  return %%o : %s\n" % (", ".join(attrs), q, kv, kv, q, q), q, kv)


def main():
    ranking = json.load(open(sys.argv[1]))
    out = open(sys.argv[2], "w")
    for a in ranking["attentions"]:
        cands = a["candidates"]
        default_first = cands[0]["default"] and not any(c["default"] for c in cands[1:])
        ms = [c["predicted_ms"] for c in cands[1:]]
        ordered = all(x <= y for x, y in zip(ms, ms[1:]))
        positive = all(c["predicted_ms"] > 0 for c in cands)
        # The space holds the default's strategy once: --all lists it.
        print("attention %d: space %d, candidates %d, %s, %s, %s" % (
            a["index"], a["space"], len(cands),
            "default first" if default_first else "DEFAULT NOT FIRST",
            "model order" if ordered else "NOT IN MODEL ORDER",
            "predicted_ms > 0" if positive else "A PREDICTION <= 0"))
        for i, c in enumerate(cands):
            body, q, kv = op_text(a["op"], c["config"])
            out.write("func.func @a%d_c%d(%%q: %s, %%k: %s, %%v: %s) -> %s {\n%s}\n"
                      % (a["index"], i, q, kv, kv, q, body))


if __name__ == "__main__":
    main()
