// Tile-level attention schedules checked on the CPU: each function's
// kgen.attention, lowered with its hand-written config to kgen.kernels
// (kgen-lower-attention-to-tiles) and run block by block
// (kgen-lower-tiles-to-loops), against the reference semantics. The online
// softmax rescales in another order and rounds P to the operand type before
// P V, so the comparison has bf16's tolerance (relative Frobenius, LSE
// included). Every feature: causal (bottom-right) and not, rows with no
// visible key, sliding window, local windows (left and right, not causal),
// ALiBi, softcap and scale, kv_lens (random in
// [0, 40): empty, short and clamped), GQA with and without packing (row
// tiles that span query heads), decode, split-KV with its combine kernel
// (more splits than key tiles too), f16 with f32 output, 1 to 4 stages,
// Sq != Skv at odd lengths (113 x 203, 1023 x 1024), the wgmma (FA3)
// schedules (64-row warpgroups, head dims padded to 64) and every valid head dim
// from 32 to 256 (padded to 16 in the tiles: tiled-attention-head-dims-*.mlir).
// RUN: %python %S/Inputs/check_tiled.py %s %t --pipeline=--kgen-lower-attention-to-tiles --tolerance=1e-2 --int-range=0:40 | FileCheck %s
// CHECK-DAG: plain_113x203: OK
// CHECK-DAG: causal_113x203: OK
// CHECK-DAG: causal_more_queries: OK
// CHECK-DAG: window: OK
// CHECK-DAG: softcap_scale: OK
// CHECK-DAG: kv_lens_causal: OK
// CHECK-DAG: gqa_heads: OK
// CHECK-DAG: gqa_packed: OK
// CHECK-DAG: gqa_packed_window: OK
// CHECK-DAG: decode_split: OK
// CHECK-DAG: split_causal: OK
// CHECK-DAG: split_more_than_tiles: OK
// CHECK-DAG: local_window: OK
// CHECK-DAG: local_window_packed: OK
// CHECK-DAG: alibi_causal: OK
// CHECK-DAG: alibi_window_split: OK
// CHECK-DAG: split_no_lse: OK
// CHECK-DAG: f16_f32_out: OK
// CHECK-DAG: one_stage: OK
// CHECK-DAG: four_stages: OK
// CHECK-DAG: long_1023x1024: OK
// CHECK-DAG: wgmma_d72_pingpong: OK
// CHECK-DAG: wgmma_three_groups_kv_lens: OK
// CHECK-DAG: wgmma_decode_split_packed: OK

// Sq != Skv, odd lengths: partial row and key tiles.
func.func @plain_113x203(%q: tensor<1x2x113x64xbf16>, %k: tensor<1x2x203x64xbf16>, %v: tensor<1x2x203x64xbf16>)
    -> (tensor<1x2x113x64xbf16>, tensor<1x2x113xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x2x113x64xbf16>, tensor<1x2x203x64xbf16>, tensor<1x2x203x64xbf16> -> tensor<1x2x113x64xbf16>, tensor<1x2x113xf32>
  return %o, %lse : tensor<1x2x113x64xbf16>, tensor<1x2x113xf32>
}

// Causal, bottom-right: the key range of each row tile ends early.
func.func @causal_113x203(%q: tensor<1x2x113x64xbf16>, %k: tensor<1x2x203x64xbf16>, %v: tensor<1x2x203x64xbf16>)
    -> (tensor<1x2x113x64xbf16>, tensor<1x2x113xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x2x113x64xbf16>, tensor<1x2x203x64xbf16>, tensor<1x2x203x64xbf16> -> tensor<1x2x113x64xbf16>, tensor<1x2x113xf32>
  return %o, %lse : tensor<1x2x113x64xbf16>, tensor<1x2x113xf32>
}

// More queries than keys: the first 30 rows see no key (zeros, LSE -inf).
func.func @causal_more_queries(%q: tensor<1x1x50x32xbf16>, %k: tensor<1x1x20x32xbf16>, %v: tensor<1x1x20x32xbf16>)
    -> (tensor<1x1x50x32xbf16>, tensor<1x1x50xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x1x50x32xbf16>, tensor<1x1x20x32xbf16>, tensor<1x1x20x32xbf16> -> tensor<1x1x50x32xbf16>, tensor<1x1x50xf32>
  return %o, %lse : tensor<1x1x50x32xbf16>, tensor<1x1x50xf32>
}

