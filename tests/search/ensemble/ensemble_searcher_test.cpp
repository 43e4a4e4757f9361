// The ensemble: the rules every searcher follows, the bandit's credit, the
// budget shared by results, and better than uniform random search on
// synthetic tiling costs.
#include "ensemble_searcher.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <set>
#include <string>

#include "auc_bandit.h"
#include "sa_searcher.h"
#include "searcher_rules.h"
#include "surrogate_searcher.h"
#include "synthetic_tuning.h"

namespace aoe::search::testing {

AOE_SEARCHER_RULES(Ensemble, EnsembleSearcher, "ensemble");

namespace {

std::unique_ptr<sdk::Searcher> make_ensemble() { return std::make_unique<EnsembleSearcher>(); }

// Adds up, over the runs of a contest, each member's share of the measurements.
struct Shares {
  std::vector<std::pair<std::string, double>> total;
  int runs = 0;
  void add(const sdk::Searcher& s) {
    const auto shares = dynamic_cast<const EnsembleSearcher&>(s).shares();
    double all = 0;
    for (const auto& [name, n] : shares) all += static_cast<double>(n);
    if (total.empty())
      for (const auto& [name, n] : shares) total.emplace_back(name, 0.0);
    for (size_t i = 0; i < shares.size(); ++i) total[i].second += static_cast<double>(shares[i].second) / all;
    ++runs;
  }
  void print() const {
    std::printf("          members' shares of the measurements:");
    for (const auto& [name, share] : total) std::printf(" %s %.0f%%", name.c_str(), 100 * share / runs);
    std::printf("\n");
  }
};

TEST(EnsembleSearcher, BeatsRandomSearchOnAConstrainedEdge) {
  for (uint64_t budget : kContestBudgets) {
    Shares shares;
    const Standing f = contest("ensemble", "edge", constrained(edge_cost), budget, make_ensemble,
                               [&](const sdk::Searcher& s) { shares.add(s); });
    shares.print();
    EXPECT_LT(f.mean, f.random_mean);
  }
}

TEST(EnsembleSearcher, BeatsRandomSearchOnARuggedCost) {
  for (uint64_t budget : kContestBudgets) {
    Shares shares;
    const Standing f = contest("ensemble", "rugged", constrained(rugged_cost), budget, make_ensemble,
                               [&](const sdk::Searcher& s) { shares.add(s); });
    shares.print();
    EXPECT_LT(f.mean, f.random_mean);
  }
}

// --- The bandit ---------------------------------------------------------------

TEST(AucBandit, TriesEveryArmFirst) {
  ensemble::AucBandit bandit(3, 500, 0.05);
  bandit.record(0, true);
  bandit.record(1, false);
  EXPECT_TRUE(std::isinf(bandit.score(2)));
  EXPECT_FALSE(std::isinf(bandit.score(0)));
  EXPECT_GT(bandit.score(0), bandit.score(1));
}

TEST(AucBandit, CreditsRecentNewBestsMore) {
  ensemble::AucBandit bandit(2, 500, 0.05);
  for (bool best : {true, false, false, false}) bandit.record(0, best);
  for (bool best : {false, false, false, true}) bandit.record(1, best);
  EXPECT_DOUBLE_EQ(bandit.exploitation(0), 1 * 2.0 / (4 * 5));
  EXPECT_DOUBLE_EQ(bandit.exploitation(1), 4 * 2.0 / (4 * 5));
  EXPECT_GT(bandit.score(1), bandit.score(0));
}

// The running sums match the credit worked out afresh from the window.
TEST(AucBandit, ForgetsUsesPastItsWindow) {
  constexpr size_t kWindow = 16;
  ensemble::AucBandit bandit(3, kWindow, 0.05);
  std::vector<std::pair<size_t, bool>> history;
  uint64_t state = 7;
  for (int i = 0; i < 200; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const size_t arm = (state >> 33) % 3;
    const bool best = ((state >> 40) % 4) == 0;
    bandit.record(arm, best);
    history.emplace_back(arm, best);
    if (history.size() > kWindow) history.erase(history.begin());
    for (size_t a = 0; a < 3; ++a) {
      double position = 0, sum = 0;
      for (const auto& [h, b] : history)
        if (h == a) sum += b ? ++position : (++position, 0.0);
      const double expected = position == 0 ? 0 : sum * 2 / (position * (position + 1));
      ASSERT_DOUBLE_EQ(bandit.exploitation(a), expected);
      ASSERT_EQ(bandit.uses(a), static_cast<uint64_t>(position));
    }
  }
}

// --- Sharing among members ----------------------------------------------------

// One knob of 1000 values; the time is the value, the default the slowest.
sdk::TuningSpace line_space() { return space_of({Knob::integer("x", KnobTag::schedule, 0, 999)}, {999}); }
Measurement line_cost(const Config& c) { return Measurement::timed(static_cast<double>(c[0] + 1)); }

// Proposes a fixed list of configs in turn, passing over those it has been
// told of, and counts the results it is told.
class Scripted final : public sdk::Searcher {
 public:
  Scripted(std::vector<Config> order, std::shared_ptr<uint64_t> told) : order_(std::move(order)), told_(told) {}
  void start(const sdk::TuningSpace&, const sdk::SearchOptions&) override {
    next_ = 0;
    known_.clear();
  }
  std::vector<Config> propose(size_t max_count) override {
    std::vector<Config> out;
    while (out.size() < max_count && next_ < order_.size()) {
      const Config& c = order_[next_++];
      if (!known_.count(c)) out.push_back(c);
    }
    return out;
  }
  void observe(const Config& c, const Measurement&) override {
    known_.insert(c);
    ++*told_;
  }

