// kgen-select-strategy on kgen.attention from tuning databases, as for
// gemm: the fastest correct candidate of an entry with the same op, target
// and toolchain (measured); else the nearest measured shape of the same op
// (same heads, head dim, types and flags, and the same regime: decode-
// shaped or not; batch, seq_q and seq_kv nearest on log sizes), its config
// checked again for this op (nearest); else the cost model. The database is SYNTHETIC (host "synthetic"), not
// measurements: Inputs/synthetic-attention-tuning-db.json.
// RUN: kgen-opt %s --split-input-file --verify-diagnostics --kgen-select-strategy="target=sm_90a db=%S/Inputs/synthetic-attention-tuning-db.json" | FileCheck %s
// Every chosen config lowers.
// RUN: kgen-opt %s --split-input-file --verify-diagnostics --kgen-select-strategy="target=sm_90a db=%S/Inputs/synthetic-attention-tuning-db.json" --kgen-lower-attention-to-tiles -o /dev/null
// On sm_80 no entry matches (the target is part of the key): the model.
// RUN: kgen-opt %s --split-input-file --kgen-select-strategy="target=sm_80 db=%S/Inputs/synthetic-attention-tuning-db.json" 2>/dev/null | FileCheck %s --check-prefix=SM80

// Llama-3-8B prefill: its entry's fastest correct candidate (128 x 64, 3
// stages; a faster wrong one and a faulted one are never chosen).
// CHECK-LABEL: func.func @measured
// CHECK: config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 128, block_n = 64, warps_m = 8, stages = 3, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = measured, entry = "{{.*}}synthetic-attention-tuning-db.json: b1 q4096 kv4096 h32/8 d128 on NVIDIA H200">
// SM80-LABEL: func.func @measured
// SM80: source = model
func.func @measured(%q: tensor<1x32x4096x128xbf16>, %k: tensor<1x8x4096x128xbf16>, %v: tensor<1x8x4096x128xbf16>) -> tensor<1x32x4096x128xbf16> {
  %o = kgen.attention %q, %k, %v {causal} : tensor<1x32x4096x128xbf16>, tensor<1x8x4096x128xbf16>, tensor<1x8x4096x128xbf16> -> tensor<1x32x4096x128xbf16>
  return %o : tensor<1x32x4096x128xbf16>
}

// -----

// A decode step over 6000 keys: no entry; of the decode entries at 4096
// and 32768 keys, 4096 is nearer (|log 6000 - log 4096| = 0.38 against
// 1.70): its config, split 16 ways (6000 keys make 188 tiles of 32).
// CHECK-LABEL: func.func @nearest
// CHECK: block_m = 16, block_n = 32, warps_m = 1, stages = 2, {{.*}} pack_gqa = true, split_kv = 16, source = nearest, entry = "{{.*}}synthetic-attention-tuning-db.json: nearest b1 q1 kv4096 h32/8 d128 on NVIDIA H200">
func.func @nearest(%q: tensor<1x32x1x128xbf16>, %k: tensor<1x8x6000x128xbf16>, %v: tensor<1x8x6000x128xbf16>) -> tensor<1x32x1x128xbf16> {
  %o = kgen.attention %q, %k, %v {causal} : tensor<1x32x1x128xbf16>, tensor<1x8x6000x128xbf16>, tensor<1x8x6000x128xbf16> -> tensor<1x32x1x128xbf16>
  return %o : tensor<1x32x1x128xbf16>
}

// -----

// Nearer to 32768 keys than to 4096 (at 20000 keys): the 32768 entry's
// split 64 (625 key tiles of 32).
// CHECK-LABEL: func.func @nearest_long
// CHECK: split_kv = 64, source = nearest, entry = "{{.*}}: nearest b1 q1 kv32768 h32/8 d128 on NVIDIA H200">
func.func @nearest_long(%q: tensor<1x32x1x128xbf16>, %k: tensor<1x8x20000x128xbf16>, %v: tensor<1x8x20000x128xbf16>) -> tensor<1x32x1x128xbf16> {
  %o = kgen.attention %q, %k, %v {causal} : tensor<1x32x1x128xbf16>, tensor<1x8x20000x128xbf16>, tensor<1x8x20000x128xbf16> -> tensor<1x32x1x128xbf16>
  return %o : tensor<1x32x1x128xbf16>
}

// -----

// Other flags are another op: not causal, no entry and no nearest.
// CHECK-LABEL: func.func @other_flags
// CHECK: source = model, entry = "cost model: {{[0-9.]+}} ms predicted">
func.func @other_flags(%q: tensor<1x32x1x128xbf16>, %k: tensor<1x8x6000x128xbf16>, %v: tensor<1x8x6000x128xbf16>) -> tensor<1x32x1x128xbf16> {
  %o = kgen.attention %q, %k, %v : tensor<1x32x1x128xbf16>, tensor<1x8x6000x128xbf16>, tensor<1x8x6000x128xbf16> -> tensor<1x32x1x128xbf16>
  return %o : tensor<1x32x1x128xbf16>
}

