// The neighbours of a config: one knob changed, or two at once, a step along
// an ordered knob or another label of a categorical one. Local searches move
// through them; model-based ones draw candidates from them.
#pragma once

#include <optional>
#include <vector>

#include "../ga/draw.h"
#include "search_ledger.h"
#include "space_coding.h"

namespace aoe::search::common {

// The positions one step from position v of a knob of `size` values: the
// two beside it where the knob is ordered, every other one where it is not.
template <class Position>
std::vector<Position> one_step_from(Position v, Position size, bool ordered) {
  std::vector<Position> out;
  if (ordered) {
    if (v > 0) out.push_back(v - 1);
    if (v + 1 < size) out.push_back(v + 1);
  } else {
    for (Position o = 0; o < size; ++o)
      if (o != v) out.push_back(o);
  }
  return out;
}

class Neighbourhood {
 public:
  Neighbourhood() = default;
  // `pair_share`: the share of moves that change two knobs, so a tiling can
  // slide along a product constraint (one tile up, another down) where every
  // one-knob move either breaks it or slows down. `jump_share`: the share of
  // ordered-knob moves that go to any other value rather than a step.
  Neighbourhood(const SpaceCoding& space, double pair_share, double jump_share)
      : choice_(space.choice_knobs()), pair_share_(pair_share), jump_share_(jump_share) {
    for (size_t k = 0; k < space.knobs(); ++k) {
      sizes_.push_back(space.size(k));
      ordered_.push_back(space.ordered(k));
    }
  }

  Genome random(const Genome& g, ga::Draw& draw) const {
    const auto& choice = choice_;
    Genome n = g;
    if (choice.empty()) return n;
    const size_t first = draw.below(choice.size());
    n[choice[first]] = moved(choice[first], g[choice[first]], draw);
    if (choice.size() > 1 && draw.chance(pair_share_)) {
      size_t second = draw.below(choice.size() - 1);
      if (second >= first) ++second;
      n[choice[second]] = moved(choice[second], g[choice[second]], draw);
    }
    return n;
  }

  // Every one-knob move and every pair of steps, jumps aside, in a fixed order.
  std::vector<Genome> steps(const Genome& g) const {
    std::vector<Genome> out;
    const auto& choice = choice_;
    for (size_t i = 0; i < choice.size(); ++i) {
      const size_t a = choice[i];
      for (uint32_t va : step_values(a, g[a])) {
        Genome n = g;
        n[a] = va;
        out.push_back(n);
        for (size_t j = i + 1; j < choice.size(); ++j) {
          const size_t b = choice[j];
          for (uint32_t vb : step_values(b, g[b])) {
            Genome m = n;
            m[b] = vb;
            out.push_back(std::move(m));
          }
        }
      }
    }
    return out;
  }

  // A neighbour of `g` not yet proposed or observed, if there is one.
  std::optional<Genome> unseen(const Genome& g, const Ledger& ledger, ga::Draw& draw) const {
    constexpr int kRandomTries = 24;  // before listing every step neighbour
    if (choice_.empty()) return std::nullopt;
    for (int i = 0; i < kRandomTries; ++i) {
      Genome n = random(g, draw);
      if (!ledger.seen(n)) return n;
    }
    std::vector<Genome> left;
    for (auto& n : steps(g))
      if (!ledger.seen(n)) left.push_back(std::move(n));
    if (left.empty()) return std::nullopt;
    return left[draw.below(left.size())];
  }

  // Every step neighbour of `g` has been proposed or observed.
  bool used_up(const Genome& g, const Ledger& ledger) const {
    for (const auto& n : steps(g))
      if (!ledger.seen(n)) return false;
    return true;
  }

 private:
  uint32_t moved(size_t knob, uint32_t v, ga::Draw& draw) const {
    const uint32_t size = sizes_[knob];
    if (!ordered_[knob] || draw.chance(jump_share_)) {
      const auto other = static_cast<uint32_t>(draw.below(size - 1));
      return other >= v ? other + 1 : other;
    }
    if (v == 0) return 1;
    if (v + 1 == size) return v - 1;
    return draw.below(2) == 0 ? v - 1 : v + 1;
  }

  std::vector<uint32_t> step_values(size_t knob, uint32_t v) const {
    return one_step_from(v, sizes_[knob], static_cast<bool>(ordered_[knob]));
  }

  std::vector<size_t> choice_;  // knobs with more than one value
  std::vector<uint32_t> sizes_;
  std::vector<bool> ordered_;
  double pair_share_ = 0;
  double jump_share_ = 0;
};

}  // namespace aoe::search::common
