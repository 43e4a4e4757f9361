// The GA searcher: never repeating, bounded by a budget that refused configs
// do not spend, ending on small and hopeless spaces, seeded, and better than
// uniform random search on synthetic tiling costs.
#include "ga_searcher.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <set>

#include "plugin_library.h"
#include "aoe/sdk/searcher_client.h"
#include "constraint_memory.h"
#include "random_searcher.h"
#include "searcher_rules.h"

namespace aoe::search {
namespace {

using sdk::Config;
using sdk::Knob;
using sdk::KnobTag;
using sdk::Measurement;
using sdk::ResultStatus;
using Objective = std::function<Measurement(const Config&)>;

sdk::TuningSpace space_of(std::vector<Knob> knobs, Config default_config = {}) {
  sdk::TuningSpace s;
  s.knobs = std::move(knobs);
  s.default_config = std::move(default_config);
  return s;
}

// 32 x 5 x 5 x 2 = 1600 configs.
sdk::TuningSpace medium_space() {
  return space_of(
      {Knob::integer("block_dim", KnobTag::schedule, 1, 32), Knob::power_of_two("m_l0", KnobTag::schedule, 1, 16),
       Knob::power_of_two("n_l0", KnobTag::schedule, 1, 16), Knob::categorical("db", KnobTag::schedule, {"off", "on"})},
      {8, 4, 2, 1});
}

// Tiles past 64 elements do not fit; block_dim 13 hangs.
Measurement medium_cost(const Config& c) {
  if (c[1] * c[2] > 64) return Measurement::failed(ResultStatus::invalid, "does not fit");
  if (c[0] == 13) return Measurement::failed(ResultStatus::timeout, "hung");
  return Measurement::timed(1000.0 / static_cast<double>(c[1] * c[2]) + std::abs(static_cast<double>(c[0] - 20)) +
                            3.0 * c[3]);
}

Measurement refuse_all(const Config&) { return Measurement::failed(ResultStatus::invalid, "never fits"); }

struct Run {
  std::vector<Config> proposed;
  uint64_t measured = 0;  // observations other than invalid
  double best = std::numeric_limits<double>::infinity();
};

// Proposes in batches, observing each batch, until the searcher is done or,
// when `measurements` is set, that many results other than invalid are in.
Run drain(sdk::Searcher& s, size_t batch, const Objective& cost, uint64_t measurements = 0) {
  Run run;
  for (int guard = 0; guard < 1000000; ++guard) {
    const auto next = s.propose(batch);
    if (next.empty()) break;
    EXPECT_LE(next.size(), batch);
    for (const auto& c : next) {
      if (measurements && run.measured == measurements) return run;
      const Measurement m = cost(c);
      s.observe(c, m);
      run.proposed.push_back(c);
      if (m.status != ResultStatus::invalid) ++run.measured;
      if (m.ok()) run.best = std::min(run.best, m.time_us);
    }
  }
  return run;
}

Run run_ga(const sdk::TuningSpace& space, uint64_t seed, uint64_t budget, const Objective& cost, size_t batch = 8) {
  GaSearcher s;
  s.start(space, {seed, budget});
  return drain(s, batch, cost);
}

bool unique(const std::vector<Config>& all) { return std::set<Config>(all.begin(), all.end()).size() == all.size(); }

TEST(GaSearcher, NeverProposesAConfigTwice) {
  const auto space = medium_space();
  for (uint64_t seed : {1, 2, 3}) {
    const auto run = run_ga(space, seed, 1000, medium_cost);
    EXPECT_TRUE(unique(run.proposed));
    for (const auto& c : run.proposed) EXPECT_TRUE(space.in_domain(c));
  }
}

TEST(GaSearcher, StartsFromTheDefaultConfig) {
  const auto space = medium_space();
  EXPECT_EQ(run_ga(space, 5, 100, medium_cost).proposed.front(), space.default_config);
}

TEST(GaSearcher, SpendsItsBudgetOnMeasurementsNotOnInvalidConfigs) {
  const auto space = medium_space();
  for (uint64_t seed : {1, 2, 3}) {
    const auto run = run_ga(space, seed, 200, medium_cost);
    EXPECT_EQ(run.measured, 200u);
    EXPECT_GT(run.proposed.size(), 200u);  // some were refused, and cost nothing
  }
}

TEST(GaSearcher, CountsProposalsNotYetObserved) {
  GaSearcher s;
  s.start(medium_space(), {1, 10});
  std::vector<Config> out;
  for (size_t n : {4, 4, 4, 4}) {
    const auto batch = s.propose(n);
    out.insert(out.end(), batch.begin(), batch.end());
  }
  ASSERT_EQ(out.size(), 10u);
  EXPECT_TRUE(s.propose(4).empty());
  s.observe(out[0], Measurement::failed(ResultStatus::invalid, "does not fit"));
  EXPECT_EQ(s.propose(4).size(), 1u);
  s.observe(out[1], Measurement::failed(ResultStatus::run_failed, "crashed"));
  EXPECT_TRUE(s.propose(4).empty());
  s.start(medium_space(), {1, 0});
  EXPECT_TRUE(s.propose(4).empty());
}

TEST(GaSearcher, CarriesOnWhenAskedBeforeEverythingIsObserved) {
  // Two batches out at a time, observed late and last first.
  const auto space = medium_space();
  GaSearcher s;
  s.start(space, {9, 300});
  std::vector<Config> all, waiting;
  uint64_t measured = 0;
  const auto tell = [&] {
    for (auto it = waiting.rbegin(); it != waiting.rend(); ++it) {
      const auto m = medium_cost(*it);
      measured += m.status != ResultStatus::invalid;
      s.observe(*it, m);
    }
    waiting.clear();
  };
  for (int guard = 0; guard < 100000; ++guard) {
    const auto batch = s.propose(8);
    if (batch.empty() && waiting.empty()) break;
    all.insert(all.end(), batch.begin(), batch.end());
    waiting.insert(waiting.end(), batch.begin(), batch.end());
    if (waiting.size() >= 16 || batch.empty()) tell();
  }
  EXPECT_TRUE(unique(all));
  EXPECT_EQ(measured, 300u);
}

TEST(GaSearcher, EndsOnTinyAndExhaustedSpaces) {
  const auto tiny = space_of(
      {Knob::integer("a", KnobTag::schedule, 0, 2), Knob::categorical("b", KnobTag::impl, {"x", "y"})}, {1, 1});
  const auto timed = [](const Config& c) { return Measurement::timed(static_cast<double>(1 + c[0] + c[1])); };
  const auto run = run_ga(tiny, 3, 1000, timed, 4);
  EXPECT_EQ(std::set<Config>(run.proposed.begin(), run.proposed.end()),
            (std::set<Config>{{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {2, 1}}));
  EXPECT_EQ(run.proposed.size(), 6u);
  // The whole of a medium space, though the budget allows more.
  const auto all = run_ga(medium_space(), 4, 100000, medium_cost);
  EXPECT_EQ(all.proposed.size(), 1600u);
  EXPECT_TRUE(unique(all.proposed));

  const auto one = [](const Config&) { return Measurement::timed(1); };
  EXPECT_EQ(run_ga(space_of({Knob::integer("a", KnobTag::schedule, 7, 7)}, {7}), 1, 50, one).proposed,
            std::vector<Config>{Config{7}});
  EXPECT_EQ(run_ga(space_of({}), 1, 50, one).proposed, std::vector<Config>{Config{}});
  EXPECT_TRUE(run_ga(space_of({Knob::integer("a", KnobTag::schedule, 1, 0)}), 1, 50, one).proposed.empty());
}

TEST(GaSearcher, HandlesSpacesTooLargeToCount) {
  // 64^12 = 2^72 configs: past any index.
  std::vector<Knob> knobs;
  for (int i = 0; i < 12; ++i) knobs.push_back(Knob::integer("k" + std::to_string(i), KnobTag::schedule, 0, 63));
  const auto space = space_of(knobs, Config(12, 7));
  const auto cost = [](const Config& c) {
    double t = 1;
    for (int64_t v : c) t += static_cast<double>((v - 40) * (v - 40));
    return c[0] > 50 ? Measurement::failed(ResultStatus::invalid, "no") : Measurement::timed(t);
  };
  const auto run = run_ga(space, 5, 300, cost);
  EXPECT_EQ(run.measured, 300u);
  EXPECT_TRUE(unique(run.proposed));
  for (const auto& c : run.proposed) EXPECT_TRUE(space.in_domain(c));
}

TEST(GaSearcher, EndsOnASpaceWhereEverythingIsInvalid) {
  const auto run = run_ga(medium_space(), 2, 10, refuse_all);
  EXPECT_EQ(run.proposed.size(), 500u);  // 50 x budget
  EXPECT_TRUE(unique(run.proposed));
  EXPECT_EQ(run_ga(medium_space(), 2, 1000, refuse_all).proposed.size(), 1600u);  // the space runs out first
}

TEST(GaSearcher, TheSameSeedGivesTheSameProposals) {
  const auto space = medium_space();
  const auto a = run_ga(space, 42, 300, medium_cost).proposed;
  EXPECT_EQ(a, run_ga(space, 42, 300, medium_cost).proposed);
  EXPECT_NE(a, run_ga(space, 43, 300, medium_cost).proposed);
}

TEST(GaSearcher, NeverProposesWhatWasMeasuredElsewhere) {
  const auto space = medium_space();
  GaSearcher s;
  s.start(space, {1, 100000});
  s.observe(space.default_config, Measurement::timed(50));
  s.observe({1, 1, 1, 0}, Measurement::failed(ResultStatus::invalid, "no"));
  const auto run = drain(s, 8, medium_cost);
  EXPECT_EQ(run.proposed.size(), 1598u);
  const std::set<Config> seen(run.proposed.begin(), run.proposed.end());
  EXPECT_FALSE(seen.count(space.default_config));
  EXPECT_FALSE(seen.count(Config{1, 1, 1, 0}));
}

// --- Synthetic tiling costs ---------------------------------------------------
//
// Six ordered knobs, 7 x 7 x 6 x 16 x 8 x 4 = 150528 configs. A tile past
// the buffer (m*n*k > 4096) or too many blocks in flight (block_dim * unroll
// > 64) is refused as invalid; the unconstrained optimum lies past the buffer,
// so the best valid configs sit on the edge of what fits.

sdk::TuningSpace tiling_space() {
  return space_of(
      {Knob::power_of_two("m_l0", KnobTag::schedule, 1, 64), Knob::power_of_two("n_l0", KnobTag::schedule, 1, 64),
       Knob::power_of_two("k_l0", KnobTag::schedule, 1, 32), Knob::integer("block_dim", KnobTag::schedule, 1, 16),
       Knob::integer("unroll", KnobTag::schedule, 1, 8), Knob::integer("stages", KnobTag::schedule, 1, 4)},
      {16, 16, 16, 8, 1, 1});
}

bool fits(const Config& c) { return c[0] * c[1] * c[2] <= 4096 && c[3] * c[4] <= 64; }

double log2i(int64_t v) { return std::log2(static_cast<double>(v)); }

// A separable bowl in log space for the tiles, linear space for the rest.
double bowl(const Config& c) {
  const double dm = log2i(c[0]) - 5, dn = log2i(c[1]) - 5, dk = log2i(c[2]) - 4;
  const double db = static_cast<double>(c[3] - 12), du = static_cast<double>(c[4] - 4),
               ds = static_cast<double>(c[5] - 3);
  return 100 + 9 * dm * dm + 7 * dn * dn + 5 * dk * dk + 0.8 * db * db + 2 * du * du + 4 * ds * ds;
}

// A deterministic bump per config in [0, 1): the noise of a real cost surface.
double bump(const Config& c) {
  uint64_t h = 1469598103934665603ull;
  for (int64_t v : c) h = (h ^ static_cast<uint64_t>(v)) * 1099511628211ull;
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 32;
  return static_cast<double>(h % 1000) / 1000.0;
}

// Ripples along each knob, knobs that interact, per-config bumps, and a
// second basin far from the first and nearly as deep.
double rugged(const Config& c) {
  const double pi = 3.14159265358979323846;
  const double dm = log2i(c[0]) - 5, dn = log2i(c[1]) - 4, dk = log2i(c[2]) - 4;
  const double db = static_cast<double>(c[3] - 11), du = static_cast<double>(c[4] - 5);
  const double first = 150 + 6 * dm * dm + 6 * dn * dn + 4 * dk * dk + 0.5 * db * db + 1.5 * du * du;
  const double em = log2i(c[0]) - 1, en = log2i(c[1]) - 6, eb = static_cast<double>(c[3] - 3);
  const double second = 158 + 8 * em * em + 8 * en * en + 2 * eb * eb;
  double ripples = 0;
  for (double d : {dm, dn, dk, db, du}) ripples += 10 * (1 - std::cos(2 * pi * d / 3));
  const double interaction = 6 * std::abs(dm - dn) + 1.5 * std::abs(db - 2 * du) + (c[5] == 2 ? 0 : 8);
  return std::min(first, second) + ripples + interaction + 40 * bump(c);
}

Objective constrained(double (*cost)(const Config&)) {
  return [cost](const Config& c) {
    if (!fits(c)) return Measurement::failed(ResultStatus::invalid, "does not fit");
    return Measurement::timed(cost(c));
  };
}

double optimum(const sdk::TuningSpace& space, const Objective& cost) {
  double best = std::numeric_limits<double>::infinity();
  const auto n = static_cast<uint64_t>(space.size());
  for (uint64_t i = 0; i < n; ++i) {
    Config c;
    uint64_t index = i;
    for (const auto& k : space.knobs) {
      c.push_back(k.values[index % k.values.size()]);
      index /= k.values.size();
    }
    const auto m = cost(c);
    if (m.ok()) best = std::min(best, m.time_us);
  }
  return best;
}

struct Figures {
  double ga_mean = 0, ga_worst = 0, random_mean = 0;
  int ga_wins = 0;
};

// GA and uniform random search over 20 seeds, each held to `budget`
// measurements (invalid ones free): best found / true optimum.
Figures compare(const char* name, const Objective& cost, uint64_t budget) {
  const auto space = tiling_space();
  const double best = optimum(space, cost);
  constexpr int kSeeds = 20;
  Figures f;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    GaSearcher ga;
    ga.start(space, {seed, budget});
    const Run g = drain(ga, 8, cost);
    EXPECT_EQ(g.measured, budget);
    EXPECT_TRUE(unique(g.proposed));
    // The random searcher is given the whole space and stopped here at the
    // same number of measurements, whatever its own budget rule.
    RandomSearcher random;
    random.start(space, {seed, static_cast<uint64_t>(space.size())});
    const Run r = drain(random, 8, cost, budget);
    const double ga_ratio = g.best / best, random_ratio = r.best / best;
    f.ga_mean += ga_ratio / kSeeds;
    f.random_mean += random_ratio / kSeeds;
    f.ga_worst = std::max(f.ga_worst, ga_ratio);
    f.ga_wins += ga_ratio < random_ratio;
  }
  std::printf(
      "%-7s space %.0f, budget %llu (%.2f%%), optimum %.2f us, over 20 seeds best/optimum: "
      "ga mean %.4f (worst %.4f), random mean %.4f; ga better on %d seeds\n",
      name, space.size(), static_cast<unsigned long long>(budget), 100.0 * static_cast<double>(budget) / space.size(),
      best, f.ga_mean, f.ga_worst, f.random_mean, f.ga_wins);
  return f;
}

TEST(GaSearcher, FindsTheOptimumOfABowlWithAnInvalidRegion) {
  const Figures f = compare("bowl", constrained(bowl), 1500);
  EXPECT_LT(f.ga_mean, 1.02);
  EXPECT_LT(f.ga_worst, 1.05);
  EXPECT_LT(f.ga_mean, f.random_mean);
}

TEST(GaSearcher, BeatsRandomSearchOnARuggedCost) {
  const Figures f = compare("rugged", constrained(rugged), 1500);
  EXPECT_LT(f.ga_mean, 1.05);
  EXPECT_LT(f.ga_mean, f.random_mean);
}

TEST(GaSearcher, LearnsWhichKnobValuesBreakConstraints) {
  ga::ConstraintMemory memory;
  memory.reset({{3, true}, {2, false}});
  for (int i = 0; i < 10; ++i) {
    memory.record({2, 0}, true);
    memory.record({0, 1}, false);
  }
  EXPECT_GT(memory.invalid_rate(0, 2), memory.invalid_rate(0, 1));  // never seen: undecided
  EXPECT_GT(memory.invalid_rate(0, 1), memory.invalid_rate(0, 0));
  EXPECT_LT(memory.weight(0, 2), memory.weight(0, 1));
  EXPECT_GT(memory.weight(0, 2), 0);  // drawn less, never ruled out
}

TEST(GaSearcher, StopsProposingAKnobValueTheDeviceAlwaysRefuses) {
  // One implementation of four is never supported: a quarter of uniform
  // draws. Mutation learns to leave it alone.
  auto space = medium_space();
  space.knobs[3] = Knob::categorical("impl", KnobTag::impl, {"a", "b", "c", "unsupported"});
  const auto cost = [](const Config& c) {
    if (c[3] == 3) return Measurement::failed(ResultStatus::invalid, "unsupported");
    return medium_cost(c);
  };
  const auto run = run_ga(space, 11, 400, cost);
  EXPECT_EQ(run.measured, 400u);
  const size_t half = run.proposed.size() / 2;
  double late = 0;
  for (size_t i = half; i < run.proposed.size(); ++i) late += run.proposed[i][3] == 3;
  late /= static_cast<double>(run.proposed.size() - half);
  std::printf("share of proposals with the unsupported impl in the second half: %.3f (uniform 0.25)\n", late);
  EXPECT_LT(late, 0.05);
}

TEST(GaSearcher, ProposesThroughTheCTable) {
  const aoe_plugin_descriptor* d = ::aoe::test::tested_plugin().query();
  const aoe_component* component = nullptr;
  for (uint32_t i = 0; i < d->component_count; ++i)
    if (std::strcmp(d->components[i].name, "ga") == 0) component = &d->components[i];
  ASSERT_NE(component, nullptr);
  EXPECT_EQ(component->kind, AOE_KIND_SEARCHER);
  void* self = nullptr;
  ASSERT_EQ(::aoe::test::tested_plugin().create("ga", nullptr, &self), nullptr);
  ASSERT_NE(self, nullptr);
  sdk::SearcherClient client(
      {sizeof(aoe_searcher_ref), self, static_cast<const aoe_searcher_vtable*>(component->vtable)}, sdk::Host());
  client.start(medium_space(), {42, 100});
  std::vector<Config> all;
  for (auto batch = client.propose(8); !batch.empty(); batch = client.propose(8)) {
    for (const auto& c : batch) client.observe(c, medium_cost(c));
    all.insert(all.end(), batch.begin(), batch.end());
  }
  EXPECT_EQ(all, run_ga(medium_space(), 42, 100, medium_cost).proposed);
}

}  // namespace
}  // namespace aoe::search

namespace aoe::search::testing {

AOE_SEARCHER_RULES(Ga, GaSearcher, "ga");

}  // namespace aoe::search::testing
