// confirm_best: a search's winner goes to the bank only if it still wins
// when timed beside the incumbent, by a margin where timings are noisy.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <vector>

#include "aoe/sdk/device_client.h"
#include "host_services.h"
#include "side_by_side.h"

namespace aoe::modes {
namespace {

using aoe::sdk::Config;

// A device whose every op has one knob, 0..3, and whose timings are
// scripted per value, with the noise figure a real device would report.
struct Script {
  std::map<int64_t, double> time_us;
  double noise = 0;
};

class ScriptedCandidate final : public sdk::Candidate {
 public:
  explicit ScriptedCandidate(int64_t v) : value(v) {}
  int64_t value;
};

class ScriptedTask final : public sdk::DeviceTask {
 public:
  explicit ScriptedTask(const Script& s) : script_(s) {}
  sdk::TuningSpace space() const override {
    sdk::TuningSpace s;
    s.version = "1";
    s.knobs = {sdk::Knob::integer("k", sdk::KnobTag::schedule, 0, 3)};
    s.default_config = {0};
    return s;
  }
  sdk::Built build(const Config& c) override { return sdk::Built::ok(std::make_unique<ScriptedCandidate>(c[0])); }
  std::vector<sdk::Measurement> measure(const std::vector<sdk::Candidate*>& batch, const sdk::MeasureOptions&) override {
    std::vector<sdk::Measurement> out;
    for (auto* c : batch)
      out.push_back(sdk::Measurement::timed(script_.time_us.at(static_cast<ScriptedCandidate*>(c)->value), script_.noise, 9));
    return out;
  }

 private:
  const Script& script_;
};

class ScriptedDevice final : public sdk::Device {
 public:
  explicit ScriptedDevice(const Script& s) : script_(s) {}
  nlohmann::json describe() const override { return {{"soc_version", "scripted"}}; }
  std::unique_ptr<sdk::DeviceTask> prepare(const sdk::OpTask&) override { return std::make_unique<ScriptedTask>(script_); }

 private:
  const Script& script_;
};

class ConfirmBest : public ::testing::Test {
 protected:
  // Timed again side by side: the incumbent (value 0) and the winner (value 1).
  bool confirm(double search_us, Best& best, double& before_us) {
    aoe_device_ref ref{sizeof(aoe_device_ref), new ScriptedDevice(script), sdk::detail::device_vtable()};
    bool held;
    {
      const sdk::DeviceClient device(ref, sdk::Host(&services_));
      sdk::OpTask op;
      op.name = "op";
      op.op_type = "Relu";
      const auto task = device.prepare(op);
      best = Best{{1}, search_us};
      held = confirm_best(*task, std::nullopt, sdk::Measurement::timed(100, script.noise, 9), best, before_us);
    }
    ref.vtable->destroy(ref.self);
    return held;
  }
  Script script;
  aoe_host_services services_ = test::host_services();
};

TEST_F(ConfirmBest, KeepsAWinnerThatWinsAgainBesideTheDefault) {
  script.time_us = {{0, 101}, {1, 90}};
  Best best;
  double before = 100;
  EXPECT_TRUE(confirm(80, best, before));
  EXPECT_EQ(best.config, Config{1});
  EXPECT_DOUBLE_EQ(best.time_us, 90) << "the pair's figures are kept";
  EXPECT_DOUBLE_EQ(before, 101);
}

TEST_F(ConfirmBest, DropsAWinnerThatLosesBesideTheDefault) {
  // Fast when timed alone at a quiet moment, slower beside the default.
  script.time_us = {{0, 100}, {1, 104}};
  Best best;
  double before = 100;
  EXPECT_FALSE(confirm(80, best, before));
  EXPECT_EQ(best.config, Config{0}) << "the incumbent stays";
  EXPECT_DOUBLE_EQ(best.time_us, 100);
}

TEST_F(ConfirmBest, WantsAMarginWhereTimingsAreNoisy) {
  script.time_us = {{0, 100}, {1, 99.5}};
  Best best;
  double before = 100;
  script.noise = 0;
  EXPECT_TRUE(confirm(99, best, before)) << "a noiseless device: any win counts";
  script.noise = 0.02;
  EXPECT_FALSE(confirm(99, best, before)) << "0.5% is within what the same pair differs by";
  script.time_us[1] = 100 * (1 - kNoisyMargin) - 0.01;
  EXPECT_TRUE(confirm(99, best, before));
}

TEST_F(ConfirmBest, OnANoisyDeviceTheSearchsWinnerIsTimedBesideTheDefaultWhateverItsFigure) {
  // The default's figure came from a batch of its own, the winner's from the
  // search's: they do not compare, the pair does.
  script.time_us = {{0, 100}, {1, 95}};
  Best best;
  double before = 100;
  script.noise = 0.02;
  EXPECT_TRUE(confirm(120, best, before));
  EXPECT_DOUBLE_EQ(best.time_us, 95);
  script.noise = 0;
  EXPECT_FALSE(confirm(120, best, before)) << "noiseless figures compare: no second timing";
}

TEST(SearchStart, IsTheIncumbentWhereFiguresCompareAcrossBatches) {
  const Best incumbent{{2}, 50};
  EXPECT_EQ(search_start(incumbent, sdk::Measurement::timed(50, 0, 9)).config, Config{2});
  const Best noisy = search_start(incumbent, sdk::Measurement::timed(50, 0.01, 9));
  EXPECT_TRUE(noisy.config.empty());
  EXPECT_GT(noisy.time_us, 1e300);
}

}  // namespace
}  // namespace aoe::modes
