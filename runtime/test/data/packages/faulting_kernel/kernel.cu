// A kernel that faults on purpose, for fault-containment tests on a GPU: it
// has the signature and launch of the naive_gemm_f32 package but stores
// through a null pointer, which raises cudaErrorIllegalAddress (a sticky
// error that poisons the CUDA context). The runtime must report it as a
// fault of this candidate and survive.

extern "C" __global__ void kgen_faulting_kernel(const float *A, const float *B,
                                                float *D, float alpha) {
  // volatile: the compiler cannot see that the pointer is null, so the store
  // is neither removed nor turned into a trap.
  float *volatile nowhere = nullptr;
  nowhere[threadIdx.x] = alpha * A[threadIdx.x] * B[threadIdx.x];
  D[threadIdx.x] = 0.0f;
}
