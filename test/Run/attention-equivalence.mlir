// kgen.attention against itself, exactly (tolerance 0), on seeded random
// inputs: pairs of calls that the semantics in KgenOps.td make compute the
// same numbers in the same order, so any difference is a bug. rt::compare
// calls two NaNs equal, and kgen-run fills results with NaN before the run,
// so the summary lines must show nan=0: an unwritten pair would agree.
//
// RUN: kgen-run %s --entry=gqa_repeat --seed=11 --compare=0:1,2:3,4:5 \
// RUN:   | FileCheck %s --check-prefix=GQA
// RUN: kgen-run %s --entry=causal_square --seed=12 \
// RUN:   --compare=0:1,2:3,4:5,6:7,8:9,10:11 | FileCheck %s --check-prefix=SQUARE

// GQA 8:2 against plain multi-head attention on K and V with each head
// repeated 4 times ([1, 2, 16, 64] -> [1, 2, 4, 16, 64] -> [1, 8, 16, 64], so
// head h holds kv head h / 4): non-causal, causal, and the log-sum-exp.
// GQA-NOT: nan={{[1-9]}}
// GQA: compare 0:1: OK rel_frob=0.000e+00
// GQA: compare 2:3: OK rel_frob=0.000e+00
// GQA: compare 4:5: OK rel_frob=0.000e+00
func.func @gqa_repeat(%q: tensor<1x8x8x64xbf16>, %k: tensor<1x2x16x64xbf16>,
                      %v: tensor<1x2x16x64xbf16>)
    -> (tensor<1x8x8x64xbf16>, tensor<1x8x8x64xbf16>,
        tensor<1x8x8x64xbf16>, tensor<1x8x8x64xbf16>,
        tensor<1x8x8xf32>, tensor<1x8x8xf32>) {
  %e = tensor.empty() : tensor<1x2x4x16x64xbf16>
  %kb = linalg.broadcast ins(%k : tensor<1x2x16x64xbf16>)
      outs(%e : tensor<1x2x4x16x64xbf16>) dimensions = [2]
  %vb = linalg.broadcast ins(%v : tensor<1x2x16x64xbf16>)
      outs(%e : tensor<1x2x4x16x64xbf16>) dimensions = [2]
  %kr = tensor.collapse_shape %kb [[0], [1, 2], [3], [4]]
      : tensor<1x2x4x16x64xbf16> into tensor<1x8x16x64xbf16>
  %vr = tensor.collapse_shape %vb [[0], [1, 2], [3], [4]]
      : tensor<1x2x4x16x64xbf16> into tensor<1x8x16x64xbf16>
  %gqa = kgen.attention %q, %k, %v
      : tensor<1x8x8x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>
        -> tensor<1x8x8x64xbf16>
  %mha = kgen.attention %q, %kr, %vr
      : tensor<1x8x8x64xbf16>, tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16>
        -> tensor<1x8x8x64xbf16>
  %gqa_c, %gqa_lse = kgen.attention %q, %k, %v {causal}
      : tensor<1x8x8x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>
        -> tensor<1x8x8x64xbf16>, tensor<1x8x8xf32>
  %mha_c, %mha_lse = kgen.attention %q, %kr, %vr {causal}
      : tensor<1x8x8x64xbf16>, tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16>
        -> tensor<1x8x8x64xbf16>, tensor<1x8x8xf32>
  return %gqa, %mha, %gqa_c, %mha_c, %gqa_lse, %mha_lse
      : tensor<1x8x8x64xbf16>, tensor<1x8x8x64xbf16>,
        tensor<1x8x8x64xbf16>, tensor<1x8x8x64xbf16>,
        tensor<1x8x8xf32>, tensor<1x8x8xf32>
}

