// The MoE ops on the CPU reference against values worked out by hand.
//
// RUN: kgen-run %s --entry=route --print-values | FileCheck %s --check-prefix=ROUTE
// RUN: kgen-run %s --entry=permute --print-values | FileCheck %s --check-prefix=PERM
// RUN: kgen-run %s --entry=grouped --print-values | FileCheck %s --check-prefix=GG
// RUN: kgen-run %s --entry=combine --print-values | FileCheck %s --check-prefix=COMB
// RUN: kgen-run %s --entry=moe --print-values | FileCheck %s --check-prefix=MOE
// RUN: kgen-run %s --entry=moe_bf16 --print-values | FileCheck %s --check-prefix=MOE16

// Router logits, one token a row:
//   t0 [0, 2, 1, 2]: experts 1 and 3 tie (1 goes first), then 2;
//     p = e^2/S, e^2/S, e/S with S = 1 + 2e^2 + e: 0.3994863, 0.1469628;
//   t1 [3, 1, 1, 0]: expert 0, then 1 and 2 tie (1 first);
//     S = e^3 + 2e + 1: p = 0.7573132, 0.1024912, 0.1024912;
//   t2 [0, 0, 0, 0]: all tie: experts 0, 1, 2, each p = 1/4;
//   t3 [0, 1, 5, 2]: the order is 2, 3, 1 (descending p, not index):
//     S = 1 + e + e^5 + e^2: p = 0.9303705, 0.0463204, 0.0170403.
// result 0/1, top_k = 3: ids and p as listed.
// result 2/3, top_k = 2, renormalize: the pairs divided by their sum:
//   t0 1/2, 1/2; t1 1/(1+e^-2) = 0.8807971, 0.1192029; t2 1/2, 1/2;
//   t3 1/(1+e^-3) = 0.9525741, 0.0474259.
// ROUTE:      result 0: tensor<4x3xi32>
// ROUTE-NEXT: {{^}} 1 3 2{{$}}
// ROUTE-NEXT: {{^}} 0 1 2{{$}}
// ROUTE-NEXT: {{^}} 0 1 2{{$}}
// ROUTE-NEXT: {{^}} 2 3 1{{$}}
// ROUTE-NEXT: result 1: tensor<4x3xf32>
// ROUTE-NEXT: {{^}} 0.399486{{[0-9]*}} 0.399486{{[0-9]*}} 0.146962{{[0-9]*$}}
// ROUTE-NEXT: {{^}} 0.757313{{[0-9]*}} 0.102491{{[0-9]*}} 0.102491{{[0-9]*$}}
// ROUTE-NEXT: {{^}} 0.25 0.25 0.25{{$}}
// ROUTE-NEXT: {{^}} 0.930370{{[0-9]*}} 0.0463204{{[0-9]*}} 0.0170403{{[0-9]*$}}
// ROUTE-NEXT: result 2: tensor<4x2xi32>
// ROUTE-NEXT: {{^}} 1 3{{$}}
// ROUTE-NEXT: {{^}} 0 1{{$}}
// ROUTE-NEXT: {{^}} 0 1{{$}}
// ROUTE-NEXT: {{^}} 2 3{{$}}
// ROUTE-NEXT: result 3: tensor<4x2xf32>
// ROUTE-NEXT: {{^}} 0.5 0.5{{$}}
// ROUTE-NEXT: {{^}} 0.880797{{[0-9]*}} 0.119202{{[0-9]*$}}
// ROUTE-NEXT: {{^}} 0.5 0.5{{$}}
// ROUTE-NEXT: {{^}} 0.952574{{[0-9]*}} 0.0474258{{[0-9]*$}}
func.func @route() -> (tensor<4x3xi32>, tensor<4x3xf32>, tensor<4x2xi32>,
                       tensor<4x2xf32>) {
  %logits = arith.constant dense<[[0.0, 2.0, 1.0, 2.0], [3.0, 1.0, 1.0, 0.0],
                                  [0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 5.0, 2.0]]>
      : tensor<4x4xf32>
  %ids3, %w3 = kgen.moe_route %logits {top_k = 3}
      : tensor<4x4xf32> -> tensor<4x3xi32>, tensor<4x3xf32>
  %ids2, %w2 = kgen.moe_route %logits {top_k = 2, renormalize}
      : tensor<4x4xf32> -> tensor<4x2xi32>, tensor<4x2xf32>
  return %ids3, %w3, %ids2, %w2
      : tensor<4x3xi32>, tensor<4x3xf32>, tensor<4x2xi32>, tensor<4x2xf32>
}

