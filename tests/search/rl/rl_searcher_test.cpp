// The RL searcher: never repeating, bounded by its budget (invalid configs
// free) and its space, deterministic for a seed, and better than uniform
// random search with the same budget on a vector-op-like space and on a
// constrained cube-op-like one, where it must also spend its whole budget.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <set>

#include "plugin_library.h"
#include "aoe/sdk/searcher_client.h"
#include "rl_searcher.h"
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

// 32 x 13 x 2 x 2 = 1664 configs, a conservative default.
sdk::TuningSpace vector_space() {
  return space_of({Knob::integer("block_dim", KnobTag::schedule, 1, 32),
                   Knob::power_of_two("ub_factor", KnobTag::schedule, 1, 4096),
                   Knob::categorical("db", KnobTag::schedule, {"off", "on"}),
                   Knob::categorical("impl", KnobTag::impl, {"vector", "fused"})},
                  {16, 256, 0, 0});
}

// An elementwise op over 3M fp16 values on 32 cores with a 2048-element
// buffer: each tile is moved in, computed and moved out, the three
// overlapped under double buffering; HBM is shared past 16 cores. The fused
// implementation moves a quarter fewer bytes for a longer set-up, which pays
// only when the moves are overlapped. Tiles that overflow the buffer are refused.
Measurement vector_op(const Config& c) {
  const int64_t block_dim = c[0], ub = c[1];
  const bool db = c[2] == 1, fused = c[3] == 1;
  if (ub * (db ? 2 : 1) > 2048) return Measurement::failed(ResultStatus::invalid, "UB overflow");
  const double per_core = std::ceil(3e6 / static_cast<double>(block_dim));
  const double tiles = std::ceil(per_core / static_cast<double>(ub));
  const double rate = std::min(32.0, 512.0 / static_cast<double>(block_dim));  // bytes per cycle per core
  const double move = 300 + static_cast<double>(ub) * (fused ? 1.5 : 2.0) / rate;
  const double compute = (fused ? 250 : 50) + static_cast<double>(ub) / 8;
  const double stages = 2 * move + compute;
  const double cycles = db ? (tiles - 1) * std::max(move, compute) + stages : tiles * stages;
  return Measurement::timed(3 + 0.05 * static_cast<double>(block_dim) + cycles / 1000);
}

