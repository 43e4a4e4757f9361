// The ascend910 device: options, description, build and measure of candidates.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "aoe/sdk/error.h"
#include "op_tasks.h"
#include "sim_device.h"

namespace aoe::sim {
namespace {

using test::square;

SimDevice device(nlohmann::json options = nlohmann::json::object()) {
  return SimDevice(sdk::CreateArgs{"ascend910", std::move(options)});
}

std::string error_of(const std::function<void()>& body, sdk::StatusCode expected) {
  try {
    body();
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), expected) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

// Builds each config and times the lot in one batch.
std::vector<sdk::Measurement> evaluate(sdk::DeviceTask& task, const std::vector<sdk::Config>& configs,
                                       uint32_t repeats = 5) {
  std::vector<std::unique_ptr<sdk::Candidate>> built;
  std::vector<sdk::Candidate*> batch;
  for (const auto& c : configs) {
    auto b = task.build(c);
    EXPECT_TRUE(b.candidate) << b.failure.message;
    batch.push_back(b.candidate.get());
    built.push_back(std::move(b.candidate));
  }
  return task.measure(batch, {1, repeats, false});
}

TEST(SimDevice, DescribesTheAscend910) {
  const auto d = device().describe();
  EXPECT_EQ(d.at("soc_version"), "Ascend910");
  EXPECT_EQ(d.at("ai_core_count"), 32);
  EXPECT_EQ(d.at("clock_mhz"), 1000.0);
  EXPECT_EQ(d.at("buffers_bytes").at("l0a"), 65536);
  EXPECT_EQ(d.at("buffers_bytes").at("l0b"), 65536);
  EXPECT_EQ(d.at("buffers_bytes").at("l0c"), 262144);
  EXPECT_EQ(d.at("buffers_bytes").at("l1"), 1048576);
  EXPECT_EQ(d.at("buffers_bytes").at("ub"), 262144);
  EXPECT_EQ(d.at("hbm_gbps"), 1200.0);
}

TEST(SimDevice, TimesACandidateWithItsModel) {
  auto dev = device();
  const auto task_desc = square(1024, 1024, 1024);
  auto task = dev.prepare(task_desc);
  const auto model = dev.model(task_desc);
  const auto space = task->space();
  ASSERT_EQ(space.knobs.size(), 7u);
  EXPECT_EQ(space.default_config, model->space().default_config);
  ASSERT_TRUE(task->check(space.default_config).ok());

  sdk::Config other = space.default_config;
  other[0] = 8;
  const auto results = evaluate(*task, {space.default_config, other});
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results[0].ok());
  EXPECT_DOUBLE_EQ(results[0].time_us, model->time_us(space.default_config));
  EXPECT_EQ(results[0].repeats, 1u);
  EXPECT_EQ(results[0].noise, 0);
  EXPECT_DOUBLE_EQ(results[1].time_us, model->time_us(other));
  EXPECT_GT(results[1].time_us, results[0].time_us);
}

TEST(SimDevice, AnInvalidConfigNeverBuilds) {
  auto task = device().prepare(square(1024, 1024, 1024));
  const sdk::Config overflow{32, 16, 1, 16, 16, 0, 0};
  const auto built = task->build(overflow);
  EXPECT_FALSE(built.candidate);
  EXPECT_EQ(built.failure.status, sdk::ResultStatus::invalid);
  EXPECT_EQ(built.failure.message, "L0A, needs 131072 B, has 65536 B");
  EXPECT_EQ(built.failure.time_us, 0);
}

TEST(SimDevice, NoiseIsSeededAndOnlySlowsDown) {
  const auto op = square(512, 512, 512);
  const auto model = device().model(op);
  const auto config = model->space().default_config;
  auto run = [&](uint64_t seed) {
    auto task = device({{"noise", 0.05}, {"seed", seed}}).prepare(op);
    return evaluate(*task, {config, config, config}, 7);
  };
  const auto first = run(7), again = run(7), other = run(8);
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_DOUBLE_EQ(first[i].time_us, again[i].time_us);
    EXPECT_GE(first[i].time_us, model->time_us(config));
    EXPECT_LT(first[i].time_us, 1.5 * model->time_us(config));
    EXPECT_GT(first[i].noise, 0);
    EXPECT_EQ(first[i].repeats, 7u);
  }
  EXPECT_NE(first[0].time_us, first[1].time_us);
  EXPECT_NE(first[0].time_us, other[0].time_us);
}

TEST(SimDevice, BadOptionsAreRefusedByName) {
  EXPECT_NE(error_of([] { device({{"noise", -0.1}}); }, sdk::StatusCode::invalid_argument).find("'noise'"),
            std::string::npos);
  EXPECT_NE(error_of([] { device({{"noise", "loud"}}); }, sdk::StatusCode::invalid_argument).find("'noise'"),
            std::string::npos);
  EXPECT_NE(error_of([] { device({{"seed", -3}}); }, sdk::StatusCode::invalid_argument).find("'seed'"),
            std::string::npos);
  EXPECT_NE(error_of([] { device({{"nosie", 0.1}}); }, sdk::StatusCode::invalid_argument).find("'nosie'"),
            std::string::npos);
  error_of([] { SimDevice(sdk::CreateArgs{"ascend999", nlohmann::json::object()}); }, sdk::StatusCode::not_found);
}

TEST(SimDevice, AnOpItDoesNotModelIsUnsupported) {
  auto dev = device();
  auto op = square(64, 64, 64);
  op.op_type = "Unique";
  EXPECT_EQ(error_of([&] { dev.prepare(op); }, sdk::StatusCode::unsupported),
            "ascend910 simulator does not model op 'Unique' yet");
}

}  // namespace
}  // namespace aoe::sim
