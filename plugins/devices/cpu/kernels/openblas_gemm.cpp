#include "openblas_gemm.h"

#include "aoe/sdk/error.h"

#ifdef AOE_CPU_WITH_OPENBLAS
#include <cblas.h>
#endif

namespace aoe::cpu {

#ifdef AOE_CPU_WITH_OPENBLAS

bool openblas_built() { return true; }

namespace {

// The cblas view of a strided matrix: its transpose flag and leading dim.
struct BlasMatrix {
  CBLAS_TRANSPOSE trans;
  blasint ld;
};

BlasMatrix blas_view(const StridedMatrix& m) {
  if (m.col_step == 1) return {CblasNoTrans, static_cast<blasint>(m.row_step)};
  if (m.row_step == 1) return {CblasTrans, static_cast<blasint>(m.col_step)};
  throw sdk::Error(sdk::StatusCode::internal, "OpenBLAS takes a plain or a transposed matrix, not this strided one");
}

}  // namespace

void openblas_sgemm(const StridedMatrix& a, const StridedMatrix& b, int64_t m, int64_t n, int64_t k, float* c,
                    int threads, ThreadPool& pool) {
  const BlasMatrix av = blas_view(a), bv = blas_view(b);
  // A leading dim of at least 1 even for an empty or single-column matrix, as cblas checks.
  const auto at_least_one = [](blasint v) { return v < 1 ? blasint{1} : v; };
  openblas_set_num_threads(1);
  // Parts of whole blocks as wide as OpenBLAS's micro-kernels.
  constexpr int64_t kUnit = 16;
  const bool by_rows = m > n;
  const int64_t side = by_rows ? m : n;
  const int parts = block_parts(side, kUnit, threads);
  pool.run(parts, threads, [&](int64_t part, int) {
    const auto [lo, hi] = block_part(side, kUnit, parts, part);
    if (hi <= lo) return;
    const int64_t rows = by_rows ? hi - lo : m, cols = by_rows ? n : hi - lo;
    cblas_sgemm(CblasRowMajor, av.trans, bv.trans, static_cast<blasint>(rows), static_cast<blasint>(cols),
                static_cast<blasint>(k), 1.0f, by_rows ? a.data + lo * a.row_step : a.data, at_least_one(av.ld),
                by_rows ? b.data : b.data + lo * b.col_step, at_least_one(bv.ld), 0.0f, by_rows ? c + lo * n : c + lo,
                at_least_one(static_cast<blasint>(n)));
  });
}

#else

bool openblas_built() { return false; }

void openblas_sgemm(const StridedMatrix&, const StridedMatrix&, int64_t, int64_t, int64_t, float*, int, ThreadPool&) {
  throw sdk::Error(sdk::StatusCode::unsupported, "this cpu device was built without OpenBLAS (libopenblas-dev)");
}

#endif

}  // namespace aoe::cpu