// A cube op's tiling, 32 x 2 x 7 x 5 x 5 x 5 x 2 x 2 = 224000 configs, 23%
// valid, with a default that runs, sits on the buffers' edges, and is 1.46x
// off the optimum {28, rows, 2, 8, 8, 4, on, on}.
sdk::TuningSpace cube_space() {
  return space_of({Knob::integer("block_dim", KnobTag::schedule, 1, 32),
                   Knob::categorical("split", KnobTag::schedule, {"rows", "cout"}),
                   Knob::power_of_two("h_l1", KnobTag::schedule, 1, 64),
                   Knob::power_of_two("m_l0", KnobTag::schedule, 1, 16),
                   Knob::power_of_two("n_l0", KnobTag::schedule, 1, 16),
                   Knob::power_of_two("k_l0", KnobTag::schedule, 1, 16),
                   Knob::categorical("db_l1", KnobTag::schedule, {"off", "on"}),
                   Knob::categorical("db_l0", KnobTag::schedule, {"off", "on"})},
                  {32, 0, 2, 8, 4, 4, 1, 1});
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// 56 output rows of 56 positions, 16 Cout and 36 K fractals. Cores split the
// rows or Cout; buffer sizes are products of tile sizes, doubled by double
// buffering, so validity couples block_dim, split, h_l1 and the L0 tiles.
// Most configs that run are far slower than the default, as on a real conv.
Measurement cube_op(const Config& c) {
  constexpr int64_t kRows = 56, kWidth = 56, kCout = 16, kDepth = 36;
  const int64_t block_dim = c[0], h = c[2], m = c[3], n = c[4], k = c[5];
  const bool by_rows = c[1] == 0, db_l1 = c[6] == 1, db_l0 = c[7] == 1;
  if (block_dim > (by_rows ? kRows : kCout)) return Measurement::failed(ResultStatus::invalid, "too many cores");
  const int64_t rows = by_rows ? ceil_div(kRows, block_dim) : kRows;
  const int64_t cout = by_rows ? kCout : ceil_div(kCout, block_dim);
  const int64_t l0 = db_l0 ? 2 : 1, l1 = db_l1 ? 2 : 1, m_rows = ceil_div(h * kWidth, 16);
  if (h > rows || m > 2 * m_rows || n > 2 * cout) return Measurement::failed(ResultStatus::invalid, "oversized tile");
  if (m * k * l0 > 64 || n * k * l0 > 64 || m * n * l0 > 128) return Measurement::failed(ResultStatus::invalid, "L0 overflow");
  if (h * (k + n) * l1 > 384) return Measurement::failed(ResultStatus::invalid, "L1 overflow");
  const int64_t mt = std::min(m, m_rows), nt = std::min(n, cout), kt = k;
  const int64_t inner = ceil_div(cout, nt) * ceil_div(kDepth, kt);
  const double tiles = static_cast<double>(ceil_div(rows, h) * ceil_div(m_rows, mt) * inner);
  const double mac = static_cast<double>(mt * nt * kt), load = 4.0 * static_cast<double>((mt + nt) * kt);
  const double step = db_l0 ? std::max(mac, load) + 20 : mac + load + 60;
  const double l1_load = 30.0 * static_cast<double>(h * (k + n)) / (db_l1 ? 3 : 1) + 400;
  const double hbm = block_dim > 16 ? static_cast<double>(block_dim) / 16 : 1.0;  // shared past 16 cores
  return Measurement::timed(5 + 0.1 * static_cast<double>(block_dim) +
                            0.002 * tiles * (step + l1_load / static_cast<double>(inner)) * hbm);
}

Measurement refuse_all(const Config&) { return Measurement::failed(ResultStatus::invalid, "never fits"); }

std::vector<Config> all_configs(const sdk::TuningSpace& space) {
  std::vector<Config> out{{}};
  for (const auto& knob : space.knobs) {
    std::vector<Config> longer;
    for (const auto& c : out)
      for (int64_t v : knob.values) {
        longer.push_back(c);
        longer.back().push_back(v);
      }
    out = std::move(longer);
  }
  return out;
}

struct Optimum {
  Config config;
  double time_us = std::numeric_limits<double>::infinity();
};

Optimum optimum(const sdk::TuningSpace& space, const Objective& f) {
  Optimum best;
  for (const auto& c : all_configs(space)) {
    const auto m = f(c);
    if (m.ok() && m.time_us < best.time_us) best = {c, m.time_us};
  }
  return best;
}

struct Trace {
  std::vector<Config> proposed;
  uint64_t counted = 0;  // observed results other than invalid
  double best_us = std::numeric_limits<double>::infinity();
  Config best;
};

// Proposes in batches of `batch`, observing each batch, until the searcher says it is done.
Trace tune(RlSearcher& s, const sdk::TuningSpace& space, const Objective& f, uint64_t seed, uint64_t budget,
           size_t batch = 8) {
  s.start(space, {seed, budget});
  Trace t;
  for (int guard = 0; guard < 100000; ++guard) {
    const auto next = s.propose(batch);
    if (next.empty()) break;
    EXPECT_LE(next.size(), batch);
    for (const auto& c : next) {
      const auto m = f(c);
      s.observe(c, m);
      t.proposed.push_back(c);
      if (m.status != ResultStatus::invalid) ++t.counted;
      if (m.ok() && m.time_us < t.best_us) {
        t.best_us = m.time_us;
        t.best = c;
      }
    }
  }
  return t;
}

Trace tune(const sdk::TuningSpace& space, const Objective& f, uint64_t seed, uint64_t budget, size_t batch = 8) {
  RlSearcher s;
  return tune(s, space, f, seed, budget, batch);
}

// Uniform random search under the same rule: `budget` measurements, invalid ones free.
double random_best(const sdk::TuningSpace& space, const Objective& f, uint64_t seed, uint64_t budget) {
  std::mt19937_64 rng(seed);
  auto below = [&](uint64_t n) {
    const uint64_t reject_under = (0 - n) % n;
    uint64_t x = rng();
    while (x < reject_under) x = rng();
    return x % n;
  };
  auto configs = all_configs(space);
  double best = std::numeric_limits<double>::infinity();
  uint64_t counted = 0;
  for (size_t i = 0; i < configs.size() && counted < budget; ++i) {
    std::swap(configs[i], configs[i + below(configs.size() - i)]);
    const auto m = f(configs[i]);
    if (m.status != ResultStatus::invalid) ++counted;
    if (m.ok()) best = std::min(best, m.time_us);
  }
  return best;
}

bool distinct(const std::vector<Config>& all) { return std::set<Config>(all.begin(), all.end()).size() == all.size(); }

TEST(RlSearcher, ProposesTheDefaultFirst) {
  RlSearcher s;
  s.start(vector_space(), {1, 64});
  const auto first = s.propose(4);
  ASSERT_EQ(first.size(), 4u);
  EXPECT_EQ(first[0], (Config{16, 256, 0, 0}));
}

TEST(RlSearcher, NeverProposesAConfigTwice) {
  const auto space = vector_space();
  for (uint64_t seed : {1, 2, 3}) {
    const auto t = tune(space, vector_op, seed, 400, 16);
    EXPECT_EQ(t.counted, 400u);
    EXPECT_TRUE(distinct(t.proposed));
    for (const auto& c : t.proposed) EXPECT_TRUE(space.in_domain(c));
  }
}

TEST(RlSearcher, CountsEverythingButInvalidAgainstItsBudget) {
  // Every proposal counts until observed; an invalid result frees its place.
  RlSearcher s;
  s.start(vector_space(), {1, 10});
  std::vector<Config> out;
  for (size_t n : {4, 4, 4}) {
    const auto batch = s.propose(n);
    out.insert(out.end(), batch.begin(), batch.end());
  }
  ASSERT_EQ(out.size(), 10u);
  EXPECT_TRUE(s.propose(4).empty());
  s.observe(out[0], Measurement::timed(5));
  s.observe(out[1], Measurement::failed(ResultStatus::build_failed, "no"));
  s.observe(out[2], Measurement::failed(ResultStatus::timeout, "no"));
  EXPECT_TRUE(s.propose(4).empty());
  s.observe(out[3], Measurement::failed(ResultStatus::invalid, "no"));
  s.observe(out[4], Measurement::failed(ResultStatus::invalid, "no"));
  s.observe(out[4], Measurement::failed(ResultStatus::invalid, "no"));  // told twice: counted once
  s.observe({1, 1, 1, 1}, Measurement::failed(ResultStatus::invalid, "never proposed"));
  EXPECT_EQ(s.propose(4).size(), 2u);
  EXPECT_TRUE(s.propose(4).empty());

  // Observed in full: ok, failed and invalid results on the real space.
  for (uint64_t seed : {4, 5}) {
    const auto t = tune(vector_space(), vector_op, seed, 64);
    EXPECT_EQ(t.counted, 64u);
    size_t invalid = 0;
    for (const auto& c : t.proposed) invalid += vector_op(c).status == ResultStatus::invalid;
    EXPECT_EQ(t.proposed.size(), 64u + invalid);
  }
  s.start(vector_space(), {1, 0});
  EXPECT_TRUE(s.propose(4).empty());
}

TEST(RlSearcher, ExhaustsATinySpaceExactly) {
  const auto space = space_of({Knob::integer("a", KnobTag::schedule, 0, 2),
                               Knob::categorical("b", KnobTag::impl, {"x", "y"})},
                              {1, 0});
  const auto t = tune(space, [](const Config& c) { return Measurement::timed(1.0 + c[0] + c[1]); }, 3, 1000, 4);
  ASSERT_EQ(t.proposed.size(), 6u);
  EXPECT_EQ(std::set<Config>(t.proposed.begin(), t.proposed.end()),
            (std::set<Config>{{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {2, 1}}));
  // One config, no knobs at all, an empty domain.
  const Objective flat = [](const Config&) { return Measurement::timed(1); };
  EXPECT_EQ(tune(space_of({Knob::integer("a", KnobTag::schedule, 7, 7)}), flat, 1, 10).proposed.size(), 1u);
  EXPECT_EQ(tune(space_of({}), flat, 1, 10).proposed.size(), 1u);
  auto empty = space_of({Knob::integer("a", KnobTag::schedule, 0, 3)});
  empty.knobs[0].values.clear();
  EXPECT_TRUE(tune(empty, flat, 1, 10).proposed.empty());
}

TEST(RlSearcher, EndsOnAnAllInvalidSpace) {
  // Invalid results cost nothing, so only the space or the cap of 50 x budget ends it.
  const auto tiny = space_of({Knob::integer("a", KnobTag::schedule, 0, 2),
                              Knob::categorical("b", KnobTag::impl, {"x", "y"})});
  const auto small = tune(tiny, refuse_all, 1, 100);
  EXPECT_EQ(small.proposed.size(), 6u);
  const auto large = tune(vector_space(), refuse_all, 1, 10);
  EXPECT_EQ(large.proposed.size(), 500u);
  EXPECT_TRUE(distinct(large.proposed));
  EXPECT_EQ(large.counted, 0u);
}

TEST(RlSearcher, TheSameSeedAndObservationsGiveTheSameProposals) {
  const auto space = vector_space();
  const auto a = tune(space, vector_op, 42, 100);
  EXPECT_EQ(a.proposed, tune(space, vector_op, 42, 100).proposed);
  EXPECT_NE(a.proposed, tune(space, vector_op, 43, 100).proposed);
  // Other results steer it elsewhere.
  EXPECT_NE(a.proposed, tune(space, [](const Config& c) { return Measurement::timed(100.0 - c[0]); }, 42, 100).proposed);
}

TEST(RlSearcher, TakesMoreProposalsBeforeTheLastAreObserved) {
  const auto space = vector_space();
  RlSearcher s;
  s.start(space, {9, 40});
  std::vector<Config> all, unobserved;
  for (int round = 0; round < 100; ++round) {
    const auto batch = s.propose(6);
    if (batch.empty() && unobserved.empty()) break;
    unobserved.insert(unobserved.end(), batch.begin(), batch.end());
    all.insert(all.end(), batch.begin(), batch.end());
    // Observe only the oldest half of what is out.
    const size_t tell = (unobserved.size() + 1) / 2;
    for (size_t i = 0; i < tell; ++i) s.observe(unobserved[i], vector_op(unobserved[i]));
    unobserved.erase(unobserved.begin(), unobserved.begin() + static_cast<std::ptrdiff_t>(tell));
  }
  EXPECT_TRUE(distinct(all));
  size_t counted = 0;
  for (const auto& c : all) counted += vector_op(c).status != ResultStatus::invalid;
  EXPECT_EQ(counted, 40u);
}

TEST(RlSearcher, HandlesSpacesTooLargeToCount) {
  // 64^12 = 2^72 configs.
  std::vector<Knob> knobs;
  for (int i = 0; i < 12; ++i) knobs.push_back(Knob::integer("k" + std::to_string(i), KnobTag::schedule, 0, 63));
  const auto space = space_of(knobs);
  const Objective bowl = [](const Config& c) {
    double t = 1;
    for (auto v : c) t += static_cast<double>((v - 40) * (v - 40));
    return Measurement::timed(t);
  };
  const auto t = tune(space, bowl, 5, 300, 50);
  ASSERT_EQ(t.proposed.size(), 300u);
  EXPECT_TRUE(distinct(t.proposed));
  for (const auto& c : t.proposed) EXPECT_TRUE(space.in_domain(c));
}

TEST(RlSearcher, HandlesKnobsOfManyValues) {
  const auto space = space_of({Knob::integer("tile", KnobTag::schedule, 1, 50000),
                               Knob::integer("block_dim", KnobTag::schedule, 1, 2000)});
  const Objective valley = [](const Config& c) {
    return Measurement::timed(1 + std::abs(static_cast<double>(c[0] - 31000)) + std::abs(static_cast<double>(c[1] - 700)));
  };
  const auto t = tune(space, valley, 2, 64, 16);
  EXPECT_EQ(t.proposed.size(), 64u);
  EXPECT_TRUE(distinct(t.proposed));
}

// Budget 64, 20 seeds: the mean of best found / optimum, lower is better.
TEST(RlSearcher, BeatsUniformRandomSearchOnAVectorOp) {
  const auto space = vector_space();
  const auto best = optimum(space, vector_op);
  double rl = 0, random = 0;
  int rl_wins = 0;
  constexpr int kSeeds = 20;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    const double a = tune(space, vector_op, seed, 64).best_us / best.time_us;
    const double b = random_best(space, vector_op, seed, 64) / best.time_us;
    rl += a;
    random += b;
    rl_wins += a < b;
  }
  rl /= kSeeds;
  random /= kSeeds;
  std::printf("vector op: optimum %.2f us at {%lld, %lld, %lld, %lld}, default %.2f us\n", best.time_us,
              static_cast<long long>(best.config[0]), static_cast<long long>(best.config[1]),
              static_cast<long long>(best.config[2]), static_cast<long long>(best.config[3]),
              vector_op(space.default_config).time_us);
  std::printf("budget 64, %d seeds: mean best/optimum rl %.4f, random %.4f; rl better on %d seeds\n", kSeeds, rl,
              random, rl_wins);
  EXPECT_LT(rl, random);
}

// Every config that runs is slower than the default, and layout "packed"
// never runs: a refused config must still score below the mean of those that
// run, so the policy leaves "packed" rather than drifting into it.
TEST(RlSearcher, MovesAwayFromWhatNeverRunsWhenEverythingThatRunsIsSlower) {
  const auto space = space_of({Knob::integer("block_dim", KnobTag::schedule, 1, 32),
                               Knob::categorical("layout", KnobTag::schedule, {"plain", "tiled", "packed"}),
                               Knob::power_of_two("tile", KnobTag::schedule, 1, 64)},
                              {8, 0, 8});
  const Objective slower = [](const Config& c) {
    if (c[1] == 2) return Measurement::failed(ResultStatus::invalid, "packed never fits");
    return Measurement::timed(10.0 + 5.0 * static_cast<double>(std::abs(c[0] - 8)) + 10.0 * c[1] +
                              5.0 * std::abs(std::log2(static_cast<double>(c[2])) - 3));
  };
  constexpr int kSeeds = 20;
  // Room for some 50 draws of the policy's own: the rest of the proposals
  // are random or local steps, which teach it nothing.
  constexpr uint64_t kBudget = 128;
  double start = 0, end = 0;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    RlSearcher s;
    s.start(space, {seed, kBudget});
    start += s.policy().marginal(1)[2] / kSeeds;
    const auto t = tune(s, space, slower, seed, kBudget);
    EXPECT_EQ(t.counted, kBudget);
    s.propose(1);  // learns from the last batch
    end += s.policy().marginal(1)[2] / kSeeds;
  }
  std::printf("pi(layout = packed), mean of %d seeds: %.3f at the start, %.3f at the end\n", kSeeds, start, end);
  EXPECT_LT(end, 0.75 * start);
}

