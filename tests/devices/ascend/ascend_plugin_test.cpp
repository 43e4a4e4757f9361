// The built ascend plugin, loaded as aoe-host loads it, against the test
// double of libascendcl.so: discovery and SoC mapping, the order of the
// AscendCL calls and every create matched by its destroy, the timing path,
// and failures kept as data.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "acl_tasks.h"
#include "aoe/sdk/device_client.h"
#include "host_services.h"

namespace aoe::test {
namespace {

using nlohmann::json;

class AscendPlugin : public ::testing::Test {
 protected:
  void SetUp() override {
    log_ = std::filesystem::temp_directory_path() /
           ("aoe_acl_log_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    std::filesystem::remove(log_);
    ::setenv("ACL_DOUBLE_LOG", log_.c_str(), 1);
    for (const char* name : {"ACL_DOUBLE_FAULTS", "ACL_DOUBLE_SOC", "ACL_DOUBLE_DEVICE_COUNT", "ASCEND_HOME_PATH", "ASCEND_DEVICE_ID"})
      ::unsetenv(name);
  }

  void TearDown() override {
    if (device_.self) device_.vtable->destroy(device_.self);
    if (library_) {
      shutdown_();
      ::dlclose(library_);
    }
    if (!HasFailure()) std::filesystem::remove(log_);
  }

  // Opens the plugin library and initialises it, as the host does.
  void load() {
    library_ = ::dlopen(AOE_ASCEND_PLUGIN_FILE, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(library_, nullptr) << ::dlerror();
    auto query = reinterpret_cast<aoe_plugin_query_fn>(::dlsym(library_, AOE_PLUGIN_QUERY_SYMBOL));
    auto init = reinterpret_cast<aoe_plugin_init_fn>(::dlsym(library_, AOE_PLUGIN_INIT_SYMBOL));
    create_ = reinterpret_cast<aoe_plugin_create_fn>(::dlsym(library_, AOE_PLUGIN_CREATE_SYMBOL));
    shutdown_ = reinterpret_cast<aoe_plugin_shutdown_fn>(::dlsym(library_, AOE_PLUGIN_SHUTDOWN_SYMBOL));
    ASSERT_TRUE(query && init && create_ && shutdown_);
    const aoe_plugin_descriptor* d = query();
    ASSERT_EQ(d->component_count, 1u);
    component_ = &d->components[0];
    ASSERT_STREQ(component_->name, "ascend");
    ASSERT_EQ(init(&services_), nullptr);
  }

  // Creates the device on the double; the status message on failure.
  std::string create(json options = json::object()) {
    if (!library_) load();
    options.emplace("acl_library", AOE_ACL_DOUBLE_FILE);
    void* self = nullptr;
    aoe_status* status = create_("ascend", options.dump().c_str(), &self);
    if (status) {
      const std::string message = services_.status_message(status);
      services_.status_destroy(status);
      return message;
    }
    device_ = {sizeof(aoe_device_ref), self, static_cast<const aoe_device_vtable*>(component_->vtable)};
    return {};
  }

  sdk::DeviceClient client() const { return sdk::DeviceClient(device_, sdk::Host(&services_)); }

  void destroy() {
    device_.vtable->destroy(device_.self);
    device_.self = nullptr;
  }

  std::vector<std::string> log() const {
    std::ifstream in(log_);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }

  size_t count(const std::string& call) const {
    const auto lines = log();
    return std::count_if(lines.begin(), lines.end(), [&](const std::string& l) { return l.rfind(call, 0) == 0; });
  }

  size_t first(const std::string& call) const {
    const auto lines = log();
    for (size_t i = 0; i < lines.size(); ++i)
      if (lines[i].rfind(call, 0) == 0) return i;
    return lines.size();
  }

  size_t last(const std::string& call) const {
    const auto lines = log();
    for (size_t i = lines.size(); i-- > 0;)
      if (lines[i].rfind(call, 0) == 0) return i;
    return lines.size();
  }

  aoe_host_services services_ = host_services();
  std::filesystem::path log_;
  void* library_ = nullptr;
  const aoe_component* component_ = nullptr;
  aoe_plugin_create_fn create_ = nullptr;
  aoe_plugin_shutdown_fn shutdown_ = nullptr;
  aoe_device_ref device_{};
};

sdk::MeasureOptions timing(uint32_t repeats = 3) { return {1, repeats, true}; }

TEST_F(AscendPlugin, SummaryNamesTheLibraryFoundThroughAscendHomePath) {
  ::setenv("ASCEND_HOME_PATH", std::filesystem::path(AOE_ACL_DOUBLE_FILE).parent_path().parent_path().c_str(), 1);
  load();
  EXPECT_NE(std::string(component_->summary).find(AOE_ACL_DOUBLE_FILE), std::string::npos) << component_->summary;
}

TEST_F(AscendPlugin, ReportsTheDriversSocAsTheSimulatorNamesIt) {
  ::setenv("ACL_DOUBLE_SOC", "Ascend910ProB", 1);
  ASSERT_EQ(create(), "");
  const json soc = client().describe();
  EXPECT_EQ(soc["soc_version"], "Ascend910");
  EXPECT_EQ(soc["soc_name"], "Ascend910ProB");
  EXPECT_EQ(soc["simulator_target"], "ascend910");
  EXPECT_EQ(soc["acl_library"], AOE_ACL_DOUBLE_FILE);
}

TEST_F(AscendPlugin, AChipTheSimulatorLacksKeepsTheDriversName) {
  ::setenv("ACL_DOUBLE_SOC", "Ascend910B4", 1);
  ASSERT_EQ(create(), "");
  EXPECT_EQ(client().describe()["soc_version"], "Ascend910B4");
  EXPECT_EQ(client().describe()["simulator_target"], "");
}

TEST_F(AscendPlugin, OpensTheDeviceTheOptionNames) {
  ::setenv("ACL_DOUBLE_DEVICE_COUNT", "2", 1);
  ASSERT_EQ(create({{"device_id", 1}}), "");
  EXPECT_EQ(client().describe()["device_id"], 1);
  EXPECT_EQ(count("aclrtSetDevice 1"), 1u);
}

TEST_F(AscendPlugin, TakesTheDeviceFromAscendDeviceIdUnlessTheOptionSays) {
  ::setenv("ACL_DOUBLE_DEVICE_COUNT", "3", 1);
  ::setenv("ASCEND_DEVICE_ID", "2", 1);
  ASSERT_EQ(create(), "");
  EXPECT_EQ(client().describe()["device_id"], 2);
  destroy();
  ASSERT_EQ(create({{"device_id", 1}}), "");
  EXPECT_EQ(client().describe()["device_id"], 1);
}

TEST_F(AscendPlugin, ADeviceIdBeyondTheDriversCountIsAClearError) {
  ::setenv("ACL_DOUBLE_DEVICE_COUNT", "2", 1);
  const std::string error = create({{"device_id", 2}});
  EXPECT_NE(error.find("device_id 2 names no device: the driver reports 2"), std::string::npos) << error;
  EXPECT_EQ(count("aclFinalize"), 1u);  // a failed open still finalises
}

TEST_F(AscendPlugin, AMissingLibraryIsAClearError) {
  load();
  void* self = nullptr;
  aoe_status* status = create_("ascend", R"({"acl_library": "/nonexistent/libascendcl.so"})", &self);
  ASSERT_NE(status, nullptr);
  EXPECT_NE(std::string(services_.status_message(status)).find("/nonexistent/libascendcl.so does not exist"),
            std::string::npos);
  services_.status_destroy(status);
}

TEST_F(AscendPlugin, ALibraryWithoutTheEntryPointsIsRefusedNamingThem) {
  load();
  void* self = nullptr;
  const json options = {{"acl_library", AOE_ASCEND_PLUGIN_FILE}};
  aoe_status* status = create_("ascend", options.dump().c_str(), &self);
  ASSERT_NE(status, nullptr);
  const std::string message = services_.status_message(status);
  services_.status_destroy(status);
  EXPECT_NE(message.find("lacks AscendCL entry points the device calls: aclInit, aclFinalize,"), std::string::npos)
      << message;
}

TEST_F(AscendPlugin, AnUnknownOptionIsNamed) {
  const std::string error = create({{"devcie_id", 1}});
  EXPECT_NE(error.find("unknown ascend device option 'devcie_id'"), std::string::npos) << error;
}

TEST_F(AscendPlugin, OffersFormatsAndImplModeWithAclsDefaults) {
  ASSERT_EQ(create(), "");
  const auto task = client().prepare(json(matmul_add_relu()).get<sdk::OpTask>());
  const auto& space = task->space();
  ASSERT_EQ(space.knobs.size(), 3u);
  EXPECT_EQ(space.knobs[0].name, "x1_format");
  EXPECT_EQ(space.knobs[0].labels, (std::vector<std::string>{"ND", "FRACTAL_NZ"}));
  EXPECT_EQ(space.knobs[0].tag, sdk::KnobTag::format);
  EXPECT_EQ(space.knobs[2].name, "impl_mode");
  EXPECT_EQ(space.knobs[2].tag, sdk::KnobTag::impl);
  EXPECT_EQ(space.default_config, (sdk::Config{0, 0, 0}));
}

TEST_F(AscendPlugin, UnsupportedOpsComeBackAsStatuses) {
  ASSERT_EQ(create(), "");
  auto task = json(matmul_add_relu());
  task["op_type"] = "Softmax";
  try {
    client().prepare(task.get<sdk::OpTask>());
    FAIL() << "a Softmax task was prepared";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), sdk::StatusCode::unsupported);
    EXPECT_NE(std::string(e.what()).find("Softmax"), std::string::npos) << e.what();
  }
}

// The double charges MatMul 2 us + 2*M*N*K / 2e5 (x0.8 for x1 in FRACTAL_NZ,
// x0.7 for x2, x1.25 in high_precision) and each elementwise op 1 us +
// elements / 1e4 (x1.1): the events read exactly that.
TEST_F(AscendPlugin, TimesEachCandidateWithEventsOnTheStream) {
  ASSERT_EQ(create(), "");
  const auto task = client().prepare(json(matmul_add_relu()).get<sdk::OpTask>());
  const auto results = task->evaluate({{0, 0, 0}, {1, 1, 0}, {0, 0, 1}}, timing(4));
  ASSERT_EQ(results.size(), 3u);
  for (const auto& r : results) {
    ASSERT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.repeats, 4u);
    EXPECT_EQ(r.noise, 0);
  }
  const double matmul = 2 + 2.0 * 64 * 32 * 128 / 2e5, eltwise = 1 + 64 * 32 / 1e4;
  EXPECT_NEAR(results[0].time_us, matmul + 2 * eltwise, 1e-3);
  EXPECT_NEAR(results[1].time_us, matmul * 0.8 * 0.7 + 2 * eltwise, 1e-3);
  EXPECT_NEAR(results[2].time_us, matmul * 1.25 + 2 * eltwise * 1.1, 1e-3);
  // Each timed run sits between its two events; the stream is synchronised on the end one.
  EXPECT_EQ(count("aclrtRecordEvent"), 3u * 2 * 4);
  EXPECT_EQ(count("aclrtEventElapsedTime"), 3u * 4);
  EXPECT_EQ(count("aclSetCompileopt 3 high_precision"), 2u);  // its build, then its run
}

TEST_F(AscendPlugin, EveryFormatGivesTheReferenceOutput) {
  ASSERT_EQ(create(), "");
  for (const json& t : {matmul_add_relu(), conv_relu()}) {
    const auto task = client().prepare(t.get<sdk::OpTask>());
    std::vector<sdk::Config> all;
    sdk::for_each_config(task->space(), [&](const sdk::Config& c) { all.push_back(c); });
    ASSERT_GE(all.size(), 8u);
    for (const auto& r : task->evaluate(all, timing(1))) EXPECT_TRUE(r.ok()) << t["op_type"] << ": " << r.message;
  }
  // The conv's input in NC1HWC0 and its weights in FRACTAL_Z reached ACL as such.
  EXPECT_GT(count("aclSetTensorStorageFormat"), 0u);
}

TEST_F(AscendPlugin, EveryCreateHasItsDestroyInOrder) {
  ASSERT_EQ(create(), "");
  {
    const auto task = client().prepare(json(matmul_add_relu()).get<sdk::OpTask>());
    ASSERT_TRUE(task->evaluate({{1, 0, 0}}, timing())[0].ok());
  }
  destroy();
  EXPECT_EQ(first("aclInit"), 0u);
  EXPECT_LT(first("aclrtSetDevice"), first("aclrtCreateStream"));
  EXPECT_LT(first("aclrtCreateStream"), first("aclrtCreateEvent"));
  EXPECT_LT(first("aclrtCreateEvent"), first("aclopCompileAndExecute"));
  EXPECT_LT(last("aclopCompileAndExecute"), first("aclrtDestroyEvent"));
  EXPECT_LT(last("aclrtDestroyEvent"), last("aclrtDestroyStream"));
  EXPECT_LT(last("aclrtDestroyStream"), last("aclrtResetDevice"));
  EXPECT_LT(last("aclrtResetDevice"), last("aclFinalize"));
  for (const auto& [create, destroy] : std::map<std::string, std::string>{
           {"aclrtCreateStream", "aclrtDestroyStream"}, {"aclrtCreateEvent", "aclrtDestroyEvent"},
           {"aclrtMalloc", "aclrtFree"}, {"aclCreateTensorDesc", "aclDestroyTensorDesc"},
           {"aclCreateDataBuffer", "aclDestroyDataBuffer"}, {"aclopCreateAttr", "aclopDestroyAttr"}}) {
    EXPECT_GT(count(create), 0u) << create;
    EXPECT_EQ(count(create), count(destroy)) << create << " / " << destroy;
  }
  const auto lines = log();
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), "live streams=0 events=0 memory=0 tensor_descs=0 data_buffers=0 attrs=0");
}

