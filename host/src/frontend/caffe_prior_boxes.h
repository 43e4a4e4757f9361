// The anchor boxes of SSD's PriorBox layer: a constant of the feature map's
// and the image's sizes, computed as SSD's Caffe computes it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "caffe.pb.h"

namespace aoe::host {

// Per cell: one box per min_size and aspect ratio (1 first, then each ratio
// given, and its inverse with flip; repeats dropped), and one per max_size.
// An empty string, or why the parameters are not a PriorBox's.
std::string prior_box_error(const caffe::PriorBoxParameter& p);
int64_t priors_per_cell(const caffe::PriorBoxParameter& p);

// [2, layer_h * layer_w * priors_per_cell * 4]: each box's normalised corners
// (xmin, ymin, xmax, ymax), then each box's four variances.
std::vector<float> prior_boxes(const caffe::PriorBoxParameter& p, int64_t layer_h, int64_t layer_w, int64_t image_h,
                               int64_t image_w);

}  // namespace aoe::host