// Most draws are invalid there and most configs that run are slower than the
// default: the searcher must still spend its whole budget, and beat random.
TEST(RlSearcher, SpendsItsBudgetAndBeatsUniformRandomSearchOnAConstrainedCubeOp) {
  const auto space = cube_space();
  const auto best = optimum(space, cube_op);
  double rl = 0, random = 0;
  int rl_wins = 0;
  size_t proposed = 0;
  constexpr int kSeeds = 20;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    const auto t = tune(space, cube_op, seed, 64);
    EXPECT_EQ(t.counted, 64u) << "seed " << seed;
    const double a = t.best_us / best.time_us;
    const double b = random_best(space, cube_op, seed, 64) / best.time_us;
    rl += a;
    random += b;
    rl_wins += a < b;
    proposed += t.proposed.size();
  }
  rl /= kSeeds;
  random /= kSeeds;
  std::printf("cube op: optimum %.2f us, default %.2f us\n", best.time_us, cube_op(space.default_config).time_us);
  std::printf("budget 64, %d seeds: mean best/optimum rl %.4f, random %.4f; rl better on %d seeds; %.1f proposals per run\n",
              kSeeds, rl, random, rl_wins, static_cast<double>(proposed) / kSeeds);
  EXPECT_LT(rl, random);
}

