// kgen.attention on the CPU reference against values worked out by hand.
//
// RUN: kgen-run %s --entry=uniform --print-values | FileCheck %s --check-prefix=UNI
// RUN: kgen-run %s --entry=more_queries --print-values | FileCheck %s --check-prefix=MOREQ
// RUN: kgen-run %s --entry=window --print-values | FileCheck %s --check-prefix=WIN
// RUN: kgen-run %s --entry=kv_lens --print-values | FileCheck %s --check-prefix=LENS
// RUN: kgen-run %s --entry=heads --print-values | FileCheck %s --check-prefix=HEADS
// RUN: kgen-run %s --entry=scale_softcap --print-values | FileCheck %s --check-prefix=CAP
//
// The inputs are built so that the softmax is easy (D = 32, f32 throughout):
// every query is s = [1 x 16, -1 x 16] and every key is [1 x 32], so all
// logits are q . k = 16 - 16 = 0 and the weights are uniform over the visible
// keys, exactly 1/n. Value row j is c_j * s, so an output row is
// mean(c over the visible keys) * s: printed as 16 copies of the mean, then
// 16 copies of its negation. With all logits 0, lse = ln(number visible).

// Sq = 2, Skv = 4, c = [1, 2, 3, 6].
// result 0/1, non-causal: both rows see all keys: mean 3, lse ln 4.
// result 2/3, causal, aligned bottom-right: query i sits at p = i + 4 - 2,
//   so row 0 sees keys 0..2 (mean 2, lse ln 3 = 1.0986123) and row 1 sees
//   keys 0..3 (mean 3, lse ln 4 = 1.3862944). (Top-left alignment would give
//   rows 1 and 1.5.)
// UNI:      result 0: tensor<1x1x2x32xf32>
// UNI-NEXT: {{^( 3){16}( -3){16}$}}
// UNI-NEXT: {{^( 3){16}( -3){16}$}}
// UNI-NEXT: result 1: tensor<1x1x2xf32>
// UNI-NEXT: {{^}} 1.386294{{[0-9]*}} 1.386294{{[0-9]*$}}
// UNI-NEXT: result 2: tensor<1x1x2x32xf32>
// UNI-NEXT: {{^( 2){16}( -2){16}$}}
// UNI-NEXT: {{^( 3){16}( -3){16}$}}
// UNI-NEXT: result 3: tensor<1x1x2xf32>
// UNI-NEXT: {{^}} 1.098612{{[0-9]*}} 1.386294{{[0-9]*$}}
func.func @uniform() -> (tensor<1x1x2x32xf32>, tensor<1x1x2xf32>,
                         tensor<1x1x2x32xf32>, tensor<1x1x2xf32>) {
  %pos = arith.constant dense<1.0> : tensor<16xf32>
  %neg = arith.constant dense<-1.0> : tensor<16xf32>
  %s = tensor.concat dim(0) %pos, %neg
      : (tensor<16xf32>, tensor<16xf32>) -> tensor<32xf32>
  %c = arith.constant dense<[1.0, 2.0, 3.0, 6.0]> : tensor<4xf32>
  %k = arith.constant dense<1.0> : tensor<1x1x4x32xf32>
  %eq = tensor.empty() : tensor<1x1x2x32xf32>
  %q = linalg.broadcast ins(%s : tensor<32xf32>)
      outs(%eq : tensor<1x1x2x32xf32>) dimensions = [0, 1, 2]
  %ev = tensor.empty() : tensor<1x1x4x32xf32>
  %cb = linalg.broadcast ins(%c : tensor<4xf32>)
      outs(%ev : tensor<1x1x4x32xf32>) dimensions = [0, 1, 3]
  %sb = linalg.broadcast ins(%s : tensor<32xf32>)
      outs(%ev : tensor<1x1x4x32xf32>) dimensions = [0, 1, 2]
  %v = arith.mulf %cb, %sb : tensor<1x1x4x32xf32>
  %o, %lse = kgen.attention %q, %k, %v
      : tensor<1x1x2x32xf32>, tensor<1x1x4x32xf32>, tensor<1x1x4x32xf32>
        -> tensor<1x1x2x32xf32>, tensor<1x1x2xf32>
  %oc, %lsec = kgen.attention %q, %k, %v {causal}
      : tensor<1x1x2x32xf32>, tensor<1x1x4x32xf32>, tensor<1x1x4x32xf32>
        -> tensor<1x1x2x32xf32>, tensor<1x1x2xf32>
  return %o, %lse, %oc, %lsec : tensor<1x1x2x32xf32>, tensor<1x1x2xf32>,
                                tensor<1x1x2x32xf32>, tensor<1x1x2xf32>
}

