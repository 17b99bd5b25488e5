// kgen-lower-attention-to-tiles with e4m3 operands (docs/attention.md,
// "FP8"): the e4m3 tiles land as they are and are widened in shared memory
// to the 16-bit type the MMAs read (f16 for e4m3 queries: Q once before the
// key loop, K and V stage by stage); the descale factors are read once, as
// f32 scalars, dq * dk scaling the logits and dv the stored output.
// RUN: kgen-opt %s --kgen-lower-attention-to-tiles | FileCheck %s

// CHECK-LABEL: kgen.kernel @kgen_attention_f8E4M3FN_h4x2_q37_kv45_d64_causal grid [6, 1, 1] threads 64 smem 12288
// CHECK-SAME: param_names = ["q", "k", "v", "q_descale", "k_descale", "v_descale", "out"]
// CHECK-SAME: k_descale = true
// CHECK-SAME: q_descale = true
// CHECK-SAME: v_descale = true
// CHECK-NOT:  dtype_kv
// CHECK:      ^bb0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %[[Q:.*]]: memref<1x2x74x64xf8E4M3FN>, %[[K:.*]]: memref<1x2x45x64xf8E4M3FN>, %[[V:.*]]: memref<1x2x45x64xf8E4M3FN>, %[[DQ:.*]]: memref<1xf32>, %[[DK:.*]]: memref<1xf32>, %[[DV:.*]]: memref<1xf32>, %[[O:.*]]: memref<1x2x74x64xf32>):
// CHECK:      %[[FQ:.*]] = memref.load %[[DQ]]
// CHECK:      %[[FK:.*]] = memref.load %[[DK]]
// CHECK:      %[[QK:.*]] = arith.mulf %[[FQ]], %[[FK]] : f32
// CHECK:      %[[FV:.*]] = memref.load %[[DV]]
// CHECK:      %[[SQ:.*]] = memref.alloca() : memref<1x32x64xf16, 3>
// CHECK:      %[[SK8:.*]] = memref.alloca() : memref<1x16x64xf8E4M3FN, 3>
// CHECK:      %[[SV8:.*]] = memref.alloca() : memref<1x16x64xf8E4M3FN, 3>
// CHECK:      %[[SQ8:.*]] = memref.alloca() : memref<1x32x64xf8E4M3FN, 3>
// CHECK:      %[[SK:.*]] = memref.alloca() : memref<1x16x64xf16, 3>
// CHECK:      %[[SV:.*]] = memref.alloca() : memref<1x16x64xf16, 3>
// CHECK:      kgen.tile.load %[[Q]][{{.*}}] bounds({{.*}}) into %[[SQ8]][%[[C0:.*]]]
// CHECK-NEXT: kgen.tile.widen %[[SQ8]][%[[C0]]] into %[[SQ]][%[[C0]]] : memref<1x32x64xf8E4M3FN, 3>, memref<1x32x64xf16, 3>
// CHECK:      kgen.tile.pipeline {{.*}} stages 1 load {
// CHECK:        kgen.tile.load %[[K]]{{.*}} into %[[SK8]]
// CHECK:        kgen.tile.load %[[V]]{{.*}} into %[[SV8]]
// CHECK:      } compute {
// CHECK:      ^bb0(%{{.*}}: index, %[[ST:.*]]: index):
// CHECK:        kgen.tile.widen %[[SK8]][%[[ST]]] into %[[SK]][%[[C0]]]
// CHECK:        kgen.tile.widen %[[SV8]][%[[ST]]] into %[[SV]][%[[C0]]]
// CHECK:        kgen.tile.qk %[[SQ]], %[[SK]][%[[C0]]] into
// CHECK:        kgen.tile.online_softmax {{.*}} descale(%[[QK]]) {causal
// CHECK:        kgen.tile.pv %{{.*}}, %[[SV]][%[[C0]]] into
// CHECK:      }
// CHECK:      kgen.tile.attention_store {{.*}} into %[[O]][{{.*}}] bounds({{.*}}) descale(%[[FV]])

// bf16 queries reading an e4m3 cache: Q lands as bf16, only K and V widen.
// CHECK-LABEL: kgen.kernel @kgen_attention_bf16_kvf8E4M3FN_b2_h8x2_q1_kv70_d64
// CHECK-SAME: param_names = ["q", "k", "v", "kv_lens", "k_descale", "o_partial", "lse_partial"]
// CHECK-SAME: dtype = "bf16", dtype_kv = "f8E4M3FN"
// CHECK-NOT:  v_descale = true
// CHECK:      %[[SQ:.*]] = memref.alloca() : memref<1x16x64xbf16, 3>
// CHECK-NOT:  arith.mulf
// CHECK:      kgen.tile.load %{{.*}} into %[[SQ]]
// CHECK-NOT:  kgen.tile.widen
// CHECK:      kgen.tile.pipeline
// CHECK:        kgen.tile.widen {{.*}} : memref<2x32x64xf8E4M3FN, 3>, memref<1x32x64xbf16, 3>
// CHECK:        kgen.tile.widen {{.*}} : memref<2x32x64xf8E4M3FN, 3>, memref<1x32x64xbf16, 3>
// CHECK:        kgen.tile.online_softmax {{.*}} descale(
// CHECK:      kgen.tile.attention_store
// CHECK-NOT:  descale
// CHECK:      kgen.kernel @kgen_attention_bf16_kvf8E4M3FN_b2_h8x2_q1_kv70_d64_combine

func.func @prefill(%q: tensor<1x4x37x64xf8E4M3FN>, %k: tensor<1x2x45x64xf8E4M3FN>, %v: tensor<1x2x45x64xf8E4M3FN>, %dq: tensor<1xf32>, %dk: tensor<1xf32>, %dv: tensor<1xf32>)
    -> tensor<1x4x37x64xf32> {
  %o = kgen.attention %q, %k, %v q_descale(%dq : tensor<1xf32>) k_descale(%dk : tensor<1xf32>) v_descale(%dv : tensor<1xf32>) {causal, config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 1, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x4x37x64xf8E4M3FN>, tensor<1x2x45x64xf8E4M3FN>, tensor<1x2x45x64xf8E4M3FN> -> tensor<1x4x37x64xf32>
  return %o : tensor<1x4x37x64xf32>
}

func.func @decode(%q: tensor<2x8x1x64xbf16>, %k: tensor<2x2x70x64xf8E4M3FN>, %v: tensor<2x2x70x64xf8E4M3FN>, %lens: tensor<2xi32>, %dk: tensor<1xf32>)
    -> tensor<2x8x1x64xbf16> {
  %o = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) k_descale(%dk : tensor<1xf32>) {config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 32, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 2, source = user>}
      : tensor<2x8x1x64xbf16>, tensor<2x2x70x64xf8E4M3FN>, tensor<2x2x70x64xf8E4M3FN> -> tensor<2x8x1x64xbf16>
  return %o : tensor<2x8x1x64xbf16>
}
