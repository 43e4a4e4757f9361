// Vector transcendental functions, accurate to a few ulp over fp32's range
// (Cephes-style range reduction and polynomials). Included after simd.inl.

// exp(x) = 2^n * exp(r), r = x - n ln2 in [-ln2/2, ln2/2]; overflow gives
// +inf, results below 2.4e-38 are flushed to 0. 2^n is built as 2 * 2^(n-1)
// so that n = 128 (x up to ln FLT_MAX) still fits the exponent field. A NaN
// stays NaN (the clamp's operands are ordered so that x's NaN passes), as a
// softmax over a row masked whole (every score -inf) gives it in ONNX Runtime.
inline V vexp(V x) {
  const V hi = set1(88.7228391f), lo = set1(-86.6f);
  const V xc = vmin(hi, vmax(lo, x));
  const V n = round_nearest(xc * set1(1.44269504088896341f));
  V r = fma(n, set1(-0.693359375f), xc);
  r = fma(n, set1(2.12194440e-4f), r);
  V p = set1(1.9875691500e-4f);
  p = fma(p, r, set1(1.3981999507e-3f));
  p = fma(p, r, set1(8.3334519073e-3f));
  p = fma(p, r, set1(4.1665795894e-2f));
  p = fma(p, r, set1(1.6666665459e-1f));
  p = fma(p, r, set1(5.0000001201e-1f));
  p = fma(p * r, r, r) + set1(1.0f);
  V y = (p + p) * pow2(n - set1(1.0f));
  y = select_lt(hi, x, set1(__builtin_inff()), y);
  return select_lt(x, lo, zero(), y);
}

inline V vsigmoid(V x) { return set1(1.0f) / (set1(1.0f) + vexp(-x)); }

// Small |x|: an odd polynomial (Cephes tanhf); else 1 - 2 / (exp(2|x|) + 1).
inline V vtanh(V x) {
  const V ax = vabs(x);
  const V z = x * x;
  V p = set1(-5.70498872745e-3f);
  p = fma(p, z, set1(2.06390887954e-2f));
  p = fma(p, z, set1(-5.37397155531e-2f));
  p = fma(p, z, set1(1.33314422036e-1f));
  p = fma(p, z, set1(-3.33332819422e-1f));
  const V small = fma(p * z, x, x);
  const V big_abs = set1(1.0f) - set1(2.0f) / (vexp(ax + ax) + set1(1.0f));
  const V big = select_lt(x, zero(), -big_abs, big_abs);
  return select_lt(ax, set1(0.625f), small, big);
}

// Abramowitz & Stegun 7.1.26, |error| < 1.5e-7.
inline V verf(V x) {
  const V ax = vabs(x);
  const V t = set1(1.0f) / fma(set1(0.3275911f), ax, set1(1.0f));
  V p = set1(1.061405429f);
  p = fma(p, t, set1(-1.453152027f));
  p = fma(p, t, set1(1.421413741f));
  p = fma(p, t, set1(-0.284496736f));
  p = fma(p, t, set1(0.254829592f));
  const V y = set1(1.0f) - p * t * vexp(-(ax * ax));
  return select_lt(x, zero(), -y, y);
}

// 0.5 x (1 + erf(x / sqrt 2)), or with approximate = 1 (p0 != 0) the tanh form
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
inline V vgelu(V x, V approximate) {
  const V half = set1(0.5f);
  const V exact = half * x * (set1(1.0f) + verf(x * set1(0.70710678118654752f)));
  const V inner = set1(0.79788456080286536f) * fma(set1(0.044715f) * x, x * x, x);
  const V approx = half * x * (set1(1.0f) + vtanh(inner));
  return select_lt(zero(), approximate, approx, exact);
}
