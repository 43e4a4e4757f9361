// The cpu device through the C table a host sees: registration, a task
// evaluated across the boundary (concurrent builds included), errors as statuses.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string>

#include "aoe/sdk/device_client.h"
#include "aoe/sdk/plugin.h"
#include "host_services.h"
#include "plugin_library.h"
#include "tasks.h"

namespace aoe::cpu {
namespace {

class CpuPlugin : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::aoe::test::tested_plugin().init(&services_), nullptr);
    const aoe_plugin_descriptor* d = ::aoe::test::tested_plugin().query();
    for (uint32_t i = 0; i < d->component_count; ++i)
      if (std::strcmp(d->components[i].name, "cpu") == 0) component_ = &d->components[i];
    ASSERT_NE(component_, nullptr);
    void* self = nullptr;
    ASSERT_EQ(::aoe::test::tested_plugin().create("cpu", R"({"max_seconds": 0.05, "max_repeats": 5})", &self), nullptr);
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

TEST_F(CpuPlugin, RegistersTheCpuDevice) {
  EXPECT_EQ(component_->kind, AOE_KIND_DEVICE);
  const auto d = sdk::DeviceClient(ref_, sdk::Host(&services_)).describe();
  EXPECT_EQ(d.at("soc_version").get<std::string>().rfind("cpu_", 0), 0u);
}

TEST_F(CpuPlugin, EvaluatesCandidatesAcrossTheBoundary) {
  const sdk::DeviceClient client(ref_, sdk::Host(&services_));
  const auto task = client.prepare(test::op("Gemm", {test::f32({20, 30}), test::f32({30, 40}, true), test::f32({40}, true)},
                                            {}, {"Relu"}));
  const auto& space = task->space();
  ASSERT_TRUE(space.in_domain(space.default_config));
  auto outside = space.default_config;
  outside[0] = 999;
  const auto refused = test::with(space, space.default_config, "split", "batch");
  const auto results = task->evaluate({space.default_config, refused, outside, space.default_config}, {}, 2);
  ASSERT_EQ(results.size(), 4u);
  EXPECT_TRUE(results[0].ok()) << results[0].message;
  EXPECT_EQ(results[1].status, sdk::ResultStatus::invalid);
  EXPECT_NE(results[1].message.find("split=batch"), std::string::npos);
  EXPECT_EQ(results[2].status, sdk::ResultStatus::invalid);
  EXPECT_TRUE(results[3].ok()) << results[3].message;
}

TEST_F(CpuPlugin, RunsASubgraphAcrossTheBoundary) {
  const sdk::DeviceClient client(ref_, sdk::Host(&services_));
  sdk::SubgraphTask sg;
  sg.name = "mlp";
  auto tensor = [&](const std::string& name, std::vector<int64_t> shape, bool constant = false) {
    auto t = test::f32(std::move(shape), constant);
    t.name = name;
    sg.graph.tensors[name] = t;
  };
  tensor("x", {16, 32});
  tensor("w", {32, 24}, true);
  tensor("h", {16, 24});
  tensor("y", {16, 24});
  sg.graph.inputs = {"x"};
  sg.graph.outputs = {"y"};
  sg.graph.nodes = {{"fc", "MatMul", {"x", "w"}, {"h"}, {}}, {"act", "Relu", {"h"}, {"y"}, {}}};
  const auto task = client.prepare_subgraph(sg);
  const auto& space = task->space();
  ASSERT_EQ(space.knobs.size(), 1u);
  EXPECT_EQ(space.knobs[0].name, "fuse:act");
  const auto results = task->evaluate({{1}, {0}}, {}, 1);
  ASSERT_EQ(results.size(), 2u);
  for (const auto& r : results) EXPECT_TRUE(r.ok()) << r.message;
}

TEST_F(CpuPlugin, AnUnsupportedOpComesBackAsAStatus) {
  const sdk::DeviceClient client(ref_, sdk::Host(&services_));
  try {
    client.prepare(test::op("StringNormalizer", {test::f32({1, 2, 3})}));
    FAIL() << "StringNormalizer was prepared";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), sdk::StatusCode::unsupported);
    EXPECT_STREQ(e.what(), "the cpu device has no kernel for op 'StringNormalizer'");
  }
}