// The probability of the best config found, and of the optimum's value on each knob, rises.
TEST(RlSearcher, ConcentratesThePolicyOnWhatItFound) {
  const auto space = vector_space();
  const auto optimal = optimum(space, vector_op);
  constexpr int kSeeds = 20;
  int rose = 0;
  double found_start = 0, found_end = 0;
  std::vector<double> knob_start(space.knobs.size()), knob_end(space.knobs.size());
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    RlSearcher s;
    s.start(space, {seed, 64});
    const AutoregressivePolicy initial = s.policy();
    const auto t = tune(s, space, vector_op, seed, 64);
    EXPECT_TRUE(s.propose(1).empty());  // learns from the last batch, proposes nothing
    const auto found = s.choices_of(t.best);
    const double start = initial.probability(found), end = s.policy().probability(found);
    rose += end > start;
    found_start += start / kSeeds;
    found_end += end / kSeeds;
    const auto target = s.choices_of(optimal.config);
    for (size_t i = 0; i < target.size(); ++i) {
      knob_start[i] += initial.marginal(i)[target[i]] / kSeeds;
      knob_end[i] += s.policy().marginal(i)[target[i]] / kSeeds;
    }
  }
  std::printf("pi(best found), mean of %d seeds: %.2e at the start, %.2e at the end; rose on %d seeds\n", kSeeds,
              found_start, found_end, rose);
  EXPECT_GE(rose, 17);
  for (size_t i = 0; i < space.knobs.size(); ++i) {
    std::printf("  pi(%s = %lld), the optimum's: %.3f -> %.3f\n", space.knobs[i].name.c_str(),
                static_cast<long long>(optimal.config[i]), knob_start[i], knob_end[i]);
    EXPECT_GT(knob_end[i], knob_start[i]) << space.knobs[i].name;
  }
}

