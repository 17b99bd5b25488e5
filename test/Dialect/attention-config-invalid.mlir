// Every rule of the attention families' legality (dialect/AttentionLegality.cpp):
// those the #kgen.attention_config verifier checks alone and those
// kgen.attention checks against the op.
// RUN: kgen-opt %s --split-input-file --verify-diagnostics

// block_m out of range
func.func @f(%q: tensor<1x8x128x64xbf16>, %k: tensor<1x2x128x64xbf16>, %v: tensor<1x2x128x64xbf16>) -> tensor<1x8x128x64xbf16> {
  // expected-error @+1 {{attention_config 'block_m': is 8; expected 16 to 256 rows}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 8, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x8x128x64xbf16>
  return %o : tensor<1x8x128x64xbf16>
}

// -----

// block_n not a multiple of 16
func.func @f(%q: tensor<1x8x128x64xbf16>, %k: tensor<1x2x128x64xbf16>, %v: tensor<1x2x128x64xbf16>) -> tensor<1x8x128x64xbf16> {
  // expected-error @+1 {{attention_config 'block_n': is 24; expected a multiple of 16}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 24, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x8x128x64xbf16>
  return %o : tensor<1x8x128x64xbf16>
}

// -----

// stages zero
func.func @f(%q: tensor<1x8x128x64xbf16>, %k: tensor<1x2x128x64xbf16>, %v: tensor<1x2x128x64xbf16>) -> tensor<1x8x128x64xbf16> {
  // expected-error @+1 {{attention_config 'stages': is 0; expected 1 to 8}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, warps_m = 4, stages = 0, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x8x128x64xbf16>
  return %o : tensor<1x8x128x64xbf16>
}

// -----

// split_kv zero
func.func @f(%q: tensor<1x8x128x64xbf16>, %k: tensor<1x2x128x64xbf16>, %v: tensor<1x2x128x64xbf16>) -> tensor<1x8x128x64xbf16> {
  // expected-error @+1 {{attention_config 'split_kv': is 0; expected 1 to 128}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 0, source = user>} : tensor<1x8x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x8x128x64xbf16>
  return %o : tensor<1x8x128x64xbf16>
}

// -----

// consumer warpgroups
func.func @f(%q: tensor<1x8x128x64xbf16>, %k: tensor<1x2x128x64xbf16>, %v: tensor<1x2x128x64xbf16>) -> tensor<1x8x128x64xbf16> {
  // expected-error @+1 {{attention_config 'consumer_warpgroups': is 4; expected 1 to 3}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 4, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x8x128x64xbf16>
  return %o : tensor<1x8x128x64xbf16>
}

// -----

// warps_m 3
func.func @f(%q: tensor<1x8x128x64xbf16>, %k: tensor<1x2x128x64xbf16>, %v: tensor<1x2x128x64xbf16>) -> tensor<1x8x128x64xbf16> {
  // expected-error @+1 {{attention_config 'warps_m': is 3; expected 1, 2, 4 or 8}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 48, block_n = 64, warps_m = 3, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x8x128x64xbf16>
  return %o : tensor<1x8x128x64xbf16>
}

// -----

// block_m not 16 per warp
func.func @f(%q: tensor<1x8x128x64xbf16>, %k: tensor<1x2x128x64xbf16>, %v: tensor<1x2x128x64xbf16>) -> tensor<1x8x128x64xbf16> {
  // expected-error @+1 {{attention_config 'block_m': is 128; mma_sync attention gives each of the 4 warps 16 rows: expected 64}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x8x128x64xbf16>
  return %o : tensor<1x8x128x64xbf16>
}

// -----

// block_n above 128 for mma_sync
func.func @f(%q: tensor<1x8x128x64xbf16>, %k: tensor<1x2x128x64xbf16>, %v: tensor<1x2x128x64xbf16>) -> tensor<1x8x128x64xbf16> {
  // expected-error @+1 {{attention_config 'block_n': is 144; mma_sync attention keeps a warp's S row block in registers: at most 128}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 144, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x8x128x64xbf16>
  return %o : tensor<1x8x128x64xbf16>
}

