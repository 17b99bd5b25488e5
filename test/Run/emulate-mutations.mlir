// Proof that the emulated device can fail (issue 12 item 7): mutations of
// emitted kernels must be caught, as a reported hazard or a wrong result.
// RUN: rm -rf %t && mkdir -p %t && kgen-opt %s --kgen-pipeline="target=sm_80 output-dir=%t" -o /dev/null
// RUN: kgen-emulate %t/kgen_gemm_bf16_m100_n72_k200 %t/kgen_gemm_f32_m37_n48_k72 | FileCheck %s --check-prefix=BASE
// BASE: kgen_gemm_bf16_m100_n72_k200 mma_sync emulated ok
// BASE: kgen_gemm_f32_m37_n48_k72 simt emulated ok
//
// A dropped cp.async wait (wait_stage keeps only its barrier): mma_sync's
// ldmatrix reads bytes whose copy is still pending.
// RUN: sed 's/kgen::cuda::cp_async_wait<Pending>();//' %t/kgen_gemm_bf16_m100_n72_k200/kernel.cu > %t/mma-nowait.cu
// RUN: not grep -q 'cp_async_wait<Pending>' %t/mma-nowait.cu
// RUN: not kgen-emulate %t/kgen_gemm_bf16_m100_n72_k200 --source %t/mma-nowait.cu 2>&1 | FileCheck %s --check-prefix=NOWAIT
// NOWAIT: ldmatrix.x4 by thread {{[0-9]+}} reads shared byte {{[0-9]+}} while a cp.async of thread {{[0-9]+}} into it has not completed
// NOWAIT: mma_sync emulated FAILED
//
// The same in simt, whose shared reads go through the layer's ld_shared.
// RUN: sed 's/kgen::cuda::cp_async_wait<Pending>();//' %t/kgen_gemm_f32_m37_n48_k72/kernel.cu > %t/simt-nowait.cu
// RUN: not kgen-emulate %t/kgen_gemm_f32_m37_n48_k72 --source %t/simt-nowait.cu 2>&1 | FileCheck %s --check-prefix=SIMT-NOWAIT
// SIMT-NOWAIT: ld.shared by thread {{[0-9]+}} reads shared byte {{[0-9]+}} while a cp.async of thread {{[0-9]+}} into it has not completed
// SIMT-NOWAIT: simt emulated FAILED
//
// simt without the barrier before a stage is refilled: the refilling
// cp.async races with other threads' ld.shared (reported as the race, or
// as a read of bytes another thread's pending copy is filling, whichever
// the fiber schedule meets first).
// RUN: sed 's|__syncthreads(); // the stage may be refilled next||' %t/kgen_gemm_f32_m37_n48_k72/kernel.cu > %t/simt-nosync.cu
// RUN: not kgen-emulate %t/kgen_gemm_f32_m37_n48_k72 --source %t/simt-nosync.cu 2>&1 | FileCheck %s --check-prefix=SIMT-NOSYNC
// SIMT-NOSYNC: {{race: cp.async.cg.shared.global 16 by thread [0-9]+ writes shared byte [0-9]+ that (other threads|another thread) read with no barrier between them|ld.shared by thread [0-9]+ reads shared byte [0-9]+ while a cp.async of thread [0-9]+ into it has not completed}}
//
// A missing __syncthreads before a stage is refilled: cp.async writes bytes
// other threads' ldmatrix read in the same barrier interval.
// RUN: sed 's|__syncthreads(); // the stage may be refilled next||' %t/kgen_gemm_bf16_m100_n72_k200/kernel.cu > %t/mma-nosync.cu
// RUN: not kgen-emulate %t/kgen_gemm_bf16_m100_n72_k200 --source %t/mma-nosync.cu 2>&1 | FileCheck %s --check-prefix=NOSYNC
// NOSYNC: race: cp.async.cg.shared.global 16 by thread {{[0-9]+}} writes shared byte {{[0-9]+}} that {{other threads|another thread}} read with no barrier between them
//
// A barrier some threads skip (one added at the kernel's start, before any
// shared access): the block's threads reach one barrier instance from two
// places.
// RUN: sed 's|^  extern __shared__ __align__(128) unsigned char smem\[\];|&\n  if (threadIdx.x != 3) __syncthreads();|' %t/kgen_gemm_f32_m37_n48_k72/kernel.cu > %t/simt-divergent.cu
// RUN: grep -q 'threadIdx.x != 3' %t/simt-divergent.cu
// RUN: not kgen-emulate %t/kgen_gemm_f32_m37_n48_k72 --source %t/simt-divergent.cu 2>&1 | FileCheck %s --check-prefix=DIVERGENT
// DIVERGENT: error: divergent __syncthreads: this thread arrives at line {{[0-9]+}} while {{[0-9]+}} threads wait at line {{[0-9]+}}
//
// An out-of-bounds store: the epilogue's row bound dropped.
// RUN: sed 's/    if (row >= a.m || col >= a.n)$/    if (col >= a.n)/' %t/kgen_gemm_f32_m37_n48_k72/kernel.cu > %t/simt-oob.cu
// RUN: not grep -q '    if (row >= a.m || col >= a.n)$' %t/simt-oob.cu
// RUN: not kgen-emulate %t/kgen_gemm_f32_m37_n48_k72 --source %t/simt-oob.cu 2>&1 | FileCheck %s --check-prefix=OOB
// OOB: error: {{invalid memory access at .* \(tensor D|out-of-bounds store: kernel kgen_gemm_f32_m37_n48_k72 wrote tensor D}}
//
// A fragment map off by one: the mma.sync accumulator map sends each
// lane's columns one to the right (mod 8), so the epilogue stores D's
// values in the wrong places and leaves some unwritten (NaN).
// RUN: sed 's|return {lane / 4 + 8 \* (i / 2), 2 \* (lane % 4) + i % 2};|return {lane / 4 + 8 * (i / 2), (2 * (lane % 4) + i % 2 + 1) % 8};|' %t/kgen_gemm_bf16_m100_n72_k200/kernel.cu > %t/mma-accmap.cu
// RUN: not cmp -s %t/kgen_gemm_bf16_m100_n72_k200/kernel.cu %t/mma-accmap.cu
// RUN: not kgen-emulate %t/kgen_gemm_bf16_m100_n72_k200 --source %t/mma-accmap.cu 2>&1 | FileCheck %s --check-prefix=ACCMAP
// ACCMAP: mma_sync emulated WRONG
//
// An ldmatrix address map off by one row: each lane gives the next lane's
// row of A, the fragments hold the wrong rows.
// RUN: sed 's|return {lane % 16, (lane / 16) \* 16};|return {(lane + 1) % 16, (lane / 16) * 16};|' %t/kgen_gemm_bf16_m100_n72_k200/kernel.cu > %t/mma-ldsm.cu
// RUN: not cmp -s %t/kgen_gemm_bf16_m100_n72_k200/kernel.cu %t/mma-ldsm.cu
// RUN: not kgen-emulate %t/kgen_gemm_bf16_m100_n72_k200 --source %t/mma-ldsm.cu 2>&1 | FileCheck %s --check-prefix=LDSM
// LDSM: mma_sync emulated WRONG rel_err={{[0-9.]+}}
func.func @main(%x: tensor<100x200xbf16>, %w: tensor<200x72xbf16>,
                %a: tensor<37x72xf32>, %b: tensor<72x48xf32>)
    -> (tensor<100x72xbf16>, tensor<37x48xf32>) {
  %y = kgen.gemm %x, %w : tensor<100x200xbf16>, tensor<200x72xbf16> -> tensor<100x72xbf16>
  %z = kgen.gemm %a, %b : tensor<37x72xf32>, tensor<72x48xf32> -> tensor<37x48xf32>
  return %y, %z : tensor<100x72xbf16>, tensor<37x48xf32>
}
