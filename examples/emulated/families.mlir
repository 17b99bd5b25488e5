// One small GEMM per kernel family, one attention (causal, GQA, split over
// the keys), one on sm_90a's FlashAttention-3 schedule (wgmma, two
// consumer warpgroups in ping-pong, softcap), a decode step over an e4m3
// KV cache (bf16 queries, descales, kv_lens, split-KV), FA3's FP8 path
// (e4m3 Q, K and V on wgmma, descales, causal) and a variable-length
// batch (cu_seqlens, causal), one MoE layer (top-2 of 8 experts, its six kernels with the
// configs kgen-select-strategy chooses) and one DeepSeek-style layer with
// e4m3 weights and 128 x 128 block scales (sigmoid routing over 4 groups;
// its quantisation kernels and block-scaled grouped GEMMs), for the main
// job's emulated-device step
// (examples/main-job.sh): each family's emitted CUDA run on the CPU by
// kgen-emulate and compared with the host reference. Partial tiles in M, N
// and K everywhere; queries and keys no multiple of the attention's tiles.
func.func @main(%a: tensor<70x90xf32>, %b: tensor<90x60xf32>,
                %x: tensor<100x200xbf16>, %w: tensor<200x72xbf16>,
                %p: tensor<150x96xbf16>, %q: tensor<300x96xbf16>,
                %aq: tensor<1x4x50x64xbf16>, %ak: tensor<1x2x150x64xbf16>,
                %av: tensor<1x2x150x64xbf16>,
                %fq: tensor<3x8x1x128xbf16>, %fk: tensor<3x2x300x128xf8E4M3FN>,
                %fv: tensor<3x2x300x128xf8E4M3FN>, %flen: tensor<3xi32>,
                %fdk: tensor<1xf32>, %fdv: tensor<1xf32>,
                %eq: tensor<1x4x70x64xf8E4M3FN>, %ek: tensor<1x2x150x64xf8E4M3FN>,
                %ev: tensor<1x2x150x64xf8E4M3FN>, %edq: tensor<1xf32>,
                %edk: tensor<1xf32>, %edv: tensor<1xf32>,
                %vq: tensor<90x4x64xbf16>, %vk: tensor<120x2x64xbf16>,
                %vv: tensor<120x2x64xbf16>, %vcq: tensor<4xi32>, %vck: tensor<4xi32>,
                %mx: tensor<24x64xbf16>, %ml: tensor<24x8xf32>,
                %mg: tensor<8x64x96xbf16>, %mu: tensor<8x64x96xbf16>,
                %md: tensor<8x96x64xbf16>,
                %ex: tensor<12x256xbf16>, %el: tensor<12x16xf32>,
                %eg: tensor<16x256x128xf8E4M3FN>, %eu: tensor<16x256x128xf8E4M3FN>,
                %ed: tensor<16x128x256xf8E4M3FN>, %esg: tensor<16x2x1xf32>,
                %esu: tensor<16x2x1xf32>, %esd: tensor<16x1x2xf32>)
    -> (tensor<70x60xf32>, tensor<100x72xbf16>, tensor<150x300xbf16>,
        tensor<1x4x50x64xbf16>, tensor<1x4x50x64xbf16>,
        tensor<3x8x1x128xbf16>, tensor<1x4x70x64xbf16>, tensor<90x4x64xbf16>,
        tensor<24x64xbf16>, tensor<12x256xbf16>) {
  %simt = kgen.gemm %a, %b {config = #kgen.gemm_config<target = sm_80, instruction = simt, block_m = 32, block_n = 32, block_k = 8, warps_m = 2, warps_n = 2, stages = 2, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 4, source = user>} : tensor<70x90xf32>, tensor<90x60xf32> -> tensor<70x60xf32>
  %mma = kgen.gemm %x, %w {config = #kgen.gemm_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3, tma = false, warp_specialized = false, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<100x200xbf16>, tensor<200x72xbf16> -> tensor<100x72xbf16>
  %wgmma = kgen.gemm %p, %q {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 128, block_k = 64, warps_m = 4, warps_n = 1, stages = 3, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<150x96xbf16>, tensor<300x96xbf16> -> tensor<150x300xbf16>
  %attn = kgen.attention %aq, %ak, %av {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 64, block_n = 64, warps_m = 4, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 2, source = user>} : tensor<1x4x50x64xbf16>, tensor<1x2x150x64xbf16>, tensor<1x2x150x64xbf16> -> tensor<1x4x50x64xbf16>
  %fa3 = kgen.attention %aq, %ak, %av {softcap = 30.0 : f32, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 64, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = true, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x4x50x64xbf16>, tensor<1x2x150x64xbf16>, tensor<1x2x150x64xbf16> -> tensor<1x4x50x64xbf16>
  %fp8kv = kgen.attention %fq, %fk, %fv kv_lens(%flen : tensor<3xi32>) k_descale(%fdk : tensor<1xf32>) v_descale(%fdv : tensor<1xf32>) {config = #kgen.attention_config<target = sm_90a, instruction = mma_sync, block_m = 16, block_n = 32, warps_m = 1, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = true, split_kv = 2, source = user>} : tensor<3x8x1x128xbf16>, tensor<3x2x300x128xf8E4M3FN>, tensor<3x2x300x128xf8E4M3FN> -> tensor<3x8x1x128xbf16>
  %fa3fp8 = kgen.attention %eq, %ek, %ev q_descale(%edq : tensor<1xf32>) k_descale(%edk : tensor<1xf32>) v_descale(%edv : tensor<1xf32>) {causal, config = #kgen.attention_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 64, warps_m = 8, stages = 2, consumer_warpgroups = 2, ping_pong = true, overlap_softmax = true, pack_gqa = false, split_kv = 1, source = user>} : tensor<1x4x70x64xf8E4M3FN>, tensor<1x2x150x64xf8E4M3FN>, tensor<1x2x150x64xf8E4M3FN> -> tensor<1x4x70x64xbf16>
  %varlen = kgen.attention %vq, %vk, %vv cu_seqlens(%vcq, %vck : tensor<4xi32>, tensor<4xi32>) {causal, config = #kgen.attention_config<target = sm_80, instruction = mma_sync, block_m = 32, block_n = 32, warps_m = 2, stages = 2, consumer_warpgroups = 1, ping_pong = false, overlap_softmax = false, pack_gqa = false, split_kv = 1, source = user>} : tensor<90x4x64xbf16>, tensor<120x2x64xbf16>, tensor<120x2x64xbf16> -> tensor<90x4x64xbf16>
  %moe = kgen.moe %mx, %ml, %mg, %mu, %md {top_k = 2, renormalize} : tensor<24x64xbf16>, tensor<24x8xf32>, tensor<8x64x96xbf16>, tensor<8x64x96xbf16>, tensor<8x96x64xbf16> -> tensor<24x64xbf16>
  %ds = kgen.moe %ex, %el, %eg, %eu, %ed scales(%esg, %esu, %esd : tensor<16x2x1xf32>, tensor<16x2x1xf32>, tensor<16x1x2xf32>) {top_k = 4, renormalize, scoring = #kgen.scoring<sigmoid>, n_group = 4, topk_group = 2} : tensor<12x256xbf16>, tensor<12x16xf32>, tensor<16x256x128xf8E4M3FN>, tensor<16x256x128xf8E4M3FN>, tensor<16x128x256xf8E4M3FN> -> tensor<12x256xbf16>
  return %simt, %mma, %wgmma, %attn, %fa3, %fp8kv, %fa3fp8, %varlen, %moe, %ds : tensor<70x60xf32>, tensor<100x72xbf16>, tensor<150x300xbf16>, tensor<1x4x50x64xbf16>, tensor<1x4x50x64xbf16>, tensor<3x8x1x128xbf16>, tensor<1x4x70x64xbf16>, tensor<90x4x64xbf16>, tensor<24x64xbf16>, tensor<12x256xbf16>
}