// -----

// stages above 4 for mma_sync
func.func @f(%q: tensor<1x8x128x64xbf16>, %k: tensor<1x2x128x64xbf16>, %v: tensor<1x2x128x64xbf16>) -> tensor<1x8x128x64xbf16> {
  // expected-error @+1 {{attention_config 'stages': is 5; mma_sync attention takes 1 to 4}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, warps_m = 4, stages = 5, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x8x128x64xbf16>
  return %o : tensor<1x8x128x64xbf16>
}

// -----

// ping-pong is FA3's
func.func @f(%q: tensor<1x8x128x64xbf16>, %k: tensor<1x2x128x64xbf16>, %v: tensor<1x2x128x64xbf16>) -> tensor<1x8x128x64xbf16> {
  // expected-error @+1 {{attention_config 'ping_pong': is FlashAttention-3's schedule}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = true, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x8x128x64xbf16>
  return %o : tensor<1x8x128x64xbf16>
}

// -----

// wgmma on sm_80
func.func @f(%q: tensor<1x8x128x64xbf16>, %k: tensor<1x2x128x64xbf16>, %v: tensor<1x2x128x64xbf16>) -> tensor<1x8x128x64xbf16> {
  // expected-error @+1 {{attention_config 'instruction': wgmma needs target sm_90a}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = wgmma, block_m = 64, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x8x128x64xbf16>
  return %o : tensor<1x8x128x64xbf16>
}

// -----

// wgmma: 64 rows per consumer warpgroup
func.func @f(%q: tensor<1x8x128x64xbf16>, %k: tensor<1x2x128x64xbf16>, %v: tensor<1x2x128x64xbf16>) -> tensor<1x8x128x64xbf16> {
  // expected-error @+1 {{attention_config 'block_m': is 64; wgmma attention gives each of the 2 consumer warpgroup(s) 64 rows: expected 128}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 64, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x8x128x64xbf16>
  return %o : tensor<1x8x128x64xbf16>
}

// -----

// wgmma: 4 consumer warps per warpgroup
func.func @f(%q: tensor<1x8x128x64xbf16>, %k: tensor<1x2x128x64xbf16>, %v: tensor<1x2x128x64xbf16>) -> tensor<1x8x128x64xbf16> {
  // expected-error @+1 {{attention_config 'warps_m': is 4; wgmma attention's consumer warps are 4 per warpgroup: expected 8}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 2, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x8x128x64xbf16>
  return %o : tensor<1x8x128x64xbf16>
}

// -----

// wgmma: ping-pong needs two warpgroups
func.func @f(%q: tensor<1x8x128x64xbf16>, %k: tensor<1x2x128x64xbf16>, %v: tensor<1x2x128x64xbf16>) -> tensor<1x8x128x64xbf16> {
  // expected-error @+1 {{attention_config 'ping_pong': takes turns between consumer warpgroups}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = true, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x8x128x64xbf16>
  return %o : tensor<1x8x128x64xbf16>
}

// -----

// wgmma: the softmax overlapped with the previous P V holds two stages
func.func @f(%q: tensor<1x8x128x64xbf16>, %k: tensor<1x2x128x64xbf16>, %v: tensor<1x2x128x64xbf16>) -> tensor<1x8x128x64xbf16> {
  // expected-error @+1 {{attention_config 'stages': is 1; overlap_softmax holds two stages at once: at least 2}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 64, warps_m = 8, stages = 1, consumer_warpgroups = 2, ping_pong = false, overlap_softmax = true, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x8x128x64xbf16>
  return %o : tensor<1x8x128x64xbf16>
}

// -----