// A sliding window: the key range starts late too.
func.func @window(%q: tensor<2x2x70x64xbf16>, %k: tensor<2x1x90x64xbf16>, %v: tensor<2x1x90x64xbf16>)
    -> (tensor<2x2x70x64xbf16>, tensor<2x2x70xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, sliding_window = 17, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<2x2x70x64xbf16>, tensor<2x1x90x64xbf16>, tensor<2x1x90x64xbf16> -> tensor<2x2x70x64xbf16>, tensor<2x2x70xf32>
  return %o, %lse : tensor<2x2x70x64xbf16>, tensor<2x2x70xf32>
}

// Softcap and an explicit scale.
func.func @softcap_scale(%q: tensor<1x2x40x64xbf16>, %k: tensor<1x2x40x64xbf16>, %v: tensor<1x2x40x64xbf16>)
    -> (tensor<1x2x40x64xbf16>, tensor<1x2x40xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {softcap = 2.0 : f32, scale = 0.5 : f32, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x2x40x64xbf16>, tensor<1x2x40x64xbf16>, tensor<1x2x40x64xbf16> -> tensor<1x2x40x64xbf16>, tensor<1x2x40xf32>
  return %o, %lse : tensor<1x2x40x64xbf16>, tensor<1x2x40xf32>
}

// kv_lens in [0, 40): short, empty and full sequences, causal.
func.func @kv_lens_causal(%q: tensor<3x2x12x32xbf16>, %k: tensor<3x2x40x32xbf16>, %v: tensor<3x2x40x32xbf16>, %lens: tensor<3xi32>)
    -> (tensor<3x2x12x32xbf16>, tensor<3x2x12xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<3xi32>) {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<3x2x12x32xbf16>, tensor<3x2x40x32xbf16>, tensor<3x2x40x32xbf16> -> tensor<3x2x12x32xbf16>, tensor<3x2x12xf32>
  return %o, %lse : tensor<3x2x12x32xbf16>, tensor<3x2x12xf32>
}

// GQA, a query head per block row range.
func.func @gqa_heads(%q: tensor<1x8x33x64xbf16>, %k: tensor<1x2x47x64xbf16>, %v: tensor<1x2x47x64xbf16>)
    -> (tensor<1x8x33x64xbf16>, tensor<1x8x33xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 32, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x8x33x64xbf16>, tensor<1x2x47x64xbf16>, tensor<1x2x47x64xbf16> -> tensor<1x8x33x64xbf16>, tensor<1x8x33xf32>
  return %o, %lse : tensor<1x8x33x64xbf16>, tensor<1x8x33xf32>
}

// GQA packed: row tiles span query heads (positions wrap).
func.func @gqa_packed(%q: tensor<1x8x33x64xbf16>, %k: tensor<1x2x47x64xbf16>, %v: tensor<1x2x47x64xbf16>)
    -> (tensor<1x8x33x64xbf16>, tensor<1x8x33xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 32, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x8x33x64xbf16>, tensor<1x2x47x64xbf16>, tensor<1x2x47x64xbf16> -> tensor<1x8x33x64xbf16>, tensor<1x8x33xf32>
  return %o, %lse : tensor<1x8x33x64xbf16>, tensor<1x8x33xf32>
}

// Packed rows with a window: the key range of a tile that spans heads.
func.func @gqa_packed_window(%q: tensor<1x4x9x32xbf16>, %k: tensor<1x1x30x32xbf16>, %v: tensor<1x1x30x32xbf16>)
    -> (tensor<1x4x9x32xbf16>, tensor<1x4x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, sliding_window = 5, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x4x9x32xbf16>, tensor<1x1x30x32xbf16>, tensor<1x1x30x32xbf16> -> tensor<1x4x9x32xbf16>, tensor<1x4x9xf32>
  return %o, %lse : tensor<1x4x9x32xbf16>, tensor<1x4x9xf32>
}

// Decode: one query per sequence, 4 heads of a KV head packed, split-KV with a combine kernel.
func.func @decode_split(%q: tensor<2x8x1x128xbf16>, %k: tensor<2x2x300x128xbf16>, %v: tensor<2x2x300x128xbf16>, %lens: tensor<2xi32>)
    -> (tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 4, source = user>}
      : tensor<2x8x1x128xbf16>, tensor<2x2x300x128xbf16>, tensor<2x2x300x128xbf16> -> tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>
  return %o, %lse : tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>
}

// Split-KV over a causal, windowed range.
func.func @split_causal(%q: tensor<1x2x5x64xbf16>, %k: tensor<1x2x500x64xbf16>, %v: tensor<1x2x500x64xbf16>)
    -> (tensor<1x2x5x64xbf16>, tensor<1x2x5xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, sliding_window = 300, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 3, source = user>}
      : tensor<1x2x5x64xbf16>, tensor<1x2x500x64xbf16>, tensor<1x2x500x64xbf16> -> tensor<1x2x5x64xbf16>, tensor<1x2x5xf32>
  return %o, %lse : tensor<1x2x5x64xbf16>, tensor<1x2x5xf32>
}

