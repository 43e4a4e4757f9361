#include "surrogate_searcher.h"

#include <algorithm>
#include <cmath>

#include "../common/hyperparameters.h"

#include "acquisition.h"

namespace aoe::search {
namespace {

// Mutations of the fastest configs: the share that move two knobs at once
// (sliding along a product constraint), and of ordered moves that jump.
constexpr double kPairMoves = 0.3;
constexpr double kJumps = 0.1;
// A parent's step neighbours join the pool whole up to this many, else a sample.
constexpr size_t kMaxStepNeighbours = 512;
// Random configs weighed against each other for each point of the initial design.
constexpr int kDesignDraws = 16;
// In log time: the model is never quite sure, so expected improvement never
// vanishes where it predicts a gain.
constexpr double kMinSpread = 1e-3;
// A knob value seen this often without ever running is taken as refused
// outright (an unsupported implementation, a format the op cannot take).
constexpr uint32_t kCondemned = 8;
// Far below any expected improvement worth having.
constexpr double kTieBreak = 1e-9;

SurrogateParameters resolve(SurrogateParameters p, uint64_t budget) {
  if (p.initial == 0) p.initial = static_cast<size_t>(std::clamp<uint64_t>(budget / 40, 4, 12));
  p.trees = std::max<size_t>(p.trees, 1);
  p.max_samples = std::max<size_t>(p.max_samples, 16);
  p.diversity = std::max(p.diversity, 1e-6);
  return p;
}

// A time that is not a positive number is no time to learn from.
bool timed(const sdk::Measurement& m) { return m.ok() && std::isfinite(m.time_us) && m.time_us > 0; }

// Keeps `keep` of `rows`: the first `head` as they are, a random choice of the others.
template <class T>
void thin(std::vector<T>& rows, size_t keep, size_t head, ga::Draw& draw) {
  if (rows.size() <= keep) return;
  for (size_t i = head; i < keep; ++i) std::swap(rows[i], rows[i + draw.below(rows.size() - i)]);
  rows.resize(keep);
}

}  // namespace

SurrogateSearcher::SurrogateSearcher(const sdk::CreateArgs& args) {
  auto& p = requested_;
  common::read_hyperparameters("surrogate", args.options,
                               {{"initial", &p.initial, 0, 1 << 16},
                                {"trees", &p.trees, 1, 1024},
                                {"split_features", &p.split_features, 0, 1024},
                                {"min_split", &p.min_split, 2, 1 << 16},
                                {"refit_growth", &p.refit_growth, 0, 100},
                                {"max_samples", &p.max_samples, 1, 1 << 20},
                                {"random_candidates", &p.random_candidates, 1, 1 << 20},
                                {"parents", &p.parents, 1, 1 << 12},
                                {"mutants", &p.mutants, 0, 1 << 12},
                                {"explore", &p.explore, 0, 1},
                                {"diversity", &p.diversity, 0, 1}});
}

void SurrogateSearcher::start(const sdk::TuningSpace& space, const sdk::SearchOptions& options) {
  p_ = resolve(requested_, options.budget);
  space_ = common::SpaceCoding(space);
  ledger_.reset(options.budget, space_.size(), space_.countable());
  neighbours_ = common::Neighbourhood(space_, kPairMoves, kJumps);
  features_ = surrogate::KnobFeatures(space_);
  draw_.seed(options.seed);
  default_ = space_.empty() ? std::nullopt : space_.encode(space.default_config);
  common::ExplorationParameters exploring;
  exploring.floor = p_.explore;
  exploration_ = common::Exploration(exploring, options.budget);
  std::vector<uint32_t> sizes;
  std::vector<bool> ordered;
  for (size_t k = 0; k < space_.knobs(); ++k) sizes.push_back(space_.size(k)), ordered.push_back(space_.ordered(k));
  novelty_ = common::ValueNovelty(sizes, ordered);
  time_model_ = surrogate::ExtraTrees();
  validity_model_ = surrogate::ExtraTrees();
  results_ = fitted_on_ = timed_ = 0;
  unfitted_.clear();
  outstanding_.clear();
  design_.clear();
  elites_.clear();
  values_.assign(space_.knobs(), {});
  for (size_t k = 0; k < space_.knobs(); ++k) values_[k].resize(space_.size(k));
  pool_.clear();
  scored_ = 0;
  pooled_.clear();
  expanded_.clear();
}

std::vector<sdk::Config> SurrogateSearcher::propose(size_t max_count) {
  std::vector<sdk::Config> out;
  if (space_.empty()) return out;
  while (out.size() < max_count && ledger_.room() > 0) {
    std::optional<Genome> g;
    if (default_ && !ledger_.seen(*default_))
      g = default_;
    else if (designing())
      g = design_point();
    else
      break;
    if (!g) return out;  // every config has been proposed
    design_.push_back(*g);
    issue(*g, out);
  }
  if (out.size() < max_count && ledger_.room() > 0 && !designing())
    model_batch(static_cast<size_t>(std::min<uint64_t>(max_count - out.size(), ledger_.room())), out);
  return out;
}

void SurrogateSearcher::observe(const sdk::Config& config, const sdk::Measurement& result) {
  const auto g = ledger_.record(space_, config, result);
  if (!g) return;  // outside the space, or told twice: the first result stands
  outstanding_.erase(*g);
  unfitted_.push_back(*g);
  ++results_;
  if (result.status != sdk::ResultStatus::invalid) {
    exploration_.record(timed(result) ? result.time_us : std::numeric_limits<double>::infinity());
  }
  novelty_.record(*g, result.status == sdk::ResultStatus::invalid);
  for (size_t k = 0; k < g->size(); ++k) {
    ValueCount& v = values_[k][(*g)[k]];
    ++v.seen;
    v.ran += result.ok();
  }
  if (timed(result)) {
    ++timed_;
    remember(*g, result.time_us);
  }
}

// The trees see a knob value that never runs only when they happen to split
// on it; this says it outright: each such value the config holds divides its
// chance of running by how often the value was tried.
double SurrogateSearcher::never_ran(const Genome& g) const {
  double factor = 1;
  for (size_t k = 0; k < g.size(); ++k) {
    const ValueCount& v = values_[k][g[k]];
    if (v.ran == 0 && v.seen >= kCondemned) factor /= v.seen + 2.0;
  }
  return factor;
}

// Until enough has been measured, and two times at least, a model would only echo its prior.
bool SurrogateSearcher::designing() const { return ledger_.measured() + ledger_.pending() < p_.initial || timed_ < 2; }

// Of a few random configs not yet seen, the one farthest from the design so far.
std::optional<SurrogateSearcher::Genome> SurrogateSearcher::design_point() {
  std::optional<Genome> best;
  double farthest = -1;
  for (int i = 0; i < kDesignDraws; ++i) {
    auto g = ledger_.random_unseen(space_, draw_);
    if (!g) break;
    double nearest = std::numeric_limits<double>::infinity();
    for (const Genome& d : design_) {
      nearest = std::min(nearest, distance(*g, d, nearest));
      if (nearest <= farthest) break;  // it cannot win
    }
    if (nearest > farthest) {
      farthest = nearest;
      best = std::move(g);
    }
  }
  return best;
}

// The pool's best by expected improvement times the chance of running, each
// pick discouraging candidates near it, near results still out and near
// results the models have not learnt yet, so a batch does not spend itself
// on one spot. A penalty only lowers a score, so candidates are weighed in
// order of their own score and the search for a pick stops at the first that
// could not beat it: penalties are worked out for a few candidates only.
void SurrogateSearcher::model_batch(size_t count, std::vector<sdk::Config>& out) {
  if (refit_due()) {
    fit();
    refill_pool();
  } else {
    add_neighbours_of_elites();
  }
  const double best = std::log(elites_.front().time_us);
  const size_t n = pool_.size();
  std::vector<double> score(n);
  std::vector<bool> taken(n);
  for (size_t i = 0; i < n; ++i) {
    const Candidate& c = pool_[i];
    taken[i] = ledger_.seen(c.genome);
    // Where the models expect no gain anywhere, the fastest predicted config
    // that should run still comes first, not whichever was drawn first.
    const double tie_break = kTieBreak * std::exp(std::min(best - c.mean, 0.0));
    score[i] = (surrogate::expected_improvement(best, c.mean, std::max(c.spread, kMinSpread)) + tie_break) * c.runs *
               never_ran(c.genome);
  }
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return score[a] > score[b]; });

  std::vector<const Genome*> centres;
  for (const Genome& g : outstanding_) centres.push_back(&g);
  for (const Genome& g : unfitted_) centres.push_back(&g);
  // Past five times its reach a penalty is under 1%: left out.
  const double reach = 5 * p_.diversity;
  std::vector<double> penalty(n, 1.0);
  std::vector<size_t> applied(n, 0);  // centres folded into each penalty so far
  const auto discounted = [&](size_t i) {
    for (; applied[i] < centres.size(); ++applied[i]) {
      const double d = distance(pool_[i].genome, *centres[applied[i]], reach);
      if (d < reach) penalty[i] *= 1 - std::exp(-d / p_.diversity);
    }
    return score[i] * penalty[i];
  };

  for (size_t k = 0; k < count; ++k) {
    // Where the search has measured least, in the share the exploration gives.
    if (draw_.chance(exploration_.share())) {
      if (auto g = novelty_.unseen(draw_, [&](const Genome& x) { return ledger_.seen(x); })) {
        issue(*g, out);
        continue;
      }
    }
    size_t pick = n;
    double top = -1;
    for (size_t i : order) {
      if (taken[i] || ledger_.seen(pool_[i].genome)) continue;  // an exploring pick may have taken it
      if (score[i] <= top) break;
      const double value = discounted(i);
      if (value > top) {
        top = value;
        pick = i;
      }
    }
    if (pick == n) {  // the pool is spent: the space is nearly exhausted
      auto g = ledger_.random_unseen(space_, draw_);
      if (!g) return;
      issue(*g, out);
      continue;
    }
    taken[pick] = true;
    centres.push_back(&pool_[pick].genome);
    issue(pool_[pick].genome, out);
  }
}