// Causal with more queries than keys: Sq = 4, Skv = 2, c = [1, 3]. Query i
// sits at p = i - 2: rows 0 and 1 see no key (zeros, lse -inf), row 2 sees
// key 0 (1, lse ln 1 = 0), row 3 sees both (2, lse ln 2 = 0.6931472).
// MOREQ:      result 0: tensor<1x1x4x32xf32>
// MOREQ-NEXT: {{^( -?0){32}$}}
// MOREQ-NEXT: {{^( -?0){32}$}}
// MOREQ-NEXT: {{^( 1){16}( -1){16}$}}
// MOREQ-NEXT: {{^( 2){16}( -2){16}$}}
// MOREQ-NEXT: result 1: tensor<1x1x4xf32>
// MOREQ-NEXT: {{^}} -inf -inf 0 0.693147{{[0-9]*$}}
func.func @more_queries() -> (tensor<1x1x4x32xf32>, tensor<1x1x4xf32>) {
  %pos = arith.constant dense<1.0> : tensor<16xf32>
  %neg = arith.constant dense<-1.0> : tensor<16xf32>
  %s = tensor.concat dim(0) %pos, %neg
      : (tensor<16xf32>, tensor<16xf32>) -> tensor<32xf32>
  %c = arith.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %k = arith.constant dense<1.0> : tensor<1x1x2x32xf32>
  %eq = tensor.empty() : tensor<1x1x4x32xf32>
  %q = linalg.broadcast ins(%s : tensor<32xf32>)
      outs(%eq : tensor<1x1x4x32xf32>) dimensions = [0, 1, 2]
  %ev = tensor.empty() : tensor<1x1x2x32xf32>
  %cb = linalg.broadcast ins(%c : tensor<2xf32>)
      outs(%ev : tensor<1x1x2x32xf32>) dimensions = [0, 1, 3]
  %sb = linalg.broadcast ins(%s : tensor<32xf32>)
      outs(%ev : tensor<1x1x2x32xf32>) dimensions = [0, 1, 2]
  %v = arith.mulf %cb, %sb : tensor<1x1x2x32xf32>
  %o, %lse = kgen.attention %q, %k, %v {causal}
      : tensor<1x1x4x32xf32>, tensor<1x1x2x32xf32>, tensor<1x1x2x32xf32>
        -> tensor<1x1x4x32xf32>, tensor<1x1x4xf32>
  return %o, %lse : tensor<1x1x4x32xf32>, tensor<1x1x4xf32>
}

// Sliding window, Sq = Skv = 4, c = [1, 2, 3, 6], so p = i. Window W hides
// keys j <= p - W, leaving keys p-W+1 .. p.
// result 0, W = 2: rows see {0}, {0,1}, {1,2}, {2,3}: 1, 1.5, 2.5, 4.5;
// result 1, W = 1: each row sees only its own key: 1, 2, 3, 6.
// WIN:      result 0: tensor<1x1x4x32xf32>
// WIN-NEXT: {{^( 1){16}( -1){16}$}}
// WIN-NEXT: {{^( 1.5){16}( -1.5){16}$}}
// WIN-NEXT: {{^( 2.5){16}( -2.5){16}$}}
// WIN-NEXT: {{^( 4.5){16}( -4.5){16}$}}
// WIN-NEXT: result 1: tensor<1x1x4x32xf32>
// WIN-NEXT: {{^( 1){16}( -1){16}$}}
// WIN-NEXT: {{^( 2){16}( -2){16}$}}
// WIN-NEXT: {{^( 3){16}( -3){16}$}}
// WIN-NEXT: {{^( 6){16}( -6){16}$}}
func.func @window() -> (tensor<1x1x4x32xf32>, tensor<1x1x4x32xf32>) {
  %pos = arith.constant dense<1.0> : tensor<16xf32>
  %neg = arith.constant dense<-1.0> : tensor<16xf32>
  %s = tensor.concat dim(0) %pos, %neg
      : (tensor<16xf32>, tensor<16xf32>) -> tensor<32xf32>
  %c = arith.constant dense<[1.0, 2.0, 3.0, 6.0]> : tensor<4xf32>
  %k = arith.constant dense<1.0> : tensor<1x1x4x32xf32>
  %e = tensor.empty() : tensor<1x1x4x32xf32>
  %q = linalg.broadcast ins(%s : tensor<32xf32>)
      outs(%e : tensor<1x1x4x32xf32>) dimensions = [0, 1, 2]
  %cb = linalg.broadcast ins(%c : tensor<4xf32>)
      outs(%e : tensor<1x1x4x32xf32>) dimensions = [0, 1, 3]
  %v = arith.mulf %cb, %q : tensor<1x1x4x32xf32>
  %o2 = kgen.attention %q, %k, %v {causal, sliding_window = 2 : i64}
      : tensor<1x1x4x32xf32>, tensor<1x1x4x32xf32>, tensor<1x1x4x32xf32>
        -> tensor<1x1x4x32xf32>
  %o1 = kgen.attention %q, %k, %v {causal, sliding_window = 1 : i64}
      : tensor<1x1x4x32xf32>, tensor<1x1x4x32xf32>, tensor<1x1x4x32xf32>
        -> tensor<1x1x4x32xf32>
  return %o2, %o1 : tensor<1x1x4x32xf32>, tensor<1x1x4x32xf32>
}

