// RUN: kgen-opt %s --split-input-file --kgen-select-strategy=target=sm_90a | FileCheck %s --check-prefix=SM90
// RUN: kgen-opt %s --split-input-file --kgen-select-strategy=target=sm_80 | FileCheck %s --check-prefix=SM80

// Prefill bf16 GEMM: wgmma + TMA, warp-specialised on Hopper (no clusters
// until the emitter prints TMA multicast);
// mma.sync with 4 cp.async stages on sm_80.
// SM90-LABEL: func.func @prefill_bf16
// SM90: kgen.gemm {{.*}}config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>
// SM80-LABEL: func.func @prefill_bf16
// SM80: kgen.gemm {{.*}}config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = default>
func.func @prefill_bf16(%a: tensor<4096x4096xbf16>, %b: tensor<4096x14336xbf16>) -> tensor<4096x14336xbf16> {
  %d = kgen.gemm %a, %b : tensor<4096x4096xbf16>, tensor<4096x14336xbf16> -> tensor<4096x14336xbf16>
  return %d : tensor<4096x14336xbf16>
}

// -----

// Decode (M = 1): one consumer warpgroup on 64x128 tiles, 6 stages; the 32
// output tiles leave most of the 132 SMs idle, so K is split 4 ways.
// SM90-LABEL: func.func @decode_bf16
// SM90: block_m = 64, block_n = 128, block_k = 64, warps_m = 4, warps_n = 1, stages = 6, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 4,
// SM80-LABEL: func.func @decode_bf16
// SM80: instruction = mma_sync, block_m = 64, block_n = 64, block_k = 64, warps_m = 2, warps_n = 2, stages = 4, {{.*}} split_k = 1,
func.func @decode_bf16(%a: tensor<1x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<1x4096xbf16> {
  %d = kgen.gemm %a, %b : tensor<1x4096xbf16>, tensor<4096x4096xbf16> -> tensor<1x4096xbf16>
  return %d : tensor<1x4096xbf16>
}

// -----

// A MoE router (N = 8 experts): the narrowest tile N the legality takes
// that covers N, not MMAs on 248 columns that do not exist; 16 per warp
// keeps split-K open (16 tiles of 128 rows fill the SMs split 8 ways).
// With B MN-major (N contiguous) wgmma needs tile Ns that are multiples of
// 64. A wide N keeps the family's tile.
// SM90-LABEL: func.func @router
// SM90: instruction = wgmma, block_m = 128, block_n = 16, block_k = 64, {{.*}} split_k = 8,
// SM80-LABEL: func.func @router
// SM80: instruction = mma_sync, block_m = 128, block_n = 32, block_k = 32, {{.*}} split_k = 4,
func.func @router(%a: tensor<2048x4096xbf16>, %b: tensor<8x4096xbf16>) -> tensor<2048x8xbf16> {
  %d = kgen.gemm %a, %b {transpose_b} : tensor<2048x4096xbf16>, tensor<8x4096xbf16> -> tensor<2048x8xbf16>
  return %d : tensor<2048x8xbf16>
}

// -----

// SM90-LABEL: func.func @router_mn_major_b
// SM90: instruction = wgmma, block_m = 128, block_n = 64, block_k = 64, {{.*}} split_k = 8,
func.func @router_mn_major_b(%a: tensor<2048x4096xbf16>, %b: tensor<4096x8xbf16>) -> tensor<2048x8xbf16> {
  %d = kgen.gemm %a, %b : tensor<2048x4096xbf16>, tensor<4096x8xbf16> -> tensor<2048x8xbf16>
  return %d : tensor<2048x8xbf16>
}

// -----

// f32 keeps full precision (SIMT); f32 output stores 4 elements per vector.
// SM90-LABEL: func.func @f32
// SM90: instruction = simt, block_m = 64, block_n = 64, block_k = 16, warps_m = 2, warps_n = 4, stages = 2, {{.*}} split_k = 2, raster_group = 8, epilogue_vector = 4,
// SM80-LABEL: func.func @f32
// SM80: instruction = simt,
func.func @f32(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %d = kgen.gemm %a, %b : tensor<512x512xf32>, tensor<512x512xf32> -> tensor<512x512xf32>
  return %d : tensor<512x512xf32>
}

// -----

// fp8 with both operands K-major (B transposed): wgmma with twice the K per
// stage on Hopper; no fp8 tensor cores on sm_80.
// SM90-LABEL: func.func @fp8
// SM90: instruction = wgmma, block_m = 128, block_n = 256, block_k = 128,
// SM80-LABEL: func.func @fp8
// SM80: instruction = simt,
func.func @fp8(%a: tensor<4096x4096xf8E4M3FN>, %b: tensor<4096x4096xf8E4M3FN>) -> tensor<4096x4096xbf16> {
  %d = kgen.gemm %a, %b {transpose_b} : tensor<4096x4096xf8E4M3FN>, tensor<4096x4096xf8E4M3FN> -> tensor<4096x4096xbf16>
  return %d : tensor<4096x4096xbf16>
}

// -----

// fp8 with B not K-major: no fp8 wgmma for that layout; the cp.async tiling,
// which on sm_80's rules means SIMT for fp8.
// SM90-LABEL: func.func @fp8_mn_major_b
// SM90: instruction = simt,
// SM80-LABEL: func.func @fp8_mn_major_b
func.func @fp8_mn_major_b(%a: tensor<4096x4096xf8E4M3FN>, %b: tensor<4096x4096xf8E4M3FN>) -> tensor<4096x4096xbf16> {
  %d = kgen.gemm %a, %b : tensor<4096x4096xf8E4M3FN>, tensor<4096x4096xf8E4M3FN> -> tensor<4096x4096xbf16>
  return %d : tensor<4096x4096xbf16>
}

// -----

// Batched operands: wgmma through 3-D tensor maps on sm_90a.
// SM90-LABEL: func.func @batched
// SM90: instruction = wgmma, block_m = 128, block_n = 256, block_k = 64,
// SM80-LABEL: func.func @batched
func.func @batched(%a: tensor<4x256x512xbf16>, %b: tensor<512x256xbf16>) -> tensor<4x256x256xbf16> {
  %d = kgen.gemm %a, %b : tensor<4x256x512xbf16>, tensor<512x256xbf16> -> tensor<4x256x256xbf16>
  return %d : tensor<4x256x256xbf16>
}

// -----

// A config written by hand is kept, whatever the target asked for.
// SM90-LABEL: func.func @hand_written
// SM90: config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 32, block_n = 32, block_k = 8, {{.*}} source = user, entry = "note">
// SM80-LABEL: func.func @hand_written
// SM80: source = user, entry = "note">
func.func @hand_written(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf16> {
  %d = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 32, block_n = 32, block_k = 8, warps_m = 2, warps_n = 2, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 1, epilogue_vector = 4, source = user, entry = "note">} : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf16>
  return %d : tensor<64x64xf16>
}

// -----

// Few rows: one 128-row tile.
// SM90-LABEL: func.func @short_m
// SM90: block_m = 128, {{.*}} cluster_m = 1,
// SM80-LABEL: func.func @short_m
func.func @short_m(%a: tensor<128x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<128x4096xbf16> {
  %d = kgen.gemm %a, %b : tensor<128x4096xbf16>, tensor<4096x4096xbf16> -> tensor<128x4096xbf16>
  return %d : tensor<128x4096xbf16>
}

// -----

// Rows of 29 x 2 = 58 bytes cannot be TMA boxes: the cp.async tiling (with
// its element-wise path) on Hopper too.
// SM90-LABEL: func.func @unaligned_rows
// SM90: config = #kgen.gemm_config<target = sm_90a, instruction = mma_sync, block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 2, stages = 4, tma = false, warp_specialized = false,
// SM80-LABEL: func.func @unaligned_rows
func.func @unaligned_rows(%a: tensor<256x29xbf16>, %b: tensor<29x512xbf16>) -> tensor<256x512xbf16> {
  %d = kgen.gemm %a, %b : tensor<256x29xbf16>, tensor<29x512xbf16> -> tensor<256x512xbf16>
  return %d : tensor<256x512xbf16>
}
