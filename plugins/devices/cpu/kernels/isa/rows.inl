// Row kernels: reductions, softmax, the moments and normalization of layer norm.

template <int kAcc, bool kMax>
inline float reduce_row(const float* x, int64_t n) {
  const float identity = kMax ? -__builtin_inff() : 0.0f;
  V acc[kAcc];
#pragma GCC unroll 4
  for (int a = 0; a < kAcc; ++a) acc[a] = set1(identity);
  int64_t i = 0;
  for (; i + kAcc * kLanes <= n; i += kAcc * kLanes)
#pragma GCC unroll 4
    for (int a = 0; a < kAcc; ++a) {
      const V v = load(x + i + a * kLanes);
      acc[a] = kMax ? vmax(acc[a], v) : acc[a] + v;
    }
  for (; i + kLanes <= n; i += kLanes) acc[0] = kMax ? vmax(acc[0], load(x + i)) : acc[0] + load(x + i);
  if (i < n) {
    const V v = load_partial(x + i, n - i, identity);
    acc[0] = kMax ? vmax(acc[0], v) : acc[0] + v;
  }
#pragma GCC unroll 4
  for (int a = 1; a < kAcc; ++a) acc[0] = kMax ? vmax(acc[0], acc[a]) : acc[0] + acc[a];
  return kMax ? hmax(acc[0]) : hsum(acc[0]);
}

inline float row_sum(const float* x, int64_t n, int accumulators) {
  if (accumulators >= 4) return reduce_row<4, false>(x, n);
  if (accumulators == 2) return reduce_row<2, false>(x, n);
  return reduce_row<1, false>(x, n);
}
inline float row_max(const float* x, int64_t n, int accumulators) {
  if (accumulators >= 4) return reduce_row<4, true>(x, n);
  if (accumulators == 2) return reduce_row<2, true>(x, n);
  return reduce_row<1, true>(x, n);
}

inline void accumulate(int max, float* acc, const float* x, int64_t n) {
  int64_t i = 0;
  if (max) {
    for (; i + kLanes <= n; i += kLanes) store(acc + i, vmax(load(acc + i), load(x + i)));
    for (; i < n; ++i) acc[i] = acc[i] > x[i] ? acc[i] : x[i];
  } else {
    for (; i + kLanes <= n; i += kLanes) store(acc + i, load(acc + i) + load(x + i));
    for (; i < n; ++i) acc[i] += x[i];
  }
}

// y = exp(x - m), returning the sum of y.
inline float exp_shifted(const float* x, float* y, int64_t n, float m) {
  const V mv = set1(m);
  V sum = zero();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const V e = vexp(load(x + i) - mv);
    store(y + i, e);
    sum = sum + e;
  }
  float total = hsum(sum);
  if (i < n) {
    const V e = vexp(load_partial(x + i, n - i, -__builtin_inff()) - mv);
    store_partial(y + i, e, n - i);
    total += hsum(e);  // padding lanes are exp(-inf) = 0
  }
  return total;
}

inline void scale_row(float* y, int64_t n, float s) {
  const V sv = set1(s);
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) store(y + i, load(y + i) * sv);
  for (; i < n; ++i) y[i] *= s;
}

// Online softmax (Milakov & Gimelshein): a running max and a sum rescaled
// whenever the max grows, per lane, merged at the end.
inline void online_max_sum(const float* x, int64_t n, float* max_out, float* sum_out) {
  const float ninf = -__builtin_inff();
  V m = set1(ninf), s = zero();
  int64_t i = 0;
  for (; i < n; i += kLanes) {
    const V v = i + kLanes <= n ? load(x + i) : load_partial(x + i, n - i, ninf);
    const V m_new = vmax(m, v);
    // Lanes still at -inf have no sum to rescale; avoid exp(-inf - -inf).
    const V safe = select_lt(m_new, set1(-3.0e38f), zero(), m_new);
    s = fma(s, vexp(m - safe), vexp(v - safe));
    m = m_new;
  }
  const float mx = hmax(m);
  float lanes_m[kLanes], lanes_s[kLanes];
  store(lanes_m, m);
  store(lanes_s, s);
  float total = 0;
  for (int l = 0; l < kLanes; ++l)
    if (lanes_s[l] > 0) total += lanes_s[l] * __builtin_expf(lanes_m[l] - mx);
  *max_out = mx;
  *sum_out = total;
}

