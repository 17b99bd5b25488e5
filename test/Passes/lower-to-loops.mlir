// kgen ops become scf loops on memrefs: operands through to_buffer read_only,
// one memref.alloc per result, f32 arithmetic between arith.extf on loads
// and one arith.truncf per store, results through to_tensor restrict
// writable.
// RUN: kgen-opt %s --split-input-file --kgen-lower-to-loops | FileCheck %s

// CHECK-LABEL: func.func @gemm_bf16(
// CHECK-SAME:    %[[A:.+]]: tensor<4x8xbf16>, %[[B:.+]]: tensor<8x2xbf16>)
// CHECK-NOT:     kgen.
// CHECK-DAG:     %[[ABUF:.+]] = bufferization.to_buffer %[[A]] read_only : tensor<4x8xbf16> to memref<4x8xbf16, strided<[?, ?], offset: ?>>
// CHECK-DAG:     %[[BBUF:.+]] = bufferization.to_buffer %[[B]] read_only : tensor<8x2xbf16> to memref<8x2xbf16, strided<[?, ?], offset: ?>>
// CHECK:         %[[D:.+]] = memref.alloc() : memref<4x2xbf16>
// CHECK:         scf.for
// CHECK:           scf.for %[[M:.+]] = %{{.+}} to %{{.+}} step
// CHECK:             scf.for %[[N:.+]] = %{{.+}} to %{{.+}} step
// CHECK:               %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:               %[[ACC:.+]] = scf.for %[[K:.+]] = %{{.+}} iter_args(%[[SUM:.+]] = %[[ZERO]]) -> (f32) {
// CHECK-DAG:             %[[AV:.+]] = memref.load %[[ABUF]][%[[M]], %[[K]]]
// CHECK-DAG:             %[[BV:.+]] = memref.load %[[BBUF]][%[[K]], %[[N]]]
// CHECK-DAG:             %[[AF:.+]] = arith.extf %[[AV]] : bf16 to f32
// CHECK-DAG:             %[[BF:.+]] = arith.extf %[[BV]] : bf16 to f32
// CHECK:                 %[[PROD:.+]] = arith.mulf %[[AF]], %[[BF]] : f32
// CHECK:                 %[[NEXT:.+]] = arith.addf %[[SUM]], %[[PROD]] : f32
// CHECK-NOT:             arith.truncf
// CHECK:                 scf.yield %[[NEXT]] : f32
// CHECK:               }
// CHECK:               %[[ALPHA:.+]] = arith.constant 1.000000e+00 : f32
// CHECK:               %[[SCALED:.+]] = arith.mulf %[[ALPHA]], %[[ACC]] : f32
// CHECK:               %[[R:.+]] = arith.truncf %[[SCALED]] : f32 to bf16
// CHECK-NEXT:          memref.store %[[R]], %[[D]][%[[M]], %[[N]]] : memref<4x2xbf16>
// CHECK:         %[[T:.+]] = bufferization.to_tensor %[[D]] restrict writable : memref<4x2xbf16> to tensor<4x2xbf16>
// CHECK-NEXT:    return %[[T]]
func.func @gemm_bf16(%a: tensor<4x8xbf16>, %b: tensor<8x2xbf16>) -> tensor<4x2xbf16> {
  %d = kgen.gemm %a, %b : tensor<4x8xbf16>, tensor<8x2xbf16> -> tensor<4x2xbf16>
  return %d : tensor<4x2xbf16>
}

// -----

// f32 operands and result: no conversion at all.
// CHECK-LABEL: func.func @gemm_f32(
// CHECK-NOT:     kgen.
// CHECK-NOT:     arith.extf
// CHECK-NOT:     arith.truncf
// CHECK:         scf.for
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK-NOT:     arith.extf
// CHECK-NOT:     arith.truncf
// CHECK:         memref.store %{{.+}} : memref<4x2xf32>
// CHECK-NOT:     arith.truncf
// CHECK:         return
func.func @gemm_f32(%a: tensor<4x8xf32>, %b: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %d = kgen.gemm %a, %b : tensor<4x8xf32>, tensor<8x2xf32> -> tensor<4x2xf32>
  return %d : tensor<4x2xf32>
}