TEST(RlSearcher, ProposesThroughTheCTable) {
  const aoe_plugin_descriptor* d = ::aoe::test::tested_plugin().query();
  const aoe_component* rl = nullptr;
  for (uint32_t i = 0; i < d->component_count; ++i)
    if (std::strcmp(d->components[i].name, "rl") == 0) rl = &d->components[i];
  ASSERT_NE(rl, nullptr);
  EXPECT_EQ(rl->kind, AOE_KIND_SEARCHER);
  void* self = nullptr;
  ASSERT_EQ(::aoe::test::tested_plugin().create("rl", nullptr, &self), nullptr);
  ASSERT_NE(self, nullptr);
  sdk::SearcherClient client({sizeof(aoe_searcher_ref), self, static_cast<const aoe_searcher_vtable*>(rl->vtable)},
                             sdk::Host());
  const auto space = vector_space();
  client.start(space, {42, 100});
  std::vector<Config> all;
  for (auto batch = client.propose(8); !batch.empty(); batch = client.propose(8)) {
    for (const auto& c : batch) client.observe(c, vector_op(c));
    all.insert(all.end(), batch.begin(), batch.end());
  }
  EXPECT_EQ(all, tune(space, vector_op, 42, 100).proposed);
}

}  // namespace
}  // namespace aoe::search

namespace aoe::search::testing {

AOE_SEARCHER_RULES(Rl, RlSearcher, "rl");

}  // namespace aoe::search::testing
