// A hill-climbing searcher built outside the aoe tree, against the installed
// SDK. From the space's default config it tries the unvisited neighbours
// (one knob moved one step in its domain), moves to the fastest config it
// has seen, and restarts at a random unvisited config when no step is left.
#include <aoe/sdk/plugin.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace {

using aoe::sdk::Config;
using aoe::sdk::Measurement;
using aoe::sdk::SearchOptions;
using aoe::sdk::TuningSpace;

constexpr double kUnmeasured = std::numeric_limits<double>::infinity();

class HillClimb : public aoe::sdk::Searcher {
 public:
  void start(const TuningSpace& space, const SearchOptions& options) override {
    space_ = space;
    rng_.seed(options.seed);
    budget_ = options.budget;
    proposed_ = 0;
    visited_.clear();
    move_to(space.in_domain(space.default_config) ? space.default_config : first_config(), kUnmeasured);
  }

  std::vector<Config> propose(size_t max_count) override {
    std::vector<Config> out;
    while (out.size() < max_count && proposed_ < budget_ && !exhausted()) {
      if (!visited_.count(current_)) {
        visit(current_, out);
      } else if (!frontier_.empty()) {
        Config next = std::move(frontier_.back());
        frontier_.pop_back();
        if (!visited_.count(next)) visit(next, out);
      } else if (out.empty()) {
        move_to(random_unvisited(), kUnmeasured);  // stuck on a local optimum
      } else {
        break;  // this batch's results may yet move us somewhere with steps left
      }
    }
    return out;
  }

  void observe(const Config& config, const Measurement& result) override {
    visited_.insert(config);  // the host may evaluate configs it did not ask us about
    if (result.ok() && result.time_us < current_cost_) move_to(config, result.time_us);
  }

 private:
  void visit(const Config& c, std::vector<Config>& out) {
    visited_.insert(c);
    out.push_back(c);
    ++proposed_;
  }

  bool exhausted() const { return static_cast<double>(visited_.size()) >= space_.size(); }

  void move_to(Config c, double cost) {
    current_ = std::move(c);
    current_cost_ = cost;
    frontier_ = neighbours(current_);
    // Shuffled by the seed so no knob is always tried first; rng_() % n keeps
    // the order the same on every standard library, unlike std::shuffle.
    for (size_t i = frontier_.size(); i > 1; --i) std::swap(frontier_[i - 1], frontier_[rng_() % i]);
  }

  std::vector<Config> neighbours(const Config& c) const {
    std::vector<Config> out;
    for (size_t k = 0; k < c.size(); ++k) {
      const auto& values = space_.knobs[k].values;
      const auto at = static_cast<size_t>(std::lower_bound(values.begin(), values.end(), c[k]) - values.begin());
      for (size_t step : {at - 1, at + 1}) {  // at - 1 wraps past the end when at is 0
        if (step >= values.size()) continue;
        Config n = c;
        n[k] = values[step];
        out.push_back(std::move(n));
      }
    }
    return out;
  }

  Config first_config() const {
    Config c;
    for (const auto& knob : space_.knobs) c.push_back(knob.values.front());
    return c;
  }

  Config random_config() {
    Config c;
    for (const auto& knob : space_.knobs) c.push_back(knob.values[rng_() % knob.values.size()]);
    return c;
  }

  // Only called while some config is unvisited, so the walk ends.
  Config random_unvisited() {
    for (int tries = 0; tries < 64; ++tries) {
      Config c = random_config();
      if (!visited_.count(c)) return c;
    }
    // The space is mostly visited: count on from a random config to the next unvisited one.
    Config c = random_config();
    while (visited_.count(c)) next_in_order(c);
    return c;
  }

  void next_in_order(Config& c) const {
    for (size_t k = c.size(); k-- > 0;) {
      const auto& values = space_.knobs[k].values;
      auto it = std::upper_bound(values.begin(), values.end(), c[k]);
      if (it != values.end()) {
        c[k] = *it;
        return;
      }
      c[k] = values.front();
    }
  }

  TuningSpace space_;
  std::mt19937_64 rng_;
  uint64_t budget_ = 0;
  uint64_t proposed_ = 0;
  std::set<Config> visited_;
  Config current_;
  double current_cost_ = kUnmeasured;
  std::vector<Config> frontier_;  // neighbours of current_ not yet proposed, tried from the back
};

}  // namespace

AOE_REGISTER_SEARCHER(HillClimb, "hill_climb",
                      "hill climbing from the default config, one knob one step at a time, with random restarts");
