// The exhaustive searcher: the default first, then every config once in
// mixed-radix order, bounded by a budget that refused configs do not spend.
#include "exhaustive_searcher.h"
#include "searcher_rules.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <set>

#include "plugin_library.h"
#include "aoe/sdk/searcher_client.h"

namespace aoe::search {
namespace {

using sdk::Config;
using sdk::Knob;
using sdk::KnobTag;
using sdk::Measurement;
using sdk::ResultStatus;

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

Measurement timed(const Config& c) { return Measurement::timed(c.size() < 2 ? 1.0 : static_cast<double>(c[0] + c[1])); }

// Proposes in batches, observing each batch, until the searcher says it is done.
std::vector<Config> drain(sdk::Searcher& s, size_t batch,
                          const std::function<Measurement(const Config&)>& measure = timed) {
  std::vector<Config> all;
  for (int guard = 0; guard < 1000000; ++guard) {
    const auto next = s.propose(batch);
    if (next.empty()) break;
    EXPECT_LE(next.size(), batch);
    for (const auto& c : next) s.observe(c, measure(c));
    all.insert(all.end(), next.begin(), next.end());
  }
  return all;
}

std::vector<Config> run(const sdk::TuningSpace& space, uint64_t seed, uint64_t budget, size_t batch = 8) {
  ExhaustiveSearcher s;
  s.start(space, {seed, budget});
  return drain(s, batch);
}

// Mixed radix, first knob fastest.
Config decode(const sdk::TuningSpace& space, uint64_t index) {
  Config c;
  for (const auto& k : space.knobs) {
    c.push_back(k.values[index % k.values.size()]);
    index /= k.values.size();
  }
  return c;
}

TEST(ExhaustiveSearcher, VisitsEveryConfigOnceDefaultFirstThenInOrder) {
  const auto space = medium_space();
  const auto all = run(space, 1, 100000, 7);
  ASSERT_EQ(all.size(), 1600u);
  EXPECT_EQ(std::set<Config>(all.begin(), all.end()).size(), all.size());
  for (const auto& c : all) EXPECT_TRUE(space.in_domain(c));
  EXPECT_EQ(all.front(), space.default_config);
  std::vector<Config> walk;
  for (uint64_t i = 0; i < 1600; ++i)
    if (decode(space, i) != space.default_config) walk.push_back(decode(space, i));
  EXPECT_EQ(std::vector<Config>(all.begin() + 1, all.end()), walk);
}

TEST(ExhaustiveSearcher, WithoutADefaultStartsAtTheFirstConfig) {
  auto space = medium_space();
  space.default_config = {};
  const auto all = run(space, 1, 5);
  ASSERT_EQ(all.size(), 5u);
  for (uint64_t i = 0; i < 5; ++i) EXPECT_EQ(all[i], decode(space, i));
}

TEST(ExhaustiveSearcher, StopsAtItsBudgetCountingProposalsNotYetObserved) {
  ExhaustiveSearcher s;
  s.start(medium_space(), {1, 10});
  EXPECT_EQ(s.propose(4).size(), 4u);
  EXPECT_EQ(s.propose(4).size(), 4u);
  const auto last = s.propose(4);
  EXPECT_EQ(last.size(), 2u);
  EXPECT_TRUE(s.propose(4).empty());
  // A refused config gives its measurement back.
  s.observe(last[0], Measurement::failed(ResultStatus::invalid, "does not fit"));
  EXPECT_EQ(s.propose(4).size(), 1u);
  // Any other failure spends it.
  s.observe(last[1], Measurement::failed(ResultStatus::run_failed, "crashed"));
  EXPECT_TRUE(s.propose(4).empty());
  s.start(medium_space(), {1, 0});
  EXPECT_TRUE(s.propose(4).empty());
}

TEST(ExhaustiveSearcher, InvalidConfigsDoNotSpendTheBudget) {
  // Half the space does not fit; every other failure spends the budget.
  const auto measure = [](const Config& c) {
    if (c[0] > 16) return Measurement::failed(ResultStatus::invalid, "does not fit");
    if (c[0] % 5 == 0) return Measurement::failed(ResultStatus::timeout, "hung");
    return Measurement::timed(1.0);
  };
  ExhaustiveSearcher s;
  s.start(medium_space(), {3, 100});
  const auto all = drain(s, 8, measure);
  size_t measured = 0;
  for (const auto& c : all) measured += measure(c).status != ResultStatus::invalid;
  EXPECT_EQ(measured, 100u);
  EXPECT_GT(all.size(), 150u);
  EXPECT_EQ(std::set<Config>(all.begin(), all.end()).size(), all.size());
}

TEST(ExhaustiveSearcher, EndsOnASpaceWhereEverythingIsInvalid) {
  const auto invalid = [](const Config&) { return Measurement::failed(ResultStatus::invalid, "never fits"); };
  ExhaustiveSearcher s;
  s.start(medium_space(), {0, 10});
  EXPECT_EQ(drain(s, 8, invalid).size(), 500u);  // 50 x budget
  s.start(medium_space(), {0, 1000});
  EXPECT_EQ(drain(s, 8, invalid).size(), 1600u);  // the space runs out first
}

TEST(ExhaustiveSearcher, TheSameSeedGivesTheSameProposals) {
  const auto a = run(medium_space(), 42, 100);
  EXPECT_EQ(a, run(medium_space(), 42, 100));
  EXPECT_EQ(a, run(medium_space(), 42, 100, 3));
  EXPECT_EQ(a, run(medium_space(), 7, 100));  // an exhaustive walk has nothing to draw
}

TEST(ExhaustiveSearcher, SkipsConfigsMeasuredElsewhere) {
  auto space = medium_space();
  ExhaustiveSearcher s;
  s.start(space, {0, 100000});
  s.observe(space.default_config, Measurement::timed(1));
  s.observe(decode(space, 3), Measurement::timed(1));
  s.observe(decode(space, 1599), Measurement::failed(ResultStatus::invalid, "no"));
  const auto all = drain(s, 16);
  EXPECT_EQ(all.size(), 1597u);
  const std::set<Config> seen(all.begin(), all.end());
  EXPECT_EQ(seen.size(), all.size());
  EXPECT_FALSE(seen.count(space.default_config));
  EXPECT_FALSE(seen.count(decode(space, 3)));
  EXPECT_FALSE(seen.count(decode(space, 1599)));
}

TEST(ExhaustiveSearcher, HandlesDegenerateSpaces) {
  EXPECT_EQ(run(space_of({}), 0, 10), std::vector<Config>{Config{}});
  EXPECT_TRUE(
      run(space_of({Knob::integer("a", KnobTag::schedule, 0, 3), Knob::integer("b", KnobTag::schedule, 1, 0)}), 0, 10)
          .empty());
  const auto one = space_of({Knob::integer("a", KnobTag::schedule, 4, 4)}, {4});
  EXPECT_EQ(run(one, 0, 10), std::vector<Config>{Config{4}});
  // A default outside the space is not proposed.
  const auto outside = space_of({Knob::integer("a", KnobTag::schedule, 0, 2)}, {9});
  EXPECT_EQ(run(outside, 0, 10), (std::vector<Config>{{0}, {1}, {2}}));
}

TEST(ExhaustiveSearcher, ProposesThroughTheCTable) {
  const aoe_plugin_descriptor* d = ::aoe::test::tested_plugin().query();
  const aoe_component* component = nullptr;
  for (uint32_t i = 0; i < d->component_count; ++i)
    if (std::strcmp(d->components[i].name, "exhaustive") == 0) component = &d->components[i];
  ASSERT_NE(component, nullptr);
  EXPECT_EQ(component->kind, AOE_KIND_SEARCHER);
  void* self = nullptr;
  ASSERT_EQ(::aoe::test::tested_plugin().create("exhaustive", nullptr, &self), nullptr);
  ASSERT_NE(self, nullptr);
  sdk::SearcherClient client(
      {sizeof(aoe_searcher_ref), self, static_cast<const aoe_searcher_vtable*>(component->vtable)}, sdk::Host());
  client.start(medium_space(), {42, 100});
  std::vector<Config> all;
  for (auto batch = client.propose(16); !batch.empty(); batch = client.propose(16)) {
    for (const auto& c : batch) client.observe(c, timed(c));
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
INSTANTIATE_TYPED_TEST_SUITE_P(Exhaustive, ObservationRules, ExhaustiveSearcher);

}  // namespace aoe::search::testing