// More splits than key tiles: empty splits weigh nothing.
func.func @split_more_than_tiles(%q: tensor<1x1x3x32xbf16>, %k: tensor<1x1x40x32xbf16>, %v: tensor<1x1x40x32xbf16>)
    -> (tensor<1x1x3x32xbf16>, tensor<1x1x3xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 16, source = user>}
      : tensor<1x1x3x32xbf16>, tensor<1x1x40x32xbf16>, tensor<1x1x40x32xbf16> -> tensor<1x1x3x32xbf16>, tensor<1x1x3xf32>
  return %o, %lse : tensor<1x1x3x32xbf16>, tensor<1x1x3xf32>
}

// A local window (9 keys before, 20 after), not causal: the key range ends early and starts late.
func.func @local_window(%q: tensor<2x2x40x64xbf16>, %k: tensor<2x1x90x64xbf16>, %v: tensor<2x1x90x64xbf16>, %lens: tensor<2xi32>)
    -> (tensor<2x2x40x64xbf16>, tensor<2x2x40xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<2xi32>) {window_left = 9, window_right = 20, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<2x2x40x64xbf16>, tensor<2x1x90x64xbf16>, tensor<2x1x90x64xbf16> -> tensor<2x2x40x64xbf16>, tensor<2x2x40xf32>
  return %o, %lse : tensor<2x2x40x64xbf16>, tensor<2x2x40xf32>
}

// A local window on packed rows that span heads, split-KV.
func.func @local_window_packed(%q: tensor<1x8x5x32xbf16>, %k: tensor<1x2x60x32xbf16>, %v: tensor<1x2x60x32xbf16>)
    -> (tensor<1x8x5x32xbf16>, tensor<1x8x5xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {window_left = 3, window_right = 2, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 2, source = user>}
      : tensor<1x8x5x32xbf16>, tensor<1x2x60x32xbf16>, tensor<1x2x60x32xbf16> -> tensor<1x8x5x32xbf16>, tensor<1x8x5xf32>
  return %o, %lse : tensor<1x8x5x32xbf16>, tensor<1x8x5xf32>
}

// ALiBi slopes per query head, causal, packed rows spanning heads.
func.func @alibi_causal(%q: tensor<1x8x33x64xbf16>, %k: tensor<1x2x47x64xbf16>, %v: tensor<1x2x47x64xbf16>, %slopes: tensor<8xf32>)
    -> (tensor<1x8x33x64xbf16>, tensor<1x8x33xf32>) {
  %o, %lse = kgen.attention %q, %k, %v alibi(%slopes : tensor<8xf32>) {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x8x33x64xbf16>, tensor<1x2x47x64xbf16>, tensor<1x2x47x64xbf16> -> tensor<1x8x33x64xbf16>, tensor<1x8x33xf32>
  return %o, %lse : tensor<1x8x33x64xbf16>, tensor<1x8x33xf32>
}

// ALiBi with a sliding window, softcap and split-KV.
func.func @alibi_window_split(%q: tensor<2x4x3x32xbf16>, %k: tensor<2x4x100x32xbf16>, %v: tensor<2x4x100x32xbf16>, %slopes: tensor<4xf32>)
    -> (tensor<2x4x3x32xbf16>, tensor<2x4x3xf32>) {
  %o, %lse = kgen.attention %q, %k, %v alibi(%slopes : tensor<4xf32>) {causal, sliding_window = 40, softcap = 5.0 : f32, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 4, source = user>}
      : tensor<2x4x3x32xbf16>, tensor<2x4x100x32xbf16>, tensor<2x4x100x32xbf16> -> tensor<2x4x3x32xbf16>, tensor<2x4x3xf32>
  return %o, %lse : tensor<2x4x3x32xbf16>, tensor<2x4x3xf32>
}

// Split-KV without an LSE result.
func.func @split_no_lse(%q: tensor<1x2x4x64xbf16>, %k: tensor<1x1x100x64xbf16>, %v: tensor<1x1x100x64xbf16>)
    -> (tensor<1x2x4x64xbf16>) {
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 2, source = user>}
      : tensor<1x2x4x64xbf16>, tensor<1x1x100x64xbf16>, tensor<1x1x100x64xbf16> -> tensor<1x2x4x64xbf16>
  return %o : tensor<1x2x4x64xbf16>
}