 private:
  std::vector<Config> order_;
  std::shared_ptr<uint64_t> told_;
  size_t next_ = 0;
  std::set<Config> known_;
};

std::vector<Config> line(int64_t from, int64_t step, int count) {
  std::vector<Config> out;
  for (int i = 0; i < count; ++i) out.push_back({from + step * i});
  return out;
}

EnsembleSearcher::Member scripted(const char* name, std::vector<Config> order, std::shared_ptr<uint64_t> told) {
  return {name, [order, told] { return std::make_unique<Scripted>(order, told); }};
}

TEST(EnsembleSearcher, GivesTheBudgetToTheMemberThatFindsNewBests) {
  // One member walks down from 499, each step a new best; the other up from 500, never one.
  auto told = std::make_shared<uint64_t>(0);
  EnsembleSearcher s({scripted("down", line(499, -1, 500), told), scripted("up", line(500, 1, 499), told)});
  s.start(line_space(), {1, 200});
  const SearchRun run = drain(s, 8, line_cost);
  EXPECT_EQ(run.measured, 200u);
  EXPECT_TRUE(unique(run.proposed));
  const auto shares = s.shares();
  std::printf("down %llu, up %llu\n", static_cast<unsigned long long>(shares[0].second),
              static_cast<unsigned long long>(shares[1].second));
  EXPECT_GT(shares[0].second, 4 * shares[1].second);
  EXPECT_GT(shares[1].second, 0u);  // explored, not starved outright
}

TEST(EnsembleSearcher, EveryMemberSeesEveryResult) {
  auto a = std::make_shared<uint64_t>(0), b = std::make_shared<uint64_t>(0);
  EnsembleSearcher s({scripted("a", line(0, 2, 500), a), scripted("b", line(1, 2, 499), b)});
  s.start(line_space(), {3, 100});
  const SearchRun run = drain(s, 8, line_cost);
  EXPECT_EQ(*a, run.proposed.size());
  EXPECT_EQ(*b, run.proposed.size());
}

TEST(EnsembleSearcher, NeverProposesWhatAnotherMemberProposed) {
  // Two members with the same list: each config goes out once.
  auto told = std::make_shared<uint64_t>(0);
  EnsembleSearcher s({scripted("a", line(0, 1, 999), told), scripted("b", line(0, 1, 999), told)});
  s.start(line_space(), {5, 300});
  const SearchRun run = drain(s, 8, line_cost);
  EXPECT_EQ(run.measured, 300u);
  EXPECT_TRUE(unique(run.proposed));
  EXPECT_GT(s.shares()[0].second, 0u);
  EXPECT_GT(s.shares()[1].second, 0u);
}

TEST(EnsembleSearcher, OutlivesItsMembers) {
  // A member with three configs to offer: the ensemble still spends its budget.
  auto told = std::make_shared<uint64_t>(0);
  EnsembleSearcher s({scripted("short", line(10, 1, 3), told)});
  s.start(line_space(), {2, 50});
  const SearchRun run = drain(s, 8, line_cost);
  EXPECT_EQ(run.measured, 50u);
  EXPECT_TRUE(unique(run.proposed));
  EXPECT_EQ(s.shares()[0].second, 3u);
}

}  // namespace
}  // namespace aoe::search::testing
