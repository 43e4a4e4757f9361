// The boxes NonMaxSuppression has kept so far for one class, found by
// where they lie: each is filed in the bins its extent along the first
// axis touches, and a candidate is checked only against the boxes filed
// in the bins it touches. Two extents that overlap share a bin (the bin is
// monotone in the coordinate), so no box that could intersect a candidate
// is missed. Detectors run one NMS over thousands of candidates
// (torchvision offsets each class's boxes apart instead of running one
// per class), each of which a plain list checks against thousands of
// kept boxes.
#pragma once

#include <cstdint>
#include <vector>

namespace aoe::cpu {

// Two corners, low and high on each axis, and the area they enclose.
struct Box {
  float y0 = 0, x0 = 0, y1 = 0, x1 = 0, area = 0;
};

// Whether the IoU of two boxes, in float32, is above the threshold; a box
// of no area overlaps nothing, nor does one with its corners swapped.
bool iou_above(const Box& a, const Box& b, float threshold);

class KeptBoxes {
 public:
  // Bins sized for the candidates (all the boxes that may be kept): about
  // as wide as the median candidate is tall, over their whole extent. The
  // threshold is in [0, 1]: boxes that do not intersect never overlap enough.
  KeptBoxes(const std::vector<Box>& candidates, float threshold);
  // Whether a kept box overlaps this one by more than the threshold.
  bool suppresses(const Box& box) const;
  void keep(const Box& box);

 private:
  int64_t bin_of(float y) const;

  float threshold_;
  float lo_ = 0, scale_ = 0;  // bin of y: (y - lo_) * scale_, clamped
  std::vector<Box> kept_;
  std::vector<std::vector<uint32_t>> bins_;
  std::vector<uint32_t> everywhere_;  // checked by every candidate: boxes too tall to file, or not finite
};

}  // namespace aoe::cpu