// x rows are x0 = [1, 2], x1 = [3, 4], x2 = [5, 6], x3 = [7, 8]; 3 experts,
// ids [[2, 0], [0, 3], [2, -1], [1, 1]]: ids 3 and -1 are out of range and
// dropped. In (token, slot) order per expert:
//   expert 0: (0, 1), (1, 0) -> rows 0, 1;
//   expert 1: (3, 0), (3, 1) -> rows 2, 3 (a token may repeat an expert);
//   expert 2: (0, 0), (2, 0) -> rows 4, 5;
//   rows 6, 7 are unused and zero.
// permuted = [x0, x1, x3, x3, x0, x2, 0, 0],
// positions = [[4, 0], [1, -1], [5, -1], [2, 3]], offsets = [0, 2, 4, 6].
// PERM:      result 0: tensor<8x2xbf16>
// PERM-NEXT: {{^}} 1 2{{$}}
// PERM-NEXT: {{^}} 3 4{{$}}
// PERM-NEXT: {{^}} 7 8{{$}}
// PERM-NEXT: {{^}} 7 8{{$}}
// PERM-NEXT: {{^}} 1 2{{$}}
// PERM-NEXT: {{^}} 5 6{{$}}
// PERM-NEXT: {{^}} 0 0{{$}}
// PERM-NEXT: {{^}} 0 0{{$}}
// PERM-NEXT: result 1: tensor<4x2xi32>
// PERM-NEXT: {{^}} 4 0{{$}}
// PERM-NEXT: {{^}} 1 -1{{$}}
// PERM-NEXT: {{^}} 5 -1{{$}}
// PERM-NEXT: {{^}} 2 3{{$}}
// PERM-NEXT: result 2: tensor<4xi32>
// PERM-NEXT: {{^}} 0 2 4 6{{$}}
func.func @permute() -> (tensor<8x2xbf16>, tensor<4x2xi32>, tensor<4xi32>) {
  %x = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]>
      : tensor<4x2xbf16>
  %ids = arith.constant dense<[[2, 0], [0, 3], [2, -1], [1, 1]]> : tensor<4x2xi32>
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 3}
      : tensor<4x2xbf16>, tensor<4x2xi32>
        -> tensor<8x2xbf16>, tensor<4x2xi32>, tensor<4xi32>
  return %xp, %pos, %off : tensor<8x2xbf16>, tensor<4x2xi32>, tensor<4xi32>
}

