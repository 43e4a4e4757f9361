// The machine's single-precision FMA peak, measured: each thread runs
// independent chains of fused multiply-adds on the widest vectors the CPU
// has (16 of AVX-512 or 12 of AVX2: enough to keep two FMA ports of 4-cycle
// latency busy). It is what a convolution or a product reaches at best on
// those threads.
#pragma once

namespace aoe::bench {

enum class FmaWidth { none, avx2, avx512 };

// The widest the CPU runs: none off x86-64 or without FMA.
FmaWidth widest_fma();

// GFLOP/s of `threads` threads running the chains at once, the best of
// `attempts` (other loads only lower it); 0 for FmaWidth::none.
double fma_peak_gflops(int threads, FmaWidth width, int attempts = 5);

// The peak as best seen so far on `threads` threads: other loads on the
// machine lower any one measure of it, so a bench refreshes it as it goes.
struct BestFmaPeak {
  int threads = 1;
  FmaWidth width = FmaWidth::none;
  double best = 0;
  double refresh(int attempts = 2);
};

}  // namespace aoe::bench
