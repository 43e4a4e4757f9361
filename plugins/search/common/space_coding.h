// A tuning space as a searcher walks it: a config as the index of each
// knob's value in its ascending domain, so a neighbouring value is one step away.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "../ga/draw.h"
#include "aoe/sdk/tuning_space.h"

namespace aoe::search::common {

using Genome = std::vector<uint32_t>;

class SpaceCoding {
 public:
  SpaceCoding() = default;
  explicit SpaceCoding(const sdk::TuningSpace& space) {
    constexpr uint64_t kCountable = uint64_t{1} << 63;
    size_ = 1;
    for (size_t k = 0; k < space.knobs.size(); ++k) {
      const auto& knob = space.knobs[k];
      knobs_.push_back(knob);
      const uint64_t n = knob.values.size();
      if (n == 0) empty_ = true;
      if (n > 1) choice_.push_back(k);
      if (n > 0 && countable_ && size_ > kCountable / n) countable_ = false;
      if (countable_) size_ *= n;
    }
    if (empty_) size_ = 0, countable_ = true;
  }

  size_t knobs() const { return knobs_.size(); }
  const sdk::Knob& knob(size_t k) const { return knobs_[k]; }
  uint32_t size(size_t k) const { return static_cast<uint32_t>(knobs_[k].values.size()); }
  // Integer and power-of-two knobs: adjacent values are alike.
  bool ordered(size_t k) const { return knobs_[k].kind != sdk::DomainKind::categorical; }
  // The knobs that have more than one value.
  const std::vector<size_t>& choice_knobs() const { return choice_; }

  // Some knob has no value: there is no config to propose.
  bool empty() const { return empty_; }
  // The number of configs fits in 63 bits, so it can be walked by index.
  bool countable() const { return countable_; }
  uint64_t size() const { return size_; }

  std::optional<Genome> encode(const sdk::Config& c) const {
    if (c.size() != knobs_.size()) return std::nullopt;
    Genome g(c.size());
    for (size_t k = 0; k < c.size(); ++k) {
      const auto& d = knobs_[k].values;
      const auto it = std::lower_bound(d.begin(), d.end(), c[k]);
      if (it == d.end() || *it != c[k]) return std::nullopt;
      g[k] = static_cast<uint32_t>(it - d.begin());
    }
    return g;
  }

  sdk::Config decode(const Genome& g) const {
    sdk::Config c(g.size());
    for (size_t k = 0; k < g.size(); ++k) c[k] = knobs_[k].values[g[k]];
    return c;
  }

  // Mixed radix, first knob fastest. Countable spaces only.
  Genome at(uint64_t index) const {
    Genome g(knobs_.size());
    for (size_t k = 0; k < knobs_.size(); ++k) {
      g[k] = static_cast<uint32_t>(index % size(k));
      index /= size(k);
    }
    return g;
  }

  Genome random(ga::Draw& draw) const {
    Genome g(knobs_.size());
    for (size_t k = 0; k < knobs_.size(); ++k) g[k] = static_cast<uint32_t>(draw.below(size(k)));
    return g;
  }

 private:
  std::vector<sdk::Knob> knobs_;
  std::vector<size_t> choice_;
  uint64_t size_ = 0;
  bool empty_ = false;
  bool countable_ = true;
};

}  // namespace aoe::search::common