// -----

// The epilogue: batched a, broadcast transposed b, f16 accumulation (rounded
// after every step), alpha, beta * residual, an f32 bias (no extf), relu,
// one truncf at the store.
// CHECK-LABEL: func.func @gemm_epilogue(
// CHECK-SAME:    %[[A:.+]]: tensor<2x4x8xf16>, %[[B:.+]]: tensor<2x8xf16>, %[[BIAS:.+]]: tensor<2xf32>, %[[C:.+]]: tensor<2x4x2xf16>)
// CHECK-NOT:     kgen.
// CHECK-DAG:     %[[ABUF:.+]] = bufferization.to_buffer %[[A]] read_only
// CHECK-DAG:     %[[BBUF:.+]] = bufferization.to_buffer %[[B]] read_only
// CHECK-DAG:     %[[BIASBUF:.+]] = bufferization.to_buffer %[[BIAS]] read_only
// CHECK-DAG:     %[[CBUF:.+]] = bufferization.to_buffer %[[C]] read_only
// CHECK:         %[[D:.+]] = memref.alloc() : memref<2x4x2xf16>
// CHECK:         scf.for %[[BT:.+]] = %{{.+}} to %{{.+}} step
// CHECK:           scf.for %[[M:.+]] = %{{.+}} to %{{.+}} step
// CHECK:             scf.for %[[N:.+]] = %{{.+}} to %{{.+}} step
// CHECK:               %[[ACC:.+]] = scf.for %[[K:.+]] = %{{.+}} iter_args(%[[SUM:.+]] = %{{.+}}) -> (f32) {
// CHECK-DAG:             memref.load %[[ABUF]][%[[BT]], %[[M]], %[[K]]]
// CHECK-DAG:             memref.load %[[BBUF]][%[[N]], %[[K]]]
// CHECK:                 %[[NEXT:.+]] = arith.addf %[[SUM]], %{{.+}} : f32
// CHECK-NEXT:            %[[H:.+]] = arith.truncf %[[NEXT]] : f32 to f16
// CHECK-NEXT:            %[[W:.+]] = arith.extf %[[H]] : f16 to f32
// CHECK-NEXT:            scf.yield %[[W]] : f32
// CHECK:               %[[ALPHA:.+]] = arith.constant 2.000000e+00 : f32
// CHECK:               %[[V0:.+]] = arith.mulf %[[ALPHA]], %[[ACC]] : f32
// CHECK-DAG:           %[[CV:.+]] = memref.load %[[CBUF]][%[[BT]], %[[M]], %[[N]]]
// CHECK-DAG:           %[[CF:.+]] = arith.extf %[[CV]] : f16 to f32
// CHECK-DAG:           %[[BETA:.+]] = arith.constant 5.000000e-01 : f32
// CHECK:               %[[CS:.+]] = arith.mulf %[[BETA]], %[[CF]] : f32
// CHECK:               %[[V1:.+]] = arith.addf %[[V0]], %[[CS]] : f32
// CHECK:               %[[BV:.+]] = memref.load %[[BIASBUF]][%[[N]]] : memref<2xf32, strided<[?], offset: ?>>
// CHECK-NOT:           arith.extf
// CHECK:               %[[V2:.+]] = arith.addf %[[V1]], %[[BV]] : f32
// CHECK:               %[[RELU:.+]] = arith.maximumf %[[V2]], %{{.+}} : f32
// CHECK:               %[[R:.+]] = arith.truncf %[[RELU]] : f32 to f16
// CHECK:               memref.store %[[R]], %[[D]][%[[BT]], %[[M]], %[[N]]] : memref<2x4x2xf16>
// CHECK:         bufferization.to_tensor %[[D]] restrict writable : memref<2x4x2xf16> to tensor<2x4x2xf16>
func.func @gemm_epilogue(%a: tensor<2x4x8xf16>, %b: tensor<2x8xf16>, %bias: tensor<2xf32>, %c: tensor<2x4x2xf16>) -> tensor<2x4x2xf16> {
  %d = kgen.gemm %a, %b bias(%bias : tensor<2xf32>) residual(%c : tensor<2x4x2xf16>)
         {transpose_b, alpha = 2.0 : f32, beta = 0.5 : f32, activation = #kgen.activation<relu>, acc_type = f16}
         : tensor<2x4x8xf16>, tensor<2x8xf16> -> tensor<2x4x2xf16>
  return %d : tensor<2x4x2xf16>
}

// -----

// Batched b: both loads are indexed by the batch; transpose_a swaps a's
// indices.
// CHECK-LABEL: func.func @gemm_batched_transpose_a(
// CHECK-SAME:    %[[A:.+]]: tensor<3x8x4xf32>, %[[B:.+]]: tensor<3x8x2xf32>)
// CHECK-DAG:     %[[ABUF:.+]] = bufferization.to_buffer %[[A]] read_only
// CHECK-DAG:     %[[BBUF:.+]] = bufferization.to_buffer %[[B]] read_only
// CHECK:         scf.for %[[BT:.+]] = %{{.+}} to %{{.+}} step
// CHECK:           scf.for %[[M:.+]] = %{{.+}} to %{{.+}} step
// CHECK:             scf.for %[[N:.+]] = %{{.+}} to %{{.+}} step
// CHECK:               scf.for %[[K:.+]] = %{{.+}} iter_args
// CHECK-DAG:             memref.load %[[ABUF]][%[[BT]], %[[K]], %[[M]]]
// CHECK-DAG:             memref.load %[[BBUF]][%[[BT]], %[[K]], %[[N]]]
func.func @gemm_batched_transpose_a(%a: tensor<3x8x4xf32>, %b: tensor<3x8x2xf32>) -> tensor<3x4x2xf32> {
  %d = kgen.gemm %a, %b {transpose_a} : tensor<3x8x4xf32>, tensor<3x8x2xf32> -> tensor<3x4x2xf32>
  return %d : tensor<3x4x2xf32>
}

// -----

// gelu (tanh form) and silu (x / (1 + exp(-x))).
// CHECK-LABEL: func.func @gemm_gelu(
// CHECK-NOT:     kgen.
// CHECK-DAG:     arith.constant 0.797884583 : f32
// CHECK-DAG:     arith.constant 4.471500e-02 : f32
// CHECK:         math.tanh
// CHECK:         arith.truncf {{.+}} : f32 to f16
// CHECK-LABEL: func.func @gemm_silu(
// CHECK-NOT:     kgen.
// CHECK:         %[[NEG:.+]] = arith.negf %[[X:.+]] : f32
// CHECK-NEXT:    %[[E:.+]] = math.exp %[[NEG]] : f32
// CHECK:         %[[DEN:.+]] = arith.addf %{{.+}}, %[[E]] : f32
// CHECK-NEXT:    %[[S:.+]] = arith.divf %[[X]], %[[DEN]] : f32
// CHECK-NEXT:    arith.truncf %[[S]] : f32 to f16
func.func @gemm_gelu(%a: tensor<4x8xf16>, %b: tensor<8x2xf16>) -> tensor<4x2xf16> {
  %d = kgen.gemm %a, %b {activation = #kgen.activation<gelu>} : tensor<4x8xf16>, tensor<8x2xf16> -> tensor<4x2xf16>
  return %d : tensor<4x2xf16>
}
func.func @gemm_silu(%a: tensor<4x8xf16>, %b: tensor<8x2xf16>) -> tensor<4x2xf16> {
  %d = kgen.gemm %a, %b {activation = #kgen.activation<silu>} : tensor<4x8xf16>, tensor<8x2xf16> -> tensor<4x2xf16>
  return %d : tensor<4x2xf16>
}

// -----

// Attention: a scratch row of Skv f32 logits, masked with select, softmax
// with math.exp, the output rounded once, the log-sum-exp in f32.
// CHECK-LABEL: func.func @attention(
// CHECK-SAME:    %[[Q:.+]]: tensor<1x2x4x32xf16>, %[[K:.+]]: tensor<1x1x8x32xf16>, %[[V:.+]]: tensor<1x1x8x32xf16>, %[[LENS:.+]]: tensor<1xi32>)
// CHECK-NOT:     kgen.
// CHECK-DAG:     bufferization.to_buffer %[[Q]] read_only
// CHECK-DAG:     bufferization.to_buffer %[[K]] read_only
// CHECK-DAG:     bufferization.to_buffer %[[V]] read_only
// CHECK-DAG:     %[[LBUF:.+]] = bufferization.to_buffer %[[LENS]] read_only : tensor<1xi32> to memref<1xi32, strided<[?], offset: ?>>
// CHECK-DAG:     %[[OUT:.+]] = memref.alloc() : memref<1x2x4x32xf16>
// CHECK-DAG:     %[[LSE:.+]] = memref.alloc() : memref<1x2x4xf32>
// CHECK-DAG:     %[[ROW:.+]] = memref.alloc() : memref<8xf32>
// CHECK:         scf.for
// CHECK:           memref.load %[[LBUF]]
// CHECK:           arith.maxsi
// CHECK:           arith.minsi
// CHECK:           scf.for
// CHECK:             arith.divui
// CHECK:             scf.for
// Pass 1: logits, softcap, mask, max.
// CHECK:               scf.for %[[J:.+]] = %{{.+}} iter_args
// CHECK:                 scf.for
// CHECK:                   arith.extf {{.+}} : f16 to f32
// CHECK:                   arith.mulf
// CHECK:                   arith.addf
// CHECK:                 math.tanh
// CHECK:                 arith.cmpi slt, %[[J]]
// CHECK:                 arith.cmpi sle, %[[J]]
// CHECK:                 arith.andi
// CHECK:                 arith.cmpi sge, %[[J]]
// CHECK:                 arith.andi
// CHECK:                 %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK:                 %[[MASKED:.+]] = arith.select %{{.+}}, %{{.+}}, %[[NEGINF]] : f32
// CHECK:                 memref.store %[[MASKED]], %[[ROW]][%[[J]]] : memref<8xf32>
// CHECK:                 arith.maximumf
// Pass 2: exponentials in place and their sum.
// CHECK:               scf.for %[[J2:.+]] = %{{.+}} iter_args
// CHECK:                 memref.load %[[ROW]][%[[J2]]]
// CHECK:                 arith.subf
// CHECK:                 %[[P:.+]] = math.exp
// CHECK:                 memref.store %[[P]], %[[ROW]][%[[J2]]]
// Pass 3: weighted sum of V, divided by the sum, zero for an empty row.
// CHECK:               scf.for
// CHECK:                 scf.for
// CHECK:                   memref.load %[[ROW]]
// CHECK:                 arith.divf
// CHECK:                 %[[O:.+]] = arith.select
// CHECK:                 %[[OH:.+]] = arith.truncf %[[O]] : f32 to f16
// CHECK:                 memref.store %[[OH]], %[[OUT]]
// CHECK:               math.log
// CHECK:               %[[L:.+]] = arith.select
// CHECK-NOT:           arith.truncf
// CHECK:               memref.store %[[L]], %[[LSE]]
// CHECK:         memref.dealloc %[[ROW]] : memref<8xf32>
// CHECK:         %[[TO:.+]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<1x2x4x32xf16> to tensor<1x2x4x32xf16>
// CHECK:         %[[TL:.+]] = bufferization.to_tensor %[[LSE]] restrict writable : memref<1x2x4xf32> to tensor<1x2x4xf32>
// CHECK:         return %[[TO]], %[[TL]]
func.func @attention(%q: tensor<1x2x4x32xf16>, %k: tensor<1x1x8x32xf16>, %v: tensor<1x1x8x32xf16>, %lens: tensor<1xi32>) -> (tensor<1x2x4x32xf16>, tensor<1x2x4xf32>) {
  %o, %l = kgen.attention %q, %k, %v kv_lens(%lens : tensor<1xi32>) {causal, sliding_window = 2, softcap = 20.0 : f32}
      : tensor<1x2x4x32xf16>, tensor<1x1x8x32xf16>, tensor<1x1x8x32xf16> -> tensor<1x2x4x32xf16>, tensor<1x2x4xf32>
  return %o, %l : tensor<1x2x4x32xf16>, tensor<1x2x4xf32>
}

// -----

// Without causal, window, softcap or lse: only the kv_lens mask (j < Skv),
// no tanh, no log, and the default scale 1/sqrt(64).
// CHECK-LABEL: func.func @attention_plain(
// CHECK-NOT:     kgen.
// CHECK:         %[[ROW:.+]] = memref.alloc() : memref<16xf32>
// CHECK:         arith.constant 1.250000e-01 : f32
// CHECK-NOT:     math.tanh
// CHECK-NOT:     arith.cmpi sle
// CHECK:         arith.cmpi slt
// CHECK-NOT:     arith.cmpi sle
// CHECK-NOT:     arith.cmpi sgt
// CHECK:         arith.select
// CHECK:         math.exp
// CHECK-NOT:     math.log
// CHECK:         memref.dealloc %[[ROW]]
// CHECK:         bufferization.to_tensor
// CHECK-NOT:     bufferization.to_tensor
// CHECK:         return
func.func @attention_plain(%q: tensor<1x1x4x64xbf16>, %k: tensor<1x1x16x64xbf16>, %v: tensor<1x1x16x64xbf16>) -> tensor<1x1x4x64xbf16> {
  %o = kgen.attention %q, %k, %v : tensor<1x1x4x64xbf16>, tensor<1x1x16x64xbf16>, tensor<1x1x16x64xbf16> -> tensor<1x1x4x64xbf16>
  return %o : tensor<1x1x4x64xbf16>
}

// -----

// moe_permute: every store that depends on an expert id sits under an
// scf.if that checks 0 <= id < num_experts.
// CHECK-LABEL: func.func @moe_permute(
// CHECK-SAME:    %[[X:.+]]: tensor<4x8xbf16>, %[[IDS:.+]]: tensor<4x2xi32>)
// CHECK-NOT:     kgen.
// CHECK-DAG:     %[[XBUF:.+]] = bufferization.to_buffer %[[X]] read_only
// CHECK-DAG:     %[[IDBUF:.+]] = bufferization.to_buffer %[[IDS]] read_only
// CHECK-DAG:     %[[PERM:.+]] = memref.alloc() : memref<8x8xbf16>
// CHECK-DAG:     %[[POS:.+]] = memref.alloc() : memref<4x2xi32>
// CHECK-DAG:     %[[OFF:.+]] = memref.alloc() : memref<4xi32>
// CHECK-DAG:     %[[CUR:.+]] = memref.alloc() : memref<3xindex>
// Counting pass.
// CHECK:         %[[ID:.+]] = memref.load %[[IDBUF]]
// CHECK-NEXT:    %[[E:.+]] = arith.index_cast %[[ID]] : i32 to index
// CHECK-DAG:     arith.cmpi sge, %[[E]]
// CHECK-DAG:     arith.cmpi slt, %[[E]]
// CHECK:         %[[OK:.+]] = arith.andi
// CHECK-NEXT:    scf.if %[[OK]] {
// CHECK-NEXT:      memref.load %[[CUR]][%[[E]]]
// CHECK-NEXT:      arith.constant 1 : index
// CHECK-NEXT:      arith.addi
// CHECK-NEXT:      memref.store %{{.+}}, %[[CUR]][%[[E]]]
// CHECK-NEXT:    }
// Prefix sum into the offsets.
// CHECK:         memref.store %{{.+}}, %[[OFF]]
// CHECK:         scf.for {{.+}} -> (index)
// CHECK:           memref.store %{{.+}}, %[[OFF]]
// Positions default to -1.
// CHECK:         arith.constant -1 : i32
// CHECK:         memref.store %{{.+}}, %[[POS]]
// Copy pass.
// CHECK:         %[[ID2:.+]] = memref.load %[[IDBUF]]
// CHECK-NEXT:    %[[E2:.+]] = arith.index_cast %[[ID2]] : i32 to index
// CHECK-DAG:     arith.cmpi sge, %[[E2]]
// CHECK-DAG:     arith.cmpi slt, %[[E2]]
// CHECK:         %[[OK2:.+]] = arith.andi
// CHECK-NEXT:    scf.if %[[OK2]] {
// CHECK-NEXT:      %[[P:.+]] = memref.load %[[CUR]][%[[E2]]]
// CHECK:           memref.store %{{.+}}, %[[CUR]][%[[E2]]]
// CHECK:           memref.store %{{.+}}, %[[POS]]
// CHECK:           scf.for
// CHECK:             %[[ROWV:.+]] = memref.load %[[XBUF]]
// CHECK-NEXT:        memref.store %[[ROWV]], %[[PERM]][%[[P]], %{{.+}}] : memref<8x8xbf16>
// CHECK:         memref.dealloc %[[CUR]]
// CHECK-DAG:     bufferization.to_tensor %[[PERM]] restrict writable
// CHECK-DAG:     bufferization.to_tensor %[[POS]] restrict writable
// CHECK-DAG:     bufferization.to_tensor %[[OFF]] restrict writable
// CHECK:         return
func.func @moe_permute(%x: tensor<4x8xbf16>, %ids: tensor<4x2xi32>) -> (tensor<8x8xbf16>, tensor<4x2xi32>, tensor<4xi32>) {
  %xp, %pos, %off = kgen.moe_permute %x, %ids {num_experts = 3} : tensor<4x8xbf16>, tensor<4x2xi32> -> tensor<8x8xbf16>, tensor<4x2xi32>, tensor<4xi32>
  return %xp, %pos, %off : tensor<8x8xbf16>, tensor<4x2xi32>, tensor<4xi32>
}

// -----

// grouped_gemm: offsets clamped to [0, R], one row loop per expert between
// them, gate and up accumulated together, silu(gate) * up.
// CHECK-LABEL: func.func @grouped_gemm_gated(
// CHECK-SAME:    %[[A:.+]]: tensor<8x16xbf16>, %[[B:.+]]: tensor<2x16x4xbf16>, %[[OFF:.+]]: tensor<3xi32>, %[[UP:.+]]: tensor<2x16x4xbf16>)
// CHECK-NOT:     kgen.
// CHECK-DAG:     %[[BBUF:.+]] = bufferization.to_buffer %[[B]] read_only
// CHECK-DAG:     %[[UPBUF:.+]] = bufferization.to_buffer %[[UP]] read_only
// CHECK-DAG:     %[[OFFBUF:.+]] = bufferization.to_buffer %[[OFF]] read_only
// CHECK:         %[[D:.+]] = memref.alloc() : memref<8x4xbf16>
// CHECK:         memref.store %{{.+}}, %[[D]]
// CHECK:         scf.for %[[E:.+]] = %{{.+}} to %{{.+}} step
// CHECK:           memref.load %[[OFFBUF]][%[[E]]]
// CHECK:           arith.maxsi
// CHECK:           %[[LO:.+]] = arith.minsi
// CHECK:           memref.load %[[OFFBUF]]
// CHECK:           arith.maxsi %{{.+}}, %[[LO]]
// CHECK:           %[[HI:.+]] = arith.minsi
// CHECK:           scf.for %[[R:.+]] = %[[LO]] to %[[HI]] step
// CHECK:             %[[ACC:.+]]:2 = scf.for {{.+}} -> (f32, f32)
// CHECK:               memref.load %[[BBUF]][%[[E]],
// CHECK:               memref.load %[[UPBUF]][%[[E]],
// CHECK:             arith.negf %[[ACC]]#0
// CHECK:             math.exp
// CHECK:             %[[G:.+]] = arith.divf %[[ACC]]#0
// CHECK:             %[[GU:.+]] = arith.mulf %[[G]], %[[ACC]]#1 : f32
// CHECK:             %[[T:.+]] = arith.truncf %[[GU]] : f32 to bf16
// CHECK:             memref.store %[[T]], %[[D]][%[[R]], %{{.+}}]
// CHECK:         bufferization.to_tensor %[[D]] restrict writable
func.func @grouped_gemm_gated(%a: tensor<8x16xbf16>, %b: tensor<2x16x4xbf16>, %off: tensor<3xi32>, %up: tensor<2x16x4xbf16>) -> tensor<8x4xbf16> {
  %d = kgen.grouped_gemm %a, %b, %off gated(%up : tensor<2x16x4xbf16>) {activation = #kgen.activation<silu>} : tensor<8x16xbf16>, tensor<2x16x4xbf16>, tensor<3xi32> -> tensor<8x4xbf16>
  return %d : tensor<8x4xbf16>
}

// -----

// moe_combine: an out-of-range position reads row 0 and its term is
// discarded by a select.
// CHECK-LABEL: func.func @moe_combine(
// CHECK-NOT:     kgen.
// CHECK:         %[[Y:.+]] = memref.alloc() : memref<4x4xf16>
// CHECK:         %[[SUM:.+]] = scf.for {{.+}} iter_args(%[[ACC:.+]] = %{{.+}}) -> (f32)
// CHECK:           %[[P:.+]] = arith.index_cast %{{.+}} : i32 to index
// CHECK:           %[[VALID:.+]] = arith.andi
// CHECK:           %[[SAFE:.+]] = arith.select %[[VALID]], %[[P]], %{{.+}} : index
// CHECK:           memref.load %{{.+}}[%[[SAFE]], %{{.+}}] : memref<8x4xbf16
// CHECK:           %[[NEW:.+]] = arith.addf %[[ACC]]
// CHECK:           %[[KEEP:.+]] = arith.select %[[VALID]], %[[NEW]], %[[ACC]] : f32
// CHECK:           scf.yield %[[KEEP]]
// CHECK:         %[[T:.+]] = arith.truncf %[[SUM]] : f32 to f16
// CHECK:         memref.store %[[T]], %[[Y]]
func.func @moe_combine(%yp: tensor<8x4xbf16>, %pos: tensor<4x2xi32>, %w: tensor<4x2xf32>) -> tensor<4x4xf16> {
  %y = kgen.moe_combine %yp, %pos, %w : tensor<8x4xbf16>, tensor<4x2xi32>, tensor<4x2xf32> -> tensor<4x4xf16>
  return %y : tensor<4x4xf16>
}

// -----

// moe_route and the fused moe: no kgen op left, scratch buffers freed.
// CHECK-LABEL: func.func @moe_route(
// CHECK-NOT:     kgen.
// CHECK-DAG:     %[[IDS:.+]] = memref.alloc() : memref<4x2xi32>
// CHECK-DAG:     %[[W:.+]] = memref.alloc() : memref<4x2xf32>
// CHECK-DAG:     %[[PROBS:.+]] = memref.alloc() : memref<8xf32>
// CHECK:         math.exp
// CHECK:         memref.dealloc %[[PROBS]]
// CHECK-DAG:     bufferization.to_tensor %[[IDS]] restrict writable
// CHECK-DAG:     bufferization.to_tensor %[[W]] restrict writable
// CHECK-LABEL: func.func @moe(
// CHECK-NOT:     kgen.
// CHECK:         %[[Y:.+]] = memref.alloc() : memref<4x32xbf16>
// CHECK:         math.exp
// CHECK-COUNT-6: memref.dealloc
// CHECK:         bufferization.to_tensor %[[Y]] restrict writable
// CHECK-NOT:     kgen.
func.func @moe_route(%l: tensor<4x8xbf16>) -> (tensor<4x2xi32>, tensor<4x2xf32>) {
  %ids, %w = kgen.moe_route %l {top_k = 2, renormalize} : tensor<4x8xbf16> -> tensor<4x2xi32>, tensor<4x2xf32>
  return %ids, %w : tensor<4x2xi32>, tensor<4x2xf32>
}
func.func @moe(%x: tensor<4x32xbf16>, %l: tensor<4x4xf32>, %wg: tensor<4x32x16xbf16>, %wu: tensor<4x32x16xbf16>, %wd: tensor<4x16x32xbf16>) -> tensor<4x32xbf16> {
  %y = kgen.moe %x, %l, %wg, %wu, %wd {top_k = 2} : tensor<4x32xbf16>, tensor<4x4xf32>, tensor<4x32x16xbf16>, tensor<4x32x16xbf16>, tensor<4x16x32xbf16> -> tensor<4x32xbf16>
  return %y : tensor<4x32xbf16>
}