// wgmma: at most 4 stages
func.func @f(%q: tensor<1x8x128x64xbf16>, %k: tensor<1x2x128x64xbf16>, %v: tensor<1x2x128x64xbf16>) -> tensor<1x8x128x64xbf16> {
  // expected-error @+1 {{attention_config 'stages': is 5; wgmma attention takes 1 to 4}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 64, warps_m = 8, stages = 5, consumer_warpgroups = 2, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x8x128x64xbf16>
  return %o : tensor<1x8x128x64xbf16>
}

// -----

// wgmma: registers (3 block_n / 4 + Dp / 2)
func.func @f(%q: tensor<1x8x128x128xbf16>, %k: tensor<1x2x128x128xbf16>, %v: tensor<1x2x128x128xbf16>) -> tensor<1x8x128x128xbf16> {
  // expected-error @+1 {{attention_config 'block_n': is 192; with head dim 128 (tiles of 128) and 2 consumer warpgroup(s) a thread would need 3 block_n / 4 + Dp / 2 = 208 registers of accumulators and P, more than the 200 that compile without spills: block_n must be at most 176}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 192, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x128xbf16>, tensor<1x2x128x128xbf16>, tensor<1x2x128x128xbf16> -> tensor<1x8x128x128xbf16>
  return %o : tensor<1x8x128x128xbf16>
}

// -----

// wgmma: three warpgroups at head dim 256
func.func @f(%q: tensor<1x8x128x256xbf16>, %k: tensor<1x2x128x256xbf16>, %v: tensor<1x2x128x256xbf16>) -> tensor<1x8x128x256xbf16> {
  // expected-error @+1 {{attention_config 'block_n': is 16; with head dim 256 (tiles of 256) and 3 consumer warpgroup(s) a thread would need 3 block_n / 4 + Dp / 2 = 140 registers of accumulators and P, more than the 132 that compile without spills: no block_n fits: at most two consumer warpgroups}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 192, block_n = 16, warps_m = 12, stages = 2, consumer_warpgroups = 3, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x256xbf16>, tensor<1x2x128x256xbf16>, tensor<1x2x128x256xbf16> -> tensor<1x8x128x256xbf16>
  return %o : tensor<1x8x128x256xbf16>
}

// -----

// wgmma: shared memory
func.func @f(%q: tensor<1x8x128x128xbf16>, %k: tensor<1x2x128x128xbf16>, %v: tensor<1x2x128x128xbf16>) -> tensor<1x8x128x128xbf16> {
  // expected-error @+1 {{attention_config 'stages': is 4; the Q tile and 4 K and V stages of 128 x 128 take}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 128, warps_m = 8, stages = 4, consumer_warpgroups = 2, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x128xbf16>, tensor<1x2x128x128xbf16>, tensor<1x2x128x128xbf16> -> tensor<1x8x128x128xbf16>
  return %o : tensor<1x8x128x128xbf16>
}

// -----

// simt
func.func @f(%q: tensor<1x8x128x64xbf16>, %k: tensor<1x2x128x64xbf16>, %v: tensor<1x2x128x64xbf16>) -> tensor<1x8x128x64xbf16> {
  // expected-error @+1 {{attention_config 'instruction': attention runs on the tensor cores}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = simt, block_m = 64, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16> -> tensor<1x8x128x64xbf16>
  return %o : tensor<1x8x128x64xbf16>
}

// -----