// Causal with Sq = Skv = 8 (query i sits at p = i, sees keys 0..i):
//   0:1  rows 0..3 of it equal causal attention on the first 4 queries,
//        keys and values (future keys change nothing);
//   2:3  its last row equals that of non-causal attention (it sees all keys);
//   4:5  its first row is value row 0 (one visible key, weight exactly 1);
//   6:7  a sliding window of Skv = 8 hides nothing;
//   8:9  kv_lens = Skv hides nothing (compared with the window of 8, equal
//        to plain causal by 6:7);
//   10:11 the log-sum-exp, for the window of 8 as for plain causal.
// One batch and one head keep every slice contiguous: kgen-run cannot
// return a strided one yet (kgen-run-strided-result.mlir), nor the same
// tensor twice (kgen-run-same-result-twice.mlir).
// SQUARE-NOT: nan={{[1-9]}}
// SQUARE: compare 0:1: OK rel_frob=0.000e+00
// SQUARE: compare 2:3: OK rel_frob=0.000e+00
// SQUARE: compare 4:5: OK rel_frob=0.000e+00
// SQUARE: compare 6:7: OK rel_frob=0.000e+00
// SQUARE: compare 8:9: OK rel_frob=0.000e+00
// SQUARE: compare 10:11: OK rel_frob=0.000e+00
func.func @causal_square(%q: tensor<1x1x8x32xbf16>, %k: tensor<1x1x8x32xbf16>,
                         %v: tensor<1x1x8x32xbf16>)
    -> (tensor<1x1x4x32xbf16>, tensor<1x1x4x32xbf16>,
        tensor<1x1x1x32xbf16>, tensor<1x1x1x32xbf16>,
        tensor<1x1x1x32xbf16>, tensor<1x1x1x32xbf16>,
        tensor<1x1x8x32xbf16>, tensor<1x1x8x32xbf16>,
        tensor<1x1x8x32xbf16>, tensor<1x1x8x32xbf16>,
        tensor<1x1x8xf32>, tensor<1x1x8xf32>) {
  %causal, %lse = kgen.attention %q, %k, %v {causal}
      : tensor<1x1x8x32xbf16>, tensor<1x1x8x32xbf16>, tensor<1x1x8x32xbf16>
        -> tensor<1x1x8x32xbf16>, tensor<1x1x8xf32>
  %full = kgen.attention %q, %k, %v
      : tensor<1x1x8x32xbf16>, tensor<1x1x8x32xbf16>, tensor<1x1x8x32xbf16>
        -> tensor<1x1x8x32xbf16>
  %window, %window_lse = kgen.attention %q, %k, %v {causal, sliding_window = 8 : i64}
      : tensor<1x1x8x32xbf16>, tensor<1x1x8x32xbf16>, tensor<1x1x8x32xbf16>
        -> tensor<1x1x8x32xbf16>, tensor<1x1x8xf32>
  %lens = arith.constant dense<8> : tensor<1xi32>
  %padded = kgen.attention %q, %k, %v kv_lens(%lens : tensor<1xi32>) {causal}
      : tensor<1x1x8x32xbf16>, tensor<1x1x8x32xbf16>, tensor<1x1x8x32xbf16>
        -> tensor<1x1x8x32xbf16>
  %window_again = kgen.attention %q, %k, %v {causal, sliding_window = 8 : i64}
      : tensor<1x1x8x32xbf16>, tensor<1x1x8x32xbf16>, tensor<1x1x8x32xbf16>
        -> tensor<1x1x8x32xbf16>

  %q4 = tensor.extract_slice %q[0, 0, 0, 0] [1, 1, 4, 32] [1, 1, 1, 1]
      : tensor<1x1x8x32xbf16> to tensor<1x1x4x32xbf16>
  %k4 = tensor.extract_slice %k[0, 0, 0, 0] [1, 1, 4, 32] [1, 1, 1, 1]
      : tensor<1x1x8x32xbf16> to tensor<1x1x4x32xbf16>
  %v4 = tensor.extract_slice %v[0, 0, 0, 0] [1, 1, 4, 32] [1, 1, 1, 1]
      : tensor<1x1x8x32xbf16> to tensor<1x1x4x32xbf16>
  %prefix = kgen.attention %q4, %k4, %v4 {causal}
      : tensor<1x1x4x32xbf16>, tensor<1x1x4x32xbf16>, tensor<1x1x4x32xbf16>
        -> tensor<1x1x4x32xbf16>
  %causal4 = tensor.extract_slice %causal[0, 0, 0, 0] [1, 1, 4, 32] [1, 1, 1, 1]
      : tensor<1x1x8x32xbf16> to tensor<1x1x4x32xbf16>

  %causal_last = tensor.extract_slice %causal[0, 0, 7, 0] [1, 1, 1, 32] [1, 1, 1, 1]
      : tensor<1x1x8x32xbf16> to tensor<1x1x1x32xbf16>
  %full_last = tensor.extract_slice %full[0, 0, 7, 0] [1, 1, 1, 32] [1, 1, 1, 1]
      : tensor<1x1x8x32xbf16> to tensor<1x1x1x32xbf16>
  %causal_first = tensor.extract_slice %causal[0, 0, 0, 0] [1, 1, 1, 32] [1, 1, 1, 1]
      : tensor<1x1x8x32xbf16> to tensor<1x1x1x32xbf16>
  %v_first = tensor.extract_slice %v[0, 0, 0, 0] [1, 1, 1, 32] [1, 1, 1, 1]
      : tensor<1x1x8x32xbf16> to tensor<1x1x1x32xbf16>
  return %causal4, %prefix, %causal_last, %full_last, %causal_first, %v_first,
         %window, %causal, %padded, %window_again, %window_lse, %lse
      : tensor<1x1x4x32xbf16>, tensor<1x1x4x32xbf16>,
        tensor<1x1x1x32xbf16>, tensor<1x1x1x32xbf16>,
        tensor<1x1x1x32xbf16>, tensor<1x1x1x32xbf16>,
        tensor<1x1x8x32xbf16>, tensor<1x1x8x32xbf16>,
        tensor<1x1x8x32xbf16>, tensor<1x1x8x32xbf16>,
        tensor<1x1x8xf32>, tensor<1x1x8xf32>
}