// kv_lens, Skv = 4, c = [1, 2, 3, 6] in every batch.
// result 0/1, B = 4, Sq = 1, kv_lens = [2, 0, 9, -3], clamped to
//   L = [2, 0, 4, 0]: means 1.5, none (zeros, lse -inf), 3, none;
//   lse ln 2, -inf, ln 4, -inf.
// result 2, causal with kv_lens = [3], Sq = 2: query i sits at
//   p = i + 3 - 2: row 0 sees keys 0, 1 (1.5), row 1 keys 0..2 (2); key 3
//   is past L. (Without kv_lens, p = i + 2 and the rows would be 2 and 3.)
// LENS:      result 0: tensor<4x1x1x32xf32>
// LENS-NEXT: {{^( 1.5){16}( -1.5){16}$}}
// LENS-NEXT: {{^( -?0){32}$}}
// LENS-NEXT: {{^( 3){16}( -3){16}$}}
// LENS-NEXT: {{^( -?0){32}$}}
// LENS-NEXT: result 1: tensor<4x1x1xf32>
// LENS-NEXT: {{^}} 0.693147{{[0-9]*$}}
// LENS-NEXT: {{^}} -inf{{$}}
// LENS-NEXT: {{^}} 1.386294{{[0-9]*$}}
// LENS-NEXT: {{^}} -inf{{$}}
// LENS-NEXT: result 2: tensor<1x1x2x32xf32>
// LENS-NEXT: {{^( 1.5){16}( -1.5){16}$}}
// LENS-NEXT: {{^( 2){16}( -2){16}$}}
func.func @kv_lens() -> (tensor<4x1x1x32xf32>, tensor<4x1x1xf32>,
                         tensor<1x1x2x32xf32>) {
  %pos = arith.constant dense<1.0> : tensor<16xf32>
  %neg = arith.constant dense<-1.0> : tensor<16xf32>
  %s = tensor.concat dim(0) %pos, %neg
      : (tensor<16xf32>, tensor<16xf32>) -> tensor<32xf32>
  %c = arith.constant dense<[1.0, 2.0, 3.0, 6.0]> : tensor<4xf32>
  %lens = arith.constant dense<[2, 0, 9, -3]> : tensor<4xi32>
  %lens1 = arith.constant dense<3> : tensor<1xi32>
  %k = arith.constant dense<1.0> : tensor<4x1x4x32xf32>
  %eq = tensor.empty() : tensor<4x1x1x32xf32>
  %q = linalg.broadcast ins(%s : tensor<32xf32>)
      outs(%eq : tensor<4x1x1x32xf32>) dimensions = [0, 1, 2]
  %ev = tensor.empty() : tensor<4x1x4x32xf32>
  %cb = linalg.broadcast ins(%c : tensor<4xf32>)
      outs(%ev : tensor<4x1x4x32xf32>) dimensions = [0, 1, 3]
  %sb = linalg.broadcast ins(%s : tensor<32xf32>)
      outs(%ev : tensor<4x1x4x32xf32>) dimensions = [0, 1, 2]
  %v = arith.mulf %cb, %sb : tensor<4x1x4x32xf32>
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<4xi32>)
      : tensor<4x1x1x32xf32>, tensor<4x1x4x32xf32>, tensor<4x1x4x32xf32>
        -> tensor<4x1x1x32xf32>, tensor<4x1x1xf32>
  %q1 = tensor.extract_slice %q[0, 0, 0, 0] [1, 1, 1, 32] [1, 1, 1, 1]
      : tensor<4x1x1x32xf32> to tensor<1x1x1x32xf32>
  %q2 = tensor.concat dim(2) %q1, %q1
      : (tensor<1x1x1x32xf32>, tensor<1x1x1x32xf32>) -> tensor<1x1x2x32xf32>
  %k1 = tensor.extract_slice %k[0, 0, 0, 0] [1, 1, 4, 32] [1, 1, 1, 1]
      : tensor<4x1x4x32xf32> to tensor<1x1x4x32xf32>
  %v1 = tensor.extract_slice %v[0, 0, 0, 0] [1, 1, 4, 32] [1, 1, 1, 1]
      : tensor<4x1x4x32xf32> to tensor<1x1x4x32xf32>
  %oc = kgen.attention %q2, %k1, %v1 kv_lens(%lens1 : tensor<1xi32>) {causal}
      : tensor<1x1x2x32xf32>, tensor<1x1x4x32xf32>, tensor<1x1x4x32xf32>
        -> tensor<1x1x2x32xf32>
  return %o, %lse, %oc
      : tensor<4x1x1x32xf32>, tensor<4x1x1xf32>, tensor<1x1x2x32xf32>
}

