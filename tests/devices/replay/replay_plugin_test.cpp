// The replay device through the C table a host sees: options as JSON, errors
// as statuses, recorded results as data.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "aoe/sdk/device_client.h"
#include "plugin_library.h"
#include "host_services.h"
#include "recorded_data.h"

namespace aoe::replay {
namespace {

const std::string kData = test::benchmark_hub_data().string();

class ReplayPlugin : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::aoe::test::tested_plugin().init(&services_), nullptr);
    const aoe_plugin_descriptor* d = ::aoe::test::tested_plugin().query();
    for (uint32_t i = 0; i < d->component_count; ++i)
      if (std::strcmp(d->components[i].name, "replay") == 0) component_ = &d->components[i];
    ASSERT_NE(component_, nullptr);
  }
  void TearDown() override {
    if (ref_.self) ref_.vtable->destroy(ref_.self);
    ::aoe::test::tested_plugin().shutdown();
  }
  // The status aoe_plugin_create returned, as (code, message); {0, ""} when it made the device.
  std::pair<int32_t, std::string> create(const nlohmann::json& options) {
    void* self = nullptr;
    aoe_status* status = ::aoe::test::tested_plugin().create("replay", options.dump().c_str(), &self);
    if (status) {
      std::pair<int32_t, std::string> out{status->code, status->message};
      delete status;
      return out;
    }
    ref_ = {sizeof(aoe_device_ref), self, static_cast<const aoe_device_vtable*>(component_->vtable)};
    return {0, ""};
  }

  aoe_host_services services_ = aoe::test::host_services();
  const aoe_component* component_ = nullptr;
  aoe_device_ref ref_{};
};

TEST_F(ReplayPlugin, ReplaysThroughTheCTable) {
  AOE_REQUIRE_BENCHMARK_HUB_DATA();
  ASSERT_EQ(create({{"cachefile", kData + "/convolution_milo_A100.json.gz"},
                    {"kernel", kData + "/convolution_milo.kernel.json"}}),
            (std::pair<int32_t, std::string>{0, ""}));
  EXPECT_EQ(component_->kind, AOE_KIND_DEVICE);
  const sdk::DeviceClient client(ref_, sdk::Host(&services_));
  EXPECT_EQ(client.describe().at("soc_version"), "NVIDIA_A100-PCIE-40GB");
  sdk::OpTask task;
  task.op_type = "convolution_kernel";
  const auto prepared = client.prepare(task);
  const auto& space = prepared->space();
  ASSERT_EQ(space.knobs.size(), 10u);
  // The default (16x16 threads, 1x1 tiles, padded shared memory), a recorded
  // runtime failure, a compile failure, and one the conditions reject.
  const sdk::Config runtime_failure{32, 16, 2, 4, 1, 0, 0, 1, 15, 15};
  const sdk::Config rejected{64, 1, 1, 1, 0, 1, 1, 1, 15, 15};
  const auto results = prepared->evaluate({space.default_config, runtime_failure, rejected}, {});
  ASSERT_TRUE(results[0].ok()) << results[0].message;
  EXPECT_GT(results[0].time_us, 553.6);
  EXPECT_EQ(results[1].status, sdk::ResultStatus::run_failed);
  EXPECT_EQ(results[2].status, sdk::ResultStatus::invalid);
  EXPECT_GT(client.describe().at("simulated_time_s").get<double>(), 0);
}

TEST_F(ReplayPlugin, ErrorsComeBackAsStatusesNamingTheOption) {
  AOE_REQUIRE_BENCHMARK_HUB_DATA();
  const auto unknown = create({{"cachefile", kData + "/convolution_milo_A100.json.gz"}, {"soc", "x"}});
  EXPECT_EQ(unknown.first, AOE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(unknown.second.find("no option 'soc'"), std::string::npos) << unknown.second;
  const auto missing = create({{"cachefile", kData + "/nothing_here.json.gz"}});
  EXPECT_EQ(missing.first, AOE_STATUS_IO);
  EXPECT_NE(missing.second.find("nothing_here.json.gz"), std::string::npos) << missing.second;
}

TEST_F(ReplayPlugin, AnotherOpIsUnsupported) {
  AOE_REQUIRE_BENCHMARK_HUB_DATA();
  ASSERT_EQ(create({{"cachefile", kData + "/dedispersion_milo_A4000.json.gz"}}).first, 0);
  const sdk::DeviceClient client(ref_, sdk::Host(&services_));
  sdk::OpTask task;
  task.op_type = "Conv";
  try {
    client.prepare(task);
    FAIL() << "Conv was prepared";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), sdk::StatusCode::unsupported);
    EXPECT_NE(std::string(e.what()).find("'dedispersion_kernel'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace aoe::replay
