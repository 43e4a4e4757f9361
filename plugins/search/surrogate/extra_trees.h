// An extra-trees regressor (Geurts, Ernst & Wehenkel, 2006): trees grown on
// every sample with cut points drawn at random, cheap enough to refit on
// every batch, whose disagreement stands in for the model's uncertainty.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "../ga/draw.h"

namespace aoe::search::surrogate {

struct ForestParameters {
  size_t trees = 32;
  size_t min_split = 4;           // a node of fewer samples is a leaf
  size_t features_per_split = 0;  // cut points tried per node; 0: every feature, as for regression in the paper
};

class ExtraTrees {
 public:
  struct Prediction {
    double mean = 0;
    double spread = 0;  // standard deviation across the trees
  };

  // `x`: one row of `width` features per target in `y`.
  void fit(const std::vector<float>& x, size_t width, const std::vector<double>& y, const ForestParameters& p,
           ga::Draw& draw);
  bool fitted() const { return !roots_.empty(); }
  // `rows` rows of features laid out as in fit, all at once: a tree at a
  // time, so that each tree stays in cache.
  std::vector<Prediction> predict(const float* x, size_t rows) const;

 private:
  struct Node {
    int32_t feature = -1;  // a leaf when negative
    float cut = 0;         // rows with feature <= cut go to `left`, the others to `left + 1`
    uint32_t left = 0;
    float value = 0;  // the leaf's mean target
  };
  uint32_t grow(const std::vector<float>& columns, size_t width, const std::vector<double>& y,
                const ForestParameters& p, ga::Draw& draw, std::vector<uint32_t>& rows);

  std::vector<Node> nodes_;
  std::vector<uint32_t> roots_;
  size_t width_ = 0;  // features per row
};

}  // namespace aoe::search::surrogate
