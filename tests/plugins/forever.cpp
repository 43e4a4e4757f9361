// A searcher that never ends on its own and takes its time: random configs,
// repeats allowed, a pause per batch. Runs last until a stop condition or
// an interruption ends them, which is what the tests need.
#include <aoe/sdk/plugin.h>

#include <chrono>
#include <random>
#include <thread>

namespace {

using aoe::sdk::Config;

class Forever : public aoe::sdk::Searcher {
 public:
  void start(const aoe::sdk::TuningSpace& space, const aoe::sdk::SearchOptions& options) override {
    space_ = space;
    rng_.seed(options.seed);
  }

  std::vector<Config> propose(size_t max_count) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::vector<Config> out(max_count);
    for (auto& c : out)
      for (const auto& knob : space_.knobs) c.push_back(knob.values[rng_() % knob.values.size()]);
    return out;
  }

  void observe(const Config&, const aoe::sdk::Measurement&) override {}

 private:
  aoe::sdk::TuningSpace space_;
  std::mt19937_64 rng_;
};

}  // namespace

AOE_REGISTER_SEARCHER(Forever, "forever", "random configs without end, slowly");
