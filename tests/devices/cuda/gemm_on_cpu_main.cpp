// aoe_gemm's generated source run on CPU threads (cuda_on_cpu_prelude.h)
// against a double-precision reference: compiled by the GEMM tests with the
// source as AOE_GEMM_SOURCE and the launch gemm_launch gives as GRID_X,
// GRID_Y, GRID_Z, BLOCK_X and SHARED_FLOATS. Exits 0 where every element of C
// matches, 1 naming the first that does not.
#include "cuda_on_cpu_prelude.h"

// Sized as the launch says, so that the address sanitizer sees a kernel
// reaching past its shared memory; C linkage, as the extern "C" kernel declares it.
extern "C" {
float aoe_smem[SHARED_FLOATS];
}

#include AOE_GEMM_SOURCE

namespace {

double activate(double v) {
#if EPILOGUE == EPILOGUE_RELU
  return v > 0 ? v : 0;
#elif EPILOGUE == EPILOGUE_GELU_ERF
  return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
#elif EPILOGUE == EPILOGUE_GELU_TANH
  return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
#else
  return v;
#endif
}

std::vector<float> random_values(long long count, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> out(static_cast<size_t>(count));
  for (auto& v : out) v = dist(gen);
  return out;
}

}  // namespace

int main() {
  const long long m = M, n = N, k = K, batch = BATCH;
  const auto a = random_values((A_BATCH_STRIDE ? batch : 1) * m * k, 1);
  const auto b = random_values((B_BATCH_STRIDE ? batch : 1) * k * n, 2);
  const auto bias = random_values(batch * m * n, 3);
  const auto residual = random_values(batch * m * n, 4);
  // NaN where the kernel must store; zero where split_k adds.
  std::vector<float> c(static_cast<size_t>(batch * m * n), SPLIT_K > 1 ? 0.0f : NAN);
  aoe_launch({GRID_X, GRID_Y, GRID_Z}, BLOCK_X, [&] { aoe_gemm(a.data(), b.data(), HAS_BIAS ? bias.data() : nullptr, HAS_RESIDUAL ? residual.data() : nullptr, c.data()); });

  for (long long z = 0; z < batch; ++z)
    for (long long i = 0; i < m; ++i)
      for (long long j = 0; j < n; ++j) {
        double sum = 0;
        for (long long q = 0; q < k; ++q) {
          float av = a[z * A_BATCH_STRIDE + (TRANS_A ? q * m + i : i * k + q)];
          float bv = b[z * B_BATCH_STRIDE + (TRANS_B ? j * k + q : q * n + j)];
#if MATH == 1
          // The tensor cores multiply the inputs rounded to TF32 (or fp16), exactly.
          av = tf32_rounded(av);
          bv = tf32_rounded(bv);
#elif MATH == 2
          av = fp16_rounded(av);
          bv = fp16_rounded(bv);
#endif
          sum += static_cast<double>(av) * bv;
        }
        double want = static_cast<double>(ALPHA) * sum;
        if (HAS_BIAS) want += static_cast<double>(BETA) * bias[z * BIAS_BATCH_STRIDE + i * BIAS_ROW_STRIDE + j * BIAS_COL_STRIDE];
        if (HAS_RESIDUAL) want += residual[z * RESIDUAL_BATCH_STRIDE + i * RESIDUAL_ROW_STRIDE + j * RESIDUAL_COL_STRIDE];
        want = activate(want);
        const double got = c[(z * m + i) * n + j];
        if (!(std::abs(got - want) <= 1e-4 * (1 + std::abs(want)) * std::sqrt(static_cast<double>(k > 1 ? k : 1)))) {
          std::printf("C[%lld][%lld][%lld] is %.9g, expected %.9g\n", z, i, j, got, want);
          return 1;
        }
      }
  std::printf("ok\n");
  return 0;
}
