// Every valid head dim from 32 to 136 (padded to 16 in the tiles), causal,
// packed GQA: tile-level schedules on the CPU against the reference
// (see tiled-attention.mlir).
// RUN: %python %S/Inputs/check_tiled.py %s %t --pipeline=--kgen-lower-attention-to-tiles --tolerance=1e-2 | FileCheck %s
// CHECK-DAG: head_dim_32: OK
// CHECK-DAG: head_dim_40: OK
// CHECK-DAG: head_dim_48: OK
// CHECK-DAG: head_dim_56: OK
// CHECK-DAG: head_dim_64: OK
// CHECK-DAG: head_dim_72: OK
// CHECK-DAG: head_dim_80: OK
// CHECK-DAG: head_dim_88: OK
// CHECK-DAG: head_dim_96: OK
// CHECK-DAG: head_dim_104: OK
// CHECK-DAG: head_dim_112: OK
// CHECK-DAG: head_dim_120: OK
// CHECK-DAG: head_dim_128: OK
// CHECK-DAG: head_dim_136: OK

func.func @head_dim_32(%q: tensor<1x2x9x32xbf16>, %k: tensor<1x1x21x32xbf16>, %v: tensor<1x1x21x32xbf16>)
    -> (tensor<1x2x9x32xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x32xbf16>, tensor<1x1x21x32xbf16>, tensor<1x1x21x32xbf16> -> tensor<1x2x9x32xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x32xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_40(%q: tensor<1x2x9x40xbf16>, %k: tensor<1x1x21x40xbf16>, %v: tensor<1x1x21x40xbf16>)
    -> (tensor<1x2x9x40xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x40xbf16>, tensor<1x1x21x40xbf16>, tensor<1x1x21x40xbf16> -> tensor<1x2x9x40xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x40xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_48(%q: tensor<1x2x9x48xbf16>, %k: tensor<1x1x21x48xbf16>, %v: tensor<1x1x21x48xbf16>)
    -> (tensor<1x2x9x48xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x48xbf16>, tensor<1x1x21x48xbf16>, tensor<1x1x21x48xbf16> -> tensor<1x2x9x48xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x48xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_56(%q: tensor<1x2x9x56xbf16>, %k: tensor<1x1x21x56xbf16>, %v: tensor<1x1x21x56xbf16>)
    -> (tensor<1x2x9x56xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x56xbf16>, tensor<1x1x21x56xbf16>, tensor<1x1x21x56xbf16> -> tensor<1x2x9x56xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x56xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_64(%q: tensor<1x2x9x64xbf16>, %k: tensor<1x1x21x64xbf16>, %v: tensor<1x1x21x64xbf16>)
    -> (tensor<1x2x9x64xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x64xbf16>, tensor<1x1x21x64xbf16>, tensor<1x1x21x64xbf16> -> tensor<1x2x9x64xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x64xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_72(%q: tensor<1x2x9x72xbf16>, %k: tensor<1x1x21x72xbf16>, %v: tensor<1x1x21x72xbf16>)
    -> (tensor<1x2x9x72xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x72xbf16>, tensor<1x1x21x72xbf16>, tensor<1x1x21x72xbf16> -> tensor<1x2x9x72xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x72xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_80(%q: tensor<1x2x9x80xbf16>, %k: tensor<1x1x21x80xbf16>, %v: tensor<1x1x21x80xbf16>)
    -> (tensor<1x2x9x80xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x80xbf16>, tensor<1x1x21x80xbf16>, tensor<1x1x21x80xbf16> -> tensor<1x2x9x80xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x80xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_88(%q: tensor<1x2x9x88xbf16>, %k: tensor<1x1x21x88xbf16>, %v: tensor<1x1x21x88xbf16>)
    -> (tensor<1x2x9x88xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x88xbf16>, tensor<1x1x21x88xbf16>, tensor<1x1x21x88xbf16> -> tensor<1x2x9x88xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x88xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_96(%q: tensor<1x2x9x96xbf16>, %k: tensor<1x1x21x96xbf16>, %v: tensor<1x1x21x96xbf16>)
    -> (tensor<1x2x9x96xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x96xbf16>, tensor<1x1x21x96xbf16>, tensor<1x1x21x96xbf16> -> tensor<1x2x9x96xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x96xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_104(%q: tensor<1x2x9x104xbf16>, %k: tensor<1x1x21x104xbf16>, %v: tensor<1x1x21x104xbf16>)
    -> (tensor<1x2x9x104xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x104xbf16>, tensor<1x1x21x104xbf16>, tensor<1x1x21x104xbf16> -> tensor<1x2x9x104xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x104xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_112(%q: tensor<1x2x9x112xbf16>, %k: tensor<1x1x21x112xbf16>, %v: tensor<1x1x21x112xbf16>)
    -> (tensor<1x2x9x112xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x112xbf16>, tensor<1x1x21x112xbf16>, tensor<1x1x21x112xbf16> -> tensor<1x2x9x112xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x112xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_120(%q: tensor<1x2x9x120xbf16>, %k: tensor<1x1x21x120xbf16>, %v: tensor<1x1x21x120xbf16>)
    -> (tensor<1x2x9x120xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x120xbf16>, tensor<1x1x21x120xbf16>, tensor<1x1x21x120xbf16> -> tensor<1x2x9x120xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x120xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_128(%q: tensor<1x2x9x128xbf16>, %k: tensor<1x1x21x128xbf16>, %v: tensor<1x1x21x128xbf16>)
    -> (tensor<1x2x9x128xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x128xbf16>, tensor<1x1x21x128xbf16>, tensor<1x1x21x128xbf16> -> tensor<1x2x9x128xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x128xbf16>, tensor<1x2x9xf32>
}

func.func @head_dim_136(%q: tensor<1x2x9x136xbf16>, %k: tensor<1x1x21x136xbf16>, %v: tensor<1x1x21x136xbf16>)
    -> (tensor<1x2x9x136xbf16>, tensor<1x2x9xf32>) {
  %o, %lse = kgen.attention %q, %k, %v {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 16, block_n = 16, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 1, source = user>}
      : tensor<1x2x9x136xbf16>, tensor<1x1x21x136xbf16>, tensor<1x1x21x136xbf16> -> tensor<1x2x9x136xbf16>, tensor<1x2x9xf32>
  return %o, %lse : tensor<1x2x9x136xbf16>, tensor<1x2x9xf32>
}

