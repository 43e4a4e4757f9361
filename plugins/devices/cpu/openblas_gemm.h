// OpenBLAS's sgemm as an implementation the tuner may pick over the
// device's own GEMM, shape by shape (the "ukernel" knob's value "openblas").
// Offered only where the device was built with OpenBLAS.
#pragma once

#include <cstdint>

#include "gemm.h"

namespace aoe::cpu {

inline constexpr const char* kOpenBlasLabel = "openblas";

bool openblas_built();

// C (m x n, row-major, ldc n) = A (m x k) * B (k x n), each strided as given
// (a unit col_step is a plain matrix, a unit row_step a transposed one), on
// `threads` of OpenBLAS's own threads.
void openblas_sgemm(const StridedMatrix& a, const StridedMatrix& b, int64_t m, int64_t n, int64_t k, float* c,
                    int threads);

}  // namespace aoe::cpu