// Every result while there are few, then once they have grown by a share:
// a fit costs time in proportion to what it learns from.
bool SurrogateSearcher::refit_due() const {
  if (!time_model_.fitted()) return true;
  const auto due = static_cast<uint64_t>(p_.refit_growth * static_cast<double>(fitted_on_));
  return results_ - fitted_on_ >= std::max<uint64_t>(1, due);
}

void SurrogateSearcher::fit() {
  fitted_on_ = results_;
  unfitted_.clear();
  struct Row {
    const Genome* genome;
    double target;
  };
  std::vector<Row> times, runs;
  for (const auto& [g, e] : ledger_.entries()) {
    if (e.outcome == common::Outcome::pending) continue;
    const bool ran = e.outcome == common::Outcome::ok && std::isfinite(e.time_us) && e.time_us > 0;
    runs.push_back({&g, ran ? 1.0 : 0.0});
    if (ran) times.push_back({&g, std::log(e.time_us)});
  }
  // Past the cap, the time model keeps the fastest half and a random share of
  // the rest, where the search is headed; the validity model a random share.
  std::stable_sort(times.begin(), times.end(), [](const Row& a, const Row& b) { return a.target < b.target; });
  thin(times, p_.max_samples, p_.max_samples / 2, draw_);
  thin(runs, p_.max_samples, 0, draw_);

  const size_t width = features_.width();
  surrogate::ForestParameters forest;
  forest.trees = p_.trees;
  forest.min_split = p_.min_split;
  forest.features_per_split =
      p_.split_features != 0
          ? p_.split_features
          : std::max<size_t>(2, static_cast<size_t>(std::ceil(std::sqrt(static_cast<double>(width)))));
  const auto fit_one = [&](const std::vector<Row>& rows, surrogate::ExtraTrees& model) {
    std::vector<float> x(rows.size() * width);
    std::vector<double> y(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      features_.encode(*rows[i].genome, x.data() + i * width);
      y[i] = rows[i].target;
    }
    model.fit(x, width, y, forest, draw_);
  };
  fit_one(times, time_model_);
  fit_one(runs, validity_model_);
}