// f16 operands, f32 output.
func.func @f16_f32_out(%q: tensor<1x2x20x64xf16>, %k: tensor<1x2x30x64xf16>, %v: tensor<1x2x30x64xf16>)
    -> (tensor<1x2x20x64xf32>, tensor<1x2x20xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x2x20x64xf16>, tensor<1x2x30x64xf16>, tensor<1x2x30x64xf16> -> tensor<1x2x20x64xf32>, tensor<1x2x20xf32>
  return %o, %lse : tensor<1x2x20x64xf32>, tensor<1x2x20xf32>
}

// One stage (no prefetch).
func.func @one_stage(%q: tensor<1x1x40x64xbf16>, %k: tensor<1x1x100x64xbf16>, %v: tensor<1x1x100x64xbf16>)
    -> (tensor<1x1x40x64xbf16>, tensor<1x1x40xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 1, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x1x40x64xbf16>, tensor<1x1x100x64xbf16>, tensor<1x1x100x64xbf16> -> tensor<1x1x40x64xbf16>, tensor<1x1x40xf32>
  return %o, %lse : tensor<1x1x40x64xbf16>, tensor<1x1x40xf32>
}

// More stages than key tiles.
func.func @four_stages(%q: tensor<1x1x40x64xbf16>, %k: tensor<1x1x50x64xbf16>, %v: tensor<1x1x50x64xbf16>)
    -> (tensor<1x1x40x64xbf16>, tensor<1x1x40xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 4, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x1x40x64xbf16>, tensor<1x1x50x64xbf16>, tensor<1x1x50x64xbf16> -> tensor<1x1x40x64xbf16>, tensor<1x1x40xf32>
  return %o, %lse : tensor<1x1x40x64xbf16>, tensor<1x1x40xf32>
}

// 1023 x 1024, head dim 128, 8 warps.
func.func @long_1023x1024(%q: tensor<1x1x1023x128xbf16>, %k: tensor<1x1x1024x128xbf16>, %v: tensor<1x1x1024x128xbf16>)
    -> (tensor<1x1x1023x128xbf16>, tensor<1x1x1023xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 64, warps_m = 8, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x1x1023x128xbf16>, tensor<1x1x1024x128xbf16>, tensor<1x1x1024x128xbf16> -> tensor<1x1x1023x128xbf16>, tensor<1x1x1023xf32>
  return %o, %lse : tensor<1x1x1023x128xbf16>, tensor<1x1x1023xf32>
}

// The wgmma (FlashAttention-3) schedules: 64 rows per consumer warpgroup,
// the head dim padded to whole 64-column blocks (72 in tiles of 128).
func.func @wgmma_d72_pingpong(%q: tensor<1x4x113x72xbf16>, %k: tensor<1x2x203x72xbf16>, %v: tensor<1x2x203x72xbf16>)
    -> (tensor<1x4x113x72xbf16>, tensor<1x4x113xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, sliding_window = 50, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 64, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = true, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<1x4x113x72xbf16>, tensor<1x2x203x72xbf16>, tensor<1x2x203x72xbf16> -> tensor<1x4x113x72xbf16>, tensor<1x4x113xf32>
  return %o, %lse : tensor<1x4x113x72xbf16>, tensor<1x4x113xf32>
}

func.func @wgmma_three_groups_kv_lens(%q: tensor<3x2x70x64xbf16>, %k: tensor<3x2x40x64xbf16>, %v: tensor<3x2x40x64xbf16>, %lens: tensor<3xi32>)
    -> (tensor<3x2x70x64xbf16>, tensor<3x2x70xf32>) {
  %o, %lse = kgen.attention %q, %k, %v kv_lens(%lens : tensor<3xi32>) {causal, softcap = 5.0 : f32, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 192, block_n = 16, warps_m = 12, stages = 1, consumer_warpgroups = 3, ping_pong = true, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>}
      : tensor<3x2x70x64xbf16>, tensor<3x2x40x64xbf16>, tensor<3x2x40x64xbf16> -> tensor<3x2x70x64xbf16>, tensor<3x2x70xf32>
  return %o, %lse : tensor<3x2x70x64xbf16>, tensor<3x2x70xf32>
}

func.func @wgmma_decode_split_packed(%q: tensor<2x8x1x128xbf16>, %k: tensor<2x2x300x128xbf16>, %v: tensor<2x2x300x128xbf16>)
    -> (tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 3, source = user>}
      : tensor<2x8x1x128xbf16>, tensor<2x2x300x128xbf16>, tensor<2x2x300x128xbf16> -> tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>
  return %o, %lse : tensor<2x8x1x128xbf16>, tensor<2x8x1xf32>
}
