// The integer GEMM tile: on x86-64, pmaddwd (two int16 products summed into
// an int32 lane) on kIntRows x kIntCols int32 accumulators kept in registers,
// 8 lanes wide where the CPU has AVX2 and 4 (SSE2, the baseline) otherwise;
// the same sums in plain loops everywhere.
#include "integer_gemm.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>

#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#define AOE_INTEGER_GEMM_X86 1
#include <immintrin.h>
#endif

namespace aoe::cpu {
namespace {

using Part = std::array<int32_t, kIntRows * kIntCols>;

// 33024 taps of 255 * 255 each stay below 2^31.
static_assert(2 * kExactPairs * 255 * 255 < (int64_t{1} << 31), "a chunk's int32 sums must be exact");

// Each function below: the int32 sums of one chunk of at most kExactPairs pairs.
void chunk_portable(int64_t pairs, const int16_t* rows, const int16_t* cols, Part& part) {
  part.fill(0);
  for (int64_t p = 0; p < pairs; ++p)
    for (int64_t r = 0; r < kIntRows; ++r) {
      const int32_t w0 = rows[(p * kIntRows + r) * 2], w1 = rows[(p * kIntRows + r) * 2 + 1];
      for (int64_t j = 0; j < kIntCols; ++j)
        part[r * kIntCols + j] += w0 * cols[(p * kIntCols + j) * 2] + w1 * cols[(p * kIntCols + j) * 2 + 1];
    }
}

#if defined(AOE_INTEGER_GEMM_X86)
static_assert(kIntRows == 4 && kIntCols == 8, "the x86 tiles hold 4 rows of 8 int32 lanes");

void chunk_sse2(int64_t pairs, const int16_t* rows, const int16_t* cols, Part& part) {
  __m128i acc[kIntRows][2];
  for (auto& row : acc) row[0] = row[1] = _mm_setzero_si128();
  for (int64_t p = 0; p < pairs; ++p) {
    const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows + p * kIntRows * 2));
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(cols + p * kIntCols * 2));
    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(cols + p * kIntCols * 2 + 8));
    const __m128i w0 = _mm_shuffle_epi32(w, 0x00), w1 = _mm_shuffle_epi32(w, 0x55);
    const __m128i w2 = _mm_shuffle_epi32(w, 0xAA), w3 = _mm_shuffle_epi32(w, 0xFF);
    acc[0][0] = _mm_add_epi32(acc[0][0], _mm_madd_epi16(lo, w0));
    acc[0][1] = _mm_add_epi32(acc[0][1], _mm_madd_epi16(hi, w0));
    acc[1][0] = _mm_add_epi32(acc[1][0], _mm_madd_epi16(lo, w1));
    acc[1][1] = _mm_add_epi32(acc[1][1], _mm_madd_epi16(hi, w1));
    acc[2][0] = _mm_add_epi32(acc[2][0], _mm_madd_epi16(lo, w2));
    acc[2][1] = _mm_add_epi32(acc[2][1], _mm_madd_epi16(hi, w2));
    acc[3][0] = _mm_add_epi32(acc[3][0], _mm_madd_epi16(lo, w3));
    acc[3][1] = _mm_add_epi32(acc[3][1], _mm_madd_epi16(hi, w3));
  }
  for (int64_t r = 0; r < kIntRows; ++r) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(part.data() + r * kIntCols), acc[r][0]);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(part.data() + r * kIntCols + 4), acc[r][1]);
  }
}

// Built for AVX2 alone, and called only where the CPU reports it.
__attribute__((target("avx2"))) void chunk_avx2(int64_t pairs, const int16_t* rows, const int16_t* cols, Part& part) {
  __m256i acc[kIntRows];
  for (auto& row : acc) row = _mm256_setzero_si256();
  for (int64_t p = 0; p < pairs; ++p) {
    const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(cols + p * kIntCols * 2));
    int32_t w[kIntRows];
    std::memcpy(w, rows + p * kIntRows * 2, sizeof w);
    acc[0] = _mm256_add_epi32(acc[0], _mm256_madd_epi16(c, _mm256_set1_epi32(w[0])));
    acc[1] = _mm256_add_epi32(acc[1], _mm256_madd_epi16(c, _mm256_set1_epi32(w[1])));
    acc[2] = _mm256_add_epi32(acc[2], _mm256_madd_epi16(c, _mm256_set1_epi32(w[2])));
    acc[3] = _mm256_add_epi32(acc[3], _mm256_madd_epi16(c, _mm256_set1_epi32(w[3])));
  }
  for (int64_t r = 0; r < kIntRows; ++r) _mm256_storeu_si256(reinterpret_cast<__m256i*>(part.data() + r * kIntCols), acc[r]);
}
#endif

}  // namespace

IntTileIsa widest_int_tile_isa() {
#if defined(AOE_INTEGER_GEMM_X86)
  static const IntTileIsa widest = __builtin_cpu_supports("avx2") ? IntTileIsa::avx2 : IntTileIsa::sse2;
  return widest;
#else
  return IntTileIsa::portable;
#endif
}

void integer_tile_sums(int64_t pairs, const int16_t* rows, const int16_t* cols, int64_t* sums, IntTileIsa isa) {
  if (static_cast<int>(isa) > static_cast<int>(widest_int_tile_isa())) throw std::logic_error("integer tile: this CPU lacks the ISA asked for");
  auto chunk = chunk_portable;
#if defined(AOE_INTEGER_GEMM_X86)
  if (isa == IntTileIsa::sse2) chunk = chunk_sse2;
  if (isa == IntTileIsa::avx2) chunk = chunk_avx2;
#endif
  std::fill(sums, sums + kIntRows * kIntCols, int64_t{0});
  Part part;
  for (int64_t p = 0; p < pairs; p += kExactPairs) {
    chunk(std::min(kExactPairs, pairs - p), rows + p * kIntRows * 2, cols + p * kIntCols * 2, part);
    for (int64_t i = 0; i < kIntRows * kIntCols; ++i) sums[i] += part[i];
  }
}

}  // namespace aoe::cpu