// Random configs not yet seen, then the neighbours of the fastest configs.
void SurrogateSearcher::refill_pool() {
  pool_.clear();
  scored_ = 0;
  pooled_.clear();
  expanded_.clear();
  if (!ledger_.exhausted())
    for (size_t i = 0; i < p_.random_candidates; ++i) add_candidate(space_.random(draw_));
  add_neighbours_of_elites();
}

// Every step neighbour of each elite not yet expanded (a sample when there
// are very many), and a few farther mutants.
void SurrogateSearcher::add_neighbours_of_elites() {
  for (size_t e = 0; e < std::min(p_.parents, elites_.size()); ++e) {
    const Genome parent = elites_[e].genome;
    if (!expanded_.insert(parent).second) continue;
    auto steps = neighbours_.steps(parent);
    if (steps.size() <= kMaxStepNeighbours) {
      for (auto& n : steps) add_candidate(std::move(n));
    } else {
      for (size_t i = 0; i < kMaxStepNeighbours / 4; ++i) add_candidate(neighbours_.random(parent, draw_));
    }
    for (size_t i = 0; i < p_.mutants; ++i) {
      Genome g = parent;
      const uint64_t moves = 2 + draw_.below(2);
      for (uint64_t m = 0; m < moves; ++m) g = neighbours_.random(g, draw_);
      add_candidate(std::move(g));
    }
  }
  score_candidates();
}