inline void softmax_row(const float* x, float* y, int64_t n, int passes) {
  if (passes == 2) {
    float m, s;
    online_max_sum(x, n, &m, &s);
    const V mv = set1(m), inv = set1(1.0f / s);
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes) store(y + i, vexp(load(x + i) - mv) * inv);
    if (i < n) store_partial(y + i, vexp(load_partial(x + i, n - i, 0.0f) - mv) * inv, n - i);
    return;
  }
  const float m = row_max(x, n, 2);
  const float s = exp_shifted(x, y, n, m);
  scale_row(y, n, 1.0f / s);
}

inline void moments(const float* x, int64_t n, float eps, int welford, float* mean_out, float* inv_std_out) {
  float mean = 0, var = 0;
  if (!welford) {
    mean = reduce_row<2, false>(x, n) / static_cast<float>(n);
    const V mv = set1(mean);
    V acc = zero();
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
      const V d = load(x + i) - mv;
      acc = fma(d, d, acc);
    }
    var = hsum(acc);
    for (; i < n; ++i) var += (x[i] - mean) * (x[i] - mean);
    var /= static_cast<float>(n);
  } else {
    // Per-lane Welford over whole vectors, merged with Chan's formula, then the tail.
    V m = zero(), m2 = zero();
    int64_t count = 0, i = 0;
    for (; i + kLanes <= n; i += kLanes) {
      ++count;
      const V v = load(x + i);
      const V d = v - m;
      m = fma(d, set1(1.0f / static_cast<float>(count)), m);
      m2 = fma(d, v - m, m2);
    }
    float lm[kLanes], lm2[kLanes];
    store(lm, m);
    store(lm2, m2);
    double total = 0, mu = 0, sq = 0;
    for (int l = 0; l < kLanes && count > 0; ++l) {
      const double nb = static_cast<double>(count), na = total, delta = lm[l] - mu;
      mu += delta * nb / (na + nb);
      sq += lm2[l] + delta * delta * na * nb / (na + nb);
      total += nb;
    }
    for (; i < n; ++i) {
      total += 1;
      const double delta = x[i] - mu;
      mu += delta / total;
      sq += delta * (x[i] - mu);
    }
    mean = static_cast<float>(mu);
    var = static_cast<float>(sq / total);
  }
  *mean_out = mean;
  *inv_std_out = 1.0f / __builtin_sqrtf(var + eps);
}

inline void normalize(const float* x, float* y, int64_t n, float mean, float inv_std, const float* scale,
                      int64_t scale_step, const float* bias, int64_t bias_step) {
  const V mv = set1(mean), iv = set1(inv_std);
  int64_t i = 0;
  if (scale_step == 1 && (bias == nullptr || bias_step == 1)) {
    for (; i + kLanes <= n; i += kLanes) {
      const V t = (load(x + i) - mv) * iv * load(scale + i);
      store(y + i, bias ? t + load(bias + i) : t);
    }
  } else if (scale_step == 0 && (bias == nullptr || bias_step == 0)) {  // one scale and bias for the row
    const V sv = iv * set1(scale[0]), bv = set1(bias ? bias[0] : 0.0f);
    for (; i + kLanes <= n; i += kLanes) store(y + i, fma(load(x + i) - mv, sv, bv));
  }
  for (; i < n; ++i) {
    const float t = (x[i] - mean) * inv_std * scale[i * scale_step];
    y[i] = bias ? t + bias[i * bias_step] : t;
  }
}
