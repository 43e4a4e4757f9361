#include "sa_searcher.h"

#include <algorithm>
#include <cmath>

#include "../common/hyperparameters.h"

namespace aoe::search {
namespace {

// Every this many restarts, one starts from a random config that ran rather
// than from the fastest configs: a random config that landed in another
// basin is seldom faster than the best of the basin the chains work, though
// that basin's floor may lie far below their best.
constexpr uint64_t kLandingEvery = 4;

SaParameters resolve(SaParameters p, uint64_t budget) {
  if (p.chains == 0) p.chains = static_cast<size_t>(std::clamp<uint64_t>(budget / 64, 1, 8));
  if (p.patience == 0) p.patience = static_cast<size_t>(std::max<uint64_t>(4, budget / (16 * p.chains)));
  p.elites = std::max<size_t>(p.elites, 1);
  return p;
}

// A time that is not a positive number did not run as far as annealing is concerned.
double log_time_of(const sdk::Measurement& m) {
  if (!m.ok() || !std::isfinite(m.time_us) || m.time_us <= 0) return std::numeric_limits<double>::infinity();
  return std::log(m.time_us);
}

}  // namespace

SaSearcher::SaSearcher(const sdk::CreateArgs& args) {
  auto& p = requested_;
  common::read_hyperparameters("sa", args.options,
                               {{"chains", &p.chains, 0, 1 << 12},
                                {"initial_acceptance", &p.initial_acceptance, 1e-6, 1 - 1e-6},
                                {"final_ratio", &p.final_ratio, 1e-9, 1},
                                {"pair_moves", &p.pair_moves, 0, 1},
                                {"jumps", &p.jumps, 0, 1},
                                {"patience", &p.patience, 0, 1 << 20},
                                {"elites", &p.elites, 1, 1 << 12}});
}

void SaSearcher::start(const sdk::TuningSpace& space, const sdk::SearchOptions& options) {
  p_ = resolve(requested_, options.budget);
  space_ = common::SpaceCoding(space);
  ledger_.reset(options.budget, space_.size(), space_.countable());
  neighbours_ = common::Neighbourhood(space_, p_.pair_moves, p_.jumps);
  schedule_ = sa::AnnealingSchedule(p_.initial_acceptance, p_.final_ratio);
  exploration_ = common::Exploration({}, options.budget);
  std::vector<uint32_t> sizes;
  std::vector<bool> ordered;
  for (size_t k = 0; k < space_.knobs(); ++k) sizes.push_back(space_.size(k)), ordered.push_back(space_.ordered(k));
  novelty_ = common::ValueNovelty(sizes, ordered);
  // The design spreads its random configs from one another, not from the
  // default: the chains start from the default's neighbourhood anyway.
  design_.clear();
  draw_.seed(options.seed);
  default_ = space_.empty() ? std::nullopt : space_.encode(space.default_config);
  chains_.assign(p_.chains, Chain{});
  cursor_ = 0;
  origins_.clear();
  elites_.clear();
  landings_.clear();
  restarts_ = 0;
}

std::vector<sdk::Config> SaSearcher::propose(size_t max_count) {
  std::vector<sdk::Config> out;
  if (space_.empty()) return out;
  // The first batch is the default and a random design: chains start from its best.
  if (ledger_.proposed() == 0 && max_count > 1) exploration_.widen_design(max_count - 1);
  while (out.size() < max_count && ledger_.room() > 0) {
    auto next_one = next();
    if (!next_one) break;
    ledger_.issue(next_one->genome);
    if (next_one->chain != kNoChain) origins_[next_one->genome] = next_one->chain;
    out.push_back(space_.decode(next_one->genome));
  }
  return out;
}

void SaSearcher::observe(const sdk::Config& config, const sdk::Measurement& result) {
  const auto g = ledger_.record(space_, config, result);
  if (!g) return;  // outside the space, or told twice: the first result stands
  const size_t origin = common::take_proposer(origins_, *g, kNoChain);
  const double log_time = log_time_of(result);
  if (std::isfinite(log_time)) remember(*g, result.time_us);
  const bool refused = result.status == sdk::ResultStatus::invalid;
  const bool new_best = !refused && exploration_.record(std::isfinite(log_time) ? result.time_us : kUnknown);
  novelty_.record(*g, refused);
  // A chain placed on a config before its result came in learns it now.
  for (Chain& c : chains_) {
    if (!c.placed || c.known || c.current != *g) continue;
    c.known = true;
    c.log_time = log_time;
    c.best = std::min(c.best, log_time);
  }
  // A refused move cost nothing and tells the chain nothing of speed: it stays.
  if (origin != kNoChain && !refused) step(chains_[origin], *g, result);
  // A random draw, or a result from elsewhere, that beats everything: a chain goes there.
  if (origin == kNoChain && new_best) move_stalest_chain_to(*g);
  else if (origin == kNoChain && std::isfinite(log_time)) remember_landing(*g, result.time_us);
}

// A design point spread out from the others, or a draw where the search has measured least.
std::optional<SaSearcher::Genome> SaSearcher::explore(bool designing) {
  const auto seen = [&](const Genome& x) { return ledger_.seen(x); };
  auto g = designing ? novelty_.spread(draw_, seen, design_) : novelty_.unseen(draw_, seen);
  if (!g) g = ledger_.random_unseen(space_, draw_);
  if (g && designing) design_.push_back(*g);
  return g;
}

void SaSearcher::move_stalest_chain_to(const Genome& g) {
  Chain* stalest = nullptr;
  for (Chain& c : chains_)
    if (c.placed && (!stalest || c.stale > stalest->stale)) stalest = &c;
  if (stalest) place(*stalest, g);
}

// Metropolis: a faster neighbour is taken, a slower one with probability
// exp(-rise / T), the rise measured in log time.
void SaSearcher::step(Chain& chain, const Genome& g, const sdk::Measurement& result) {
  const double log_time = log_time_of(result);
  if (!std::isfinite(log_time)) {
    ++chain.stale;
    return;
  }
  bool accept = true;
  if (chain.known && std::isfinite(chain.log_time)) {
    const double rise = log_time - chain.log_time;
    if (rise > 0) {
      schedule_.record_rise(rise);
      accept = draw_.unit() < std::exp(-rise / schedule_.temperature(progress()));
    }
  }
  if (accept) {
    chain.current = g;
    chain.known = true;
    chain.log_time = log_time;
  }
  if (log_time < chain.best) {
    chain.best = log_time;
    chain.stale = 0;
  } else {
    ++chain.stale;
  }
}

std::optional<SaSearcher::Proposal> SaSearcher::next() {
  if (default_ && !ledger_.seen(*default_)) return Proposal{*default_, kNoChain};
  // A few random configs first, then a share that grows while the chains stall.
  const bool designing = !exploration_.designed();
  if (exploration_.random_next(draw_))
    if (auto g = explore(designing)) return Proposal{*g, kNoChain};
  // Each chain in turn; one whose neighbourhood is used up moves elsewhere.
  for (size_t tries = 0; tries < 2 * chains_.size(); ++tries) {
    const size_t i = cursor_++ % chains_.size();
    Chain& c = chains_[i];
    if (!c.placed || c.stale >= p_.patience) {
      if (auto fresh = restart(c)) return Proposal{*fresh, kNoChain};
    }
    if (!c.placed) continue;
    if (auto g = neighbours_.unseen(c.current, ledger_, draw_)) return Proposal{*g, i};
    if (auto fresh = restart(c)) return Proposal{*fresh, kNoChain};
    if (auto g = neighbours_.unseen(c.current, ledger_, draw_)) return Proposal{*g, i};
  }
  if (auto g = ledger_.random_unseen(space_, draw_)) return Proposal{*g, kNoChain};
  return std::nullopt;
}

// A chain goes back to the fastest config that still has unexplored
// neighbours (not the one it is stuck on), or every `kLandingEvery`-th
// restart to the fastest random config that ran and has not been a start;
// with none, to the default on its first placement, else to a config not
// seen yet, which is returned for proposal.
std::optional<SaSearcher::Genome> SaSearcher::restart(Chain& chain) {
  const bool first = !chain.placed;
  if (!first && ++restarts_ % kLandingEvery == 0) {
    while (!landings_.empty()) {
      const Genome g = landings_.front().genome;
      landings_.erase(landings_.begin());
      if (neighbours_.used_up(g, ledger_)) continue;
      place(chain, g);
      return std::nullopt;
    }
  }
  for (const Elite& e : elites_) {
    if (!first && e.genome == chain.current) continue;
    if (neighbours_.used_up(e.genome, ledger_)) continue;
    place(chain, e.genome);
    return std::nullopt;
  }
  if (first && default_) {
    place(chain, *default_);
    return std::nullopt;
  }
  auto g = ledger_.random_unseen(space_, draw_);
  if (g) place(chain, *g);
  return g;
}

void SaSearcher::place(Chain& chain, const Genome& g) {
  const common::Entry* e = ledger_.find(g);
  chain.placed = true;
  chain.current = g;
  chain.known = e && e->outcome != common::Outcome::pending;
  chain.log_time = e && e->outcome == common::Outcome::ok ? std::log(e->time_us) : kUnknown;
  chain.best = chain.log_time;
  chain.stale = 0;
}

// A tie ranks ahead of the equal configs found before it, so restarts walk
// across a plateau of equal times rather than circling its first few configs.
void SaSearcher::remember(const Genome& g, double time_us) {
  schedule_.record_time(std::log(time_us));
  const auto at =
      std::lower_bound(elites_.begin(), elites_.end(), time_us, [](const Elite& e, double t) { return e.time_us < t; });
  if (static_cast<size_t>(at - elites_.begin()) >= p_.elites) return;
  elites_.insert(at, Elite{time_us, g});
  if (elites_.size() > p_.elites) elites_.pop_back();
}

void SaSearcher::remember_landing(const Genome& g, double time_us) {
  const auto at = std::upper_bound(landings_.begin(), landings_.end(), time_us,
                                   [](double t, const Elite& e) { return t < e.time_us; });
  if (static_cast<size_t>(at - landings_.begin()) >= p_.elites) return;
  landings_.insert(at, Elite{time_us, g});
  if (landings_.size() > p_.elites) landings_.pop_back();
}

double SaSearcher::progress() const {
  const uint64_t budget = ledger_.budget();
  return budget == 0 ? 1.0 : static_cast<double>(ledger_.measured()) / static_cast<double>(budget);
}

}  // namespace aoe::search
