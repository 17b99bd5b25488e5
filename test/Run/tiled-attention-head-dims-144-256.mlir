// Every valid head dim from 144 to 256 (padded to 16 in the tiles), causal,
// packed GQA: tile-level schedules on the CPU against the reference
// (see tiled-attention.mlir).
// RUN: %python %S/Inputs/check_tiled.py %s %t --pipeline=--kgen-lower-attention-to-tiles --tolerance=1e-2 | FileCheck %s
// CHECK-DAG: head_dim_144: OK
// CHECK-DAG: head_dim_152: OK
// CHECK-DAG: head_dim_160: OK
// CHECK-DAG: head_dim_168: OK
// CHECK-DAG: head_dim_176: OK
// CHECK-DAG: head_dim_184: OK
// CHECK-DAG: head_dim_192: OK
// CHECK-DAG: head_dim_200: OK
// CHECK-DAG: head_dim_208: OK
// CHECK-DAG: head_dim_216: OK
// CHECK-DAG: head_dim_224: OK
// CHECK-DAG: head_dim_232: OK
// CHECK-DAG: head_dim_240: OK
// CHECK-DAG: head_dim_248: OK
// CHECK-DAG: head_dim_256: OK

func.func @head_dim_144(%q: tensor<1x2x9x144xbf16>, %k: tensor<1x1x21x144xbf16>, %v: tensor<1x1x21x144xbf16>)
    -> (tensor<1x2x9x144xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x144xbf16>, tensor<1x1x21x144xbf16>, tensor<1x1x21x144xbf16> -> tensor<1x2x9x144xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x144xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_152(%q: tensor<1x2x9x152xbf16>, %k: tensor<1x1x21x152xbf16>, %v: tensor<1x1x21x152xbf16>)
    -> (tensor<1x2x9x152xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x152xbf16>, tensor<1x1x21x152xbf16>, tensor<1x1x21x152xbf16> -> tensor<1x2x9x152xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x152xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_160(%q: tensor<1x2x9x160xbf16>, %k: tensor<1x1x21x160xbf16>, %v: tensor<1x1x21x160xbf16>)
    -> (tensor<1x2x9x160xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x160xbf16>, tensor<1x1x21x160xbf16>, tensor<1x1x21x160xbf16> -> tensor<1x2x9x160xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x160xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_168(%q: tensor<1x2x9x168xbf16>, %k: tensor<1x1x21x168xbf16>, %v: tensor<1x1x21x168xbf16>)
    -> (tensor<1x2x9x168xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x168xbf16>, tensor<1x1x21x168xbf16>, tensor<1x1x21x168xbf16> -> tensor<1x2x9x168xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x168xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_176(%q: tensor<1x2x9x176xbf16>, %k: tensor<1x1x21x176xbf16>, %v: tensor<1x1x21x176xbf16>)
    -> (tensor<1x2x9x176xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x176xbf16>, tensor<1x1x21x176xbf16>, tensor<1x1x21x176xbf16> -> tensor<1x2x9x176xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x176xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_184(%q: tensor<1x2x9x184xbf16>, %k: tensor<1x1x21x184xbf16>, %v: tensor<1x1x21x184xbf16>)
    -> (tensor<1x2x9x184xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x184xbf16>, tensor<1x1x21x184xbf16>, tensor<1x1x21x184xbf16> -> tensor<1x2x9x184xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x184xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_192(%q: tensor<1x2x9x192xbf16>, %k: tensor<1x1x21x192xbf16>, %v: tensor<1x1x21x192xbf16>)
    -> (tensor<1x2x9x192xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x192xbf16>, tensor<1x1x21x192xbf16>, tensor<1x1x21x192xbf16> -> tensor<1x2x9x192xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x192xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_200(%q: tensor<1x2x9x200xbf16>, %k: tensor<1x1x21x200xbf16>, %v: tensor<1x1x21x200xbf16>)
    -> (tensor<1x2x9x200xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x200xbf16>, tensor<1x1x21x200xbf16>, tensor<1x1x21x200xbf16> -> tensor<1x2x9x200xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x200xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_208(%q: tensor<1x2x9x208xbf16>, %k: tensor<1x1x21x208xbf16>, %v: tensor<1x1x21x208xbf16>)
    -> (tensor<1x2x9x208xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x208xbf16>, tensor<1x1x21x208xbf16>, tensor<1x1x21x208xbf16> -> tensor<1x2x9x208xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x208xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_216(%q: tensor<1x2x9x216xbf16>, %k: tensor<1x1x21x216xbf16>, %v: tensor<1x1x21x216xbf16>)
    -> (tensor<1x2x9x216xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x216xbf16>, tensor<1x1x21x216xbf16>, tensor<1x1x21x216xbf16> -> tensor<1x2x9x216xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x216xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_224(%q: tensor<1x2x9x224xbf16>, %k: tensor<1x1x21x224xbf16>, %v: tensor<1x1x21x224xbf16>)
    -> (tensor<1x2x9x224xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x224xbf16>, tensor<1x1x21x224xbf16>, tensor<1x1x21x224xbf16> -> tensor<1x2x9x224xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x224xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_232(%q: tensor<1x2x9x232xbf16>, %k: tensor<1x1x21x232xbf16>, %v: tensor<1x1x21x232xbf16>)
    -> (tensor<1x2x9x232xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x232xbf16>, tensor<1x1x21x232xbf16>, tensor<1x1x21x232xbf16> -> tensor<1x2x9x232xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x232xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_240(%q: tensor<1x2x9x240xbf16>, %k: tensor<1x1x21x240xbf16>, %v: tensor<1x1x21x240xbf16>)
    -> (tensor<1x2x9x240xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x240xbf16>, tensor<1x1x21x240xbf16>, tensor<1x1x21x240xbf16> -> tensor<1x2x9x240xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x240xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_248(%q: tensor<1x2x9x248xbf16>, %k: tensor<1x1x21x248xbf16>, %v: tensor<1x1x21x248xbf16>)
    -> (tensor<1x2x9x248xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x248xbf16>, tensor<1x1x21x248xbf16>, tensor<1x1x21x248xbf16> -> tensor<1x2x9x248xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x248xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_256(%q: tensor<1x2x9x256xbf16>, %k: tensor<1x1x21x256xbf16>, %v: tensor<1x1x21x256xbf16>)
    -> (tensor<1x2x9x256xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 16, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x256xbf16>, tensor<1x1x21x256xbf16>, tensor<1x1x21x256xbf16> -> tensor<1x2x9x256xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x256xbf16>, tensor<1x2x9xf32>
}