// Head mapping, Sq = 1, Skv = 2. Value head 0 has c = [1, 3] (mean 2),
// value head 1 has c = [5, 7] (mean 6).
// result 0, GQA Hq = 4, Hkv = 2: query head h reads kv head h / 2, so the
//   heads give 2, 2, 6, 6 (h % 2 would give 2, 6, 2, 6);
// result 1, MQA Hq = 4, Hkv = 1 (kv head 0 only): 2, 2, 2, 2.
// HEADS:      result 0: tensor<1x4x1x32xf32>
// HEADS-NEXT: {{^( 2){16}( -2){16}$}}
// HEADS-NEXT: {{^( 2){16}( -2){16}$}}
// HEADS-NEXT: {{^( 6){16}( -6){16}$}}
// HEADS-NEXT: {{^( 6){16}( -6){16}$}}
// HEADS-NEXT: result 1: tensor<1x4x1x32xf32>
// HEADS-NEXT: {{^( 2){16}( -2){16}$}}
// HEADS-NEXT: {{^( 2){16}( -2){16}$}}
// HEADS-NEXT: {{^( 2){16}( -2){16}$}}
// HEADS-NEXT: {{^( 2){16}( -2){16}$}}
func.func @heads() -> (tensor<1x4x1x32xf32>, tensor<1x4x1x32xf32>) {
  %pos = arith.constant dense<1.0> : tensor<16xf32>
  %neg = arith.constant dense<-1.0> : tensor<16xf32>
  %s = tensor.concat dim(0) %pos, %neg
      : (tensor<16xf32>, tensor<16xf32>) -> tensor<32xf32>
  %c = arith.constant dense<[[1.0, 3.0], [5.0, 7.0]]> : tensor<2x2xf32>
  %k = arith.constant dense<1.0> : tensor<1x2x2x32xf32>
  %eq = tensor.empty() : tensor<1x4x1x32xf32>
  %q = linalg.broadcast ins(%s : tensor<32xf32>)
      outs(%eq : tensor<1x4x1x32xf32>) dimensions = [0, 1, 2]
  %ev = tensor.empty() : tensor<1x2x2x32xf32>
  %cb = linalg.broadcast ins(%c : tensor<2x2xf32>)
      outs(%ev : tensor<1x2x2x32xf32>) dimensions = [0, 3]
  %sb = linalg.broadcast ins(%s : tensor<32xf32>)
      outs(%ev : tensor<1x2x2x32xf32>) dimensions = [0, 1, 2]
  %v = arith.mulf %cb, %sb : tensor<1x2x2x32xf32>
  %gqa = kgen.attention %q, %k, %v
      : tensor<1x4x1x32xf32>, tensor<1x2x2x32xf32>, tensor<1x2x2x32xf32>
        -> tensor<1x4x1x32xf32>
  %k0 = tensor.extract_slice %k[0, 0, 0, 0] [1, 1, 2, 32] [1, 1, 1, 1]
      : tensor<1x2x2x32xf32> to tensor<1x1x2x32xf32>
  %v0 = tensor.extract_slice %v[0, 0, 0, 0] [1, 1, 2, 32] [1, 1, 1, 1]
      : tensor<1x2x2x32xf32> to tensor<1x1x2x32xf32>
  %mqa = kgen.attention %q, %k0, %v0
      : tensor<1x4x1x32xf32>, tensor<1x1x2x32xf32>, tensor<1x1x2x32xf32>
        -> tensor<1x4x1x32xf32>
  return %gqa, %mqa : tensor<1x4x1x32xf32>, tensor<1x4x1x32xf32>
}

