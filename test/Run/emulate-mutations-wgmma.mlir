// Proof that the emulated device can fail on the wgmma family (issue 12
// item 7): mutations of an emitted sm_90a kernel (bf16, a cluster of 2
// with multicast, 5 k tiles through 2 stages) must be caught, as a
// reported hazard, a deadlock or a wrong result.
// RUN: rm -rf %t && mkdir -p %t && kgen-opt %s --kgen-pipeline="target=sm_90a output-dir=%t" -o /dev/null
// RUN: kgen-emulate %t/kgen_gemm_bf16_m150_n300_k320 | FileCheck %s --check-prefix=BASE
// BASE: kgen_gemm_bf16_m150_n300_k320 wgmma emulated ok
//
// A dropped mbarrier wait: the consumers' wgmmas read a stage whose TMA
// loads have not completed.
// RUN: sed 's/      kgen::cuda::mbar_wait(&full\[s\], read.phase);//' %t/kgen_gemm_bf16_m150_n300_k320/kernel.cu > %t/nowait.cu
// RUN: not grep -q 'mbar_wait(&full\[s\], read.phase)' %t/nowait.cu
// RUN: not kgen-emulate %t/kgen_gemm_bf16_m150_n300_k320 --source %t/nowait.cu 2>&1 | FileCheck %s --check-prefix=NOWAIT
// NOWAIT: error: wgmma.mma_async reads shared byte {{[0-9]+}} while the TMA load into it has not completed
// NOWAIT: wgmma emulated FAILED
//
// expect_tx 1 KiB short of the stage's bytes: the loads deliver more than
// announced.
// RUN: sed 's/mbar_arrive_expect_tx(&full\[s\], kStageBytes)/mbar_arrive_expect_tx(\&full[s], kStageBytes - 1024)/' %t/kgen_gemm_bf16_m150_n300_k320/kernel.cu > %t/tx-short.cu
// RUN: grep -q 'kStageBytes - 1024' %t/tx-short.cu
// RUN: not kgen-emulate %t/kgen_gemm_bf16_m150_n300_k320 --source %t/tx-short.cu 2>&1 | FileCheck %s --check-prefix=TXSHORT
// TXSHORT: error: {{tx-count underflow on the mbarrier|mbarrier at shared offset [0-9]+ of block rank [0-9]: phase 0 completed while}}
//
// expect_tx 16 bytes over: the phase never completes; the deadlock report
// names every waiter and the barriers' states.
// RUN: sed 's/mbar_arrive_expect_tx(&full\[s\], kStageBytes)/mbar_arrive_expect_tx(\&full[s], kStageBytes + 16)/' %t/kgen_gemm_bf16_m150_n300_k320/kernel.cu > %t/tx-over.cu
// RUN: grep -q 'kStageBytes + 16' %t/tx-over.cu
// RUN: not kgen-emulate %t/kgen_gemm_bf16_m150_n300_k320 --source %t/tx-over.cu 2>&1 | FileCheck %s --check-prefix=TXOVER
// TXOVER: error: deadlock in kernel kgen_gemm_bf16_m150_n300_k320: no thread can proceed
// TXOVER: at mbarrier.try_wait.parity on the mbarrier at shared offset {{[0-9]+}}, parity 0
// TXOVER: mbarrier at shared offset {{[0-9]+}} of block rank 0: phase 0 (parity 0), 0 of 1 arrivals pending, tx-count 16
//
// A dropped wgmma wait before a stage is released: the producer refills
// shared memory that queued wgmmas still read.
// RUN: sed 's|      kgen::cuda::wgmma_wait<1>(); // tile k - 1.*||' %t/kgen_gemm_bf16_m150_n300_k320/kernel.cu > %t/nowgwait.cu
// RUN: not grep -q 'wgmma_wait<1>();' %t/nowgwait.cu
// RUN: not kgen-emulate %t/kgen_gemm_bf16_m150_n300_k320 --source %t/nowgwait.cu 2>&1 | FileCheck %s --check-prefix=NOWGWAIT
// NOWGWAIT: error: wgmma.mma_async: shared byte {{[0-9]+}} it reads changed between the instruction's issue and the wgmma.wait_group that completes it
//
// The final wgmma wait dropped: the accumulators are read before the last
// group completes.
// RUN: sed 's|^    kgen::cuda::wgmma_wait<0>();$||' %t/kgen_gemm_bf16_m150_n300_k320/kernel.cu > %t/nofinal.cu
// RUN: not grep -q '^    kgen::cuda::wgmma_wait<0>();$' %t/nofinal.cu
// RUN: not kgen-emulate %t/kgen_gemm_bf16_m150_n300_k320 --source %t/nofinal.cu 2>&1 | FileCheck %s --check-prefix=NOFINAL
// NOFINAL: error: thread exits while its warpgroup has {{[0-9]+}} wgmma.mma_async operation(s) never completed by a wgmma.wait_group
//
// A wrong arrival count on the stage-free barriers: the producer waits for
// an arrival that never comes.
// RUN: sed 's/mbar_init(&empty\[s\], kConsumers \* ClusterM)/mbar_init(\&empty[s], kConsumers * ClusterM + 1)/' %t/kgen_gemm_bf16_m150_n300_k320/kernel.cu > %t/count.cu
// RUN: grep -q 'kConsumers \* ClusterM + 1' %t/count.cu
// RUN: not kgen-emulate %t/kgen_gemm_bf16_m150_n300_k320 --source %t/count.cu 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: error: deadlock in kernel kgen_gemm_bf16_m150_n300_k320
// COUNT: thread 0 (warp 0 lane 0): at mbarrier.try_wait.parity
//
// The closing cluster barrier dropped: a block leaves while its peer still
// arrives on its barriers.
// RUN: sed 's|  Pipeline::finish(); // the cluster.*||' %t/kgen_gemm_bf16_m150_n300_k320/kernel.cu > %t/nofinish.cu
// RUN: not grep -q 'Pipeline::finish();' %t/nofinish.cu
// RUN: not kgen-emulate %t/kgen_gemm_bf16_m150_n300_k320 --source %t/nofinish.cu 2>&1 | FileCheck %s --check-prefix=NOFINISH
// NOFINISH: error: {{mbarrier.arrive.shared::cluster \(mapa\): arrives on the mbarrier|cp.async.bulk.tensor.2d.multicast::cluster: multicast to cluster rank}} {{.*}} whose threads have all exited
//
// A dropped wgmma.fence before a k tile's wgmmas (after the previous
// tile's wait_group the threads may have touched the accumulators).
// RUN: sed 's/^      kgen::cuda::wgmma_fence();$//' %t/kgen_gemm_bf16_m150_n300_k320/kernel.cu > %t/nofence.cu
// RUN: not grep -q '^      kgen::cuda::wgmma_fence();$' %t/nofence.cu
// RUN: not kgen-emulate %t/kgen_gemm_bf16_m150_n300_k320 --source %t/nofence.cu 2>&1 | FileCheck %s --check-prefix=NOFENCE
// NOFENCE: error: wgmma.mma_async with no wgmma.fence since the warpgroup's start or its last wgmma.wait_group
//
// A producer that skips a stage (its ring state advanced twice per k tile):
// it waits for a release that never comes.
// RUN: sed 's/for (long k = ktBegin; k < ktEnd; ++k, ++write) {/for (long k = ktBegin; k < ktEnd; ++k, ++write, ++write) {/' %t/kgen_gemm_bf16_m150_n300_k320/kernel.cu > %t/skip.cu
// RUN: grep -q '++write, ++write' %t/skip.cu
// RUN: not kgen-emulate %t/kgen_gemm_bf16_m150_n300_k320 --source %t/skip.cu 2>&1 | FileCheck %s --check-prefix=SKIP
// SKIP: error: deadlock in kernel kgen_gemm_bf16_m150_n300_k320
// SKIP: thread 0 (warp 0 lane 0): at mbarrier.try_wait.parity
//
// A producer that does not wait for a stage to be free: it arrives on a
// full barrier whose phase is still waiting for the previous loads.
// RUN: sed 's/          kgen::cuda::mbar_wait(&empty\[s\], write.phase);//' %t/kgen_gemm_bf16_m150_n300_k320/kernel.cu > %t/noempty.cu
// RUN: not grep -q 'mbar_wait(&empty\[s\], write.phase)' %t/noempty.cu
// RUN: not kgen-emulate %t/kgen_gemm_bf16_m150_n300_k320 --source %t/noempty.cu 2>&1 | FileCheck %s --check-prefix=NOEMPTY
// NOEMPTY: error: {{mbarrier.arrive.expect_tx: arrival-count underflow|cp.async.bulk.tensor.* writes shared byte}}
//
// A wrong swizzle in the wgmma descriptors (64B where TMA wrote 128B).
// RUN: sed 's/((unsigned long long)wgmma_swizzle_mode(swizzle) << 62)/((unsigned long long)wgmma_swizzle_mode(Swizzle::B64) << 62)/' %t/kgen_gemm_bf16_m150_n300_k320/kernel.cu > %t/swizzle.cu
// RUN: grep -q 'wgmma_swizzle_mode(Swizzle::B64) << 62' %t/swizzle.cu
// RUN: not kgen-emulate %t/kgen_gemm_bf16_m150_n300_k320 --source %t/swizzle.cu 2>&1 | FileCheck %s --check-prefix=SWIZZLE
// SWIZZLE: wgmma emulated WRONG
func.func @main(%a: tensor<150x320xbf16>, %b: tensor<300x320xbf16>) -> tensor<150x300xbf16> {
  %x = kgen.gemm %a, %b {transpose_b, config = #kgen.gemm_config<target = sm_90a, instruction = wgmma, block_m = 64, block_n = 128, block_k = 64, warps_m = 4, warps_n = 1, stages = 2, tma = true, warp_specialized = true, cluster_m = 2, cluster_n = 1, split_k = 1, raster_group = 3, epilogue_vector = 8, source = user>} : tensor<150x320xbf16>, tensor<300x320xbf16> -> tensor<150x300xbf16>
  return %x : tensor<150x300xbf16>
}
