#include "knob_features.h"

#include <cmath>

namespace aoe::search::surrogate {
namespace {

// Past this many labels a categorical knob is one column of its index, and
// past this many size knobs only their total is summed: features stay few.
constexpr size_t kMaxOneHot = 16;
constexpr size_t kMaxPairedKnobs = 12;

}  // namespace

KnobFeatures::KnobFeatures(const common::SpaceCoding& space) {
  log2_.resize(space.knobs());
  for (size_t k : space.choice_knobs()) {
    const auto& knob = space.knob(k);
    const uint32_t n = space.size(k);
    if (knob.kind == sdk::DomainKind::categorical && n <= kMaxOneHot) {
      columns_.push_back({k, n == 2 ? Kind::flag : Kind::one_hot, n});
      width_ += n == 2 ? 1 : n;
      continue;
    }
    columns_.push_back({k, Kind::position, n});
    ++width_;
    if (knob.kind != sdk::DomainKind::categorical && knob.values.front() > 0) {
      sizes_.push_back(k);
      for (int64_t v : knob.values) log2_[k].push_back(static_cast<float>(std::log2(static_cast<double>(v))));
    }
  }
  if (sizes_.size() <= kMaxPairedKnobs)
    for (size_t i = 0; i < sizes_.size(); ++i)
      for (size_t j = i + 1; j < sizes_.size(); ++j) pairs_.emplace_back(sizes_[i], sizes_[j]);
  width_ += pairs_.size() + (sizes_.size() > 2 ? 1 : 0);
}

void KnobFeatures::encode(const common::Genome& g, float* out) const {
  for (const Column& c : columns_) {
    const uint32_t v = g[c.knob];
    switch (c.kind) {
      case Kind::position:
        *out++ = static_cast<float>(v) / static_cast<float>(c.size - 1);
        break;
      case Kind::flag:
        *out++ = static_cast<float>(v);
        break;
      case Kind::one_hot:
        for (uint32_t i = 0; i < c.size; ++i) *out++ = i == v ? 1.0f : 0.0f;
        break;
    }
  }
  for (const auto& [a, b] : pairs_) *out++ = log2_[a][g[a]] + log2_[b][g[b]];
  if (sizes_.size() > 2) {
    float total = 0;
    for (size_t k : sizes_) total += log2_[k][g[k]];
    *out++ = total;
  }
}

}  // namespace aoe::search::surrogate