// a rows [1, 0], [0, 1], [1, 1], [2, -1]; b0 = [[1, 2], [3, 4]],
// b1 = [[5, 5], [5, 5]], b2 = [[1, 0], [0, -1]] (so [p, q] b2 = [p, -q]).
// result 0, offsets [0, 1, 1, 3]: expert 0 takes row 0 ([1, 2]), expert 1
//   is empty (b1 never used), expert 2 takes rows 1, 2 ([0, -1], [1, -1]);
//   row 3 is in no group: zero.
// result 1, offsets [-5, 1, 1, 9] clamp to [0, 1, 1, 4]: row 3 joins
//   expert 2: [2, 1].
// result 2, gated with relu, b_up0 = I, b_up2 = 2 I, offsets [0, 1, 1, 4]:
//   relu(a b) * (a b_up): row 0 [1, 2] * [1, 0] = [1, 0];
//   row 1 [0, 0] * [0, 2] = [0, 0]; row 2 [1, 0] * [2, 2] = [2, 0];
//   row 3 [2, 1] * [4, -2] = [8, -2].
// GG:      result 0: tensor<4x2xf32>
// GG-NEXT: {{^}} 1 2{{$}}
// GG-NEXT: {{^}} 0 -1{{$}}
// GG-NEXT: {{^}} 1 -1{{$}}
// GG-NEXT: {{^}} 0 0{{$}}
// GG-NEXT: result 1: tensor<4x2xf32>
// GG-NEXT: {{^}} 1 2{{$}}
// GG-NEXT: {{^}} 0 -1{{$}}
// GG-NEXT: {{^}} 1 -1{{$}}
// GG-NEXT: {{^}} 2 1{{$}}
// GG-NEXT: result 2: tensor<4x2xf32>
// GG-NEXT: {{^}} 1 0{{$}}
// GG-NEXT: {{^}} 0 0{{$}}
// GG-NEXT: {{^}} 2 0{{$}}
// GG-NEXT: {{^}} 8 -2{{$}}
func.func @grouped() -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>) {
  %a = arith.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, -1.0]]>
      : tensor<4x2xf32>
  %b = arith.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 5.0], [5.0, 5.0]],
                             [[1.0, 0.0], [0.0, -1.0]]]> : tensor<3x2x2xf32>
  %up = arith.constant dense<[[[1.0, 0.0], [0.0, 1.0]], [[5.0, 5.0], [5.0, 5.0]],
                              [[2.0, 0.0], [0.0, 2.0]]]> : tensor<3x2x2xf32>
  %off = arith.constant dense<[0, 1, 1, 3]> : tensor<4xi32>
  %off_clamped = arith.constant dense<[-5, 1, 1, 9]> : tensor<4xi32>
  %off_all = arith.constant dense<[0, 1, 1, 4]> : tensor<4xi32>
  %d = kgen.grouped_gemm %a, %b, %off
      : tensor<4x2xf32>, tensor<3x2x2xf32>, tensor<4xi32> -> tensor<4x2xf32>
  %dc = kgen.grouped_gemm %a, %b, %off_clamped
      : tensor<4x2xf32>, tensor<3x2x2xf32>, tensor<4xi32> -> tensor<4x2xf32>
  %dg = kgen.grouped_gemm %a, %b, %off_all gated(%up : tensor<3x2x2xf32>)
      {activation = #kgen.activation<relu>}
      : tensor<4x2xf32>, tensor<3x2x2xf32>, tensor<4xi32> -> tensor<4x2xf32>
  return %d, %dc, %dg : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>
}

// expert_out row r is [r + 1, -(r + 1)], T = 3, k = 2; positions
// [[1, 3], [-1, 0], [5, 6]] (-1 and 6 = T * k are dropped), weights
// [[0.5, 0.25], [2, 1], [0.125, 4]]:
//   y0 = 0.5 [2, -2] + 0.25 [4, -4] = [2, -2];
//   y1 = 1 [1, -1] = [1, -1];
//   y2 = 0.125 [6, -6] = [0.75, -0.75].
// COMB:      result 0: tensor<3x2xbf16>
// COMB-NEXT: {{^}} 2 -2{{$}}
// COMB-NEXT: {{^}} 1 -1{{$}}
// COMB-NEXT: {{^}} 0.75 -0.75{{$}}
func.func @combine() -> tensor<3x2xbf16> {
  %eo = arith.constant dense<[[1.0, -1.0], [2.0, -2.0], [3.0, -3.0], [4.0, -4.0],
                              [5.0, -5.0], [6.0, -6.0]]> : tensor<6x2xbf16>
  %pos = arith.constant dense<[[1, 3], [-1, 0], [5, 6]]> : tensor<3x2xi32>
  %w = arith.constant dense<[[0.5, 0.25], [2.0, 1.0], [0.125, 4.0]]> : tensor<3x2xf32>
  %y = kgen.moe_combine %eo, %pos, %w
      : tensor<6x2xbf16>, tensor<3x2xi32>, tensor<3x2xf32> -> tensor<3x2xbf16>
  return %y : tensor<3x2xbf16>
}