TEST_F(AscendPlugin, ACompileFailureIsABuildFailureWithAclsMessage) {
  ::setenv("ACL_DOUBLE_FAULTS", "compile:MatMul:FRACTAL_NZ", 1);
  ASSERT_EQ(create(), "");
  const auto task = client().prepare(json(matmul_add_relu()).get<sdk::OpTask>());
  const auto results = task->evaluate({{1, 0, 0}, {0, 0, 0}}, timing());
  EXPECT_EQ(results[0].status, sdk::ResultStatus::build_failed);
  EXPECT_NE(results[0].message.find("aclopCompile failed with ACL error 500002: E40021: failed to compile op [MatMul]"),
            std::string::npos)
      << results[0].message;
  EXPECT_TRUE(results[1].ok()) << results[1].message;
  EXPECT_EQ(count("aclrtResetDevice"), 0u);  // nothing ran, nothing to reset
}

TEST_F(AscendPlugin, ARunFailureResetsTheDeviceAndTheNextCandidateRuns) {
  ::setenv("ACL_DOUBLE_FAULTS", "run:MatMul:FRACTAL_NZ", 1);
  ASSERT_EQ(create(), "");
  auto task = client().prepare(json(matmul_add_relu()).get<sdk::OpTask>());
  const auto results = task->evaluate({{0, 1, 0}, {0, 0, 0}}, timing());
  task.reset();  // a task holds the device open
  EXPECT_EQ(results[0].status, sdk::ResultStatus::run_failed);
  EXPECT_NE(results[0].message.find("aclrtSynchronizeStream failed with ACL error 507015: EZ9999: AI Core exception"),
            std::string::npos)
      << results[0].message;
  EXPECT_TRUE(results[1].ok()) << results[1].message;
  EXPECT_EQ(count("aclrtResetDevice 0"), 1u);
  EXPECT_EQ(count("aclrtSetDevice 0"), 2u);
  EXPECT_EQ(count("aclrtCreateStream"), 2u);
  destroy();
  EXPECT_EQ(log().back(), "live streams=0 events=0 memory=0 tensor_descs=0 data_buffers=0 attrs=0");
}

