// A kernel that fails on purpose, one way per value of `fault`, so the
// cuda device's handling of each failure is checked on a real GPU as well
// as on the test double:
//   0 scales the input, correctly;   1 does not compile;
//   2 writes through a null pointer (an illegal address: the context is lost);
//   3 never returns;                 4 launches 16x the threads a block may hold
//   (its LocalSize says so); 5 computes a wrong result.
#if fault == 1
#error "fault 1: this config does not compile"
#endif

extern "C" __global__ void faulty_kernel(float* output, const float* input, int n) {
  const int i = blockIdx.x * block_size_x + threadIdx.x;
#if fault == 2
  if (i == 0) *(volatile float*)0 = 1.0f;
#endif
#if fault == 3
  volatile int spin = 1;
  while (spin) {
  }
#endif
  if (i < n) output[i] = 2.0f * input[i] + (fault == 5 && i == 0 ? 1.0f : 0.0f);
}
