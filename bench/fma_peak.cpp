#include "fma_peak.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace aoe::bench {
namespace {

#if defined(__x86_64__)
// Peak of one core: 16 independent FMA chains, enough for two FMA ports of
// 4-cycle latency.
__attribute__((target("avx512f,fma"))) double fma_loop_avx512(long iters) {
  // Distinct starting values, or the compiler merges the chains into one.
  __m512 a0 = _mm512_set1_ps(1.00f), a1 = _mm512_set1_ps(1.01f), a2 = _mm512_set1_ps(1.02f), a3 = _mm512_set1_ps(1.03f);
  __m512 a4 = _mm512_set1_ps(1.04f), a5 = _mm512_set1_ps(1.05f), a6 = _mm512_set1_ps(1.06f), a7 = _mm512_set1_ps(1.07f);
  __m512 a8 = _mm512_set1_ps(1.08f), a9 = _mm512_set1_ps(1.09f), a10 = _mm512_set1_ps(1.10f), a11 = _mm512_set1_ps(1.11f);
  __m512 a12 = _mm512_set1_ps(1.12f), a13 = _mm512_set1_ps(1.13f), a14 = _mm512_set1_ps(1.14f), a15 = _mm512_set1_ps(1.15f);
  const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-6f);
  for (long i = 0; i < iters; ++i) {
#define AOE_FMA(x) x = _mm512_fmadd_ps(x, m, c)
    AOE_FMA(a0); AOE_FMA(a1); AOE_FMA(a2); AOE_FMA(a3); AOE_FMA(a4); AOE_FMA(a5); AOE_FMA(a6); AOE_FMA(a7);
    AOE_FMA(a8); AOE_FMA(a9); AOE_FMA(a10); AOE_FMA(a11); AOE_FMA(a12); AOE_FMA(a13); AOE_FMA(a14); AOE_FMA(a15);
#undef AOE_FMA
  }
  const __m512 s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11 + a12 + a13 + a14 + a15;
  return static_cast<double>(_mm512_reduce_add_ps(s)) * 1e-30 + 16.0 * 32.0 * static_cast<double>(iters);
}

__attribute__((target("avx2,fma"))) double fma_loop_avx2(long iters) {
  __m256 a0 = _mm256_set1_ps(1.00f), a1 = _mm256_set1_ps(1.01f), a2 = _mm256_set1_ps(1.02f), a3 = _mm256_set1_ps(1.03f);
  __m256 a4 = _mm256_set1_ps(1.04f), a5 = _mm256_set1_ps(1.05f), a6 = _mm256_set1_ps(1.06f), a7 = _mm256_set1_ps(1.07f);
  __m256 a8 = _mm256_set1_ps(1.08f), a9 = _mm256_set1_ps(1.09f), a10 = _mm256_set1_ps(1.10f), a11 = _mm256_set1_ps(1.11f);
  const __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-6f);
  for (long i = 0; i < iters; ++i) {
#define AOE_FMA(x) x = _mm256_fmadd_ps(x, m, c)
    AOE_FMA(a0); AOE_FMA(a1); AOE_FMA(a2); AOE_FMA(a3); AOE_FMA(a4); AOE_FMA(a5);
    AOE_FMA(a6); AOE_FMA(a7); AOE_FMA(a8); AOE_FMA(a9); AOE_FMA(a10); AOE_FMA(a11);
#undef AOE_FMA
  }
  const __m256 s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;
  float lanes[8];
  _mm256_storeu_ps(lanes, s);
  return static_cast<double>(lanes[0]) * 1e-30 + 12.0 * 16.0 * static_cast<double>(iters);
}

#endif

// Flops one thread computed.
double fma_loop(FmaWidth width) {
#if defined(__x86_64__)
  if (width == FmaWidth::avx512) return fma_loop_avx512(20'000'000);
  if (width == FmaWidth::avx2) return fma_loop_avx2(40'000'000);
#endif
  (void)width;
  return 0;
}

}  // namespace

FmaWidth widest_fma() {
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f")) return FmaWidth::avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return FmaWidth::avx2;
#endif
  return FmaWidth::none;
}

double fma_peak_gflops(int threads, FmaWidth width, int attempts) {
  if (width == FmaWidth::none || threads < 1) return 0;
  double best = 0;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    std::vector<double> flops(static_cast<size_t>(threads));
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { flops[static_cast<size_t>(t)] = fma_loop(width); });
    for (auto& th : pool) th.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double total = 0;
    for (double f : flops) total += f;
    best = std::max(best, total / s / 1e9);
  }
  return best;
}

double BestFmaPeak::refresh(int attempts) { return best = std::max(best, fma_peak_gflops(threads, width, attempts)); }

}  // namespace aoe::bench
