// kgen-lower-attention-to-tiles on a variable-length batch (docs/attention.md,
// "Variable-length batches"): ceil(Tq / block_m) + B row tiles times Hq
// blocks; each block finds its sequence and first row
// (kgen.tile.sequence_tile), views the token-major parameters as [T, H * D]
// rows, reads the sequence's clamped offsets, boxes its Q and K/V rows at
// the head's columns, empties the key range of a tile of no sequence, gives
// online_softmax the sequence's query count and places the LSE [Hq, Tq]
// with lse_at.
// RUN: kgen-opt %s --kgen-lower-attention-to-tiles | FileCheck %s

// CHECK-LABEL: kgen.kernel @kgen_attention_bf16_varlen_b3_h8x2_q40_kv50_d64_causal grid [48, 1, 1] threads 32
// CHECK-SAME: param_names = ["q", "k", "v", "cu_seqlens_q", "cu_seqlens_k", "out", "lse"]
// CHECK-SAME: varlen = true
// CHECK:      ^bb0(%[[BX:.*]]: index, %{{.*}}: index, %{{.*}}: index, %[[Q:.*]]: memref<40x8x64xbf16>, %[[K:.*]]: memref<50x2x64xbf16>, %[[V:.*]]: memref<50x2x64xbf16>, %[[CQ:.*]]: memref<4xi32>, %[[CK:.*]]: memref<4xi32>, %[[O:.*]]: memref<40x8x64xbf16>, %[[L:.*]]: memref<8x40xf32>):
// CHECK-DAG:  %[[QR:.*]] = memref.collapse_shape %[[Q]] {{\[\[}}0], [1, 2]] : memref<40x8x64xbf16> into memref<40x512xbf16>
// CHECK-DAG:  %[[KR:.*]] = memref.collapse_shape %[[K]] {{\[\[}}0], [1, 2]] : memref<50x2x64xbf16> into memref<50x128xbf16>
// CHECK-DAG:  %[[OR:.*]] = memref.collapse_shape %[[O]] {{\[\[}}0], [1, 2]] : memref<40x8x64xbf16> into memref<40x512xbf16>
// CHECK:      %[[H:.*]] = arith.remui %[[BX]], %c8
// CHECK:      %[[T:.*]] = arith.divui %[[BX]], %c8
// CHECK:      %[[SEQ:.*]], %[[ROW:.*]], %[[VALID:.*]] = kgen.tile.sequence_tile %[[CQ]][%[[T]]] block_m(16) : memref<4xi32>
// CHECK:      memref.load %[[CQ]][%[[SEQ]]]
// CHECK:      memref.load %[[CK]][%[[SEQ]]]
// CHECK:      kgen.tile.load %[[QR]][%[[QROW:.*]], %[[QCOL:.*]]] bounds(%{{.*}}, %{{.*}}) into
// CHECK:      kgen.tile.pipeline
// CHECK:        kgen.tile.load %[[KR]][{{.*}}] bounds
// CHECK:      } compute {
// CHECK:        kgen.tile.online_softmax {{.*}} rows(%[[ROW]]) cols({{.*}}) kv_len({{.*}}) seq_q(%{{.*}}) {causal
// CHECK:      kgen.tile.attention_store {{.*}} into %[[OR]][%[[QROW]], %[[QCOL]]] bounds({{.*}}) lse(%[[L]] : memref<8x40xf32>) lse_at[%[[H]], %[[QROW]]]
func.func @varlen(%q: tensor<40x8x64xbf16>, %k: tensor<50x2x64xbf16>, %v: tensor<50x2x64xbf16>, %cq: tensor<4xi32>, %ck: tensor<4xi32>)
    -> (tensor<40x8x64xbf16>, tensor<8x40xf32>) {
  %o, %lse = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<4xi32>, tensor<4xi32>) {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<40x8x64xbf16>, tensor<50x2x64xbf16>, tensor<50x2x64xbf16> -> tensor<40x8x64xbf16>, tensor<8x40xf32>
  return %o, %lse : tensor<40x8x64xbf16>, tensor<8x40xf32>
}
