// Elementwise ops over a row, in place. Included after math.inl.

inline V unary_vec(EltOp op, V x, V p0, V p1) {
  switch (op) {
    case EltOp::relu: return vmax(x, zero());
    case EltOp::leaky_relu: return select_lt(x, zero(), x * p0, x);
    case EltOp::clip: return vmin(vmax(x, p0), p1);
    case EltOp::sigmoid: return vsigmoid(x);
    case EltOp::hard_sigmoid: return vmin(vmax(fma(x, p0, p1), zero()), set1(1.0f));
    case EltOp::hard_swish: return x * vmin(vmax(fma(x, set1(1.0f / 6.0f), set1(0.5f)), zero()), set1(1.0f));
    case EltOp::swish: return x * vsigmoid(x * p0);
    case EltOp::tanh: return vtanh(x);
    case EltOp::exp: return vexp(x);
    case EltOp::sqrt: return vsqrt(x);
    case EltOp::abs: return vabs(x);
    case EltOp::neg: return -x;
    case EltOp::reciprocal: return set1(1.0f) / x;
    case EltOp::erf: return verf(x);
    case EltOp::scale: return x * p0;
    case EltOp::gelu: return vgelu(x, p0);
    case EltOp::floor: {
      const V r = round_nearest(x);
      return select_lt(x, r, r - set1(1.0f), r);
    }
    case EltOp::ceil: {
      const V r = round_nearest(x);
      return select_lt(r, x, r + set1(1.0f), r);
    }
    case EltOp::round: return round_nearest(x);  // half to even, as ONNX's Round
    case EltOp::sign: return select_lt(x, zero(), set1(-1.0f), select_lt(zero(), x, set1(1.0f), x));
    case EltOp::softsign: return x / (set1(1.0f) + vabs(x));
    case EltOp::elu: return select_lt(x, zero(), p0 * (vexp(x) - set1(1.0f)), x);
    case EltOp::selu: return p1 * select_lt(x, zero(), p0 * (vexp(x) - set1(1.0f)), x);
    case EltOp::thresholded_relu: return select_lt(p0, x, x, zero());
    case EltOp::shrink: return select_lt(x, -p0, x + p1, select_lt(p0, x, x - p1, zero()));
    case EltOp::celu: return select_lt(x, zero(), p0 * (vexp(x / p0) - set1(1.0f)), x);
    default: return x;
  }
}

// Ops without a vector form here run through libm, element by element.
inline float libm_unary(EltOp op, float x) {
  switch (op) {
    case EltOp::log: return __builtin_logf(x);
    case EltOp::softplus:  // log(1 + e^x) without overflow for large x
      return x > 0 ? x + __builtin_log1pf(__builtin_expf(-x)) : __builtin_log1pf(__builtin_expf(x));
    case EltOp::sin: return __builtin_sinf(x);
    case EltOp::cos: return __builtin_cosf(x);
    case EltOp::tan: return __builtin_tanf(x);
    case EltOp::asin: return __builtin_asinf(x);
    case EltOp::acos: return __builtin_acosf(x);
    case EltOp::atan: return __builtin_atanf(x);
    case EltOp::sinh: return __builtin_sinhf(x);
    case EltOp::cosh: return __builtin_coshf(x);
    case EltOp::asinh: return __builtin_asinhf(x);
    case EltOp::acosh: return __builtin_acoshf(x);
    case EltOp::atanh: return __builtin_atanhf(x);
    default: return x;
  }
}

template <EltOp kOp>
inline void unary_loop(float* x, int64_t n, V p0, V p1) {
  int64_t i = 0;
  for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
    const V a = unary_vec(kOp, load(x + i), p0, p1), b = unary_vec(kOp, load(x + i + kLanes), p0, p1);
    store(x + i, a);
    store(x + i + kLanes, b);
  }
  for (; i + kLanes <= n; i += kLanes) store(x + i, unary_vec(kOp, load(x + i), p0, p1));
  if (i < n) with_tail(x + i, n - i, [&](V v) { return unary_vec(kOp, v, p0, p1); });
}