TEST_F(AscendPlugin, AVanishedDeviceFailsWhatFollowsWithoutTakingTheProcess) {
  ::setenv("ACL_DOUBLE_FAULTS", "vanish:3", 1);  // one candidate's checked run (3 ops), then gone
  ASSERT_EQ(create(), "");
  auto task = client().prepare(json(matmul_add_relu()).get<sdk::OpTask>());
  const auto results = task->evaluate({{0, 0, 0}, {1, 1, 0}, {1, 0, 0}}, timing());
  task.reset();
  for (const auto& r : results) EXPECT_EQ(r.status, sdk::ResultStatus::run_failed) << r.message;
  EXPECT_NE(results[0].message.find("EL0004: the device is lost"), std::string::npos) << results[0].message;
  EXPECT_NE(results[0].message.find("did not come back after a reset"), std::string::npos) << results[0].message;
  EXPECT_EQ(results[2].message, results[1].message);
  try {
    client().prepare(json(conv_relu()).get<sdk::OpTask>());
    FAIL() << "a task was prepared on a lost device";
  } catch (const sdk::Error& e) {
    EXPECT_NE(std::string(e.what()).find("did not come back"), std::string::npos) << e.what();
  }
  destroy();
  EXPECT_EQ(log().back(), "live streams=0 events=0 memory=0 tensor_descs=0 data_buffers=0 attrs=0");
}

}  // namespace
}  // namespace aoe::test
