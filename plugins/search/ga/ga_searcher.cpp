#include "ga_searcher.h"

#include <algorithm>
#include <cmath>

#include "../common/hyperparameters.h"

namespace aoe::search {
namespace {

// Bounds the proposals of a space where almost everything is refused as
// invalid: those cost no budget, so the budget alone would not end the search.
constexpr uint64_t kProposalsPerBudget = 50;
// Random draws tried before walking the space for a config not yet seen.
constexpr int kRandomTries = 32;

uint64_t saturating_mul(uint64_t a, uint64_t b) {
  return b != 0 && a > std::numeric_limits<uint64_t>::max() / b ? std::numeric_limits<uint64_t>::max() : a * b;
}

GaParameters resolve(GaParameters p, uint64_t budget, size_t choice_knobs) {
  if (p.population == 0) p.population = static_cast<size_t>(std::clamp<uint64_t>(budget / 4, 8, 32));
  if (p.elites == 0) p.elites = std::clamp<size_t>(p.population / 8, 1, 4);
  p.elites = std::min(p.elites, p.population - 1);
  p.tournament = std::max<size_t>(p.tournament, 1);
  if (p.mutation <= 0) p.mutation = choice_knobs == 0 ? 0 : 1.0 / static_cast<double>(choice_knobs);
  return p;
}

}  // namespace

GaSearcher::GaSearcher(const sdk::CreateArgs& args) {
  auto& p = requested_;
  common::read_hyperparameters("ga", args.options,
                               {{"population", &p.population, 0, 1 << 16},
                                {"elites", &p.elites, 0, 1 << 16},
                                {"tournament", &p.tournament, 1, 1 << 16},
                                {"crossover", &p.crossover, 0, 1},
                                {"mutation", &p.mutation, 0, 1},
                                {"neighbour", &p.neighbour, 0, 1},
                                {"default_share", &p.default_share, 0, 1},
                                {"collision_retries", &p.collision_retries, 0, 1 << 16}});
}

void GaSearcher::start(const sdk::TuningSpace& space, const sdk::SearchOptions& options) {
  coding_ = common::SpaceCoding(space);
  shapes_.clear();
  for (size_t k = 0; k < coding_.knobs(); ++k) shapes_.push_back({coding_.size(k), coding_.ordered(k)});
  default_ = coding_.empty() ? std::nullopt : coding_.encode(space.default_config);

  budget_ = options.budget;
  max_proposals_ = saturating_mul(budget_, kProposalsPerBudget);
  proposed_ = measured_ = pending_ = 0;
  p_ = resolve(requested_, budget_, coding_.choice_knobs().size());

  draw_.seed(options.seed);
  memory_.reset(shapes_);
  variation_ = ga::Variation(shapes_, p_.mutation, p_.neighbour);
  exploration_ = common::Exploration({}, budget_);
  std::vector<uint32_t> sizes;
  std::vector<bool> ordered;
  for (const auto& shape : shapes_) sizes.push_back(shape.size), ordered.push_back(shape.ordered);
  novelty_ = common::ValueNovelty(sizes, ordered);
  design_.clear();
  if (default_) design_.push_back(*default_);
  records_.clear();
  outside_.clear();
  best_.reset();
  generation_ = 0;
  wanted_ = p_.population;
  live_ = waiting_ = founders_ = 0;
  population_.clear();
  fresh_.clear();
  repairs_.clear();
}

std::vector<sdk::Config> GaSearcher::propose(size_t max_count) {
  std::vector<sdk::Config> out;
  if (coding_.empty()) return out;
  while (out.size() < max_count && room() > 0) {
    if (generation_complete()) close_generation();
    // An empty answer ends the search, so the first config of a batch is
    // never held back waiting for results.
    auto c = next(out.empty());
    if (!c) break;
    issue(*c);
    out.push_back(coding_.decode(c->genome));
  }
  return out;
}

void GaSearcher::observe(const sdk::Config& config, const sdk::Measurement& result) {
  // A config the device refused before running it cost no measurement.
  const bool refused = result.status == sdk::ResultStatus::invalid;
  const auto encoded = coding_.encode(config);
  if (!encoded) {
    // A result for a config outside the space still spends the budget, once.
    if (outside_.insert(config).second && !refused) ++measured_;
    return;
  }
  const Genome& g = *encoded;
  auto [it, added] = records_.try_emplace(g);
  Record& r = it->second;
  if (!added && r.state != State::pending) return;  // told twice: the first result stands, charged once
  if (!refused) ++measured_;
  if (!added) settle(r, refused);
  memory_.record(g, refused);
  novelty_.record(g, refused);
  if (refused) {
    r.state = State::invalid;
    // Only our own bred children are repaired: a config measured elsewhere
    // or an immigrant has no parents to go back to.
    if (!added && !r.immigrant) {
      if (auto target = repair_target(r)) repairs_.push_back({g, std::move(*target)});
    }
    return;
  }
  r.state = State::measured;
  // Failures that got past the constraint check rank below every timed config.
  r.fitness = result.ok() ? result.time_us : std::numeric_limits<double>::infinity();
  exploration_.record(r.fitness);
  fresh_.push_back({g, r.fitness});
  if (result.ok() && (!best_ || r.fitness < best_->fitness)) best_ = Member{g, r.fitness};
}

// A proposal's result is in: it no longer holds budget nor its generation's attention.
void GaSearcher::settle(const Record& r, bool refused) {
  --pending_;
  if (r.generation != generation_) return;  // from a generation already closed
  --waiting_;
  if (refused) --live_;  // the generation needs another child in its place
}

uint64_t GaSearcher::room() const {
  const uint64_t used = measured_ + pending_;
  if (used >= budget_ || proposed_ >= max_proposals_) return 0;
  return std::min(budget_ - used, max_proposals_ - proposed_);
}

bool GaSearcher::generation_complete() const { return live_ >= wanted_ && waiting_ == 0 && repairs_.empty(); }

// Generational replacement with elitism: the best few parents stay, the
// children take the other places; parents fill places children could not.
void GaSearcher::close_generation() {
  const auto fitter = [](const Member& a, const Member& b) { return a.fitness < b.fitness; };
  const size_t keep = std::min(p_.elites, population_.size());
  std::vector<Member> next(population_.begin(), population_.begin() + static_cast<std::ptrdiff_t>(keep));
  next.insert(next.end(), fresh_.begin(), fresh_.end());
  std::stable_sort(next.begin(), next.end(), fitter);
  if (next.size() > p_.population) next.resize(p_.population);
  for (size_t i = keep; i < population_.size() && next.size() < p_.population; ++i) next.push_back(population_[i]);
  std::stable_sort(next.begin(), next.end(), fitter);
  population_ = std::move(next);
  fresh_.clear();
  ++generation_;
  wanted_ = p_.population - std::min(p_.elites, population_.size());
  live_ = waiting_ = 0;
}

std::optional<GaSearcher::Candidate> GaSearcher::next(bool must) {
  while (!repairs_.empty()) {
    const Repair job = std::move(repairs_.front());
    repairs_.pop_front();
    if (auto c = repaired(job)) return c;
  }
  if (live_ >= wanted_) {
    if (!must) return std::nullopt;  // let the results of this generation come in first
    // Asked again before telling everything: breed from what is known so far.
    close_generation();
  }
  return generation_ == 0 ? founder() : breed();
}

// The first population: the default config, mutants of it (a tuned tiling
// is usually a few knobs away from the device's own), then random configs.
std::optional<GaSearcher::Candidate> GaSearcher::founder() {
  const size_t k = founders_++;
  const auto mutants = static_cast<size_t>(std::lround(p_.default_share * static_cast<double>(p_.population)));
  if (!default_ || k > mutants) return immigrant();
  if (k == 0 && !seen(*default_)) return Candidate{*default_, {}};
  Genome g = *default_;
  variation_.mutate_one(g, memory_, draw_);
  variation_.mutate(g, memory_, draw_);
  return unseen(std::move(g), {*default_});
}

// Children, and random immigrants in the share the exploration gives: few
// while the population improves, up to half once it has stalled.
std::optional<GaSearcher::Candidate> GaSearcher::breed() {
  if (population_.empty()) return any_unseen();
  if (draw_.chance(exploration_.share())) return immigrant();
  const Member& a = tournament();
  const Member* b = &tournament();
  for (int i = 0; i < 2 && b == &a && population_.size() > 1; ++i) b = &tournament();
  Genome child = draw_.chance(p_.crossover) ? variation_.crossover(a.genome, b->genome, draw_) : a.genome;
  variation_.mutate(child, memory_, draw_);
  return unseen(std::move(child), {a.genome, b->genome});
}

// A child already proposed is mutated again, then given up for a random config.
std::optional<GaSearcher::Candidate> GaSearcher::unseen(Genome child, std::vector<Genome> guides) {
  for (size_t i = 0; i < p_.collision_retries && seen(child); ++i) variation_.mutate_one(child, memory_, draw_);
  if (!seen(child)) return Candidate{std::move(child), std::move(guides)};
  return any_unseen();
}

std::optional<GaSearcher::Candidate> GaSearcher::any_unseen() {
  auto g = random_unseen();
  if (!g) return std::nullopt;
  return Candidate{std::move(*g), {}};
}

// Uniform, as random search draws, rather than steered by the constraint memory.
// The first population's are spread out over the space.
std::optional<GaSearcher::Candidate> GaSearcher::immigrant() {
  const auto unseen = [&](const Genome& x) { return seen(x); };
  auto g = generation_ == 0 ? novelty_.spread(draw_, unseen, design_) : novelty_.unseen(draw_, unseen);
  if (!g) g = random_unseen(true);
  if (g && generation_ == 0) design_.push_back(*g);
  if (!g) return std::nullopt;
  return Candidate{std::move(*g), {}, true};
}

std::optional<GaSearcher::Genome> GaSearcher::random_unseen(bool uniform) {
  if (exhausted()) return std::nullopt;
  // Past 2^63 configs the records can never fill the space: drawing always ends.
  for (int i = 0; i < kRandomTries || !coding_.countable(); ++i) {
    Genome g = uniform ? coding_.random(draw_) : variation_.random(memory_, draw_);
    if (!seen(g)) return g;
  }
  // A nearly exhausted space: walk it from a random place.
  const uint64_t start = draw_.below(coding_.size());
  for (uint64_t i = 0; i < coding_.size(); ++i) {
    Genome g = coding_.at((start + i) % coding_.size());
    if (!seen(g)) return g;
  }
  return std::nullopt;
}

// One knob at a time toward the target, the knob whose value has been
// refused most often first, until a config not yet tried appears.
std::optional<GaSearcher::Candidate> GaSearcher::repaired(const Repair& job) {
  Genome g = job.from;
  for (;;) {
    std::vector<size_t> differing;
    for (size_t k = 0; k < g.size(); ++k)
      if (g[k] != job.target[k]) differing.push_back(k);
    if (differing.size() <= 1) return std::nullopt;  // one more move gives the target, measured already
    double worst = -1;
    std::vector<size_t> suspects;
    for (size_t k : differing) {
      const double rate = memory_.invalid_rate(k, g[k]);
      if (rate > worst) suspects.clear(), worst = rate;
      if (rate == worst) suspects.push_back(k);
    }
    const size_t k = suspects[draw_.below(suspects.size())];
    g[k] = job.target[k];
    if (!seen(g)) return Candidate{std::move(g), {job.target}};
  }
}

// The fitter measured parent, else the best config measured so far.
std::optional<GaSearcher::Genome> GaSearcher::repair_target(const Record& r) const {
  const Genome* target = nullptr;
  double fitness = std::numeric_limits<double>::infinity();
  for (const auto& guide : r.guides) {
    const auto it = records_.find(guide);
    if (it != records_.end() && it->second.state == State::measured && it->second.fitness < fitness) {
      target = &guide;
      fitness = it->second.fitness;
    }
  }
  if (target) return *target;
  if (best_) return best_->genome;
  return std::nullopt;
}

// The population is sorted fittest first, so the lowest index drawn wins.
const GaSearcher::Member& GaSearcher::tournament() {
  uint64_t winner = draw_.below(population_.size());
  for (size_t i = 1; i < p_.tournament; ++i) winner = std::min(winner, draw_.below(population_.size()));
  return population_[winner];
}

void GaSearcher::issue(const Candidate& c) {
  Record& r = records_[c.genome];
  r.generation = generation_;
  r.guides = c.guides;
  r.immigrant = c.immigrant;
  ++proposed_;
  ++pending_;
  ++live_;
  ++waiting_;
}

}  // namespace aoe::search
