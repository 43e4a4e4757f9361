// Synthetic tuning problems for searcher tests: spaces, cost functions with
// a coupled buffer constraint, a driver that plays the device, and a contest
// against uniform random search and the GA over many seeds.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <set>
#include <vector>

#include "aoe/sdk/searcher.h"
#include "ga_searcher.h"
#include "random_searcher.h"

namespace aoe::search::testing {

using sdk::Config;
using sdk::Knob;
using sdk::KnobTag;
using sdk::Measurement;
using sdk::ResultStatus;
using Objective = std::function<Measurement(const Config&)>;

inline sdk::TuningSpace space_of(std::vector<Knob> knobs, Config default_config = {}) {
  sdk::TuningSpace s;
  s.knobs = std::move(knobs);
  s.default_config = std::move(default_config);
  return s;
}

// 32 x 5 x 5 x 2 = 1600 configs.
inline sdk::TuningSpace medium_space() {
  return space_of(
      {Knob::integer("block_dim", KnobTag::schedule, 1, 32), Knob::power_of_two("m_l0", KnobTag::schedule, 1, 16),
       Knob::power_of_two("n_l0", KnobTag::schedule, 1, 16), Knob::categorical("db", KnobTag::schedule, {"off", "on"})},
      {8, 4, 2, 1});
}

// Tiles past 64 elements do not fit; block_dim 13 hangs.
inline Measurement medium_cost(const Config& c) {
  if (c[1] * c[2] > 64) return Measurement::failed(ResultStatus::invalid, "does not fit");
  if (c[0] == 13) return Measurement::failed(ResultStatus::timeout, "hung");
  return Measurement::timed(1000.0 / static_cast<double>(c[1] * c[2]) + std::abs(static_cast<double>(c[0] - 20)) +
                            3.0 * static_cast<double>(c[3]));
}

inline Measurement refuse_all(const Config&) { return Measurement::failed(ResultStatus::invalid, "never fits"); }

struct SearchRun {
  std::vector<Config> proposed;
  uint64_t measured = 0;  // observations other than invalid
  double best = std::numeric_limits<double>::infinity();
};

// Proposes in batches, observing each batch, until the searcher is done or,
// when `measurements` is set, that many results other than invalid are in.
inline SearchRun drain(sdk::Searcher& s, size_t batch, const Objective& cost, uint64_t measurements = 0) {
  SearchRun run;
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

template <class S>
SearchRun run_searcher(const sdk::TuningSpace& space, uint64_t seed, uint64_t budget, const Objective& cost,
                       size_t batch = 8) {
  S s;
  s.start(space, {seed, budget});
  return drain(s, batch, cost);
}

inline bool unique(const std::vector<Config>& all) {
  return std::set<Config>(all.begin(), all.end()).size() == all.size();
}

// --- A tiling problem ---------------------------------------------------------
//
// 7 x 7 x 6 x 16 x 8 x 2 = 75264 configs. The device refuses a tiling whose
// input tiles, held once or twice over, pass the L0 buffer ((m + n) * k *
// buffers > 512), whose output tile passes L0C (m * n > 512), or that keeps
// too many blocks in flight (block_dim * unroll > 20): 24% of configs fit.
// Bigger tiles amortise more, so the fastest tilings sit on the edge of what fits.

inline sdk::TuningSpace tiling_space() {
  return space_of(
      {Knob::power_of_two("m_l0", KnobTag::schedule, 1, 64), Knob::power_of_two("n_l0", KnobTag::schedule, 1, 64),
       Knob::power_of_two("k_l0", KnobTag::schedule, 1, 32), Knob::integer("block_dim", KnobTag::schedule, 1, 16),
       Knob::integer("unroll", KnobTag::schedule, 1, 8),
       Knob::categorical("buffers", KnobTag::schedule, {"single", "double"})},
      {8, 8, 4, 4, 2, 0});
}

inline bool fits(const Config& c) {
  const int64_t buffers = c[5] == 1 ? 2 : 1;
  return (c[0] + c[1]) * c[2] * buffers <= 512 && c[0] * c[1] <= 512 && c[3] * c[4] <= 20;
}

inline double log2i(int64_t v) { return std::log2(static_cast<double>(v)); }

// Smooth: tile overheads fall as tiles grow, blocks trade launch cost against
// spread, unrolling has a sweet spot, and double buffering hides loads.
inline double edge_cost(const Config& c) {
  const auto m = static_cast<double>(c[0]), n = static_cast<double>(c[1]), k = static_cast<double>(c[2]);
  const auto b = static_cast<double>(c[3]), u = static_cast<double>(c[4]);
  return 40 * (64 / m + 64 / n) + 30 * 32 / k + 1500 / b + 4 * b + 6 * (u - 3) * (u - 3) + (c[5] == 1 ? 0 : 60);
}

// A deterministic bump per config in [0, 1): the noise of a real cost surface.
inline double bump(const Config& c) {
  uint64_t h = 1469598103934665603ull;
  for (int64_t v : c) h = (h ^ static_cast<uint64_t>(v)) * 1099511628211ull;
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 32;
  return static_cast<double>(h % 1000) / 1000.0;
}

// Ripples along each knob, knobs that interact, per-config bumps, and a
// second basin far from the first and nearly as deep.
inline double rugged_cost(const Config& c) {
  const double pi = 3.14159265358979323846;
  const double dm = log2i(c[0]) - 4, dn = log2i(c[1]) - 5, dk = log2i(c[2]) - 3;
  const double db = static_cast<double>(c[3] - 14), du = static_cast<double>(c[4] - 1);
  const double first = 150 + 6 * dm * dm + 6 * dn * dn + 4 * dk * dk + 0.5 * db * db + 1.5 * du * du;
  const double em = log2i(c[0]) - 1, en = log2i(c[1]) - 2, eb = static_cast<double>(c[3] - 3);
  const double second = 158 + 8 * em * em + 8 * en * en + 2 * eb * eb;
  double ripples = 0;
  for (double d : {dm, dn, dk, db, du}) ripples += 10 * (1 - std::cos(2 * pi * d / 3));
  const double interaction = 6 * std::abs(dm - dn + 1) + 1.5 * std::abs(db - 2 * du) + (c[5] == 1 ? 0 : 8);
  return std::min(first, second) + ripples + interaction + 40 * bump(c);
}

inline Objective constrained(double (*cost)(const Config&)) {
  return [cost](const Config& c) {
    if (!fits(c)) return Measurement::failed(ResultStatus::invalid, "does not fit");
    return Measurement::timed(cost(c));
  };
}

inline double optimum(const sdk::TuningSpace& space, const Objective& cost) {
  double best = std::numeric_limits<double>::infinity();
  sdk::for_each_config(space, [&](const Config& c) {
    const auto m = cost(c);
    if (m.ok()) best = std::min(best, m.time_us);
  });
  return best;
}

// --- The contest ----------------------------------------------------------------

// About 0.1% and 1% of the tiling space.
inline constexpr uint64_t kContestBudgets[] = {64, 750};

struct Standing {
  double mean = 0;  // of best found / optimum
  double worst = 0;
  double random_mean = 0;
  double ga_mean = 0;
  int wins = 0;          // seeds on which the searcher beat random search
  double proposals = 0;  // per measurement, refused configs included
};

// The searcher, uniform random search and the GA over 20 seeds, each held to
// `budget` measurements (invalid ones free): best found / true optimum.
// `inspect`, if set, sees each run's searcher when its search is over.
inline Standing contest(const char* searcher, const char* objective, const Objective& cost, uint64_t budget,
                        const std::function<std::unique_ptr<sdk::Searcher>()>& make,
                        const std::function<void(const sdk::Searcher&)>& inspect = {}) {
  const auto space = tiling_space();
  const double best = optimum(space, cost);
  constexpr int kSeeds = 20;
  Standing f;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    auto s = make();
    s->start(space, {seed, budget});
    const SearchRun mine = drain(*s, 8, cost);
    if (inspect) inspect(*s);
    EXPECT_EQ(mine.measured, budget);
    EXPECT_TRUE(unique(mine.proposed));
    // Random search is given the whole space and stopped at the same number of measurements.
    RandomSearcher random;
    random.start(space, {seed, static_cast<uint64_t>(space.size())});
    const SearchRun r = drain(random, 8, cost, budget);
    GaSearcher ga;
    ga.start(space, {seed, budget});
    const SearchRun g = drain(ga, 8, cost);
    const double ratio = mine.best / best, random_ratio = r.best / best;
    f.mean += ratio / kSeeds;
    f.random_mean += random_ratio / kSeeds;
    f.ga_mean += g.best / best / kSeeds;
    f.worst = std::max(f.worst, ratio);
    f.proposals += static_cast<double>(mine.proposed.size()) / static_cast<double>(budget) / kSeeds;
    f.wins += ratio < random_ratio;
  }
  std::printf(
      "%-9s %-6s space %.0f, budget %4llu (%5.2f%%), optimum %.2f us; mean best/optimum over %d seeds: "
      "%s %.4f (worst %.4f), random %.4f, ga %.4f; beats random on %d seeds; %.1f proposals per measurement\n",
      searcher, objective, space.size(), static_cast<unsigned long long>(budget),
      100.0 * static_cast<double>(budget) / space.size(), best, kSeeds, searcher, f.mean, f.worst, f.random_mean,
      f.ga_mean, f.wins, f.proposals);
  return f;
}

}  // namespace aoe::search::testing
