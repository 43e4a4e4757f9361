// OpenBLAS's sgemm as an implementation the tuner may pick over the
// device's own GEMM, shape by shape (the "ukernel" knob's value "openblas").
// Offered only where the device was built with OpenBLAS.
#pragma once

#include <cstdint>

#include "gemm.h"
#include "thread_pool.h"

namespace aoe::cpu {

inline constexpr const char* kOpenBlasLabel = "openblas";

bool openblas_built();

// C (m x n, row-major, ldc n) = A (m x k) * B (k x n), each strided as given
// (a unit col_step is a plain matrix, a unit row_step a transposed one), on
// `threads` threads of the device's pool: each runs one-thread sgemm on a
// part of C (whole 16-row or 16-column blocks of its longer side), so
// OpenBLAS's own threads never run (no hand-off with the pool's).
void openblas_sgemm(const StridedMatrix& a, const StridedMatrix& b, int64_t m, int64_t n, int64_t k, float* c,
                    int threads, ThreadPool& pool);

}  // namespace aoe::cpu
