#include "kept_boxes.h"

#include <algorithm>
#include <cmath>

namespace aoe::cpu {
namespace {

constexpr size_t kMaxBins = 1 << 16;
constexpr int64_t kMostBinsFiled = 16;  // a taller box is checked by every candidate instead

bool finite(const Box& box) { return std::isfinite(box.y0) && std::isfinite(box.y1); }

}  // namespace

bool iou_above(const Box& a, const Box& b, float threshold) {
  if (a.area <= 0 || b.area <= 0) return false;
  const float h = std::max(0.0f, std::min(a.y1, b.y1) - std::max(a.y0, b.y0));
  const float w = std::max(0.0f, std::min(a.x1, b.x1) - std::max(a.x0, b.x0));
  const float inter = h * w;
  return inter / (a.area + b.area - inter) > threshold;
}

KeptBoxes::KeptBoxes(const std::vector<Box>& candidates, float threshold) : threshold_(threshold) {
  float lo = INFINITY, hi = -INFINITY;
  std::vector<float> heights;
  for (const Box& b : candidates)
    if (finite(b)) lo = std::min(lo, b.y0), hi = std::max(hi, b.y1), heights.push_back(b.y1 - b.y0);
  if (heights.empty() || !std::isfinite(hi - lo)) return;
  std::nth_element(heights.begin(), heights.begin() + static_cast<std::ptrdiff_t>(heights.size() / 2), heights.end());
  const float median = heights[heights.size() / 2];
  const double most = static_cast<double>(std::min<size_t>(kMaxBins, candidates.size()));
  const double bins = median > 0 ? std::clamp(std::ceil((static_cast<double>(hi) - lo) / median), 1.0, most) : 1.0;
  lo_ = lo;
  scale_ = hi > lo ? static_cast<float>(bins / (static_cast<double>(hi) - lo)) : 0.0f;
  bins_.resize(static_cast<size_t>(bins));
}

int64_t KeptBoxes::bin_of(float y) const {
  const float at = std::clamp((y - lo_) * scale_, 0.0f, static_cast<float>(bins_.size() - 1));
  return static_cast<int64_t>(at);
}

bool KeptBoxes::suppresses(const Box& box) const {
  const auto above = [&](uint32_t k) { return iou_above(box, kept_[k], threshold_); };
  if (bins_.empty() || !finite(box)) {
    for (uint32_t k = 0; k < kept_.size(); ++k)
      if (above(k)) return true;
    return false;
  }
  if (std::any_of(everywhere_.begin(), everywhere_.end(), above)) return true;
  for (int64_t bin = bin_of(box.y0), last = bin_of(box.y1); bin <= last; ++bin)
    if (std::any_of(bins_[static_cast<size_t>(bin)].begin(), bins_[static_cast<size_t>(bin)].end(), above)) return true;
  return false;
}

void KeptBoxes::keep(const Box& box) {
  if (!(box.area > 0)) return;  // suppresses nothing
  const auto index = static_cast<uint32_t>(kept_.size());
  kept_.push_back(box);
  if (bins_.empty()) return;
  const int64_t first = finite(box) ? bin_of(box.y0) : 0, last = finite(box) ? bin_of(box.y1) : 0;
  if (!finite(box) || last - first >= kMostBinsFiled) {
    everywhere_.push_back(index);
    return;
  }
  for (int64_t bin = first; bin <= last; ++bin) bins_[static_cast<size_t>(bin)].push_back(index);
}

}  // namespace aoe::cpu