// Logits that are not all equal, to see `scale` and `softcap`. One query
// [0.25 x 32]; key 0 is [1 x 32], key 1 is [-1 x 32], so q . k = +-8; value
// rows c = [1, 3] times s.
// result 0/1, scale = 5: logits +-40. Key 1 weighs e^-80 (~1.8e-35), far
//   below an f32 ulp: the row is exactly value 0 (1), lse = 40 + ln(1 +
//   e^-80) = 40.
// result 2/3, scale = 5 and softcap = 10: logits 10 tanh(+-4) = +-9.993293;
//   key 1 weighs e^-19.987 (~2.1e-9), the row moves by 2 * 2.1e-9 < half an
//   ulp of 1 and stays 1; lse = 9.993293 + 2.1e-9 = 9.993293 (not 40).
// CAP:      result 0: tensor<1x1x1x32xf32>
// CAP-NEXT: {{^( 1){16}( -1){16}$}}
// CAP-NEXT: result 1: tensor<1x1x1xf32>
// CAP-NEXT: {{^}} 40{{$}}
// CAP-NEXT: result 2: tensor<1x1x1x32xf32>
// CAP-NEXT: {{^( 1){16}( -1){16}$}}
// CAP-NEXT: result 3: tensor<1x1x1xf32>
// CAP-NEXT: {{^}} 9.99329{{[0-9]*$}}
func.func @scale_softcap() -> (tensor<1x1x1x32xf32>, tensor<1x1x1xf32>,
                               tensor<1x1x1x32xf32>, tensor<1x1x1xf32>) {
  %pos = arith.constant dense<1.0> : tensor<16xf32>
  %neg = arith.constant dense<-1.0> : tensor<16xf32>
  %s = tensor.concat dim(0) %pos, %neg
      : (tensor<16xf32>, tensor<16xf32>) -> tensor<32xf32>
  %q = arith.constant dense<0.25> : tensor<1x1x1x32xf32>
  %c = arith.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %kc = arith.constant dense<[1.0, -1.0]> : tensor<2xf32>
  %e = tensor.empty() : tensor<1x1x2x32xf32>
  %k = linalg.broadcast ins(%kc : tensor<2xf32>)
      outs(%e : tensor<1x1x2x32xf32>) dimensions = [0, 1, 3]
  %cb = linalg.broadcast ins(%c : tensor<2xf32>)
      outs(%e : tensor<1x1x2x32xf32>) dimensions = [0, 1, 3]
  %sb = linalg.broadcast ins(%s : tensor<32xf32>)
      outs(%e : tensor<1x1x2x32xf32>) dimensions = [0, 1, 2]
  %v = arith.mulf %cb, %sb : tensor<1x1x2x32xf32>
  %o, %lse = kgen.attention %q, %k, %v {scale = 5.0 : f32}
      : tensor<1x1x1x32xf32>, tensor<1x1x2x32xf32>, tensor<1x1x2x32xf32>
        -> tensor<1x1x1x32xf32>, tensor<1x1x1xf32>
  %oc, %lsec = kgen.attention %q, %k, %v {scale = 5.0 : f32, softcap = 10.0 : f32}
      : tensor<1x1x1x32xf32>, tensor<1x1x2x32xf32>, tensor<1x1x2x32xf32>
        -> tensor<1x1x1x32xf32>, tensor<1x1x1xf32>
  return %o, %lse, %oc, %lsec : tensor<1x1x1x32xf32>, tensor<1x1x1xf32>,
                                tensor<1x1x1x32xf32>, tensor<1x1x1xf32>
}
