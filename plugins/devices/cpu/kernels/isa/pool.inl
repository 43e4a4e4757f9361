// Max and average pooling over up to three spatial dims. Windows are
// clipped to the input; the average divides by the window's cells inside the
// input, or with count_include_pad by those inside the padded input.

// Along one spatial dim, per output index: the input index of its first tap
// inside the input, how many of its taps lie inside, and (for an average
// with count_include_pad) how many inside the padded input. Worked out once
// per call, so the loops below test no tap against the input's edges.
struct AxisTaps {
  std::vector<int64_t> first, inside, padded;
};

inline AxisTaps axis_taps(const PoolArgs& a, int d) {
  AxisTaps t;
  const int64_t n = a.out[d], k = a.kernel[d], step = a.dilation[d];
  t.first.resize(static_cast<size_t>(n)), t.inside.resize(static_cast<size_t>(n)), t.padded.resize(static_cast<size_t>(n));
  // Taps k0 <= j < k1 of a window starting at `start` whose index start + j * step lies in [lo, hi).
  const auto span = [&](int64_t start, int64_t lo, int64_t hi, int64_t& k0) {
    k0 = start >= lo ? 0 : (lo - start + step - 1) / step;
    const int64_t k1 = start >= hi ? 0 : imin(k, (hi - start + step - 1) / step);
    return imax(0, k1 - k0);
  };
  for (int64_t o = 0; o < n; ++o) {
    const int64_t start = o * a.stride[d] - a.pad_begin[d];
    int64_t k0 = 0, unused = 0;
    t.inside[static_cast<size_t>(o)] = span(start, 0, a.in[d], k0);
    t.first[static_cast<size_t>(o)] = start + k0 * step;
    t.padded[static_cast<size_t>(o)] = span(start, -a.pad_begin[d], a.in[d] + a.pad_end[d], unused);
  }
  return t;
}

// Every output of a plane (`Lanes` channels interleaved) from its window's
// taps inside the input: `reduce(acc, at)` folds in the element at offset
// `at` (in elements of the plane), `finish(acc, divisor)` stores it.
template <class Acc, class Reduce, class Finish>
inline void pool_windows(const PoolArgs& a, Acc init, Reduce reduce, Finish finish) {
  const AxisTaps tz = axis_taps(a, 0), ty = axis_taps(a, 1), tx = axis_taps(a, 2);
  for (int64_t oz = 0; oz < a.out[0]; ++oz)
    for (int64_t oy = 0; oy < a.out[1]; ++oy)
      for (int64_t ox = 0; ox < a.out[2]; ++ox) {
        const auto z0 = static_cast<size_t>(oz), y0 = static_cast<size_t>(oy), x0 = static_cast<size_t>(ox);
        Acc acc = init;
        for (int64_t iz = 0, z = tz.first[z0]; iz < tz.inside[z0]; ++iz, z += a.dilation[0])
          for (int64_t iy = 0, y = ty.first[y0]; iy < ty.inside[y0]; ++iy, y += a.dilation[1]) {
            const int64_t row = (z * a.in[1] + y) * a.in[2];
            for (int64_t ix = 0, x = tx.first[x0]; ix < tx.inside[x0]; ++ix, x += a.dilation[2]) acc = reduce(acc, row + x);
          }
        const int64_t divisor = a.count_include_pad ? tz.padded[z0] * ty.padded[y0] * tx.padded[x0]
                                                    : tz.inside[z0] * ty.inside[y0] * tx.inside[x0];
        finish(acc, divisor > 0 ? divisor : 1);
      }
}

inline void pool_plane(const PoolArgs& a) {
  float* dst = a.dst;
  const float* src = a.src;
  if (a.max)
    pool_windows(a, -__builtin_inff(), [&](float acc, int64_t i) { return src[i] > acc ? src[i] : acc; },
                 [&](float acc, int64_t) { *dst++ = acc; });
  else
    pool_windows(a, 0.0f, [&](float acc, int64_t i) { return acc + src[i]; },
                 [&](float acc, int64_t divisor) { *dst++ = acc / static_cast<float>(divisor); });
}

inline void pool_blocked(const PoolArgs& a) {
  float* dst = a.dst;
  const float* src = a.src;
  if (a.max)
    pool_windows(a, set1(-__builtin_inff()), [&](V acc, int64_t i) { return vmax(acc, load(src + i * kLanes)); },
                 [&](V acc, int64_t) {
                   store(dst, acc);
                   dst += kLanes;
                 });
  else
    pool_windows(a, zero(), [&](V acc, int64_t i) { return acc + load(src + i * kLanes); },
                 [&](V acc, int64_t divisor) {
                   store(dst, acc * set1(1.0f / static_cast<float>(divisor)));
                   dst += kLanes;
                 });
}
