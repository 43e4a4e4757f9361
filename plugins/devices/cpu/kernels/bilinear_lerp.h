// Bilinear interpolation in float32 as ONNX Runtime's CPU Resize computes it
// (UpsampleBilinear, NCHW): per axis the source coordinate clamped into the
// input, its two neighbours and their weights; per element the four
// neighbours, each weighted by a product of the two axes' weights, summed
// left to right. Two runtimes that round these sums in another order can
// give values one float apart, which a later quantization can turn into a
// whole step.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace aoe::cpu {

// One output position along an axis: source positions `first` and `second`
// (second = first + 1, or first at the last position), weighted `second_weight`
// and `first_weight`: each weight is the distance to the other position.
struct Lerp {
  int64_t first = 0, second = 0;
  float first_weight = 1, second_weight = 0;
  bool outside = false;  // a crop's source coordinate lies outside the input
};

// The lerp at source coordinate `at` along an axis of `extent` positions.
inline Lerp lerp_between(float at, int64_t extent, bool crop) {
  Lerp l;
  const float last = static_cast<float>(extent - 1);
  l.outside = crop && (at < 0 || at > last);
  at = std::max(0.0f, std::min(at, last));
  l.first = std::min(static_cast<int64_t>(at), extent - 1);
  l.second = std::min(l.first + 1, extent - 1);
  if (l.first == l.second) {
    l.first_weight = l.second_weight = 0.5f;
  } else {
    l.second_weight = std::fabs(at - static_cast<float>(l.first));
    l.first_weight = std::fabs(at - static_cast<float>(l.second));
  }
  return l;
}

// The element at column lerp `cx` of row lerp `ry`, whose source rows are
// `top` and `bottom`. A neighbour of weight 0 is not read, so an infinite
// value there gives no NaN; the sum is otherwise the same.
inline float bilinear_value(const Lerp& cx, const Lerp& ry, const float* top, const float* bottom) {
  float v = cx.first_weight * ry.first_weight * top[cx.first];
  if (cx.second_weight != 0) v += cx.second_weight * ry.first_weight * top[cx.second];
  if (ry.second_weight != 0) {
    v += cx.first_weight * ry.second_weight * bottom[cx.first];
    if (cx.second_weight != 0) v += cx.second_weight * ry.second_weight * bottom[cx.second];
  }
  return v;
}

}  // namespace aoe::cpu
