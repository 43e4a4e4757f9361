// The replay device on the project's own recordings: a simulator space that
// aoe_record_space walked and wrote at build time, in Kernel Tuner's current
// layout (with a kernel description) and its older one (the cachefile
// alone), replays exactly what the simulator times, through the classes and
// through the C table a host sees.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <optional>

#include "aoe/sdk/device_client.h"
#include "plugin_library.h"
#include "host_services.h"
#include "recorded_data.h"
#include "replay_device.h"
#include "sim_device.h"
#include "soc_files.h"

namespace aoe::replay {
namespace {

namespace fs = std::filesystem;
using sdk::Config;

const fs::path kTask = AOE_RECORDED_TASK;
const fs::path kCurrent = test::own_recordings() / "reducemean_ascend910.json";
const fs::path kDescription = test::own_recordings() / "reducemean.kernel.json";
const fs::path kOlder = test::own_recordings() / "older" / "reducemean_ascend910.json";

sdk::OpTask recorded_task() {
  std::ifstream in(kTask);
  return nlohmann::json::parse(in).get<sdk::OpTask>();
}

std::unique_ptr<sdk::DeviceTask> simulated() {
  static sim::SimDevice device(sim::load_soc("ascend910"), sim::SimOptions{});
  return device.prepare(recorded_task());
}

ReplayOptions options(const fs::path& cachefile, std::optional<fs::path> kernel = std::nullopt) {
  ReplayOptions o;
  o.cachefile = cachefile;
  o.kernel = std::move(kernel);
  return o;
}

// The simulator's config as the recording names it: the values as they are shown.
nlohmann::json shown(const sdk::TuningSpace& space, const Config& c) { return space.describe(c); }

sdk::Measurement evaluate(sdk::DeviceTask& task, const Config& config) {
  const auto verdict = task.check(config);
  if (!verdict.ok()) return verdict;
  auto built = task.build(config);
  if (!built.candidate) return built.failure;
  return task.measure({built.candidate.get()}, {})[0];
}

TEST(OwnRecording, ReplaysEveryConfigAsTheSimulatorTimesIt) {
  auto sim = simulated();
  ReplayDevice replay(options(kCurrent, kDescription));
  auto task = replay.prepare(recorded_task());
  const auto& sim_space = sim->space();
  const auto& space = task->space();
  ASSERT_EQ(space.knobs.size(), sim_space.knobs.size());
  EXPECT_EQ(space.size(), sim_space.size());
  size_t valid = 0;
  double fastest = 1e300;
  sdk::for_each_config(sim_space, [&](const Config& c) {
    // The same config in the replayed space: knob by knob, by the value shown.
    Config r(c.size());
    for (size_t k = 0; k < c.size(); ++k) {
      const auto v = space.knobs[k].value_of(sim_space.knobs[k].display(c[k]));
      ASSERT_TRUE(v) << sim_space.knobs[k].name;
      r[k] = *v;
    }
    const auto expected = evaluate(*sim, c);
    const auto got = evaluate(*task, r);
    ASSERT_EQ(got.ok(), expected.ok()) << shown(sim_space, c).dump();
    if (!expected.ok()) return;
    ++valid;
    fastest = std::min(fastest, expected.time_us);
    EXPECT_NEAR(got.time_us, expected.time_us, 1e-9 * expected.time_us) << shown(sim_space, c).dump();
  });
  ASSERT_GT(valid, 1u);
  const auto described = replay.describe();
  EXPECT_EQ(described.at("configs").at("recorded"), valid);
  EXPECT_EQ(described.at("kernel"), "ReduceMean");
  EXPECT_NEAR(described.at("optimum").at("time_us").get<double>(), fastest, 1e-9 * fastest);
  // The description carries the simulator's default, which the replay takes as its own.
  EXPECT_EQ(shown(space, space.default_config), shown(sim_space, sim_space.default_config));
  EXPECT_EQ(described.at("default").at("source"), "the kernel description's Default");
}

TEST(OwnRecording, TheOlderLayoutReplaysWithoutADescription) {
  std::ifstream in(kOlder);
  const auto doc = nlohmann::json::parse(in);
  EXPECT_FALSE(doc.contains("objective"));
  EXPECT_FALSE(fs::exists(kOlder.parent_path() / "reducemean.kernel.json"));

  ReplayDevice older(options(kOlder));
  ReplayDevice current(options(kCurrent, kDescription));
  const auto& a = older.recorded();
  const auto& b = current.recorded();
  EXPECT_EQ(a.counts().recorded, b.counts().recorded);
  EXPECT_EQ(a.optimum().time_ms, b.optimum().time_ms);
  // Without a description the default is the first config the cachefile timed.
  EXPECT_EQ(a.record(a.space().default_config)->key, a.cachefile().records[0].key);
  auto task = older.prepare(recorded_task());
  for (const auto& rec : a.cachefile().records) {
    const auto config = a.config_of(rec);
    ASSERT_TRUE(config) << rec.key;
    const auto m = evaluate(*task, *config);
    ASSERT_TRUE(m.ok()) << rec.key << ": " << m.message;
    EXPECT_DOUBLE_EQ(m.time_us, rec.time_ms * 1000);
  }
}

TEST(OwnRecording, ReplaysThroughTheCTable) {
  aoe_host_services services = aoe::test::host_services();
  ASSERT_EQ(::aoe::test::tested_plugin().init(&services), nullptr);
  const aoe_plugin_descriptor* d = ::aoe::test::tested_plugin().query();
  const aoe_component* component = nullptr;
  for (uint32_t i = 0; i < d->component_count; ++i)
    if (std::strcmp(d->components[i].name, "replay") == 0) component = &d->components[i];
  ASSERT_NE(component, nullptr);
  const nlohmann::json opts{{"cachefile", kCurrent.string()}, {"kernel", kDescription.string()}};
  void* self = nullptr;
  ASSERT_EQ(::aoe::test::tested_plugin().create("replay", opts.dump().c_str(), &self), nullptr);
  const aoe_device_ref ref{sizeof(aoe_device_ref), self, static_cast<const aoe_device_vtable*>(component->vtable)};
  {
    const sdk::DeviceClient client(ref, sdk::Host(&services));
    const auto soc = client.describe().at("soc_version").get<std::string>();
    EXPECT_EQ(soc,
              sim::SimDevice(sim::load_soc("ascend910"), sim::SimOptions{}).describe().at("soc_version").get<std::string>());
    const auto prepared = client.prepare(recorded_task());
    const auto results = prepared->evaluate({prepared->space().default_config}, {});
    ASSERT_TRUE(results[0].ok()) << results[0].message;
    EXPECT_DOUBLE_EQ(results[0].time_us, evaluate(*simulated(), simulated()->space().default_config).time_us);
  }
  ref.vtable->destroy(ref.self);
  ::aoe::test::tested_plugin().shutdown();
}

}  // namespace
}  // namespace aoe::replay
