// Vector primitives of one ISA. Included inside that ISA's namespace (so no
// inline function is shared between TUs built with different flags), after
// <immintrin.h>, with AOE_CPU_LANES set to 16, 8 or 4 (generic).

#if AOE_CPU_LANES == 16
constexpr int kLanes = 16;
using V = __m512;
using VI = __m512i;
inline V load(const float* p) { return _mm512_loadu_ps(p); }
inline void store(float* p, V v) { _mm512_storeu_ps(p, v); }
inline V set1(float x) { return _mm512_set1_ps(x); }
inline V zero() { return _mm512_setzero_ps(); }
inline V fma(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
inline V vmax(V a, V b) { return _mm512_max_ps(a, b); }
inline V vmin(V a, V b) { return _mm512_min_ps(a, b); }
inline V vsqrt(V a) { return _mm512_sqrt_ps(a); }
inline V vabs(V a) { return _mm512_abs_ps(a); }
inline V round_nearest(V a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
// 2^n for integral n in [-126, 127].
inline V pow2(V n) {
  const VI i = _mm512_cvtps_epi32(n);
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(i, _mm512_set1_epi32(127)), 23));
}
// a < b ? x : y
inline V select_lt(V a, V b, V x, V y) { return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_LT_OQ), y, x); }
inline float hsum(V v) { return _mm512_reduce_add_ps(v); }
inline float hmax(V v) { return _mm512_reduce_max_ps(v); }

#elif AOE_CPU_LANES == 8
constexpr int kLanes = 8;
using V = __m256;
using VI = __m256i;
inline V load(const float* p) { return _mm256_loadu_ps(p); }
inline void store(float* p, V v) { _mm256_storeu_ps(p, v); }
inline V set1(float x) { return _mm256_set1_ps(x); }
inline V zero() { return _mm256_setzero_ps(); }
inline V fma(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
inline V vmax(V a, V b) { return _mm256_max_ps(a, b); }
inline V vmin(V a, V b) { return _mm256_min_ps(a, b); }
inline V vsqrt(V a) { return _mm256_sqrt_ps(a); }
inline V vabs(V a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
inline V round_nearest(V a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
inline V pow2(V n) {
  const VI i = _mm256_cvtps_epi32(n);
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(i, _mm256_set1_epi32(127)), 23));
}
inline V select_lt(V a, V b, V x, V y) { return _mm256_blendv_ps(y, x, _mm256_cmp_ps(a, b, _CMP_LT_OQ)); }
inline float hsum(V v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
inline float hmax(V v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

#else
// Portable: GCC vector extensions, lowered to whatever the baseline target has.
constexpr int kLanes = 4;
typedef float V __attribute__((vector_size(16)));
typedef int32_t VI __attribute__((vector_size(16)));
inline V load(const float* p) {
  V v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
inline void store(float* p, V v) { __builtin_memcpy(p, &v, sizeof v); }
inline V set1(float x) { return V{x, x, x, x}; }
inline V zero() { return set1(0.0f); }
inline V fma(V a, V b, V c) { return a * b + c; }
inline V vmax(V a, V b) { return a > b ? a : b; }
inline V vmin(V a, V b) { return a < b ? a : b; }
inline V vsqrt(V a) { return V{__builtin_sqrtf(a[0]), __builtin_sqrtf(a[1]), __builtin_sqrtf(a[2]), __builtin_sqrtf(a[3])}; }
inline V vabs(V a) { return a < 0 ? -a : a; }
// Adding and removing 1.5 * 2^23 rounds to nearest for |a| < 2^22.
inline V round_nearest(V a) {
  const V magic = set1(12582912.0f);
  return (a + magic) - magic;
}
inline V pow2(V n) {
  const VI i = __builtin_convertvector(n, VI);
  return __builtin_bit_cast(V, (i + 127) << 23);
}
inline V select_lt(V a, V b, V x, V y) { return a < b ? x : y; }
inline float hsum(V v) { return (v[0] + v[1]) + (v[2] + v[3]); }
inline float hmax(V v) {
  const float a = v[0] > v[1] ? v[0] : v[1], b = v[2] > v[3] ? v[2] : v[3];
  return a > b ? a : b;
}
#endif

inline int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }
inline int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }

// The tail of a row (fewer than kLanes values) through a full vector on the stack.
template <class Body>
inline void with_tail(float* x, int64_t n, Body body) {
  float buf[kLanes] = {};
  for (int64_t i = 0; i < n; ++i) buf[i] = x[i];
  V v = body(load(buf));
  store(buf, v);
  for (int64_t i = 0; i < n; ++i) x[i] = buf[i];
}
inline V load_partial(const float* x, int64_t n, float fill) {
  float buf[kLanes];
  for (int i = 0; i < kLanes; ++i) buf[i] = i < n ? x[i] : fill;
  return load(buf);
}
inline void store_partial(float* x, V v, int64_t n) {
  float buf[kLanes];
  store(buf, v);
  for (int64_t i = 0; i < n; ++i) x[i] = buf[i];
}