// -----

// A borrowed config that does not fit: the only decode entry of 64 query
// heads (131072 keys) splits 64 ways, and 512 keys have 16 tiles of 32:
// refused, the model decides.
// CHECK-LABEL: func.func @borrowed_split_refused
// CHECK: source = model
func.func @borrowed_split_refused(%q: tensor<1x64x1x128xbf16>, %k: tensor<1x8x512x128xbf16>, %v: tensor<1x8x512x128xbf16>) -> tensor<1x64x1x128xbf16> {
  %o = kgen.attention %q, %k, %v {causal} : tensor<1x64x1x128xbf16>, tensor<1x8x512x128xbf16>, tensor<1x8x512x128xbf16> -> tensor<1x64x1x128xbf16>
  return %o : tensor<1x64x1x128xbf16>
}

// -----

// Head dim 256 at 16384 tokens: the nearest entry (8192) holds only block_n
// 64, which the legality refuses at head dim 256 (320 accumulators per
// thread): refused, not borrowed, and the next nearest entry (4096, its
// legal 64 x 32) is taken.
// CHECK-LABEL: func.func @borrowed_illegal_refused
// CHECK: block_m = 64, block_n = 32, warps_m = 4, stages = 1, {{.*}} source = nearest, entry = "{{.*}}: nearest b1 q4096 kv4096 h32/8 d256 on NVIDIA H200">
func.func @borrowed_illegal_refused(%q: tensor<1x32x16384x256xbf16>, %k: tensor<1x8x16384x256xbf16>, %v: tensor<1x8x16384x256xbf16>) -> tensor<1x32x16384x256xbf16> {
  %o = kgen.attention %q, %k, %v {causal} : tensor<1x32x16384x256xbf16>, tensor<1x8x16384x256xbf16>, tensor<1x8x16384x256xbf16> -> tensor<1x32x16384x256xbf16>
  return %o : tensor<1x32x16384x256xbf16>
}

// -----

// 16 queries per head (G * Sq = 64 rows: one packed tile, a decode
// shape): the prefill entry at 128 queries (entries[7]) is nearer on log
// sizes (|log 16 - log 128| = 2.08) than the decode entry at 1 query
// (2.77), but it is another regime (row tiles of one head, no packing): the
// decode entry's config is borrowed.
// CHECK-LABEL: func.func @nearest_same_regime
// CHECK: pack_gqa = true, split_kv = 16, source = nearest, entry = "{{.*}}: nearest b1 q1 kv4096 h32/8 d128 on NVIDIA H200">
func.func @nearest_same_regime(%q: tensor<1x32x16x128xbf16>, %k: tensor<1x8x4096x128xbf16>, %v: tensor<1x8x4096x128xbf16>) -> tensor<1x32x16x128xbf16> {
  %o = kgen.attention %q, %k, %v {causal} : tensor<1x32x16x128xbf16>, tensor<1x8x4096x128xbf16>, tensor<1x8x4096x128xbf16> -> tensor<1x32x16x128xbf16>
  return %o : tensor<1x32x16x128xbf16>
}

// -----

// 17 queries per head (68 rows: a prefill shape) takes that prefill entry.
// CHECK-LABEL: func.func @nearest_prefill_regime
// CHECK: block_m = 64, block_n = 64, warps_m = 4, stages = 2, {{.*}} pack_gqa = false, split_kv = 2, source = nearest, entry = "{{.*}}: nearest b1 q128 kv4096 h32/8 d128 on NVIDIA H200">
func.func @nearest_prefill_regime(%q: tensor<1x32x17x128xbf16>, %k: tensor<1x8x4096x128xbf16>, %v: tensor<1x8x4096x128xbf16>) -> tensor<1x32x17x128xbf16> {
  %o = kgen.attention %q, %k, %v {causal} : tensor<1x32x17x128xbf16>, tensor<1x8x4096x128xbf16>, tensor<1x8x4096x128xbf16> -> tensor<1x32x17x128xbf16>
  return %o : tensor<1x32x17x128xbf16>
}

// -----

// Llama-3-70B prefill at 2048: only a stale entry (CUDA 12.4): not used,
// and said; the model decides.
// CHECK-LABEL: func.func @stale
// CHECK: source = model
func.func @stale(%q: tensor<1x64x2048x128xbf16>, %k: tensor<1x8x2048x128xbf16>, %v: tensor<1x8x2048x128xbf16>) -> tensor<1x64x2048x128xbf16> {
  // expected-remark @+1 {{tuning entries for this attention were measured with another toolchain}}
  %o = kgen.attention %q, %k, %v {causal} : tensor<1x64x2048x128xbf16>, tensor<1x8x2048x128xbf16>, tensor<1x8x2048x128xbf16> -> tensor<1x64x2048x128xbf16>
  return %o : tensor<1x64x2048x128xbf16>
}
