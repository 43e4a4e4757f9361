// Direct convolution on the blocked layout (NCHWc with c = kLanes): OW
// output pixels of OCB channel blocks accumulate in registers; each input
// value is broadcast once per pixel and multiplied by OCB weight vectors.

template <int OW, int OCB>
void conv_tile(const ConvTileArgs& t) {
  V acc[OW][OCB];
#pragma GCC unroll 8
  for (int o = 0; o < OCB; ++o) {
    const V b = t.bias ? load(t.bias + o * kLanes) : zero();
#pragma GCC unroll 32
    for (int w = 0; w < OW; ++w) acc[w][o] = b;
  }
  const int64_t w_tap = static_cast<int64_t>(kLanes) * kLanes;
  for (int64_t icb = 0; icb < t.icb_count; ++icb) {
    const float* src = t.src + icb * t.src_block;
    const float* wts = t.weights + icb * t.kh_count * t.kw_count * w_tap;
    for (int64_t kh = t.kh0; kh < t.kh1; ++kh) {
      const float* row = src + (t.ih0 + kh * t.dh) * t.src_row;
      for (int64_t kw = t.kw0; kw < t.kw1; ++kw) {
        const float* in = row + (t.iw0 + kw * t.dw) * kLanes;
        const float* wk = wts + (kh * t.kw_count + kw) * w_tap;
        for (int ic = 0; ic < kLanes; ++ic) {
          V wv[OCB];
#pragma GCC unroll 8
          for (int o = 0; o < OCB; ++o) wv[o] = load(wk + o * t.w_block + ic * kLanes);
#pragma GCC unroll 32
          for (int w = 0; w < OW; ++w) {
            const V x = set1(in[w * t.sw * kLanes + ic]);
#pragma GCC unroll 8
            for (int o = 0; o < OCB; ++o) acc[w][o] = fma(x, wv[o], acc[w][o]);
          }
        }
      }
    }
  }
#pragma GCC unroll 8
  for (int o = 0; o < OCB; ++o)
#pragma GCC unroll 32
    for (int w = 0; w < OW; ++w) store(t.dst + o * t.dst_block + w * kLanes, acc[w][o]);
}

template <int OW, int OCB>
constexpr ConvTile make_conv_tile() {
  return ConvTile{OW, OCB, &conv_tile<OW, OCB>};
}

// Depthwise on the blocked layout, a row's interior at stride SW with KW
// undilated taps: each input vector the OW pixels read is loaded once and
// multiplied into every pixel whose taps reach it, where the general tile
// below loads one per tap and pixel (KW times as many). Each pixel adds its
// taps in the same order, so the sums are the same to the bit.
template <int OW, int KW, int SW>
void depthwise_tile_shared(const ConvTileArgs& t) {
  V acc[OW];
  const V b = t.bias ? load(t.bias) : zero();
#pragma GCC unroll 32
  for (int w = 0; w < OW; ++w) acc[w] = b;
  constexpr int kInputs = (OW - 1) * SW + KW;
  for (int64_t kh = t.kh0; kh < t.kh1; ++kh) {
    const float* in = t.src + (t.ih0 + kh * t.dh) * t.src_row + t.iw0 * kLanes;
    V wv[KW];
#pragma GCC unroll 8
    for (int kw = 0; kw < KW; ++kw) wv[kw] = load(t.weights + (kh * KW + kw) * kLanes);
#pragma GCC unroll 64
    for (int i = 0; i < kInputs; ++i) {
      const V x = load(in + i * kLanes);
#pragma GCC unroll 8
      for (int kw = KW - 1; kw >= 0; --kw) {
        const int d = i - kw;
        if (d >= 0 && d % SW == 0 && d / SW < OW) acc[d / SW] = fma(x, wv[kw], acc[d / SW]);
      }
    }
  }
#pragma GCC unroll 32
  for (int w = 0; w < OW; ++w) store(t.dst + w * kLanes, acc[w]);
}

