#include "autoregressive_policy.h"

#include <algorithm>
#include <cmath>

namespace aoe::search {
namespace {

// Past this many (previous, value) pairs a knob keeps only its unary logits:
// the table would be too sparse to learn from a tuning budget anyway.
constexpr size_t kMaxPairTable = size_t{1} << 16;

std::vector<double> softmax(std::vector<double> z) {
  const double top = *std::max_element(z.begin(), z.end());
  double sum = 0;
  for (double& v : z) sum += v = std::exp(v - top);
  for (double& v : z) v /= sum;
  return z;
}

// Uniform in [0, 1) from the top 53 bits, the same on every standard library.
double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

size_t draw(const std::vector<double>& p, std::mt19937_64& rng) {
  double u = uniform(rng);
  for (size_t v = 0; v + 1 < p.size(); ++v) {
    if (u < p[v]) return v;
    u -= p[v];
  }
  return p.size() - 1;
}

// A Gaussian over position distance, cut at three widths; one entry for a
// categorical knob. The width is capped so a knob of thousands of values
// still updates in time linear in its size.
std::vector<double> spread(const AutoregressivePolicy::KnobShape& k, double fraction) {
  constexpr double kMaxWidth = 8;
  if (!k.ordinal) return {1.0};
  const double width = std::clamp(fraction * static_cast<double>(k.size), 1.0, kMaxWidth);
  const size_t reach = std::min(k.size, static_cast<size_t>(std::ceil(3 * width)) + 1);
  std::vector<double> out(reach);
  for (size_t d = 0; d < reach; ++d) out[d] = std::exp(-0.5 * (d / width) * (d / width));
  return out;
}

}  // namespace

AutoregressivePolicy::AutoregressivePolicy(std::vector<KnobShape> knobs, const Choices& prior, Settings settings)
    : knobs_(std::move(knobs)), settings_(settings) {
  const size_t n = knobs_.size();
  unary_.resize(n);
  pair_.resize(n);
  kernel_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    unary_[i].assign(knobs_[i].size, 0.0);
    kernel_[i] = spread(knobs_[i], settings_.kernel_fraction);
    if (i > 0 && knobs_[i - 1].size * knobs_[i].size <= kMaxPairTable)
      pair_[i].assign(knobs_[i - 1].size * knobs_[i].size, 0.0);
  }
  if (prior.size() == n) lean_towards(prior);
}

void AutoregressivePolicy::lean_towards(const Choices& at) {
  for (size_t i = 0; i < knobs_.size(); ++i) {
    std::vector<double> bump(knobs_[i].size, 0.0);
    bump[at[i]] = 1.0;
    add_smoothed(i, bump, settings_.prior_weight, unary_[i].data());
  }
}

void AutoregressivePolicy::recentre(const Choices& at, double keep) {
  for (auto* table : {&unary_, &pair_})
    for (auto& row : *table)
      for (double& z : row) z *= keep;
  lean_towards(at);
}

std::vector<double> AutoregressivePolicy::logits(size_t knob, size_t previous) const {
  std::vector<double> z = unary_[knob];
  if (has_pair(knob)) {
    const double* row = pair_[knob].data() + previous * knobs_[knob].size;
    for (size_t v = 0; v < z.size(); ++v) z[v] += row[v];
  }
  return z;
}

std::vector<double> AutoregressivePolicy::distribution(size_t knob, size_t previous) const {
  return softmax(logits(knob, previous));
}

Choices AutoregressivePolicy::sample(std::mt19937_64& rng) const {
  Choices c(knobs_.size());
  for (size_t i = 0; i < knobs_.size(); ++i) c[i] = draw(distribution(i, i > 0 ? c[i - 1] : 0), rng);
  return c;
}

double AutoregressivePolicy::probability(const Choices& choices) const {
  double p = 1;
  for (size_t i = 0; i < knobs_.size(); ++i) p *= distribution(i, i > 0 ? choices[i - 1] : 0)[choices[i]];
  return p;
}

std::vector<double> AutoregressivePolicy::marginal(size_t knob) const {
  std::vector<double> before{1.0};  // the marginal of the previous knob, forward along the chain
  for (size_t i = 0; i <= knob; ++i) {
    std::vector<double> now(knobs_[i].size, 0.0);
    for (size_t p = 0; p < before.size(); ++p) {
      if (before[p] == 0) continue;
      const auto pi = distribution(i, p);
      for (size_t v = 0; v < now.size(); ++v) now[v] += before[p] * pi[v];
    }
    before = std::move(now);
  }
  return before;
}

// Adds step * K * gradient to a row of logits, K the knob's smoothing kernel:
// a positive definite preconditioner, so the step still ascends, and a good
// block_dim of 24 raises 23 and 25 too.
void AutoregressivePolicy::add_smoothed(size_t knob, const std::vector<double>& gradient, double step, double* row) {
  const auto& k = kernel_[knob];
  const size_t n = gradient.size();
  for (size_t v = 0; v < n; ++v) {
    if (gradient[v] == 0) continue;
    const size_t lo = v >= k.size() - 1 ? v - (k.size() - 1) : 0;
    const size_t hi = std::min(n - 1, v + k.size() - 1);
    for (size_t w = lo; w <= hi; ++w) row[w] += step * k[w > v ? w - v : v - w] * gradient[v];
  }
}

void AutoregressivePolicy::update(const std::vector<Episode>& batch) {
  if (batch.empty()) return;
  // Gradients for the whole batch first, then one step: every episode is
  // scored against the policy that drew it.
  std::vector<std::vector<double>> g_unary(knobs_.size());
  std::vector<std::vector<double>> g_pair(knobs_.size());
  for (size_t i = 0; i < knobs_.size(); ++i) {
    g_unary[i].assign(unary_[i].size(), 0.0);
    g_pair[i].assign(pair_[i].size(), 0.0);
  }
  for (const auto& e : batch) {
    for (size_t i = 0; i < knobs_.size(); ++i) {
      const size_t prev = i > 0 ? e.choices[i - 1] : 0;
      const auto pi = distribution(i, prev);
      double entropy = 0;
      for (double p : pi)
        if (p > 0) entropy -= p * std::log(p);
      for (size_t v = 0; v < pi.size(); ++v) {
        // d log pi(a) / dz_v = [v == a] - pi_v;  dH / dz_v = -pi_v (log pi_v + H).
        const double score = (v == e.choices[i] ? 1.0 : 0.0) - pi[v];
        const double bonus = pi[v] > 0 ? -pi[v] * (std::log(pi[v]) + entropy) : 0.0;
        const double g = e.advantage * score + settings_.entropy_weight * bonus;
        g_unary[i][v] += g;
        if (has_pair(i)) g_pair[i][prev * pi.size() + v] += g;
      }
    }
  }
  for (size_t i = 0; i < knobs_.size(); ++i) {
    const double rate = knobs_[i].ordinal ? settings_.ordinal_rate : settings_.categorical_rate;
    const double step = rate / static_cast<double>(batch.size());
    add_smoothed(i, g_unary[i], step, unary_[i].data());
    if (!has_pair(i)) continue;
    const size_t n = knobs_[i].size;
    for (size_t p = 0; p < knobs_[i - 1].size; ++p) {
      std::vector<double> row(g_pair[i].begin() + p * n, g_pair[i].begin() + (p + 1) * n);
      add_smoothed(i, row, step, pair_[i].data() + p * n);
    }
  }
}

}  // namespace aoe::search
