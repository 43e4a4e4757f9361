// The rules every searcher follows, as typed test suites. A searcher is held
// to both by its class and the name its plugin registers, inside
// aoe::search::testing:
//   AOE_SEARCHER_RULES(Sa, SaSearcher, "sa");
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <string>

#include "plugin_library.h"
#include "aoe/sdk/searcher_client.h"
#include "synthetic_tuning.h"

namespace aoe::search::testing {

// The name the searcher registers under in its plugin.
template <class S>
struct SearcherName;

template <class S>
class SearcherRules : public ::testing::Test {};
TYPED_TEST_SUITE_P(SearcherRules);

TYPED_TEST_P(SearcherRules, NeverProposesAConfigTwice) {
  const auto space = medium_space();
  for (uint64_t seed : {1, 2, 3}) {
    const auto run = run_searcher<TypeParam>(space, seed, 1000, medium_cost);
    EXPECT_TRUE(unique(run.proposed));
    for (const auto& c : run.proposed) EXPECT_TRUE(space.in_domain(c));
  }
}

TYPED_TEST_P(SearcherRules, StartsFromTheDefaultConfig) {
  const auto space = medium_space();
  EXPECT_EQ(run_searcher<TypeParam>(space, 5, 100, medium_cost).proposed.front(), space.default_config);
}

TYPED_TEST_P(SearcherRules, SpendsItsBudgetOnMeasurementsNotOnInvalidConfigs) {
  const auto space = medium_space();
  for (uint64_t seed : {1, 2, 3}) {
    const auto run = run_searcher<TypeParam>(space, seed, 200, medium_cost);
    EXPECT_EQ(run.measured, 200u);
    EXPECT_GT(run.proposed.size(), 200u);  // some were refused, and cost nothing
  }
}

TYPED_TEST_P(SearcherRules, CountsProposalsNotYetObserved) {
  TypeParam s;
  s.start(medium_space(), {1, 10});
  std::vector<Config> out;
  for (size_t n : {4, 4, 4, 4}) {
    const auto batch = s.propose(n);
    EXPECT_LE(batch.size(), n);
    out.insert(out.end(), batch.begin(), batch.end());
  }
  ASSERT_EQ(out.size(), 10u);
  EXPECT_TRUE(unique(out));
  EXPECT_TRUE(s.propose(4).empty());
  s.observe(out[0], Measurement::failed(ResultStatus::invalid, "does not fit"));
  EXPECT_EQ(s.propose(4).size(), 1u);
  s.observe(out[1], Measurement::failed(ResultStatus::run_failed, "crashed"));
  EXPECT_TRUE(s.propose(4).empty());
  s.start(medium_space(), {1, 0});
  EXPECT_TRUE(s.propose(4).empty());
}

TYPED_TEST_P(SearcherRules, CarriesOnWhenAskedBeforeEverythingIsObserved) {
  // Two batches out at a time, observed late and last first.
  const auto space = medium_space();
  TypeParam s;
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

TYPED_TEST_P(SearcherRules, EndsOnTinyAndExhaustedSpaces) {
  const auto tiny = space_of(
      {Knob::integer("a", KnobTag::schedule, 0, 2), Knob::categorical("b", KnobTag::impl, {"x", "y"})}, {1, 1});
  const auto timed = [](const Config& c) { return Measurement::timed(static_cast<double>(1 + c[0] + c[1])); };
  const auto run = run_searcher<TypeParam>(tiny, 3, 1000, timed, 4);
  EXPECT_EQ(std::set<Config>(run.proposed.begin(), run.proposed.end()),
            (std::set<Config>{{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {2, 1}}));
  EXPECT_EQ(run.proposed.size(), 6u);
  // The whole of a medium space, though the budget allows more.
  const auto all = run_searcher<TypeParam>(medium_space(), 4, 100000, medium_cost);
  EXPECT_EQ(all.proposed.size(), 1600u);
  EXPECT_TRUE(unique(all.proposed));

  const auto one = [](const Config&) { return Measurement::timed(1); };
  EXPECT_EQ(run_searcher<TypeParam>(space_of({Knob::integer("a", KnobTag::schedule, 7, 7)}, {7}), 1, 50, one).proposed,
            std::vector<Config>{Config{7}});
  EXPECT_EQ(run_searcher<TypeParam>(space_of({}), 1, 50, one).proposed, std::vector<Config>{Config{}});
  EXPECT_TRUE(
      run_searcher<TypeParam>(space_of({Knob::integer("a", KnobTag::schedule, 1, 0)}), 1, 50, one).proposed.empty());
}

TYPED_TEST_P(SearcherRules, EndsOnASpaceWhereEverythingIsInvalid) {
  const auto run = run_searcher<TypeParam>(medium_space(), 2, 10, refuse_all);
  EXPECT_EQ(run.proposed.size(), 500u);  // 50 x budget
  EXPECT_TRUE(unique(run.proposed));
  EXPECT_EQ(run_searcher<TypeParam>(medium_space(), 2, 1000, refuse_all).proposed.size(), 1600u);  // the space runs out
}

TYPED_TEST_P(SearcherRules, HandlesSpacesTooLargeToCount) {
  // 64^12 = 2^72 configs: past any index.
  std::vector<Knob> knobs;
  for (int i = 0; i < 12; ++i) knobs.push_back(Knob::integer("k" + std::to_string(i), KnobTag::schedule, 0, 63));
  const auto space = space_of(knobs, Config(12, 7));
  const auto cost = [](const Config& c) {
    double t = 1;
    for (int64_t v : c) t += static_cast<double>((v - 40) * (v - 40));
    return c[0] > 50 ? Measurement::failed(ResultStatus::invalid, "no") : Measurement::timed(t);
  };
  const auto run = run_searcher<TypeParam>(space, 5, 300, cost);
  EXPECT_EQ(run.measured, 300u);
  EXPECT_TRUE(unique(run.proposed));
  for (const auto& c : run.proposed) EXPECT_TRUE(space.in_domain(c));
}

TYPED_TEST_P(SearcherRules, TheSameSeedGivesTheSameProposals) {
  const auto space = medium_space();
  const auto a = run_searcher<TypeParam>(space, 42, 300, medium_cost).proposed;
  EXPECT_EQ(a, run_searcher<TypeParam>(space, 42, 300, medium_cost).proposed);
  EXPECT_NE(a, run_searcher<TypeParam>(space, 43, 300, medium_cost).proposed);
  const auto tiling = tiling_space();
  const auto cost = constrained(rugged_cost);
  const auto b = run_searcher<TypeParam>(tiling, 7, 200, cost).proposed;
  EXPECT_EQ(b, run_searcher<TypeParam>(tiling, 7, 200, cost).proposed);
}

// Results of configs it did not propose count as knowledge and as
// measurements, and those configs are never proposed.
TYPED_TEST_P(SearcherRules, LearnsFromConfigsMeasuredElsewhere) {
  const auto space = medium_space();
  TypeParam s;
  s.start(space, {1, 100000});
  s.observe(space.default_config, Measurement::timed(50));
  s.observe({1, 1, 1, 0}, Measurement::failed(ResultStatus::invalid, "no"));
  const auto run = drain(s, 8, medium_cost);
  EXPECT_EQ(run.proposed.size(), 1598u);
  const std::set<Config> seen(run.proposed.begin(), run.proposed.end());
  EXPECT_FALSE(seen.count(space.default_config));
  EXPECT_FALSE(seen.count(Config{1, 1, 1, 0}));

  s.start(space, {1, 10});
  s.observe(space.default_config, Measurement::timed(50));
  s.observe({1, 1, 1, 0}, Measurement::failed(ResultStatus::invalid, "no"));
  EXPECT_EQ(drain(s, 8, medium_cost).measured, 9u);
}

TYPED_TEST_P(SearcherRules, ProposesThroughTheCTable) {
  const char* name = SearcherName<TypeParam>::value;
  const aoe_plugin_descriptor* d = ::aoe::test::tested_plugin().query();
  const aoe_component* component = nullptr;
  for (uint32_t i = 0; i < d->component_count; ++i)
    if (std::strcmp(d->components[i].name, name) == 0) component = &d->components[i];
  ASSERT_NE(component, nullptr);
  EXPECT_EQ(component->kind, AOE_KIND_SEARCHER);
  void* self = nullptr;
  ASSERT_EQ(::aoe::test::tested_plugin().create(name, nullptr, &self), nullptr);
  ASSERT_NE(self, nullptr);
  sdk::SearcherClient client(
      {sizeof(aoe_searcher_ref), self, static_cast<const aoe_searcher_vtable*>(component->vtable)}, sdk::Host());
  client.start(medium_space(), {42, 100});
  std::vector<Config> all;
  for (auto batch = client.propose(8); !batch.empty(); batch = client.propose(8)) {
    for (const auto& c : batch) client.observe(c, medium_cost(c));
    all.insert(all.end(), batch.begin(), batch.end());
  }
  EXPECT_EQ(all, run_searcher<TypeParam>(medium_space(), 42, 100, medium_cost).proposed);
}

// What a searcher makes of results it did not ask for, as a warm start or an
// ensemble tells it, as a typed suite of its own so that every searcher, the
// baselines too, is held to it:
//   INSTANTIATE_TYPED_TEST_SUITE_P(Sa, ObservationRules, SaSearcher);
template <class S>
class ObservationRules : public ::testing::Test {};
TYPED_TEST_SUITE_P(ObservationRules);

// Results of configs it did not propose, told before and between its
// batches, are knowledge: they count against the budget, those configs are
// never proposed, and the search carries on to its end.
TYPED_TEST_P(ObservationRules, TakesResultsItDidNotProposeAsKnowledge) {
  const auto space = medium_space();
  std::vector<Config> every;
  sdk::for_each_config(space, [&](const Config& c) { every.push_back(c); });
  constexpr uint64_t kBudget = 200;
  for (uint64_t seed : {1, 2}) {
    TypeParam s;
    s.start(space, {seed, kBudget});
    std::set<Config> told, proposed;
    uint64_t measured = 0;
    size_t cursor = seed * 7;  // walks the space in strides for configs to tell
    const auto tell = [&](const Config& c) {
      const Measurement m = medium_cost(c);
      s.observe(c, m);
      measured += m.status != ResultStatus::invalid;
    };
    for (int guard = 0; guard < 100000; ++guard) {
      for (int k = 0; k < 3 && measured + 3 < kBudget; ++k) {
        Config c;
        do c = every[(cursor += 37) % every.size()];
        while (proposed.count(c) || told.count(c));
        told.insert(c);
        tell(c);
      }
      const auto batch = s.propose(8);
      if (batch.empty()) break;
      for (const auto& c : batch) {
        EXPECT_FALSE(told.count(c)) << "proposed a config it was told of";
        EXPECT_TRUE(proposed.insert(c).second) << "proposed a config twice";
        tell(c);
      }
    }
    EXPECT_EQ(measured, kBudget);
    EXPECT_GT(told.size(), 50u);
  }
}

// A result reported twice, for a config it proposed, one it did not, or one
// outside the space, is charged to the budget once: the first result stands.
TYPED_TEST_P(ObservationRules, ChargesARepeatedResultOnce) {
  const auto space = medium_space();
  // The proposals left in a budget of 10 once each result is told `times` times.
  const auto left_after = [&](int times) {
    TypeParam s;
    s.start(space, {1, 10});
    const auto first = s.propose(4);
    EXPECT_EQ(first.size(), 4u);
    Config elsewhere{20, 8, 8, 0};
    while (std::find(first.begin(), first.end(), elsewhere) != first.end()) ++elsewhere[0];
    const Config outside{99, 1, 1, 0};
    for (int t = 0; t < times; ++t) {
      s.observe(first[0], Measurement::timed(50 + t));
      s.observe(elsewhere, Measurement::timed(40 + t));
      s.observe(outside, Measurement::timed(30 + t));
    }
    size_t left = 0;
    for (auto batch = s.propose(8); !batch.empty(); batch = s.propose(8)) left += batch.size();
    return left;
  };
  EXPECT_EQ(left_after(1), 4u);  // 10, less 3 results and 3 proposals still out
  EXPECT_EQ(left_after(2), left_after(1));
  EXPECT_EQ(left_after(3), left_after(1));
}

REGISTER_TYPED_TEST_SUITE_P(ObservationRules, TakesResultsItDidNotProposeAsKnowledge, ChargesARepeatedResultOnce);

// Both suites for one searcher: SearcherRules reads the registered name.
#define AOE_SEARCHER_RULES(Prefix, Class, registered_name)             \
  template <>                                                            \
  struct SearcherName<Class> {                                           \
    static constexpr const char* value = registered_name;               \
  };                                                                     \
  INSTANTIATE_TYPED_TEST_SUITE_P(Prefix, SearcherRules, Class);          \
  INSTANTIATE_TYPED_TEST_SUITE_P(Prefix, ObservationRules, Class)

REGISTER_TYPED_TEST_SUITE_P(SearcherRules, NeverProposesAConfigTwice, StartsFromTheDefaultConfig,
                            SpendsItsBudgetOnMeasurementsNotOnInvalidConfigs, CountsProposalsNotYetObserved,
                            CarriesOnWhenAskedBeforeEverythingIsObserved, EndsOnTinyAndExhaustedSpaces,
                            EndsOnASpaceWhereEverythingIsInvalid, HandlesSpacesTooLargeToCount,
                            TheSameSeedGivesTheSameProposals, LearnsFromConfigsMeasuredElsewhere,
                            ProposesThroughTheCTable);

}  // namespace aoe::search::testing
