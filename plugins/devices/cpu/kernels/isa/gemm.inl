// GEMM micro-kernels: an MR x (NV * kLanes) block of C held in registers,
// A broadcast one value at a time, B loaded a row of NV vectors at a time.
// A packed: kc columns of MR values; B: kc rows of NR values, ldb apart
// (NR when packed, B's row length when read in place).

template <int MR, int NV>
void ukernel(int64_t kc, const float* __restrict a, const float* __restrict b, int64_t ldb, float* __restrict c,
             int64_t ldc, int accumulate) {
  V acc[MR][NV];
#pragma GCC unroll 32
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
    for (int j = 0; j < NV; ++j) acc[i][j] = zero();
  // C's tile is needed only after the k loop: fetch it meanwhile.
#pragma GCC unroll 32
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
    for (int j = 0; j < NV * kLanes; j += 16) __builtin_prefetch(c + i * ldc + j, 1, 3);
  for (int64_t p = 0; p < kc; ++p) {
    V bv[NV];
#pragma GCC unroll 8
    for (int j = 0; j < NV; ++j) bv[j] = load(b + j * kLanes);
#pragma GCC unroll 32
    for (int i = 0; i < MR; ++i) {
      const V av = set1(a[i]);
#pragma GCC unroll 8
      for (int j = 0; j < NV; ++j) acc[i][j] = fma(av, bv[j], acc[i][j]);
    }
    a += MR;
    b += ldb;
  }
#pragma GCC unroll 32
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 8
    for (int j = 0; j < NV; ++j) {
      float* cp = c + i * ldc + j * kLanes;
      store(cp, accumulate ? acc[i][j] + load(cp) : acc[i][j]);
    }
}

template <int MR, int NV>
constexpr UKernel make_ukernel() {
  return UKernel{MR, NV * kLanes, &ukernel<MR, NV>};
}
