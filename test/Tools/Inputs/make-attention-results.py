#!/usr/bin/env python3
"""Writes OUT_DIR/kgen-attention.json and OUT_DIR/baseline-torch.json as a
device check would: kgen's package of one attention op (named as the
package) and SDPA's cuDNN (ok) and flash (refused) results at that op (named
as the suite entry), plus a prefill op that only cuDNN measured, and the
same decode over an e4m3 KV cache with descales: kgen's package and SDPA's
cuDNN result on the dequantised cache, and an fp8 prefill (Q, K and V
e4m3, three descales, out bf16): kgen's package and SDPA's cuDNN result on
Q, K and V dequantised to bf16, each carrying the comment
torch_baselines.py gives it.

  make-attention-results.py SRC_ROOT OUT_DIR
"""
import importlib.util
import os
import sys

root, out = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location(
    "torch_baselines", os.path.join(root, "bench", "torch_baselines.py"))
tb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tb)

decode = {"kind": "attention", "batch": 16, "q_heads": 32, "kv_heads": 8,
          "seq_q": 1, "seq_kv": 8192, "head_dim": 128, "dtype": "bf16",
          "dtype_out": "bf16", "kv_lens": True, "lse": False,
          "scale": 0.08838834764831845, "causal": False,
          "sliding_window": None, "window_left": None, "window_right": None,
          "alibi": False, "softcap": None}
prefill = dict(decode, batch=4, seq_q=4096, seq_kv=4096, kv_lens=False, causal=True)
ceilings = {"copy_gbps": 4000.0, "matmul_tflops": 800.0, "matmul_what": "test"}
work = tb.attention_suite_work(decode)
kgen = tb.make_result("kgen_attention_bf16_b16_h32x8_q1_kv8192_d128", "kgen", decode,
                      "ok", time=tb.summarize([0.2]), rel_error=1e-3, work=work,
                      ceilings=ceilings)
cudnn = tb.make_result("llama3-8b/decode b=16 kv=8k", "torch-sdpa-cudnn", decode, "ok",
                       time=tb.summarize([0.25]), rel_error=2e-3, work=work,
                       ceilings=ceilings)
flash = tb.make_result("llama3-8b/decode b=16 kv=8k", "torch-sdpa-flash", decode,
                       "skipped", "refused: Flash attention does not support the use of attn_mask")
only = tb.make_result("llama3-8b/prefill 4k causal", "torch-sdpa-cudnn", prefill, "ok",
                      time=tb.summarize([2.0]), rel_error=2e-3,
                      work=tb.attention_suite_work(prefill), ceilings=ceilings)
e4m3 = dict(decode, dtype_kv="f8E4M3FN", k_descale=True, v_descale=True)
[case] = tb.attention_cases([{"name": "llama3-8b/decode e4m3-kv b=16 kv=8k", "op": e4m3}])
kgen_e4m3 = tb.make_result("kgen_attention_bf16_kvf8E4M3FN_b16_h32x8_q1_kv8192_d128", "kgen",
                           e4m3, "ok", time=tb.summarize([0.1]), rel_error=1e-3,
                           work=case["work"], ceilings=ceilings)
cudnn_e4m3 = dict(tb.make_result(case["name"], "torch-sdpa-cudnn", e4m3, "ok",
                                 time=tb.summarize([0.25]), rel_error=2e-3,
                                 work=case["work"], ceilings=ceilings),
                  comment=case["comment"])
fp8 = dict(decode, batch=1, seq_q=16384, seq_kv=16384, kv_lens=False, dtype="f8E4M3FN",
           q_descale=True, k_descale=True, v_descale=True)
[case] = tb.attention_cases([{"name": "llama3-8b/prefill fp8 16k", "op": fp8}])
kgen_fp8 = tb.make_result("kgen_attention_f8E4M3FN_h32x8_q16384_kv16384_d128", "kgen", fp8,
                          "ok", time=tb.summarize([4.0]), rel_error=2e-2,
                          work=case["work"], ceilings=ceilings)
cudnn_fp8 = dict(tb.make_result(case["name"], "torch-sdpa-cudnn", fp8, "ok",
                                time=tb.summarize([8.0]), rel_error=2e-3,
                                work=case["work"], ceilings=ceilings),
                 comment=case["comment"])
device = dict(tb.empty_device(), name="test")
tb.write_atomic(os.path.join(out, "kgen-attention.json"),
                tb.make_document(device, ceilings, [kgen, kgen_e4m3, kgen_fp8]))
tb.write_atomic(os.path.join(out, "baseline-torch.json"),
                tb.make_document(device, ceilings,
                                 [cudnn, flash, only, cudnn_e4m3, cudnn_fp8]))