// Two experts (H = I = 2, relu), x = [[1, 2], [3, 1]].
// Expert 0: w_gate = w_up = w_down = I: y = relu(x) * x = [1, 4], [9, 1].
// Expert 1: w_gate swaps the columns, w_up = 2 I, w_down = [[1, 1], [0, 1]]:
//   a = swap(x) * 2x = [2, 1] * [2, 4] = [4, 4] and [1, 3] * [6, 2] = [6, 6];
//   y = [a0, a0 + a1] = [4, 8], [6, 12].
// result 0, top_k = 2, renormalize, equal logits: the mean of both experts,
//   [2.5, 6] and [7.5, 6.5];
// result 1, top_k = 1, renormalize, logits [2, 1] and [1, 3]: expert 0 for
//   token 0, expert 1 for token 1, weight 1: [1, 4] and [6, 12];
// result 2, the same without renormalize: the weight is the probability,
//   1/(1+e^-1) = 0.7310586 and 1/(1+e^-2) = 0.8807971:
//   [0.7310586, 2.9242343] and [5.2847825, 10.569565].
// MOE:      result 0: tensor<2x2xf32>
// MOE-NEXT: {{^}} 2.5 6{{$}}
// MOE-NEXT: {{^}} 7.5 6.5{{$}}
// MOE-NEXT: result 1: tensor<2x2xf32>
// MOE-NEXT: {{^}} 1 4{{$}}
// MOE-NEXT: {{^}} 6 12{{$}}
// MOE-NEXT: result 2: tensor<2x2xf32>
// MOE-NEXT: {{^}} 0.731058{{[0-9]*}} 2.924234{{[0-9]*$}}
// MOE-NEXT: {{^}} 5.284782{{[0-9]*}} 10.56956{{[0-9]*$}}
func.func @moe() -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %x = arith.constant dense<[[1.0, 2.0], [3.0, 1.0]]> : tensor<2x2xf32>
  %tie = arith.constant dense<[[0.0, 0.0], [1.0, 1.0]]> : tensor<2x2xf32>
  %pick = arith.constant dense<[[2.0, 1.0], [1.0, 3.0]]> : tensor<2x2xf32>
  %wg = arith.constant dense<[[[1.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]]]>
      : tensor<2x2x2xf32>
  %wu = arith.constant dense<[[[1.0, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 2.0]]]>
      : tensor<2x2x2xf32>
  %wd = arith.constant dense<[[[1.0, 0.0], [0.0, 1.0]], [[1.0, 1.0], [0.0, 1.0]]]>
      : tensor<2x2x2xf32>
  %mean = kgen.moe %x, %tie, %wg, %wu, %wd
      {top_k = 2, renormalize, activation = #kgen.activation<relu>}
      : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2x2xf32>, tensor<2x2x2xf32>,
        tensor<2x2x2xf32> -> tensor<2x2xf32>
  %one = kgen.moe %x, %pick, %wg, %wu, %wd
      {top_k = 1, renormalize, activation = #kgen.activation<relu>}
      : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2x2xf32>, tensor<2x2x2xf32>,
        tensor<2x2x2xf32> -> tensor<2x2xf32>
  %prob = kgen.moe %x, %pick, %wg, %wu, %wd
      {top_k = 1, activation = #kgen.activation<relu>}
      : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2x2xf32>, tensor<2x2x2xf32>,
        tensor<2x2x2xf32> -> tensor<2x2xf32>
  return %mean, %one, %prob : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// The rounding of the expert's hidden activation `a` to bf16 before the down
// projection. One token, one expert (weight 1), relu, x = [1, 2^-8]:
//   x w_gate with w_gate = [[1, 2^-9], [1, 0]]: [1 + 2^-8, 2^-9];
//   x w_up with w_up = [[1, 1], [0, 0]]: [1, 1];
//   a = [1 + 2^-8, 2^-9], rounded to bf16 (a tie to even): [1, 2^-9];
//   y = a w_down with w_down = [[1, 0], [1, 0]]: [1 + 2^-9, 0], to bf16: 1.
// Without the rounding of a, y would be 1 + 3 * 2^-9 -> bf16 1.0078125.
// MOE16:      result 0: tensor<1x2xbf16>
// MOE16-NEXT: {{^}} 1 0{{$}}
func.func @moe_bf16() -> tensor<1x2xbf16> {
  %x = arith.constant dense<[[1.0, 0.00390625]]> : tensor<1x2xbf16>
  %logits = arith.constant dense<0.0> : tensor<1x1xf32>
  %wg = arith.constant dense<[[[1.0, 0.001953125], [1.0, 0.0]]]> : tensor<1x2x2xbf16>
  %wu = arith.constant dense<[[[1.0, 1.0], [0.0, 0.0]]]> : tensor<1x2x2xbf16>
  %wd = arith.constant dense<[[[1.0, 0.0], [1.0, 0.0]]]> : tensor<1x2x2xbf16>
  %y = kgen.moe %x, %logits, %wg, %wu, %wd
      {top_k = 1, activation = #kgen.activation<relu>}
      : tensor<1x2xbf16>, tensor<1x1xf32>, tensor<1x2x2xbf16>, tensor<1x2x2xbf16>,
        tensor<1x2x2xbf16> -> tensor<1x2xbf16>
  return %y : tensor<1x2xbf16>
}