TEST_F(CpuPlugin, ABadOptionIsRefusedAtCreate) {
  void* self = nullptr;
  aoe_status* status = ::aoe::test::tested_plugin().create("cpu", R"({"cache": "tepid"})", &self);
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(status->code, AOE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(status->message.find("'cache'"), std::string::npos);
  delete status;
  EXPECT_EQ(self, nullptr);
}

}  // namespace
}  // namespace aoe::cpu

namespace aoe::cpu {
namespace {

// x[2,8] -> Relu -> y: the smallest model to run whole.
sdk::GraphRun relu_run() {
  sdk::GraphRun run;
  run.graph.name = "relu";
  run.graph.inputs = {"x"};
  run.graph.outputs = {"y"};
  run.graph.tensors["x"] = {"x", {2, 8}};
  run.graph.tensors["y"] = {"y", {2, 8}};
  run.graph.nodes.push_back({"Relu_0", "Relu", {"x"}, {"y"}});
  run.iterations = 2;
  run.threads = 1;
  run.check = true;
  return run;
}

TEST_F(CpuPlugin, RunsAWholeModelAcrossTheBoundary) {
  const sdk::DeviceClient client(ref_, sdk::Host(&services_));
  ASSERT_TRUE(client.runs_graphs());
  std::vector<float> x(16), y(16, 7.0f);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) - 8.0f;
  const auto report = client.run_graph(relu_run(), {{"x", x.data(), x.size()}}, {{"y", y.data(), y.size()}});
  EXPECT_TRUE(report["check"]["match"].get<bool>()) << report.dump(2);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_EQ(y[i], x[i] > 0 ? x[i] : 0.0f) << i;
  EXPECT_EQ(report["latency_ms"]["runs"], 2);
}

TEST_F(CpuPlugin, AMissingOrMisSizedTensorIsAnErrorNamingIt) {
  const sdk::DeviceClient client(ref_, sdk::Host(&services_));
  std::vector<float> x(15), y(16);
  try {
    client.run_graph(relu_run(), {{"x", x.data(), x.size()}}, {{"y", y.data(), y.size()}});
    FAIL() << "a short input ran";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), sdk::StatusCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("input 'x' has 15 values"), std::string::npos) << e.what();
  }
  EXPECT_THROW(client.run_graph(relu_run(), {}, {{"y", y.data(), y.size()}}), sdk::Error);
}

TEST_F(CpuPlugin, ATableOfAnSdkBefore14DoesNotRunModels) {
  aoe_device_vtable older = *ref_.vtable;
  older.struct_size = offsetof(aoe_device_vtable, run_graph);  // a 1.3 plugin's table
  const sdk::DeviceClient client({sizeof(aoe_device_ref), ref_.self, &older}, sdk::Host(&services_));
  EXPECT_FALSE(client.runs_graphs());
  std::vector<float> x(16), y(16);
  try {
    client.run_graph(relu_run(), {{"x", x.data(), x.size()}}, {{"y", y.data(), y.size()}});
    FAIL() << "a 1.3 table was called past its end";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), sdk::StatusCode::unsupported);
    EXPECT_NE(std::string(e.what()).find("before 1.4"), std::string::npos) << e.what();
  }
}

// A device that leaves run_graph to the SDK's default says it does not run models.
class TimesOnly final : public sdk::Device {
 public:
  nlohmann::json describe() const override { return nlohmann::json::object(); }
  std::unique_ptr<sdk::DeviceTask> prepare(const sdk::OpTask&) override { return nullptr; }
};

TEST_F(CpuPlugin, ADeviceWithoutRunGraphSaysSo) {
  // The SDK's own table in this process, which reports through its host.
  struct InProcessHost {
    explicit InProcessHost(const aoe_host_services* services) { sdk::plugin_host() = sdk::Host(services); }
    ~InProcessHost() { sdk::plugin_host() = sdk::Host(); }
  } host(&services_);
  TimesOnly device;
  const sdk::DeviceClient client({sizeof(aoe_device_ref), &device, sdk::detail::device_vtable()}, sdk::Host(&services_));
  std::vector<float> x(16), y(16);
  try {
    client.run_graph(relu_run(), {{"x", x.data(), x.size()}}, {{"y", y.data(), y.size()}});
    FAIL() << "a device without run_graph ran a model";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), sdk::StatusCode::unsupported);
    EXPECT_NE(std::string(e.what()).find("does not run models"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace aoe::cpu
