// The emitted CUDA of the wgmma family (sm_90a: the warp-specialised TMA +
// mbarrier + wgmma pipeline, setmaxnreg, clusters with multicast), run on
// the emulated device (docs/emulated-device.md): each package's kernel.cu
// is compiled for the host with the emulated instruction layer, every CUDA
// thread a fiber, the blocks of a cluster together, TMA loads and wgmmas
// completing asynchronously; D is compared with the host reference under
// the GPU verification's tolerance.
//   x  bf16, K-major B, a cluster of 2 with B multicast, partial M and N,
//      5 k tiles through 2 stages (every stage refilled)
//   y  bf16, MN-major B, M = 3 and a partial last k tile (296 = 4*64 + 40)
//   z  e4m3 (both K-major), N = 72 (BN 72), a partial k tile
//   w  f16 -> f32, MN-major A and B (transpose_a), BM 128 (two consumer
//      warpgroups), a cluster of 2 multicasting B's 64-column blocks
//   v  bf16 batched A and B: 3-D tensor maps, partial M and N
//   u  bf16, BM 192 (three consumer warpgroups), partial M
//   t  bf16, a cluster of 4 (B multicast in four 32-row bands), partial M
//   s  bf16 batched A with B broadcast over the batch (3-D and 2-D maps)
//   r  bf16 split-K 4 (two kernels: partial sums, then the reduction)
//   q  bf16 256^3, BN 256, MN-major B, a cluster of 2 (one 128-column half
//      of B multicast by each block)
//   p  e4m3, BM 128, BN 256, a cluster of 2, partial N (260)
// Each package is its own kgen-emulate, two at a time (xargs -P 2), so the
// lines come in any order. x and w run a second time with --seed 5 (another
// schedule of the fibers and of the TMA completions, other inputs): two
// lines each.
// RUN: rm -rf %t && kgen-opt %s --kgen-pipeline="target=sm_90a output-dir=%t" -o /dev/null
// RUN: printf '%%s\n' %t/kgen_gemm_bf16_m150_n300_k320 %t/kgen_gemm_bf16_m3_n200_k296 %t/kgen_gemm_f8E4M3FN_m100_n72_k160 %t/kgen_gemm_f16_m136_n200_k72 %t/kgen_gemm_bf16_b2_m70_n136_k64 %t/kgen_gemm_bf16_m130_n256_k64 %t/kgen_gemm_bf16_m250_n256_k128 %t/kgen_gemm_bf16_b3_m70_n136_k64 %t/kgen_gemm_bf16_m5_n200_k1024 %t/kgen_gemm_bf16_m256_n256_k256 %t/kgen_gemm_f8E4M3FN_m200_n260_k256 '--seed 5 %t/kgen_gemm_bf16_m150_n300_k320' '--seed 5 %t/kgen_gemm_f16_m136_n200_k72' | xargs -L 1 -P 2 kgen-emulate | FileCheck %s
// CHECK-DAG: kgen_gemm_bf16_m150_n300_k320 wgmma emulated ok
// CHECK-DAG: kgen_gemm_bf16_m3_n200_k296 wgmma emulated ok
// CHECK-DAG: kgen_gemm_f8E4M3FN_m100_n72_k160 wgmma emulated ok
// CHECK-DAG: kgen_gemm_f16_m136_n200_k72 wgmma emulated ok
// CHECK-DAG: kgen_gemm_bf16_b2_m70_n136_k64 wgmma emulated ok
// CHECK-DAG: kgen_gemm_bf16_m130_n256_k64 wgmma emulated ok
// CHECK-DAG: kgen_gemm_bf16_m250_n256_k128 wgmma emulated ok
// CHECK-DAG: kgen_gemm_bf16_b3_m70_n136_k64 wgmma emulated ok
// CHECK-DAG: kgen_gemm_bf16_m5_n200_k1024 wgmma emulated ok
// CHECK-DAG: kgen_gemm_bf16_m256_n256_k256 wgmma emulated ok
// CHECK-DAG: kgen_gemm_f8E4M3FN_m200_n260_k256 wgmma emulated ok
// CHECK-DAG: kgen_gemm_bf16_m150_n300_k320 wgmma emulated ok
// CHECK-DAG: kgen_gemm_f16_m136_n200_k72 wgmma emulated ok
func.func @main(%a: tensor<150x320xbf16>, %b: tensor<300x320xbf16>,
                %c: tensor<3x296xbf16>, %d: tensor<296x200xbf16>,
                %e: tensor<100x160xf8E4M3FN>, %f: tensor<72x160xf8E4M3FN>,
                %g: tensor<72x136xf16>, %h: tensor<72x200xf16>,
                %i: tensor<2x70x64xbf16>, %j: tensor<2x64x136xbf16>,
                %k: tensor<130x64xbf16>, %l: tensor<64x256xbf16>,
                %m: tensor<250x128xbf16>, %n: tensor<256x128xbf16>,
                %o: tensor<3x70x64xbf16>, %p: tensor<64x136xbf16>,
                %q: tensor<5x1024xbf16>, %r: tensor<200x1024xbf16>,
                %qa: tensor<256x256xbf16>, %qb: tensor<256x256xbf16>,
                %pa: tensor<200x256xf8E4M3FN>, %pb: tensor<260x256xf8E4M3FN>)
    -> (tensor<150x300xbf16>, tensor<3x200xbf16>, tensor<100x72xbf16>,
        tensor<136x200xf32>, tensor<2x70x136xbf16>, tensor<130x256xbf16>,
        tensor<250x256xbf16>, tensor<3x70x136xbf16>, tensor<5x200xbf16>,
        tensor<256x256xbf16>, tensor<200x260xbf16>) {
  %x = kgen.gemm %a, %b {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 128, block_k = 64, warps_m = 4, warps_n = 1, stages = 2, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 3, epilogue_vector = 8, source = user>} : tensor<150x320xbf16>, tensor<300x320xbf16> -> tensor<150x300xbf16>
  %y = kgen.gemm %c, %d {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 128, block_k = 64, warps_m = 4, warps_n = 1, stages = 6, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<3x296xbf16>, tensor<296x200xbf16> -> tensor<3x200xbf16>
  %z = kgen.gemm %e, %f {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 72, block_k = 128, warps_m = 4, warps_n = 1, stages = 2, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<100x160xf8E4M3FN>, tensor<72x160xf8E4M3FN> -> tensor<100x72xbf16>
  %w = kgen.gemm %g, %h {transpose_a, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 128, block_k = 64, warps_m = 8, warps_n = 1, stages = 3, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<72x136xf16>, tensor<72x200xf16> -> tensor<136x200xf32>
  %v = kgen.gemm %i, %j {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 128, block_k = 64, warps_m = 4, warps_n = 1, stages = 2, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<2x70x64xbf16>, tensor<2x64x136xbf16> -> tensor<2x70x136xbf16>
  %u = kgen.gemm %k, %l {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 192, block_n = 128, block_k = 64, warps_m = 12, warps_n = 1, stages = 2, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<130x64xbf16>, tensor<64x256xbf16> -> tensor<130x256xbf16>
  %t = kgen.gemm %m, %n {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 128, block_k = 64, warps_m = 4, warps_n = 1, stages = 2, tma = true, warp_specialized = true, cluster_m = 4, cluster_n = 1, split_k = 1, raster_group = 4, epilogue_vector = 8, source = user>} : tensor<250x128xbf16>, tensor<256x128xbf16> -> tensor<250x256xbf16>
  %s = kgen.gemm %o, %p {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 128, block_k = 64, warps_m = 4, warps_n = 1, stages = 2, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<3x70x64xbf16>, tensor<64x136xbf16> -> tensor<3x70x136xbf16>
  %r2 = kgen.gemm %q, %r {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 128, block_k = 64, warps_m = 4, warps_n = 1, stages = 4, tma = true, warp_specialized = true, cluster_m = 1, cluster_n = 1, split_k = 4, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<5x1024xbf16>, tensor<200x1024xbf16> -> tensor<5x200xbf16>
  %q2 = kgen.gemm %qa, %qb {config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 64, warps_m = 8, warps_n = 1, stages = 3, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<256x256xbf16>, tensor<256x256xbf16> -> tensor<256x256xbf16>
  %p2 = kgen.gemm %pa, %pb {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 128, block_n = 256, block_k = 128, warps_m = 8, warps_n = 1, stages = 2, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 8, epilogue_vector = 8, source = user>} : tensor<200x256xf8E4M3FN>, tensor<260x256xf8E4M3FN> -> tensor<200x260xbf16>
  return %x, %y, %z, %w, %v, %u, %t, %s, %r2, %q2, %p2 : tensor<150x300xbf16>, tensor<3x200xbf16>, tensor<100x72xbf16>, tensor<136x200xf32>, tensor<2x70x136xbf16>, tensor<130x256xbf16>, tensor<250x256xbf16>, tensor<3x70x136xbf16>, tensor<5x200xbf16>, tensor<256x256xbf16>, tensor<200x260xbf16>
}