// f32 operands
func.func @f(%q: tensor<1x8x128x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x8x128x64xf32> {
  // expected-error @+1 {{attention_config 'instruction': mma_sync attention takes bf16, f16 or e4m3 operands (m16n8k16; e4m3 widened)}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x8x128x64xf32>
  return %o : tensor<1x8x128x64xf32>
}

// -----

// registers: head dim 256 with block_n 64
func.func @f(%q: tensor<1x8x128x256xbf16>, %k: tensor<1x2x128x256xbf16>, %v: tensor<1x2x128x256xbf16>) -> tensor<1x8x128x256xbf16> {
  // expected-error @+1 {{attention_config 'block_n': is 64; with head dim 256 (tiles of 256) a thread would hold 160 f32 accumulators: block_n must be at most 32}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x256xbf16>, tensor<1x2x128x256xbf16>, tensor<1x2x128x256xbf16> -> tensor<1x8x128x256xbf16>
  return %o : tensor<1x8x128x256xbf16>
}

// -----

// one warp's copies
func.func @f(%q: tensor<1x8x128x128xbf16>, %k: tensor<1x2x128x128xbf16>, %v: tensor<1x2x128x128xbf16>) -> tensor<1x8x128x128xbf16> {
  // expected-error @+1 {{attention_config 'block_n': is 64; with 1 warps and head dim 128 (tiles of 128) a thread would issue 32 copies per K tile, more than the 16 that compile without spills: block_n must be at most 32}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 64, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x128xbf16>, tensor<1x2x128x128xbf16>, tensor<1x2x128x128xbf16> -> tensor<1x8x128x128xbf16>
  return %o : tensor<1x8x128x128xbf16>
}

// -----

// copies beyond head dim 128
func.func @f(%q: tensor<1x8x128x160xbf16>, %k: tensor<1x2x128x160xbf16>, %v: tensor<1x2x128x160xbf16>) -> tensor<1x8x128x160xbf16> {
  // expected-error @+1 {{attention_config 'block_n': is 48; with 2 warps and head dim 160 (tiles of 160) a thread would issue 15 copies per K tile, more than the 12 that compile without spills: block_n must be at most 32}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 48, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x160xbf16>, tensor<1x2x128x160xbf16>, tensor<1x2x128x160xbf16> -> tensor<1x8x128x160xbf16>
  return %o : tensor<1x8x128x160xbf16>
}

// -----

// stages beyond head dim 128
func.func @f(%q: tensor<1x8x128x144xbf16>, %k: tensor<1x2x128x144xbf16>, %v: tensor<1x2x128x144xbf16>) -> tensor<1x8x128x144xbf16> {
  // expected-error @+1 {{attention_config 'stages': is 3; beyond head dim 128 (tiles of 144) a third K/V stage spills registers: at most 2}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 32, warps_m = 4, stages = 3, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x144xbf16>, tensor<1x2x128x144xbf16>, tensor<1x2x128x144xbf16> -> tensor<1x8x128x144xbf16>
  return %o : tensor<1x8x128x144xbf16>
}

// -----

// copies with 3 stages
func.func @f(%q: tensor<1x8x128x128xbf16>, %k: tensor<1x2x128x128xbf16>, %v: tensor<1x2x128x128xbf16>) -> tensor<1x8x128x128xbf16> {
  // expected-error @+1 {{attention_config 'block_n': is 32; with 1 warps and head dim 128 (tiles of 128) a thread would issue 16 copies per K tile, more than the 8 that compile without spills: block_n must be at most 16}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 32, warps_m = 1, stages = 3, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x128xbf16>, tensor<1x2x128x128xbf16>, tensor<1x2x128x128xbf16> -> tensor<1x8x128x128xbf16>
  return %o : tensor<1x8x128x128xbf16>
}

// -----

// shared memory
func.func @f(%q: tensor<1x8x128x128xbf16>, %k: tensor<1x2x128x128xbf16>, %v: tensor<1x2x128x128xbf16>) -> tensor<1x8x128x128xbf16> {
  // expected-error @+1 {{attention_config 'stages': is 4; the Q tile and 4 K and V stages of 128 x 128 take 294912 bytes of shared memory, more than the 166912 of sm_80}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, warps_m = 8, stages = 4, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x128xbf16>, tensor<1x2x128x128xbf16>, tensor<1x2x128x128xbf16> -> tensor<1x8x128x128xbf16>
  return %o : tensor<1x8x128x128xbf16>
}

// -----

// wgmma: a paged cache gathers rows page by page (TMA boxes cannot)
func.func @f(%q: tensor<2x8x1x64xbf16>, %k: tensor<40x2x16x64xbf16>, %v: tensor<40x2x16x64xbf16>, %bt: tensor<2x8xi32>) -> tensor<2x8x1x64xbf16> {
  // expected-error @+1 {{attention_config 'instruction': wgmma attention loads K and V as TMA boxes of consecutive rows; a paged cache (block_table) gathers rows page by page: use mma_sync}}
  %o = kgen.attention %q, %k, %v block_table(%bt : tensor<2x8xi32>) {config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>} : tensor<2x8x1x64xbf16>, tensor<40x2x16x64xbf16>, tensor<40x2x16x64xbf16> -> tensor<2x8x1x64xbf16>
  return %o : tensor<2x8x1x64xbf16>
}

// -----

// e4m3 operands: widened by cvt.rn.f16x2.e4m3x2, which sm_80 lacks
func.func @f(%q: tensor<1x8x1x64xbf16>, %k: tensor<1x2x128x64xf8E4M3FN>, %v: tensor<1x2x128x64xf8E4M3FN>) -> tensor<1x8x1x64xbf16> {
  // expected-error @+1 {{attention_config 'instruction': e4m3 operands are widened by cvt.rn.f16x2.e4m3x2 (sm_89 and later): target sm_90a}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 64, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>} : tensor<1x8x1x64xbf16>, tensor<1x2x128x64xf8E4M3FN>, tensor<1x2x128x64xf8E4M3FN> -> tensor<1x8x1x64xbf16>
  return %o : tensor<1x8x1x64xbf16>
}

// -----

// wgmma reads 16-bit tiles or all-e4m3 ones: an e4m3 cache under bf16
// queries runs on mma_sync
func.func @f(%q: tensor<1x8x128x64xbf16>, %k: tensor<1x2x128x64xf8E4M3FN>, %v: tensor<1x2x128x64xf8E4M3FN>) -> tensor<1x8x128x64xbf16> {
  // expected-error @+1 {{attention_config 'instruction': wgmma attention takes bf16 or f16 operands (m64nNk16) or e4m3 Q, K and V (m64nNk32); an e4m3 cache under 16-bit queries runs on mma_sync, widened in shared memory}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 128, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = true, overlap_softmax = true, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x64xbf16>, tensor<1x2x128x64xf8E4M3FN>, tensor<1x2x128x64xf8E4M3FN> -> tensor<1x8x128x64xbf16>
  return %o : tensor<1x8x128x64xbf16>
}

// -----

// e4m3 wgmma: V^T's rows are 64-byte blocks of keys
func.func @f(%q: tensor<1x8x128x64xf8E4M3FN>, %k: tensor<1x2x128x64xf8E4M3FN>, %v: tensor<1x2x128x64xf8E4M3FN>) -> tensor<1x8x128x64xbf16> {
  // expected-error @+1 {{attention_config 'block_n': is 96; e4m3 wgmma attention transposes V into rows of block_n keys in 64-byte swizzle blocks: a multiple of 64}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 96, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = true, overlap_softmax = true, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x64xf8E4M3FN>, tensor<1x2x128x64xf8E4M3FN>, tensor<1x2x128x64xf8E4M3FN> -> tensor<1x8x128x64xbf16>
  return %o : tensor<1x8x128x64xbf16>
}

// -----

// e4m3 wgmma: TMA row strides of 16 bytes
func.func @f(%q: tensor<1x8x128x40xf8E4M3FN>, %k: tensor<1x2x128x40xf8E4M3FN>, %v: tensor<1x2x128x40xf8E4M3FN>) -> tensor<1x8x128x40xbf16> {
  // expected-error @+1 {{attention_config 'instruction': e4m3 wgmma attention loads Q, K and V by TMA, whose row strides are multiples of 16 bytes: head dim 40 is not a multiple of 16 (use mma_sync)}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 64, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = true, overlap_softmax = true, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x40xf8E4M3FN>, tensor<1x2x128x40xf8E4M3FN>, tensor<1x2x128x40xf8E4M3FN> -> tensor<1x8x128x40xbf16>
  return %o : tensor<1x8x128x40xbf16>
}

// -----

// e4m3 wgmma: three warpgroups' 128 registers hold 120 (ptxas)
func.func @f(%q: tensor<1x8x128x64xf8E4M3FN>, %k: tensor<1x2x128x64xf8E4M3FN>, %v: tensor<1x2x128x64xf8E4M3FN>) -> tensor<1x8x128x64xbf16> {
  // expected-error @+1 {{attention_config 'block_n': is 128; with head dim 64 (tiles of 64) and 3 consumer warpgroup(s) a thread would need 3 block_n / 4 + Dp / 2 = 128 registers of accumulators and P, more than the 120 that compile without spills: block_n must be at most 64}}
  %o = kgen.attention %q, %k, %v {config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 192, block_n = 128, warps_m = 12, stages = 2, consumer_warpgroups = 3, ping_pong = true, overlap_softmax = true, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x8x128x64xf8E4M3FN>, tensor<1x2x128x64xf8E4M3FN>, tensor<1x2x128x64xf8E4M3FN> -> tensor<1x8x128x64xbf16>
  return %o : tensor<1x8x128x64xbf16>
}


// -----

// variable-length sequences: no packed-GQA view
func.func @f(%q: tensor<40x8x64xbf16>, %k: tensor<50x2x64xbf16>, %v: tensor<50x2x64xbf16>, %cq: tensor<4xi32>, %ck: tensor<4xi32>) -> tensor<40x8x64xbf16> {
  // expected-error @+1 {{attention_config 'pack_gqa': variable-length sequences (cu_seqlens) take pack_gqa = false and split_kv = 1}}
  %o = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<4xi32>, tensor<4xi32>) {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 64, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>} : tensor<40x8x64xbf16>, tensor<50x2x64xbf16>, tensor<50x2x64xbf16> -> tensor<40x8x64xbf16>
  return %o : tensor<40x8x64xbf16>
}

// -----

// variable-length sequences: no split-KV
func.func @f(%q: tensor<40x8x64xbf16>, %k: tensor<50x2x64xbf16>, %v: tensor<50x2x64xbf16>, %cq: tensor<4xi32>, %ck: tensor<4xi32>) -> tensor<40x8x64xbf16> {
  // expected-error @+1 {{attention_config 'split_kv': variable-length sequences (cu_seqlens) take pack_gqa = false and split_kv = 1}}
  %o = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<4xi32>, tensor<4xi32>) {config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 64, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 2, source = user>} : tensor<40x8x64xbf16>, tensor<50x2x64xbf16>, tensor<50x2x64xbf16> -> tensor<40x8x64xbf16>
  return %o : tensor<40x8x64xbf16>
}

// -----

// variable-length sequences: wgmma's TMA maps are over [B, H, S, D] planes
func.func @f(%q: tensor<400x8x64xbf16>, %k: tensor<500x2x64xbf16>, %v: tensor<500x2x64xbf16>, %cq: tensor<4xi32>, %ck: tensor<4xi32>) -> tensor<400x8x64xbf16> {
  // expected-error @+1 {{attention_config 'instruction': wgmma attention's TMA maps are over [B, H, S, D] planes; variable-length sequences (cu_seqlens) run on mma_sync}}
  %o = kgen.attention %q, %k, %v cu_seqlens(%cq, %ck : tensor<4xi32>, tensor<4xi32>) {config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 128, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = true, overlap_softmax = true, pack_gqa = false, split_kv = 1, source = user>} : tensor<400x8x64xbf16>, tensor<500x2x64xbf16>, tensor<500x2x64xbf16> -> tensor<400x8x64xbf16>
  return %o : tensor<400x8x64xbf16>
}