// Depthwise on the blocked layout: each lane is its own channel.
template <int OW>
void depthwise_tile(const ConvTileArgs& t) {
  if constexpr (OW > 1) {
    if (t.dw == 1 && t.kw0 == 0 && t.kw1 == t.kw_count) {
      if (t.sw == 1 && t.kw_count == 3) return depthwise_tile_shared<OW, 3, 1>(t);
      if (t.sw == 1 && t.kw_count == 5) return depthwise_tile_shared<OW, 5, 1>(t);
      if (t.sw == 1 && t.kw_count == 7) return depthwise_tile_shared<OW, 7, 1>(t);
      if (t.sw == 2 && t.kw_count == 3) return depthwise_tile_shared<OW, 3, 2>(t);
      if (t.sw == 2 && t.kw_count == 5) return depthwise_tile_shared<OW, 5, 2>(t);
    }
  }
  V acc[OW];
  const V b = t.bias ? load(t.bias) : zero();
#pragma GCC unroll 32
  for (int w = 0; w < OW; ++w) acc[w] = b;
  for (int64_t kh = t.kh0; kh < t.kh1; ++kh) {
    const float* row = t.src + (t.ih0 + kh * t.dh) * t.src_row;
    for (int64_t kw = t.kw0; kw < t.kw1; ++kw) {
      const V wv = load(t.weights + (kh * t.kw_count + kw) * kLanes);
      const float* in = row + (t.iw0 + kw * t.dw) * kLanes;
#pragma GCC unroll 32
      for (int w = 0; w < OW; ++w) acc[w] = fma(load(in + w * t.sw * kLanes), wv, acc[w]);
    }
  }
#pragma GCC unroll 32
  for (int w = 0; w < OW; ++w) store(t.dst + w * kLanes, acc[w]);
}

template <int OW>
constexpr ConvTile make_depthwise_tile() {
  return ConvTile{OW, 1, &depthwise_tile<OW>};
}

// Depthwise on one zero-padded NCHW plane: vectors run along output width.
inline void depthwise_plane(const DepthwisePlaneArgs& a) {
  for (int64_t oh = 0; oh < a.oh; ++oh) {
    float* out = a.dst + oh * a.ow;
    for (int64_t ow = 0; ow < a.ow; ++ow) out[ow] = a.bias;
    for (int64_t kh = 0; kh < a.kh; ++kh) {
      const float* row = a.src + (oh * a.sh + kh * a.dh) * a.src_w;
      for (int64_t kw = 0; kw < a.kw; ++kw) {
        const float w = a.weights[kh * a.kw + kw];
        const float* in = row + kw * a.dw;
        if (a.sw == 1) {
          const V wv = set1(w);
          int64_t ow = 0;
          for (; ow + kLanes <= a.ow; ow += kLanes) store(out + ow, fma(load(in + ow), wv, load(out + ow)));
          for (; ow < a.ow; ++ow) out[ow] += in[ow] * w;
        } else {
          for (int64_t ow = 0; ow < a.ow; ++ow) out[ow] += in[ow * a.sw] * w;
        }
      }
    }
  }
}

// M output channels of a group at once, for a row's kLanes-wide run of
// output columns from `ow`: each input vector loaded once and multiplied
// into every channel's accumulator. A run past the row's end is computed
// whole (the source has a vector's slack) and stored in part.
template <int M>
inline void group_run(const GroupPlanesArgs& a, int64_t m0, int64_t oh, int64_t ow) {
  const int64_t taps = a.kh * a.kw, per_m = a.c * taps;
  V acc[M];
  for (int j = 0; j < M; ++j) acc[j] = zero();
  for (int64_t c = 0; c < a.c; ++c)
    for (int64_t kh = 0; kh < a.kh; ++kh) {
      const float* in = a.src + c * a.src_plane + (oh * a.sh + kh * a.dh) * a.sw * a.phase_w + ow;
      const float* w = a.weights + m0 * per_m + c * taps + kh * a.kw;
      for (int64_t kw = 0; kw < a.kw; ++kw) {
        const V v = load(in + a.column_taps[kw]);
        for (int j = 0; j < M; ++j) acc[j] = fma(v, set1(w[j * per_m + kw]), acc[j]);
      }
    }
  const int64_t n = imin(kLanes, a.ow - ow);
  for (int j = 0; j < M; ++j) {
    float* out = a.dst + (m0 + j) * a.oh * a.ow + oh * a.ow + ow;
    if (n == kLanes) store(out, acc[j]);
    else store_partial(out, acc[j], n);
  }
}

// A group's output planes, eight channels (or what is left) at a time, a
// row's runs of columns in turn.
inline void group_planes(const GroupPlanesArgs& a) {
  for (int64_t m0 = 0; m0 < a.m; m0 += 8)
    for (int64_t oh = 0; oh < a.oh; ++oh)
      for (int64_t ow = 0; ow < a.ow; ow += kLanes) switch (imin(8, a.m - m0)) {
          case 1: group_run<1>(a, m0, oh, ow); break;
          case 2: group_run<2>(a, m0, oh, ow); break;
          case 3: group_run<3>(a, m0, oh, ow); break;
          case 4: group_run<4>(a, m0, oh, ow); break;
          case 5: group_run<5>(a, m0, oh, ow); break;
          case 6: group_run<6>(a, m0, oh, ow); break;
          case 7: group_run<7>(a, m0, oh, ow); break;
          default: group_run<8>(a, m0, oh, ow); break;
        }
}
