// The random searcher: seeded, uniform, never repeating, bounded by its budget and its space.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>

#include "plugin_library.h"
#include "aoe/sdk/searcher_client.h"
#include "random_searcher.h"
#include "searcher_rules.h"

namespace aoe::search {
namespace {

using sdk::Config;
using sdk::Knob;
using sdk::KnobTag;

sdk::TuningSpace space_of(std::vector<Knob> knobs) {
  sdk::TuningSpace s;
  s.knobs = std::move(knobs);
  return s;
}

// 32 x 5 x 5 x 2 = 1600 configs.
sdk::TuningSpace medium_space() {
  return space_of({Knob::integer("block_dim", KnobTag::schedule, 1, 32),
                   Knob::power_of_two("m_l0", KnobTag::schedule, 1, 16),
                   Knob::power_of_two("n_l0", KnobTag::schedule, 1, 16),
                   Knob::categorical("db", KnobTag::schedule, {"off", "on"})});
}

// Proposes in batches of `batch` until the searcher says it is done.
std::vector<Config> drain(sdk::Searcher& s, size_t batch) {
  std::vector<Config> all;
  for (int guard = 0; guard < 1000000; ++guard) {
    const auto next = s.propose(batch);
    if (next.empty()) break;
    EXPECT_LE(next.size(), batch);
    all.insert(all.end(), next.begin(), next.end());
  }
  return all;
}

std::vector<Config> run(const sdk::TuningSpace& space, uint64_t seed, uint64_t budget, size_t batch = 8) {
  RandomSearcher s;
  s.start(space, {seed, budget});
  return drain(s, batch);
}

TEST(RandomSearcher, TheSameSeedGivesTheSameProposals) {
  const auto a = run(medium_space(), 42, 100);
  EXPECT_EQ(a, run(medium_space(), 42, 100));
  // However the proposals are batched and whatever was observed.
  RandomSearcher s;
  s.start(medium_space(), {42, 100});
  std::vector<Config> b;
  for (size_t n : {1, 7, 50, 3, 100}) {
    for (const auto& c : s.propose(n)) {
      s.observe(c, sdk::Measurement::timed(static_cast<double>(c[0])));
      b.push_back(c);
    }
  }
  EXPECT_EQ(a, b);
  EXPECT_NE(a, run(medium_space(), 43, 100));
}

TEST(RandomSearcher, NeverProposesAConfigTwice) {
  const auto space = medium_space();
  const auto all = run(space, 7, 1500, 64);
  ASSERT_EQ(all.size(), 1500u);
  EXPECT_EQ(std::set<Config>(all.begin(), all.end()).size(), all.size());
  for (const auto& c : all) EXPECT_TRUE(space.in_domain(c));
}

TEST(RandomSearcher, StopsAtItsBudget) {
  RandomSearcher s;
  s.start(medium_space(), {1, 10});
  EXPECT_EQ(s.propose(4).size(), 4u);
  EXPECT_EQ(s.propose(4).size(), 4u);
  EXPECT_EQ(s.propose(4).size(), 2u);
  EXPECT_TRUE(s.propose(4).empty());
  s.start(medium_space(), {1, 0});
  EXPECT_TRUE(s.propose(4).empty());
}

TEST(RandomSearcher, ExhaustsATinySpaceExactly) {
  const auto space = space_of({Knob::integer("a", KnobTag::schedule, 0, 2),
                               Knob::categorical("b", KnobTag::impl, {"x", "y"})});
  const auto all = run(space, 3, 1000, 4);
  ASSERT_EQ(all.size(), 6u);
  EXPECT_EQ(std::set<Config>(all.begin(), all.end()),
            (std::set<Config>{{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {2, 1}}));
}

TEST(RandomSearcher, DrawsUniformly) {
  // The first proposal of 4000 seeds over 16 configs: about 250 each.
  const auto space = space_of({Knob::integer("a", KnobTag::schedule, 0, 3),
                               Knob::power_of_two("b", KnobTag::schedule, 1, 8)});
  std::map<Config, int> counts;
  for (uint64_t seed = 0; seed < 4000; ++seed) ++counts[run(space, seed, 1).at(0)];
  ASSERT_EQ(counts.size(), 16u);
  for (const auto& [config, count] : counts) {
    EXPECT_GT(count, 180);
    EXPECT_LT(count, 320);
  }
}

TEST(RandomSearcher, HandlesSpacesTooLargeToCount) {
  // 64^12 = 2^72 configs: past any index.
  std::vector<Knob> knobs;
  for (int i = 0; i < 12; ++i) knobs.push_back(Knob::integer("k" + std::to_string(i), KnobTag::schedule, 0, 63));
  const auto space = space_of(knobs);
  const auto all = run(space, 5, 300, 50);
  ASSERT_EQ(all.size(), 300u);
  EXPECT_EQ(std::set<Config>(all.begin(), all.end()).size(), all.size());
  for (const auto& c : all) EXPECT_TRUE(space.in_domain(c));
  EXPECT_EQ(all, run(space, 5, 300, 7));
}

// Refused configs were never run: the searcher proposes others in their place,
// but a space the device refuses whole still ends.
TEST(RandomSearcher, InvalidConfigsDoNotSpendTheBudget) {
  RandomSearcher s;
  s.start(medium_space(), {7, 20});
  uint64_t measured = 0, proposed = 0;
  for (auto batch = s.propose(8); !batch.empty(); batch = s.propose(8))
    for (const auto& c : batch) {
      const bool refused = proposed++ % 2 == 0;
      s.observe(c, refused ? sdk::Measurement::failed(sdk::ResultStatus::invalid, "too big") : sdk::Measurement::timed(1));
      measured += !refused;
    }
  EXPECT_EQ(measured, 20u);
  EXPECT_EQ(proposed, 40u);

  s.start(medium_space(), {7, 2});
  proposed = 0;
  for (auto batch = s.propose(8); !batch.empty(); batch = s.propose(8))
    for (const auto& c : batch) s.observe(c, sdk::Measurement::failed(sdk::ResultStatus::invalid, "too big")), ++proposed;
  EXPECT_EQ(proposed, 100u);
}

// Results of configs it did not propose (a warm start, or another searcher's)
// count against the budget, and those configs are never proposed.
TEST(RandomSearcher, NeverProposesWhatWasMeasuredElsewhere) {
  RandomSearcher s;
  s.start(medium_space(), {1, 100000});
  s.observe({1, 1, 1, 0}, sdk::Measurement::timed(5));
  s.observe({2, 1, 1, 0}, sdk::Measurement::failed(sdk::ResultStatus::invalid, "too big"));
  const auto all = drain(s, 64);
  const std::set<Config> distinct(all.begin(), all.end());
  EXPECT_EQ(all.size(), 1598u);
  EXPECT_EQ(distinct.size(), all.size());
  EXPECT_FALSE(distinct.count(Config{1, 1, 1, 0}));
  EXPECT_FALSE(distinct.count(Config{2, 1, 1, 0}));

  s.start(medium_space(), {1, 10});
  s.observe({1, 1, 1, 0}, sdk::Measurement::timed(5));
  s.observe({2, 1, 1, 0}, sdk::Measurement::failed(sdk::ResultStatus::invalid, "too big"));
  EXPECT_EQ(drain(s, 4).size(), 9u);
}

TEST(RandomSearcher, ProposesThroughTheCTable) {
  const aoe_plugin_descriptor* d = ::aoe::test::tested_plugin().query();
  const aoe_component* random = nullptr;
  for (uint32_t i = 0; i < d->component_count; ++i)
    if (std::strcmp(d->components[i].name, "random") == 0) random = &d->components[i];
  ASSERT_NE(random, nullptr);
  EXPECT_EQ(random->kind, AOE_KIND_SEARCHER);
  void* self = nullptr;
  ASSERT_EQ(::aoe::test::tested_plugin().create("random", nullptr, &self), nullptr);
  ASSERT_NE(self, nullptr);
  sdk::SearcherClient client({sizeof(aoe_searcher_ref), self, static_cast<const aoe_searcher_vtable*>(random->vtable)},
                             sdk::Host());
  client.start(medium_space(), {42, 100});
  std::vector<Config> all;
  for (auto batch = client.propose(16); !batch.empty(); batch = client.propose(16)) {
    for (const auto& c : batch) client.observe(c, sdk::Measurement::timed(1.0));
    all.insert(all.end(), batch.begin(), batch.end());
  }
  EXPECT_EQ(all, run(medium_space(), 42, 100));
}

}  // namespace
}  // namespace aoe::search

// Of the rules every searcher follows, those of ObservationRules; the others
// (starting from the default config, drawing by the seed) are not this searcher's.
namespace aoe::search::testing {

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SearcherRules);
INSTANTIATE_TYPED_TEST_SUITE_P(Random, ObservationRules, RandomSearcher);

}  // namespace aoe::search::testing
