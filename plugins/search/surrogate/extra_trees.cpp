#include "extra_trees.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace aoe::search::surrogate {

void ExtraTrees::fit(const std::vector<float>& x, size_t width, const std::vector<double>& y, const ForestParameters& p,
                     ga::Draw& draw) {
  nodes_.clear();
  roots_.clear();
  width_ = width;
  if (y.empty()) return;
  std::vector<float> columns(x.size());
  for (size_t r = 0; r < y.size(); ++r)
    for (size_t f = 0; f < width; ++f) columns[f * y.size() + r] = x[r * width + f];
  std::vector<uint32_t> rows(y.size());
  for (size_t t = 0; t < std::max<size_t>(p.trees, 1); ++t) {
    std::iota(rows.begin(), rows.end(), 0u);
    roots_.push_back(grow(columns, width, y, p, draw, rows));
  }
}

// Depth-first with an explicit stack: each node takes a slice of `rows`.
// `columns` holds the features column by column, and each node gathers the
// values it weighs into a contiguous buffer: most of a fit is these passes.
uint32_t ExtraTrees::grow(const std::vector<float>& columns, size_t width, const std::vector<double>& y,
                          const ForestParameters& p, ga::Draw& draw, std::vector<uint32_t>& rows) {
  struct Work {
    uint32_t node;
    size_t begin, end;
  };
  const size_t samples = y.size();
  const size_t tries = p.features_per_split == 0 ? width : std::min(p.features_per_split, width);
  std::vector<size_t> order(width);
  std::iota(order.begin(), order.end(), size_t{0});
  std::vector<float> values(samples);
  std::vector<double> targets(samples);
  const auto root = static_cast<uint32_t>(nodes_.size());
  nodes_.emplace_back();
  std::vector<Work> stack{{root, 0, rows.size()}};
  while (!stack.empty()) {
    const Work w = stack.back();
    stack.pop_back();
    const size_t n = w.end - w.begin;
    const uint32_t* node_rows = rows.data() + w.begin;
    double sum = 0;
    bool constant = true;
    for (size_t i = 0; i < n; ++i) {
      targets[i] = y[node_rows[i]];
      sum += targets[i];
      constant = constant && targets[i] == targets[0];
    }
    nodes_[w.node].value = static_cast<float>(sum / static_cast<double>(n));
    if (n < std::max<size_t>(p.min_split, 2) || constant) continue;

    // Random cut points on up to `tries` features that vary here; the one
    // that most reduces the variance of the targets wins.
    int32_t best_feature = -1;
    float best_cut = 0;
    double best_score = -1;
    size_t tried = 0;
    for (size_t i = 0; i < width && tried < tries; ++i) {
      std::swap(order[i], order[i + draw.below(width - i)]);
      const size_t f = order[i];
      const float* column = columns.data() + f * samples;
      float lo = column[node_rows[0]], hi = lo;
      for (size_t r = 0; r < n; ++r) {
        const float v = column[node_rows[r]];
        values[r] = v;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      if (!(hi > lo)) continue;
      ++tried;
      const auto cut = static_cast<float>(lo + draw.unit() * (hi - lo));
      double left_sum = 0;
      size_t left_n = 0;
      for (size_t r = 0; r < n; ++r) {
        const bool left = values[r] <= cut;
        left_sum += left ? targets[r] : 0.0;
        left_n += left;
      }
      if (left_n == 0 || left_n == n) continue;
      const double right_sum = sum - left_sum;
      const double score =
          left_sum * left_sum / static_cast<double>(left_n) + right_sum * right_sum / static_cast<double>(n - left_n);
      if (score > best_score) {
        best_score = score;
        best_feature = static_cast<int32_t>(f);
        best_cut = cut;
      }
    }
    if (best_feature < 0) continue;

    const float* column = columns.data() + static_cast<size_t>(best_feature) * samples;
    const auto mid = std::partition(rows.begin() + static_cast<std::ptrdiff_t>(w.begin),
                                    rows.begin() + static_cast<std::ptrdiff_t>(w.end),
                                    [&](uint32_t r) { return column[r] <= best_cut; });
    const auto split = static_cast<size_t>(mid - rows.begin());
    const auto left = static_cast<uint32_t>(nodes_.size());
    nodes_.emplace_back();
    nodes_.emplace_back();
    Node& node = nodes_[w.node];
    node.feature = best_feature;
    node.cut = best_cut;
    node.left = left;
    stack.push_back({left + 1, split, w.end});
    stack.push_back({left, w.begin, split});
  }
  return root;
}

std::vector<ExtraTrees::Prediction> ExtraTrees::predict(const float* x, size_t rows) const {
  std::vector<Prediction> out(rows);
  if (roots_.empty()) return out;
  std::vector<double> sum(rows, 0.0), sum_sq(rows, 0.0);
  for (uint32_t root : roots_) {
    for (size_t r = 0; r < rows; ++r) {
      const float* row = x + r * width_;
      const Node* node = &nodes_[root];
      while (node->feature >= 0) node = &nodes_[node->left + (row[node->feature] <= node->cut ? 0 : 1)];
      const double v = node->value;
      sum[r] += v;
      sum_sq[r] += v * v;
    }
  }
  const auto n = static_cast<double>(roots_.size());
  for (size_t r = 0; r < rows; ++r) {
    out[r].mean = sum[r] / n;
    out[r].spread = std::sqrt(std::max(0.0, sum_sq[r] / n - out[r].mean * out[r].mean));
  }
  return out;
}

}  // namespace aoe::search::surrogate
