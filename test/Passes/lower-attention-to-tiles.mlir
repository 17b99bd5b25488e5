// kgen-lower-attention-to-tiles: the block program of docs/attention.md.
// Prefill (one kernel on the packed view of Q and O) and split-KV decode
// (partial kernel + combine kernel); an attention without a config stays.
// RUN: kgen-opt %s --kgen-lower-attention-to-tiles | FileCheck %s

// CHECK-LABEL: kgen.kernel @kgen_attention_bf16_b2_h8x2_q33_kv47_d72_causal grid [36, 1, 3] threads 32 smem 12800
// CHECK-SAME: param_names = ["q", "k", "v", "kv_lens", "o_partial", "lse_partial"]
// CHECK-SAME: kind = "attention"
// CHECK:      ^bb0(%{{.*}}: index, %{{.*}}: index, %[[BZ:.*]]: index, %[[Q:.*]]: memref<2x2x132x72xbf16>, %[[K:.*]]: memref<2x2x47x72xbf16>, %[[V:.*]]: memref<2x2x47x72xbf16>, %[[LENS:.*]]: memref<2xi32>, %[[OP:.*]]: memref<3x2x2x132x72xf32>, %[[LP:.*]]: memref<3x2x2x132xf32>):
// CHECK:      %[[LEN:.*]] = memref.load %[[LENS]]
// CHECK:      arith.index_cast %[[LEN]]
// CHECK:      %[[SQ:.*]] = memref.alloca() : memref<1x16x80xbf16, 3>
// CHECK:      %[[SK:.*]] = memref.alloca() : memref<2x16x80xbf16, 3>
// CHECK:      %[[SV:.*]] = memref.alloca() : memref<2x16x80xbf16, 3>
// CHECK:      %[[S:.*]] = memref.alloca() : memref<16x16xf32, 5>
// CHECK:      %[[ST:.*]] = memref.alloca() : memref<2x16xf32, 5>
// CHECK:      %[[ACC:.*]] = memref.alloca() : memref<16x80xf32, 5>
// CHECK:      kgen.tile.load %[[Q]][{{.*}}] bounds({{.*}}) into %[[SQ]]
// CHECK:      kgen.tile.zero %[[ACC]]
// CHECK:      kgen.tile.softmax_init %[[ST]]
// CHECK:      kgen.tile.pipeline {{.*}} stages 2 load {
// CHECK:        kgen.tile.load %[[K]]{{.*}} into %[[SK]]
// CHECK:        kgen.tile.load %[[V]]{{.*}} into %[[SV]]
// CHECK:      } compute {
// CHECK:        kgen.tile.qk %[[SQ]], %[[SK]][%{{.*}}] into %[[S]]
// CHECK:        kgen.tile.online_softmax %[[S]], %[[ST]], %[[ACC]] rows({{.*}}) cols({{.*}}) kv_len({{.*}}) seq_q(%c33{{(_[0-9]+)?}}) {causal, scale = {{.*}}}
// CHECK:        kgen.tile.pv %[[S]], %[[SV]][%{{.*}}] into %[[ACC]]
// CHECK:      }
// CHECK:      kgen.tile.attention_store %[[ACC]], %[[ST]] into %[[OP]][%[[BZ]], {{.*}}] bounds({{.*}}) lse(%[[LP]] : memref<3x2x2x132xf32>)

// CHECK-LABEL: kgen.kernel @kgen_attention_bf16_b2_h8x2_q33_kv47_d72_causal_combine grid [36, 1, 1] threads 128 smem 0
// CHECK:      ^bb0({{.*}}, %[[OP:.*]]: memref<3x2x2x132x72xf32>, %[[LP:.*]]: memref<3x2x2x132xf32>, %[[O:.*]]: memref<2x2x132x72xbf16>, %[[L:.*]]: memref<2x2x132xf32>):
// CHECK-NOT:  signature
// CHECK:      kgen.tile.attention_combine %[[OP]], %[[LP]] into %[[O]][{{.*}}] bounds({{.*}}) lse(%[[L]] : memref<2x2x132xf32>) {box_rows = 16 : i64}

// CHECK-LABEL: kgen.kernel @kgen_attention_bf16_h4x4_q100_kv100_d64 grid [8, 1, 1] threads 128 smem 40960
// CHECK-SAME: param_names = ["q", "k", "v", "out"]

// CHECK-LABEL: func.func @decode
// CHECK:      tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3]] : tensor<2x8x33x72xbf16> into tensor<2x264x72xbf16>
// CHECK:      %[[VIEW:.*]] = tensor.expand_shape {{.*}} into tensor<2x2x132x72xbf16>
// CHECK:      %[[PART:.*]]:2 = kgen.launch @kgen_attention_bf16_b2_h8x2_q33_kv47_d72_causal(%[[VIEW]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK:      %[[RES:.*]]:2 = kgen.launch @kgen_attention_bf16_b2_h8x2_q33_kv47_d72_causal_combine(%[[PART]]#0, %[[PART]]#1)
// CHECK:      tensor.collapse_shape %[[RES]]#0
// CHECK:      tensor.collapse_shape %[[RES]]#1
func.func @decode(%q: tensor<2x8x33x72xbf16>, %k: tensor<2x2x47x72xbf16>,
                  %v: tensor<2x2x47x72xbf16>, %lens: tensor<2xi32>)
    -> (tensor<2x8x33x72xbf16>, tensor<2x8x33xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) {causal,
      config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 3, source = user>}
      : tensor<2x8x33x72xbf16>, tensor<2x2x47x72xbf16>, tensor<2x2x47x72xbf16>
        -> tensor<2x8x33x72xbf16>, tensor<2x8x33xf32>
  return %o, %lse : tensor<2x8x33x72xbf16>, tensor<2x8x33xf32>
}

// CHECK-LABEL: func.func @prefill
// CHECK:      kgen.launch @kgen_attention_bf16_h4x4_q100_kv100_d64
func.func @prefill(%q: tensor<1x4x100x64xbf16>, %k: tensor<1x4x100x64xbf16>,
                   %v: tensor<1x4x100x64xbf16>) -> tensor<1x4x100x64xbf16> {
  %o = kgen.attention %q, %k, %v {
      config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x4x100x64xbf16>, tensor<1x4x100x64xbf16>, tensor<1x4x100x64xbf16>
        -> tensor<1x4x100x64xbf16>
  return %o : tensor<1x4x100x64xbf16>
}

// CHECK-LABEL: func.func @no_config
// CHECK:      kgen.attention
func.func @no_config(%q: tensor<1x1x8x32xf32>, %k: tensor<1x1x8x32xf32>,
                     %v: tensor<1x1x8x32xf32>) -> tensor<1x1x8x32xf32> {
  %o = kgen.attention %q, %k, %v : tensor<1x1x8x32xf32>, tensor<1x1x8x32xf32>, tensor<1x1x8x32xf32> -> tensor<1x1x8x32xf32>
  return %o : tensor<1x1x8x32xf32>
}
