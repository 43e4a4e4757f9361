// A config as the surrogate model reads it: each ordered knob's position in
// its domain, categorical knobs one-hot, and the log2 sums of pairs of size
// knobs (and of all of them), since a buffer bounds a product of tile sizes
// and a tree splits on one feature at a time.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "../common/space_coding.h"

namespace aoe::search::surrogate {

class KnobFeatures {
 public:
  KnobFeatures() = default;
  explicit KnobFeatures(const common::SpaceCoding& space);

  size_t width() const { return width_; }
  // Writes width() features of `g` at `out`.
  void encode(const common::Genome& g, float* out) const;

 private:
  enum class Kind { position, one_hot, flag };
  struct Column {
    size_t knob;
    Kind kind;
    uint32_t size;  // values in its domain
  };
  std::vector<Column> columns_;
  std::vector<size_t> sizes_;                     // knobs whose values are sizes: positive and ordered
  std::vector<std::vector<float>> log2_;          // per knob, log2 of each value (size knobs only)
  std::vector<std::pair<size_t, size_t>> pairs_;  // of size knobs
  size_t width_ = 0;
};

}  // namespace aoe::search::surrogate
