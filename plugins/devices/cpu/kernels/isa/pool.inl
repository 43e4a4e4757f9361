// Max and average pooling over up to three spatial dims. Windows are
// clipped to the input; the average divides by the window's cells inside the
// input, or with count_include_pad by those inside the padded input.

struct Window {
  int64_t lo[3], hi[3];
  int64_t divisor;
};

inline Window window_of(const PoolArgs& a, const int64_t* o) {
  Window w;
  int64_t cells = 1, padded = 1;
  for (int d = 0; d < 3; ++d) {
    const int64_t start = o[d] * a.stride[d] - a.pad_begin[d];
    const int64_t end = start + (a.kernel[d] - 1) * a.dilation[d] + 1;
    // Taps on the dilation grid that fall inside [lo, hi).
    auto taps = [&](int64_t lo, int64_t hi) {
      int64_t n = 0;
      for (int64_t k = 0; k < a.kernel[d]; ++k) {
        const int64_t i = start + k * a.dilation[d];
        n += i >= lo && i < hi;
      }
      return n;
    };
    w.lo[d] = start;
    w.hi[d] = end;
    if (a.max) continue;  // only the average needs a divisor
    cells *= taps(0, a.in[d]);
    padded *= taps(-a.pad_begin[d], a.in[d] + a.pad_end[d]);
  }
  w.divisor = a.count_include_pad ? padded : cells;
  return w;
}

template <class Visit>
inline void for_each_tap(const PoolArgs& a, const Window& w, Visit visit) {
  for (int64_t z = w.lo[0]; z < w.hi[0]; z += a.dilation[0]) {
    if (z < 0 || z >= a.in[0]) continue;
    for (int64_t y = w.lo[1]; y < w.hi[1]; y += a.dilation[1]) {
      if (y < 0 || y >= a.in[1]) continue;
      for (int64_t x = w.lo[2]; x < w.hi[2]; x += a.dilation[2]) {
        if (x < 0 || x >= a.in[2]) continue;
        visit((z * a.in[1] + y) * a.in[2] + x);
      }
    }
  }
}

inline void pool_plane(const PoolArgs& a) {
  int64_t o[3];
  float* dst = a.dst;
  for (o[0] = 0; o[0] < a.out[0]; ++o[0])
    for (o[1] = 0; o[1] < a.out[1]; ++o[1])
      for (o[2] = 0; o[2] < a.out[2]; ++o[2]) {
        const Window w = window_of(a, o);
        float acc = a.max ? -__builtin_inff() : 0.0f;
        if (a.max)
          for_each_tap(a, w, [&](int64_t i) { acc = a.src[i] > acc ? a.src[i] : acc; });
        else
          for_each_tap(a, w, [&](int64_t i) { acc += a.src[i]; });
        *dst++ = a.max ? acc : acc / static_cast<float>(w.divisor > 0 ? w.divisor : 1);
      }
}

inline void pool_blocked(const PoolArgs& a) {
  int64_t o[3];
  float* dst = a.dst;
  for (o[0] = 0; o[0] < a.out[0]; ++o[0])
    for (o[1] = 0; o[1] < a.out[1]; ++o[1])
      for (o[2] = 0; o[2] < a.out[2]; ++o[2]) {
        const Window w = window_of(a, o);
        V acc = a.max ? set1(-__builtin_inff()) : zero();
        if (a.max)
          for_each_tap(a, w, [&](int64_t i) { acc = vmax(acc, load(a.src + i * kLanes)); });
        else
          for_each_tap(a, w, [&](int64_t i) { acc = acc + load(a.src + i * kLanes); });
        if (!a.max) acc = acc * set1(1.0f / static_cast<float>(w.divisor > 0 ? w.divisor : 1));
        store(dst, acc);
        dst += kLanes;
      }
}
