// The ascend910 device through the C table a host sees: registration, errors as statuses, results as data.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "aoe/sdk/device_client.h"
#include "plugin_library.h"
#include "host_services.h"
#include "op_tasks.h"

namespace aoe::sim {
namespace {

class SimPlugin : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::aoe::test::tested_plugin().init(&services_), nullptr);
    const aoe_plugin_descriptor* d = ::aoe::test::tested_plugin().query();
    for (uint32_t i = 0; i < d->component_count; ++i)
      if (std::strcmp(d->components[i].name, "ascend910") == 0) component_ = &d->components[i];
    ASSERT_NE(component_, nullptr);
    void* self = nullptr;
    ASSERT_EQ(::aoe::test::tested_plugin().create("ascend910", "{}", &self), nullptr);
    ref_ = {sizeof(aoe_device_ref), self, static_cast<const aoe_device_vtable*>(component_->vtable)};
  }
  void TearDown() override {
    if (ref_.self) ref_.vtable->destroy(ref_.self);
    ::aoe::test::tested_plugin().shutdown();
  }

  aoe_host_services services_ = aoe::test::host_services();
  const aoe_component* component_ = nullptr;
  aoe_device_ref ref_{};
};

TEST_F(SimPlugin, RegistersTheAscend910Device) {
  EXPECT_EQ(component_->kind, AOE_KIND_DEVICE);
  EXPECT_STREQ(component_->summary, "Ascend 910 (DaVinci, 32 AI cores) simulator");
  EXPECT_EQ(sdk::DeviceClient(ref_, sdk::Host(&services_)).describe().at("soc_version"), "Ascend910");
}

TEST_F(SimPlugin, EvaluatesCandidatesAcrossTheBoundary) {
  const sdk::DeviceClient client(ref_, sdk::Host(&services_));
  const auto task = client.prepare(test::square(1024, 1024, 1024));
  const auto& space = task->space();
  ASSERT_TRUE(space.in_domain(space.default_config));
  const sdk::Config overflow{32, 16, 1, 16, 16, 0, 0};
  const sdk::Config outside{33, 8, 16, 4, 32, 1, 1};
  const auto results = task->evaluate({space.default_config, overflow, outside}, {});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results[0].ok());
  EXPECT_GT(results[0].time_us, 8.192);
  EXPECT_EQ(results[1].status, sdk::ResultStatus::invalid);
  EXPECT_EQ(results[1].message, "L0A, needs 131072 B, has 65536 B");
  EXPECT_EQ(results[2].status, sdk::ResultStatus::invalid);
}

TEST_F(SimPlugin, AnUnsupportedOpComesBackAsAStatus) {
  const sdk::DeviceClient client(ref_, sdk::Host(&services_));
  auto unique = test::square(64, 64, 64);
  unique.op_type = "Unique";
  try {
    client.prepare(unique);
    FAIL() << "Unique was prepared";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), sdk::StatusCode::unsupported);
    EXPECT_STREQ(e.what(), "ascend910 simulator does not model op 'Unique' yet");
  }
}

}  // namespace
}  // namespace aoe::sim
