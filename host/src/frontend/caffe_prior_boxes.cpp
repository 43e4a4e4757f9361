#include "caffe_prior_boxes.h"

#include <algorithm>
#include <cmath>

namespace aoe::host {
namespace {

std::vector<float> aspect_ratios(const caffe::PriorBoxParameter& p) {
  std::vector<float> ratios = {1.0f};
  for (const float r : p.aspect_ratio()) {
    if (std::any_of(ratios.begin(), ratios.end(), [&](float have) { return std::fabs(r - have) < 1e-6f; })) continue;
    ratios.push_back(r);
    if (p.flip()) ratios.push_back(1.0f / r);
  }
  return ratios;
}

}  // namespace

std::string prior_box_error(const caffe::PriorBoxParameter& p) {
  if (p.min_size_size() == 0) return "has no min_size";
  for (const float s : p.min_size())
    if (!(s > 0)) return "has a min_size of " + std::to_string(s) + "; sizes are positive";
  if (p.max_size_size() != 0 && p.max_size_size() != p.min_size_size())
    return "has " + std::to_string(p.max_size_size()) + " max_size for " + std::to_string(p.min_size_size()) +
           " min_size; it takes one each or none";
  for (int i = 0; i < p.max_size_size(); ++i)
    if (!(p.max_size(i) > p.min_size(i))) return "has a max_size not above its min_size";
  for (const float r : p.aspect_ratio())
    if (!(r > 0)) return "has an aspect_ratio of " + std::to_string(r) + "; ratios are positive";
  if (p.variance_size() != 0 && p.variance_size() != 1 && p.variance_size() != 4)
    return "has " + std::to_string(p.variance_size()) + " variances; it takes 1 or 4";
  if ((p.has_img_h() || p.has_img_w()) && (p.img_h() == 0 || p.img_w() == 0)) return "gives img_h and img_w not both";
  if (p.has_img_size() && p.img_size() == 0) return "has img_size 0";
  if (p.has_step() && !(p.step() > 0)) return "has a step that is not positive";
  if ((p.has_step_h() || p.has_step_w()) && !(p.step_h() > 0 && p.step_w() > 0))
    return "gives step_h and step_w not both positive";
  return "";
}

int64_t priors_per_cell(const caffe::PriorBoxParameter& p) {
  return static_cast<int64_t>(aspect_ratios(p).size()) * p.min_size_size() + p.max_size_size();
}

std::vector<float> prior_boxes(const caffe::PriorBoxParameter& p, int64_t layer_h, int64_t layer_w, int64_t image_h,
                               int64_t image_w) {
  const std::vector<float> ratios = aspect_ratios(p);
  const int64_t img_h = p.has_img_h() ? p.img_h() : p.has_img_size() ? p.img_size() : image_h;
  const int64_t img_w = p.has_img_w() ? p.img_w() : p.has_img_size() ? p.img_size() : image_w;
  // As SSD's Caffe: float steps and sizes, each corner's division in double.
  const float step_h = p.has_step_h() ? p.step_h() : p.has_step() ? p.step() : static_cast<float>(img_h) / layer_h;
  const float step_w = p.has_step_w() ? p.step_w() : p.has_step() ? p.step() : static_cast<float>(img_w) / layer_w;
  const size_t count = static_cast<size_t>(layer_h * layer_w * priors_per_cell(p) * 4);
  std::vector<float> out;
  out.reserve(2 * count);
  const auto add = [&](float cx, float cy, float w, float h) {
    out.push_back(static_cast<float>((cx - w / 2.) / img_w));
    out.push_back(static_cast<float>((cy - h / 2.) / img_h));
    out.push_back(static_cast<float>((cx + w / 2.) / img_w));
    out.push_back(static_cast<float>((cy + h / 2.) / img_h));
  };
  for (int64_t y = 0; y < layer_h; ++y)
    for (int64_t x = 0; x < layer_w; ++x) {
      const float cx = (static_cast<float>(x) + p.offset()) * step_w;
      const float cy = (static_cast<float>(y) + p.offset()) * step_h;
      for (int s = 0; s < p.min_size_size(); ++s) {
        const float min_size = p.min_size(s);
        add(cx, cy, min_size, min_size);
        if (p.max_size_size() > 0) {
          const float side = std::sqrt(min_size * p.max_size(s));
          add(cx, cy, side, side);
        }
        for (const float r : ratios) {
          if (std::fabs(r - 1.0f) < 1e-6f) continue;
          add(cx, cy, min_size * std::sqrt(r), min_size / std::sqrt(r));
        }
      }
    }
  if (p.clip())
    for (float& v : out) v = std::min(std::max(v, 0.0f), 1.0f);
  for (size_t i = 0; i < count; ++i)
    out.push_back(p.variance_size() == 0 ? 0.1f : p.variance_size() == 1 ? p.variance(0) : p.variance(static_cast<int>(i % 4)));
  return out;
}

}  // namespace aoe::host