void SurrogateSearcher::add_candidate(Genome g) {
  if (ledger_.seen(g) || !pooled_.insert(g).second) return;
  pool_.push_back({std::move(g)});
}

// The candidates added since the last call, all at once.
void SurrogateSearcher::score_candidates() {
  const size_t width = features_.width();
  const size_t n = pool_.size() - scored_;
  if (n == 0) return;
  std::vector<float> x(n * width);
  for (size_t i = 0; i < n; ++i) features_.encode(pool_[scored_ + i].genome, x.data() + i * width);
  const auto times = time_model_.predict(x.data(), n);
  const auto runs = validity_model_.predict(x.data(), n);
  for (size_t i = 0; i < n; ++i) {
    Candidate& c = pool_[scored_ + i];
    c.mean = times[i].mean;
    c.spread = times[i].spread;
    c.runs = runs[i].mean;
  }
  scored_ = pool_.size();
}

// Over ordered knobs, the share of the knob's range between the values; a
// differing categorical knob counts one. Stops counting past `limit`.
double SurrogateSearcher::distance(const Genome& a, const Genome& b, double limit) const {
  double d = 0;
  for (size_t k : space_.choice_knobs()) {
    if (a[k] == b[k]) continue;
    d += space_.ordered(k)
             ? std::abs(static_cast<double>(a[k]) - static_cast<double>(b[k])) / static_cast<double>(space_.size(k) - 1)
             : 1.0;
    if (d >= limit) break;
  }
  return d;
}

void SurrogateSearcher::issue(const Genome& g, std::vector<sdk::Config>& out) {
  ledger_.issue(g);
  outstanding_.insert(g);
  out.push_back(space_.decode(g));
}

void SurrogateSearcher::remember(const Genome& g, double time_us) {
  const auto at =
      std::upper_bound(elites_.begin(), elites_.end(), time_us, [](double t, const Elite& e) { return t < e.time_us; });
  if (static_cast<size_t>(at - elites_.begin()) >= p_.parents) return;
  elites_.insert(at, Elite{time_us, g});
  if (elites_.size() > p_.parents) elites_.pop_back();
}

}  // namespace aoe::search
