#include "ensemble_searcher.h"

#include <algorithm>
#include <cmath>

#include "../common/hyperparameters.h"
#include "ga_searcher.h"
#include "random_searcher.h"
#include "sa_searcher.h"
#include "surrogate_searcher.h"

namespace aoe::search {
namespace {

// Each member's seed, apart from the others' and from the ensemble's own draws.
uint64_t member_seed(uint64_t seed, size_t member) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ull * (member + 1);  // splitmix64
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

bool timed(const sdk::Measurement& m) { return m.ok() && std::isfinite(m.time_us) && m.time_us > 0; }

}  // namespace

std::vector<EnsembleSearcher::Member> EnsembleSearcher::default_members() {
  return {
      {"surrogate", [] { return std::make_unique<SurrogateSearcher>(); }},
      {"sa", [] { return std::make_unique<SaSearcher>(); }},
      {"ga", [] { return std::make_unique<GaSearcher>(); }},
      {"random", [] { return std::make_unique<RandomSearcher>(); }},
  };
}

EnsembleSearcher::EnsembleSearcher(std::vector<Member> members, EnsembleParameters parameters)
    : members_(std::move(members)), p_(parameters) {}

EnsembleSearcher::EnsembleSearcher(const sdk::CreateArgs& args) : EnsembleSearcher(default_members()) {
  common::read_hyperparameters("ensemble", args.options,
                               {{"exploration", &p_.exploration, 0, 100},
                                {"window", &p_.window, 1, 1 << 20},
                                {"retries", &p_.retries, 0, 1 << 10}});
}

void EnsembleSearcher::start(const sdk::TuningSpace& space, const sdk::SearchOptions& options) {
  space_ = common::SpaceCoding(space);
  ledger_.reset(options.budget, space_.size(), space_.countable());
  draw_.seed(options.seed);
  default_ = space_.empty() ? std::nullopt : space_.encode(space.default_config);
  arms_.clear();
  for (size_t i = 0; i < members_.size(); ++i) {
    Arm arm;
    arm.searcher = members_[i].make();
    // Each member gets the whole budget: it counts every result as this
    // search does, so it never runs out before the ensemble does.
    arm.searcher->start(space, {member_seed(options.seed, i), options.budget});
    arms_.push_back(std::move(arm));
  }
  bandit_ = ensemble::AucBandit(arms_.size(), p_.window, p_.exploration);
  owners_.clear();
  best_us_ = std::numeric_limits<double>::infinity();
}

std::vector<sdk::Config> EnsembleSearcher::propose(size_t max_count) {
  std::vector<sdk::Config> out;
  if (space_.empty()) return out;
  const size_t want = static_cast<size_t>(std::min<uint64_t>(max_count, ledger_.room()));
  // The device's own config first, whichever member would have proposed it.
  if (want > 0 && default_ && !ledger_.seen(*default_)) issue(*default_, kNoMember, out);

  std::vector<bool> available(arms_.size());
  for (size_t i = 0; i < arms_.size(); ++i) available[i] = !arms_[i].done;
  // A member that gives fewer than it was asked for is not asked again in
  // this call (a GA holds back the rest of a generation until its results
  // are in); its slots go to the others.
  while (out.size() < want) {
    const auto slots = plan(want - out.size(), available);
    if (slots.empty()) break;
    for (const auto& [arm, count] : slots)
      if (ask(arm, count, out) < count) available[arm] = false;
  }

  // Members that are done, or that only repeat what is out already, do not end the search.
  const bool all_done = std::all_of(arms_.begin(), arms_.end(), [](const Arm& a) { return a.done; });
  while (out.size() < want && (all_done || out.empty())) {
    auto g = ledger_.random_unseen(space_, draw_);
    if (!g) break;
    issue(*g, kNoMember, out);
  }
  return out;
}

void EnsembleSearcher::observe(const sdk::Config& config, const sdk::Measurement& result) {
  for (Arm& arm : arms_) arm.searcher->observe(config, result);
  const auto g = ledger_.record(space_, config, result);
  if (!g) return;  // outside the space, or told twice: the first result stands
  const size_t owner = common::take_proposer(owners_, *g, kNoMember);
  const bool new_best = timed(result) && result.time_us < best_us_;
  if (new_best) best_us_ = result.time_us;
  // A refused config cost no measurement: it is no use of the member.
  if (owner == kNoMember || result.status == sdk::ResultStatus::invalid) return;
  ++arms_[owner].measured;
  bandit_.record(owner, new_best);
}

std::vector<std::pair<std::string, uint64_t>> EnsembleSearcher::shares() const {
  std::vector<std::pair<std::string, uint64_t>> out;
  for (size_t i = 0; i < arms_.size(); ++i) out.emplace_back(members_[i].name, arms_[i].measured);
  return out;
}

// The member with the best bandit score; ties, such as members not yet
// used, are broken at random.
std::optional<size_t> EnsembleSearcher::choose(const ensemble::AucBandit& bandit, const std::vector<bool>& available) {
  std::vector<size_t> best;
  double top = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < arms_.size(); ++i) {
    if (!available[i]) continue;
    const double score = bandit.score(i);
    if (score > top) best.clear(), top = score;
    if (score == top) best.push_back(i);
  }
  if (best.empty()) return std::nullopt;
  return best[draw_.below(best.size())];
}

// Slots shared out one at a time, each counted as a use without a new best
// until its result is in, so one batch may go to several members. Results
// still out count the same way. Members in the order first chosen.
std::vector<std::pair<size_t, size_t>> EnsembleSearcher::plan(size_t slots, const std::vector<bool>& available) {
  ensemble::AucBandit provisional = bandit_;
  for (const auto& [g, owner] : owners_)
    if (owner != kNoMember) provisional.record(owner, false);
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t s = 0; s < slots; ++s) {
    const auto arm = choose(provisional, available);
    if (!arm) break;
    provisional.record(*arm, false);
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& entry) { return entry.first == *arm; });
    if (it == out.end())
      out.emplace_back(*arm, 1);
    else
      ++it->second;
  }
  return out;
}

// Up to `count` new configs from the member, asking again while all it gives
// is already out; returns how many were taken.
size_t EnsembleSearcher::ask(size_t arm, size_t count, std::vector<sdk::Config>& out) {
  Arm& a = arms_[arm];
  size_t taken = 0;
  for (size_t attempt = 0; attempt <= p_.retries && taken < count; ++attempt) {
    const size_t asked = count - taken;
    const auto configs = a.searcher->propose(asked);
    if (configs.empty()) {
      a.done = true;
      break;
    }
    size_t fresh = 0;
    for (const auto& c : configs) {
      const auto g = space_.encode(c);
      if (!g || ledger_.seen(*g)) continue;
      issue(*g, arm, out);
      ++fresh;
    }
    taken += fresh;
    if (configs.size() < asked) break;  // it holds the rest back: do not press it
  }
  // As OpenTuner does, a member that gave nothing usable is charged a use without a new best.
  if (taken == 0 && !a.done) bandit_.record(arm, false);
  return taken;
}

void EnsembleSearcher::issue(const Genome& g, size_t owner, std::vector<sdk::Config>& out) {
  ledger_.issue(g);
  if (owner != kNoMember) owners_[g] = owner;
  out.push_back(space_.decode(g));
}

}  // namespace aoe::search