// One loop per op, so the switch is outside the loop.
inline void unary(EltOp op, float p0f, float p1f, float* x, int64_t n) {
  const V p0 = set1(p0f), p1 = set1(p1f);
  switch (op) {
    case EltOp::relu: return unary_loop<EltOp::relu>(x, n, p0, p1);
    case EltOp::leaky_relu: return unary_loop<EltOp::leaky_relu>(x, n, p0, p1);
    case EltOp::clip: return unary_loop<EltOp::clip>(x, n, p0, p1);
    case EltOp::sigmoid: return unary_loop<EltOp::sigmoid>(x, n, p0, p1);
    case EltOp::hard_sigmoid: return unary_loop<EltOp::hard_sigmoid>(x, n, p0, p1);
    case EltOp::hard_swish: return unary_loop<EltOp::hard_swish>(x, n, p0, p1);
    case EltOp::swish: return unary_loop<EltOp::swish>(x, n, p0, p1);
    case EltOp::tanh: return unary_loop<EltOp::tanh>(x, n, p0, p1);
    case EltOp::exp: return unary_loop<EltOp::exp>(x, n, p0, p1);
    case EltOp::sqrt: return unary_loop<EltOp::sqrt>(x, n, p0, p1);
    case EltOp::abs: return unary_loop<EltOp::abs>(x, n, p0, p1);
    case EltOp::neg: return unary_loop<EltOp::neg>(x, n, p0, p1);
    case EltOp::reciprocal: return unary_loop<EltOp::reciprocal>(x, n, p0, p1);
    case EltOp::erf: return unary_loop<EltOp::erf>(x, n, p0, p1);
    case EltOp::scale: return unary_loop<EltOp::scale>(x, n, p0, p1);
    case EltOp::gelu: return unary_loop<EltOp::gelu>(x, n, p0, p1);
    case EltOp::floor: return unary_loop<EltOp::floor>(x, n, p0, p1);
    case EltOp::ceil: return unary_loop<EltOp::ceil>(x, n, p0, p1);
    case EltOp::round: return unary_loop<EltOp::round>(x, n, p0, p1);
    case EltOp::sign: return unary_loop<EltOp::sign>(x, n, p0, p1);
    case EltOp::softsign: return unary_loop<EltOp::softsign>(x, n, p0, p1);
    case EltOp::elu: return unary_loop<EltOp::elu>(x, n, p0, p1);
    case EltOp::selu: return unary_loop<EltOp::selu>(x, n, p0, p1);
    case EltOp::thresholded_relu: return unary_loop<EltOp::thresholded_relu>(x, n, p0, p1);
    case EltOp::shrink: return unary_loop<EltOp::shrink>(x, n, p0, p1);
    case EltOp::celu: return unary_loop<EltOp::celu>(x, n, p0, p1);
    default:
      if (op >= EltOp::softplus || op == EltOp::log)
        for (int64_t i = 0; i < n; ++i) x[i] = libm_unary(op, x[i]);
      return;
  }
}

inline V binary_vec(EltOp op, V x, V y, V p0) {
  switch (op) {
    case EltOp::copy: return y;
    case EltOp::add: return x + y;
    case EltOp::sub: return x - y;
    case EltOp::mul: return x * y;
    case EltOp::div: return x / y;
    case EltOp::maximum: return vmax(x, y);
    case EltOp::minimum: return vmin(x, y);
    case EltOp::prelu: return select_lt(x, zero(), x * y, x);
    case EltOp::add_scaled: return fma(y, p0, x);
    default: return x;
  }
}

template <EltOp kOp>
inline void binary_loop(float* x, const float* y, int64_t y_step, int64_t n, V p0) {
  int64_t i = 0;
  if (y_step < 0) {  // y's -y_step values repeat along x: whole vectors of them, n whole periods (is_periodic)
    for (int64_t j = 0; i < n; i += kLanes) {
      store(x + i, binary_vec(kOp, load(x + i), load(y + j), p0));
      if ((j += kLanes) == -y_step) j = 0;
    }
    return;
  }
  if (y_step == 0) {
    const V yv = set1(y[0]);
    for (; i + kLanes <= n; i += kLanes) store(x + i, binary_vec(kOp, load(x + i), yv, p0));
    if (i < n) with_tail(x + i, n - i, [&](V v) { return binary_vec(kOp, v, yv, p0); });
    return;
  }
  for (; i + 2 * kLanes <= n; i += 2 * kLanes) {
    const V a = binary_vec(kOp, load(x + i), load(y + i), p0);
    const V b = binary_vec(kOp, load(x + i + kLanes), load(y + i + kLanes), p0);
    store(x + i, a);
    store(x + i + kLanes, b);
  }
  for (; i + kLanes <= n; i += kLanes) store(x + i, binary_vec(kOp, load(x + i), load(y + i), p0));
  if (i < n) {
    const V yv = load_partial(y + i, n - i, 1.0f);
    with_tail(x + i, n - i, [&](V v) { return binary_vec(kOp, v, yv, p0); });
  }
}

inline void binary(EltOp op, float p0f, float* x, const float* y, int64_t y_step, int64_t n) {
  const V p0 = set1(p0f);
  switch (op) {
    case EltOp::copy: return binary_loop<EltOp::copy>(x, y, y_step, n, p0);
    case EltOp::add: return binary_loop<EltOp::add>(x, y, y_step, n, p0);
    case EltOp::sub: return binary_loop<EltOp::sub>(x, y, y_step, n, p0);
    case EltOp::mul: return binary_loop<EltOp::mul>(x, y, y_step, n, p0);
    case EltOp::div: return binary_loop<EltOp::div>(x, y, y_step, n, p0);
    case EltOp::maximum: return binary_loop<EltOp::maximum>(x, y, y_step, n, p0);
    case EltOp::minimum: return binary_loop<EltOp::minimum>(x, y, y_step, n, p0);
    case EltOp::prelu: return binary_loop<EltOp::prelu>(x, y, y_step, n, p0);
    case EltOp::add_scaled: return binary_loop<EltOp::add_scaled>(x, y, y_step, n, p0);
    case EltOp::fmod:  // libm's, element by element: the sign of x, as ONNX's Mod with fmod=1
      for (int64_t i = 0; i < n; ++i) x[i] = __builtin_fmodf(x[i], y[i * y_step]);
      return;
    case EltOp::pow:
      // A square (a LayerNorm's variance, as exporters write it) is a product
      // in vectors, where libm's powf runs element by element.
      if (y_step == 0 && y[0] == 2.0f) return binary_loop<EltOp::mul>(x, x, 1, n, p0);
      for (int64_t i = 0; i < n; ++i) x[i] = __builtin_powf(x[i], y[i * y_step]);
      return;
    default: return;
  }
}
